"""The ``cuda-kernel`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import Invalid, Valid
from . import _KERNEL, _port


class CudaKernel(Rule):
    """A CUDA kernel in the repo's sources.

    ## What it does
    Finds each `__global__` function defined in the repo's `.cu`, `.cuh` and C++ sources, with its length
    in lines, for the custom-op inventory and its effort estimate; the extension that compiles the file is
    found through the builds' sources and local includes. `__device__` helpers are not reported alone.

    ## Why is this bad?
    A CUDA kernel runs only on NVIDIA GPUs: every target needs it rewritten in its own kernel language
    (Ascend C, BANG C, XPU kernels), or replaced by a vendor op or plain torch ops.

    ## Fix safety
    No automatic fix: a port. The custom-op plan gives a per-target skeleton and the vendor op where the
    kernel belongs to a known family (RMSNorm, RoIAlign, ...).
    """

    name = "cuda-kernel"
    claim = Claim.PROJECT_OPERATOR
    kinds = frozenset({UsageKind.KERNEL})
    category = Category.CUSTOM_OP
    summary = "CUDA kernels"
    examples = (
        Invalid(_KERNEL, path="csrc/fused.cu", expect=Status.PORT),
        Valid("__device__ float twice(float x) { return 2 * x; }\n", path="csrc/helpers.cuh"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        return per_target(ctx, lambda t: _port(t, f"CUDA kernel `{usage.api.rsplit('::', 1)[-1]}` "
                                               f"({usage.context})"))
