"""Precision: a finding is something a migration engineer acts on. Vendor notes bite only where they can
(the project's dtypes, the call's arguments, the target's card), tests and tooling are their own context, and
one cause is one finding however many sites use it."""
import pytest

from migrator.maps.limits import for_call, parse_note, settle
from migrator.model import Argument, DtypeProfile, LimitKind, Status, Value, Verdict
from migrator.pipeline import ScanRequest, scan

from .conftest import by_rule

BF16 = DtypeProfile(frozenset({"fp32", "bf16"}))
FP32 = DtypeProfile()


# ------------------------------------------------------------------------------ reading vendor notes


@pytest.mark.parametrize("note, kinds", [
    pytest.param("`input`仅支持fp16，fp32", [LimitKind.DTYPE], id="dtype-list"),
    pytest.param("`query`、`key`、`value`仅支持bf16、fp16和fp32。", [LimitKind.DTYPE], id="dtype-list-several-tensors"),
    pytest.param("`self`仅支持fp32", [LimitKind.TEMPLATE], id="lone-fp32-template"),
    pytest.param("- `input`仅支持bf16，fp16，fp32 / - `approximate`参数仅支持设置为`tanh`",
                 [LimitKind.DTYPE, LimitKind.ARGUMENT], id="dtype-and-argument"),
    pytest.param("`self`仅支持int64 / - 针对Ascend 950DT，由于硬件差异，在索引存在重复的情况下，"
                 "精度可能和Atlas A2 训练系列产品/Atlas A3 训练系列产品存在差异",
                 [LimitKind.DTYPE, LimitKind.PRODUCT], id="another-card"),
    pytest.param("`input`仅支持fp16，fp32 / - 可能回退至CPU执行", [LimitKind.DTYPE, LimitKind.BEHAVIOUR],
                 id="cpu-fallback"),
    pytest.param("当前仅支持推理场景，不支持训练场景", [LimitKind.BEHAVIOUR], id="inference-only"),
    pytest.param("不支持反向求梯度。", [LimitKind.BEHAVIOUR], id="no-backward"),
    pytest.param("输入最大支持6维", [LimitKind.OTHER], id="shape-condition"),
    pytest.param("`params`仅支持bf16，fp16，fp32 / ``` / optimizer = torch.optim.AdamW(p, foreach=False) / ```",
                 [LimitKind.DTYPE], id="code-example-is-no-clause"),
])
def test_a_note_reads_as_clauses_of_a_kind(note, kinds):
    assert [limit.kind for limit in parse_note(note)] == kinds


def test_a_dtype_clause_names_the_training_dtypes_it_leaves_out():
    (limit,) = parse_note("`input`仅支持fp16，fp32，uint8，int8，int16，int32，int64")
    assert limit.dtypes == {"bf16"}


def _verdict(note: str, parameters=None) -> Verdict:
    return Verdict(Status.SUPPORTED, "all ops have kernels", "docs", limits=parse_note(note, parameters))


@pytest.mark.parametrize("profile, status", [
    pytest.param(BF16, Status.PARTIAL, id="bf16-project"),
    pytest.param(FP32, Status.SUPPORTED, id="fp32-project"),
])
def test_a_dtype_clause_bites_a_project_that_computes_in_a_dtype_it_leaves_out(profile, status):
    settled = settle(_verdict("`input`仅支持fp16，fp32"), profile)
    assert settled.status == status and settled.limits == ()
    assert "`input`仅支持fp16，fp32" in settled.message  # either way the note stays readable


@pytest.mark.parametrize("args, bites", [
    pytest.param([Argument(None, Value("other"))], False, id="default"),
    pytest.param([Argument(None, Value("other")), Argument("approximate", Value("str", "none"))], True, id="keyword"),
    pytest.param([Argument(None, Value("other")), Argument(None, Value("str", "none"))], True, id="positional"),
])
def test_an_argument_clause_bites_a_call_that_passes_the_argument(args, bites):
    verdict = _verdict("`approximate`参数仅支持设置为`tanh`", ("input", "approximate"))
    settled = settle(for_call(verdict, args, ("input", "approximate")), FP32)
    assert (settled.status == Status.PARTIAL) is bites
    assert ("leaves `approximate` at the default" in settled.message) is not bites


@pytest.mark.parametrize("reduce, bites", [
    # cellpose's M1.scatter_reduce_(..., reduce="amax"): the last value the note allows sits against "模式"
    pytest.param("amax", False, id="the-last-allowed-value"),
    pytest.param("sum", False, id="the-first-allowed-value"),
    pytest.param("mean", True, id="a-value-left-out"),
])
def test_a_value_list_ends_where_the_words_around_it_change_script(reduce, bites):
    verdict = _verdict("reduce只支持sum/amin/amax模式。", ("dim", "index", "src", "reduce"))
    args = [Argument(None, Value("int", "0")), Argument(None, Value("other")), Argument(None, Value("other")),
            Argument("reduce", Value("str", reduce))]
    assert (settle(for_call(verdict, args, ("dim", "index", "src", "reduce")), FP32).status == Status.PARTIAL) is bites


