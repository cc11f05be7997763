"""The one judge (``migrator/evidence.py``): a finding is work only on evidence that bites this call on this
target. Each class of evidence that does not bite has a case that leaves the worklist and a case that must stay
on it."""

import json

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.evidence import Bucket, active, bucket, counted_status, finding_bucket, grade
from migrator.model import Category, Context, Grade, Status

TRAIN = "import torch\nimport torch.nn.functional as F\n\n\ndef step(model, x, a):\n{body}\n"


def _one(report, api, rule="torch-op"):
    """The one use of ``api`` the scan judged, wherever the judge put it."""
    (found,) = [f for f in report.judged if f.api == api and f.rule == rule]
    return found


def _scan(scan_tree, body, targets=("cann", "neuware", "kunlun"), extra=None):
    return scan_tree({"train.py": TRAIN.format(body=body), **(extra or {})}, list(targets))


@pytest.mark.parametrize("body, api, target, stays", [
    # Paddle's XPU list lacks svd: substitute data about another stack, to validate on a Kunlunxin card
    pytest.param("    return torch.svd(a)", "torch.svd", "kunlun", False, id="kunlun-substitute-fallback"),
    # op-plugin registers no aten::_linalg_eigh: the target's own list is proof of a CPU fallback
    pytest.param("    return torch.linalg.eigh(a)", "torch.linalg.eigh", "cann", True, id="cann-missing-kernel"),
])
def test_substitute_data_is_to_validate_and_a_missing_kernel_is_work(scan_tree, body, api, target, stays):
    report = _scan(scan_tree, body)
    found = _one(report, api)
    verdict = found.verdicts[target]
    assert verdict.status == Status.FALLBACK
    assert grade(verdict) == (Grade.PROOF if stays else Grade.SUBSTITUTE)
    assert (found in report.findings) == stays and (found in report.validate) != stays
    assert counted_status(verdict) == (Status.FALLBACK if stays else Status.SUPPORTED)


@pytest.mark.parametrize("call, target, bites", [
    pytest.param("torch.topk(a, 3, sorted=True)", "neuware", False, id="topk-sorted-true-allowed"),
    pytest.param("torch.topk(a, 3, sorted=False)", "neuware", True, id="topk-sorted-false-left-out"),
    pytest.param("F.gelu(a, approximate='tanh')", "cann", False, id="gelu-tanh-allowed"),
    pytest.param("F.gelu(a, approximate='none')", "cann", True, id="gelu-none-left-out"),
    pytest.param("F.interpolate(a, scale_factor=2, mode='nearest')", "cann", True, id="argument-not-supported"),
    pytest.param("F.interpolate(a, size=(4, 4), mode='nearest')", "cann", False, id="argument-not-passed"),
])
def test_an_argument_note_bites_on_the_value_the_call_passes(scan_tree, call, target, bites):
    report = _scan(scan_tree, f"    return {call}")
    found = _one(report, call.split("(")[0].replace("F.", "torch.nn.functional."))
    verdict = found.verdicts[target]
    assert active(verdict) == bites, verdict.message
    if bites:
        assert verdict.status == Status.PARTIAL and grade(verdict) == Grade.CONDITION and found in report.findings


def test_a_value_the_code_computes_is_a_note_to_validate(scan_tree):
    report = _scan(scan_tree, "    keep = model.sorted_flag\n    return torch.topk(a, 3, sorted=keep)", ["neuware"])
    verdict = _one(report, "torch.topk").verdicts["neuware"]
    assert verdict.status == Status.PARTIAL and grade(verdict) == Grade.NOTE and bucket(verdict) == Bucket.VALIDATE


BF16_LINEAR = "import torch\n{first}\n\ndef step(a):\n    layer = torch.nn.Linear(4, 4){cast}\n    return layer(a)\n"


