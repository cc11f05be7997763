"""Custom-operator plans: family recognition, vendor routes, fallbacks, port plans; and one extension repo
end to end: scan, suggestions, `fix --diff`, fix, scan again."""

import ast
import json

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.maps.load import op_families, resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan
from migrator.op_plans import _match, cpp_to_schema, plan_op

from .conftest import write_tree


@pytest.mark.parametrize("name, family", [
    ("roi_align_forward_cuda", "roi_align"),
    ("RoIAlignForward", "roi_align"),
    ("roi_align_rotated_forward", None),  # rotated boxes: not what npu_roi_align / torchvision compute
    ("deform_roi_pool_forward", None),
    ("softmax_focal_loss_forward", "focal_loss"),  # a loss, not an attention softmax
    ("fused_bias_leakyrelu", "bias_act"),
    ("nms_rotated", "nms_rotated"),
    ("nms_match", None),
    ("bbox_overlaps", "box_iou"),
    ("sync_bn_forward_mean", "sync_bn"),
    ("ms_deform_attn_forward", "ms_deform_attn"),  # not deformable convolution
    ("modulated_deform_conv_forward", "deform_conv"),
    ("nms_cuda", "nms"),
    ("multi_tensor_adam", "fused_adam"),
    ("fused_lamb_cuda", "fused_lamb"),
    ("rms_norm_fwd_kernel", "rms_norm"),
    ("layer_norm_backward", "layer_norm"),
    ("apply_rotary_emb", "rotary_embedding"),
    ("flash_attn_fwd", "attention"),
    ("scaled_upper_triang_masked_softmax_forward", "masked_softmax"),
    ("swiglu_fwd", "swiglu"),
    ("fused_bias_act", "bias_act"),
    ("sigmoid_focal_loss_forward", "focal_loss"),
    ("prefix_sum_scan_kernel", None),
    ("forward", None),  # a generic name says nothing by itself
])
def test_family_recognition(name, family):
    found = _match([name], op_families())
    assert (found.name if found else None) == family


@pytest.mark.parametrize("family", [f.name for f in op_families() if f.pytorch])
def test_fallback_code_is_valid_python_using_only_torch(family):
    code = next(f.pytorch for f in op_families() if f.name == family)
    tree = ast.parse(code)
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names} | {n.module.split(".")[0] for n in ast.walk(tree)
                                     if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"torch", "torchvision", "F"}


@pytest.mark.parametrize("signature, schema", [
    ("torch::Tensor rms_forward(torch::Tensor input, torch::Tensor weight, double eps)",
     "f(Tensor input, Tensor weight, float eps) -> Tensor"),
    ("std::vector<at::Tensor> bwd(const at::Tensor& grad, int64_t k, bool flag)",
     "f(Tensor grad, int k, bool flag) -> Tensor[]"),
    ("std::tuple<at::Tensor, at::Tensor> two(const at::Tensor &x, c10::optional<at::Tensor> mask)",
     "f(Tensor x, Tensor? mask) -> (Tensor, Tensor)"),
    ("void launch(at::Tensor out, at::IntArrayRef sizes, std::string mode)", "f(Tensor out, int[] sizes, str mode) -> "
                                                                             "()"),
    (None, "f(...) -> ..."),
])
def test_cpp_signature_to_schema(signature, schema):
    assert cpp_to_schema("f", signature) == schema


KERNEL = """#include <torch/extension.h>
__global__ void prefix_scan_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = x[i]; }
}
torch::Tensor prefix_scan(torch::Tensor x, int64_t dim) {
  auto y = torch::empty_like(x);
  prefix_scan_kernel<<<1, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("prefix_scan", &prefix_scan, "scan"); }
"""

RMS_KERNEL = """#include <torch/extension.h>
__global__ void rms_norm_kernel(const float* x, float* y, int n) { }
torch::Tensor rms_norm(torch::Tensor x, torch::Tensor w, double eps) { return x; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("rms_norm", &rms_norm, "rms"); }
"""

