"""Collectives: the ``nccl`` backend in every spelling, NCCL APIs, DataParallel, DDP and FSDP."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import LiteralRole, Vocabulary
from .base import (BACKEND_STRING, Rule, RuleContext, Verdicts, backend_in, backend_verdict, documented_verdict, first_arg,
                   per_target, rename_verdict, shim)

_PROCESS_GROUP_CALLS = ("torch.distributed.init_process_group", "torch.distributed.new_group",
                        "torch.distributed.distributed_c10d.init_process_group",
                        "torch.distributed.device_mesh.init_device_mesh", "torch.distributed.init_device_mesh")


class CollectiveBackend(Rule):
    """``init_process_group('nccl')``, ``backend=BACKEND``, ``backend == 'nccl'`` and other ``'nccl'`` strings.

    The backend is ``hccl`` on Ascend and ``cncl`` on Cambricon; Kunlunxin's shim keeps ``nccl``.
    """

    name = "collective-backend"
    priority = 120
    category = Category.DISTRIBUTED
    summary = "the NCCL collective backend"
    vocabulary = Vocabulary(literals=(LiteralRole("torch.distributed.Backend", BACKEND_STRING, fstrings=False),),
                            text_arguments=frozenset({"torch.distributed.init_process_group",
                                                      "torch.distributed.new_group"}))
    VALID = ("import torch.distributed as dist\ndist.init_process_group('gloo')\n",)
    INVALID = (
        "import torch.distributed as dist\ndist.init_process_group(backend='nccl')\n",
        "import torch.distributed as dist\ndist.init_process_group('nccl', init_method='env://')\n",
        "import os\nimport torch.distributed as dist\n"
        "dist.init_process_group(backend=os.environ.get('BACKEND', 'nccl'))\n",
        "import torch.distributed as dist\nBACKEND = 'nccl'\ndef setup():\n    dist.init_process_group(BACKEND)\n",
        "import torch.distributed as dist\ndef f(args):\n    if args.backend == 'nccl':\n        pass\n",
        "from mmengine.dist import init_dist\ninit_dist('pytorch', backend='nccl')\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind == "literal" and usage.api == "torch.distributed.Backend":
            value = usage.args[0].value
            return per_target(ctx, lambda t: backend_verdict(t, value, usage.snippet))
        if usage.kind == "call" and usage.api in _PROCESS_GROUP_CALLS:
            value = first_arg(usage, ("backend",), 0 if "init_process_group" in usage.api else None)
        elif usage.kind == "call":  # a framework's or the repo's own setup: init_dist('pytorch', backend='nccl')
            value = first_arg(usage, ("backend", "dist_backend"), None)
        else:
            return None
        found = backend_in(value, ctx.project) if value is not None else None
        if found is not None:
            return per_target(ctx, lambda t: backend_verdict(t, found, usage.snippet))
        return None


class NcclApi(Rule):
    """NCCL-named APIs: ``is_nccl_available``, ``ProcessGroupNCCL``, ``Backend.NCCL``, ``torch.cuda.nccl``."""

    name = "nccl-api"
    priority = 130
    category = Category.DISTRIBUTED
    summary = "NCCL-specific torch APIs"
    VALID = ("import torch.distributed as dist\nok = dist.is_available()\n",)
    INVALID = ("import torch.distributed as dist\nok = dist.is_nccl_available()\n",)

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind in ("call", "attribute", "assign") and usage.api.startswith("torch.") and \
                "nccl" in usage.api.lower():
            return per_target(ctx, lambda t: rename_verdict(t, usage))
        return None


class DataParallel(Rule):
    """``nn.DataParallel``: single-process multi-device; the vendors support DDP only."""

    name = "data-parallel"
    priority = 140
    category = Category.DISTRIBUTED
    summary = "torch.nn.DataParallel"
    VALID = ("import torch.nn as nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n",)
    INVALID = ("import torch.nn as nn\nm = nn.DataParallel(nn.Linear(2, 2))\n",)

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "call" or usage.api not in ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel"):
            return None

        def verdict(target) -> Verdict:
            doc = documented_verdict(target, "torch.nn.DataParallel", "DataParallel")
            if doc.status in (Status.UNSUPPORTED, Status.UNKNOWN) and not target.keeps_cuda_spelling:
                return Verdict(Status.REWRITE, f"{doc.message}; use DistributedDataParallel with one process per "
                               f"device (torchrun) and the '{target.backend_to}' backend", doc.source,
                               suggestion="torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])")
            return doc
        return per_target(ctx, verdict)


class DistributedWrapper(Rule):
    """DDP and FSDP: supported; the vendors' patchers rewrite their device arguments."""

    name = "distributed-wrapper"
    priority = 150
    category = Category.DISTRIBUTED
    summary = "DistributedDataParallel / FullyShardedDataParallel"
    VALID = ("import torch\n",)
    INVALID = ("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
               "m = DDP(torch.nn.Linear(2, 2), device_ids=[0])\n",)
    _APIS = {
        "torch.nn.parallel.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel": "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel":
            "torch.distributed.fsdp.FullyShardedDataParallel",
    }

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "call" or usage.api not in self._APIS:
            return None
        api = self._APIS[usage.api]

        def verdict(target) -> Verdict:
            if target.keeps_cuda_spelling:
                return shim(target, api.rsplit(".", 1)[-1])
            return documented_verdict(target, api, api.rsplit(".", 1)[-1])
        return per_target(ctx, verdict)
