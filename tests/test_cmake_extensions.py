"""CUDA extensions built outside setup.py: a CMake file's CUDA library (sources/cmake.py), a CppExtension whose
sources hold a .cu file (nvcc compiles it), a JIT load(...) anywhere; and the traps: a CPU-only build."""
import time

import pytest

from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan
from migrator.sources.cmake import CMAKE_CUDA, CMAKE_LIBRARY, read_cmake

from .conftest import write_tree

CMAKE = {
    "a-cu-source": ("project(fused LANGUAGES CXX)\nenable_language(CUDA)\n"
                    "add_library(fused SHARED fused.cpp fused_kernel.cu)\n", [(CMAKE_LIBRARY, 3, "fused")]),
    "through-variables": ("set(SRCS a.cpp)\nlist(APPEND SRCS\n  ${CMAKE_CURRENT_SOURCE_DIR}/b.cu)\n"
                          "pybind11_add_module(_ops MODULE ${SRCS})\n", [(CMAKE_LIBRARY, 4, "_ops")]),
    "a-glob": ('file(GLOB KERNELS "csrc/*.cu")\nadd_library(k STATIC main.cpp)\ntarget_sources(k PRIVATE ${KERNELS})\n',
               [(CMAKE_LIBRARY, 2, "k")]),
    "find-cuda-macro": ("find_package(CUDA REQUIRED)\ncuda_add_library(old_ops ops.cpp)\n",
                        [(CMAKE_LIBRARY, 2, "old_ops")]),
    "cuda-on-no-library-here": ("#[[ a block\ncomment ]]\nproject(x LANGUAGES CXX CUDA)\nadd_subdirectory(src)\n",
                                [(CMAKE_CUDA, 3, None)]),
    # traps: CUDA only in a comment, a CPU-only library, a string
    "cpu-only": ("project(cpu LANGUAGES CXX)\n# CUDA is optional: see docs (enable_language(CUDA))\n"
                 'message(STATUS "no cuda here: add_library(x y.cu)")\nadd_library(cpuk SHARED cpuk.cpp)\n', []),
}


@pytest.mark.parametrize("text, expected", list(CMAKE.values()), ids=list(CMAKE))
def test_cmake_cuda_libraries(text, expected):
    usages = read_cmake(text)
    found = [(u.api, u.span.line, u.args[0].value.text if u.args else None) for u in usages]
    assert found == expected


def test_cmake_reader_is_linear_and_bounded():
    started = time.process_time()
    read_cmake("set(A x.cu)\n" + "set(A ${A} ${A})\n" * 40 + "add_library(a ${A})\n" + "f(\n" * 50_000 + '"' * 1000)
    assert time.process_time() - started < 5.0


def test_builds_outside_setup_py_are_ports_and_a_cpu_build_is_not(tmp_path):
    kernel = "#include <torch/extension.h>\n__global__ void k(float* x) { x[0] = 1; }\n"
    write_tree(tmp_path, {
        "kern/CMakeLists.txt": CMAKE["a-cu-source"][0], "kern/fused_kernel.cu": kernel, "kern/fused.cpp": "int f();\n",
        "ops/ext.py": "from torch.utils.cpp_extension import CppExtension\n"
                      "ext = CppExtension('gelu', sources=['gelu.cpp', 'gelu_kernel.cu'])\n",
        "ops/gelu_kernel.cu": kernel, "ops/gelu.cpp": "int g();\n",
        "cpu/build.py": "from torch.utils.cpp_extension import load\ntree = load(name='tree', sources=['tree.cpp'])\n",
        "cpu/tree.cpp": "int t();\n", "cpu/CMakeLists.txt": CMAKE["cpu-only"][0]})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    builds = {f.path: f.verdicts["cann"].status for f in report.judged if f.rule == "extension-build"}
    assert builds == {"kern/CMakeLists.txt": Status.PORT, "ops/ext.py": Status.PORT, "cpu/build.py": Status.FALLBACK}
    ops = {op.name: op.files for op in report.custom_ops}
    assert ops["fused"] == ("kern/fused.cpp", "kern/fused_kernel.cu")
    kernel_root = next(f.root for f in report.judged if f.path == "kern/fused_kernel.cu")
    assert kernel_root == next(f.id for f in report.judged if f.path == "kern/CMakeLists.txt")


def test_a_library_named_by_the_project_is_not_named_by_its_type():
    # torch-cluster: add_library(${PROJECT_NAME} SHARED ...) after project(torchcluster)
    text = "project(torchcluster)\nfile(GLOB SRCS csrc/*.cu)\nadd_library(${PROJECT_NAME} SHARED ${SRCS} k.cu)\n"
    (usage,) = read_cmake(text)
    assert usage.snippet.startswith("add_library(torchcluster ") and "SHARED" not in usage.snippet