@pytest.mark.parametrize("first, cast, real", [
    # a framework's import says it may train in either 16-bit dtype; nothing here computes in bf16
    pytest.param("import accelerate", "", False, id="framework-import"),
    # the project casts its model to bf16: Ascend's "fp16, fp32 only" on Linear bites
    pytest.param("import accelerate", ".bfloat16()", True, id="bf16-cast"),
])
def test_a_bf16_limit_bites_a_project_that_computes_in_bf16_not_one_that_imports_a_framework(scan_tree, first, cast,
                                                                                             real):
    report = scan_tree({"train.py": BF16_LINEAR.format(first=first, cast=cast)}, ["cann"])
    uses = [f for f in report.judged if f.api == "torch.nn.Linear" and f.verdicts["cann"].status == Status.PARTIAL]
    assert uses
    assert all(active(f.verdicts["cann"]) == real for f in uses)


DISPATCH = (
    "import torch\nimport torch.distributed as dist\n\n"
    "BACKENDS = {'cuda': 'nccl', 'npu': 'hccl', 'cpu': 'gloo'}\n"
    "HABANA = {'cuda': 'nccl', 'hpu': 'hccl'}\n\n\n"
    "def setup(device):\n"
    "    kind = device.type if device.type in {'npu', 'xpu'} else 'cuda'\n"
    "    dist.init_process_group(BACKENDS[device.type])\n"
    "    scratch = torch.zeros(3, device='cuda')\n"
    "    return kind, scratch\n"
)


@pytest.mark.parametrize("line, rule, portable", [
    pytest.param(4, "device-string", True, id="table-with-an-npu-key"),
    pytest.param(4, "collective-backend", True, id="backend-in-a-table-with-an-npu-key"),
    pytest.param(9, "device-string", True, id="conditional-choosing-npu-first"),
    pytest.param(5, "collective-backend", False, id="table-for-another-vendor-only"),
    pytest.param(11, "device-argument", False, id="cuda-only-call-in-a-dispatching-file"),
])
def test_code_that_already_dispatches_per_device_is_portable_where_it_names_the_target(scan_tree, line, rule,
                                                                                      portable):
    report = scan_tree({"dist.py": DISPATCH}, ["cann", "neuware"])
    (found,) = [f for f in report.judged if f.span.line == line and f.rule == rule]
    cann, neuware = found.verdicts["cann"], found.verdicts["neuware"]
    assert (cann.status == Status.SUPPORTED) == portable, cann.message
    if portable:
        assert "already portable" in cann.message and "'npu'" in cann.message
        assert neuware.status == Status.REWRITE  # the table has no 'mlu' key: Cambricon still needs one
    else:
        assert active(cann)


def test_an_unmeasured_step_pattern_is_to_measure_not_work(scan_tree):
    loop = ("import torch\n\n\ndef train(model, loader, opt):\n    for x, y in loader:\n"
            "        loss = model(x.cuda(), y.cuda())\n        loss.backward()\n        opt.step()\n"
            "        print(loss.item())\n\n\nif __name__ == '__main__':\n    train(None, [], None)\n")
    report = scan_tree({"train.py": loop}, ["cann"])
    tune = [f for f in report.judged if f.category == Category.TUNE]
    assert tune and not [f for f in report.findings if f.category == Category.TUNE]
    assert all(grade(f.verdicts["cann"]) == Grade.NOTE and f in report.validate for f in tune)


