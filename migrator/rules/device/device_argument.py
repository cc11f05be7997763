"""The ``device-argument`` rule."""

from __future__ import annotations

from functools import partial
from typing import Optional

from ...maps.load import TargetMap
from ...model import Category, Status, Usage, UsageKind, Value, ValueKind, Verdict
from ..base import (Claim, Rule, RuleContext, Verdicts, cuda_device_in, device_string_verdict, per_target,
                    placed_by)
from ..examples import ByRuntime, Invalid, Valid
from . import DEVICE_KEYWORDS

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_DEVICE = ValueKind.DEVICE

_AMP_APIS = ("torch.autocast", "torch.amp.", "torch.cuda.amp.", "torch.cpu.amp.")
#: Calls whose first positional argument is a device (their signatures' first parameter: ``device`` or
#: ``device_type``): ``torch.device('cuda', 0)``, ``init_device_mesh('cuda', (2, 4))``, ``torch.Generator('cuda')``.
_DEVICE_FIRST = frozenset({"torch.device", "torch.set_default_device", "torch.cuda.device", "torch.Generator",
                           "torch.get_device_module", "torch.distributed.device_mesh.init_device_mesh",
                           "torch.distributed.init_device_mesh", "torch.distributed.device_mesh.DeviceMesh",
                           "torch.distributed.DeviceMesh"})


class DeviceArgument(Rule):
    """A CUDA device passed as an argument to any call.

    ## What it does
    Finds a CUDA device given to a call's `device=`, `device_type=`, `map_location=`, `device_id=` or
    `pin_memory_device=` argument, or as the first argument of `torch.device`, `torch.set_default_device`
    and `torch.cuda.device`, `torch.Generator`, `init_device_mesh` and `DeviceMesh`:
    `torch.zeros(3, device='cuda')`, `init_device_mesh('cuda', (8,))`, `torch.load(path, map_location='cuda:0')`,
    `torch.device('cuda', rank)`, `torch.device(f'cuda:{rank}')`, and the repo's own functions called
    with `device='cuda'`. Autocast and GradScaler devices belong to `amp-device`.

    ## Why is this bad?
    There is no `cuda` device on Ascend or Cambricon: the call raises (`torch.load` fails while mapping
    the storages). Kunlunxin's torch_xmlir presents itself as `torch.cuda`, so the string works there.

    ## Fix safety
    Exact where the string is written in the call or at the constant it came through: `cuda` becomes the
    target's device (`npu`, `mlu`) and any index or f-string field is kept. A device imported from another
    module is reported at the call and rewritten in that module, where the string is written.
    """

    name = "device-argument"
    call_stays = True
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL, UsageKind.DECORATOR})
    category = Category.DEVICE
    summary = "a CUDA device string or torch.device passed as an argument"
    examples = (
        # SupContrast's loss: the device of `features`, spelled for CUDA and the CPU only; on a target the choice
        # reads "cpu" beside a tensor on the target's device: `features.device`, by hand
        Invalid("import torch\n\n\ndef loss(features):\n    device = (torch.device('cuda')\n"
                "              if features.is_cuda\n              else torch.device('cpu'))\n"
                "    return torch.eye(2).to(device)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Invalid("import torch\nx = torch.zeros(3, device='cuda')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.zeros(3, device='npu')\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.zeros(3, device='mlu')\n")),
        Invalid("import torch as T\nstate = T.load('m.pt', map_location='cuda:0')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch as T\nimport torch_npu\nstate = T.load('m.pt', map_location='npu:0')\n",
                           neuware="import torch as T\nimport torch_mlu\n"
                                   "state = T.load('m.pt', map_location='mlu:0')\n")),
        Invalid("import torch\nrank = 0\ndev = torch.device('cuda', rank)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nrank = 0\ndev = torch.device('npu', rank)\n",
                           neuware="import torch\nimport torch_mlu\nrank = 0\ndev = torch.device('mlu', rank)\n")),
        Invalid("import torch\ndef place(rank):\n    return torch.device(f'cuda:{rank}')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\ndef place(rank):\n"
                                "    return torch.device(f'npu:{rank}')\n",
                           neuware="import torch\nimport torch_mlu\ndef place(rank):\n"
                                   "    return torch.device(f'mlu:{rank}')\n")),
        # the device comes from another module: reported here, rewritten there (where device-string reports it)
        Invalid("import torch\nfrom config import DEVICE\nx = torch.zeros(3, device=DEVICE)\n",
                files={"config.py": "DEVICE = 'cuda:0'\n"},
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Valid("import torch\nx = torch.zeros(3, device='cpu')\n"),
        Invalid("from torch.distributed.device_mesh import init_device_mesh\nmesh = init_device_mesh('cuda', (2, 4))\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="from torch.distributed.device_mesh import init_device_mesh\nimport torch_npu\n"
                                "mesh = init_device_mesh('npu', (2, 4))\n",
                           neuware="from torch.distributed.device_mesh import init_device_mesh\nimport torch_mlu\n"
                                   "mesh = init_device_mesh('mlu', (2, 4))\n")),
        # only the first positional argument is a device: the mesh's dimension names are not
        Valid("from torch.distributed.device_mesh import init_device_mesh\n"
              "mesh = init_device_mesh('cpu', (2,), mesh_dim_names=('cuda',))\n"),
        # the device built in the call: reported (and rewritten) once, at torch.device('cuda')
        Invalid("import torch\nx = torch.zeros(3, device=torch.device('cuda'))\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.zeros(3, device=torch.device('npu'))\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.zeros(3, device=torch.device('mlu'))\n")),
        Valid("import torch\nprint('running on cuda')\n"),
        Valid("import torch\ncuda = torch.zeros(3, device='meta')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api.startswith(_AMP_APIS):
            return None
        positional = [a for a in usage.args if a.keyword is None]
        for arg in usage.args:
            positional_device = arg.keyword is None and usage.api in _DEVICE_FIRST and arg is positional[0]
            if arg.keyword in DEVICE_KEYWORDS or positional_device:
                if arg.value.kind == _DEVICE and arg.value.via is None:
                    continue  # ``device=torch.device('cuda')``: the inner call is the finding, one cause once
                device = cuda_device_in(arg.value, ctx.project)
                if device is not None:
                    return per_target(ctx, partial(_judged, usage=usage, device=device))
        return None


def _judged(target: TargetMap, usage: Usage, device: Value) -> Verdict:
    return placed_by(target, usage, device_string_verdict(target, value=device, snippet=usage.snippet))
