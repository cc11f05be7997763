"""A CUDA library a requirement or an install line names that no code of the project imports or calls: nothing of
the project's to port (``with_unused_requirements``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, List, Mapping, Optional, Sequence

from ..model import Finding, Status, Verdict, fix_of
from .roots import LIBRARY_USE_RULES

_UNUSED_SOURCE = "migrator requirement analysis (no code of the project uses the library)"


def with_unused_requirements(findings: Sequence[Finding], library_of: Callable[[str], Optional[str]],
                             libraries: Mapping[str, Mapping[str, Any]]) -> List[Finding]:
    """A CUDA library a requirement or an install line names that no code of the project imports or calls (GLM's
    Dockerfiles install ``cupy-cuda102`` and ``py3nvml``; nothing imports either): nothing to port. A library of
    host-side bindings (NVML's: a pure-Python wheel that loads the driver only when called) installs on any machine
    and is never called: it runs as written. Any other is a line to drop from the install on the target, where it
    would not build, or, where another installed package needs it (mmdet needs mmcv's ops), the target's build to
    install instead: a rewrite of that line, never a port of the library."""
    used = {library_of(f.api) or f.api.split(".", 1)[0] for f in findings if f.rule in LIBRARY_USE_RULES}
    out = []
    for finding in findings:
        library = finding.api.split(":", 1)[1] if finding.rule == "cuda-requirement" \
            and finding.api.startswith("requirement:") else None
        if library is None or library in used or library not in libraries:
            out.append(finding)
            continue
        kind = libraries[library].get("kind")
        verdicts = dict(finding.verdicts)
        for target, verdict in finding.verdicts.items():
            if verdict.status not in (Status.PORT, Status.REWRITE):
                continue
            if kind == "monitoring":
                quote = (f"no code of the project imports {library}: its bindings install on any machine and load "
                         f"NVIDIA's driver only when called, which nothing does here")
                verdicts[target] = Verdict(Status.SUPPORTED, quote, _UNUSED_SOURCE)
            else:
                quote = (f"no code of the project imports {library}: drop it from this install on {target}, where "
                         f"it does not build ({libraries[library]['what']}), unless another package installed here "
                         f"needs it (mmdet needs mmcv's ops): then install {target}'s build of it, where the vendor "
                         "ships one; no port of the project's code")
                verdicts[target] = Verdict(Status.REWRITE, quote, _UNUSED_SOURCE,
                                           fix=fix_of(f"remove {library} from the install"))
        out.append(replace(finding, verdicts=verdicts))
    return out
