"""Collectives: the ``nccl`` backend in every spelling, NCCL APIs, DataParallel, DDP and FSDP."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import LiteralRole, Vocabulary
from .examples import Invalid, Valid
from .base import (BACKEND_STRING, Rule, RuleContext, Verdicts, backend_in, backend_verdict, cuda_names,
                   documented_verdict, first_arg, per_target, rename_verdict, with_role)

_PROCESS_GROUP_CALLS = ("torch.distributed.init_process_group", "torch.distributed.new_group",
                        "torch.distributed.distributed_c10d.init_process_group",
                        "torch.distributed.device_mesh.init_device_mesh", "torch.distributed.init_device_mesh")


class CollectiveBackend(Rule):
    """The NCCL collective backend, in every spelling.

    ## What it does
    Finds `'nccl'` given to `init_process_group`, `new_group` and `init_device_mesh`, to a framework's or
    the repo's own setup (`init_dist('pytorch', backend='nccl')`), through a constant
    (`BACKEND = 'nccl'`), an environment default (`os.environ.get('BACKEND', 'nccl')`), and in comparisons
    (`args.backend == 'nccl'`).

    ## Why is this bad?
    NCCL exists only on NVIDIA GPUs: the process group fails to start. The collective backend is `hccl`
    on Ascend and `cncl` on Cambricon; Kunlunxin's shim keeps the name `nccl`, though Kunlunxin's own R300
    ports write `xccl` (`partial` on `kunlun@kl2`, with `xccl` suggested).

    ## Fix safety
    Exact where the string is written: in the call, or at the constant it came through. A backend that is
    a default of an environment read is reported without a fix, because the variable may set it at run
    time; change the default and the launch scripts together.
    """

    name = "collective-backend"
    priority = 120
    kinds = frozenset({"literal", "call"})
    category = Category.DISTRIBUTED
    summary = "the NCCL collective backend"
    vocabulary = Vocabulary(literals=(LiteralRole("torch.distributed.Backend", BACKEND_STRING, fstrings=False),),
                            text_arguments=frozenset({"torch.distributed.init_process_group",
                                                      "torch.distributed.new_group"}))
    examples = (
        Invalid("import torch.distributed as dist\ndist.init_process_group(backend='nccl')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\n"
                                "dist.init_process_group(backend='hccl')\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\n"
                                   "dist.init_process_group(backend='cncl')\n")),
        Invalid("import torch.distributed as dist\nBACKEND = 'nccl'\ndef setup():\n    "
                "dist.init_process_group(BACKEND)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\nBACKEND = 'hccl'\n"
                                "def setup():\n    dist.init_process_group(BACKEND)\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\nBACKEND = 'cncl'\n"
                                   "def setup():\n    dist.init_process_group(BACKEND)\n")),
        Invalid("import os\nimport torch.distributed as dist\n"
                "dist.init_process_group(backend=os.environ.get('BACKEND', 'nccl'))\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED)),
        Invalid("import torch.distributed as dist\ndef f(args):\n    if args.backend == 'nccl':\n        pass\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\ndef f(args):\n"
                                "    if args.backend == 'hccl':\n        pass\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\ndef f(args):\n"
                                   "    if args.backend == 'cncl':\n        pass\n")),
        Invalid("from mmengine.dist import init_dist\ninit_dist('pytorch', backend='nccl')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch_npu\nfrom mmengine.dist import init_dist\n"
                                "init_dist('pytorch', backend='hccl')\n",
                           neuware="import torch_mlu\nfrom mmengine.dist import init_dist\n"
                                   "init_dist('pytorch', backend='cncl')\n")),
        Valid("import torch.distributed as dist\ndist.init_process_group('gloo')\n"),
        Valid("import logging\nlogging.info('nccl is slow here')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind == "literal" and usage.api == "torch.distributed.Backend":
            value = usage.args[0].value
            return with_role(per_target(ctx, lambda t: backend_verdict(t, value, usage.snippet)), usage)
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
    priority = 130
    kinds = frozenset({"call", "attribute", "assign"})
    category = Category.DISTRIBUTED
    summary = "NCCL-specific torch APIs"
    examples = (
        Invalid("import torch.distributed as dist\nok = dist.is_nccl_available()\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED)),
        Valid("import torch.distributed as dist\nok = dist.is_available()\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind in self.kinds and usage.api.startswith("torch.") and \
                "nccl" in usage.api.lower():
            return per_target(ctx, lambda t: rename_verdict(t, usage))
        return None


class DataParallel(Rule):
    """`torch.nn.DataParallel`: one process driving several devices.

    ## What it does
    Finds `nn.DataParallel(...)` and `nn.parallel.DataParallel(...)`; each target's verdict is the vendor's
    API list entry for it.

    ## Why is this bad?
    The vendors support one process per device (DistributedDataParallel under torchrun); where their list
    marks DataParallel unsupported, or does not list it, the model does not spread over the devices.

    ## Fix safety
    Manual: moving to DDP means a launcher, a process group and a sampler per rank, so `fix` only prints
    the suggested `DistributedDataParallel(model, device_ids=[local_rank])`.
    """

    name = "data-parallel"
    priority = 140
    kinds = frozenset({"call"})
    category = Category.DISTRIBUTED
    summary = "torch.nn.DataParallel"
    examples = (
        Invalid("import torch.nn as nn\nm = nn.DataParallel(nn.Linear(2, 2))\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.UNKNOWN)),
        Valid("import torch.nn as nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel"):
            return None

        def verdict(target) -> Verdict:
            doc = documented_verdict(target, "torch.nn.DataParallel", "DataParallel")
            if doc.status in (Status.UNSUPPORTED, Status.UNKNOWN) and cuda_names(target).rewritten:
                return Verdict(Status.REWRITE, f"{doc.message}; use DistributedDataParallel with one process per "
                               f"device (torchrun) and the '{target.backend_to}' backend", doc.source,
                               suggestion="torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])")
            return doc
        return per_target(ctx, verdict)


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
    priority = 150
    kinds = frozenset({"call"})
    category = Category.DISTRIBUTED
    summary = "DistributedDataParallel / FullyShardedDataParallel"
    examples = (
        Invalid("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
                "m = DDP(torch.nn.Linear(2, 2), device_ids=[0])\n",
                expect=dict(cann=Status.SUPPORTED, neuware=Status.SUPPORTED, kunlun=Status.SUPPORTED)),
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