EXTENSION_REPO = {
    "setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
                 "setup(name='scanlib', ext_modules=[CUDAExtension('scanlib._scan', ['csrc/scan.cu']),\n"
                 "      CUDAExtension('scanlib._rms', ['csrc/rms.cu'])],\n"
                 "      cmdclass={'build_ext': BuildExtension})\n"),
    "csrc/scan.cu": KERNEL,
    "csrc/rms.cu": RMS_KERNEL,
    "scanlib/__init__.py": "",
    "scanlib/ops.py": ("import torch\n\nfrom scanlib import _rms, _scan\n\n\n"
                       "def cumulative(x):\n    return _scan.prefix_scan(x, 0)\n\n\n"
                       "def rms(x, w):\n    return _rms.rms_norm(x, w, 1e-6)\n"),
    "train.py": ("import torch\nimport torch.distributed as dist\n\nfrom scanlib.ops import cumulative, rms\n\n\n"
                 "def main():\n    dist.init_process_group(backend='nccl')\n    torch.cuda.set_device(0)\n"
                 "    x = torch.randn(8, device='cuda')\n    with torch.autocast(device_type='cuda'):\n"
                 "        y = cumulative(x) + rms(x, torch.ones(8).cuda())\n    torch.cuda.synchronize()\n"
                 "    return y\n\n\nif __name__ == '__main__':\n    main()\n"),
}


def test_unknown_kernel_gets_a_port_plan_and_a_known_one_a_vendor_call(tmp_path):
    write_tree(tmp_path, EXTENSION_REPO)
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann", "neuware"]), jobs=1))
    plans = {(p.op, p.target): p for p in report.op_plans}
    scan_cann = plans[("scanlib._scan", "cann")]
    assert scan_cann.status == Status.PORT and scan_cann.uncovered == ("prefix_scan",)
    port = scan_cann.port
    assert port.language == "Ascend C" and [k.name for k in port.kernels] == ["prefix_scan_kernel"]
    assert "NpuExtension" in port.build and port.days >= 3
    assert 'm.def("prefix_scan(Tensor x, int dim) -> Tensor");' in port.registration
    assert "TORCH_LIBRARY_IMPL(scan, PrivateUse1, m)" in port.registration
    assert 'm.impl("prefix_scan", &prefix_scan_npu);' in port.registration
    assert plans[("scanlib._scan", "neuware")].port.language == "BANG C"

    rms_cann, rms_mlu = plans[("scanlib._rms", "cann")], plans[("scanlib._rms", "neuware")]
    assert rms_cann.status == Status.REWRITE and rms_cann.routes[0].level == "vendor"
    assert rms_cann.routes[0].call.startswith("torch_npu.npu_rms_norm(")
    assert rms_cann.routes[0].source == "op_plugin_functions.op-plugin-26.1.0.yaml"
    assert rms_mlu.status == Status.REWRITE and rms_mlu.routes[0].level == "pytorch"  # no MLU op: the fallback
    assert "torch.rsqrt" in rms_mlu.routes[0].code

    calls = [f for f in report.findings if f.rule == "extension-call" and "_rms" in f.api]
    assert calls and all(f.verdicts["cann"].status == Status.REWRITE for f in calls)
    assert calls[0].verdicts["cann"].suggestion.startswith("torch_npu.npu_rms_norm(")


def test_extension_repo_end_to_end(tmp_path):
    repo = write_tree(tmp_path / "repo", EXTENSION_REPO)
    runner = CliRunner()
    before = json.loads(runner.invoke(main, ["scan", str(repo), "--target", "cann", "--format", "json",
                                             "--no-cache"]).output)
    cann = before["targets"][0]
    statuses = {b["title"]: b["status"] for b in cann["blockers"]}
    assert statuses["custom operator scanlib._scan"] == "port"
    assert statuses["custom operator scanlib._rms"] == "rewrite"
    assert statuses["torch.cuda.set_device"] == "rewrite"
    op = next(o for o in before["custom_ops"] if o["name"] == "scanlib._scan")
    assert op["plans"]["cann"]["port"]["kernels"][0]["name"] == "prefix_scan_kernel"

    diff = runner.invoke(main, ["fix", str(repo), "--target", "cann", "--diff", "--no-cache"])
    assert diff.exit_code == 0
    for line in ("+    dist.init_process_group(backend='hccl')", "+    torch_npu.npu.set_device(0)",
                 "+    x = torch.randn(8, device='npu')", "+    with torch.autocast(device_type='npu'):",
                 "+    torch_npu.npu.synchronize()", "+import torch_npu"):
        assert line in diff.output
    assert runner.invoke(main, ["fix", str(repo), "--target", "cann", "--no-cache"]).exit_code == 0

    after = json.loads(runner.invoke(main, ["scan", str(repo), "--target", "cann", "--format", "json",
                                            "--no-cache"]).output)
    left = {(b["title"], b["status"]) for b in after["targets"][0]["blockers"]}
    # what remains needs a hand: the kernel port, and the rms extension swapped for torch_npu.npu_rms_norm
    assert left == {("custom operator scanlib._scan", "port"), ("custom operator scanlib._rms", "rewrite")}
    assert after["targets"][0]["readiness"] > cann["readiness"]


