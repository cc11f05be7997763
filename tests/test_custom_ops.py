"""Custom operators: one inventory entry ties build, kernels, registrations, wrapper and call sites."""
import pytest

from migrator.maps.load import resolve_targets
from migrator.model import Category, Context, Status
from migrator.pipeline import ScanRequest, scan
from migrator.sources.cuda import read_cuda

from .conftest import REPO, by_rule

KERNEL = r"""
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
// __global__ void commented_out(float* x) {}
const char* doc = "__global__ void in_a_string() {}";

__global__ void __launch_bounds__(256) scale_kernel(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] *= s;
  }
}

template <typename T>
__global__ void add_kernel(const T* a, const T* b, T* out, int n);

void scale(torch::Tensor x, double s) {
  scale_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), s, x.numel());
}
"""

BINDING = r"""
#include <torch/extension.h>
void scale(torch::Tensor x, double s);
torch::Tensor fused_gelu(const torch::Tensor& input, bool approximate) {
  return input;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scale", &scale, "scale in place");
  m.def("fused_gelu", &fused_gelu);
}
TORCH_LIBRARY(myops, m) {
  m.def("fused_gelu(Tensor input, bool approximate) -> Tensor");
}
TORCH_LIBRARY_IMPL(myops, CUDA, m) {
  m.impl("fused_gelu", &fused_gelu);
}
"""


def test_cuda_reader_finds_kernels_registrations_and_ignores_comments():
    facts = read_cuda(KERNEL)
    assert [(k.name, k.line, k.lines) for k in facts.kernels] == [("scale_kernel", 7, 6)]
    assert facts.launches == 1
    assert facts.cuda_includes == ("ATen/cuda/CUDAContext.h", "cuda_runtime.h")
    binding = read_cuda(BINDING)
    regs = {(r.kind, r.name, r.namespace) for r in binding.registrations}
    assert regs == {("pybind11", "scale", "TORCH_EXTENSION_NAME"), ("pybind11", "fused_gelu", "TORCH_EXTENSION_NAME"),
                    ("torch_library", "fused_gelu", "myops"), ("torch_library_impl", "fused_gelu", "CUDA")}
    signatures = {r.name: r.signature for r in binding.registrations if r.kind == "pybind11"}
    assert signatures["fused_gelu"] == "torch::Tensor fused_gelu(const torch::Tensor& input, bool approximate)"


