"""The ``risky-dtype`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.coverage import api_coverage
from ...maps.load import TargetMap
from ...model import Category, Status, Usage, UsageKind, Verdict
from ...resolve.modules import DTYPE_COMPARED, DTYPE_LISTED, DTYPE_ON_HOST, TENSOR_FACTORIES
from ..base import Claim, Rule, RuleContext, Verdicts, documented_verdict, per_target
from ..examples import ByRuntime, Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_IMPORT = UsageKind.IMPORT
_LITERAL = UsageKind.LITERAL

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
    """Dtypes with few device kernels on the targets: float64, complex and FFTs, fp8.

    ## What it does
    Finds `torch.float64` / `torch.double`, `.double()`, complex dtypes and views (`torch.complex64`,
    `view_as_complex`), `torch.fft.*` and the `torch.float8_*` dtypes. Each target's verdict is the vendor's
    API-list entry for that API where it has one, and `unknown` (not verified) where it has none. A dtype
    that is only compared with (`x.dtype == torch.float64`) or listed among others is no use of it, and a
    float64 or complex tensor a factory makes on the host CPU (no `device=`, not moved on the spot: a
    sampler's weights) computes where those dtypes are at home.

    ## Why is this bad?
    The targets' cards are built for 16- and 32-bit floats: float64 and complex ops often have no device
    kernel and fall back to the CPU, FFTs are partly covered, and fp8 needs hardware support. A model that
    computes a loss or a positional table in float64 can be silently slow.

    ## Fix safety
    Manual: float32 (or bfloat16) is usually enough, but the numerics need a look, so nothing is applied.
    """

    name = "risky-dtype"
    claim = Claim.DTYPE
    category = Category.DTYPE
    summary = "float64, complex, FFT and fp8 use"
    examples = (
        Invalid("import torch\ny = torch.ones(3).double()\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.SUPPORTED)),
        Invalid("import torch\nspec = torch.fft.rfft(torch.ones(8))\n",
                expect=ByRuntime(Status.UNKNOWN, neuware=Status.PARTIAL)),
        Invalid("import torch\n\ndef make(device):\n    return torch.zeros(3, dtype=torch.float64, device=device)\n",
                expect=Status.UNKNOWN),
        Valid("import torch\nx = torch.zeros(3, dtype=torch.float32)\n"),
        Valid("import numpy as np\nx = np.zeros(3, dtype=np.float64)\n"),
        Valid("import torch\n\ndef to_fp32(x):\n    return x.float() if x.dtype == torch.float64 else x\n"),
        # a sampler's weights, made on the host CPU and never moved
        Valid("import torch\nweights = torch.tensor([0.2, 0.8], dtype=torch.float64)\n"
              "index = torch.multinomial(weights, 1)\n"),
        Invalid("import torch\n\ndef make(device):\n    return torch.zeros(3, dtype=torch.float64).to(device)\n",
                expect=Status.UNKNOWN),
        # pypots' ETSformer: the sample frequencies made on the host, moved as plain numbers
        Valid("import torch\n\ndef frequencies(t, device):\n    return torch.fft.rfftfreq(t).to(device)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        kind = dtype_kind(usage.api)
        if kind is None or usage.kind in (_IMPORT, _LITERAL):
            return None
        if usage.context in (DTYPE_COMPARED, DTYPE_LISTED) or (usage.context == DTYPE_ON_HOST and kind != "fp8"):
            return None  # ``x.dtype == torch.float64`` computes in none; float64 on the host CPU is at home there
        if usage.kind == UsageKind.CALL and usage.api in TENSOR_FACTORIES \
                and not any(a.keyword == "device" for a in usage.args):
            return None  # ``torch.fft.rfftfreq(t)``: made on the host CPU, moved as plain numbers
        return per_target(ctx, lambda t: _judged(t, usage.api, _WHY[kind]))


def _judged(target: TargetMap, api: str, why: str) -> Verdict:
    """The vendor's list, unless it says no where the target registers a kernel for every op the API runs
    (Ascend's docs mark ``torch.fft.fftshift`` unsupported; torch_npu registers ``fft_fftshift``): that 'no' is a
    note to validate, as the operator rule reads it (``maps/coverage``)."""
    found = documented_verdict(target, api, why)
    if found.status != Status.UNSUPPORTED:
        return found
    coverage = api_coverage(target, api)
    return coverage.verdict if coverage is not None and coverage.verdict.status == found.status else found