# Ascend's note on torch.autograd.profiler.profile; detectron2's hook passes `use_cuda=self._use_cuda`
# (detectron2/engine/hooks.py:274 at be792b95), which Ascend's port turned into the NPU's profiling
@pytest.mark.parametrize("use_cuda, bites", [
    pytest.param(Value("other"), True, id="computed-use_cuda"),
    pytest.param(Value("other", "True"), True, id="use_cuda-true"),
    pytest.param(Value("other", "False"), False, id="use_cuda-false"),
])
def test_a_deprecated_alias_passes_the_argument_it_stands_for(use_cuda, bites):
    note = "采集NPU上的profiling数据时，“`use_device`”需设置为“npu”，例如："
    parameters = ("enabled", "use_cuda", "use_device")
    verdict = _verdict(note, parameters)
    settled = settle(for_call(verdict, [Argument("use_cuda", use_cuda)], parameters), FP32)
    assert (settled.status == Status.PARTIAL) is bites, settled.message
    assert settle(for_call(verdict, [], parameters), FP32).status == Status.SUPPORTED


def test_a_keyword_only_argument_is_not_passed_by_position():
    verdict = _verdict("`stable`仅支持True", ("input", "dim", "descending", "*", "stable"))
    call = [Argument(None, Value("other")), Argument(None, Value("int", "0")), Argument(None, Value("other"))]
    assert settle(for_call(verdict, call, ("input", "dim", "descending", "*", "stable")), FP32).status \
        == Status.SUPPORTED


# ------------------------------------------------------------------------------ on real code

MODEL = '''
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x)
'''


def _cann(findings, api):
    return [f.verdicts["cann"].status for f in findings if f.api == api]


def test_a_bf16_project_keeps_the_real_bf16_limit_and_an_fp32_one_does_not(scan_tree):
    fp32 = scan_tree({"model.py": MODEL, "train.py": "from model import Block\nm = Block(8)\n"}, ["cann"])
    assert _cann(fp32.judged, "torch.nn.Linear") == [Status.SUPPORTED]
    bf16 = scan_tree({"train.py": "import torch\nfrom model import Block\nm = Block(8)\n"
                                  "with torch.autocast('cuda', dtype=torch.bfloat16):\n    y = m(x)\n"}, ["cann"])
    assert _cann(bf16.judged, "torch.nn.Linear") == [Status.PARTIAL]
    (linear,) = [f for f in bf16.judged if f.api == "torch.nn.Linear"]
    assert "vendor notes that bite here: `input`仅支持fp16，fp32" in linear.verdicts["cann"].message


def test_autocast_without_a_dtype_is_fp16(scan_tree):
    report = scan_tree({"train.py": "import torch\nfrom torch.cuda.amp import autocast\nwith autocast():\n"
                                    "    y = torch.nn.functional.gelu(x)\n"}, ["cann"])
    (gelu,) = [f for f in report.judged if f.api == "torch.nn.functional.gelu"]
    assert "the project computes in fp32, fp16" in gelu.verdicts["cann"].message


def test_doc_templates_and_other_cards_never_make_partial(scan_code):
    code = ("import torch\nloss = model(x).sum()\nloss.backward()\ny = x.detach()\n"
            "idx = torch.zeros(3, dtype=torch.long)\nt = src.index_put_((idx,), vals)\n")
    found = {f.api: f.verdicts["cann"] for f in by_rule(scan_code(code, ["cann"]), "torch-op")}
    assert found["torch.Tensor.backward"].status == Status.SUPPORTED
    assert found["torch.Tensor.detach"].status == Status.SUPPORTED
    # "`self` int64 only" (no float dtype) and a note about the Ascend 950DT: neither bites an fp32 project
    assert found["torch.Tensor.index_put_"].status == Status.SUPPORTED
    assert "about another card" in found["torch.Tensor.index_put_"].message


# ------------------------------------------------------------------------------ contexts