def test_extension_joined_end_to_end(scan_tree):
    report = scan_tree({
        "setup.py": ("from setuptools import setup\n"
                     "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                     "setup(name='x', ext_modules=[CUDAExtension('fastops._C', ['csrc/bind.cpp', 'csrc/k.cu'])])\n"),
        "csrc/k.cu": KERNEL, "csrc/bind.cpp": BINDING,
        "fastops/__init__.py": "",
        "fastops/ops.py": ("import torch\nfrom fastops import _C\n\n"
                           "class Scale(torch.autograd.Function):\n"
                           "    @staticmethod\n    def forward(ctx, x, s):\n        _C.scale(x, s)\n        return "
                           "x\n\n"
                           "def gelu(x):\n    return torch.ops.myops.fused_gelu(x, True)\n"),
        "train.py": "import torch\nfrom fastops.ops import Scale\ny = Scale.apply(torch.ones(3), 2.0)\n",
    })
    [op] = [o for o in report.custom_ops if o.name == "fastops._C"]
    assert op.files == ("csrc/bind.cpp", "csrc/k.cu")
    assert [k.name for k in op.kernels] == ["scale_kernel"] and op.kernel_lines == 6
    assert {r.name for r in op.registrations} == {"scale", "fused_gelu"}
    assert op.wrappers == ("fastops.ops.Scale",)
    assert ("fastops/ops.py", 7) in op.call_sites
    assert by_rule(report.findings, "torch-ops-call")[0].verdicts["cann"].status == Status.PORT
    kernel = by_rule(report.findings, "cuda-kernel")[0]
    assert kernel.path == "csrc/k.cu" and kernel.span.line == 7
    assert all(v.status == Status.PORT for v in by_rule(report.findings, "extension-build")[0].verdicts.values())


def test_load_inline_and_jit_load(scan_tree):
    findings = scan_tree({"mod.py": (
        "from torch.utils.cpp_extension import load, load_inline\n"
        "ext = load(name='warp', sources=['warp.cu'])\n"
        "out = ext.warp_forward(1)\n"
        "cpu = load_inline(name='cpu_only', cpp_sources=['int f() { return 1; }'], functions=['f'])\n"),
        "warp.cu": "__global__ void warp_forward_kernel(float* x) { x[0] = 1; }\n"}).judged
    builds = by_rule(findings, "extension-build")
    assert [b.verdicts["cann"].status for b in builds] == [Status.PORT, Status.FALLBACK]
    calls = by_rule(findings, "extension-call")
    assert [c.api for c in calls] == ["warp.warp_forward"]


def test_torch_library_cuda_registration(scan_code):
    findings = scan_code("import torch\nlib = torch.library.Library('mylib', 'DEF')\n"
                         "@torch.library.impl('mylib::f', 'CUDA')\ndef f_cuda(x):\n    return x\n")
    [hit] = by_rule(findings, "torch-library-cuda")
    # a registration to add beside CUDA's, never in its place (spikingjelly's and matgl's kernels stay CUDA's)
    assert hit.verdicts["cann"].suggestion == "torch.library.impl('mylib::f', 'PrivateUse1')"
    assert "keep the registration for 'CUDA'" in hit.verdicts["cann"].message
    assert hit.verdicts["cann"].edit is None and not hit.verdicts["cann"].fixable


def test_example_project_inventory():
    report = scan(ScanRequest(REPO / "examples", resolve_targets(None), jobs=1))
    [op] = report.custom_ops
    assert op.name == "model._fused_rmsnorm"
    assert [k.name for k in op.kernels] == ["rmsnorm_forward_kernel", "rmsnorm_backward_kernel"]
    assert op.wrappers == ("llm_trainer.model.rmsnorm.FusedRMSNormFunction",)
    assert {r.name for r in op.registrations} == {"forward", "backward"}
    assert len(op.call_sites) == 3


def test_mmcv_style_build_loader_and_headers(scan_tree):
    """The shape of mmcv: the builder chosen per branch, sources by glob, kernels in included .cuh headers,
    and Python reaching the module through a repo helper (``ext_loader.load_ext('_ext', [...])``)."""
    report = scan_tree({
        "setup.py": (
            "import glob\nfrom setuptools import setup\n"
            "def get_extensions():\n"
            "    ext_name = 'mmlib._ext'\n"
            "    from torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
            "    if use_cuda():\n"
            "        op_files = glob.glob('./mmlib/csrc/pytorch/*.cpp') + glob.glob('./mmlib/csrc/pytorch/cuda/*.cu')\n"
            "        extension = CUDAExtension\n"
            "    else:\n"
            "        op_files = glob.glob('./mmlib/csrc/pytorch/*.cpp')\n"
            "        extension = CppExtension\n"
            "    return [extension(name=ext_name, sources=op_files)]\n"),
        "mmlib/__init__.py": "",
        "mmlib/csrc/common/cuda/nms_cuda_kernel.cuh": KERNEL.replace("scale_kernel", "nms_kernel"),
        "mmlib/csrc/pytorch/cuda/nms_cuda.cu": '#include "nms_cuda_kernel.cuh"\nvoid nms_impl() {}\n',
        "mmlib/csrc/pytorch/pybind.cpp": 'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def("nms", &nms);\n}\n',
        "mmlib/utils/__init__.py": "from .ext_loader import load_ext\n",
        "mmlib/utils/ext_loader.py": "import importlib\ndef load_ext(name, funcs):\n"
                                     "    return importlib.import_module('mmlib.' + name)\n",
        "mmlib/ops/__init__.py": "from .nms import nms\n",
        "mmlib/ops/nms.py": ("import torch\nfrom ..utils import ext_loader\n"
                             "ext_module = ext_loader.load_ext('_ext', ['nms'])\n"
                             "def nms(boxes, scores):\n    return ext_module.nms(boxes, scores)\n"),
        "tools/train.py": "import torch\nfrom mmlib.ops import nms\nkeep = nms(torch.ones(3, 4), torch.ones(3))\n",
    })
    [op] = report.custom_ops
    assert op.name == "mmlib._ext" and op.build.api.endswith("CUDAExtension")
    assert "mmlib/csrc/common/cuda/nms_cuda_kernel.cuh" in op.files
    assert [k.name for k in op.kernels] == ["nms_kernel"]
    assert ("mmlib/ops/nms.py", 5) in op.call_sites
    assert not by_rule(report.findings, "cuda-library")  # the repo's own mmlib.ops is not a third-party library


def test_torchvision_detection_ops_get_the_vendor_op_with_its_source(scan_code):
    from migrator.maps.load import op_families

    findings = scan_code("import torchvision\nfrom torchvision.ops import RoIAlign\n"
                         "keep = torchvision.ops.nms(boxes, scores, 0.5)\nhead = RoIAlign((7, 7), 0.25, 2)\n"
                         "m = torchvision.models.resnet18()\n")
    ops = {f.api: f for f in by_rule(findings, "vision-op")}
    assert set(ops) == {"torchvision.ops.nms", "torchvision.ops.RoIAlign"}  # a model constructor is not an op
    families = {f.name: f for f in op_families()}
    for api, family in (("torchvision.ops.nms", "nms"), ("torchvision.ops.RoIAlign", "roi_align")):
        cann = ops[api].verdicts["cann"]
        # torch_npu's fallback for every operator it has no kernel for runs torchvision's on the host: slow, not
        # broken; the vendor's op is what runs it on the card
        assert cann.status == Status.FALLBACK and cann.suggestion == families[family].targets["cann"].to
        assert "VariableFallbackKernel.cpp" in cann.source
        # the upstream file the row was checked in
        assert cann.source.startswith(families[family].targets["cann"].source)
        assert ops[api].verdicts["neuware"].status == Status.SUPPORTED  # torch_mlu's torchvision list
        assert ops[api].verdicts["kunlun"].status == Status.UNKNOWN


_GLOB_SETUP = """\
import glob
from os import path
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension

def get_extensions():
    extensions_dir = path.join(path.dirname(path.abspath(__file__)), "{pkg}", "layers", "csrc")
    sources = glob.glob(path.join(extensions_dir, "**", "*.cpp"))
    source_cuda = glob.glob(path.join(extensions_dir, "**", "*.cu"))
    sources += source_cuda
    return [CUDAExtension("{pkg}._C", sources)]

setup(name="{pkg}", ext_modules=get_extensions())
"""
_VISION = ('#include <torch/extension.h>\nTORCH_LIBRARY({ns}, m) {{\n  m.def("{fn}(Tensor x) -> Tensor");\n}}\n'
           'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{}}\n')
_CU = "#include <cuda.h>\n__global__ void {fn}_kernel(float* x) {{ x[0] = 0; }}\n"


def test_a_globbed_extension_takes_its_own_folder_not_a_nested_project_or_a_deploy_example(tmp_path):
    """detectron2's shape: the root setup.py globs ``**/*.cpp`` from a folder variable and adds the ``.cu``
    files through another variable; a project below has its own setup.py; ``tools/deploy`` has a C++ file
    that is no part of either. ``torch.ops.<namespace>`` calls are the op's call sites."""
    from .conftest import write_tree

    write_tree(tmp_path, {
        "setup.py": _GLOB_SETUP.format(pkg="dtr"),
        "dtr/__init__.py": "",
        "dtr/layers/csrc/vision.cpp": _VISION.format(ns="dtr", fn="nms_rotated"),
        "dtr/layers/csrc/nms/nms_cpu.cpp": "#include <torch/extension.h>\nint nms_cpu() { return 0; }\n",
        "dtr/layers/csrc/nms/nms_cuda.cu": _CU.format(fn="nms"),
        "dtr/layers/nms.py": "import torch\n\ndef nms_rotated(x):\n    return torch.ops.dtr.nms_rotated(x)\n",
        "projects/tm/setup.py": _GLOB_SETUP.format(pkg="tm"),
        "projects/tm/tm/layers/csrc/vision.cpp": _VISION.format(ns="tm", fn="swap"),
        "projects/tm/tm/layers/csrc/swap/swap_cuda.cu": _CU.format(fn="swap"),
        "tools/deploy/run_model.cpp": "#include <torch/script.h>\nint main() { return 0; }\n",
    })
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    ops = {op.name: op for op in report.custom_ops}
    assert set(ops) == {"dtr._C", "tm._C"}
    assert [k.name for k in ops["dtr._C"].kernels] == ["nms_kernel"]
    assert [k.name for k in ops["tm._C"].kernels] == ["swap_kernel"]
    assert not any(f.startswith(("projects/", "tools/")) for f in ops["dtr._C"].files)
    assert ops["dtr._C"].call_sites == (("dtr/layers/nms.py", 4),)
    members = [f for f in report.findings if f.category.value == "custom-op" and f.path.startswith("dtr/")]
    (build,) = [f for f in report.findings if f.rule == "extension-build" and f.path == "setup.py"]
    assert members and {f.root for f in members} == {build.id}


_MMCV_SETUP = """\
import os
from setuptools import setup


def get_extensions():
    if os.getenv("FORCE_NPU", "0") == "1":
        from torch_npu.utils.cpp_extension import NpuExtension
        extension = NpuExtension
        op_files = ["mmx/ops/csrc/pytorch/npu/nms_npu.cpp"]
    else:
        from torch.utils.cpp_extension import CUDAExtension
        extension = CUDAExtension
        op_files = ["mmx/ops/csrc/pytorch/cuda/nms_cuda.cu", "mmx/ops/csrc/pytorch/nms.cpp"]
    return [extension(name="mmx._ext", sources=op_files)]


setup(name="mmx", ext_modules=get_extensions())
"""
_MMCV_TREE = {
    "mmx/__init__.py": "",
    "mmx/ops.py": "from mmx import _ext\n\n\ndef nms(boxes):\n    return _ext.nms(boxes)\n",
    "mmx/ops/csrc/pytorch/cuda/nms_cuda.cu": "#include <cuda.h>\n__global__ void nms_kernel(float* b) { b[0] = 0; }\n",
    "mmx/ops/csrc/pytorch/nms.cpp": ('#include <torch/extension.h>\n'
                                     'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("nms", &nms); }\n'),
    "mmx/ops/csrc/pytorch/npu/nms_npu.cpp": "#include <torch/extension.h>\nvoid nms_npu() {}\n",
}


def test_an_extension_the_project_also_builds_with_the_targets_builder_is_a_build_switch(tmp_path):
    """mmcv ships NPU and MLU builds of its ops: a setup.py that picks NpuExtension beside CUDAExtension builds
    them for cann itself. The op runs on cann (partial: whether its NPU kernels cover every function is not in
    the data), not a port, and its message says where; a target whose builder the project does not call keeps
    its plan."""
    from .conftest import write_tree

    write_tree(tmp_path, {**_MMCV_TREE, "setup.py": _MMCV_SETUP})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann", "neuware"]), jobs=1))
    (op,) = report.custom_ops
    assert op.vendor_builds == (("cann", 8),)  # `extension = NpuExtension`
    members = [f for f in report.judged if f.category.value == "custom-op"]
    assert members and all(f.verdicts["cann"].status == Status.PARTIAL for f in members)
    assert "NpuExtension at setup.py:8" in members[0].verdicts["cann"].message
    assert all(f.verdicts["neuware"].status in (Status.PORT, Status.REWRITE) for f in members)
    cann, neuware = report.targets
    assert not [b for b in cann.blockers if b.key.startswith("custom-op:")]
    assert [b for b in neuware.blockers if b.key.startswith("custom-op:")]


def test_importing_the_targets_builder_without_using_it_is_no_build(tmp_path):
    from .conftest import write_tree

    setup = _MMCV_SETUP.replace("        extension = NpuExtension\n", "        extension = None\n")
    write_tree(tmp_path, {**_MMCV_TREE, "setup.py": setup})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    (op,) = report.custom_ops
    assert op.vendor_builds == ()


_SPMM = """import os
import torch
from torch.utils.cpp_extension import load

path = os.path.dirname(__file__)

try:
    spmm = load(name="spmm", sources=[os.path.join(path, "spmm/spmm_kernel.cu")])

    def csrspmm(rowptr, colind, x):
        return spmm.csr_spmm(rowptr, colind, x)
{handler}
"""


@pytest.mark.parametrize("handler, work", [
    # cogdl's spmm: the handler binds what the body defined, and the callers fall back to scatter_add
    ("except Exception:\n    csrspmm = None\n", False),
    # cogdl's scatter_max: the handler leaves the function undefined, and its importers fail with the build
    ("except Exception:\n    spmm = None\n", True),
], ids=["a-fallback-for-what-it-defines", "what-it-defines-left-undefined"])
def test_a_run_time_build_with_a_fallback_is_no_port(scan_tree, handler, work):
    report = scan_tree({"ops/spmm.py": _SPMM.format(handler=handler), "ops/spmm/spmm_kernel.cu": KERNEL}, ["cann"])
    ported = [f for f in report.judged if f.category == Category.CUSTOM_OP]
    assert ported and any(f.verdicts["cann"].status != Status.SUPPORTED for f in ported) == work, \
        [(f.path, f.span.line, f.verdicts["cann"].status) for f in ported]


#: torchani's layout: ``setup.py`` builds the ops only when asked, ``csrc/__init__.py`` loads them with ``torch.ops``
_ANI_SETUP = """\
import sys
from setuptools import setup


def setup_kwargs():
    if "ext" not in sys.argv:
        return {}
    from torch.utils.cpp_extension import BuildExtension, CUDAExtension
    return {"ext_modules": [CUDAExtension(name="cuaev", sources=["csrc/aev.cu"])],
            "cmdclass": {"build_ext": BuildExtension}}


setup(name="ani", **setup_kwargs())
"""
_ANI_LOADER = """\
from pathlib import Path
import torch

{load}
"""
_ANI_COMPUTER = """\
import torch
from ani.csrc import CUAEV_IS_INSTALLED


class AEVComputer(torch.nn.Module):
    def __init__(self, strategy="pyaev"):
        super().__init__()
        self.strategy = "cuaev" if strategy == "auto" and CUAEV_IS_INSTALLED else strategy

    def forward(self, species, coords):
        if self.strategy == "cuaev":
            return torch.ops.cuaev.run(species, coords)
        return torch.cdist(coords, coords)
"""
_ANI_KERNEL = ('#include <torch/extension.h>\n__global__ void aev_kernel(float* x) { x[0] = 1.0f; }\n'
               'torch::Tensor run(torch::Tensor s, torch::Tensor c) { return c; }\n'
               'TORCH_LIBRARY(cuaev, m) {\n  m.def("run(Tensor s, Tensor c) -> Tensor");\n}\n'
               'TORCH_LIBRARY_IMPL(cuaev, CUDA, m) {\n  m.impl("run", &run);\n}\n')


@pytest.mark.parametrize("load, work", [
    # torchani: a library missing where it was not built sets the flag the models read, and they go on without it
    ("try:\n    torch.ops.load_library(Path(__file__).parent / 'cuaev.so')\n    CUAEV_IS_INSTALLED = True\n"
     "except Exception:\n    CUAEV_IS_INSTALLED = False\n", False),
    # loaded unconditionally: importing the package needs the build, so the ops are the package's
    ("torch.ops.load_library(Path(__file__).parent / 'cuaev.so')\nCUAEV_IS_INSTALLED = True\n", True),
], ids=["loaded-only-where-built", "loaded-always"])
def test_operators_loaded_only_where_built_are_no_port(scan_tree, load, work):
    report = scan_tree({"setup.py": _ANI_SETUP, "ani/__init__.py": "", "ani/csrc/__init__.py": _ANI_LOADER.format(
        load=load), "ani/csrc/aev.cu": _ANI_KERNEL, "ani/aev.py": _ANI_COMPUTER}, ["cann"])
    ported = [f for f in report.judged if f.category == Category.CUSTOM_OP]
    assert {f.rule for f in ported} >= {"extension-build", "torch-ops-call"}, [(f.rule, f.path) for f in ported]
    assert any(f.verdicts["cann"].status != Status.SUPPORTED for f in ported) == work, \
        [(f.path, f.span.line, f.rule, f.verdicts["cann"].status) for f in ported]
    assert bool(report.findings and any(f.category == Category.CUSTOM_OP for f in report.findings)) == work


def test_a_function_named_like_an_extension_is_not_a_call_into_it(scan_tree):
    """torchani's pure-PyTorch ``neighbors.cell_list()`` beside the ``cell_list`` extension its setup can build."""
    report = scan_tree({"setup.py": _ANI_SETUP.replace('"cuaev"', '"cell_list"'), "ani/__init__.py": "",
                        "ani/neighbors.py": "import torch\n\n\ndef cell_list(coords):\n    return coords\n\n\n"
                                            "def neighbors(coords):\n    return cell_list(coords)\n"}, ["cann"])
    assert not [f for f in report.judged if f.rule == "extension-call"]


# torch-cluster: the ops registered with the API before TORCH_LIBRARY, built by a CMake file whose library name
# is a variable and whose sources a glob of every extension names, called as torch.ops.torch_cluster.<op>
CLUSTER = {
    "csrc/knn.cpp": ('#include <torch/script.h>\n#include "cpu/knn_cpu.h"\n\n'
                     "torch::Tensor knn(torch::Tensor x, torch::Tensor y, int64_t k) {\n"
                     "  return knn_cpu(x, y, k);\n}\n\n"
                     'static auto registry =\n    torch::RegisterOperators().op("torch_cluster::knn", &knn);\n'),
    "csrc/cpu/knn_cpu.h": "#pragma once\n#include <torch/extension.h>\n"
                          "torch::Tensor knn_cpu(torch::Tensor x, torch::Tensor y, int64_t k);\n",
    "csrc/cuda/knn_cuda.cu": "__global__ void knn_kernel(const float* x, float* out) { out[0] = x[0]; }\n",
    "CMakeLists.txt": ("cmake_minimum_required(VERSION 3.10)\nproject(torchcluster)\n"
                       "file(GLOB OPERATOR_SOURCES csrc/*.* csrc/cpu/*.*)\n"
                       "file(GLOB OPERATOR_SOURCES ${OPERATOR_SOURCES} csrc/cuda/*.h csrc/cuda/*.cu)\n"
                       "add_library(${PROJECT_NAME} SHARED ${OPERATOR_SOURCES})\n"),
    "torch_cluster/__init__.py": "from .knn import knn  # noqa\n",
    "torch_cluster/knn.py": ("import torch\n\n\ndef knn(x, y, k):\n"
                             "    return torch.ops.torch_cluster.knn(x, y, k)\n"),
}


def test_an_op_registered_before_torch_library_is_one_port_with_its_calls(scan_tree):
    (op,) = [op for op in read_cuda(CLUSTER["csrc/knn.cpp"]).registrations]
    assert (op.namespace, op.name) == ("torch_cluster", "knn")
    report = scan_tree(CLUSTER, ["cann"])
    (call,) = [f for f in report.judged if f.rule == "torch-ops-call"]
    assert call.verdicts["cann"].status == Status.PORT
    (owner,) = [o for o in report.custom_ops if (call.path, call.span.line) in o.call_sites]
    assert owner.name == "torchcluster" and {"csrc/knn.cpp", "csrc/cuda/knn_cuda.cu"} <= set(owner.files)
    assert call.root is not None  # a site of the op's build: one item


def test_a_build_with_a_long_list_of_sources_takes_every_one(scan_tree):
    # openpoints' pointops: fifteen sources in one CUDAExtension, longer than any clipped source text
    parts = ["knnquery", "ballquery", "sampling", "grouping", "interpolation", "subtraction", "aggregation"]
    sources = ["src/pointops_api.cpp"] + [f"src/{p}/{p}_cuda{suffix}" for p in parts
                                          for suffix in (".cpp", "_kernel.cu")]
    files = {"setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, "
                          f"CUDAExtension\nsetup(name='pointops', ext_modules=[CUDAExtension('pointops_cuda', "
                          f"{sources!r})], cmdclass={{'build_ext': BuildExtension}})\n"),
             "src/pointops_api.cpp": "#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n"}
    for part in parts:
        files[f"src/{part}/{part}_cuda.cpp"] = "#include <torch/extension.h>\n"
        files[f"src/{part}/{part}_cuda_kernel.cu"] = f"__global__ void {part}_kernel(float* x) {{ x[0] = 0; }}\n"
    report = scan_tree(files, ["cann"])
    (op,) = report.custom_ops
    assert {f"src/{p}/{p}_cuda_kernel.cu" for p in parts} <= set(op.files)
    kernels = [f for f in report.judged if f.rule == "cuda-kernel"]
    assert len(kernels) == len(parts) and all(f.root is not None for f in kernels)  # sites of the one build