def test_json_counts_agree_with_the_worklist_and_the_lists_apart(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN.format(body=(
        "    x = a.cuda()\n    torch.cuda.synchronize()\n    u = torch.svd(a)\n"
        "    v = torch.linalg.eigh(a)\n    w = torch.topk(a, 3, sorted=True)\n    return x, u, v, w")))
    out = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-cache", "--format", "json"]).output
    document = json.loads(out)
    for finding in document["findings"]:  # the worklist: work on some target, or the cause of such work
        assert any(v["active"] for v in finding["verdicts"].values()) or any(
            f["root"] == finding["id"] for f in document["findings"])
    for row in document["validate"] + document["data_gaps"]:
        assert not any(v["active"] for v in row["verdicts"].values())
    for target in document["targets"]:
        t = target["id"]
        worked = [f for f in document["findings"] if f["context"] == "training" and f["root"] is None
                  and f["verdicts"][t]["active"]]
        for status in ("rewrite", "fallback", "partial", "port", "unsupported"):
            assert target["counts"][status] == sum(1 for f in worked if f["verdicts"][t]["status"] == status)
        to_validate = ("substitute", "note")
        apart = sum(1 for row in document["validate"] for site in row["sites"]
                    if site["context"] == "training" and site["root"] is None
                    and row["verdicts"][t]["grade"] in to_validate)
        apart += sum(1 for f in document["findings"] if f["context"] == "training" and f["root"] is None
                     and not f["verdicts"][t]["active"] and f["verdicts"][t]["grade"] in to_validate)
        assert target["to_validate"] == apart
    apis = {row["api"] for row in document["validate"]}
    assert "torch.svd" in apis and "torch.linalg.eigh" in {f["api"] for f in document["findings"]}


def test_the_judge_puts_every_finding_in_one_bucket(example_report):
    work = {f.id for f in example_report.findings if finding_bucket(f) == Bucket.WORK}
    for finding in example_report.findings:  # work, the cause of work, or a site of a cause that is work
        assert (finding.id in work or any(f.root == finding.id for f in example_report.findings)
                or finding.root in work)
    for finding in example_report.validate:
        assert finding_bucket(finding) in (Bucket.VALIDATE, Bucket.GAP)
        assert not any(active(v) for v in finding.verdicts.values())  # nothing kept apart is work


TRITON_MODULE = ("import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                 "def scale(x_ptr, n, B: tl.constexpr):\n    i = tl.program_id(0)\n    offs = i * B + tl.arange(0, B)\n"
                 "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2, mask=offs < n)\n")


def test_a_triton_kernel_module_is_one_finding_not_one_a_name(scan_tree):
    report = scan_tree({"kern.py": TRITON_MODULE, "other.py": "import triton\n"}, ["cann"])
    uses = [f for f in report.findings if f.rule == "cuda-library"]
    heads = [f for f in uses if f.root is None]
    assert sorted((f.path, f.api) for f in heads) == [("kern.py", "triton"), ("other.py", "triton")]
    assert len(uses) > len(heads) and all(f.root == heads[0].id for f in uses if f.path == "kern.py" and f.root)
    (blocker,) = [b for b in report.targets[0].blockers if b.key == "triton:kern.py"]
    assert blocker.status == Status.PORT


OPTIONAL_BNB = (
    "import torch\nfrom .import_utils import is_bnb_available\n\n\n"
    "def quantise(weight):\n    if is_bnb_available():\n        import bitsandbytes as bnb\n"
    "        return bnb.nn.Params4bit(weight, requires_grad=False)\n    return weight\n\n\n"
    "def always(weight):\n    import bitsandbytes as bnb\n    return bnb.nn.Params4bit(weight)\n"
)


def test_a_library_imported_only_where_it_is_installed_is_optional_and_an_unguarded_one_is_a_port(scan_tree):
    report = scan_tree({"loftq.py": OPTIONAL_BNB}, ["cann"])
    by_line = {f.span.line: f for f in report.judged if f.rule == "cuda-library"}
    assert by_line[8].verdicts["cann"].status == Status.SUPPORTED  # runs only where bitsandbytes imported
    assert by_line[14].verdicts["cann"].status == Status.PORT and by_line[14] in report.findings


MEASURING = (
    "import torch\n\n\nclass Recipe:\n    def train(self, loader, model, opt):\n"
    "        for i, batch in enumerate(loader):\n"
    "            if (\n                self.profile_memory\n                and i == 3\n"
    "                and self._device.type == 'cuda'\n            ):\n"
    "                torch.cuda.memory._record_memory_history()\n"
    "            loss = model(batch)\n            loss.backward()\n            opt.step()\n"
    "            if self._device.type == 'cuda':\n                print(torch.cuda.max_memory_allocated())\n"
    "            if self._device.type == 'cuda':\n                torch.cuda.set_device(0)\n"
    "                torch.cuda.synchronize()\n"
)


