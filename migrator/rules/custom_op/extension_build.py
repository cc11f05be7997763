"""The ``extension-build`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict
from ...resolve.vocabulary import Vocabulary
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import Invalid, Valid
from . import _KERNEL, _SETUP, _SOURCE, EXTENSION_BUILDERS, _port


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
    claim = Claim.PROJECT_OPERATOR
    kinds = frozenset({UsageKind.CALL})
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