@pytest.mark.parametrize("path, context", [
    pytest.param("train.py", "training", id="entry"),
    pytest.param("pkg/models/vit.py", "training", id="library"),
    pytest.param("tools/train_net.py", "training", id="tools-train"),
    pytest.param("tests/test_models.py", "test", id="tests-folder"),
    pytest.param("pkg/ops_test.py", "test", id="test-suffix"),
    pytest.param("conftest.py", "test", id="conftest"),
    pytest.param("setup.py", "tooling", id="packaging"),
    pytest.param("benchmarks/bench_attention.py", "tooling", id="benchmark"),
    # transformer-lens's logit comparator notebook
    pytest.param("debugging/hf-tl-logit-comparator.ipynb", "tooling", id="a-debugging-folder"),
    pytest.param("megatron/core/export/trtllm/trtllm_helper.py", "tooling", id="export-to-tensorrt"),
    pytest.param("scripts/onnx_export.py", "tooling", id="onnx-export"),
    pytest.param("transformers/models/llama/convert_llama_weights_to_hf.py", "tooling", id="checkpoint-conversion"),
    pytest.param("requirements-dev.txt", "tooling", id="dev-requirements"),
    pytest.param("requirements_test.txt", "test", id="test-requirements"),
    pytest.param("requirements.txt", "training", id="requirements"),
    # LLaVA's launchers of its benchmark answer generation, per card: filed or named for evaluation
    pytest.param("scripts/v1_5/eval/gqa.sh", "tooling", id="a-launcher-in-an-eval-folder"),
    pytest.param("scripts/sqa_eval_batch.sh", "tooling", id="a-launcher-named-for-evaluation"),
    pytest.param("scripts/train_eval.sh", "training", id="a-launcher-that-trains-and-evaluates"),
    pytest.param("ptuning/web_demo.sh", "tooling", id="a-launcher-of-a-web-demo"),
    pytest.param("scripts/serve_and_finetune.sh", "training", id="a-launcher-that-also-trains"),
    pytest.param("scripts/v1_5/finetune.sh", "training", id="a-training-launcher"),
    pytest.param("llava/eval/model_vqa.py", "training", id="python-in-an-eval-folder-is-left-to-its-entry-points"),
    # superseded code and a library's community projects (transformers' examples, bundled in LoRA)
    pytest.param("examples/legacy/run_swag.py", "tooling", id="a-legacy-folder"),
    pytest.param("examples/research_projects/distillation/train.py", "tooling", id="community-research-projects"),
    pytest.param("pkg/legacy_utils.py", "training", id="a-file-named-legacy-is-left-to-its-code"),
])
def test_a_path_is_training_test_or_tooling(path, context):
    from migrator.model import Category
    from migrator.contexts import context_of

    assert context_of(path, Category.DEVICE).value == context


@pytest.mark.parametrize("scope, context", [
    # unsloth's kernel modules end in `test_layernorm()`; a Lightning module's `test_step` evaluates
    pytest.param("pkg.kernels.layernorm.test_layernorm", "test", id="a-test-function-in-a-library-module"),
    pytest.param("pkg.model.Net.test_step", "test", id="an-evaluation-step"),
    pytest.param("pkg.attention.TestAttention.check", "test", id="a-test-class"),
    pytest.param("pkg.kernels.layernorm.fast_layernorm", "training", id="the-kernel-itself"),
    pytest.param("pkg.data.Testament.load", "training", id="a-name-that-starts-with-test-only"),
])
def test_a_test_written_in_a_library_module_is_a_test(scope, context):
    from migrator.model import Category
    from migrator.contexts import context_of

    assert context_of("pkg/kernels/layernorm.py", Category.DEVICE, scope).value == context


@pytest.mark.parametrize("path, scope, context", [
    # di-engine's agents: `deploy()` wraps the policy in a nested `_forward` that moves each observation
    pytest.param("ding/bonus/dqn.py", "ding.bonus.dqn.DQNAgent.deploy.single_env_forward_wrapper._forward", "tooling",
                 id="nested-in-deploy"),
    pytest.param("pkg/model.py", "pkg.model.Net.generate.step", "tooling", id="nested-in-generate"),
    pytest.param("pkg/model.py", "pkg.model.Net.train_step.closure", "training", id="nested-in-a-training-step"),
    pytest.param("pkg/export/__init__.py", "pkg.export.save", "tooling", id="an-export-package-by-its-folder"),
    pytest.param("pkg/exporter/__init__.py", "pkg.exporter.Exporter.run", "training", id="a-package-name-is-no-def"),
    pytest.param("pkg/inference_utils.py", "pkg.inference_utils.fit", "training", id="a-module-name-is-no-def"),
    # torchdyn's figure helpers
    pytest.param("torchdyn/utils.py", "torchdyn.utils.plot_static_vector_field", "tooling", id="a-plot"),
    pytest.param("pkg/train.py", "pkg.train.plotted_loss_weight", "training", id="a-name-that-only-starts-alike"),
])
def test_what_a_function_nested_in_tooling_does_is_tooling(path, scope, context):
    from migrator.model import Category
    from migrator.contexts import context_of

    assert context_of(path, Category.DEVICE, scope).value == context


