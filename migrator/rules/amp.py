"""Mixed precision: ``torch.cuda.amp.*`` in every import form, and autocast / GradScaler on ``"cuda"``."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Edit, Status, Usage, Value, Verdict
from .base import (Rule, RuleContext, Verdicts, cuda_device_in, device_string_verdict, first_arg, needs_import,
                   per_target, rename_verdict)

_DEVICE_FIRST = ("torch.autocast", "torch.amp.autocast", "torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler",
                 "torch.amp.autocast_mode.autocast", "torch.amp.custom_fwd", "torch.amp.custom_bwd",
                 "torch.get_autocast_dtype", "torch.set_autocast_dtype", "torch.is_autocast_enabled")


#: APIs whose device argument defaults to "cuda" (torch_mlu's migration tool lists them in default_cuda_args_list).
_CUDA_BY_DEFAULT = ("torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler")


class CudaAmp(Rule):
    """``torch.cuda.amp.autocast`` / ``GradScaler`` / ``custom_fwd``: the CUDA-only AMP namespace.

    Fix: the target's namespace (``torch_npu.npu.amp.*``, ``torch.mlu.amp.*``), or the device-generic
    ``torch.autocast(device_type=...)`` / ``torch.amp.GradScaler(device)``.
    """

    name = "cuda-amp"
    priority = 100
    category = Category.AMP
    summary = "torch.cuda.amp APIs"
    VALID = ("import torch\nwith torch.autocast(device_type='cpu'):\n    pass\n",)
    INVALID = (
        "from torch.cuda.amp import autocast as ac\nwith ac():\n    pass\n",
        "import torch\nscaler = torch.cuda.amp.GradScaler()\n",
        "from torch.cuda import amp\nscaler = amp.GradScaler(enabled=True)\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind in ("call", "attribute", "decorator") and usage.api.startswith("torch.cuda.amp"):
            return per_target(ctx, lambda t: rename_verdict(t, usage))
        return None


class AmpDevice(Rule):
    """``torch.autocast('cuda')``, ``torch.autocast(device_type='cuda')``, ``torch.amp.GradScaler('cuda')``."""

    name = "amp-device"
    priority = 110
    category = Category.AMP
    summary = "autocast / GradScaler on the CUDA device"
    VALID = ("import torch\nwith torch.autocast('cpu', dtype=torch.bfloat16):\n    pass\n",)
    INVALID = (
        "import torch\nwith torch.autocast(device_type='cuda', dtype=torch.float16):\n    pass\n",
        "import torch\nscaler = torch.amp.GradScaler('cuda')\n",
        "import torch\nscaler = torch.amp.GradScaler()\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in ("call", "decorator") or usage.api not in _DEVICE_FIRST:
            return None
        value = first_arg(usage, ("device_type", "device"), 0)
        if value is None and usage.api in _CUDA_BY_DEFAULT:
            value = Value("str", "cuda", via=f"the default device of {usage.api.rsplit('.', 1)[-1]}")
        device = cuda_device_in(value, ctx.project) if value is not None else None
        if device is None:
            return None
        if value.via and value.via.startswith("the default device"):
            return per_target(ctx, lambda t: _implicit_cuda(t, device, usage.snippet))
        return per_target(ctx, lambda t: device_string_verdict(t, device, usage.snippet))


def _implicit_cuda(target, device: Value, snippet: str) -> Verdict:
    """``GradScaler()`` means ``GradScaler('cuda')``: pass the target's device explicitly."""
    verdict = device_string_verdict(target, device, snippet)
    if verdict.status != Status.REWRITE or "(" not in snippet:  # a runtime that keeps CUDA names needs nothing
        return verdict
    head, _, rest = snippet.partition("(")
    suggestion = f"{head}('{target.device_to}'" + (", " + rest if rest.strip() != ")" else ")")
    message = (f"{head.strip()}() defaults to device 'cuda': pass '{target.device_to}' on {target.id}"
               f"{needs_import(target)}")
    return Verdict(verdict.status, message, verdict.source, suggestion, fixable=True,
                   edit=Edit("argument", "", repr(target.device_to)))
