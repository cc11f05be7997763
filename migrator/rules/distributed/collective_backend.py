"""The ``collective-backend`` rule."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ...model import Category, Evidence, Grade, Status, Usage, UsageKind, Value, Verdict
from ...resolve.modules import DIST_CFG_BACKEND, DIST_PARAMS_BACKEND
from ...resolve.vocabulary import LiteralRole, Vocabulary
from ..base import (BACKEND_STRING, Claim, Rule, RuleContext, Verdicts, backend_in, backend_verdict, first_arg,
                    literal_verdict, per_target, with_role)
from ..examples import ByRuntime, Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_LITERAL = UsageKind.LITERAL

_PROCESS_GROUP_CALLS = ("torch.distributed.init_process_group", "torch.distributed.new_group",
                        "torch.distributed.distributed_c10d.init_process_group",
                        "torch.distributed.device_mesh.init_device_mesh", "torch.distributed.init_device_mesh")
#: mmengine's ``init_dist``: its pytorch launcher initialises the accelerator's own backend where torch_npu or
#: torch_mlu is there, whatever ``backend`` says; its slurm and mpi launchers pass ``backend`` on.
#: mmcv 1.x's (from 1.7, the first with NPU ops, ``mmcv/runner/dist_utils.py``) does the same.
_MMENGINE_INIT_DIST = frozenset({"mmengine.dist.init_dist", "mmengine.dist.utils.init_dist", "mmcv.runner.init_dist",
                                 "mmcv.runner.dist_utils.init_dist"})
_MMENGINE_SOURCE = "open-mmlab/mmengine@2543429 mmengine/dist/utils.py (Apache-2.0)"
_MMENGINE_QUOTE = ("_init_dist_pytorch: if is_mlu_available(): ... init_process_group(backend='cncl', ...) / "
                   "elif is_npu_available(): ... init_process_group(backend='hccl', ...)")
_MMCV_SOURCE = "mmcv-runner-dist_utils.mmcv-4c01b026.py (open-mmlab/mmcv v1.7.2 mmcv/runner/dist_utils.py, Apache-2.0)"
_MMCV_QUOTE = ("_init_dist_pytorch: if IS_MLU_AVAILABLE: ... dist.init_process_group(backend='cncl', ...) / "
               "elif IS_NPU_AVAILABLE: ... dist.init_process_group(backend='hccl', ...)")
#: the runner whose launcher reads each role's backend: (its name, the source read, the quote)
_LAUNCHERS = {DIST_CFG_BACKEND: ("mmengine", _MMENGINE_SOURCE, _MMENGINE_QUOTE),
              DIST_PARAMS_BACKEND: ("mmcv (1.7 and later)", _MMCV_SOURCE, _MMCV_QUOTE)}


class CollectiveBackend(Rule):
    """The NCCL collective backend, in every spelling.

    ## What it does
    Finds `'nccl'` given to `init_process_group`, `new_group` and `init_device_mesh`, to a framework's or
    the repo's own setup (`init_dist('pytorch', backend='nccl')`), Lightning's `process_group_backend=` and
    `deepspeed.init_distributed(dist_backend=)` (DeepSpeed picks the accelerator's backend, hccl or cncl,
    only when none is given: `deepspeed/comm/comm.py`), through a constant
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
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.LITERAL, UsageKind.CALL})
    category = Category.DISTRIBUTED
    summary = "the NCCL collective backend"
    vocabulary = Vocabulary(literals=(LiteralRole("torch.distributed.Backend", BACKEND_STRING, fstrings=False),),
                            text_arguments=frozenset({"torch.distributed.init_process_group",
                                                      "torch.distributed.new_group"}))
    examples = (
        Invalid("import torch.distributed as dist\ndist.init_process_group(backend='nccl')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\n"
                                "dist.init_process_group(backend='hccl')\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\n"
                                   "dist.init_process_group(backend='cncl')\n")),
        Invalid("import torch.distributed as dist\nBACKEND = 'nccl'\ndef setup():\n    "
                "dist.init_process_group(BACKEND)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\nBACKEND = 'hccl'\n"
                                "def setup():\n    dist.init_process_group(BACKEND)\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\nBACKEND = 'cncl'\n"
                                   "def setup():\n    dist.init_process_group(BACKEND)\n")),
        Invalid("import os\nimport torch.distributed as dist\n"
                "dist.init_process_group(backend=os.environ.get('BACKEND', 'nccl'))\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Invalid("import torch.distributed as dist\ndef f(args):\n    if args.backend == 'nccl':\n        return True\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\ndef f(args):\n"
                                "    if args.backend == 'hccl':\n        return True\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\ndef f(args):\n"
                                   "    if args.backend == 'cncl':\n        return True\n")),
        # mmengine's slurm launcher hands the backend to init_process_group as given
        Invalid("from mmengine.dist import init_dist\ninit_dist('slurm', backend='nccl')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch_npu\nfrom mmengine.dist import init_dist\n"
                                "init_dist('slurm', backend='hccl')\n",
                           neuware="import torch_mlu\nfrom mmengine.dist import init_dist\n"
                                   "init_dist('slurm', backend='cncl')\n")),
        # its pytorch launcher initialises hccl / cncl itself where torch_npu / torch_mlu is there
        Valid("from mmengine.dist import init_dist\ninit_dist('pytorch', backend='nccl')\n"),
        # a backend per device: the NCCL pair's device is renamed with it (no `cuda` device to bind `hccl` to)
        Invalid("import torch.distributed as dist\ndist.init_process_group('cpu:gloo,cuda:nccl')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch.distributed as dist\nimport torch_npu\n"
                                "dist.init_process_group('cpu:gloo,npu:hccl')\n",
                           neuware="import torch.distributed as dist\nimport torch_mlu\n"
                                   "dist.init_process_group('cpu:gloo,mlu:cncl')\n")),
        Invalid("from lightning.pytorch.strategies import DDPStrategy\n"
                "strategy = DDPStrategy(process_group_backend='nccl')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch_npu\nfrom lightning.pytorch.strategies import DDPStrategy\n"
                                "strategy = DDPStrategy(process_group_backend='hccl')\n",
                           neuware="import torch_mlu\nfrom lightning.pytorch.strategies import DDPStrategy\n"
                                   "strategy = DDPStrategy(process_group_backend='cncl')\n")),
        Valid("import torch.distributed as dist\ndist.init_process_group('gloo')\n"),
        Valid("import logging\nlogging.info('nccl is slow here')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind == _LITERAL and usage.api == "torch.distributed.Backend":
            value = usage.args[0].value
            judged = literal_verdict(usage, lambda t: backend_verdict(t, value, usage.snippet))
            if usage.context in _LAUNCHERS:
                return per_target(ctx, lambda t: _launcher_decides(t, judged(t), usage.context or ""))
            return with_role(per_target(ctx, judged), usage)
        if usage.kind == _CALL and usage.api in _MMENGINE_INIT_DIST and _pytorch_launcher(usage):
            return None  # runs as written: mmengine picks the target's backend itself
        argument: Optional[Value]
        if usage.kind == _CALL and usage.api in _PROCESS_GROUP_CALLS:
            argument = first_arg(usage, ("backend",), 0 if "init_process_group" in usage.api else None)
        elif usage.kind == _CALL:  # a framework's or the repo's own setup: init_dist('pytorch', backend='nccl')
            # Lightning's strategies use process_group_backend as given, else the device's registered backend
            argument = first_arg(usage, ("backend", "dist_backend", "process_group_backend"), None)
        else:
            return None
        found = backend_in(argument, ctx.project) if argument is not None else None
        if found is not None:
            return per_target(ctx, lambda t: backend_verdict(t, found, usage.snippet))
        return None


def _pytorch_launcher(usage: Usage) -> bool:
    launcher = first_arg(usage, ("launcher",), 0)
    return launcher is not None and launcher.text == "pytorch"


def _launcher_decides(target, verdict: Verdict, role: str) -> Verdict:
    """The backend of mmengine's ``dist_cfg`` or mmcv 1.x's ``dist_params``: ignored by the pytorch launcher on a
    target with its own backend, passed on by the slurm and mpi ones. Which launcher runs is the launch script's
    to say: to validate."""
    if verdict.status != Status.REWRITE:
        return verdict
    runner, source, quoted = _LAUNCHERS[role]
    setting = "dist_cfg" if role == DIST_CFG_BACKEND else "dist_params"
    quote = (f"{runner}'s pytorch launcher (`init_dist('pytorch')`, `tools/dist_train.sh`) initialises "
             f"{target.backend_to} itself on {target.id}, whatever {setting} says; its slurm and mpi launchers pass "
             f"this value on: if you launch so, {verdict.message}")
    return replace(verdict, message=quote, source=source, evidence=(Evidence(Grade.NOTE, source, quoted),))
