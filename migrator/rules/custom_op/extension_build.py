"""The ``extension-build`` rule."""

from __future__ import annotations

import re
from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict
from ...resolve.modules import OPTIONAL_BUILD
from ...resolve.vocabulary import Vocabulary
from ..base import Claim, Rule, RuleContext, Verdicts, per_target, runs_on_a_note
from ..examples import Invalid, Valid
from ...sources.cmake import CMAKE_BUILDERS
from . import _KERNEL, _SETUP, _SOURCE, EXTENSION_BUILDERS, _port


#: a C++ source with one host function, for the examples
_CPU_OP = "#include <torch/extension.h>\n\ntorch::Tensor twice(torch::Tensor x) { return x * 2; }\n"
#: a CUDA source file named in a sources expression (``'csrc/ln_kernel.cu'``, ``"*.cu"``), not ``.cuh`` or ``.cpp``
_CUDA_SOURCE = re.compile(r"\.cu\b(?!h)")


class ExtensionBuildRule(Rule):
    """A C++/CUDA extension the repo compiles.

    ## What it does
    Finds `CUDAExtension(...)`, `CppExtension(...)`, `cpp_extension.load(...)` and `load_inline(...)`, in
    `setup.py` or at run time in any module, and a CMake file's CUDA library (`add_library` /
    `pybind11_add_module` with a `.cu` source, `cuda_add_library`; `enable_language(CUDA)` in a file that
    builds none: `sources/cmake.py`), and records the extension's module name and sources for the custom-op
    inventory: its kernels, registrations, Python wrappers and call sites are joined to it across files.
    A builder is judged by its sources, not its name: a `.cu` source compiles with nvcc (a `CppExtension`
    that lists one is a CUDA extension), and a `load(...)` of C++ sources only builds for the CPU.

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
                files={"rms.cu": _KERNEL}, expect=Status.PORT),
        Invalid("from torch.utils.cpp_extension import CppExtension\next = CppExtension('cpu_ops', ['csrc/ops.cpp'])\n",
                files={"csrc/ops.cpp": _CPU_OP}, expect=Status.FALLBACK),
        # a .cu source compiles with nvcc whatever the builder is called: a CUDA extension
        Invalid("from torch.utils.cpp_extension import CppExtension\n"
                "ext = CppExtension('gelu', sources=['csrc/gelu.cpp', 'csrc/gelu_kernel.cu'])\n",
                files={"csrc/gelu.cpp": _CPU_OP, "csrc/gelu_kernel.cu": _KERNEL}, expect=Status.PORT),
        # a build of sources the repository does not ship (BasicSR's setup.py in Restormer): nothing to port
        Invalid("from torch.utils import cpp_extension\nmod = cpp_extension.load(name='rms', sources=['rms.cu'])\n",
                expect=Status.REWRITE),
        Invalid("cmake_minimum_required(VERSION 3.18)\nproject(fused LANGUAGES CXX CUDA)\n"
                "add_library(fused SHARED fused.cpp fused_kernel.cu)\n", path="CMakeLists.txt",
                files={"fused_kernel.cu": _KERNEL}, expect=Status.PORT),
        Valid("project(cpu_ops LANGUAGES CXX)\n# CUDA builds live in ../gpu (enable_language(CUDA) there)\n"
              "add_library(cpu_ops SHARED ops.cpp)\n", path="CMakeLists.txt"),
        Valid("from setuptools import Extension, setup\nsetup(ext_modules=[Extension('speedups', ['speedups.c'])])\n",
              path="setup.py"),
        # a run-time build the code does without where it fails (peft's BOFT falls back to torch.block_diag)
        Invalid("import warnings\nfrom torch.utils.cpp_extension import load\ntry:\n"
                "    fbd = load(name='fbd_cuda', sources=['fbd.cpp', 'fbd_kernel.cu'])\n"
                "except Exception as e:\n    warnings.warn(f'no extension: {e}')\n    fbd = None\n",
                expect=Status.SUPPORTED),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in EXTENSION_BUILDERS:
            return None
        sources = [a.value.text or "" for a in usage.args]
        # a CUDA source compiles with nvcc whichever builder names it (BuildExtension sends every ``.cu`` there):
        # ``CppExtension('x', ['x.cpp', 'x_kernel.cu'])`` is a CUDA extension; ``with_cuda=True`` asks for CUDA
        cuda = usage.api.endswith("CUDAExtension") or usage.api in CMAKE_BUILDERS or \
            any(_CUDA_SOURCE.search(s) for s in sources) or any(a.keyword in ("cuda_sources",) for a in usage.args) or \
            any(a.keyword == "with_cuda" and a.value.text == "True" for a in usage.args)
        if usage.context == OPTIONAL_BUILD and usage.api in self.vocabulary.module_loaders:
            # peft's BOFT: ``try: fbd_cuda = load(...) except Exception: warn(...); fbd_cuda = None``: where the
            # build fails (no nvcc on the target) the code takes its own fallback, as an optional import does; the
            # loader's own entry in the vendor's API list (Ascend's says no) is that failure, taken care of
            return per_target(ctx, lambda t: runs_on_a_note(
                "a run-time build under a `try` whose handler goes on: where it fails, as without nvcc on "
                f"{t.id}'s machines, the code goes on without it; check that its callers take their other way there "
                "(porting the extension is then for speed)", _SOURCE))
        if not cuda:
            return per_target(ctx, lambda t: Verdict(
                Status.FALLBACK, "C++ (CPU) extension: its ops run on the host CPU, so device tensors are copied "
                "there and back; register a device kernel to keep them on the device", _SOURCE))
        return per_target(ctx, lambda t: _port(t, "compiled CUDA extension"))
