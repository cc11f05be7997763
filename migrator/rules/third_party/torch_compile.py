"""The ``torch-compile`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ..base import Claim, Rule, RuleContext, Verdicts, documented_verdict, per_target
from ..examples import ByRuntime, Invalid, Valid


class TorchCompile(Rule):
    """`torch.compile` on the targets.

    ## What it does
    Finds `torch.compile(...)` as a call, a decorator or a reference, and reports the vendor list's entry
    for it (which backends are supported, with their notes).

    ## Why is this bad?
    The default inductor backend generates Triton for CUDA; on the targets it needs the vendor's backend
    (`npugraphs` on Ascend) or falls back to eager, and the documented support is partial.

    ## Fix safety
    Nothing is applied: the backend choice is per model, and eager mode always works.
    """

    name = "torch-compile"
    claim = Claim.LIBRARY
    kinds = frozenset({UsageKind.CALL, UsageKind.DECORATOR, UsageKind.ATTRIBUTE})
    category = Category.THIRD_PARTY
    summary = "torch.compile"
    examples = (
        Invalid("import torch\n@torch.compile\ndef f(x):\n    return x * 2\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED)),
        Valid("import torch\nm = torch.jit.script(torch.nn.Linear(2, 2))\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.api != "torch.compile" or usage.kind not in self.kinds:
            return None
        return per_target(ctx, lambda t: documented_verdict(
            t, "torch.compile", "torch.compile depends on the target's compiler backend"))