@pytest.mark.parametrize("path, context", [
    pytest.param("setup.py", "training", id="the-build-pip-runs"),
    pytest.param("csrc/adam/multi_tensor_adam.cu", "training", id="a-training-kernel"),
    # DeepSpeed's inference engine ships its own kernels: a folder of tooling keeps them tooling
    pytest.param("deepspeed/inference/v2/kernels/rms_norm_cuda.cu", "tooling", id="an-inference-kernel"),
    pytest.param("benchmarks/kernels/gemm.cu", "tooling", id="a-benchmarks-kernel"),
])
def test_a_custom_operator_is_training_unless_a_tooling_folder_holds_it(path, context):
    from migrator.model import Category
    from migrator.contexts import context_of

    assert context_of(path, Category.CUSTOM_OP).value == context


def test_a_custom_op_build_in_setup_py_is_training(scan_tree):
    report = scan_tree({
        "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                    "setup(ext_modules=[CUDAExtension('pkg._ops', ['csrc/ops.cu'])])\n",
        "csrc/ops.cu": "__global__ void k(float* x) { x[0] = 1; }\n",
        "tests/test_sync.py": "import torch\ndef test_sync():\n    torch.cuda.synchronize()\n",
        "train.py": "import torch\ntorch.cuda.synchronize()\n",
    }, ["cann"])
    contexts = {(f.path, f.rule): f.context.value for f in report.findings}
    assert contexts[("setup.py", "extension-build")] == "training"
    assert contexts[("tests/test_sync.py", "device-call")] == "test"
    assert contexts[("train.py", "device-call")] == "training"
    inputs = report.targets[0].effort["readiness_inputs"]
    assert inputs["left_out"]["test"] == 1 and inputs["all"] > inputs["on_training_path"]


# ------------------------------------------------------------------------------ one cause, one finding

NANOGPT_STYLE = '''
import torch

device = 'cuda'
x = torch.zeros(4, device=device)
y = torch.ones(4).to(device)
model = Net().to(device)
'''


def test_uses_of_a_device_variable_are_sites_of_one_root(scan_code):
    findings = [f for f in scan_code(NANOGPT_STYLE, ["cann"]) if f.verdicts["cann"].status == Status.REWRITE]
    roots = [f for f in findings if f.root is None]
    assert [(f.rule, f.span.line) for f in roots] == [("device-string", 4)]  # the binding is the cause
    assert len(findings) == 4
    assert {f.root for f in findings if f.root} == {roots[0].id}
    assert all(f.verdicts["cann"].status == Status.REWRITE for f in findings)  # a site keeps its verdict


def test_a_device_string_written_at_each_call_is_its_own_cause(scan_code):
    code = "import torch\nx = torch.zeros(4, device='cuda')\ny = torch.ones(4, device='cuda')\n"
    findings = [f for f in scan_code(code, ["cann"]) if f.verdicts["cann"].status == Status.REWRITE]
    assert len(findings) == 2 and all(f.root is None for f in findings)


def test_sites_do_not_count_in_readiness(scan_tree):
    once = scan_tree({"train.py": NANOGPT_STYLE}, ["cann"]).targets[0]
    assert once.effort["readiness_inputs"]["left_out"]["sites"] == 3
    assert once.effort["readiness_inputs"]["manual"] + once.effort["readiness_inputs"]["automatic"] == 1


# ------------------------------------------------------------------------------ blockers that are real

DETECTRON2_STYLE = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('dtr._C', ['dtr/csrc/vision.cpp', 'dtr/csrc/nms.cu'])])\n",
    "dtr/__init__.py": "",
    "dtr/csrc/vision.cpp": '#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n'
                           '  m.def("nms_rotated", &nms_rotated);\n}\n',
    "dtr/csrc/nms.cu": "__global__ void nms_kernel(float* boxes) { boxes[0] = 0; }\n",
    "dtr/config/__init__.py": "from .defaults import _C\n",
    "dtr/config/defaults.py": "from yacs.config import CfgNode as CN\n_C = CN()\n_C.VERSION = 2\n",
    "dtr/engine.py": "import torch\nfrom dtr.config.defaults import _C\nfrom dtr import _C as ops\n"
                     "cfg = _C.clone()\nversion = _C.VERSION\nkeep = ops.nms_rotated(boxes, scores, 0.5)\n"
                     "graph = torch._C.Graph()\n",
}


def test_a_config_object_named_like_the_extension_is_not_a_port(scan_tree):
    report = scan_tree(DETECTRON2_STYLE, ["cann"])
    calls = {f.api for f in by_rule(report.findings, "extension-call")}
    assert calls == {"dtr._C", "dtr._C.nms_rotated"}  # the real extension, neither the config `_C` nor torch._C


