"""The ``tune-parameter-loop`` rule."""

from __future__ import annotations

from ...model import Status, TuneKind
from ..examples import ByRuntime, Invalid, Valid
from . import TuneRule, _site_findings, _trains


class ParameterLoop(TuneRule):
    """A Python loop over the parameters that updates each one in place, on the training step.

    ## What it does
    Finds `for p in model.parameters():` / `for p in group["params"]:` / `for e, p in zip(ema.parameters(),
    model.parameters()):` whose body does in-place tensor math (`p.mul_(d)`, `p.data.add_(...)`), where it
    runs each step: a hand-written optimizer's `step`, an EMA update called from the loop.

    ## Why is this bad?
    Each parameter costs a few small operators per step; on an NPU those run fast and launching them
    becomes the bottleneck (Ascend's guide on its fused optimizers). Ascend and Cambricon ship fused
    optimizers; `torch._foreach_*` launches one operator per group of tensors on any device.

    ## Fix safety
    Never applied: a fused optimizer's arithmetic is the same algorithm, but its state layout differs
    (checkpoints), so it is a suggestion.
    """

    name = "tune-parameter-loop"
    pitfall = "parameter-loop"
    summary = "per-parameter Python loops on the training step"
    examples = (
        Invalid(_trains(step="        for shadow, p in zip(shadows, model.parameters()):\n"
                             "            shadow.mul_(0.999).add_(p.detach(), alpha=0.001)")
                .replace("    for step, (x, y)", "    shadows = [p.detach().clone() for p in model.parameters()]\n"
                                                  "    for step, (x, y)"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL)),
        Valid(_trains(before="def freeze(model):\n    for p in model.parameters():\n"
                             "        p.requires_grad_(False)\n")),
    )

    def findings(self, results, judged, step, node_of, ctx):
        return _site_findings(self, results, frozenset({TuneKind.PARAMETER_LOOP}), step, node_of, ctx,
                              lambda site: f"`{site.snippet}` updates the parameters one by one",
                              lambda site: ("torch.optim.Optimizer.param_groups" if "params" in site.detail
                                            else "torch.nn.Module.parameters"))
