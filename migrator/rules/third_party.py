"""CUDA-only libraries (apex, flash-attn, xformers, bitsandbytes, TransformerEngine, triton, NVML ...)
and ``torch.compile``.

A replacement is offered only where ``operator_maps/third_party.json`` names one for the target (each
row checked against the vendor file it cites); otherwise the library needs a port. An import guarded by
``try/except ImportError`` is optional: the code's own fallback runs on the target.
"""

from __future__ import annotations

from typing import Optional

from ..maps.load import op_families
from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import Vocabulary
from .base import Rule, RuleContext, Verdicts, documented_verdict, per_target

_SOURCE = "third_party.json (curated, checked against vendor data)"


def library_verdict(target, usage: Usage, ctx: RuleContext, library: str) -> Verdict:
    info = ctx.third_party.libraries[library]
    if usage.kind == "import" and usage.guarded:
        return Verdict(Status.SUPPORTED, f"optional import of {library} (guarded by try/except ImportError): "
                       "the code's fallback path runs where it is missing", _SOURCE)
    if usage.kind == "requirement" and ctx.third_party.has_replacement(library, target.id):
        return Verdict(Status.REWRITE, f"{info['what']}: the data names a {target.id} or plain-PyTorch replacement "
                       f"for some of its APIs; drop the requirement once every use in the code is replaced (a use "
                       f"the code findings still mark `port` keeps it needed)", _SOURCE,
                       suggestion=f"remove the {library} requirement once its uses are replaced")
    found = ctx.third_party.replacement(usage.api, target.id)
    if found is not None:
        matched, row = found
        status = Status(row["status"])
        return Verdict(status, f"{info['what']}: use `{row['to']}` on {target.id}; {row['note']}",
                       f"{row['source']} via {_SOURCE}", suggestion=row["to"])
    plain = ctx.third_party.pytorch_path(usage.api) if usage.kind != "import" else None
    if plain is not None:
        return Verdict(Status.REWRITE, f"{info['what']}: no {target.id} equivalent in the vendor data; the plain "
                       f"PyTorch path is `{plain['to']}` ({plain['note']})", _SOURCE, suggestion=plain["to"])
    if info["kind"] == "monitoring":
        return Verdict(Status.PORT, f"{info['what']} needs NVIDIA's driver; replace with the {target.id} "
                       "runtime's own queries (no equivalent in the vendor data)", _SOURCE)
    if info["kind"] == "compiler":
        return Verdict(Status.PORT, f"{info['what']}: Triton kernels must be ported (rewritten in plain torch ops "
                       f"or the target's kernel language); the vendor data lists no Triton backend for {target.id}",
                       _SOURCE)
    return Verdict(Status.PORT, f"{info['what']} is CUDA-only: no {target.id} equivalent in the vendor data; "
                   "use a plain PyTorch path or port the kernels", _SOURCE)


