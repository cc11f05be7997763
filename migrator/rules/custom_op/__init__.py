"""Custom operators: extension builds, calls into compiled extensions, ``torch.library`` registrations,
``torch.ops.<ns>`` calls and the CUDA kernels themselves.
"""


from __future__ import annotations

from ...model import Status, Usage, Verdict
from ...resolve.modules import AVAILABLE_ONLY
from ...sources.cmake import CMAKE_BUILDERS
from ..base import runs_on_a_note

#: what builds a C++/CUDA extension: torch's builders, and a CMake file's CUDA library (``sources/cmake.py``)
EXTENSION_BUILDERS = ("torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
                      "torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline", *CMAKE_BUILDERS)


_SOURCE = "migrator custom-op inventory"


_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
          "setup(name='fused', ext_modules=[CUDAExtension('fused_ops', ['csrc/fused.cu'])],\n"
          "      cmdclass={'build_ext': BuildExtension})\n")


_KERNEL = ("#include <torch/extension.h>\n\n__global__ void scale_kernel(float* x, float s, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= s;\n}\n")


def _port_where_called(target, usage: Usage, what: str) -> Verdict:
    """``_port``, except for a call the code makes only where a test finds the build (``AVAILABLE_ONLY``): on the
    target the test fails and the code's other way runs; a port is a speed-up there, to weigh, not work."""
    if usage.context != AVAILABLE_ONLY:
        return _port(target, what)
    return runs_on_a_note(f"{what}, called only where the test above it finds the build (an availability test "
                          f"with another way): on {target.id} the test fails and the code's other way runs; porting "
                          "the kernel is a speed-up to weigh, not work", _SOURCE)


def _port(target, what: str) -> Verdict:
    facts = target.runtime_facts
    key = f"the {facts.dispatch_key} key" if facts.dispatch_key else "the runtime's dispatch key"
    return Verdict(Status.PORT, f"{what}: rewrite its CUDA kernels in {facts.kernel_language} and register them for "
                   f"{key}; {facts.build_hint}", _SOURCE)
