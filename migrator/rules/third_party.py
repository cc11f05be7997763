"""CUDA-only libraries (apex, flash-attn, xformers, bitsandbytes, TransformerEngine, triton, NVML ...)
and ``torch.compile``.

A replacement is offered only where ``operator_maps/third_party.json`` names one for the target (each
row checked against the vendor file it cites); otherwise the library needs a port. An import guarded by
``try/except ImportError`` is optional: the code's own fallback runs on the target.
"""

from __future__ import annotations

from typing import Optional

from ..maps.load import device_tools, op_families
from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import Vocabulary
from .base import Rule, RuleContext, Verdicts, documented_verdict, per_target
from .examples import Invalid, Valid

_SOURCE = "third_party.json (curated, checked against vendor data)"


def library_verdict(target, usage: Usage, ctx: RuleContext, library: str) -> Verdict:
    info = ctx.third_party.libraries[library]
    if usage.kind == "import" and usage.guarded:
        return Verdict(Status.SUPPORTED, f"optional import of {library} (guarded by try/except ImportError): "
                       "the code's fallback path runs where it is missing", _SOURCE)
    if usage.guarded and usage.kind != "requirement":
        faster = ctx.third_party.replacement(usage.api, target.id)  # still worth knowing: the fallback may be slower
        hint = f"; the vendor's own path, if the fallback is too slow: `{faster[1]['to']}`" if faster else ""
        return Verdict(Status.SUPPORTED, f"a use of {library}, imported optionally (try/except ImportError): it "
                       f"runs only where the import worked; on {target.id} the code's fallback runs instead{hint}",
                       _SOURCE, suggestion=faster[1]["to"] if faster else None)
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
    if info["kind"] == "monitoring":  # host-side queries of the driver: code to rewrite, no kernel to port
        tool = device_tools().get(target.id, {}).get("tools", {}).get("nvidia-smi", {}).get("to")
        instead = f" (or its `{tool}` tool)" if tool else ""
        return Verdict(Status.REWRITE, f"{info['what']} needs NVIDIA's driver; replace these queries with the "
                       f"{target.id} runtime's own{instead}, or drop them where the numbers are only logged: a "
                       "host-side rewrite, no kernel to port (the vendor data names no one-to-one call)", _SOURCE,
                       suggestion=f"the {target.id} runtime's memory/utilisation queries{instead}, or drop this")
    if info["kind"] == "compiler" and usage.api.startswith(tuple(f"{library}.{h}" for h in _COMPILER_HELPERS)):
        return Verdict(Status.REWRITE, f"`{usage.api}` is a helper of {library} (its cache, driver, compiler or "
                       "benchmark machinery), not a kernel: nothing to port; guard its import (try/except "
                       f"ImportError) or drop the code that uses it where {target.id} has no {library}", _SOURCE,
                       suggestion=f"guard the {library} import, or drop this on {target.id}")
    if info["kind"] == "compiler":
        return Verdict(Status.PORT, f"{info['what']}: Triton kernels must be ported (rewritten in plain torch ops "
                       f"or the target's kernel language); the vendor data lists no Triton backend for {target.id}",
                       _SOURCE)
    return Verdict(Status.PORT, f"{info['what']} is CUDA-only: no {target.id} equivalent in the vendor data; "
                   "use a plain PyTorch path or port the kernels", _SOURCE)


#: Parts of a kernel compiler that hold no kernel (``triton.runtime.cache.FileCacheManager``, ``triton.testing``).
_COMPILER_HELPERS = ("runtime", "compiler", "backends", "testing", "tools", "errors")