TRITON_AND_TE = {
    "kernels/softmax.py": "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                          "def softmax_kernel(x_ptr, n, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n"
                          "    x = tl.load(x_ptr + offs, mask=offs < n)\n    tl.store(x_ptr + offs, tl.exp(x))\n\n\n"
                          "def softmax(x):\n    softmax_kernel[(1,)](x, x.numel(), BLOCK=1024)\n    return x\n",
    "model.py": "import transformer_engine.pytorch as te\nfrom transformer_engine.common.recipe import DelayedScaling\n"
                "from kernels.softmax import softmax\nlayer = te.Linear(8, 8)\nrecipe = DelayedScaling()\n"
                "with te.fp8_autocast(enabled=True, fp8_recipe=recipe):\n    y = softmax(layer(x))\n",
}


def test_ports_group_by_cause_one_per_kernel_module_and_library(scan_tree):
    report = scan_tree(TRITON_AND_TE, ["cann"])
    cann = report.targets[0]
    ports = [b for b in cann.blockers if b.status == Status.PORT]
    titles = sorted(b.title for b in ports)
    assert "triton kernels in kernels/softmax.py" in titles
    assert [t for t in titles if t.startswith("transformer_engine")] == ["transformer_engine (CUDA library)"]
    assert not [t for t in titles if t.startswith("triton.language")]
    grouped = next(b for b in ports if b.title.startswith("transformer_engine"))
    # te.Linear, DelayedScaling, fp8_autocast: sites of one port, the file's first use of the library
    (head,) = grouped.findings
    assert len([f for f in report.findings if f.root == head]) >= 2


TIMM_FUSED_NORM = '''
import torch
try:
    from apex.normalization import FusedLayerNorm
    has_apex = True
except ImportError:
    has_apex = False


def make_norm(dim):
    if has_apex:
        return FusedLayerNorm(dim)
    return torch.nn.LayerNorm(dim)
'''


def test_a_use_of_an_optional_import_with_a_fallback_is_not_a_blocker(scan_code):
    findings = by_rule(scan_code(TIMM_FUSED_NORM, ["cann"]), "cuda-library")
    assert [(f.api, f.verdicts["cann"].status) for f in findings] == [
        ("apex.normalization.FusedLayerNorm", Status.SUPPORTED)]
    assert "fallback runs instead" in findings[0].verdicts["cann"].message


def test_an_import_whose_handler_raises_is_not_optional(scan_code):
    code = TIMM_FUSED_NORM.replace("    has_apex = False\n", "    raise ImportError('this model needs apex')\n")
    statuses = {f.verdicts["cann"].status for f in by_rule(scan_code(code, ["cann"]), "cuda-library")}
    assert Status.SUPPORTED not in statuses and statuses


#: FastChat's and LLaVA's xformers attention patch: the handler only logs, so no name stands in for the library
XFORMERS_PATCH = '''
import logging
import torch
try:
    import xformers.ops
except ImportError:
    logging.error("xformers not found! Please install it before trying to use it.")


def xformers_forward(q, k, v):
    return xformers.ops.memory_efficient_attention(q, k, v, attn_bias=None)
'''


@pytest.mark.parametrize("handler, optional", [
    pytest.param('    logging.error("xformers not found!")\n', False, id="only-logs"),
    pytest.param("    pass\n", False, id="only-passes"),
    pytest.param("    HAS_XFORMERS = False\n", True, id="sets-a-flag"),
    pytest.param("    if sys.platform:\n        XFORMERS_OK = False\n", True, id="sets-a-flag-in-a-block"),
])
def test_a_use_of_an_import_whose_handler_binds_nothing_is_no_fallback(scan_code, handler, optional):
    code = XFORMERS_PATCH.replace('    logging.error("xformers not found! Please install it before trying to use '
                                  'it.")\n', handler)
    calls = [f for f in by_rule(scan_code(code, ["cann"]), "cuda-library") if f.api.endswith("_attention")]
    assert [f.verdicts["cann"].status == Status.SUPPORTED for f in calls] == [optional]


@pytest.mark.parametrize("probe, findings", [
    # T2T-ViT's (and timm's old train.py's) check for native AMP
    pytest.param("if getattr(torch.cuda.amp, 'autocast') is not None:\n    HAS_NATIVE_AMP = True\n", 0,
                 id="getattr-probe"),
    pytest.param("HAS_NATIVE_AMP = hasattr(torch.cuda.amp, 'autocast')\n", 0, id="hasattr-probe"),
    pytest.param("with torch.cuda.amp.autocast():\n    pass\n", 1, id="a-use"),
])
def test_probing_a_cuda_module_for_an_attribute_is_no_use_of_it(scan_code, probe, findings):
    found = [f for f in scan_code("import torch\n" + probe, ["cann"]) if f.category.value == "amp"]
    assert len(found) == findings, [(f.span.line, f.api) for f in found]


# ------------------------------------------------------------------------------ guards

TIMM_DISTRIBUTED_STYLE = '''
import torch


def device_synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize()
    elif device.type == "npu":
        torch.npu.synchronize()


def place(model):
    if torch.cuda.is_available():
        model = model.cuda()
    return model
'''


def _statuses(findings, target="cann"):
    return {(f.span.line, f.api): f.verdicts[target].status for f in findings}


def test_a_branch_on_the_device_type_with_a_target_branch_needs_no_change(scan_code):
    found = scan_code(TIMM_DISTRIBUTED_STYLE, ["cann", "kunlun"])
    cann = _statuses(found)
    assert cann[(6, "torch.device")] == Status.SUPPORTED  # the test: the npu branch runs instead
    assert cann[(7, "torch.cuda.synchronize")] == Status.SUPPORTED  # skipped on an NPU
    assert (9, "torch.npu.synchronize") not in cann  # the target's own branch is no torch op to judge
    assert _statuses(found, "kunlun")[(7, "torch.cuda.synchronize")] == Status.SUPPORTED  # runs as written


def test_code_under_is_available_is_a_site_of_the_guard(scan_code):
    found = scan_code(TIMM_DISTRIBUTED_STYLE, ["cann"])
    guard = next(f for f in found if f.api == "torch.cuda.is_available")
    move = next(f for f in found if f.api == "torch.Tensor.cuda")
    assert guard.verdicts["cann"].status == Status.REWRITE and "returns False on cann" in guard.verdicts["cann"].message
    assert move.root == guard.id and move.verdicts["cann"].status == Status.REWRITE  # fix still edits it


def test_a_cuda_only_call_outside_any_guard_stays_a_rewrite(scan_code):
    found = scan_code("import torch\nif step % 10 == 0:\n    torch.cuda.synchronize()\n", ["cann"])
    assert _statuses(found)[(3, "torch.cuda.synchronize")] == Status.REWRITE


HOST_ONLY_EXTENSION = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('pkg._io', ['csrc/decode.cpp'])])\n",
    "csrc/decode.cpp": '#include <torch/extension.h>\ntorch::Tensor decode(torch::Tensor bytes) { return bytes; }\n'
                       'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def("decode", &decode);\n}\n',
    "pkg/__init__.py": "",
    "pkg/data.py": "from pkg import _io\n\n\ndef load(raw):\n    return _io.decode(raw)\n",
}