class CudaLibrary(Rule):
    """Imports and uses of CUDA-only libraries."""

    name = "cuda-library"
    priority = 60
    category = Category.THIRD_PARTY
    summary = "CUDA-only third-party libraries"
    #: libraries whose own calls are never the repo's module loaders (``load_ext('_ext')``)
    vocabulary = Vocabulary(library_roots=frozenset(
        {"apex", "flash_attn", "xformers", "triton", "deepspeed", "transformers", "timm", "mmengine"}))
    VALID = (
        "import numpy as np\nx = np.zeros(3)\n",
        "try:\n    import apex\nexcept ImportError:\n    apex = None\n",
    )
    INVALID = (
        "from apex.optimizers import FusedAdam\nopt = FusedAdam([], lr=1e-3)\n",
        "from flash_attn import flash_attn_func\n",
        "import triton\n@triton.jit\ndef k(x_ptr):\n    pass\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in ("import", "call", "attribute", "decorator", "subclass", "assign"):
            return None
        library = ctx.third_party.library_of(usage.api)
        if library is None or ctx.project.is_repo_module(library):
            return None  # the repo's own code (scanning mmcv itself): its kernels are found as custom ops
        verdicts = per_target(ctx, lambda t: library_verdict(t, usage, ctx, library))
        if usage.kind == "import" and usage.guarded and all(v.status == Status.SUPPORTED for v in verdicts.values()):
            return None  # an optional import with a fallback is not a finding
        return verdicts


class TritonLaunch(Rule):
    """``kernel[grid](...)`` launches of ``@triton.jit`` kernels defined in the repo."""

    name = "triton-launch"
    priority = 70
    category = Category.THIRD_PARTY
    summary = "launches of Triton kernels"
    vocabulary = Vocabulary(kernel_decorators=frozenset({"triton.jit", "triton.autotune", "triton.heuristics"}))
    INVALID = ("import triton\n@triton.jit\ndef add_kernel(x_ptr, n):\n    pass\n"
               "def add(x):\n    add_kernel[(1,)](x, 4)\n",)

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "launch" or usage.api not in ctx.project.triton_kernels:
            return None
        return per_target(ctx, lambda t: Verdict(
            Status.PORT, f"launches Triton kernel `{usage.api.rsplit('.', 1)[-1]}`: port the kernel or replace the "
            "call with plain torch ops", _SOURCE))


class TorchCompile(Rule):
    """``torch.compile``: works only partly on these runtimes; the vendor lists say how far."""

    name = "torch-compile"
    priority = 80
    category = Category.THIRD_PARTY
    summary = "torch.compile"
    INVALID = ("import torch\nm = torch.compile(torch.nn.Linear(2, 2))\n",)

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.api != "torch.compile" or usage.kind not in ("call", "decorator", "attribute"):
            return None
        return per_target(ctx, lambda t: documented_verdict(
            t, "torch.compile", "torch.compile depends on the target's compiler backend"))


class VisionOp(Rule):
    """``torchvision.ops`` detection operators (``roi_align``, ``nms``, ``RoIAlign``, ``deform_conv2d``).

    What it does: judges each call by the custom-op family it belongs to
    (``curated/custom_op_families.yaml``, every vendor row checked against its upstream file): the vendor's
    own op where one exists (``torch_npu.npu_roi_align``), torchvision itself where the vendor registers its
    kernel (torch_mlu's torchvision list), else ``unknown``.
    Why: torchvision registers these kernels for CUDA and the CPU only; without the vendor's kernel they
    run on the host (vendors' own ports of detection models swap them for the fused op).
    Fix safety: a manual rewrite (argument conventions differ, see each suggestion's mapping).
    """

    name = "vision-op"
    priority = 90
    category = Category.OP
    summary = "torchvision detection operators"
    VALID = ("import torchvision\nm = torchvision.models.resnet18()\n",)
    INVALID = ("from torchvision.ops import roi_align\ny = roi_align(x, boxes, (7, 7), 0.25, 2, True)\n",
               "import torchvision\nkeep = torchvision.ops.nms(boxes, scores, 0.5)\n")

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "call" or not usage.api.startswith("torchvision.ops."):
            return None
        name = usage.api.rsplit(".", 1)[-1].lower()  # RoIAlign, roi_align: the family patterns take both
        family = next((f for f in op_families() if f.matches(name)), None)
        if family is None:
            return None
        return per_target(ctx, lambda t: _vision_verdict(t, usage.api, family))


def _vision_verdict(target, api: str, family) -> Verdict:
    call = family.targets.get(target.id)
    if call is None:
        return Verdict(Status.UNKNOWN, f"the bundled data names no {target.id} kernel for `{api}` ({family.what}); "
                       "torchvision's own kernels are CUDA and CPU only", "operator_maps/custom_op_families.json")
    if call.to.startswith("torchvision."):
        return Verdict(Status.SUPPORTED, f"`{api}` runs on {target.id}: {call.mapping}", call.source)
    return Verdict(Status.REWRITE, f"`{api}` ({family.what}): torchvision registers its kernel for CUDA and the CPU; "
                   f"{target.id}'s own op for it is `{call.to}` ({call.mapping}; {call.differs})", call.source,
                   suggestion=call.to)

