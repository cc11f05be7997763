"""The ``torch-ops-call`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import Invalid, Valid
from . import _port_where_called

_LIBRARY = ('#include <torch/library.h>\nTORCH_LIBRARY(myops, m) {\n  m.def("fused_gelu(Tensor x) -> Tensor");\n}\n')


class TorchOpsCall(Rule):
    """A call of a custom op the repo registers in C++.

    ## What it does
    Finds `torch.ops.<ns>.<op>(...)` where `<ns>` is a namespace a C++ or CUDA file of the repo defines with
    `TORCH_LIBRARY(<ns>, m)`. Namespaces the repo does not define (`torch.ops.aten`, a library's ops) are
    left to the other rules.

    ## Why is this bad?
    The op's kernels are registered for CUDA: on the target the dispatcher finds no kernel for the device
    and the call raises, until the op is registered for the target's dispatch key.

    A call made only where a test finds the build (`if native_available(x.device): torch.ops.<ns>.<op>(x)`
    with an `else`, or code after it) runs as written: on the target the test fails and the code's other way
    runs; the port is a speed-up to weigh (a note to validate), not work.

    ## Fix safety
    No automatic fix: the call itself needs no change once the op is registered for the target; the port is
    in the C++ (see `cuda-kernel` and the custom-op plan).
    """

    name = "torch-ops-call"
    claim = Claim.PROJECT_OPERATOR
    kinds = frozenset({UsageKind.CALL})
    category = Category.CUSTOM_OP
    summary = "calls of custom ops registered with TORCH_LIBRARY"
    examples = (
        Invalid("import torch\ny = torch.ops.myops.fused_gelu(torch.ones(3))\n", files={"csrc/ops.cpp": _LIBRARY},
                expect=Status.PORT),
        Valid("import torch\ny = torch.ops.aten.relu(torch.ones(3))\n", files={"csrc/ops.cpp": _LIBRARY}),
        # spikingjelly's spike_linear: the compiled op only where its build loaded for the tensor's device
        Invalid("import torch\nfrom ._loader import native_available\n\n\ndef gelu(x):\n"
                "    if native_available(x.device):\n        return torch.ops.myops.fused_gelu(x)\n"
                "    return torch.nn.functional.gelu(x)\n", files={"csrc/ops.cpp": _LIBRARY}, expect=Status.SUPPORTED),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        parts = usage.api.split(".")
        if usage.kind not in self.kinds or len(parts) < 4 or parts[:2] != ["torch", "ops"]:
            return None
        if parts[2] not in ctx.project.library_namespaces:
            return None
        return per_target(ctx, lambda t: _port_where_called(t, usage, f"custom op `{parts[2]}::{parts[3]}` registered "
                                                                   "in the repo's C++"))