class CudaLibrary(Rule):
    """Imports and uses of CUDA-only libraries.

    ## What it does
    Finds imports, calls, decorators, subclasses and attributes of the libraries in
    `operator_maps/third_party.json`: apex, flash-attn, xformers, bitsandbytes, TransformerEngine,
    triton, NVML bindings, DeepSpeed's CUDA ops and more. Each use gets the replacement the data names
    for the target (every row checked against the vendor file it cites), or the plain-PyTorch path, or a
    `port`; NVML's driver queries are host code, a manual rewrite (the runtime's own queries or its `smi`
    tool), never a port. An import guarded by `try/except ImportError` whose handler goes on (a fallback, not a
    `raise`) is optional and is not reported; a use of such an import runs only where it worked, so it is
    `supported` (the code's fallback runs on the target).

    ## Why is this bad?
    These libraries ship CUDA kernels (or drive NVIDIA's driver): they do not install, or do not run, on
    the targets. The scanned repo's own copy of a library (scanning mmcv itself) is not reported here:
    its kernels are found as custom operators.

    ## Fix safety
    Never applied: a replacement's arguments and layout differ (`flash_attn_func` takes BSND tensors,
    `torch_npu.npu_fusion_attention` needs `head_num` and `input_layout`), so each suggestion is a manual
    rewrite to check against the mapping in its message.
    """

    name = "cuda-library"
    priority = 60
    kinds = frozenset({"import", "call", "attribute", "decorator", "subclass", "assign"})
    category = Category.THIRD_PARTY
    summary = "CUDA-only third-party libraries"
    #: libraries whose own calls are never the repo's module loaders (``load_ext('_ext')``)
    vocabulary = Vocabulary(library_roots=frozenset(
        {"apex", "flash_attn", "xformers", "triton", "deepspeed", "transformers", "timm", "mmengine"}))
    examples = (
        Invalid("from flash_attn import flash_attn_func\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.PORT)),
        # NVML queries are host code: a rewrite on every target (Ascend's data names the call), never a port
        Invalid("import pynvml\npynvml.nvmlInit()\n", expect=Status.REWRITE),
        Invalid("import triton\n@triton.jit\ndef k(x_ptr):\n    pass\n", expect=Status.PORT),
        # a triton helper class is no kernel: a manual guard, not a port
        Invalid("from triton.runtime.cache import FileCacheManager\n\n\nclass Cache(FileCacheManager):\n    pass\n",
                expect=Status.REWRITE),
        Valid("import numpy as np\nx = np.zeros(3)\n"),
        Valid("try:\n    import apex\nexcept ImportError:\n    apex = None\n"),
        # an import the handler requires is not optional
        Invalid("try:\n    from apex import amp\nexcept ImportError:\n    raise ImportError('install apex')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.PORT)),
        Valid("from mypkg.apex_utils import helper\n", files={"mypkg/__init__.py": "", "mypkg/apex_utils.py": ""}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        library = ctx.third_party.library_of(usage.api)
        if library is None or ctx.project.is_repo_module(library):
            return None  # the repo's own code (scanning mmcv itself): its kernels are found as custom ops
        verdicts = per_target(ctx, lambda t: library_verdict(t, usage, ctx, library))
        if usage.kind == "import" and usage.guarded and all(v.status == Status.SUPPORTED for v in verdicts.values()):
            return None  # an optional import with a fallback is not a finding
        return verdicts


class TritonLaunch(Rule):
    """Launches of the repo's own Triton kernels.

    ## What it does
    Finds `kernel[grid](...)` where `kernel` is a function of the repo decorated with `@triton.jit`,
    `@triton.autotune` or `@triton.heuristics`, in the same module or imported from another.

    ## Why is this bad?
    The vendor data lists no Triton backend for these targets, so the kernel does not compile there; every
    launch site needs the kernel ported or replaced with plain torch ops.

    ## Fix safety
    No automatic fix: a port. The plain-torch version of a Triton kernel is usually a few lines, but only
    its author knows which of the kernel's fusions matter.
    """

    name = "triton-launch"
    priority = 70
    kinds = frozenset({"launch"})
    category = Category.THIRD_PARTY
    summary = "launches of Triton kernels"
    vocabulary = Vocabulary(kernel_decorators=frozenset({"triton.jit", "triton.autotune", "triton.heuristics"}))
    examples = (
        Invalid("import triton\n@triton.jit\ndef add_kernel(x_ptr, n):\n    pass\n"
                "def add(x):\n    add_kernel[(1,)](x, 4)\n", expect=Status.PORT),
        Valid("import torch\nLAYERS = {'a': torch.nn.Linear}\nlayer = LAYERS['a'](2, 2)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in ctx.project.triton_kernels:
            return None
        return per_target(ctx, lambda t: Verdict(
            Status.PORT, f"launches Triton kernel `{usage.api.rsplit('.', 1)[-1]}`: port the kernel or replace the "
            "call with plain torch ops", _SOURCE))


class TorchCompile(Rule):
    """`torch.compile` on the targets.

    ## What it does
    Finds `torch.compile(...)` as a call, a decorator or a reference, and reports the vendor list's entry
    for it (which backends are supported, with their notes).

    ## Why is this bad?
    The default inductor backend generates Triton for CUDA; on the targets it needs the vendor's backend
    (`npugraphs` on Ascend) or falls back to eager, and the documented support is partial.

    ## Fix safety
    Nothing is applied: the backend choice is per model, and eager mode always works.
    """

    name = "torch-compile"
    priority = 80
    kinds = frozenset({"call", "decorator", "attribute"})
    category = Category.THIRD_PARTY
    summary = "torch.compile"
    examples = (
        Invalid("import torch\n@torch.compile\ndef f(x):\n    return x * 2\n",
                expect=dict(cann=Status.SUPPORTED, neuware=Status.UNKNOWN, kunlun=Status.UNKNOWN)),
        Valid("import torch\nm = torch.jit.script(torch.nn.Linear(2, 2))\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.api != "torch.compile" or usage.kind not in self.kinds:
            return None
        return per_target(ctx, lambda t: documented_verdict(
            t, "torch.compile", "torch.compile depends on the target's compiler backend"))


class VisionOp(Rule):
    """torchvision's detection operators.

    ## What it does
    Finds calls of `torchvision.ops` operators (`roi_align`, `RoIAlign`, `nms`, `deform_conv2d`, ...) and
    judges each by the custom-op family it belongs to (`curated/custom_op_families.yaml`, every vendor row
    checked against its upstream file): the vendor's own op where one exists (`torch_npu.npu_roi_align`),
    torchvision itself where the vendor registers its kernel (torch_mlu's torchvision list), else
    `unknown`.

    ## Why is this bad?
    torchvision registers these kernels for CUDA and the CPU only: without the vendor's kernel they run on
    the host, which is slow inside a detection head. The vendors' own ports of detection models swap them
    for the fused op.

    ## Fix safety
    A manual rewrite, never applied: argument conventions differ (box format, sampling ratio, aligned
    flag), as each suggestion's mapping says.
    """

    name = "vision-op"
    priority = 90
    kinds = frozenset({"call"})
    category = Category.OP
    summary = "torchvision detection operators"
    examples = (
        Invalid("from torchvision.ops import roi_align\ny = roi_align(x, boxes, (7, 7), 0.25, 2, True)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.SUPPORTED, kunlun=Status.UNKNOWN)),
        Invalid("import torchvision\nkeep = torchvision.ops.nms(boxes, scores, 0.5)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.SUPPORTED, kunlun=Status.UNKNOWN)),
        # per-class NMS: Ascend's batched op returns boxes, not indices; Cambricon lists only nms itself
        Invalid("from torchvision.ops import batched_nms\nkeep = batched_nms(boxes, scores, labels, 0.5)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.UNKNOWN)),
        Valid("import torchvision\nm = torchvision.models.resnet18()\n"),
        Valid("from torchvision.ops import box_area\na = box_area(boxes)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or not usage.api.startswith("torchvision.ops."):
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
                   f"on {target.id} use `{call.to}` ({call.mapping}; {call.differs})", call.source,
                   suggestion=call.to)