# yolact's external/DCNv2: sources globbed into variables and joined in a comprehension, bound to Python by
# the macro the build defines
_DCNV2_SETUP = """\
import glob
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension


def get_extensions():
    extensions_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
    main_file = glob.glob(os.path.join(extensions_dir, "*.cpp"))
    source_cuda = glob.glob(os.path.join(extensions_dir, "cuda", "*.cu"))
    sources = [os.path.join(extensions_dir, s) for s in main_file + source_cuda]
    return [CUDAExtension("_ext", sources, include_dirs=[extensions_dir])]


setup(name="DCNv2", ext_modules=get_extensions(), cmdclass={"build_ext": BuildExtension})
"""


def test_a_build_whose_sources_cannot_be_read_takes_the_module_its_macro_binds_below_it(scan_tree):
    files = {"external/DCNv2/setup.py": _DCNV2_SETUP,
             "external/DCNv2/src/vision.cpp": ('#include "dcn_v2.h"\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n'
                                               '  m.def("dcn_v2_forward", &dcn_v2_forward);\n'
                                               '  m.def("dcn_v2_psroi_pooling_forward",\n'
                                               '        &dcn_v2_psroi_pooling_forward);\n}\n'),
             "external/DCNv2/src/cuda/dcn_v2_im2col_cuda.cu":
                 "__global__ void modulated_deformable_im2col_gpu_kernel(float* x) { x[0] = 0; }\n",
             "external/DCNv2/src/cuda/dcn_v2_psroi_pooling_cuda.cu":
                 "__global__ void DeformablePSROIPoolForwardKernel(float* x) { x[0] = 0; }\n",
             "other/kernel.cu": "__global__ void unrelated(float* x) { x[0] = 0; }\n"}
    report = scan_tree(files, ["cann"])
    (op,) = [o for o in report.custom_ops if o.name == "_ext"]
    assert "external/DCNv2/src/cuda/dcn_v2_im2col_cuda.cu" in op.files and "other/kernel.cu" not in op.files
    plan = next(p for p in report.op_plans if p.op == "_ext" and p.target == "cann")
    assert [r.family for r in plan.routes] == ["deform_conv"]  # dcn_v2_forward: the vendor's deformable conv
    assert plan.uncovered == ("dcn_v2_psroi_pooling_forward",)  # PS-RoI pooling is another op: a port


