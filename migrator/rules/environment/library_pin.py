"""The ``library-pin`` rule."""

from __future__ import annotations

import re
from typing import Optional, Tuple

from ...maps.load import FirstRelease, first_releases, release_tuple
from ...model import Category, Evidence, Grade, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, cuda_names, per_target
from ..examples import ByRuntime, Invalid, Valid

PREFIX = "requirement-version:"


class LibraryPin(Rule):
    """A requirement that allows only releases of a library older than its first one to serve the target.

    ## What it does
    Reads a version cap in a requirements file (`deepspeed==0.8.3`, `accelerate<0.20`, `mmcv-full~=1.6.0`) against
    the first release of that library whose own code serves the target's device: DeepSpeed's npu accelerator,
    accelerate's `is_npu_available`, mmcv's npu kernels (`device_support` in `curated/frameworks.yaml`, each read
    from the library's tags with the commit and file that show it).

    ## Why is this bad?
    Every release the requirement allows runs on CUDA alone: the project's calls into the library stay on the
    CUDA path (or fail) on the target, whatever the project's own code does. Raising the cap is the first step
    of the port, and the library's newer API may need changes of its own.

    ## Example
    `deepspeed==0.8.3` on Ascend: DeepSpeed first ships `accelerator/npu_accelerator.py` in 0.9.3.

    ## Fix safety
    A suggestion, never applied: a newer release of a library may change its API.
    """

    name = "library-pin"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.REQUIREMENT})
    category = Category.ENVIRONMENT
    summary = "requirements capped below a library's first release for the target"
    examples = (
        Invalid("torch\ndeepspeed==0.8.3\n", path="requirements.txt",
                expect=ByRuntime(renamed=Status.UNKNOWN, kept=Status.SUPPORTED, cann=Status.REWRITE,
                                 neuware=Status.REWRITE)),
        Invalid("accelerate>=0.19,<0.25\n", path="requirements.txt",
                expect=ByRuntime(renamed=Status.UNKNOWN, kept=Status.SUPPORTED, cann=Status.SUPPORTED,
                                 neuware=Status.REWRITE)),
        Valid("deepspeed>=0.8\naccelerate\n", path="requirements.txt"),
        Valid("numpy==1.24.0\n", path="requirements.txt"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if not usage.api.startswith(PREFIX):
            return None
        package = usage.api[len(PREFIX):]
        table = first_releases()
        if not any((package, t.id) in table for t in ctx.targets):
            return None
        cap = highest_allowed(usage.args[0].value.text or "" if usage.args else "")
        if cap is None:
            return None

        def verdict(target) -> Verdict:
            first = table.get((package, target.id))
            if first is None:
                if not cuda_names(target).rewritten:
                    return Verdict(Status.SUPPORTED, f"{target.id} presents itself as CUDA: {package}'s CUDA path "
                                   "serves it in any release", "migrator environment rules")
                return Verdict(Status.UNKNOWN, f"no data says which {package} release first serves {target.id}",
                               "operator_maps/curated/frameworks.yaml")
            return _capped(first, usage, cap)
        return per_target(ctx, verdict)


def _capped(first: FirstRelease, usage: Usage, cap: Tuple[Tuple[int, ...], bool]) -> Verdict:
    version, inclusive = _trimmed(cap[0]), cap[1]
    since = _trimmed(first.version)
    below = version < since if inclusive else version <= since
    if not below:
        return Verdict(Status.SUPPORTED, f"the requirement allows {first.package} {first.since}, its first release "
                       "that serves this device", first.source)
    said = f"`{usage.snippet}` allows only releases before {first.package} {first.since}, its first that serves " \
           f"this device"
    return Verdict(Status.REWRITE, f"{said}: raise the cap to allow {first.package}>={first.since} (its API may "
                   "have changed since the pinned release)", first.source,
                   fix=fix_of(f"{first.package}>={first.since}"), evidence=(Evidence(Grade.PROOF, first.source, said),))


def _trimmed(version: Tuple[int, ...]) -> Tuple[int, ...]:
    """``(1, 7, 0)`` -> ``(1, 7)``: one release however many zeros it is written with."""
    while version and version[-1] == 0:
        version = version[:-1]
    return version


_CLAUSE = re.compile(r"^\s*(===|==|~=|<=|<|>=|>|!=)\s*([0-9][0-9A-Za-z.*+!-]*)\s*$")


def highest_allowed(specifier: str) -> Optional[Tuple[Tuple[int, ...], bool]]:
    """The highest release a specifier allows, and whether that release itself is allowed: ``==0.8.3`` ->
    ``((0, 8, 3), True)``, ``<0.20`` -> ``((0, 20), False)``, ``~=1.6.0`` -> ``((1, 7), False)``, ``==0.8.*`` ->
    ``((0, 9), False)``; ``None`` when it sets no cap (``>=0.8``) or cannot be read."""
    caps = []
    for clause in specifier.split(","):
        match = _CLAUSE.match(clause)
        if match is None:
            if clause.strip():
                return None
            continue
        op, text = match.groups()
        version = release_tuple(text.rstrip(".*"))
        if not version:
            return None
        if op in ("==", "===") and text.endswith(".*"):
            caps.append((version[:-1] + (version[-1] + 1,), False))
        elif op in ("==", "==="):
            caps.append((version, True))
        elif op == "<":
            caps.append((version, False))
        elif op == "<=":
            caps.append((version, True))
        elif op == "~=" and len(version) >= 2:
            caps.append((version[:-2] + (version[-2] + 1,), False))
    return min(caps, key=lambda cap: (cap[0], cap[1])) if caps else None
