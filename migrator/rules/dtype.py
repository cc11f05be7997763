"""Dtypes that bite on the targets: float64, complex numbers and FFTs, fp8."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Usage
from .base import Rule, RuleContext, Verdicts, documented_verdict, per_target

_FLOAT64 = {"torch.float64", "torch.double", "torch.Tensor.double", "torch.DoubleTensor", "torch.cuda.DoubleTensor"}
_COMPLEX = {"torch.complex64", "torch.complex128", "torch.cfloat", "torch.cdouble", "torch.view_as_complex",
            "torch.view_as_real", "torch.polar", "torch.complex", "torch.Tensor.to_complex"}
_FP8_PREFIX = "torch.float8_"


def dtype_kind(api: str) -> Optional[str]:
    if api in _FLOAT64:
        return "float64"
    if api in _COMPLEX or api.startswith("torch.fft."):
        return "complex"
    if api.startswith(_FP8_PREFIX):
        return "fp8"
    return None


_WHY = {
    "float64": "float64 has few device kernels on the targets; ops on double tensors may run on the CPU",
    "complex": "complex dtypes and FFTs have limited device kernels on the targets",
    "fp8": "fp8 dtypes need target hardware and kernels that support them",
}


class RiskyDtype(Rule):
    """float64 / complex / fp8 use, judged by the vendor's Python-API list for that API where it has one."""

    name = "risky-dtype"
    priority = 200
    category = Category.DTYPE
    summary = "float64, complex, FFT and fp8 use"
    VALID = ("import torch\nx = torch.zeros(3, dtype=torch.float32)\n",)
    INVALID = (
        "import torch\nx = torch.zeros(3, dtype=torch.float64)\n",
        "import torch\ny = torch.ones(3).double()\n",
        "import torch\nspec = torch.fft.rfft(torch.ones(8))\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        kind = dtype_kind(usage.api)
        if kind is None or usage.kind in ("import", "literal"):
            return None
        return per_target(ctx, lambda t: documented_verdict(t, usage.api, _WHY[kind]))