# Swin-Transformer's fused window process: a module wraps the compiled extension (imported at its top, unguarded),
# and the model imports that module only under ``try`` with ``WindowProcess = None`` in the handler
_SWIN_SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name='swin_window_process',
      ext_modules=[CUDAExtension('swin_window_process', ['swin_window_process.cpp', 'swin_window_process_kernel.cu'])],
      cmdclass={'build_ext': BuildExtension})
"""
_SWIN_WRAPPER = """\
import torch
import swin_window_process


class WindowProcess(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, shift):
        return swin_window_process.roll_and_window_partition_forward(x, shift)
"""
_SWIN_MODEL = """\
import torch
{imports}


class Block(torch.nn.Module):
    def __init__(self, fused=False):
        super().__init__()
        self.fused = fused

    def forward(self, x):
        if self.fused:
            return WindowProcess.apply(x, 3)
        return torch.roll(x, shifts=(-3, -3), dims=(1, 2))
"""
_SWIN_KERNEL = '#include <torch/extension.h>\n__global__ void roll_kernel(float* x) { x[0] = 1.0f; }\n'


@pytest.mark.parametrize("imports, work", [
    pytest.param("try:\n    from kernels.window_process.window_process import WindowProcess\nexcept:\n"
                 "    WindowProcess = None\n", False, id="wrapper-imported-only-under-try"),
    pytest.param("from kernels.window_process.window_process import WindowProcess\n", True,
                 id="wrapper-imported-always"),
])
def test_an_extension_whose_wrapper_is_imported_only_under_try_is_no_port(scan_tree, imports, work):
    report = scan_tree({"kernels/window_process/setup.py": _SWIN_SETUP,
                        "kernels/window_process/window_process.py": _SWIN_WRAPPER,
                        "kernels/window_process/swin_window_process_kernel.cu": _SWIN_KERNEL,
                        "models/swin.py": _SWIN_MODEL.format(imports=imports)}, ["cann"])
    ported = [f for f in report.judged if f.category == Category.CUSTOM_OP and f.context == Context.TRAINING]
    assert {f.rule for f in ported} >= {"extension-build", "extension-call"}, [(f.rule, f.path) for f in ported]
    assert any(f.verdicts["cann"].status != Status.SUPPORTED for f in ported) == work, \
        [(f.path, f.span.line, f.rule, f.verdicts["cann"].status) for f in ported]


# InternImage's DCNv3: the autograd Function that runs the compiled extension, decorated with CUDA's AMP decorators
_DCN_SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension

setup(name='DCNv3', ext_modules=[CUDAExtension('DCNv3', ['src/vision.cpp', 'src/cuda/dcnv3_cuda.cu'])])
"""
_DCN_FUNCTION = """\
import torch
from torch.autograd import Function
from torch.cuda.amp import custom_bwd, custom_fwd
{imports}


class DCNv3Function(Function):
    @staticmethod
    @custom_fwd
    def forward(ctx, x, offset):
        return DCNv3.dcnv3_forward(x, offset)

    @staticmethod
    @custom_bwd
    def backward(ctx, grad):
        return DCNv3.dcnv3_backward(grad)
"""