@pytest.mark.parametrize("line, skipped", [
    pytest.param(10, True, id="multi-line-test-of-a-memory-history-branch"),
    pytest.param(12, True, id="memory-history-call"),
    pytest.param(16, True, id="test-of-a-logging-branch"),
    pytest.param(17, True, id="peak-memory-log"),
    pytest.param(18, False, id="test-of-a-branch-that-sets-the-device"),
    pytest.param(19, False, id="set-device-in-that-branch"),
])
def test_a_cuda_branch_that_only_measures_is_skipped_on_the_target_and_one_that_sets_up_is_work(scan_tree, line,
                                                                                              skipped):
    report = scan_tree({"recipe.py": MEASURING}, ["cann", "neuware"])
    (found,) = [f for f in report.judged if f.span.line == line and f.rule in ("device-string", "device-call")]
    for target in ("cann", "neuware"):
        verdict = found.verdicts[target]
        assert (verdict.status == Status.SUPPORTED) == skipped, verdict.message
        if skipped:
            assert "only measures" in verdict.message and "leave the test" in verdict.message


def test_a_vendor_note_conditioned_on_the_input_shape_is_a_note_even_for_the_value_it_names(scan_tree):
    report = _scan(scan_tree, "    return F.pad(a, (1, 1), mode='reflect')", ["neuware"])
    verdict = _one(report, "torch.nn.functional.pad").verdicts["neuware"]
    assert not active(verdict)  # "mode reflect or replicate: no 3-D padding": the rank is not in the call


