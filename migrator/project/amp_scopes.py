"""An autocast scope in a project that never autocasts: ``torch.cuda.amp.autocast(enabled=False)`` around a loss
(dinov2's KoLeo, GroundingDINO's deformable attention), ``@custom_fwd(cast_inputs=torch.float32)`` and
``@custom_bwd`` on an autograd Function (gpt-neox's MoE scaling).

What it does:
    Such a scope only changes what an enclosing autocast does: it switches it off, casts a function's inputs out
    of it, or replays its state in the backward. Where no code of the project turns autocast on (no ``autocast``
    entered other than switched off, no ``GradScaler``, no framework that autocasts from its configuration:
    Lightning, accelerate, transformers' Trainer, mmengine, detectron2, fairseq), there is none to change, on CUDA
    or on the target: the CUDA name is no work (to validate, off the worklist).

Why:
    Renamed, it would scope the target's autocast, which the project never enters either; as written it constructs
    and runs on the target (``torch.cuda.amp.autocast(enabled=False)`` needs no CUDA device).

What it does not decide: a project that autocasts somewhere keeps every scope's finding, wherever the scope is
(which autocast reaches which function is a question of the call graph the scan does not answer for a
``model(x)`` it cannot type).
"""

from __future__ import annotations

import re
from typing import List, Sequence

from ..contexts import path_context
from ..model import Context, FileResult, Finding, Usage, UsageKind
from ..rules.amp.no_mixed_precision import FRAMEWORKS
from ..rules.base import usages_across_files
from .overridden_defaults import rewrites_on_a_note

#: what enters autocast, unless switched off by a literal ``enabled=False``; a scaler means fp16 autocast
_AUTOCASTS = frozenset({"torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
                        "torch.cuda.amp.GradScaler", "torch.amp.GradScaler"})
#: frameworks that enter torch's autocast from their configuration (``precision="16-mixed"``, ``--fp16``, ``--amp``):
#: those that set precision so (``no_mixed_precision.FRAMEWORKS``) but DeepSpeed's and ColossalAI's own fp16 engines,
#: and two trainers that autocast when asked
_AUTOCASTING_FRAMEWORKS = tuple(f for f in FRAMEWORKS if f not in ("deepspeed", "colossalai")) \
    + ("detectron2.engine", "fairseq")
#: the scopes: decorators of an autograd Function's passes, an autocast switched off
_DECORATORS = frozenset({"torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd", "torch.amp.custom_fwd",
                         "torch.amp.custom_bwd"})
_OFF = re.compile(r"\benabled\s*=\s*False\b")
_SOURCE = "migrator autocast-scope analysis (no autocast entered in the project)"
_IMPORT = UsageKind.IMPORT


def reads(usage: Usage) -> bool:
    """Whether ``with_idle_amp_scopes`` looks at this usage (kept apart for the cross-file stages)."""
    return usage.api in _AUTOCASTS or (usage.kind == _IMPORT and usage.api.startswith(_AUTOCASTING_FRAMEWORKS))


def with_idle_amp_scopes(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, each autocast scope to validate where the project's own code never enters autocast."""
    scopes = [f for f in findings if _scopes(f)]
    if not scopes or _autocasts(results):
        return list(findings)
    quote = ("it only scopes an enclosing autocast (switches it off, casts inputs out of it, or replays it in the "
             "backward), and no code of the project enters autocast (no `autocast` switched on, no `GradScaler`, no "
             "framework that autocasts): it changes nothing, on CUDA as on the target")
    changed = {f.id: rewrites_on_a_note(f, quote, _SOURCE) for f in scopes}
    return [changed.get(f.id, f) for f in findings]


def _scopes(finding: Finding) -> bool:
    return finding.rule in ("cuda-amp", "amp-device") and (
        finding.api in _DECORATORS or finding.api.endswith("autocast") and _OFF.search(finding.snippet) is not None)


def _autocasts(results: Sequence[FileResult]) -> bool:
    """Whether code of the project (not its tests) enters autocast, or imports a framework that does."""
    for result in results:
        if path_context(result.file.rel) == Context.TEST:
            continue
        for usage in usages_across_files(result):
            if usage.kind == _IMPORT:
                if usage.api.startswith(_AUTOCASTING_FRAMEWORKS):
                    return True
            elif usage.api in _AUTOCASTS and _OFF.search(usage.snippet) is None:
                return True
    return False
