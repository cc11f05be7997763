"""The ``triton-launch`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict
from ...resolve.vocabulary import Vocabulary
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import Invalid, Valid
from . import _SOURCE


class TritonLaunch(Rule):
    """Launches of the repo's own Triton kernels.

    ## What it does
    Finds `kernel[grid](...)` where `kernel` is a function of the repo decorated with `@triton.jit`,
    `@triton.autotune` or `@triton.heuristics`, in the same module or imported from another.

    ## Why is this bad?
    The vendor data lists no Triton backend for these targets, so the kernel does not compile there; every
    launch site needs the kernel ported or replaced with plain torch ops.

    ## Fix safety
    No automatic fix: a port. The plain-torch version of a Triton kernel is usually a few lines, but only
    its author knows which of the kernel's fusions matter.
    """

    name = "triton-launch"
    claim = Claim.LIBRARY
    kinds = frozenset({UsageKind.LAUNCH})
    category = Category.THIRD_PARTY
    summary = "launches of Triton kernels"
    vocabulary = Vocabulary(kernel_decorators=frozenset({"triton.jit", "triton.autotune", "triton.heuristics"}))
    examples = (
        Invalid("import triton\n@triton.jit\ndef add_kernel(x_ptr, n):\n    pass\n"
                "def add(x):\n    add_kernel[(1,)](x, 4)\n", expect=Status.PORT),
        Valid("import torch\nLAYERS = {'a': torch.nn.Linear}\nlayer = LAYERS['a'](2, 2)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in ctx.project.triton_kernels:
            return None
        if usage.api in ctx.project.optional_kernels:
            # decorated through a module's ``triton`` that is ``None`` where Triton does not import: the module
            # cannot even define the kernel there, so the code that launches it has its way without it
            return per_target(ctx, lambda t: Verdict(
                Status.SUPPORTED, f"launches Triton kernel `{usage.api.rsplit('.', 1)[-1]}`, defined only where "
                "Triton imports (the project binds `triton` under `try`): an optional fast path, not a port",
                _SOURCE))
        return per_target(ctx, lambda t: Verdict(
            Status.PORT, f"launches Triton kernel `{usage.api.rsplit('.', 1)[-1]}`: port the kernel or replace the "
            "call with plain torch ops", _SOURCE))