def test_cpp_with_no_cuda_code_is_a_host_build_not_a_port(scan_tree):
    report = scan_tree(HOST_ONLY_EXTENSION, ["cann"])
    statuses = {(f.rule, f.api): f.verdicts["cann"].status for f in report.findings}
    assert statuses[("extension-build", "torch.utils.cpp_extension.CUDAExtension")] == Status.REWRITE
    assert statuses[("extension-call", "pkg._io.decode")] == Status.FALLBACK
    assert not [b for b in report.targets[0].blockers if b.status == Status.PORT]
    build = next(f for f in report.findings if f.rule == "extension-build")
    assert "CppExtension('pkg._io'" in build.verdicts["cann"].suggestion


def test_cpp_that_includes_cuda_headers_is_still_a_port(scan_tree):
    files = dict(HOST_ONLY_EXTENSION)
    files["csrc/decode.cpp"] = "#include <cuda_runtime.h>\n" + files["csrc/decode.cpp"]
    report = scan_tree(files, ["cann"])
    assert [b.status for b in report.targets[0].blockers if b.title.startswith("custom operator")] == [Status.PORT]


# ------------------------------------------------------------------------------ receivers

DETECTRON2_DATA_STYLE = '''
import numpy as np
import torch


def collect(records, boxes: "Boxes", image: np.ndarray, cfg: dict, feats: torch.Tensor):
    seen = set()
    ids = {}
    for r in records:
        seen.add(r["id"])
    names = list(ids.values())
    flipped = image.transpose(1, 0, 2)
    boxes = boxes.to(feats.device)
    keys = cfg.values()
    feats.add_(1.0)
    return seen, names, flipped, boxes, keys
'''


def test_builtin_containers_and_annotated_non_tensors_are_not_tensor_methods(scan_code):
    apis = [(f.span.line, f.api) for f in by_rule(scan_code(DETECTRON2_DATA_STYLE, ["cann"]), "torch-op")]
    assert apis == [(15, "torch.Tensor.add_")]  # the tensor's in-place add; no set.add, dict.values, Boxes.to


# ------------------------------------------------------------------------------ overloads from the call


