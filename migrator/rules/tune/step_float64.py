"""The ``tune-float64`` rule."""

from __future__ import annotations

from ...model import Status
from ..examples import ByRuntime, Invalid, Valid
from . import TuneRule, _again, _trains

_FLOAT64 = frozenset({"torch.float64", "torch.double", "torch.Tensor.double"})


class StepFloat64(TuneRule):
    """float64 on the training step.

    ## What it does
    Takes each `risky-dtype` finding on float64 (`torch.float64`, `torch.double`, `.double()`; the ones that
    rule leaves alone, a comparison or a host-side factory, stay alone) and reports it again here when it
    sits on the training step.

    ## Why is this bad?
    Ascend runs double-precision operators on its AI CPU rather than its AI Core (its profiling advisor's
    advice: convert double to float). Cambricon and Kunlunxin document nothing on float64's speed: `unknown`
    there.

    ## Fix safety
    Never applied: float32 is usually enough, but the numerics need a look.
    """

    name = "tune-float64"
    pitfall = "float64"
    summary = "float64 on the training step"
    examples = (
        Invalid(_trains("return boxes.double().sum()"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL)),
        Valid(_trains(before="def table(n):\n    return torch.arange(n).double()\n")),
    )

    def findings(self, results, judged, step, node_of, ctx):
        return _again(self, judged, step, node_of, ctx, lambda original: (
            (f"`{original.snippet}` computes in float64", None)
            if original.rule == "risky-dtype" and original.api in _FLOAT64 else None))
