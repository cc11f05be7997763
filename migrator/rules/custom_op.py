"""Custom operators: extension builds, calls into compiled extensions, ``torch.library`` registrations,
``torch.ops.<ns>`` calls and the CUDA kernels themselves."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Status, Usage, Verdict
from ..resolve.vocabulary import Vocabulary
from .base import Rule, RuleContext, Verdicts, per_target

EXTENSION_BUILDERS = ("torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
                      "torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline")
_SOURCE = "migrator custom-op inventory"


def _port(target, what: str) -> Verdict:
    facts = target.runtime_facts
    key = f"the {facts.dispatch_key} key" if facts.dispatch_key else "the runtime's dispatch key"
    return Verdict(Status.PORT, f"{what}: rewrite its CUDA kernels in {facts.kernel_language} and register them for "
                   f"{key}; {facts.build_hint}", _SOURCE)


class ExtensionBuild(Rule):
    """``CUDAExtension(...)`` / ``load(...)`` / ``load_inline(...)``: a compiled extension of the repo."""

    name = "extension-build"
    priority = 10
    category = Category.CUSTOM_OP
    summary = "C++/CUDA extension builds"
    vocabulary = Vocabulary(text_arguments=frozenset(EXTENSION_BUILDERS), module_loaders=frozenset(
        {"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"}))
    INVALID = (
        "from torch.utils.cpp_extension import CUDAExtension\n"
        "ext = CUDAExtension('fused_ops', ['csrc/fused.cu'])\n",
        "from torch.utils import cpp_extension\nmod = cpp_extension.load(name='rms', sources=['rms.cu'])\n",
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "call" or usage.api not in EXTENSION_BUILDERS:
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
    """A call into a compiled extension of the repo (joined by the extension's module name)."""

    name = "extension-call"
    priority = 20
    category = Category.CUSTOM_OP
    summary = "calls into compiled CUDA extensions"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in ("call", "import", "attribute"):
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
    """``torch.ops.<ns>.<op>(...)`` for a namespace the repo registers in C++ (``TORCH_LIBRARY``)."""

    name = "torch-ops-call"
    priority = 30
    category = Category.CUSTOM_OP
    summary = "calls of custom ops registered with TORCH_LIBRARY"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        parts = usage.api.split(".")
        if usage.kind != "call" or len(parts) < 4 or parts[:2] != ["torch", "ops"]:
            return None
        if parts[2] not in ctx.project.library_namespaces:
            return None
        return per_target(ctx, lambda t: _port(t, f"custom op `{parts[2]}::{parts[3]}` registered in the repo's C++"))


class TorchLibraryCuda(Rule):
    """``torch.library`` registrations for the CUDA key: ``impl(..., 'CUDA')``, ``device_types='cuda'``."""

    name = "torch-library-cuda"
    priority = 40
    category = Category.CUSTOM_OP
    summary = "torch.library registrations for CUDA"
    INVALID = ("import torch\n@torch.library.custom_op('mylib::f', mutates_args=(), device_types='cuda')\n"
               "def f(x: torch.Tensor) -> torch.Tensor:\n    return x\n",)

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if not usage.api.startswith("torch.library.") or usage.kind not in ("call", "decorator"):
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
            return Verdict(Status.REWRITE, f"register for '{new}' instead of '{key}' ({target.id} is the {dispatch_key} "
                           f"backend '{target.device_to}'); the Python implementation itself runs unchanged",
                           target.device_source, suggestion=usage.snippet.replace(f"'{key}'", f"'{new}'")
                           .replace(f'"{key}"', f'"{new}"'))
        return per_target(ctx, verdict)


class CudaKernel(Rule):
    """A ``__global__`` kernel in a ``.cu`` file: needs a port on every target."""

    name = "cuda-kernel"
    priority = 50
    category = Category.CUSTOM_OP
    summary = "CUDA kernels"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "kernel":
            return None
        return per_target(ctx, lambda t: _port(t, f"CUDA kernel `{usage.api.rsplit('::', 1)[-1]}` "
                                               f"({usage.context})"))
