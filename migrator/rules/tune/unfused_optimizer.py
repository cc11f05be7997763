"""The ``tune-unfused-optimizer`` rule."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import replace
from typing import List, Optional, Tuple

from ...maps.load import TargetMap, tuning
from ...model import Status, Usage, UsageKind, Verdict, fix_of
from ..base import usages_across_files
from ..examples import ByRuntime, Invalid, Valid
from . import TuneRule, _cited, _training, _trains

#: ``torch.optim`` class -> the fused class Ascend documents in its stead and the arguments that class takes:
#: Ascend/apex README.zh.md section 4.2 ("将torch.optim.XXX替换为apex.optimizers.NpuFusedXXX", each class's
#: parameters; operator_maps/upstream/cann/ascend-apex.README.zh.md), the same classes torch_npu.optim exports
#: (operator_maps/upstream/cann/optim__init__.torch_npu-master.py)
NPU_FUSED = {
    "torch.optim.SGD": ("NpuFusedSGD", ("lr", "momentum", "dampening", "weight_decay", "nesterov")),
    "torch.optim.Adam": ("NpuFusedAdam", ("lr", "betas", "eps", "weight_decay", "amsgrad")),
    "torch.optim.AdamW": ("NpuFusedAdamW", ("lr", "betas", "eps", "weight_decay", "amsgrad")),
    "torch.optim.Adadelta": ("NpuFusedAdadelta", ("lr", "rho", "eps", "weight_decay")),
}


class UnfusedOptimizer(TuneRule):
    """A `torch.optim` optimizer whose target ships a fused form of the same class.

    ## What it does
    Finds `torch.optim.SGD(...)`, `Adam`, `AdamW` and `Adadelta` built in training code and names the fused
    class the target's vendor documents in its stead, with the argument mapping: on Ascend the call becomes
    `torch_npu.optim.NpuFusedSGD(...)` (Ascend's guide: replace `torch.optim.XXX` with `NpuFusedXXX`) with the
    arguments that class takes; a keyword it does not take (`foreach=`, `maximize=`, `fused=`) is named to drop,
    and the keywords of a `**kwargs` to check against its list. It is built once, not per step, so it is
    reported wherever training code builds it.

    ## Why is this bad?
    An optimizer's update is a few small operators per parameter each step; on an NPU those run fast and
    launching them becomes the bottleneck (Ascend's guide on NPU-affine optimizers). The fused class runs the
    same algorithm over fused gradients and parameters.

    ## Fix safety
    Never applied: the fused optimizer takes fp32 or fp16 parameters only and keeps its state in another
    layout (a checkpoint of one does not load into the other), so it is a suggestion.
    """

    name = "tune-unfused-optimizer"
    pitfall = "unfused-optimizer"
    summary = "torch.optim optimizers the target ships fused"
    examples = (
        Invalid(_trains(before="def build(model):\n    return torch.optim.SGD(model.parameters(), lr=0.1, "
                               "momentum=0.9, foreach=True)\n"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL)),
        Valid("import torch\n\n\ndef build(model):\n    return torch.optim.LBFGS(model.parameters())\n"),
    )

    def reads(self, usage: Usage) -> bool:
        return usage.kind == UsageKind.CALL and usage.api in NPU_FUSED

    def findings(self, results, judged, step, node_of, ctx):
        occurrences: Counter = Counter()
        found = []
        for result in results:
            for usage in usages_across_files(result):
                if not self.reads(usage):
                    continue
                draft = self.finding(result.file.rel, usage.span, usage.api, usage.snippet, usage.scope, {},
                                     occurrences, usage.confidence)
                if not _training(draft):
                    continue
                verdicts = self.verdicts(ctx, f"`{usage.api.rsplit('.', 1)[-1]}` updates each parameter with "
                                         "its own operators", "built for the training run",
                                         status_of=lambda t, usage=usage: _fused_on(t, usage))
                found.append(replace(draft, verdicts=verdicts))
        return found


def _fused_on(target: TargetMap, usage: Usage) -> Optional[Verdict]:
    """Ascend's verdict with the call written in the fused class and its arguments mapped; ``None`` elsewhere
    (the pitfall's row)."""
    if target.id != "cann":
        return None
    row = tuning().pitfalls.get("unfused-optimizer", {}).get(target.id)
    if row is None:
        return None
    fused, takes = NPU_FUSED[usage.api]
    mapped = _mapped(usage.snippet, takes)
    kept, dropped, unknown = mapped if mapped is not None else (["<the same arguments>"], [], [])
    suggestion = f"torch_npu.optim.{fused}({', '.join(kept)})"
    mapping = [f"{fused} takes {', '.join(takes)} after the parameters"]
    if dropped:
        mapping.append("drop " + ", ".join(f"`{k}=`" for k in dropped) + f": {fused} has no such argument")
    if unknown:
        mapping.append(f"the keywords in {', '.join(f'`{u}`' for u in unknown)} must be among those")
    if usage.api == "torch.optim.SGD" and mapped is not None and not unknown \
            and not any(k.startswith("lr=") for k in kept) and len([k for k in kept if "=" not in k]) < 2:
        mapping.append(f"{fused} has no default learning rate: pass lr")
    message = (f"`{usage.api.rsplit('.', 1)[-1]}` updates each parameter with its own operators, built for the "
               f"training run: {row.cost}; {row.advice} ({'; '.join(mapping)})")
    return Verdict(Status.PARTIAL, message, _cited(row), fix=fix_of(suggestion))


def _mapped(snippet: str, takes: Tuple[str, ...]) -> Optional[Tuple[List[str], List[str], List[str]]]:
    """The call's arguments as the fused class takes them, read from its own text: those it keeps (as written),
    the keywords it does not take, and the ``**kwargs`` whose keywords the code decides; ``None`` when the
    snippet is not one whole call."""
    text = snippet.strip()
    try:
        call = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(call, ast.Call):
        return None

    def written(node: ast.AST) -> str:
        return ast.get_source_segment(text, node) or ast.unparse(node)

    kept = [written(arg) for arg in call.args]
    dropped: List[str] = []
    unknown: List[str] = []
    for keyword in call.keywords:
        if keyword.arg is None:
            unknown.append(f"**{written(keyword.value)}")
            kept.append(unknown[-1])
        elif keyword.arg in takes:
            kept.append(f"{keyword.arg}={written(keyword.value)}")
        else:
            dropped.append(keyword.arg)
    return kept, dropped, unknown
