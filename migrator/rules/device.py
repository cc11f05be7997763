"""Device placement: ``.cuda()``, ``.to('cuda')``, ``device=`` arguments, ``torch.cuda.*`` and backend flags."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import LiteralRole, Vocabulary
from .base import (DEVICE_STRING, Rule, RuleContext, Verdicts, cuda_device_in, device_string_verdict, per_target,
                   rename_verdict, where)

DEVICE_KEYWORDS = ("device", "device_type", "map_location", "device_id", "pin_memory_device", "device_types")
_AMP_APIS = ("torch.autocast", "torch.amp.", "torch.cuda.amp.", "torch.cpu.amp.")


def _is_cuda_api(api: str) -> bool:
    parts = api.split(".")
    return parts[0] == "torch" and any(p in ("cuda", "cudnn") or p.startswith("CUDA") for p in parts[1:])


class DeviceMove(Rule):
    """``x.cuda()`` / ``model.cuda()`` move to the CUDA device; ``.to(...)`` with a CUDA device does too.

    Why: the target's device is ``npu`` / ``mlu``; ``.cuda()`` fails there unless a runtime patcher is
    imported. Fix: ``.npu()`` / ``.mlu()`` (same arguments, ``non_blocking`` kept), exact and safe.
    """

    name = "device-move"
    priority = 160
    category = Category.DEVICE
    summary = "moving tensors or modules to the CUDA device"
    vocabulary = Vocabulary(methods=frozenset({"cuda", "to"}))
    VALID = (
        "import torch\nx = torch.ones(2)\nx = x.to('cpu')\n",
        "import torch\ndef f(x, device):\n    return x.to(device)\n",
        "import torch\ndef f(x, device='cuda'):\n    return x.to(device)\n",
        "import torch\nclass Cfg:\n    def to(self, d): pass\nc = Cfg()\nc.to('cuda')\n",
    )
    INVALID = (
        "import torch\nx = torch.ones(2).cuda()\n",
        "import torch\nDEVICE = torch.device('cuda', 0)\ndef f(x):\n    return x.to(DEVICE)\n",
        "import torch\nx = torch.ones(2)\nx = x.to('cuda:1', non_blocking=True)\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "method":
            return None
        method = usage.api.rsplit(".", 1)[-1]
        if method == "cuda":
            return per_target(ctx, lambda t: rename_verdict(t, usage, usage.api))
        if method not in ("to", "to_empty", "pin_memory", "new_tensor", "new_zeros", "new_ones", "new_empty",
                          "new_full"):
            return None
        for arg in usage.args:
            if method == "to" or arg.keyword == "device" or (arg.keyword is None and method == "pin_memory"):
                device = cuda_device_in(arg.value, ctx.project)
                if device is not None:
                    return per_target(ctx, lambda t: device_string_verdict(t, device, usage.snippet))
        return None


class DeviceArgument(Rule):
    """A CUDA device passed to any call: ``torch.zeros(3, device='cuda')``, ``torch.load(map_location='cuda:0')``,
    ``torch.device('cuda', rank)``, a repo function's ``device=`` parameter.

    Fix: the target's device string (``npu`` / ``mlu``), exact where the string is written in the call.
    """

    name = "device-argument"
    priority = 170
    category = Category.DEVICE
    summary = "a CUDA device string or torch.device passed as an argument"
    VALID = (
        "import torch\nx = torch.zeros(3, device='cpu')\n",
        "import torch\nprint('running on cuda')\n",
    )
    INVALID = (
        "import torch\nx = torch.zeros(3, device='cuda')\n",
        "import torch as T\nstate = T.load('m.pt', map_location='cuda:0')\n",
        "import torch\nrank = 0\ndev = torch.device('cuda', rank)\n",
        "import torch\ndev = torch.device(f'cuda:{3}')\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in ("call", "decorator") or usage.api.startswith(_AMP_APIS):
            return None
        for arg in usage.args:
            positional_device = arg.keyword is None and usage.api in ("torch.device", "torch.set_default_device",
                                                                      "torch.cuda.device")
            if arg.keyword in DEVICE_KEYWORDS or positional_device:
                device = cuda_device_in(arg.value, ctx.project)
                if device is not None:
                    return per_target(ctx, lambda t: device_string_verdict(t, device, usage.snippet))
        return None


class DeviceString(Rule):
    """A ``"cuda"`` / ``"cuda:N"`` string outside a call: a constant, a default, a comparison with ``.type``.

    Only exact device strings count: ``"cuda"`` inside a log message, a docstring, or a name like
    ``NCCL_TIMEOUT`` is not a device. In a comparison (``x.device.type == "cuda"``) the branch silently
    changes meaning on the target, which is why it is reported even though nothing fails.
    """

    name = "device-string"
    priority = 180
    category = Category.DEVICE
    summary = "a CUDA device string in code"
    vocabulary = Vocabulary(literals=(LiteralRole("torch.device", DEVICE_STRING),))
    VALID = (
        "import torch\n'''Runs on cuda when available.'''\nx = 1\n",
        "import logging\nlogging.info('moving the model to cuda')\n",
        "NCCL_TIMEOUT = 30\n",
    )
    INVALID = (
        "import torch\nDEVICE = 'cuda'\n",
        "import torch\ndef f(x):\n    if x.device.type == 'cuda':\n        return 1\n",
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--device', default='cuda:0')\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "literal" or usage.api != "torch.device":
            return None
        value = usage.args[0].value
        verdicts = per_target(ctx, lambda t: device_string_verdict(t, value, usage.snippet))
        if usage.context:
            verdicts = {k: replace(v, message=f"{v.message} ({usage.context})") for k, v in verdicts.items()}
        if usage.context in (None, "expression"):
            # a bare "cuda" with no known role (a dict key, a list item): rewriting it could change what code
            # elsewhere looks up, so `fix` applies it only with --unsafe
            verdicts = {k: replace(v, fixable=False) for k, v in verdicts.items()}
        return verdicts


class DeviceCall(Rule):
    """``torch.cuda.*`` calls and attributes, ``torch.backends.cuda/cudnn`` flags, CUDA classes.

    Verdicts come from the vendors' own lists: Ascend's API docs name the ``torch_npu.npu.*`` equivalent
    (or say it is unsupported), transfer_to_npu's patch tables give module renames, Cambricon's list
    and migration tables give the ``torch.mlu.*`` name. A flag documented as working (``cudnn.benchmark``
    on Ascend) is ``supported``.
    """

    name = "device-call"
    priority = 190
    category = Category.DEVICE
    summary = "torch.cuda / torch.backends CUDA APIs"
    vocabulary = Vocabulary(tensor_attributes=frozenset({"is_cuda"}))
    VALID = ("import torch\nx = torch.ones(2)\ntorch.manual_seed(0)\n",)
    INVALID = (
        "import torch\ntorch.cuda.synchronize()\n",
        "from torch import cuda\nn = cuda.device_count()\n",
        "import torch\ntorch.backends.cudnn.benchmark = True\n",
        "import torch\ng = torch.cuda.CUDAGraph()\n",
        "import torch\ndef f(x):\n    return x.is_cuda\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in ("call", "attribute", "assign", "decorator"):
            return None
        if not _is_cuda_api(usage.api) and usage.api != "torch.Tensor.is_cuda":
            return None
        if ".amp." in usage.api or "nccl" in usage.api.lower():
            return None
        if usage.api == "torch.cuda.is_available":
            return per_target(ctx, lambda t: _is_available(t, usage))
        return per_target(ctx, lambda t: rename_verdict(t, usage))


def _is_available(target, usage: Usage) -> Verdict:
    verdict = rename_verdict(target, usage)  # a runtime that keeps CUDA names answers True as written
    if verdict.status == Status.REWRITE:
        return replace(verdict, message=verdict.message + f"; as written it returns False on {target.id}, so code "
                       "guarded by it silently runs on the CPU")
    return verdict


__all__ = ["DeviceMove", "DeviceArgument", "DeviceString", "DeviceCall", "where"]
