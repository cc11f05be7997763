"""The ``nccl-api`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ..base import Claim, Rule, RuleContext, Verdicts, per_target, rename_verdict
from ..examples import ByRuntime, Invalid, Valid


class NcclApi(Rule):
    """torch APIs named after NCCL.

    ## What it does
    Finds `torch.distributed.is_nccl_available`, `ProcessGroupNCCL`, `Backend.NCCL`, `torch.cuda.nccl.*`
    and any other `torch.` API with `nccl` in its name; the verdict per target is the vendor's table
    entry for it.

    ## Why is this bad?
    These APIs ask about or drive NCCL itself: `is_nccl_available()` is False on Ascend and Cambricon, so
    code that picks its backend with it falls back to `gloo` on the CPU, and NCCL's classes do not exist.

    ## Fix safety
    Exact only where the vendor documents a one-to-one equivalent (`is_hccl_available`); otherwise a
    suggestion, because the code around the call usually chooses a backend and needs the new name too.
    """

    name = "nccl-api"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL, UsageKind.ATTRIBUTE, UsageKind.ASSIGN})
    category = Category.DISTRIBUTED
    summary = "NCCL-specific torch APIs"
    examples = (
        Invalid("import torch.distributed as dist\nok = dist.is_nccl_available()\n",
                expect=ByRuntime(renamed=Status.UNKNOWN, kept=Status.SUPPORTED, cann=Status.REWRITE,
                                 neuware=Status.REWRITE)),
        Valid("import torch.distributed as dist\nok = dist.is_available()\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind in self.kinds and usage.api.startswith("torch.") and \
                "nccl" in usage.api.lower():
            return per_target(ctx, lambda t: rename_verdict(t, usage))
        return None
