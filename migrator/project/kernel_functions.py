"""CUDA's AMP decorators on the autograd Function that runs a compiled CUDA extension: part of that kernel's path.

InternImage's ``DCNv3Function`` decorates its ``forward`` with ``torch.cuda.amp.custom_fwd`` and calls its compiled
``DCNv3`` extension there; the model takes that Function only where ``import DCNv3`` worked (``has_cuda_kernel``),
and its plain-PyTorch twin everywhere else. The decorator does what it does only when the Function runs, so it
is judged with the extension the Function calls: where that extension is optional (imported under ``try`` with a
way on, every call of it runs as written) the Function never runs on a target the extension is not built for,
and the decorator runs as written there (a note); where the extension is work, the decorator is a site of it,
ported with the kernel. A Function that calls no extension keeps its verdicts (its decorator meets the target's
autocast).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Sequence, Tuple

from ..model import Finding, Status
from ..rules.base import runs_on_a_note
from .coverage import runs_as_written

#: CUDA's decorators for an autograd Function's passes under autocast
_DECORATORS = frozenset({"torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd"})
_SOURCE = "migrator call analysis (the autograd Function's own extension calls)"


def with_kernel_functions(findings: Sequence[Finding]) -> List[Finding]:
    """``findings``, each CUDA AMP decorator on a class whose methods call a compiled extension judged with it."""
    calls: Dict[Tuple[str, str], List[Finding]] = {}
    for finding in findings:
        if finding.rule == "extension-call" and "." in finding.scope:
            calls.setdefault((finding.path, finding.scope.rpartition(".")[0]), []).append(finding)
    if not calls:
        return list(findings)
    out = []
    for finding in findings:
        kernel = calls.get((finding.path, finding.scope)) if finding.api in _DECORATORS else None
        if kernel is None or finding.root is not None:
            out.append(finding)
        elif all(runs_as_written(call) for call in kernel):
            said = (f"decorates `{finding.scope.rpartition('.')[2]}`, the autograd Function that runs the compiled "
                    f"extension `{kernel[0].api.split('.')[0]}`, which the code imports only where it was built: on "
                    "{target}, where it is not, the Function never runs and the decorator changes nothing")
            out.append(replace(finding, verdicts={
                t: v if v.status == Status.SUPPORTED else runs_on_a_note(said.format(target=t), _SOURCE)
                for t, v in finding.verdicts.items()}))
        else:
            out.append(replace(finding, root=kernel[0].root or kernel[0].id))  # ported with the kernel
    return out