def _op(*names):
    from migrator.model import CustomOp, Registration

    regs = tuple(Registration(name=n, kind="pybind11", path="ext.cpp", line=i + 1) for i, n in enumerate(names))
    return CustomOp(name="pkg._ext", build=None, files=("ext.cpp",), kernels=(), registrations=regs, wrappers=(),
                    call_sites=(), kernel_lines=0)


@pytest.mark.parametrize("function, target, level, call", [
    ("roi_align_forward", "cann", "vendor", "torch_npu.npu_roi_align("),
    ("roi_align_forward", "neuware", "vendor", "torchvision.ops.roi_align("),
    ("roi_align_forward", "kunlun", "pytorch", None),
    ("nms", "cann", "vendor", "torch_npu.npu_nms_v4("),
    ("nms", "neuware", "vendor", "torchvision.ops.nms("),
    ("deform_conv_forward", "cann", "vendor", "torch_npu.npu_deformable_conv2d("),
    ("deform_conv_forward", "neuware", "vendor", "torchvision.ops.deform_conv2d("),
    ("multi_tensor_adam", "cann", "vendor", "torch.optim.AdamW("),
    ("multi_tensor_adam", "neuware", "vendor", "torch_mlu.optimizers.FusedAdam("),
    ("fused_lamb", "neuware", "vendor", "torch_mlu.optimizers.FusedLAMB("),
    ("rms_norm_forward", "cann", "vendor", "torch_npu.npu_rms_norm("),
    ("rms_norm_forward", "neuware", "pytorch", None),
    ("layer_norm_forward", "neuware", "vendor", "torch.nn.functional.layer_norm("),
    ("rotary_embedding", "cann", "vendor", "torch_npu.npu_rotary_mul("),
    ("flash_attn_forward", "cann", "vendor", "torch_npu.npu_fusion_attention("),
    ("flash_attn_forward", "neuware", "vendor", "torch.nn.functional.scaled_dot_product_attention("),
    ("scaled_masked_softmax_forward", "cann", "vendor", "torch_npu.npu_scaled_masked_softmax("),
    ("swiglu_forward", "cann", "vendor", "torch_npu.npu_swiglu("),
    ("fused_bias_leakyrelu", "cann", "pytorch", None),
    ("sigmoid_focal_loss_forward", "neuware", "pytorch", None),
    ("ms_deform_attn_forward", "cann", "pytorch", None),
])
def test_family_route_per_target(function, target, level, call):
    plan = plan_op(_op(function), target, op_families())
    assert plan.status == Status.REWRITE and plan.uncovered == ()
    route = plan.routes[0]
    assert route.level == level and route.covers == (function,)
    assert (route.call or "").startswith(call or "") and (route.call is None) == (call is None)
    assert route.code or route.level == "vendor"


def test_a_family_with_neither_a_vendor_call_nor_a_fallback_is_a_port():
    plan = plan_op(_op("fused_lamb"), "cann", op_families())  # LAMB: only Cambricon ships one
    assert plan.status == Status.PORT and plan.uncovered == ("fused_lamb",) and plan.port is not None
    assert "fused LAMB optimizer step, but neither a cann equivalent" in plan.summary  # a known family, said so
    assert "no known family" not in plan.summary


def _fallback(name):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    namespace = {"torch": torch, "F": F}
    exec(next(f.pytorch for f in op_families() if f.name == name), namespace)  # our own curated snippet
    return torch, namespace