@pytest.mark.parametrize("files, real", [
    # the project computes in bf16 in another file: a bf16 note on this file's call is to validate
    pytest.param({"ops.py": "import torch\n\n\ndef f(a):\n    return torch.log1p(a)\n",
                  "other.py": "import torch\nfrom ops import f\nx = torch.ones(2).to(torch.bfloat16)\n"},
                 False, id="bf16-elsewhere"),
    # the call's own file computes in bf16: the note bites here
    pytest.param({"ops.py": "import torch\n\n\ndef f(a):\n    return torch.log1p(a.to(torch.bfloat16))\n"},
                 True, id="bf16-here"),
])
def test_a_bf16_note_bites_where_the_file_computes_in_bf16(scan_tree, files, real):
    report = scan_tree(files, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.log1p"]
    verdict = found.verdicts["cann"]
    assert verdict.status == Status.PARTIAL and active(verdict) == real


def test_an_isinstance_check_against_a_cuda_library_class_needs_nothing_but_its_import(scan_tree):
    code = ("import bitsandbytes as bnb\n\n\ndef is_8bit(module):\n"
            "    return isinstance(module, (bnb.nn.Linear8bitLt, bnb.nn.Linear4bit))\n\n\n"
            "def make(n):\n    return bnb.nn.Linear8bitLt(n, n)\n")
    report = scan_tree({"quant.py": code}, ["cann"])
    by_line = {}
    for f in report.judged:
        by_line.setdefault(f.span.line, []).append(f)
    assert all(f.verdicts["cann"].status == Status.SUPPORTED for f in by_line[5])  # the type check
    assert by_line[1][0].verdicts["cann"].status == Status.PORT  # the import it names is the port
    assert by_line[9][0].verdicts["cann"].status != Status.SUPPORTED  # building one is real use


@pytest.mark.parametrize("code, on_device", [
    pytest.param("class Images(torch.utils.data.Dataset):\n    def __getitem__(self, i):\n"
                 "        return torch.linalg.eigh(self.x[i])\n", False, id="dataset-item"),
    pytest.param("def collate_batch(items):\n    return torch.linalg.eigh(torch.stack(items))\n", False,
                 id="collate-function"),
    pytest.param("class Head(torch.nn.Module):\n    def forward(self, x):\n        return torch.linalg.eigh(x)\n",
                 True, id="module-forward"),
])
def test_the_data_loaders_host_path_gets_no_device_verdict(scan_tree, code, on_device):
    report = scan_tree({"data.py": "import torch\n\n\n" + code}, ["cann"])
    found = [f for f in report.judged if f.api == "torch.linalg.eigh"]
    assert bool(found) == on_device


@pytest.mark.parametrize("api", ["torch.nn.LSTM", "torch.nn.TransformerEncoderLayer"])
def test_the_cpu_builds_own_kernels_in_the_trace_do_not_judge_a_device(api):
    from migrator.maps.coverage import api_coverage
    from migrator.maps.load import resolve_targets

    for target in resolve_targets(["cann", "neuware"]):
        verdict = api_coverage(target, api).verdict
        assert verdict.status != Status.FALLBACK and "CPU build's own kernels" in verdict.message


STEP = ("import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.basis = torch.linalg.eigh(torch.eye(4))[1]\n\n"
        "    def forward(self, x):\n        return torch.special.airy_ai(x @ self.basis)\n\n\n"
        "def train(loader):\n    net = Net()\n    opt = torch.optim.SGD(net.parameters(), 0.1)\n"
        "    for x in loader:\n        net(x).sum().backward()\n        opt.step()\n\n\n"
        "if __name__ == '__main__':\n    train([])\n")


@pytest.mark.parametrize("api, work", [
    pytest.param("torch.linalg.eigh", False, id="fallback-once-at-init"),
    pytest.param("torch.special.airy_ai", True, id="fallback-every-step-in-forward"),
])
def test_a_cpu_fallback_is_work_on_the_training_step_and_a_note_off_it(scan_tree, api, work):
    report = scan_tree({"train.py": STEP}, ["cann"])
    found = _one(report, api)
    verdict = found.verdicts["cann"]
    assert verdict.status == Status.FALLBACK and active(verdict) == work
    assert (found in report.findings) == work


ALLOWED = ("import torch\n\n\ndef offload(device_type):\n"
           "    if device_type != 'cuda' and device_type != 'xpu':\n        raise RuntimeError('CUDA or XPU only')\n"
           "    return device_type == 'cuda' or device_type == 'npu'\n")


@pytest.mark.parametrize("line, target, expect", [
    pytest.param(5, "cann", "add 'npu' beside them", id="allow-list-without-the-target"),
    pytest.param(7, "cann", "already portable", id="allow-list-with-the-target"),
    pytest.param(7, "neuware", "add 'mlu' beside them", id="allow-list-with-another-vendor"),
])
def test_a_list_of_allowed_devices_asks_for_the_targets_name_not_a_rename(scan_tree, line, target, expect):
    report = scan_tree({"offload.py": ALLOWED}, ["cann", "neuware"])
    (found,) = [f for f in report.judged if f.span.line == line and f.rule == "device-string"]
    verdict = found.verdicts[target]
    assert expect in verdict.message and not verdict.fixable and verdict.edit is None


OPTIONAL_MODULE = {
    "pkg/__init__.py": "",
    "pkg/import_utils.py": ("import importlib.util\n\n\ndef is_bnb_available():\n"
                            "    return importlib.util.find_spec('bitsandbytes') is not None\n"),
    "pkg/bnb.py": "import bitsandbytes as bnb\n\n\ndef quantise(w):\n    return bnb.nn.Params4bit(w)\n",
    "pkg/model.py": ("from .import_utils import is_bnb_available\n\nif is_bnb_available():\n"
                     "    from .bnb import quantise\n"),
    "tests/test_bnb.py": "from pkg.bnb import quantise\n",  # a test imports every module: not a user of it
}


@pytest.mark.parametrize("importer, optional", [
    pytest.param(OPTIONAL_MODULE["pkg/model.py"], True, id="imported-only-where-installed"),
    pytest.param("from .bnb import quantise\n", False, id="imported-unconditionally"),
])
def test_a_module_imported_only_where_a_library_is_installed_needs_no_port(scan_tree, importer, optional):
    report = scan_tree({**OPTIONAL_MODULE, "pkg/model.py": importer}, ["cann"])
    uses = [f for f in report.judged if f.path == "pkg/bnb.py" and f.rule == "cuda-library"]
    assert uses and all((f.verdicts["cann"].status == Status.SUPPORTED) == optional for f in uses)


@pytest.mark.parametrize("code, backward", [
    pytest.param("def assign(p, t):\n    return F.binary_cross_entropy(p, t)\n", True, id="with-autograd"),
    pytest.param("@torch.no_grad()\ndef assign(p, t):\n    return F.binary_cross_entropy(p, t)\n", False,
                 id="no-grad-decorator"),
    pytest.param("def assign(p, t):\n    with torch.no_grad():\n        return F.binary_cross_entropy(p, t)\n", False,
                 id="no-grad-block"),
])
def test_a_call_without_autograd_is_judged_by_its_forward_ops(scan_tree, code, backward):
    report = scan_tree({"head.py": "import torch\nimport torch.nn.functional as F\n\n\n" + code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.nn.functional.binary_cross_entropy"]
    assert any(op.endswith("_backward") for op in found.ops) == backward


def test_a_dtype_named_as_a_tables_key_chooses_nothing(scan_tree):
    code = ("import torch\n\n\ndef loss(logits, dtype):\n"
            "    clamp = {torch.float16: 11.0, torch.bfloat16: 80.0, torch.float32: 80.0}[dtype]\n"
            "    return torch.nn.functional.logsigmoid(logits.clamp(max=clamp))\n")
    report = scan_tree({"loss.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.nn.functional.logsigmoid"]
    assert found.verdicts["cann"].status == Status.SUPPORTED  # the project computes in fp32 here


def test_the_report_names_the_files_that_already_choose_the_targets_device(scan_tree):
    report = scan_tree({"dist.py": DISPATCH, "train.py": "import torch\nx = torch.zeros(2, device='cuda')\n"},
                       ["cann", "neuware"])
    by_id = {t.id: t for t in report.targets}
    assert by_id["cann"].selects_itself == ("dist.py",) and by_id["neuware"].selects_itself == ()


GPU_DEVICE = ("import torch\nimport torch.distributed as dist\n\n\nclass DeviceGPU:\n"
              "    dist_backend = 'nccl'\n\n    def __init__(self):\n        torch.cuda.set_device(0)\n"
              "        self._device = torch.device('cuda')\n")


@pytest.mark.parametrize("siblings, expect", [
    # composer's devices: GPU beside HPU and MPS, none for the NPU: one finding asks for a sibling
    pytest.param(("device_hpu.py", "device_mps.py"), "add one for npu beside it", id="siblings-for-other-devices"),
    # DeepSpeed's accelerators: the project's own NPU backend serves cann
    pytest.param(("device_hpu.py", "device_npu.py"), "its npu backend serves cann", id="sibling-for-the-target"),
])
def test_cudas_backend_among_per_device_siblings_is_not_renamed(scan_tree, siblings, expect):
    files = {"devices/device_gpu.py": GPU_DEVICE, **{f"devices/{s}": "class Device:\n    pass\n" for s in siblings}}
    report = scan_tree(files, ["cann"])
    inside = [f for f in report.judged if f.path == "devices/device_gpu.py"]
    assert inside and all(expect in f.verdicts["cann"].message for f in inside)
    assert all(f.verdicts["cann"].edit is None for f in inside)  # fix renames nothing in CUDA's backend
    if "add one" in expect:
        assert len([f for f in inside if f.root is None]) == 1  # one finding, the others its sites


def test_a_lone_cuda_file_without_siblings_is_judged_as_before(scan_tree):
    report = scan_tree({"devices/device_gpu.py": GPU_DEVICE}, ["cann"])
    assert any(f.verdicts["cann"].fixable for f in report.judged if f.path == "devices/device_gpu.py")


@pytest.mark.parametrize("code, library, port", [
    pytest.param("from numba import cuda\n\n\n@cuda.jit\ndef add(x, y, out):\n    out[cuda.grid(1)] = 1\n",
                 "numba.cuda", True, id="numba-cuda-kernel"),
    pytest.param("import numba\n\n\n@numba.jit(nopython=True)\ndef add(x, y):\n    return x + y\n",
                 "numba", False, id="numba-cpu-reference"),
    pytest.param("from nvidia.dali import pipeline_def, fn\n\n\n"
                 "@pipeline_def(batch_size=8, num_threads=2, device_id=0)\n"
                 "def images(files):\n    jpegs, labels = fn.readers.file(files=files)\n"
                 "    return fn.decoders.image(jpegs, device='mixed'), labels\n", "nvidia.dali", True,
                 id="dali-pipeline"),
    pytest.param("try:\n    from nvidia.dali import pipeline_def\nexcept ImportError:\n    pipeline_def = None\n",
                 "nvidia.dali", False, id="dali-optional"),
])
def test_cuda_only_libraries_beyond_torch_are_one_port_per_file(scan_tree, code, library, port):
    report = scan_tree({"data.py": code}, ["cann"])
    uses = [f for f in report.judged if f.rule == "cuda-library" and f.api.startswith(library)]
    heads = [f for f in uses if f.root is None and f.verdicts["cann"].status == Status.PORT]
    assert len(heads) == (1 if port else 0)


def test_a_dtype_choice_read_off_a_frameworks_import_is_to_validate(scan_tree):
    hooks = "from mmcv.runner import HOOKS\nimport torch\n\n\ndef f(x):\n    return torch.nn.Linear(4, 4)(x)\n"
    report = scan_tree({"hooks.py": hooks}, ["cann"])
    choices = [f for f in report.judged if f.rule == "dtype-limits"]
    assert choices and all(not active(f.verdicts["cann"]) and f not in report.findings for f in choices)


@pytest.mark.parametrize("path, context", [
    pytest.param("bench.py", Context.TOOLING, id="benchmark-script"),
    pytest.param("sample.py", Context.TOOLING, id="generation-script"),
    pytest.param("inference/inference_swinir.py", Context.TOOLING, id="inference-folder"),
    pytest.param("tools/demo.py", Context.TOOLING, id="demo"),
    pytest.param("notebooks/explore.ipynb", Context.TOOLING, id="notebooks-folder"),
    pytest.param("train.py", Context.TRAINING, id="training-script"),
    pytest.param("data/samplers.py", Context.TRAINING, id="a-sampler-is-training"),
    pytest.param("llm_trainer/evaluate.ipynb", Context.TRAINING, id="a-project-notebook-is-training"),
])
def test_demos_inference_and_benchmarks_are_tooling(path, context):
    from migrator.project.contexts import path_context

    assert path_context(path) == context


@pytest.mark.parametrize("code, seeded", [
    pytest.param("def seed_all(seed):\n    torch.manual_seed(seed)\n    torch.cuda.manual_seed_all(seed)\n", True,
                 id="beside-torch-manual-seed"),
    pytest.param("def seed_cuda(seed):\n    torch.cuda.manual_seed_all(seed)\n", False, id="the-only-seed-call"),
])
def test_a_cuda_seed_beside_torch_manual_seed_needs_nothing(scan_tree, code, seeded):
    report = scan_tree({"seeds.py": "import torch\n\n\n" + code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.cuda.manual_seed_all"]
    assert (found.verdicts["cann"].status == Status.SUPPORTED) == seeded
