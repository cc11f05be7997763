"""Custom operators: extension builds, calls into compiled extensions, ``torch.library`` registrations,
``torch.ops.<ns>`` calls and the CUDA kernels themselves."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import Vocabulary
from .base import Rule, RuleContext, Verdicts, per_target
from .examples import Invalid, Valid

EXTENSION_BUILDERS = ("torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
                      "torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline")
_SOURCE = "migrator custom-op inventory"
_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
          "setup(name='fused', ext_modules=[CUDAExtension('fused_ops', ['csrc/fused.cu'])],\n"
          "      cmdclass={'build_ext': BuildExtension})\n")
_KERNEL = ("#include <torch/extension.h>\n\n__global__ void scale_kernel(float* x, float s, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= s;\n}\n")
_LIBRARY = ('#include <torch/library.h>\nTORCH_LIBRARY(myops, m) {\n  m.def("fused_gelu(Tensor x) -> Tensor");\n}\n')


def _port(target, what: str) -> Verdict:
    facts = target.runtime_facts
    key = f"the {facts.dispatch_key} key" if facts.dispatch_key else "the runtime's dispatch key"
    return Verdict(Status.PORT, f"{what}: rewrite its CUDA kernels in {facts.kernel_language} and register them for "
                   f"{key}; {facts.build_hint}", _SOURCE)


class ExtensionBuildRule(Rule):
    """A C++/CUDA extension the repo compiles.

    ## What it does
    Finds `CUDAExtension(...)`, `CppExtension(...)`, `cpp_extension.load(...)` and `load_inline(...)`, in
    `setup.py` or at run time, and records the extension's module name and sources for the custom-op
    inventory: its kernels, registrations, Python wrappers and call sites are joined to it across files.

    ## Why is this bad?
    CUDA sources compile only with nvcc for NVIDIA GPUs: every target needs the kernels rewritten in its
    own kernel language (Ascend C, BANG C, XPU kernels) and registered for its dispatch key, with the
    vendor's build helper. A C++-only extension builds, but its ops run on the host CPU, so device tensors
    are copied there and back (`fallback`).

    ## Fix safety
    No automatic fix: a port. The report's custom-op section gives a port plan per target (kernel lines,
    effort, the build change, a registration skeleton) and names a vendor op where the family is known.
    """

    name = "extension-build"
    priority = 10
    kinds = frozenset({"call"})
    category = Category.CUSTOM_OP
    summary = "C++/CUDA extension builds"
    vocabulary = Vocabulary(text_arguments=frozenset(EXTENSION_BUILDERS), module_loaders=frozenset(
        {"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"}))
    examples = (
        Invalid(_SETUP, path="setup.py", files={"csrc/fused.cu": _KERNEL}, expect=Status.PORT),
        Invalid("from torch.utils import cpp_extension\nmod = cpp_extension.load(name='rms', sources=['rms.cu'])\n",
                expect=Status.PORT),
        Invalid("from torch.utils.cpp_extension import CppExtension\next = CppExtension('cpu_ops', ['csrc/ops.cpp'])\n",
                expect=Status.FALLBACK),
        Valid("from setuptools import Extension, setup\nsetup(ext_modules=[Extension('speedups', ['speedups.c'])])\n",
              path="setup.py"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in EXTENSION_BUILDERS:
            return None
        sources = [a.value.text or "" for a in usage.args]
        cuda = usage.api.endswith("CUDAExtension") or any(".cu" in s for s in sources) or \
            any(a.keyword in ("cuda_sources",) for a in usage.args)
        if usage.api.endswith("CppExtension") or (not cuda and usage.api.endswith("load_inline")):
            return per_target(ctx, lambda t: Verdict(
                Status.FALLBACK, "C++ (CPU) extension: its ops run on the host CPU, so device tensors are copied "
                "there and back; register a device kernel to keep them on the device", _SOURCE))
        return per_target(ctx, lambda t: _port(t, "compiled CUDA extension"))


class ExtensionCall(Rule):
    """A call into one of the repo's compiled CUDA extensions.

    ## What it does
    Finds imports, attributes and calls of a module the repo builds as an extension, joined by its module
    name across files: `import fused_ops` then `fused_ops.forward(x)`, `from fastops import _C`, a module
    returned by `cpp_extension.load(name=...)`, and the repo's own loader helpers (`load_ext('_ext', ...)`).

    ## Why is this bad?
    The call lands in CUDA kernels that do not exist on the target until the extension is ported; each call
    site is a place the port must keep working, and a reason to look for a vendor op that does the same.

    ## Fix safety
    No automatic fix: the call stays as it is once the extension is ported under the same name, or moves to
    the vendor op the custom-op plan names (`torch_npu.npu_rms_norm`), whose arguments may differ.
    """

    name = "extension-call"
    priority = 20
    kinds = frozenset({"call", "import", "attribute"})
    category = Category.CUSTOM_OP
    summary = "calls into compiled CUDA extensions"
    examples = (
        # nothing in this file names torch or CUDA: only the build in setup.py says `fused_ops` is an extension
        Invalid("import fused_ops\n\ndef scale(x):\n    return fused_ops.scale(x, 2.0)\n",
                files={"setup.py": _SETUP, "csrc/fused.cu": _KERNEL}, expect=Status.PORT),
        Invalid("from torch.utils.cpp_extension import load\nwarp = load(name='warp', sources=['warp.cu'])\n"
                "y = warp.forward(1)\n", expect=Status.PORT),
        Valid("import other_ops\ny = other_ops.scale(1)\n", files={"setup.py": _SETUP}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        extension = ctx.project.extension_of(usage.api)
        if extension is None:
            return None
        build = ctx.project.extensions[extension]
        what = f"uses `{usage.api}` from the compiled extension `{extension}` (built at {build.path}:{build.span.line})"
        if build.api.endswith("CppExtension"):
            return per_target(ctx, lambda t: Verdict(Status.FALLBACK, f"{what}: a CPU extension; its ops run on "
                                                     "the host", _SOURCE))
        return per_target(ctx, lambda t: _port(t, what))


class TorchOpsCall(Rule):
    """A call of a custom op the repo registers in C++.

    ## What it does
    Finds `torch.ops.<ns>.<op>(...)` where `<ns>` is a namespace a C++ or CUDA file of the repo defines with
    `TORCH_LIBRARY(<ns>, m)`. Namespaces the repo does not define (`torch.ops.aten`, a library's ops) are
    left to the other rules.

    ## Why is this bad?
    The op's kernels are registered for CUDA: on the target the dispatcher finds no kernel for the device
    and the call raises, until the op is registered for the target's dispatch key.

    ## Fix safety
    No automatic fix: the call itself needs no change once the op is registered for the target; the port is
    in the C++ (see `cuda-kernel` and the custom-op plan).
    """

    name = "torch-ops-call"
    priority = 30
    kinds = frozenset({"call"})
    category = Category.CUSTOM_OP
    summary = "calls of custom ops registered with TORCH_LIBRARY"
    examples = (
        Invalid("import torch\ny = torch.ops.myops.fused_gelu(torch.ones(3))\n", files={"csrc/ops.cpp": _LIBRARY},
                expect=Status.PORT),
        Valid("import torch\ny = torch.ops.aten.relu(torch.ones(3))\n", files={"csrc/ops.cpp": _LIBRARY}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        parts = usage.api.split(".")
        if usage.kind not in self.kinds or len(parts) < 4 or parts[:2] != ["torch", "ops"]:
            return None
        if parts[2] not in ctx.project.library_namespaces:
            return None
        return per_target(ctx, lambda t: _port(t, f"custom op `{parts[2]}::{parts[3]}` registered in the repo's C++"))


class TorchLibraryCuda(Rule):
    """A Python `torch.library` registration for the CUDA dispatch key.

    ## What it does
    Finds `torch.library.impl('ns::op', 'CUDA')`, `Library(...).impl(name, fn, 'CUDA')`,
    `torch.library.custom_op(..., device_types='cuda')` and `register_kernel(..., 'cuda')`.

    ## Why is this bad?
    The implementation is registered for CUDA only, so on the target the op has no kernel for its device
    and raises. The Python implementation itself usually runs unchanged: only the key is wrong. Where the
    public data does not say which key the runtime uses (Kunlunxin), the verdict is `unknown`.

    ## Fix safety
    A suggestion, not applied by `fix`: registering for the target's key (`PrivateUse1`, or the device
    name for `device_types`) is exact for the registration, but the implementation may call CUDA-only code
    that the other rules report.
    """

    name = "torch-library-cuda"
    priority = 40
    kinds = frozenset({"call", "decorator"})
    category = Category.CUSTOM_OP
    summary = "torch.library registrations for CUDA"
    vocabulary = Vocabulary(instance_methods=frozenset({"torch.library.Library.impl"}))
    examples = (
        Invalid("import torch\n@torch.library.custom_op('mylib::f', mutates_args=(), device_types='cuda')\n"
                "def f(x: torch.Tensor) -> torch.Tensor:\n    return x\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.UNKNOWN)),
        Invalid("import torch\nlib = torch.library.Library('mylib', 'IMPL')\n\ndef f_cuda(x):\n    return x\n\n"
                "lib.impl('f', f_cuda, 'CUDA')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.UNKNOWN)),
        Valid("import torch\n@torch.library.impl('mylib::f', 'CPU')\ndef f(x):\n    return x\n"),
        Valid("import torch\nlib = torch.library.Library('mylib', 'IMPL')\nlib.impl('f', lambda x: x, 'CPU')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if not usage.api.startswith("torch.library.") or usage.kind not in self.kinds:
            return None
        key = next((a.value.text for a in usage.args if a.value.kind == "str" and a.value.text in ("CUDA", "cuda")),
                   None)
        if key is None:
            return None

        def verdict(target) -> Verdict:
            dispatch_key = target.runtime_facts.dispatch_key
            if dispatch_key is None:
                return Verdict(Status.UNKNOWN, f"a CUDA-key registration; {target.runtime_facts.dispatch_note}",
                               target.device_source)
            new = dispatch_key if key == "CUDA" else target.device_to
            return Verdict(Status.REWRITE, f"register for '{new}' instead of '{key}' ({target.id} is the "
                                           f"{dispatch_key} "
                           f"backend '{target.device_to}'); the Python implementation itself runs unchanged",
                           target.device_source, suggestion=usage.snippet.replace(f"'{key}'", f"'{new}'")
                           .replace(f'"{key}"', f'"{new}"'))
        return per_target(ctx, verdict)


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
    priority = 50
    kinds = frozenset({"kernel"})
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