def test_fallbacks_compute_what_they_replace():
    torch, ns = _fallback("rms_norm")
    x, w = torch.randn(2, 3, 8), torch.randn(8)
    assert torch.allclose(ns["rms_norm"](x, w), x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, atol=1e-5)
    _, ns = _fallback("box_iou")
    boxes = torch.tensor([[0.0, 0, 2, 2], [1, 1, 3, 3]])
    assert torch.allclose(ns["bbox_overlaps"](boxes, boxes), torch.tensor([[1.0, 1 / 7], [1 / 7, 1.0]]))
    _, ns = _fallback("swiglu")
    assert torch.allclose(ns["swiglu"](torch.ones(2, 4)), torch.nn.functional.silu(torch.ones(2, 2)))
    _, ns = _fallback("masked_softmax")
    probs = ns["scaled_masked_softmax"](torch.randn(2, 3, 4, 4), torch.triu(torch.ones(4, 4, dtype=torch.bool), 1), 0.5)
    assert torch.allclose(probs.sum(-1), torch.ones(2, 3, 4)) and probs[..., 0, 1:].abs().max() < 1e-3
    _, ns = _fallback("rotary_embedding")
    q = torch.randn(2, 4, 5, 8)
    assert torch.allclose(ns["apply_rotary"](q, torch.ones(5, 8), torch.zeros(5, 8)), q)  # angle 0: identity


def test_multi_scale_deformable_attention_fallback_shapes():
    torch, ns = _fallback("ms_deform_attn")
    shapes = [(4, 4), (2, 2)]
    value = torch.randn(1, sum(h * w for h, w in shapes), 2, 4)  # (N, S, M, D)
    out = ns["ms_deform_attn"](value, shapes, torch.rand(1, 5, 2, 2, 3, 2), torch.rand(1, 5, 2, 2, 3))
    assert out.shape == (1, 5, 8)


def test_effort_counts_only_the_kernels_left_to_port(tmp_path):
    # one extension: an RMSNorm kernel (Ascend has npu_rms_norm) and a scan kernel (no family): only the scan
    # kernel's lines are ported on cann, all of them on neuware (no MLU RMSNorm call: its kernel stays a port too)
    write_tree(tmp_path, {
        "setup.py": ("from torch.utils.cpp_extension import CUDAExtension\n"
                     "ext = CUDAExtension('pkg._ops', ['ops.cu'])\n"),
        "ops.cu": (RMS_KERNEL.replace("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"rms_norm\", &rms_norm, "
                                      "\"rms\"); }",
                                      "")
                   + KERNEL.replace("m.def(\"prefix_scan\", &prefix_scan, \"scan\");",
                                    "m.def(\"prefix_scan\", &prefix_scan, \"scan\"); m.def(\"rms_norm\", &rms_norm, "
                                    "\"rms\");")),
        "train.py": "from pkg import _ops\n\nif __name__ == '__main__':\n    _ops.prefix_scan(1, 0)\n",
    })
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann", "neuware"]), jobs=1))
    op = report.custom_ops[0]
    kernels = {k.name: k.lines for k in op.kernels}
    cann, neuware = (t.effort for t in report.targets)
    assert cann["kernel_lines_to_port"] == kernels["prefix_scan_kernel"]
    assert neuware["kernel_lines_to_port"] == sum(kernels.values())


def test_a_call_to_a_covered_function_gets_that_functions_route(tmp_path):
    write_tree(tmp_path, {
        "setup.py": ("from torch.utils.cpp_extension import CUDAExtension\n"
                     "ext = CUDAExtension('pkg._ops', ['ops.cu'])\n"),
        "ops.cu": KERNEL.replace("m.def(\"prefix_scan\", &prefix_scan, \"scan\");",
                                "m.def(\"prefix_scan\", &prefix_scan, \"scan\"); m.def(\"nms\", &nms, \"nms\");"),
        "train.py": ("import torch\n\nfrom pkg import _ops\n\n\ndef main(boxes, scores):\n"
                     "    keep = _ops.nms(boxes, scores, 0.5)\n    return _ops.prefix_scan(keep, 0)\n"),
    })
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    calls = {f.api.rsplit(".", 1)[-1]: f.verdicts["cann"] for f in report.findings if f.rule == "extension-call"}
    assert calls["nms"].status == Status.REWRITE and calls["nms"].suggestion.startswith("torch_npu.npu_nms_v4(")
    assert calls["prefix_scan"].status == Status.PORT  # no family: the kernel port stays
    assert report.targets[0].blockers[0].status == Status.PORT  # the op as a whole still needs its port
