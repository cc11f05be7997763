"""The ``tune-cuda-switch`` rule."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Optional, Set

from ...maps.load import TargetMap, tuning
from ...model import Category, Finding, Status, Usage, UsageKind, Verdict
from ..base import usages_across_files
from ..examples import ByRuntime, Invalid, Valid
from . import TuneRule, _cited, _training, _trains

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_ASSIGN = UsageKind.ASSIGN


class CudaSwitch(TuneRule):
    """A switch of CUDA's libraries that does not reach the target's.

    ## What it does
    Finds `torch.backends.cudnn.benchmark = True`, `torch.backends.cudnn.allow_tf32 = True` and
    `torch.backends.cuda.matmul.allow_tf32 = True` in training code, and names the target's own switch where
    its vendor documents one: Ascend's operator compile mode and HF32 switches, Cambricon's CNNL and MLU
    matmul switches. It is set once, not per step, so it is reported wherever training code sets it.

    ## Why is this bad?
    The CUDA switch is read by cuDNN and cuBLAS only: on the target the speed it bought is lost unless the
    target's own switch is set.

    ## Fix safety
    Never applied: HF32 and TF32 are reduced precisions, each a numerical choice.
    """

    name = "tune-cuda-switch"
    summary = "CUDA library switches and the targets' own"
    reads_tune_findings = True  # a switch may ask something of the target only with a pitfall the step has
    examples = (
        Invalid("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL)),
        Invalid(_trains("keep = scores > 0.5\n        return boxes[keep]",
                        before="torch.backends.cudnn.benchmark = True\n"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL)),
        Valid(_trains(before="torch.backends.cudnn.benchmark = True\n")),  # static shapes: nothing to set
        # Ascend's convolutions: HF32 already; Cambricon's CNNL has its own switch
        Invalid("import torch\ntorch.backends.cudnn.allow_tf32 = True\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.PARTIAL)),
        Valid("import torch\ntorch.backends.cudnn.benchmark = False\n"),
    )

    def reads(self, usage: Usage) -> bool:
        return usage.kind == _ASSIGN and usage.api in tuning().switches

    def findings(self, results, judged, step, node_of, ctx):
        rewritten = {(f.path, f.span.line, f.api): f for f in judged if f.category != Category.TUNE}
        tuned = {f.rule for f in judged if f.category == Category.TUNE}
        from .. import TUNE_RULES

        present = {rule.pitfall for rule in TUNE_RULES if rule.name in tuned}
        occurrences: Counter = Counter()
        found = []
        for result in results:
            for usage in usages_across_files(result):
                if not self.reads(usage) or not usage.args or usage.args[0].value.text != "True":
                    continue
                draft = self.finding(result.file.rel, usage.span, usage.api, usage.snippet, usage.scope, {},
                                     occurrences, usage.confidence)
                if not _training(draft):
                    continue
                other = rewritten.get((draft.path, usage.span.line, usage.api))
                verdicts = self.verdicts(ctx, f"`{usage.api}` is CUDA's switch", "set for the training run",
                                         advice_key=usage.api,
                                         status_of=lambda t, other=other, api=usage.api: (
                                             _rewritten(other, t) or _without(api, t, present)))
                found.append(replace(draft, verdicts=verdicts))
        return found


def _without(api: str, target: TargetMap, present: Set[str]) -> Optional[Verdict]:
    """``supported`` where the switch's row holds only with a pitfall this project's step does not have (the
    compile mode Ascend documents for shapes that vary, in a project whose shapes do not)."""
    row = tuning().switches.get(api, {}).get(target.id)
    if row is None or row.when is None or row.when in present:
        return None
    return Verdict(Status.SUPPORTED, f"`{api}` is CUDA's switch; what {target.id} documents in its stead is for "
                   f"a training step with {row.when} findings, and this project's has none", _cited(row))


def _rewritten(other: Optional[Finding], target: TargetMap) -> Optional[Verdict]:
    """``supported`` where another finding on the same switch already rewrites it to the target's own (torch_mlu's
    migration table renames ``torch.backends.cuda.matmul.allow_tf32``): one cause, one finding."""
    verdict = other.verdicts.get(target.id) if other is not None else None
    if verdict is None or verdict.status != Status.REWRITE:
        return None
    return Verdict(Status.SUPPORTED, f"`{other.rule}` rewrites it on {target.id}"  # type: ignore[union-attr]
                   + (f" to `{verdict.suggestion}`" if verdict.suggestion else ""), verdict.source)
