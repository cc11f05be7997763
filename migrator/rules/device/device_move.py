"""The ``device-move`` rule."""

from __future__ import annotations

from functools import partial
from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict
from ...resolve.vocabulary import Vocabulary
from ...maps.load import module_states, torch_api_version
from ...resolve.modules import BUILT_BY
from ..base import Claim, Rule, RuleContext, Verdicts, cuda_device_in, device_string_verdict, per_target, rename_verdict
from ..examples import ByRuntime, Invalid, Valid


class DeviceMove(Rule):
    """Moving tensors or modules to the CUDA device.

    ## What it does
    Finds `x.cuda()` and `model.cuda()`, and `.to(...)`, `.to_empty(device=...)`, `.pin_memory(...)` and
    `.new_*(device=...)` given a CUDA device: a string, an f-string, a `torch.device`, or a name set to one
    in this file or another module of the repo. A device that only arrives as a parameter (`x.to(device)`)
    is not reported here; its default is, where it is written.

    ## Why is this bad?
    The targets call their device `npu` (Ascend) or `mlu` (Cambricon): `.cuda()` raises there unless a
    runtime patcher (`transfer_to_npu`) is imported first. Kunlunxin's torch_xmlir presents itself as
    `torch.cuda`, so the line runs as written there.

    ## Fix safety
    Exact and safe: `.cuda(...)` becomes the method the vendor's table names (`.npu(...)`, `.mlu(...)`) with
    the arguments kept, and a device string is rewritten where it is written, in the call or at the
    constant it came through. `fix` adds the plugin import (`import torch_npu`) when the file lacks it.
    """

    name = "device-move"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.METHOD})
    category = Category.DEVICE
    summary = "moving tensors or modules to the CUDA device"
    vocabulary = Vocabulary(methods=frozenset({"cuda", "to"}))
    examples = (
        Invalid("import torch\nx = torch.ones(2).cuda()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.ones(2).npu()\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.ones(2).mlu()\n")),
        Invalid("import torch\nDEVICE = torch.device('cuda', 0)\ndef f(x):\n    return x.to(DEVICE)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nDEVICE = torch.device('npu', 0)\n"
                                "def f(x):\n    return x.to(DEVICE)\n",
                           neuware="import torch\nimport torch_mlu\nDEVICE = torch.device('mlu', 0)\n"
                                   "def f(x):\n    return x.to(DEVICE)\n")),
        Invalid("import torch\nx = torch.ones(2)\nx = x.to('cuda:1', non_blocking=True)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.ones(2)\nx = x.to('npu:1', "
                                "non_blocking=True)\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.ones(2)\n"
                                   "x = x.to('mlu:1', non_blocking=True)\n")),
        Valid("import torch\nx = torch.ones(2)\nx = x.to('cpu')\n"),
        Valid("import torch\ndef f(x, device):\n    return x.to(device)\n"),
        Valid("import torch\ndef f(x, device='cuda'):\n    return x.to(device)\n"),
        Valid("import torch\nclass Cfg:\n    def to(self, d): pass\nc = Cfg()\nc.to('cuda')\n"),
        # pytorch/examples' ImageNet script and its heirs: a loss built with no tensor holds none, so moving it
        # moves nothing, on any device
        Invalid("import torch.nn as nn\ncriterion = nn.CrossEntropyLoss().cuda(0)\n", expect=Status.SUPPORTED),
        Invalid("import torch.nn as nn\ncriterion = nn.MSELoss(reduction='sum').to('cuda')\n", expect=Status.SUPPORTED),
        # simsiam's criterion: a class no sample traces, built with no tensor all the same
        Invalid("import torch.nn as nn\ncriterion = nn.CosineSimilarity(dim=1).cuda(0)\n", expect=Status.SUPPORTED),
        Valid("import torch.nn as nn\ndef loss(device):\n    return nn.MSELoss().to(device)\n"),
        # PyTorch-GAN's scripts: the loss built first and moved later, by its name (or moved into the same name)
        Invalid("import torch\nadversarial_loss = torch.nn.MSELoss()\nadversarial_loss.cuda()\n",
                expect=Status.SUPPORTED),
        Invalid("import torch.nn as nn\npixelwise = nn.L1Loss()\npixelwise = pixelwise.cuda()\n",
                expect=Status.SUPPORTED),
        # ... but a name bound to something else as well may hold tensors
        Invalid("import torch.nn as nn\nloss = nn.L1Loss()\nif big:\n    loss = nn.Linear(2, 2)\nloss.cuda()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch.nn as nn\nimport torch_npu\nloss = nn.L1Loss()\nif big:\n"
                                "    loss = nn.Linear(2, 2)\nloss.npu()\n",
                           neuware="import torch.nn as nn\nimport torch_mlu\nloss = nn.L1Loss()\nif big:\n"
                                   "    loss = nn.Linear(2, 2)\nloss.mlu()\n")),
        # ... its class weights are a buffer the move carries
        Invalid("import torch.nn as nn\ncriterion = nn.CrossEntropyLoss(weight=w).cuda(0)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch.nn as nn\nimport torch_npu\n"
                                "criterion = nn.CrossEntropyLoss(weight=w).npu(0)\n")),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        method = usage.api.rsplit(".", 1)[-1]
        empty = _holds_nothing(usage)
        if method == "cuda":
            return per_target(ctx, lambda t: Verdict(Status.SUPPORTED, empty, _TABLE) if empty is not None
                              else rename_verdict(t, usage, usage.api))
        if method not in ("to", "to_empty", "pin_memory", "new_tensor", "new_zeros", "new_ones", "new_empty",
                          "new_full"):
            return None
        for arg in usage.args:
            if method == "to" or arg.keyword == "device" or (arg.keyword is None and method == "pin_memory"):
                device = cuda_device_in(arg.value, ctx.project)
                if device is not None and empty is not None:
                    return per_target(ctx, lambda t: Verdict(Status.SUPPORTED, empty, _TABLE))
                if device is not None:
                    return per_target(ctx, partial(device_string_verdict, value=device, snippet=usage.snippet))
        return None


_TABLE = "operator_maps/torch_api.json (module_states: what each torch.nn class holds built with no argument)"


def _holds_nothing(usage: Usage) -> Optional[str]:
    """Why moving this receiver moves nothing: it is a ``torch.nn`` class built in place (``BUILT_BY``) that holds
    no parameter or buffer when built so (``maps.load.module_states``), given no positional argument and none of
    its tensor arguments (a loss's ``weight``); else ``None``."""
    context = usage.context or ""
    if not context.startswith(BUILT_BY + " "):
        return None
    built, _, passed = context[len(BUILT_BY) + 1:].partition(": ")
    row = module_states().get(built) or {}
    given = set(passed.split(",")) - {""}
    if row.get("holds") != 0 or "*" in given or given & set(row.get("tensor_args", ())):
        return None
    return (f"`{built}` built so holds no parameter or buffer (torch {torch_api_version()} builds it with none): "
            "moving it moves nothing and needs no device; it runs as written on every target")
