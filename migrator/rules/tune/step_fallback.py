"""The ``tune-cpu-fallback`` rule."""

from __future__ import annotations

from typing import Optional, Tuple, Union

from ...evidence import active
from ...maps.limits import clip
from ...maps.load import TargetMap
from ...model import Finding, Status, Verdict
from ..examples import ByRuntime, Invalid, Valid
from . import PerTarget, TuneRule, _again, _trains


class StepFallback(TuneRule):
    """An operator that falls back to the host CPU, on the training step.

    ## What it does
    Takes each finding of another rule whose verdict is `fallback` on a target on that target's own data (an
    aten operator the target's plugin does not register; not another stack's list standing in for it, which
    is `unknown` here), and reports it again here when it sits on the training step: there
    it runs on the CPU every iteration. Each target's verdict follows its own op verdict (`partial` where it
    falls back, `supported` where the device runs it). With `scan --trace`, the finding carries how often
    its operators ran per step.

    ## Why is this bad?
    A fallback is correct but slow: its inputs go to the host and its outputs back, every step. Outside the
    step (a metric at the end of an epoch) it costs little; inside, it can bound the step time.

    ## Fix safety
    Never applied: the rewrite (another dtype, an equivalent operator) is a numerical choice.
    """

    name = "tune-cpu-fallback"
    pitfall = "cpu-fallback"
    summary = "host-CPU fallbacks on the training step"
    examples = (
        Invalid(_trains("return torch.special.zeta(boxes, scores)"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL)),
        Valid(_trains(before="def report(a, b):\n    return torch.special.zeta(a, b)\n")),
    )

    def findings(self, results, judged, step, node_of, ctx):
        return _again(self, judged, step, node_of, ctx, self._falls)

    @staticmethod
    def _falls(original: Finding) -> Optional[Tuple[str, PerTarget]]:
        """What a finding whose op falls back on some target says here, and the targets it does not fall on."""
        falls = {t for t, v in original.verdicts.items() if v.status == Status.FALLBACK and active(v)}
        if not falls or original.reachable is False:
            return None

        def own(target: TargetMap) -> Union[Verdict, str, None]:
            theirs = original.verdicts.get(target.id)
            if target.id in falls and theirs is not None:  # what falls back there, in the op data's own words
                return f"`{original.api}` falls back to the host CPU on {target.id} ({clip(theirs.message, 160)})"
            if theirs is not None and theirs.status == Status.FALLBACK:  # another stack's data: for the card to say
                return Verdict(Status.UNKNOWN, f"`{original.api}` falls back on {target.id} only by data that is not "
                               f"{target.id}'s own ({clip(theirs.message, 120)}): a run on the card says whether it "
                               "costs", theirs.source)
            if theirs is not None and theirs.status == Status.SUPPORTED:
                return Verdict(Status.SUPPORTED, f"`{original.api}` runs on the device on {target.id}", theirs.source)
            status = theirs.status.value if theirs else "no verdict"
            return Verdict(Status.UNKNOWN, f"`{original.api}` does not fall back on {target.id} ({status}: its own "
                           "finding says more)", theirs.source if theirs else "operator_maps")

        return f"`{original.api}` falls back to the host CPU", own