@pytest.mark.parametrize("imports, decorator_work", [
    pytest.param("try:\n    import DCNv3\n    has_cuda_kernel = True\n"
                 "except ImportError:\n    has_cuda_kernel = False\n", False, id="extension-imported-only-where-built"),
    pytest.param("import DCNv3\n", None, id="extension-imported-always"),
])
def test_cudas_amp_decorators_on_an_extensions_function_are_judged_with_the_extension(scan_tree, imports,
                                                                                      decorator_work):
    report = scan_tree({"ops_dcnv3/setup.py": _DCN_SETUP,
                        "ops_dcnv3/functions/dcnv3_func.py": _DCN_FUNCTION.format(imports=imports)}, ["cann"])
    decorators = [f for f in report.judged if f.api.startswith("torch.cuda.amp.custom_")]
    assert len(decorators) == 2
    if decorator_work is None:  # a site of the kernel's port, counted there
        calls = {f.id: f for f in report.judged if f.rule == "extension-call"}
        assert all(f.root is not None and (f.root in calls or any(c.root == f.root for c in calls.values()))
                   for f in decorators), [(f.span.line, f.root) for f in decorators]
    else:
        assert {f.verdicts["cann"].status for f in decorators} == {Status.SUPPORTED}
        assert "never runs" in decorators[0].verdicts["cann"].message
