"""The ``distributed-wrapper`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ..base import Claim, Rule, RuleContext, Verdicts, cuda_names, per_target
from ..examples import ByRuntime, Invalid, Valid


class DistributedWrapper(Rule):
    """DistributedDataParallel and FullyShardedDataParallel.

    ## What it does
    Finds `DistributedDataParallel(...)` and `FullyShardedDataParallel(...)` under every import path and
    reports each target's API-list entry for them, limits included.

    ## Why is this bad?
    Nothing is wrong with DDP or FSDP themselves: this finding shows that the wrapper was checked, and
    carries the vendor's documented limits (FSDP options, `device_ids`). The device arguments are
    reported by the device rules.

    ## Fix safety
    There is nothing to fix; a `partial` verdict names the limits to read.
    """

    name = "distributed-wrapper"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL})
    category = Category.DISTRIBUTED
    summary = "DistributedDataParallel / FullyShardedDataParallel"
    examples = (
        Invalid("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
                "m = DDP(torch.nn.Linear(2, 2), device_ids=[0])\n",
                expect=ByRuntime(renamed=Status.UNKNOWN, kept=Status.SUPPORTED, cann=Status.SUPPORTED,
                                 neuware=Status.SUPPORTED)),
        Valid("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"),
    )
    _APIS = {
        "torch.nn.parallel.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel": "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel":
            "torch.distributed.fsdp.FullyShardedDataParallel",
    }

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in self._APIS:
            return None
        api = self._APIS[usage.api]

        return per_target(ctx, lambda target: cuda_names(target).wrapper(target, api))