@pytest.mark.parametrize("call, status", [
    pytest.param("torch.mode(x)", Status.FALLBACK, id="mode-plain-overload-has-no-kernel"),
    pytest.param("torch.mode(x, out=(values, indices))", Status.SUPPORTED, id="mode-out-overload-is-registered"),
    pytest.param("torch.special.zeta(x, q)", Status.FALLBACK, id="zeta-tensor-tensor-has-no-kernel"),
    pytest.param("torch.special.zeta(x, 2.0)", Status.SUPPORTED, id="zeta-scalar-overload-is-registered"),
])
def test_the_calls_own_arguments_say_which_overload_runs(scan_code, call, status):
    (found,) = by_rule(scan_code(f"import torch\ny = {call}\n", ["neuware"]), "torch-op")
    assert found.verdicts["neuware"].status == status, found.verdicts["neuware"].message


def test_explain_without_a_call_still_says_the_sources_disagree():
    from migrator.maps.coverage import api_coverage
    from migrator.maps.load import load_target

    coverage = api_coverage(load_target("neuware", "1.25-2.4"), "torch.mode")
    assert coverage.verdict.status == Status.PARTIAL and "sources disagree" in coverage.verdict.message


@pytest.mark.parametrize("dtypes, status, says", [
    pytest.param("fp32,fp16,bf16", "partial", "vendor notes that bite here: `input`仅支持fp16，fp32", id="bf16-bites"),
    pytest.param("fp32,fp16", "supported", "vendor notes that cannot bite here: `input`仅支持fp16，fp32", id="no-bf16"),
])
def test_explain_says_which_note_bites_for_the_dtypes_given(dtypes, status, says):
    import json

    from click.testing import CliRunner

    from migrator.cli import main

    result = CliRunner().invoke(main, ["explain", "torch.nn.Linear", "--target", "cann", "--dtypes", dtypes,
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)["verdicts"]["cann"]
    assert verdict["status"] == status and says in verdict["message"]


def test_explain_refuses_a_dtype_it_cannot_judge():
    from click.testing import CliRunner

    from migrator.cli import main

    result = CliRunner().invoke(main, ["explain", "torch.nn.Linear", "--dtypes", "fp8"])
    assert result.exit_code == 2 and "--dtypes takes fp32, fp16 and bf16" in result.output


# ------------------------------------------------------------------------------ the contract


def test_real_reports_hold_to_the_report_schema(tmp_path, scan_tree):
    """The bundled example and a project with tests, tooling and sites of a cause, as JSON, against
    reports/schema/report.schema.json: `context` and `root` are in it, with what they mean."""
    import io
    import json

    import jsonschema

    from migrator.report.json import render
    from migrator.maps.load import resolve_targets

    from .conftest import REPO

    schema = json.loads((REPO / "reports" / "schema" / "report.schema.json").read_text(encoding="utf-8"))
    project = scan_tree({"train.py": NANOGPT_STYLE, "tests/test_train.py": "import torch\ntorch.cuda.synchronize()\n",
                         **HOST_ONLY_EXTENSION})
    for report in (scan(ScanRequest(REPO / "examples", resolve_targets(None), jobs=1)), project):
        out = io.StringIO()
        render(report, out)
        document = json.loads(out.getvalue())
        jsonschema.validate(document, schema)
        contexts = {f["context"] for f in document["findings"]}
        assert "training" in contexts
    assert {"test", "training"} <= {f["context"] for f in document["findings"]}
    roots = {f["root"] for f in document["findings"] if f["root"]}
    assert roots and roots <= {f["id"] for f in document["findings"]}  # every root is a finding of the document
    bad = dict(document["findings"][0], context="library")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(dict(document, findings=[bad]), schema)


def test_committed_signatures_equal_a_fresh_read_of_torch():
    """operator_maps/signatures.json is generated (`migrator maps signatures`) from the torch the API table
    was traced with; with that torch installed, a fresh read gives the same table."""
    import json

    torch = pytest.importorskip("torch")
    from migrator.mapsbuild.signatures import build_signatures, noted_apis

    from .conftest import REPO

    committed = json.loads((REPO / "operator_maps" / "signatures.json").read_text(encoding="utf-8"))
    if torch.__version__.split("+")[0] not in committed["source"]:
        pytest.skip(f"the table was read from another torch: {committed['source']}")
    assert committed["apis"] == build_signatures(noted_apis())
    assert committed["apis"]["torch.argsort"] == ["input", "dim", "descending", "*", "stable"]
    # ``resize_(*sizes, memory_format=...)``: a size passed by place is no memory format
    assert committed["apis"]["torch.Tensor.resize_"] == ["*", "memory_format"]


@pytest.mark.parametrize("call, bites", [
    pytest.param("img.new().resize_(3).normal_(0, 0.1)", False, id="sizes-by-place"),
    pytest.param("img.new().resize_(3, memory_format=torch.channels_last)", True, id="a-memory-format-passed"),
])
def test_a_note_on_a_keyword_only_argument_bites_only_a_call_that_passes_it(scan_code, call, bites):
    """ViLT's ``Lighting`` transform: the cann note on ``memory_format`` is about an argument ``resize_(3)`` leaves."""
    found = [f for f in scan_code(f"import torch\n\n\ndef light(img):\n    return {call}\n", ["cann"])
             if f.api == "torch.Tensor.resize_"]
    assert found and ("memory_format" in found[0].verdicts["cann"].message
                      and "vendor notes that bite here" in found[0].verdicts["cann"].message) == bites


IMAGENET_DISTRIBUTED_STYLE = '''
import torch


def wrap(model, device, gpu):
    if device.type == 'cuda':
        torch.cuda.set_device(gpu)
        model.cuda(device)
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    return model
'''


def test_a_device_type_test_with_no_other_branch_decides_and_its_body_is_its_sites(scan_code):
    """Without an `else`, the body (the DDP wrap) is skipped on an NPU: not 'supported', but one cause, the test."""
    found = [f for f in scan_code(IMAGENET_DISTRIBUTED_STYLE, ["cann"]) if f.rule != "torch-op"]
    test = next(f for f in found if f.span.line == 6)
    assert test.verdicts["cann"].status == Status.REWRITE and test.root is None
    body = [f for f in found if f.span.line in (7, 8)]
    assert body and all(f.root == test.id and f.verdicts["cann"].status == Status.REWRITE for f in body)


def test_each_project_of_a_repository_of_examples_has_its_own_dtypes(scan_tree):
    """pytorch/examples: one folder a project. bf16 in one example does not make another's Linear partial,
    and a library's ops take the dtypes of the script that imports it."""
    report = scan_tree({
        "vae/main.py": "import torch\nmodel = torch.nn.Linear(20, 400)\n",
        "llama/model.py": "import torch\n\n\ndef head(dim):\n    return torch.nn.Linear(dim, 8)\n",
        "llama/train.py": "import torch\nfrom llama.model import head\nm = head(8).to(torch.bfloat16)\n",
    }, ["cann"])
    statuses = {f.path: f.verdicts["cann"].status for f in report.judged if f.api == "torch.nn.Linear"}
    assert statuses == {"vae/main.py": Status.SUPPORTED, "llama/model.py": Status.PARTIAL}


@pytest.mark.parametrize("call, dtypes, status", [
    pytest.param("F.pad(x, (1, 1))", {"fp32", "bf16"}, Status.SUPPORTED, id="default-mode"),
    pytest.param("F.pad(x, (1, 1), mode='reflect')", {"fp32", "bf16"}, Status.PARTIAL, id="mode-and-bf16"),
    pytest.param("F.pad(x, (1, 1), mode='reflect')", {"fp32"}, Status.SUPPORTED, id="mode-in-fp32"),
])
def test_a_dtype_list_under_an_argument_bites_only_when_both_hold(call, dtypes, status):
    from migrator.maps.signatures import api_parameters

    parameters = api_parameters("torch.nn.functional.pad")
    verdict = _verdict("属性`mode`非constant时，`input`仅支持fp16，fp32，fp64", parameters)
    code_args = [Argument(None, Value("other")), Argument(None, Value("other"))]
    if "mode=" in call:
        code_args.append(Argument("mode", Value("str", "reflect")))
    assert settle(for_call(verdict, code_args, parameters), DtypeProfile(frozenset(dtypes))).status == status


def test_a_test_of_the_bf16_path_does_not_make_the_project_compute_in_bf16(scan_tree):
    report = scan_tree({
        "pkg/__init__.py": "",
        "pkg/model.py": "import torch\n\n\ndef head(dim):\n    return torch.nn.Linear(dim, 8)\n",
        "tests/test_model.py": "import torch\nfrom pkg.model import head\n\n\ndef test_bf16():\n"
                               "    head(8).to(torch.bfloat16)\n",
    }, ["cann"])
    (linear,) = [f for f in report.judged if f.path == "pkg/model.py" and f.api == "torch.nn.Linear"]
    assert linear.verdicts["cann"].status == Status.SUPPORTED


def test_a_use_of_an_optional_import_still_names_the_vendors_own_path(scan_code):
    code = ("import torch.nn.functional as F\ntry:\n    from flash_attn import flash_attn_func\n    HAS_FLASH = True\n"
            "except ImportError:\n    HAS_FLASH = False\n\n\ndef attend(q, k, v):\n    if HAS_FLASH:\n"
            "        return flash_attn_func(q, k, v, causal=True)\n"
            "    return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n")
    (use,) = [f for f in by_rule(scan_code(code, ["cann"]), "cuda-library") if f.api == "flash_attn.flash_attn_func"]
    assert use.verdicts["cann"].status == Status.SUPPORTED  # the SDPA fallback runs on an NPU
    assert use.verdicts["cann"].suggestion.startswith("torch_npu.npu_fusion_attention(")
