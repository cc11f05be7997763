"""The ``cuda-amp`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ..base import Claim, Rule, RuleContext, Verdicts, per_target, rename_verdict
from .amp_device import changes_nothing
from ..examples import ByRuntime, Invalid, Valid


class CudaAmp(Rule):
    """The CUDA-only mixed-precision namespace, `torch.cuda.amp`.

    ## What it does
    Finds `torch.cuda.amp.autocast`, `GradScaler`, `custom_fwd` and `custom_bwd` in every import form:
    `from torch.cuda.amp import autocast as ac`, `from torch.cuda import amp`, the full dotted name, and as
    decorators. The verdict per target comes from the vendor's rename tables.

    ## Why is this bad?
    `torch.cuda.amp` casts and scales for the CUDA device only: on Ascend or Cambricon, autocast does not
    cast the ops that run on the `npu` / `mlu` device and the scaler does not scale their gradients, so
    the code trains in fp32 or fails. Kunlunxin keeps the CUDA names.

    ## Fix safety
    Exact when the vendor names a one-to-one equivalent whose module the file binds (`torch_npu.npu.amp.*`
    on Ascend, with `import torch_npu` added). The call's arguments are kept. Where the rename is a
    migration-table entry with a note, or the new module is not bound, the suggestion is printed and
    `fix` leaves the line; the device-generic spelling, `torch.autocast(device_type=...)` and
    `torch.amp.GradScaler(device)`, is the portable rewrite.
    """

    name = "cuda-amp"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL, UsageKind.ATTRIBUTE, UsageKind.DECORATOR})
    category = Category.AMP
    summary = "torch.cuda.amp APIs"
    examples = (
        Invalid("import torch\nscaler = torch.cuda.amp.GradScaler()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nscaler = torch_npu.npu.amp.GradScaler()\n",
                           neuware="import torch\nimport torch_mlu\nscaler = torch.mlu.amp.GradScaler()\n")),
        # `torch` itself is not bound, so only the name the plugin import binds can be written in; the
        # import of `ac` goes once nothing uses it
        Invalid("from torch.cuda.amp import autocast as ac\nwith ac():\n    pass\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch_npu\nwith torch_npu.npu.amp.autocast():\n    pass\n")),
        Invalid("from torch.cuda import amp\nscaler = amp.GradScaler(enabled=True)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="from torch.cuda import amp\nimport torch_npu\n"
                                "scaler = torch_npu.npu.amp.GradScaler(enabled=True)\n")),
        # simpletransformers' evaluate(): without autograd on the target it computes in fp32, which is to validate
        Invalid("import torch\n\n\n@torch.no_grad()\ndef evaluate(model, x):\n"
                "    with torch.cuda.amp.autocast():\n        return model(x)\n", expect=Status.SUPPORTED),
        Valid("import torch\nwith torch.autocast(device_type='cpu'):\n    pass\n"),
        Valid("import torch\nfrom torch.cpu.amp import autocast\nwith autocast():\n    pass\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind in self.kinds and usage.api.startswith("torch.cuda.amp"):
            # ``changes_nothing``: off around nothing it lowers, or never entered; else the rename as it stands
            return per_target(ctx, lambda t: changes_nothing(t, rename_verdict(t, usage), usage))
        return None
