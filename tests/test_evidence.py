"""The one judge (``migrator/evidence.py``): a finding is work only on evidence that bites this call on this
target. Each class of evidence that does not bite has a case that leaves the worklist and a case that must stay
on it."""

import json

import pytest
from click.testing import CliRunner

from migrator.assess import counted
from migrator.cli import main
from migrator.evidence import Bucket, active, bucket, counted_status, finding_bucket, grade
from migrator.model import Category, Context, Grade, Status

from .conftest import REPO

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
    # "不支持`scale_factor`" against the target's own upsample kernels: for the card to say (a note)
    pytest.param("F.interpolate(a, scale_factor=2, mode='nearest')", "cann", False,
                 id="argument-denied-whole-while-its-kernels-run"),
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
    # a framework's import: its mixed precision is fp16 unless the project asks for bf16, and nothing here does
    # (tsl's LightningDataModule, setfit's TrainerCallback made bf16 notes to validate before)
    pytest.param("import accelerate", "", None, id="framework-import"),
    # the project casts its model to bf16: Ascend's "fp16, fp32 only" on Linear bites
    pytest.param("import accelerate", ".bfloat16()", True, id="bf16-cast"),
    # the project asks its framework for bf16, in the code
    pytest.param("import lightning.pytorch as pl\nTRAINER = pl.Trainer(precision='bf16-mixed')", "", True,
                 id="bf16-asked-of-the-framework"),
    pytest.param("from transformers import TrainingArguments\nARGS = TrainingArguments('out', bf16=True)", "", True,
                 id="bf16-switched-on"),
])
def test_a_bf16_limit_bites_a_project_that_computes_in_bf16_not_one_that_imports_a_framework(scan_tree, first, cast,
                                                                                             real):
    report = scan_tree({"train.py": BF16_LINEAR.format(first=first, cast=cast)}, ["cann"])
    uses = [f for f in report.judged if f.api == "torch.nn.Linear" and f.verdicts["cann"].status == Status.PARTIAL]
    assert bool(uses) == (real is not None)
    assert all(active(f.verdicts["cann"]) == real for f in uses)


@pytest.mark.parametrize("item, work", [
    # stable-audio-tools' training steps: `with autocast() and set_grad_enabled(True):` enters only the second
    pytest.param("torch.cuda.amp.autocast() and torch.set_grad_enabled(True)", False, id="cuda-amp-before-and"),
    pytest.param("torch.autocast('cuda') and torch.no_grad()", False, id="autocast-before-and"),
    pytest.param("torch.cuda.amp.autocast(), torch.set_grad_enabled(True)", True, id="both-entered"),
])
def test_an_autocast_a_with_statement_never_enters_is_no_work(scan_tree, item, work):
    code = f"import torch\n\n\ndef step(model, x):\n    with {item}:\n        return model(x)\n"
    report = scan_tree({"train.py": code}, ["cann"])
    casts = [f for f in report.judged if "autocast" in f.api]
    assert casts and any(active(f.verdicts["cann"]) for f in casts) == work


@pytest.mark.parametrize("region, fp16", [
    # x_transformers' disable_autocast: a region kept in fp32 is no choice to compute in fp16
    pytest.param("torch.autocast('cuda', enabled=False)", False, id="autocast-switched-off"),
    pytest.param("torch.autocast('cuda')", True, id="autocast-on-in-fp16"),
])
def test_autocast_switched_off_is_no_choice_of_fp16(scan_tree, region, fp16):
    code = (f"import torch\n\n\ndef pick(x, mask):\n    with {region}:\n        return x.masked_select(mask)\n"
            "\n\ndef train(model, opt, x, mask):\n    for _ in range(2):\n        loss = pick(model(x), mask).sum()\n"
            "        loss.backward()\n        opt.step()\n")
    report = scan_tree({"train.py": code}, ["cann"])
    limits = [f for f in report.judged if f.rule == "dtype-limits"]
    assert bool(limits) == fp16, [(f.api, f.verdicts["cann"].message) for f in limits]


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


# sentence-transformers' get_device_name: a branch per accelerator, none for Cambricon
CHAIN = ("import os\nimport torch\nfrom transformers.utils import is_torch_npu_available\n\n\n"
         "def get_device_name():\n"
         "    if torch.cuda.is_available():\n"
         "        return f'cuda:{int(os.environ.get(\"LOCAL_RANK\", 0))}'\n"
         "    elif is_torch_npu_available():\n"
         "        return 'npu'\n"
         "    elif hasattr(torch, 'xpu') and torch.xpu.is_available():\n"
         "        return 'xpu'\n"
         "    return 'cpu'\n")


def test_a_cuda_test_in_a_chain_of_branches_per_accelerator_asks_for_a_branch_not_a_rename(scan_tree):
    report = scan_tree({"env.py": CHAIN}, ["cann", "neuware"])
    (test,) = [f for f in report.judged if f.span.line == 7 and f.api == "torch.cuda.is_available"]
    cann, neuware = test.verdicts["cann"], test.verdicts["neuware"]
    assert cann.status == Status.SUPPORTED and "already portable" in cann.message
    # renaming the test to torch.mlu.is_available would drop CUDA's branch: Cambricon needs a branch of its own
    assert neuware.status == Status.REWRITE and active(neuware) and neuware.edit is None
    assert "add a branch for 'mlu'" in neuware.message and "'npu', 'xpu'" in neuware.message


_ANY_GPU = "import torch\n\n\ndef gpu_available():\n    return torch.cuda.is_available() or {other}\n"


@pytest.mark.parametrize("code, line, beside", [
    # deepxde's and widedeep's ``if torch.cuda.is_available(): ... elif torch.backends.mps.is_available():``
    pytest.param(CHAIN.replace("elif is_torch_npu_available():", "elif torch.backends.mps.is_available():")
                 .replace("return 'npu'", "return 'mps'"), 7, True, id="a-chain-with-apples-branch"),
    # sbi's ``gpu_available()``: any of the accelerators it names
    pytest.param(_ANY_GPU.format(other="torch.backends.mps.is_available()"), 5, True, id="any-of-cuda-or-mps"),
    pytest.param(_ANY_GPU.format(other="False"), 5, False, id="cuda-or-nothing"),
])
def test_a_cuda_test_beside_another_accelerators_asks_for_the_targets_own(scan_tree, code, line, beside):
    """A device per accelerator: the target needs its own branch (or its own test beside), not CUDA's renamed."""
    report = scan_tree({"env.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.span.line == line and f.api == "torch.cuda.is_available"]
    cann = test.verdicts["cann"]
    assert cann.status == Status.REWRITE and ("add a branch for 'npu'" in cann.message) == beside
    assert cann.edit is None or not beside  # a branch beside is written by hand


@pytest.mark.parametrize("handler, handled", [
    ("    except NotImplementedError:\n        x = x.cpu().to_sparse_csr()\n", True),  # sentence-transformers
    ("    except Exception:\n        return None\n", True),
    ("    except NotImplementedError as e:\n        raise ValueError('needs CSR') from e\n", False),
    ("    except TypeError:\n        x = x.cpu().to_sparse_csr()\n", False),  # not what a missing kernel raises
], ids=["a-cpu-fallback", "gives-up-quietly", "raises-again", "catches-something-else"])
def test_an_op_whose_failure_the_code_catches_and_goes_on_is_to_validate(scan_tree, handler, handled):
    code = "import torch\n\n\ndef rows(x):\n    try:\n        x = x.to_sparse_csr()\n" + handler \
        + "    return x.crow_indices()\n"
    report = scan_tree({"sparsity.py": code}, ["cann"])
    (csr,) = [f for f in report.judged if f.span.line == 6]
    cann = csr.verdicts["cann"]
    assert active(cann) != handled, cann.message
    if handled:
        assert grade(cann) == Grade.NOTE and "catches this op's failure" in cann.message
        assert "not supported on cann" in cann.message  # what the data says is kept for the check on the card


_NATIVE = ("import torch\nfrom .loader import native_available\n\n\ndef pack(spike):\n"
           "    if native_available(__package__, spike.get_device()):\n"
           "        packed = torch.ops.sj_spike_linear.kernel_pack_rows(spike)\n{rest}    return packed\n")
_LIBRARY = 'TORCH_LIBRARY(sj_spike_linear, m) {\n  m.def("kernel_pack_rows(Tensor x) -> Tensor");\n}\n'


@pytest.mark.parametrize("rest, work", [
    # spikingjelly's spike_linear: the compiled op where its build loaded for the tensor's device, torch ops else
    ("    else:\n        packed = (spike > 0.5).to(torch.uint8)\n", False),
    ("", True),  # no other way: where the test fails, ``packed`` is unbound
], ids=["with-another-way", "without-one"])
def test_a_compiled_op_called_only_where_a_test_finds_its_build_is_to_validate(scan_tree, rest, work):
    report = scan_tree({"ops/pack.py": _NATIVE.format(rest=rest), "ops/csrc/pack.cpp": _LIBRARY}, ["cann"])
    (call,) = [f for f in report.judged if f.rule == "torch-ops-call"]
    cann = call.verdicts["cann"]
    assert active(cann) == work, cann.message
    if not work:
        assert grade(cann) == Grade.NOTE and "called only where the test above it finds the build" in cann.message


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
    # axolotl's kernel libraries: each launch beside the module's import was a head of its own
    launch = "\n\ndef run(x, n):\n    scale[(1,)](x, n, B=128)\n    return x\n"
    report = scan_tree({"kern.py": TRITON_MODULE + launch, "other.py": "import triton\n"}, ["cann"])
    launches = [f for f in report.judged if f.rule == "triton-launch"]
    assert launches and all(f.root is not None for f in launches)
    uses = [f for f in report.findings if f.rule == "cuda-library"]
    heads = [f for f in uses if f.root is None]
    # other.py only imports triton: no kernel of its own, a site of the kernel module's port (import-only roots)
    assert sorted((f.path, f.api) for f in heads) == [("kern.py", "triton")]
    assert len(uses) > len(heads) and all(f.root == heads[0].id for f in uses if f.root)
    (blocker,) = [b for b in report.targets[0].blockers if b.key == "triton:kern.py"]
    assert blocker.status == Status.PORT


KERNEL_ENTRY = ("\n\ndef scaled(x):\n    if x.device.type != 'cuda':\n"
                "        raise RuntimeError('the fused scale runs CUDA kernels')\n"
                "    with torch.cuda.device(x.device):\n        scale[(1,)](x, x.numel(), B=128)\n    return x\n")
#: DeepSpeed's ``triton_ops/_triton.py``: one module binds ``triton``, ``None`` where it does not import
OPTIONAL_TRITON = ("try:\n    import triton\n    import triton.language as tl\nexcept ImportError:\n"
                   "    triton = None\n    tl = None\n")


@pytest.mark.parametrize("files, worked", [
    # a refusal of other devices and the device around a launch change with the kernels' port, not before it
    pytest.param({"kern.py": TRITON_MODULE + KERNEL_ENTRY}, True, id="the-modules-port"),
    # DeepSpeed's fused RMSNorm: the kernels exist only where the project's `triton` imported
    pytest.param({"_triton.py": OPTIONAL_TRITON,
                  "kern.py": TRITON_MODULE.replace("import triton\nimport triton.language as tl\n",
                                                   "from _triton import triton, tl\n") + KERNEL_ENTRY},
                 False, id="optional-kernels-through-another-module"),
])
def test_a_triton_modules_device_handling_is_its_kernels_launch_protocol(scan_tree, files, worked):
    report = scan_tree(files, ["cann"])
    device = [f for f in report.judged if f.category == Category.DEVICE and f.path == "kern.py"]
    assert {f.rule for f in device} == {"device-string", "device-call"}
    if worked:  # sites of the module's Triton port: one item
        heads = {f.root for f in device if f.verdicts["cann"].status != Status.SUPPORTED}
        assert len(heads) == 1 and None not in heads
        assert next(f for f in report.judged if f.id in heads).verdicts["cann"].status == Status.PORT
    else:  # the target never launches them: nothing to rename, nothing to port
        (launch,) = [f for f in report.judged if f.rule == "triton-launch"]
        assert not any(active(f.verdicts["cann"]) for f in [*device, launch])


REGISTERED = ("\n\n@torch.library.custom_op('fused::scale', mutates_args=(), device_types='cuda')\n"
              "def scaled(x: torch.Tensor) -> torch.Tensor:\n    out = x.clone()\n{body}    return out\n")


@pytest.mark.parametrize("module, body, own_item", [
    # torchtitan's fused_swiglu: the op registered for CUDA launches the module's Triton kernel
    pytest.param(TRITON_MODULE, "    scale[(1,)](out, out.numel(), B=128)\n", False, id="registers-the-modules-kernel"),
    # a registration in torch operators runs on the target once its key is the target's
    pytest.param("import torch\n", "    out.mul_(2)\n", True, id="an-implementation-in-torch-operators"),
])
def test_a_cuda_registration_of_a_triton_modules_kernel_is_part_of_its_port(scan_tree, module, body, own_item):
    report = scan_tree({"fused.py": module + REGISTERED.format(body=body)}, ["cann"])
    (registration,) = [f for f in report.judged if f.rule == "torch-library-cuda"]
    assert (registration.root is None) == own_item
    if not own_item:
        (head,) = [f for f in report.findings if f.id == registration.root]
        assert head.rule == "cuda-library" and head.verdicts["cann"].status == Status.PORT


def test_a_read_of_a_librarys_version_runs_no_kernel(scan_tree):
    # unsloth's __init__: `Version(triton.__version__) >= Version("3.0.0")` before choosing a driver helper
    report = scan_tree({"pkg.py": "import triton\nNEW = triton.__version__ >= '3.0'\n"}, ["cann", "kunlun"])
    (version,) = [f for f in report.judged if f.api == "triton.__version__"]
    assert not any(active(v) for v in version.verdicts.values())
    (imported,) = [f for f in report.judged if f.api == "triton"]
    assert imported.verdicts["kunlun"].status == Status.PORT  # the import carries the library's port


FLASH_LAYER = ("import torch\n\ntry:\n    from flash_attn import flash_attn_func\nexcept ImportError:\n"
               "    flash_attn_func = None\n\n\nclass Attention(torch.nn.Module):\n    def __init__(self):\n"
               "        super().__init__()\n{check}\n    def forward(self, q, k, v):\n"
               "        if flash_attn_func is not None:\n            return flash_attn_func(q, k, v)\n"
               "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n")


@pytest.mark.parametrize("check, work", [
    # fla's attention layers: the handler binds None, and the constructor raises without the library
    pytest.param("        if flash_attn_func is None:\n            raise ImportError('install flash-attn')\n", True,
                 id="raises-without-it"),
    # classy_vision's apex: a flag the try binds, and a raise where a feature asks for it
    pytest.param("        if self.training and not flash_attn_func:\n"
                 "            raise RuntimeError('needs flash-attn')\n", True, id="raises-in-an-and"),
    pytest.param("        if flash_attn_func is None: raise ImportError('install flash-attn')\n", True,
                 id="raises-on-the-tests-line"),
    # a real fallback: SDPA where flash_attn is missing
    pytest.param("        pass\n", False, id="falls-back"),
])
def test_an_optional_import_the_module_raises_without_is_required(scan_tree, check, work):
    report = scan_tree({"attn.py": FLASH_LAYER.format(check=check)}, ["cann"])
    uses = [f for f in report.judged if f.api.startswith("flash_attn")]  # (one that runs as written: not listed)
    assert any(active(f.verdicts["cann"]) for f in uses) == work, [f.verdicts["cann"].message for f in uses]


def test_a_raise_inside_the_optional_try_itself_makes_nothing_required(scan_tree):
    # xtuner's phi3 dispatch: the try raises only where flash_attn imported but is too old
    code = ("import inspect\nimport torch\n\nsupports_window = False\ntry:\n"
            "    from flash_attn import flash_attn_func\n"
            "    supports_window = 'window_size' in inspect.signature(flash_attn_func).parameters\n"
            "    if not supports_window:\n        raise ValueError('update flash-attn')\nexcept ImportError:\n"
            "    pass\n")
    report = scan_tree({"phi3.py": code}, ["cann"])
    uses = [f for f in report.judged if f.api.startswith("flash_attn")]
    assert not any(active(f.verdicts["cann"]) for f in uses), [f.verdicts["cann"].message for f in uses]


OPTIONAL_BNB = (
    "import torch\nfrom .import_utils import is_bnb_available\n\n\n"
    "def quantise(weight):\n    if is_bnb_available():\n        import bitsandbytes as bnb\n"
    "        return bnb.nn.Params4bit(weight, requires_grad=False)\n    return weight\n\n\n"
    "def always(weight):\n    import bitsandbytes as bnb\n    return bnb.nn.Params4bit(weight)\n"
)


@pytest.mark.parametrize("predicate", [
    "is_bnb_available",
    # nanotron's attention: transformers' version predicate, False where the library is missing
    "is_bnb_greater_or_equal_0_43",
    "is_bnb_installed",
])
def test_a_library_imported_only_where_it_is_installed_is_optional_and_an_unguarded_one_is_a_port(scan_tree,
                                                                                                   predicate):
    report = scan_tree({"loftq.py": OPTIONAL_BNB.replace("is_bnb_available", predicate)}, ["cann"])
    by_line = {f.span.line: f for f in report.judged if f.rule == "cuda-library"}
    assert by_line[8].verdicts["cann"].status == Status.SUPPORTED  # runs only where bitsandbytes imported
    assert by_line[14].verdicts["cann"].status == Status.PORT and by_line[14] in report.findings


# nanotron's attention: the module imports flash_attn under a version test, its default attention uses it outside
TESTED_IMPORT = (
    "import torch\nfrom .import_utils import is_bnb_available\n\nif is_bnb_available():\n"
    "    import bitsandbytes as bnb\n\n\ndef quantise(weight):\n    return bnb.nn.Params4bit(weight)\n\n\n"
    "def maybe(weight):\n    if is_bnb_available():\n        return bnb.nn.Params4bit(weight)\n    return weight\n"
)


def test_a_use_of_an_import_only_an_availability_test_makes_is_optional_only_under_such_a_test(scan_tree):
    """Where bitsandbytes is missing ``bnb`` is unbound: ``quantise`` raises (a port), ``maybe`` takes its way."""
    report = scan_tree({"quant.py": TESTED_IMPORT}, ["cann"])
    uses = {f.scope.rpartition(".")[2]: f for f in report.judged
            if f.rule == "cuda-library" and f.api.endswith("Params4bit")}
    assert uses["quantise"].verdicts["cann"].status == Status.PORT
    assert uses["maybe"].verdicts["cann"].status == Status.SUPPORTED


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
    "            if self.device == 'cuda':\n                torch.cuda.set_sync_debug_mode('warn')\n"
)


@pytest.mark.parametrize("line, skipped", [
    pytest.param(10, True, id="multi-line-test-of-a-memory-history-branch"),
    pytest.param(12, True, id="memory-history-call"),
    pytest.param(16, True, id="test-of-a-logging-branch"),
    pytest.param(17, True, id="peak-memory-log"),
    pytest.param(18, False, id="test-of-a-branch-that-sets-the-device"),
    pytest.param(19, False, id="set-device-in-that-branch"),
    pytest.param(21, True, id="test-of-a-sync-debug-branch"),
    pytest.param(22, True, id="sync-debug-switch"),
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
    assert by_line[9][0].verdicts["cann"].status == Status.REWRITE  # building one is real use: torch.nn.Linear
    assert active(by_line[9][0].verdicts["cann"])
    # the import's work is at that use (its data names the swap): the import itself is a note to validate (the
    # type check keeps it, and bitsandbytes must then install for the target's torch)
    assert not active(by_line[1][0].verdicts["cann"])


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
        assert verdict.status != Status.FALLBACK and "ops the trace ran only on the CPU" in verdict.message


@pytest.mark.parametrize("api, status", [
    # deepod's TranAD: a container of the project's layers, documented as not supported on Ascend, whose traced
    # ops all have kernels there: to try on the card, not a port
    pytest.param("torch.nn.TransformerDecoder", None, id="a-container-whose-ops-run"),
    # sample-factory's shared buffers: host shared memory for worker processes, no device kernel traced
    pytest.param("torch.Tensor.share_memory_", None, id="host-shared-memory"),
    # ... while a documented row whose one op has no kernel stays a port
    pytest.param("torch.nn.MultiLabelMarginLoss", Status.UNSUPPORTED, id="its-own-backward-missing"),
])
def test_a_module_documented_as_unsupported_is_judged_with_its_trace(api, status):
    from migrator.maps.coverage import api_coverage
    from migrator.maps.load import resolve_targets

    (cann,) = resolve_targets(["cann"])
    verdict = api_coverage(cann, api).verdict
    assert "(traced)" in verdict.message or "aten" in verdict.message, verdict.message
    assert active(verdict) == (status is not None), verdict.message


STEP = ("import torch\n\n\nclass HuberQLoss:\n    def __call__(self, y, y_hat):\n"
        "        return torch.nn.functional.huber_loss(y, y_hat)\n\n\n"
        "class Gamma:\n    def log_prob(self, x):\n        return torch.lgamma(x)\n\n\n"
        "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.basis = torch.linalg.eigh(torch.eye(4))[1]\n"
        "        self.proj = torch.nn.utils.weight_norm(torch.nn.Linear(4, 4))\n\n"
        "    def forward(self, x):\n        return torch.special.airy_ai(x @ self.basis)\n\n\n"
        "def train(loader):\n    net = Net()\n    opt = torch.optim.SGD(net.parameters(), 0.1)\n"
        "    for x in loader:\n        net(x).sum().backward()\n        opt.step()\n\n\n"
        "if __name__ == '__main__':\n    train([])\n")


@pytest.mark.parametrize("api, work", [
    pytest.param("torch.linalg.eigh", False, id="fallback-once-at-init"),
    pytest.param("torch.special.airy_ai", True, id="fallback-every-step-in-forward"),
    # a loss chosen by configuration is called where no graph follows: a training run computes it every step
    pytest.param("torch.nn.functional.huber_loss", True, id="a-loss-computes-every-step"),
    # pyro's distributions: a probabilistic model's loss is made of its log-densities
    pytest.param("torch.lgamma", True, id="a-log-density-computes-every-step"),
])
def test_a_cpu_fallback_is_work_on_the_training_step_and_a_note_off_it(scan_tree, api, work):
    report = scan_tree({"train.py": STEP}, ["cann"])
    found = _one(report, api)
    verdict = found.verdicts["cann"]
    assert verdict.status == Status.FALLBACK and active(verdict) == work
    assert (found in report.findings) == work


@pytest.mark.parametrize("node, off", [
    pytest.param("pkg.diffusion.GaussianDiffusion._predict_xstart_from_eps", False, id="a-loss-helper-that-predicts"),
    pytest.param("pkg.sampler.PDFSampler.generate_ray_samples", False, id="a-step-that-generates"),
    pytest.param("pkg.trainer.Trainer.evaluate", True, id="evaluation"),
    pytest.param("pkg.lm.LM.generate", True, id="generation"),
    pytest.param("peft.tuners.oft.layer.Linear.unmerge", True, id="an-adapters-unmerge"),
])
def test_a_functions_name_puts_it_off_the_step_by_its_words(node, off):
    from migrator.project.step import off_the_step

    assert off_the_step(node) == off


ADAPTER = ("import torch\n\n\nclass AdapterLayer:\n"
           "    def {name}(self, x=None):\n        return self.weight.data @ torch.linalg.inv(self.rotation)\n")


@pytest.mark.parametrize("name, work", [
    # peft's OFT and RoAd: no training loop in a library, yet `unmerge` is no step of one
    pytest.param("unmerge", False, id="unmerge-after-training"),
    pytest.param("merge", False, id="merge-after-training"),
    # nothing says when the library calls it: the step may
    pytest.param("rotate", True, id="a-method-the-step-may-call"),
])
def test_without_a_training_loop_a_fallback_named_off_the_step_is_a_note(scan_tree, name, work):
    report = scan_tree({"adapter.py": ADAPTER.format(name=name)}, ["cann"])
    (inv,) = [f for f in report.judged if f.api == "torch.linalg.inv" and f.rule == "torch-op"]
    assert inv.verdicts["cann"].status == Status.FALLBACK and active(inv.verdicts["cann"]) == work


@pytest.mark.parametrize("built, work", [
    # asteroid's beamformers: modules of the library its own scripts never build
    pytest.param("Net()", False, id="a-module-no-entry-point-reaches"),
    pytest.param("Beamformer()", True, id="a-module-the-training-script-builds"),
])
def test_a_fallback_in_a_module_no_entry_point_reaches_is_a_note(scan_tree, built, work):
    beam = ("import torch\n\n\nclass Beamformer(torch.nn.Module):\n"
            "    def forward(self, x):\n        return torch.linalg.eigh(x @ x.transpose(-1, -2))[1]\n")
    train = STEP.replace("net = Net()", f"net = {built}").replace("import torch\n", "import torch\n"
                                                                  "from pkg.beam import Beamformer\n", 1)
    report = scan_tree({"pkg/__init__.py": "", "pkg/beam.py": beam, "train.py": train}, ["cann"])
    (eigh,) = [f for f in report.judged if f.api == "torch.linalg.eigh" and f.path == "pkg/beam.py"]
    assert eigh.verdicts["cann"].status == Status.FALLBACK and active(eigh.verdicts["cann"]) == work, \
        (eigh.reachable, eigh.verdicts["cann"].message)


_NB_LOSS = ("import torch\n\n\ndef log_nb(x, mu, theta, {param}):\n"
            "    return lgamma_fn(x + theta) - lgamma_fn(theta) + x * torch.log(mu)\n\n\n"
            "def train(model, opt, x):\n    for _ in range(3):\n        loss = -log_nb(x, model(x), x).sum()\n"
            "        loss.backward()\n        opt.step()\n")


@pytest.mark.parametrize("param, judged", [
    # scvi-tools' negative-binomial loss: the op handed in as a default is what every step calls
    pytest.param("lgamma_fn=torch.lgamma", True, id="a-parameters-default"),
    # one entry of a table of choices runs, chosen elsewhere: no use of each entry
    pytest.param("lgamma_fn={'lgamma': torch.lgamma, 'log': torch.log}['log']", False, id="a-tables-entry"),
    # named for a type check, not called
    pytest.param("lgamma_fn=isinstance(torch.lgamma, type)", False, id="named-not-called"),
])
def test_a_torch_function_handed_on_as_a_value_is_a_use_of_it(scan_tree, param, judged):
    report = scan_tree({"nb.py": _NB_LOSS.format(param=param)}, ["cann"])
    uses = [f for f in report.judged if f.api == "torch.lgamma" and f.rule == "torch-op"]
    assert bool(uses) == judged
    assert all(f in report.findings and f.verdicts["cann"].status == Status.FALLBACK for f in uses)


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
    # solo-learn's DALI loader: imported unconditionally, but only by a module that is itself optional
    pytest.param(OPTIONAL_MODULE["pkg/model.py"].replace("from .bnb import quantise", "from .quantised import *"),
                 True, id="imported-by-an-optional-module"),
    pytest.param("from .quantised import quantise_all\n", False, id="imported-by-an-unconditional-module"),
])
def test_a_module_imported_only_where_a_library_is_installed_needs_no_port(scan_tree, importer, optional):
    between = {"pkg/quantised.py": "from .bnb import quantise\n\n\ndef quantise_all(ws):\n"
                                   "    return [quantise(w) for w in ws]\n"} if "quantised" in importer else {}
    report = scan_tree({**OPTIONAL_MODULE, "pkg/model.py": importer, **between}, ["cann"])
    uses = [f for f in report.judged if f.path == "pkg/bnb.py" and f.rule == "cuda-library"]
    assert uses and all((f.verdicts["cann"].status == Status.SUPPORTED) == optional for f in uses)


# spikingjelly's neuron ops: a provider per backend, each loaded by name where it imports, the torch one always there
PROVIDERS = {
    "ops/__init__.py": "from .selection import forward\n",
    "ops/selection.py": ("import importlib\n\n\ndef forward(x, backend):\n    for name in (backend, 'reference'):\n"
                         "        try:\n            module = importlib.import_module(f'.{name}', __package__)\n"
                         "        except ImportError:\n            continue\n        return module.forward(x)\n"),
    "ops/fast.py": "import triton\n\n\ndef forward(x):\n    return x\n",
    "ops/reference.py": "import torch\n\n\ndef forward(x):\n    return torch.relu(x)\n",
}


@pytest.mark.parametrize("loader, optional", [
    pytest.param(PROVIDERS["ops/selection.py"], True, id="loaded-by-name-where-it-imports"),
    pytest.param(PROVIDERS["ops/selection.py"].replace("        except ImportError:\n            continue\n",
                                                       "        finally:\n            pass\n"), False,
                 id="loaded-by-name-unguarded"),
])
def test_a_module_a_package_loads_by_name_where_it_imports_needs_no_port(scan_tree, loader, optional):
    report = scan_tree({**PROVIDERS, "ops/selection.py": loader}, ["cann"])
    (triton,) = [f for f in report.judged if f.path == "ops/fast.py" and f.rule == "cuda-library"]
    assert (triton.verdicts["cann"].status == Status.SUPPORTED) == optional, triton.verdicts["cann"].message
    if optional:
        assert "ops/selection.py" in triton.verdicts["cann"].message
        assert "by a name computed at run time" in triton.verdicts["cann"].message


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


@pytest.mark.parametrize("call, reduction", [
    pytest.param("torch.sparse.mm(adj, x)", False, id="coo-times-dense"),
    pytest.param("torch.sparse.mm(adj, x, reduce='max')", True, id="a-reduction-by-keyword"),
    pytest.param("torch.sparse.mm(adj, x, 'mean')", True, id="a-reduction-by-position"),
])
def test_a_call_is_judged_by_the_ops_its_arguments_take(scan_tree, call, reduction):
    """torch's sparse.mm samples all pass a reduction (CSR's reduction kernel); a graph convolution's call passes
    none and multiplies a COO adjacency by dense features (torchdrug's conv layers)."""
    report = scan_tree({"conv.py": f"import torch\n\n\ndef propagate(adj, x):\n    return {call}\n"}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.sparse.mm"]
    assert ("aten::_sparse_mm_reduce_impl" in found.ops) == reduction
    assert ("aten::_sparse_addmm" in found.ops) != reduction


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
    pytest.param(("hpu", "mps"), "add one for npu beside it", id="siblings-for-other-devices"),
    # DeepSpeed's accelerators: the project's own NPU backend serves cann
    pytest.param(("hpu", "npu"), "its npu backend serves cann", id="sibling-for-the-target"),
])
@pytest.mark.parametrize("cuda_file, sibling", [
    pytest.param("device_gpu.py", "device_{}.py", id="same-words"),
    # colossalai's extensions: flash_attention_dao_cuda.py beside flash_attention_npu.py, a variant's word gone
    pytest.param("device_dao_gpu.py", "device_{}.py", id="a-variant-of-cudas"),
    # Lightning's accelerators: cuda.py beside mps.py and xla.py, named for the device alone
    pytest.param("cuda.py", "{}.py", id="named-for-the-device-alone"),
])
def test_cudas_backend_among_per_device_siblings_is_not_renamed(scan_tree, siblings, expect, cuda_file, sibling):
    files = {f"devices/{cuda_file}": GPU_DEVICE,
             **{f"devices/{sibling.format(s)}": "class Device:\n    pass\n" for s in siblings}}
    report = scan_tree(files, ["cann"])
    inside = [f for f in report.judged if f.path == f"devices/{cuda_file}"]
    assert inside and all(expect in f.verdicts["cann"].message for f in inside)
    assert all(f.verdicts["cann"].edit is None for f in inside)  # fix renames nothing in CUDA's backend
    if "add one" in expect:
        assert len([f for f in inside if f.root is None]) == 1  # one finding, the others its sites


def test_a_lone_cuda_file_without_siblings_is_judged_as_before(scan_tree):
    report = scan_tree({"devices/device_gpu.py": GPU_DEVICE}, ["cann"])
    assert any(f.verdicts["cann"].fixable for f in report.judged if f.path == "devices/device_gpu.py")


ASCEND_KERNEL = ("import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                 "def swiglu(x_ptr, n, B: tl.constexpr):\n    i = tl.program_id(0)\n\n\n"
                 "def run(x):\n    swiglu[(1,)](x, x.numel(), B=128)\n    return x.to('cuda')\n")


@pytest.mark.parametrize("path, work", [
    # liger's own Ascend backend, for triton-ascend: cann's code, and a folder no other target loads
    pytest.param("ops/backends/_ascend/swiglu.py", False, id="a-folder-named-for-the-targets-device"),
    pytest.param("ops/hpu/swiglu.py", False, id="a-folder-named-for-another-device"),
    pytest.param("ops/swiglu_mlu.py", False, id="a-file-named-for-a-device"),
    pytest.param("ops/swiglu.py", True, id="the-shared-kernel"),
    pytest.param("models/neuron_swiglu.py", True, id="a-word-that-names-more-than-a-device"),
    pytest.param("ops/npu_gpu_swiglu.py", True, id="named-for-cuda-as-well"),
])
def test_code_in_a_file_written_for_one_device_is_that_devices(scan_tree, path, work):
    report = scan_tree({path: ASCEND_KERNEL}, ["cann", "neuware", "kunlun"])
    mine = [f for f in report.findings if f.path == path and f.root is None]
    assert any(active(v) for f in mine for v in f.verdicts.values()) == work
    if not work:  # a file's name says what it is for; it proves nothing: to validate
        assert all(grade(v) == Grade.NOTE for f in report.judged if f.path == path for v in f.verdicts.values()
                   if v.status == Status.SUPPORTED and v.source.startswith("the project's own per-device code"))


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


@pytest.mark.parametrize("init, device", [
    # speechbrain's NMFDecoderAudio documents a `device` it never reads
    pytest.param("    def __init__(self, n, device='cuda'):\n        super().__init__()\n"
                 "        self.w = torch.nn.Parameter(torch.rand(n, n))\n", False, id="never-read"),
    pytest.param("    def __init__(self, n, device='cuda'):\n        super().__init__()\n"
                 "        self.w = torch.nn.Parameter(torch.rand(n, n, device=device))\n", True, id="read"),
])
def test_a_device_default_the_function_never_reads_is_no_device(scan_tree, init, device):
    code = "import torch\n\n\nclass Decoder(torch.nn.Module):\n" + init
    report = scan_tree({"decoder.py": code}, ["cann"])
    found = [f for f in report.findings if f.rule == "device-string" and active(f.verdicts["cann"])]
    assert bool(found) == device


@pytest.mark.parametrize("method, device", [
    # pyannote's Pipeline.cuda(): CUDA's shortcut beside to(); a caller on the target uses to()
    pytest.param("cuda", False, id="the-classs-own-cuda-method"),
    # the same line in any other method is a device the code chooses
    pytest.param("place", True, id="another-method"),
])
def test_a_device_inside_a_classs_own_cuda_method_needs_nothing(scan_tree, method, device):
    code = ("import torch\n\n\nclass Pipeline:\n    def to(self, device):\n        self.device = device\n"
            "        return self\n\n    def {m}(self, index=None):\n"
            "        return self.to(torch.device('cuda', index))\n").format(m=method)
    report = scan_tree({"pipeline.py": code}, ["cann"])
    found = [f for f in report.findings if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(found) == device


SEPARATOR = ("import torch\n\n\nclass Separator:\n"
             "    def __init__(self, model, device='cuda' if torch.cuda.is_available() else 'cpu'):\n"
             "        self.device = device\n        self.model = model.to(device)\n")


@pytest.mark.parametrize("call, work", [
    # demucs's Separator: every project call passes the device, so the default's test reaches no run of it
    pytest.param("Separator(model, device=args.device)", False, id="every-call-passes-it"),
    pytest.param("Separator(model)", True, id="a-call-without-it"),
])
def test_an_availability_test_in_a_default_every_call_overrides_is_to_validate(scan_tree, call, work):
    cli = f"from api import Separator\n\n\ndef main(model, args):\n    return {call}\n"
    # ultralytics' INT8 export calls its loader builder without the device: an exporter's call reaches no training
    export = "from api import Separator\n\n\ndef calibrate(model):\n    return Separator(model)\n"
    report = scan_tree({"api.py": SEPARATOR, "cli.py": cli, "exporter.py": export}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available" and f.path == "api.py"]
    assert active(test.verdicts["cann"]) == work


DISTRIBUTION = ("import torch\n\n\nclass DiagonalGaussian:\n    def __init__(self, params):\n"
                "        self.mean, self.logvar = torch.chunk(params, 2, dim=1)\n\n"
                "    def mode(self):\n        return self.mean\n")


@pytest.mark.parametrize("files, work", [
    # diffusers' retrieve_latents: `latent_dist.mode()` is its DiagonalGaussianDistribution's, not aten::mode
    pytest.param({"dist.py": DISTRIBUTION}, False, id="the-project-defines-mode"),
    # no class of the project defines it: the tensor op, with the kernel list's proof
    pytest.param({}, True, id="only-the-tensor-op"),
])
def test_a_tensor_methods_name_the_project_defines_is_to_validate(scan_tree, files, work):
    encode = ("import torch\n\n\ndef retrieve_latents(encoder_output):\n"
              "    return encoder_output.latent_dist.mode()\n")
    report = scan_tree({"latents.py": encode, **files}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.Tensor.mode" and f.rule == "torch-op"]
    assert found.verdicts["cann"].status != Status.SUPPORTED and active(found.verdicts["cann"]) == work


PROBES = ("import importlib.util\n\n\ndef is_bnb_available():\n"
          "    return importlib.util.find_spec('bitsandbytes') is not None\n\n\n")


@pytest.mark.parametrize("code, port", [
    # peft's import_utils: a function named for what it probes imports the library to look inside it
    pytest.param(PROBES + "def is_bnb_4bit_available():\n    import bitsandbytes as bnb\n"
                 "    return hasattr(bnb.nn, 'Linear4bit')\n", False, id="probe-function"),
    # after `if not is_x_available(): return`, what the block imports is there only where it is installed
    pytest.param(PROBES + "def linear(n):\n    if not is_bnb_available():\n        return None\n"
                 "    import bitsandbytes as bnb\n    return bnb.nn.Linear8bitLt(n, n)\n", False,
                 id="rest-after-not-available"),
    # the same import where nothing asked whether the library is there: the code needs it
    pytest.param(PROBES + "def linear(n):\n    import bitsandbytes as bnb\n    return bnb.nn.Linear8bitLt(n, n)\n",
                 True, id="unasked-import"),
])
def test_an_import_after_asking_whether_the_library_is_installed_is_no_port(scan_tree, code, port):
    report = scan_tree({"quant.py": code}, ["cann"])
    ports = [f for f in report.findings if f.rule == "cuda-library" and active(f.verdicts["cann"])]
    assert bool(ports) == port, [(f.span.line, f.snippet, f.verdicts["cann"].message) for f in ports]


@pytest.mark.parametrize("code, device", [
    # composer's trainer: a word looked for in an error's message
    pytest.param("    try:\n        return step()\n    except RuntimeError as e:\n"
                 "        if 'cuda' in str(e).lower():\n            raise ValueError('device error') from e\n"
                 "        raise\n", False, id="word-in-an-error-message"),
    # the same test on a device's name is a device test
    pytest.param("    if 'cuda' in str(x.device):\n        torch.cuda.set_device(x.device)\n    return step()\n", True,
                 id="word-in-a-device-name"),
    # composer's memory monitor: every device but CUDA (and meta) is told the monitor is off
    pytest.param("    if x.device.type not in ('cuda', 'meta'):\n        warnings.warn('monitor off')\n"
                 "    return step()\n", False, id="not-in-a-tuple-takes-the-general-path"),
    # a flag one `if` uses for a check and another for CUDA-only work keeps its binding a test that bites
    pytest.param("    has_cuda = 'cuda' in x.device.type\n    if not has_cuda:\n        warnings.warn('no rng')\n"
                 "    if has_cuda:\n        torch.cuda.manual_seed(0)\n    return step()\n", True,
                 id="flag-also-deciding-work"),
])
def test_a_cuda_word_in_a_message_or_a_general_path_test_is_no_device_work(scan_tree, code, device):
    head = "import warnings\n\nimport torch\n\n\ndef run(x, step):\n"
    report = scan_tree({"loop.py": head + code}, ["cann"])
    work = [f for f in report.findings if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(work) == device, [(f.span.line, f.snippet, f.verdicts["cann"].message) for f in work]


def test_a_cast_reads_its_input_in_the_dtype_it_had(scan_tree):
    """nequip's Muon step: ``G.bfloat16()`` reads G as it is, so the note on its input ("仅支持fp16，fp32") is to
    validate; what runs on its result computes in bf16 and stays a site of that choice."""
    code = ("import torch\n\n\ndef orthogonalize(G, mask):\n    X = G.bfloat16()\n"
            "    return torch.masked_select(X, mask)\n")
    report = scan_tree({"muon.py": code}, ["cann"])
    [cast] = [f for f in report.judged if f.api == "torch.Tensor.bfloat16" and f.rule == "torch-op"]
    assert not active(cast.verdicts["cann"]), cast.verdicts["cann"].message
    [selected] = [f for f in report.judged if f.api == "torch.masked_select"]
    [choice] = [f for f in report.judged if f.rule == "dtype-limits"]
    assert selected.root == choice.id and "bf16" in selected.verdicts["cann"].message


@pytest.mark.parametrize("test, chosen", [
    # torchmetrics' Pearson: fp16 has no sqrt on the host CPU, so a host tensor is made bf16 there
    pytest.param("var.dtype == torch.float16 and var.device == torch.device('cpu')", False, id="a-host-tensor"),
    pytest.param("var.device.type == 'cpu'", False, id="a-host-device-type"),
    pytest.param("var.dtype == torch.float16", True, id="any-tensor"),
])
def test_a_cast_of_a_host_tensor_chooses_no_devices_dtype(scan_tree, test, chosen):
    code = (f"import torch\n\n\ndef correlation(var, x):\n    if {test}:\n        var = var.bfloat16()\n"
            "    return torch.masked_select(x, var > 0)\n")
    report = scan_tree({"pearson.py": code}, ["cann"])
    assert bool([f for f in report.judged if f.rule == "dtype-limits"]) == chosen


def test_a_dtype_choice_read_off_a_frameworks_import_is_to_validate(scan_tree):
    hooks = "from mmcv.runner import HOOKS\nimport torch\n\n\ndef f(x):\n    return torch.moveaxis(x, 0, 1)\n"
    report = scan_tree({"hooks.py": hooks}, ["cann"])
    choices = [f for f in report.judged if f.rule == "dtype-limits"]
    assert choices and all(not active(f.verdicts["cann"]) and f not in report.findings for f in choices)


@pytest.mark.parametrize("path, context", [
    pytest.param("bench.py", Context.TOOLING, id="benchmark-script"),
    pytest.param("tools/training-aev-benchmark.py", Context.TOOLING, id="a-benchmark-named-with-hyphens"),
    pytest.param("sample.py", Context.TOOLING, id="generation-script"),
    pytest.param("inference/inference_swinir.py", Context.TOOLING, id="inference-folder"),
    pytest.param("tools/demo.py", Context.TOOLING, id="demo"),
    # TimeSformer's tools/visualization.py: a trained model's activations drawn
    pytest.param("tools/visualization.py", Context.TOOLING, id="a-visualization-script"),
    pytest.param("tools/torchserve/cls_handler.py", Context.TOOLING, id="serving-handler"),
    pytest.param("tools/analysis_tools/visualization_cam.py", Context.TOOLING, id="analysis-tools"),
    pytest.param(".devcontainer/cpp-inference/requirements/requirements.txt", Context.TOOLING, id="dev-container"),
    pytest.param("src/pkg/_debug/nan_capture.py", Context.TOOLING, id="debug-helpers"),
    pytest.param("src/pytorch_lightning/profilers/pytorch.py", Context.TOOLING, id="profilers"),
    # fairscale's layer memory tracker
    pytest.param("fairscale/experimental/tooling/layer_memory_tracker.py", Context.TOOLING, id="tooling"),
    # colossalai's device/alpha_beta_profiler.py measures the links to plan the device mesh: part of the run
    pytest.param("device/alpha_beta_profiler.py", Context.TRAINING, id="a-profiler-the-run-uses"),
    pytest.param("tools/dataset_converters/ubody_smplx_to_coco.py", Context.TOOLING, id="a-dataset-converter"),
    pytest.param("tools/dist_test.sh", Context.TEST, id="evaluation-launcher"),
    pytest.param("tools/dist_train.sh", Context.TRAINING, id="training-launcher"),
    pytest.param("notebooks/explore.ipynb", Context.TOOLING, id="notebooks-folder"),
    # cellpose's paper/: the figures, analyses, timings and baselines of a paper, not the package's training
    pytest.param("paper/cpsam/invariances.ipynb", Context.TOOLING, id="a-papers-notebook"),
    pytest.param("paper/3.0/noise2self.py", Context.TOOLING, id="a-papers-baseline"),
    # mmtrack's tools/analysis: a trained checkpoint's parameter search; bagua's Buildkite CI benchmarks
    pytest.param("mmtrack/.mim/tools/analysis/mot/mot_param_search.py", Context.TOOLING, id="tools-analysis"),
    pytest.param(".buildkite/scripts/benchmark_master.sh", Context.TOOLING, id="buildkite-ci"),
    pytest.param("mypkg/analysis/loss_landscape.py", Context.TRAINING, id="an-analysis-package-is-training"),
    # backpack's sphinx-gallery sources
    pytest.param("docs_src/examples/use_cases/example_trace_estimation.py", Context.TOOLING, id="docs-sources"),
    pytest.param("train.py", Context.TRAINING, id="training-script"),
    pytest.param("data/samplers.py", Context.TRAINING, id="a-sampler-is-training"),
    pytest.param("llm_trainer/evaluate.ipynb", Context.TRAINING, id="a-project-notebook-is-training"),
    # litgpt's generate/ and transformers' generation/: a trained model's text, after training
    pytest.param("litgpt/generate/base.py", Context.TOOLING, id="a-generation-folder"),
    # mamba's decode loop with its CUDA graphs; a data generator is no generation of text
    pytest.param("mamba_ssm/utils/generation.py", Context.TOOLING, id="a-generation-module"),
    pytest.param("rl4co/envs/common/data_generation.py", Context.TRAINING, id="a-data-generator"),
    # f5-tts's TensorRT-LLM serving stack
    pytest.param("src/f5_tts/runtime/triton_trtllm/scripts/convert.py", Context.TOOLING, id="an-engine-export-folder"),
    pytest.param("src/f5_tts/model/trainer.py", Context.TRAINING, id="the-trainer-beside-them"),
    # gsplat's TIMEIT timer, mmdet's profile_time: measurement, as a profilers' folder is
    pytest.param("gsplat/profile.py", Context.TOOLING, id="a-profile-module"),
    pytest.param("nerfstudio/utils/profiler.py", Context.TOOLING, id="a-profiler-module"),
    # catalyst's, mmcv's and PyTorch's environment reports: what is installed, printed for a bug report
    pytest.param("catalyst/contrib/scripts/collect_env.py", Context.TOOLING, id="an-environment-report"),
    pytest.param("mmcv/utils/env.py", Context.TRAINING, id="an-environment-module-the-run-reads"),
    # mmgen's scripts for a trained checkpoint; its evaluation package is what the training hooks run
    pytest.param("mmgen/.mim/tools/evaluation.py", Context.TOOLING, id="a-tools-evaluation-script"),
    pytest.param("mmgen/.mim/tools/utils/singan_inference.py", Context.TOOLING, id="a-tools-inference-script"),
    pytest.param("mmgen/core/evaluation/metrics.py", Context.TRAINING, id="an-evaluation-package"),
    pytest.param("tools/train.py", Context.TRAINING, id="a-tools-training-script"),
    # mmseg's FLOPs counter, a speed test: a model measured, not trained; a flops-counting package the run calls
    pytest.param("tools/get_flops.py", Context.TOOLING, id="a-tools-flops-counter"),
    pytest.param("tools/measure_latency.py", Context.TOOLING, id="a-tools-speed-test"),
    pytest.param("mypkg/utils/flops.py", Context.TRAINING, id="a-flops-module-of-the-package"),
    # kaolin's tutorial notebooks, torchrec's legacy inference examples; pyro's inference algorithms train
    pytest.param("examples/tutorial/dibr_tutorial.ipynb", Context.TOOLING, id="a-tutorials-notebook"),
    pytest.param("examples/inference_legacy/dlrm_predict.py", Context.TOOLING, id="an-inference-examples-folder"),
    pytest.param("examples/dlrm/dlrm_main.py", Context.TRAINING, id="a-training-example"),
    pytest.param("pkg/variational_inference/elbo.py", Context.TRAINING, id="an-inference-method-package"),
])
def test_demos_inference_and_benchmarks_are_tooling(path, context):
    from migrator.contexts import path_context

    assert path_context(path) == context


@pytest.mark.parametrize("scope, context", [
    pytest.param("monai.networks.utils.convert_to_trt", Context.TOOLING, id="convert-to-tensorrt"),
    pytest.param("pkg.model.Model.export_onnx", Context.TOOLING, id="export-method"),
    pytest.param("runner.Runner.predict", Context.TOOLING, id="predict"),
    pytest.param("engine.run_inference", Context.TOOLING, id="run-inference"),
    pytest.param("asteroid.scripts.asteroid_cli.infer", Context.TOOLING, id="an-infer-command"),
    pytest.param("lm.model.GPT.generate", Context.TOOLING, id="generate"),
    pytest.param("pipeline.Pipeline.generate_images", Context.TOOLING, id="generate-images"),
    # s3prl's LightHuBERT: a latency benchmark beside the attention it times
    pytest.param("sliding_attn.latency", Context.TOOLING, id="a-latency-benchmark"),
    pytest.param("models.Net.benchmark_forward", Context.TOOLING, id="a-benchmark"),
    # Swin's main.py: ``throughput()`` times the model under ``--throughput`` and returns before training
    pytest.param("main.throughput", Context.TOOLING, id="a-throughput-benchmark"),
    pytest.param("engine.measure_throughput", Context.TOOLING, id="a-throughput-measure"),
    pytest.param("engine.log_throughput_stats", Context.TRAINING, id="throughput-logged-in-training"),
    # torchrec's quantized inference sharding, by its classes' first word
    pytest.param("embedding_lookup.InferGroupedEmbeddingsLookup.forward", Context.TOOLING, id="an-inference-class"),
    pytest.param("models.InferenceHead.forward", Context.TOOLING, id="an-inference-head"),
    pytest.param("models.Inferencer.forward", Context.TRAINING, id="no-class-by-a-near-word"),
    pytest.param("models.DeployableNet.forward", Context.TRAINING, id="no-class-by-a-longer-word"),
    # nerfstudio's proposal sampler and a detector's anchors: what a training step generates
    pytest.param("ray_samplers.PDFSampler.generate_ray_samples", Context.TRAINING, id="generate-ray-samples"),
    pytest.param("anchors.AnchorGenerator.generate_anchors", Context.TRAINING, id="generate-anchors"),
    pytest.param("forecast.core.NeuralForecast.explain", Context.TOOLING, id="explain"),
    pytest.param("data.make_generator", Context.TRAINING, id="a-generator-factory-is-no-generation"),
    pytest.param("engine.Trainer.train_step", Context.TRAINING, id="train-step"),
    pytest.param("shapes.infer_shape", Context.TRAINING, id="infer-shape-is-a-training-helper"),
    pytest.param("model.Model.forward", Context.TRAINING, id="forward"),
    pytest.param("losses.reconstruction_loss", Context.TRAINING, id="a-loss"),
    # tabpfn's debug_versions.show_versions: what is installed, for a bug report
    pytest.param("debug_versions.show_versions", Context.TOOLING, id="an-environment-report"),
    pytest.param("env.show_env_vars", Context.TRAINING, id="no-report-by-a-near-name"),
])
def test_a_function_named_for_export_or_inference_is_tooling(scope, context):
    from migrator.contexts import context_of

    assert context_of("pkg/model.py", Category.DEVICE, scope) == context
    assert context_of("pkg/model.py", Category.CUSTOM_OP, scope) == Context.TRAINING  # kernels are what it calls


@pytest.mark.parametrize("code, seeded", [
    pytest.param("def seed_all(seed):\n    torch.manual_seed(seed)\n    torch.cuda.manual_seed_all(seed)\n", True,
                 id="beside-torch-manual-seed"),
    pytest.param("def seed_cuda(seed):\n    torch.cuda.manual_seed_all(seed)\n", False, id="the-only-seed-call"),
    # torchattacks' attacks: torch.cuda's seeding by its module's name, after torch.random's
    pytest.param("def perturb(seed):\n    torch.random.manual_seed(seed)\n    torch.cuda.random.manual_seed(seed)\n",
                 True, id="by-the-random-modules-names"),
    pytest.param("def perturb(seed):\n    torch.cuda.random.manual_seed_all(seed)\n", False,
                 id="by-the-random-modules-name-alone"),
])
def test_a_cuda_seed_beside_torch_manual_seed_needs_nothing(scan_tree, code, seeded):
    report = scan_tree({"seeds.py": "import torch\n\n\n" + code}, ["cann"])
    (found,) = [f for f in report.judged if f.api.startswith("torch.cuda.") and "manual_seed" in f.api]
    assert (found.verdicts["cann"].status == Status.SUPPORTED) == seeded


GUARDED = "import torch\n\n\ndef op(x, impl='ref'):\n{body}\n"


@pytest.mark.parametrize("name, work", [
    pytest.param("CUDA_VISIBLE_DEVICES", True, id="device-visibility"),
    # classy_vision's and llama-cookbook's watchdog switch, ultralytics' blocking wait, axolotl's allocator
    pytest.param("NCCL_ASYNC_ERROR_HANDLING", False, id="a-collectives-switch"),
    pytest.param("TORCH_NCCL_BLOCKING_WAIT", False, id="a-switch-with-a-counterpart"),
    pytest.param("PYTORCH_CUDA_ALLOC_CONF", False, id="the-allocators-configuration"),
])
def test_a_variable_that_only_tunes_the_run_is_to_validate(scan_tree, name, work):
    code = f"import os\n\n\ndef setup():\n    os.environ['{name}'] = '1'\n"
    report = scan_tree({"train.py": code}, ["cann", "neuware"])
    (found,) = [f for f in report.judged if f.rule == "environment-variable"]
    assert any(active(v) for v in found.verdicts.values()) == work
    assert (found in report.findings) == work and (found in report.validate) != work


@pytest.mark.parametrize("star, found", [
    # fastai's torch_core: `from .torch_imports import *` gives every module torch, nn and F
    pytest.param("from .torch_imports import *\n", True, id="the-projects-own-star-import"),
    # a third party's star import says nothing of what `torch` is
    pytest.param("from numpy import *\n", False, id="a-libraries-star-import"),
])
def test_torch_through_a_star_import_of_the_projects_own_module(scan_tree, star, found):
    core = (star + "\n\ndef default_device():\n    if torch.cuda.is_available():\n"
            "        return torch.device(torch.cuda.current_device())\n    return torch.device('cpu')\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/torch_imports.py": "import torch\nimport torch.nn as nn\n",
                        "pkg/core.py": core}, ["cann"])
    apis = {f.api for f in report.findings if f.path == "pkg/core.py"}
    assert ({"torch.cuda.is_available", "torch.cuda.current_device"} <= apis) == found


@pytest.mark.parametrize("line, work", [
    pytest.param("    return DataLoader(ds, pin_memory=torch.cuda.is_available())", False, id="a-loaders-argument"),
    # torchreid's data manager keeps the flag for its loaders
    pytest.param("    self.pin_memory = torch.cuda.is_available() and use_gpu\n    return self", False,
                 id="a-flag-named-for-it"),
    # matgl's loaders: a default kept for a keyword table, or taken where the caller passes none
    pytest.param("    out = {}\n    out['pin_memory'] = torch.cuda.is_available()\n    return DataLoader(ds, **out)",
                 False, id="a-keyword-tables-entry"),
    pytest.param("    self.pin_memory = torch.cuda.is_available() if use_gpu is None else use_gpu\n    return self",
                 False, id="a-default-when-none-is-passed"),
    # rl-games' replay buffer: host buffers pinned for faster copies where CUDA is there
    pytest.param("    self.use_pinned_memory = torch.cuda.is_available() and use_gpu\n    return self", False,
                 id="a-flag-named-for-pinned-memory"),
    # pytorch-accelerated's trainer: the loader's worker count split per CUDA device where CUDA is there
    pytest.param("    import os\n    kwargs = {'num_workers': max(os.cpu_count() // torch.cuda.device_count()\n"
                 "                                 if torch.cuda.is_available() else os.cpu_count(), 1)}\n"
                 "    return DataLoader(ds, **kwargs)", False, id="a-loaders-worker-count"),
    pytest.param("    return DataLoader(ds, num_workers=8 if torch.cuda.is_available() else 2)", False,
                 id="a-worker-count-keyword"),
    # the same test choosing the device is the run's device
    pytest.param("    self.device = 'cuda' if torch.cuda.is_available() else 'cpu'\n    return self", True,
                 id="the-device"),
])
def test_an_availability_test_that_only_pins_memory_runs_as_written(scan_tree, line, work):
    code = ("import torch\nfrom torch.utils.data import DataLoader\n\n\ndef loader(self, ds, use_gpu=True):\n"
            + line + "\n")
    report = scan_tree({"data.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    assert active(test.verdicts["cann"]) == work, test.verdicts["cann"].message


@pytest.mark.parametrize("name, work", [
    # hivemind's tensor descriptor: a predicate named for pinning answers only that
    pytest.param("_safe_check_pinned", False, id="named-for-pinning"),
    pytest.param("_safe_check_device", True, id="named-for-something-else"),
])
def test_a_predicate_named_for_pinning_only_pins(scan_tree, name, work):
    code = f"import torch\n\n\ndef {name}(tensor):\n    return torch.cuda.is_available() and tensor.is_pinned()\n"
    report = scan_tree({"descr.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    assert active(test.verdicts["cann"]) == work, test.verdicts["cann"].message


def test_a_flag_that_picks_cudas_side_of_a_conditional_expression_is_a_check(scan_tree):
    # ultralytics' torch_distributed_zero_first: a flag for NCCL picks CUDA's barrier, the plain one elsewhere;
    # renamed to HCCL, the flag would send the NPU into torch.cuda.current_device()
    body = ("    use_ids = torch.distributed.get_backend() == 'nccl'\n"
            "    torch.distributed.barrier(device_ids=[torch.cuda.current_device()]) if use_ids "
            "else torch.distributed.barrier()\n    return x")
    report = scan_tree({"ops.py": GUARDED.format(body=body)}, ["cann"])
    assert not [(f.rule, f.line) for f in report.findings if active(f.verdicts["cann"])]


@pytest.mark.parametrize("body, work", [
    # refuses every tensor but CUDA's: the target's tensors hit the raise, and the CUDA call after it is theirs
    pytest.param("    if not x.is_cuda:\n        raise ValueError('CUDA tensors only')\n"
                 "    torch.cuda.synchronize()\n    return x", True, id="refuses-other-devices"),
    # torchmd-net's reduce: every device but CUDA takes the body, the code written for all of them
    pytest.param("    if not x.is_cuda or x.numel() == 0:\n        x = x.float()\n    return x", False,
                 id="not-cuda-takes-the-general-path"),
    # the `else` of that test is CUDA's branch beside it (composer's OOM observer registers its hooks there)
    pytest.param("    if x.device.type not in ('cuda', 'meta'):\n        y = x.float()\n    else:\n"
                 "        torch.cuda.memory._record_memory_history(True)\n        y = x\n    return y", False,
                 id="else-of-not-cuda-is-cudas"),
    # the CUDA query runs only after `x.is_cuda`, and what the flag decides is a check of CUDA's own case
    pytest.param("    capturing = x.is_cuda and torch.cuda.is_current_stream_capturing()\n    if capturing:\n"
                 "        assert x.numel() > 0, 'warm up before capture'\n    return x", False,
                 id="short-circuit-then-a-check"),
    # kornia's filters: a predicate answers "not CUDA" for the target's tensor, and its caller takes the other way
    pytest.param("    use_slices = x.device.type == 'cuda' and x.numel() > 4\n    return use_slices and x.dim() == 4",
                 False, id="a-predicate-returns-the-test"),
    # trl's Triton gate: a predicate over a device's type, the caller's torch path runs elsewhere
    pytest.param("    return impl == 'ref' and x.device.type in ('cuda', 'xpu')", False,
                 id="a-predicate-returns-a-devices-type-test"),
    # pytorch_optimizer's steps: the per-parameter path where no faster one was asked for, off CUDA by default
    pytest.param("    if impl == 'plain' or (impl is None and not x.is_cuda):\n        return x + 1\n"
                 "    return torch._foreach_add([x], [x])[0]", False, id="the-general-path-unless-asked-on-cuda"),
    # and its foreach default: a predicate over the parameters' devices
    pytest.param("    return any(p.is_cuda for p in [x] if p.grad is not None)", False,
                 id="a-predicate-over-every-tensors-device"),
    # a chain that tests the device by name: CUDA's arm beside the NPU's (the names were read without their "u")
    pytest.param("    if x.device.type == 'cuda':\n        torch.cuda.synchronize()\n"
                 "    elif x.device.type == 'npu':\n        torch.npu.synchronize()\n    return x", False,
                 id="cudas-arm-beside-the-npus-by-name"),
    # kornia's DeDoDe: autocast switched on only for CUDA tensors runs the region in fp32 elsewhere, as written
    pytest.param("    with torch.autocast('cuda', enabled=x.is_cuda, dtype=torch.float16):\n        return x @ x",
                 False, id="autocast-enabled-only-on-cuda"),
    # rfdetr's batch transfer: a copy made asynchronous on CUDA only is the plain copy elsewhere
    pytest.param("    non_blocking = x.device.type == 'cuda'\n"
                 "    return x.to(torch.float16, non_blocking=non_blocking)", False, id="non-blocking-only-on-cuda"),
    # litgpt's pretrain: a fused optimizer step asked for on CUDA only is the plain step elsewhere
    pytest.param("    extra = {'fused': x.device.type == 'cuda'}\n    return torch.optim.AdamW([x], **extra)", False,
                 id="fused-only-on-cuda"),
    # rfdetr's data module: a flag named for pinned memory, set on CUDA only, is the pageable copy elsewhere
    pytest.param("    self_pin_memory: bool = x.device.type == 'cuda' and impl == 'ref'\n"
                 "    return torch.utils.data.DataLoader([x], pin_memory=self_pin_memory)", False,
                 id="a-pin-memory-flag-set-on-cuda-only"),
    # the same short circuit deciding a cast: what the branch does is work the target skips
    pytest.param("    if x.is_cuda and torch.cuda.get_device_capability()[0] >= 8:\n        x = x.half()\n"
                 "    return x", True, id="short-circuit-deciding-a-cast"),
    # unsloth's kernels: a name for a device's type, CUDA's arm beside another device's
    pytest.param("    if DEVICE_TYPE in ('cuda', 'hip'):\n        torch.cuda.synchronize()\n"
                 "    elif DEVICE_TYPE == 'xpu':\n        torch.xpu.synchronize()\n    return x", False,
                 id="a-device-type-name-among-others"),
])
def test_a_negated_or_short_circuited_cuda_test_is_work_only_where_the_target_misses_something(scan_tree, body,
                                                                                              work):
    report = scan_tree({"ops.py": GUARDED.format(body=body)}, ["cann"])
    device_work = [f for f in report.findings if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(device_work) == work, [(f.line, f.snippet, f.verdicts["cann"].message) for f in device_work]
    queries = [f for f in report.judged if f.api == "torch.cuda.is_current_stream_capturing"]
    assert bool(queries) == ("is_current_stream_capturing" in body)  # the query is judged, where it is written
    assert all(not active(f.verdicts["cann"]) for f in queries)


@pytest.mark.parametrize("tail, item_at_test", [
    # unsloth's kernels bind their device context per device with no way for the target: the test is the item
    # (the target's device beside CUDA's and XPU's), what CUDA's branch binds its site
    pytest.param("", True, id="no-branch-for-the-target"),
    pytest.param("    else:\n        ctx = None\n", False, id="a-general-else"),
])
def test_a_device_chain_that_binds_with_no_way_for_the_target_asks_for_its_branch(scan_tree, tail, item_at_test):
    body = ("    if DEVICE_TYPE in ('cuda', 'hip'):\n        ctx = torch.cuda.device\n"
            "    elif DEVICE_TYPE == 'xpu':\n        ctx = torch.xpu.device\n" + tail + "    return ctx")
    report = scan_tree({"ops.py": GUARDED.format(body=body)}, ["cann"])
    items = [f for f in report.findings if f.root is None and active(f.verdicts["cann"])]
    assert [f.span.line for f in items] == ([5] if item_at_test else [])
    if item_at_test:
        assert "'npu'" in items[0].verdicts["cann"].message


@pytest.mark.parametrize("body, work", [
    # the body raises: on another device the test is False and the function goes on as it does on the CPU
    pytest.param("    if x.device.type == 'cuda' and torch.backends.cudnn.allow_tf32:\n"
                 "        raise ValueError('tf32')\n    return x", False, id="cuda-only-check-that-raises"),
    # the body returns and the code after it is the way every other device takes
    pytest.param("    if x.device.type == 'cuda':\n        return torch.cuda.FloatTensor(4)\n    return x",
                 False, id="early-return-then-the-other-way"),
    # after `!= 'cuda': return` the rest of the function runs only on a CUDA device
    pytest.param("    if x.device.type != 'cuda':\n        return x\n    torch.cuda.synchronize()\n    return x",
                 False, id="leaves-off-cuda-then-cuda-only"),
    # nothing follows the return: the code answers only for CUDA, and the test is where the target's name goes
    pytest.param("    if x.device.type == 'cuda':\n        return 1", True, id="the-only-answer-is-cudas"),
    # no leaving: the body is set-up every device needs
    pytest.param("    if x.device.type == 'cuda':\n        torch.cuda.set_device(0)\n    return x", True,
                 id="set-up-in-the-body"),
    # gliner's and pykeen's fallback when CUDA was asked for and is missing: the target asks for its own device
    pytest.param("    if x.device.type == 'cuda' and not torch.cuda.is_available():\n        x = x.to('cpu')\n"
                 "    return x", False, id="cudas-own-fallback-when-cuda-is-missing"),
])
def test_a_cuda_branch_whose_block_leaves_has_the_code_after_it_as_the_other_way(scan_tree, body, work):
    report = scan_tree({"ops.py": GUARDED.format(body=body)}, ["cann"])
    device_work = [f for f in report.findings if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(device_work) == work, [(f.line, f.snippet, f.verdicts["cann"].message) for f in device_work]


@pytest.mark.parametrize("body, work", [
    # `impl` is compared with 'ref': its 'cuda' names CUDA's implementation (judged where it is built), no device
    pytest.param("    assert impl in ['ref', 'cuda']\n    if impl == 'cuda':\n        return kernel(x)\n    return x",
                 False, id="implementation-selector"),
    pytest.param("    return run(x)\n\n\ndef run(x, impl='cuda'):\n    return kernel(x) if impl == 'triton' else x",
                 False, id="default-of-a-selector"),
    # a backend compared with a compiler's name is still the collective backend where it is given 'nccl'
    pytest.param("    if impl == 'inductor':\n        torch.compile(x, backend='inductor')\n"
                 "    torch.distributed.init_process_group(backend='nccl')\n    backend = 'cuda'\n"
                 "    if backend == 'eager':\n        return x\n    return x.to(backend)", True,
                 id="a-backend-stays-a-device-name"),
    # 'auto' and 'gpu' choose a device: 'cuda' beside them is one
    pytest.param("    device = 'cuda'\n    if device in ('auto', 'gpu'):\n        device = 'cpu'\n"
                 "    return x.to(device)", True, id="device-choice-words"),
])
def test_cuda_as_the_name_of_an_implementation_is_no_device(scan_tree, body, work):
    report = scan_tree({"ops.py": GUARDED.format(body=body)}, ["cann"])
    strings = [f for f in report.findings if f.rule in ("device-string", "device-move", "collective-backend")]
    assert bool(strings) == work, [(f.line, f.snippet) for f in strings]


# BasicSR's train.py: a mode named for what it picks, whose values are device words (its CPUPrefetcher or its
# CUDAPrefetcher): the option's value, judged where the prefetcher is built, not a device to rename
PREFETCH = """import torch


class CUDAPrefetcher:
    def __init__(self, loader):
        self.stream = torch.cuda.Stream()
        self.loader = loader


def train(opt, loader):
    {name} = opt['datasets']['train'].get('{name}')
    if {name} is None or {name} == 'cpu':
        prefetcher = iter(loader)
    elif {name} == 'cuda':
        prefetcher = CUDAPrefetcher(loader)
    else:
        raise ValueError({name})
    return prefetcher
"""


@pytest.mark.parametrize("name, compared", [
    pytest.param("prefetch_mode", False, id="a-modes-value-names-an-implementation"),
    pytest.param("device", True, id="a-device-is-a-device"),
    pytest.param("device_mode", True, id="a-device-named-mode-is-a-device"),
])
def test_a_device_word_compared_with_a_mode_names_an_implementation(scan_tree, name, compared):
    report = scan_tree({"train.py": PREFETCH.format(name=name)}, ["cann"])
    assert any(f.rule == "device-string" and f.span.line == 14 for f in report.judged) == compared


@pytest.mark.parametrize("call, api", [
    # Ascend's API list says 'no' for nn.MaxPool1d; every aten op it runs has a cann kernel
    pytest.param("torch.nn.MaxPool1d(3)(a)", "torch.nn.MaxPool1d", id="every-op-has-a-kernel"),
    # ... and 'no' for Tensor.to_dense, which on a strided tensor runs no aten op at all
    pytest.param("a.to_dense()", "torch.Tensor.to_dense", id="no-op-runs"),
    # ... and 'no' for torch.fft.fftshift, which torch_npu registers (neuraloperator's spectral convolution)
    pytest.param("torch.fft.fftshift(a, dim=-2)", "torch.fft.fftshift", id="an-fft-the-dtype-rule-reads"),
    # stanza's character model and wav2vec2's quantizer: Python over ops torch_npu registers
    pytest.param("torch.nn.utils.rnn.pack_sequence([a, a[:2]])", "torch.nn.utils.rnn.pack_sequence",
                 id="pack-sequence"),
    pytest.param("F.gumbel_softmax(a, tau=0.5, hard=True)", "torch.nn.functional.gumbel_softmax",
                 id="gumbel-softmax"),
])
def test_a_documented_no_that_the_targets_kernels_contradict_is_to_validate(scan_tree, call, api):
    report = _scan(scan_tree, f"    return {call}", ["cann"])
    (found,) = [f for f in report.judged if f.api == api]
    verdict = found.verdicts["cann"]
    assert verdict.status == Status.UNSUPPORTED and grade(verdict) == Grade.NOTE
    assert bucket(verdict) == Bucket.VALIDATE and {e.source.split(" ")[0] for e in verdict.evidence} >= {
        "torch_api_support.ascend-docs-pytorch-2.12.0.tsv"}
    assert not active(verdict) and found in report.validate


@pytest.mark.parametrize("call, api, status", [
    # ATen checks one_hot's classes with aminmax only for a CPU tensor: a device runs zeros and scatter_
    pytest.param("F.one_hot(a, num_classes=3)", "torch.nn.functional.one_hot", Status.SUPPORTED,
                 id="one-hot-host-check-left-out"),
    # the same op called for itself runs on the device, and is judged by its own kernel
    pytest.param("torch.aminmax(a)", "torch.aminmax", Status.FALLBACK, id="aminmax-itself"),
])
def test_an_op_the_trace_ran_only_on_the_cpu_does_not_judge_a_device(scan_tree, call, api, status):
    report = _scan(scan_tree, f"    return {call}", ["neuware"])
    assert _one(report, api).verdicts["neuware"].status == status


def test_one_line_of_work_is_one_item_whatever_number_of_rules_report_it(scan_tree):
    report = _scan(scan_tree, "    device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')\n"
                              "    torch.cuda.synchronize()\n    return a.to(device)", ["cann"])
    on_line = [f for f in report.findings if f.span.line == 6]
    heads = [f for f in on_line if f.root is None]
    assert len(on_line) >= 2 and len(heads) == 1  # the line's other findings are its sites
    assert all(f.root == heads[0].id for f in on_line if f is not heads[0])
    assert any(f.span.line == 7 and f.root is None for f in report.findings)  # another line is its own item


def test_a_test_for_the_nccl_backend_is_true_only_on_cuda(scan_tree):
    code = ("import torch\nimport torch.distributed as dist\n\n\n"
            "def check(backend):\n    if backend == dist.Backend.NCCL and not torch.cuda.is_available():\n"
            "        raise RuntimeError('nccl needs cuda')\n    return backend\n\n\n"
            "def barrier(backend):\n    if backend == 'nccl':\n"
            "        dist.barrier(device_ids=[torch.cuda.current_device()])\n    else:\n        dist.barrier()\n\n\n"
            "def setup():\n    dist.init_process_group(backend='nccl')\n")
    report = scan_tree({"dist.py": code}, ["cann"])
    work = [(f.span.line, f.rule) for f in report.findings if active(f.verdicts["cann"])]
    assert work == [(19, "collective-backend")]  # the backend chosen is the work; the tests for it are not


@pytest.mark.parametrize("body, work", [
    # a name bound to a device-type test tests the device as that test does
    pytest.param("    use_fast = HAS_CUPY and x.device.type == 'cuda'\n    if use_fast:\n"
                 "        torch.cuda.synchronize()\n    else:\n        x = x * 2\n    return x", False,
                 id="flag-with-other-branch"),
    # rebound to something else, it is no test of the device any more
    pytest.param("    use_fast = x.device.type == 'cuda'\n    use_fast = HAS_CUPY\n    if use_fast:\n"
                 "        torch.cuda.synchronize()\n    else:\n        x = x * 2\n    return x", True,
                 id="rebound-flag"),
])
def test_a_flag_bound_to_a_device_type_test_guards_as_the_test_does(scan_tree, body, work):
    report = scan_tree({"ops.py": "import torch\nHAS_CUPY = True\n\n\ndef op(x):\n" + body + "\n"}, ["cann"])
    syncs = [f for f in report.findings if f.api == "torch.cuda.synchronize" and active(f.verdicts["cann"])]
    assert bool(syncs) == work


@pytest.mark.parametrize("body, guarded", [
    # the test guards the CUDA-only library the function goes on to use: its port is the work
    pytest.param("    if not torch.cuda.is_available():\n        raise RuntimeError('needs a GPU')\n"
                 "    return pynvml.nvmlDeviceGetCount()", True, id="guards-nvml"),
    # no CUDA-only library in the function: the test is the work
    pytest.param("    if not torch.cuda.is_available():\n        raise RuntimeError('needs a GPU')\n"
                 "    return torch.ones(2).sum()", False, id="guards-the-training"),
])
def test_a_test_for_cuda_before_a_cuda_only_library_is_a_site_of_that_library(scan_tree, body, guarded):
    report = scan_tree({"info.py": "import torch\nimport pynvml\n\n\ndef count():\n" + body + "\n"}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    library = [f for f in report.judged if f.rule == "cuda-library" and f.scope.endswith("count")]
    assert (test.root is not None and test.root == (library[0].root or library[0].id)) == guarded


@pytest.mark.parametrize("call, api, work", [
    # returns at once where CUDA was never initialised: the run goes on, the log reads 0
    pytest.param("torch.cuda.empty_cache()", "torch.cuda.empty_cache", False, id="cache-flush"),
    pytest.param("print(torch.cuda.memory_reserved() / 1e9)", "torch.cuda.memory_reserved", False,
                 id="memory-counter-in-a-log"),
    # initialises CUDA: raises where there is none
    pytest.param("torch.cuda.synchronize()", "torch.cuda.synchronize", True, id="synchronize-raises"),
    # a device named in the call changes with it, one protocol with the string inside it
    pytest.param("print(torch.cuda.memory_allocated('cuda:0'))", "torch.cuda.memory_allocated", True,
                 id="counter-naming-a-device"),
    # axolotl's layer offloading logs what it freed: handed any device, the counter returns 0 without CUDA
    pytest.param("print(torch.cuda.memory_allocated(x.device))", "torch.cuda.memory_allocated", False,
                 id="counter-handed-a-device-value"),
])
def test_a_call_that_is_a_no_op_without_cuda_is_a_note_not_work(scan_tree, call, api, work):
    report = _scan(scan_tree, f"    loss = model(x)\n    {call}\n    return loss", ["cann"])
    (found,) = [f for f in report.judged if f.api == api]
    assert active(found.verdicts["cann"]) == work


@pytest.mark.parametrize("body, work", [
    # funasr's trainers flush CUDA's cache between data splits, on the model's device
    pytest.param("    device = next(model.parameters()).device\n    if device.type == 'cuda':\n"
                 "        with torch.cuda.device(device):\n            torch.cuda.empty_cache()\n    return a",
                 False, id="a-flush-on-the-models-device"),
    # a device context with no measure in it chooses where the code goes on: work
    pytest.param("    device = next(model.parameters()).device\n    if device.type == 'cuda':\n"
                 "        with torch.cuda.device(device):\n            a = a * 2\n    return a", True,
                 id="a-device-context-alone"),
    # uni-core's trainer logs every device's memory after an out-of-memory error
    pytest.param("    if torch.cuda.is_available():\n        for i in range(torch.cuda.device_count()):\n"
                 "            print(torch.cuda.memory_summary(device=i))\n    return a", False,
                 id="a-summary-of-every-device"),
    pytest.param("    if torch.cuda.is_available():\n        n = torch.cuda.device_count()\n"
                 "        a = a.repeat(n)\n    return a", True, id="a-count-alone"),
])
def test_the_device_a_measure_is_for_is_part_of_the_measure(scan_tree, body, work):
    report = _scan(scan_tree, body, ["cann"])
    device_work = [f for f in report.findings if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(device_work) == work, [(f.span.line, f.api) for f in device_work]


def test_a_process_groups_backend_and_the_string_it_falls_back_to_are_one_item(scan_tree):
    """funasr's ``init_process_group(backend=kwargs.get("backend", "nccl"))``: `fix` can edit the string and not
    the call, yet it is one change."""
    report = _scan(scan_tree, "    torch.distributed.init_process_group(backend=kwargs.get('backend', 'nccl'))\n"
                              "    return a", ["cann"])
    items = [f for f in report.findings if f.rule == "collective-backend" and f.root is None]
    assert len(items) == 1 and items[0].api == "torch.distributed.Backend"


@pytest.mark.parametrize("call, work", [
    # rl4co's time windows: the elementwise form, which Ascend documents (for `torch.maximum`) with int32
    pytest.param("torch.max(a.int(), x.int())", False, id="two-tensors-is-maximum"),
    # the reduction over a dimension: `torch.max`'s own entry, int32 left out
    pytest.param("torch.max(a.int(), 1)", True, id="a-reduction-over-a-dimension"),
    pytest.param("torch.max(a.int(), dim=1)", True, id="a-reduction-by-keyword"),
])
def test_the_elementwise_form_of_max_is_judged_by_maximums_entry(scan_tree, call, work):
    report = _scan(scan_tree, f"    return {call}", ["cann"])
    found = _one(report, "torch.max")
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


def test_a_statement_written_over_lines_is_one_item(scan_tree):
    report = _scan(scan_tree, "    torch.distributed.init_process_group(\n        backend='nccl',\n"
                              "        init_method='env://')\n    return a.cuda()", ["cann"])
    heads = [(f.span.line, f.rule) for f in report.findings if f.root is None and active(f.verdicts["cann"])]
    assert [line for line, _ in heads] == [6, 9]  # the call (its backend a site of it) and the next statement


@pytest.mark.parametrize("body, training", [
    pytest.param("        if self.training:\n            return x\n        return F.interpolate(x, scale_factor=2)",
                 False, id="after-the-training-return"),
    pytest.param("        if self.training:\n            x = x * 2\n        return F.interpolate(x, scale_factor=2)",
                 True, id="after-a-training-only-step-both-run-it"),
    pytest.param("        if self.training:\n            return x\n        else:\n"
                 "            return F.interpolate(x, scale_factor=2)", False, id="else-of-self-training"),
    pytest.param("        if not self.training:\n            return F.interpolate(x, scale_factor=2)\n        return x",
                 False, id="not-self-training"),
    # s3prl's downstream experts: the mode string the runner hands them
    pytest.param("        if mode == 'train':\n            return x\n        elif mode in ['dev', 'test']:\n"
                 "            return F.interpolate(x, scale_factor=2)", False, id="a-dev-or-test-mode"),
    pytest.param("        if mode != 'train':\n            return F.interpolate(x, scale_factor=2)\n        return x",
                 False, id="not-the-train-mode"),
    pytest.param("        if mode in ['train', 'valid']:\n            return F.interpolate(x, scale_factor=2)\n"
                 "        return x", True, id="training-and-validation"),
])
def test_what_a_module_runs_only_in_evaluation_is_not_training(scan_tree, body, training):
    code = ("import torch\nimport torch.nn.functional as F\n\n\nclass Head(torch.nn.Module):\n"
            "    def forward(self, x, mode='train'):\n" + body + "\n")
    report = scan_tree({"head.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.nn.functional.interpolate"]
    assert (found.context == Context.TRAINING) == training


def test_a_cuda_branch_of_an_if_elif_chain_that_tests_for_the_target_is_already_portable(scan_tree):
    code = ("import torch\nfrom accelerate.utils import is_npu_available\n\n\ndef pick():\n"
            "    if is_npu_available():\n        backend = 'hccl'\n    elif torch.cuda.is_available():\n"
            "        torch.cuda.set_device(0)\n        backend = 'nccl'\n    else:\n        backend = 'gloo'\n"
            "    return backend\n")
    report = scan_tree({"state.py": code}, ["cann", "neuware"])
    work = {t: [f.span.line for f in report.findings if active(f.verdicts[t])] for t in ("cann", "neuware")}
    assert work["cann"] == []  # the chain already serves the NPU: its CUDA branch is CUDA's own
    assert work["neuware"]  # no branch for the MLU: the CUDA one is still what runs there


@pytest.mark.parametrize("test, served", [
    # ultralytics' select_device: the NPU's and the XPU's own way first, returning; the rest is CUDA's
    pytest.param("device.startswith(('npu', 'xpu'))", True, id="startswith-returns"),
    pytest.param("device == 'npu'", True, id="equals-returns"),
    # the rest is where the NPU is: nothing there is another device's
    pytest.param("not device.startswith('npu')", False, id="negated-leaves-the-rest-to-the-npu"),
])
def test_the_rest_after_the_targets_own_way_returns_is_cudas(scan_tree, test, served):
    code = ("import torch\n\n\ndef select_device(device):\n    if " + test + ":\n"
            "        torch.npu.set_device(0)\n        return torch.device(device)\n"
            "    torch.cuda.set_device(0)\n    return torch.device('cuda', 0)\n")
    report = scan_tree({"dev.py": code}, ["cann", "neuware"])
    (call,) = [f for f in report.judged if f.api == "torch.cuda.set_device"]
    assert active(call.verdicts["cann"]) != served
    assert active(call.verdicts["neuware"])  # no way of its own for the MLU: the CUDA one is what runs there


@pytest.mark.parametrize("body, work", [
    # skorch's to_numpy: only CUDA tensors are moved to the host before .numpy(); an NPU tensor raises there
    pytest.param("    if x.is_cuda:\n        x = x.cpu()\n    return x.numpy()", True, id="host-copy-only-for-cuda"),
    # a fused path for CUDA and the reference path after it for every other device
    pytest.param("    if x.is_cuda:\n        return fused(x)\n    return x * 2", False, id="fused-then-reference"),
])
def test_a_tensor_is_cuda_test_is_judged_by_the_vendors_patcher_swap(scan_tree, body, work):
    report = scan_tree({"utils.py": "import torch\n\n\ndef to_numpy(x):\n" + body + "\n"}, ["cann"])
    tests = [f for f in report.findings if f.api == "torch.Tensor.is_cuda" and active(f.verdicts["cann"])]
    assert bool(tests) == work
    if work:
        assert "is_npu" in tests[0].verdicts["cann"].message and not tests[0].verdicts["cann"].fixable


@pytest.mark.parametrize("guard, work", [
    # opacus' DCGAN: data_parallel only for CUDA tensors, the plain module call for every other device
    pytest.param("if x.is_cuda and self.ngpu > 1", False, id="cuda-only-branch-beside-another"),
    # no test of the device: the call runs wherever the module does
    pytest.param("if self.ngpu > 1", True, id="any-device"),
])
def test_an_operator_in_a_cuda_only_branch_does_not_run_on_the_target(scan_tree, guard, work):
    code = ("import torch\nfrom torch import nn\n\n\nclass G(nn.Module):\n    def forward(self, x):\n"
            f"        {guard}:\n            return nn.parallel.data_parallel(self.main, x, range(self.ngpu))\n"
            "        else:\n            return self.main(x)\n")
    report = scan_tree({"dcgan.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.nn.parallel.data_parallel"]
    assert active(found.verdicts["cann"]) == work


@pytest.mark.parametrize("body, work", [
    # chemprop's checkpoint loader: rebuild a metric saved on another device; either way nothing is placed
    pytest.param("    if not torch.cuda.is_available() and a.device.type != 'cpu':\n        a = model.rebuild(a)\n"
                 "    return a", False, id="rebuild-either-way"),
    pytest.param("    return [model.rebuild(m) if not torch.cuda.is_available() else m for m in a]", False,
                 id="conditional-expression-deciding-nothing"),
    pytest.param("    if torch.cuda.is_available():\n        model = model.cuda()\n    return model", True,
                 id="decides-a-placement"),
    pytest.param("    if not torch.cuda.is_available():\n        raise RuntimeError('training needs a GPU')\n"
                 "    return model", True, id="decides-to-stop"),
    pytest.param("    if torch.cuda.is_available():\n        model.setup_gpu_state()\n    return model", True,
                 id="calls-something-named-for-the-device"),
    pytest.param("    use_cuda = torch.cuda.is_available()\n    return use_cuda", True, id="a-flag-kept-for-later"),
    # tsai's default_device: the branch sets the flag the placement reads further on
    pytest.param("    use = None\n    if torch.cuda.is_available() or model.has_mps():\n        use = True\n"
                 "    if use:\n        return model.to(model.accelerator())\n    return model", True,
                 id="sets-a-flag-read-further-on"),
    # mmagic's DeblurGANv2: a checkpoint read where it was saved, or to the host; the model it goes into moves it
    pytest.param("    if torch.cuda.is_available():\n        state = torch.load(a)\n    else:\n"
                 "        state = torch.load(a, map_location='cpu')\n    return model.load_state_dict(state)", False,
                 id="where-a-checkpoint-is-read-to"),
    pytest.param("    if torch.cuda.is_available():\n        state = torch.load(a, map_location='cpu')\n"
                 "        model = model.cuda()\n    return model.load_state_dict(state)", True,
                 id="a-checkpoint-and-a-placement"),
])
def test_an_availability_test_deciding_no_device_work_changes_nothing_on_the_target(scan_tree, body, work):
    report = _scan(scan_tree, body, ["cann"])
    found = _one(report, "torch.cuda.is_available", "device-call")
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


@pytest.mark.parametrize("test, work", [
    # torchtitan's has_cuda_capability: gates FA3, FP8 and MX kernels; False is its answer on the target
    pytest.param("torch.cuda.is_available() and torch.version.hip is None "
                 "and torch.cuda.get_device_capability() >= (major, minor)", False, id="a-capability-predicate"),
    pytest.param("torch.cuda.is_available() and torch.cuda.get_device_properties(0).major >= 9", False,
                 id="a-property-of-the-device"),
    pytest.param("torch.cuda.is_available() and major >= 9", True, id="an-argument-is-no-nvidia-fact"),
    # uni-core's fused kernels: the same test negated turns a flag off
    pytest.param("not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < major", False,
                 id="negated-as-an-or"),
    pytest.param("not torch.cuda.is_available() or major < 7", True, id="negated-beside-an-argument"),
])
def test_a_cuda_test_that_asks_for_an_nvidia_feature_is_no_work(scan_tree, test, work):
    code = f"import torch\n\n\ndef has_capability(major, minor):\n    return {test}\n"
    report = scan_tree({"utils.py": code}, ["cann"])
    found = _one(report, "torch.cuda.is_available", "device-call")
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message
    # what the right side asks runs only where the left is True: a site of the test, never work of its own
    asked = [f for f in report.judged if f.api.startswith("torch.cuda.get_device_")]
    assert all(f.root == found.id for f in asked) and not any(active(f.verdicts["cann"]) for f in report.findings
                                                               if f.root is None and f is not found)


@pytest.mark.parametrize("line, work", [
    # coqui's train_encoder.py sets cuDNN on (its default); neuware's data maps the flag to an LSTM-fusion switch
    pytest.param("torch.backends.cudnn.enabled = True", False, id="cudnn-on"),
    pytest.param("torch.backends.cudnn.deterministic = True", False, id="cudnn-deterministic"),
    pytest.param("torch.cuda.set_device(0)", True, id="a-device-call-is-no-flag"),
])
def test_a_cudnn_flag_set_is_a_plain_switch_the_target_leaves_unread(scan_tree, line, work):
    report = scan_tree({"train.py": f"import torch\n{line}\n"}, ["neuware"])
    (found,) = [f for f in report.judged if f.rule == "device-call"]
    assert active(found.verdicts["neuware"]) == work, found.verdicts["neuware"].message


ATTEND = ("import torch\nfrom torch import nn\n\n\nclass Attend(nn.Module):\n    def __init__(self, use_flash=False):\n"
          "        super().__init__()\n        self.cuda_config = None\n{code}")


@pytest.mark.parametrize("code, work", [
    # lucidrains' Attend: the rest only reads the GPU's properties to pick CUDA's attention config
    pytest.param("        if not torch.cuda.is_available() or not use_flash:\n            return\n"
                 "        props = torch.cuda.get_device_properties(torch.device('cuda'))\n"
                 "        self.cuda_config = (props.major == 8, True)\n", False,
                 id="the-rest-reads-the-gpus-properties"),
    pytest.param("        if torch.cuda.is_available():\n            major, _ = torch.cuda.get_device_capability()\n"
                 "            self.flash = major >= 8\n", False, id="the-body-reads-the-capability"),
    pytest.param("        if not torch.cuda.is_available():\n            return\n"
                 "        props = torch.cuda.get_device_properties(0)\n        self.to('cuda')\n", True,
                 id="the-rest-also-places-the-module"),
    # stable-audio-tools' attention blocks: the flag the test reads was bound to the availability test
    pytest.param("        self.use_flash = torch.cuda.is_available() and use_flash\n        if not self.use_flash:\n"
                 "            return\n        props = torch.cuda.get_device_properties(torch.device('cuda'))\n"
                 "        self.cuda_config = (props.major == 8, True)\n", False, id="through-an-availability-flag"),
    pytest.param("        self.use_flash = torch.cuda.is_available() and use_flash\n        if not self.use_flash:\n"
                 "            return\n        self.to('cuda')\n", True, id="a-flag-before-a-move"),
    # unsloth's Blackwell check: asks each GPU's name and capability, to warn
    pytest.param("        if not torch.cuda.is_available():\n            return\n"
                 "        for i in range(torch.cuda.device_count()):\n"
                 "            if torch.cuda.get_device_capability(i) == (10, 0):\n"
                 "                print(torch.cuda.get_device_name(i))\n", False, id="the-rest-asks-each-gpu"),
    pytest.param("        if not torch.cuda.is_available():\n            return\n"
                 "        props = torch.cuda.get_device_properties(0)\n        torch.cuda.set_device(0)\n", True,
                 id="the-rest-also-sets-the-device"),
])
def test_a_cuda_test_around_code_that_only_reads_the_gpu_is_no_work(scan_tree, code, work):
    report = scan_tree({"attend.py": ATTEND.format(code=code)}, ["cann"])
    found = _one(report, "torch.cuda.is_available", "device-call")
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message
    if not work:  # what the decided code asks is a site of the test: no item of its own
        assert not any(active(f.verdicts["cann"]) for f in report.findings if f.root is None)


LIBRARY_GATE = """import torch
from importlib.util import find_spec

{flags}


def load_8bit(name):
    import bitsandbytes as bnb
    return getattr(bnb.optim, name)


def optimizer_class(name):
    if {test}:
        return load_8bit(name)
    return torch.optim.AdamW
"""


@pytest.mark.parametrize("flags, test, work", [
    # pytorch_optimizer's loader: the CUDA test lets only CUDA into bitsandbytes; the target takes AdamW
    pytest.param("HAS_BNB = find_spec('bitsandbytes') is not None", "HAS_BNB and torch.cuda.is_available()", False,
                 id="a-flag-named-for-the-library"),
    pytest.param("_8BIT = find_spec('bitsandbytes') is not None", "_8BIT and torch.cuda.is_available()", False,
                 id="a-flag-bound-to-a-probe-of-the-library"),
    pytest.param("HAVE_BNB = find_spec('bitsandbytes') is not None", "HAVE_BNB and torch.cuda.is_available()", False,
                 id="a-have-flag"),
    pytest.param("def is_bnb_4bit_available():\n    return find_spec('bitsandbytes') is not None",
                 "torch.cuda.is_available() and is_bnb_4bit_available()", False,
                 id="a-probe-named-for-the-library"),
    # Ascend's data names npu_fusion_attention for flash_attn: asking for the NPU there, with that path, is the port
    pytest.param("def is_flash_attn_2_available():\n    return find_spec('flash_attn') is not None",
                 "torch.cuda.is_available() and is_flash_attn_2_available()", True,
                 id="a-library-the-vendor-has-a-path-for"),
    # DeepSpeed runs on both targets: no CUDA-only library the test keeps out, the target is kept out of it
    pytest.param("HAS_DEEPSPEED = find_spec('deepspeed') is not None",
                 "HAS_DEEPSPEED and torch.cuda.is_available()", True, id="a-library-the-target-runs"),
    pytest.param("HAS_BNB = find_spec('bitsandbytes') is not None", "HAS_BNB or torch.cuda.is_available()", True,
                 id="either-test-opens-the-way"),
])
def test_a_cuda_test_that_keeps_the_target_out_of_a_cuda_only_library_is_no_work(scan_tree, flags, test, work):
    report = scan_tree({"optim.py": LIBRARY_GATE.format(flags=flags, test=test)}, ["cann", "kunlun"])
    found = _one(report, "torch.cuda.is_available", "device-call")
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message
    # Kunlunxin answers True as written and takes the branch: its verdict is the library's, not the test's
    assert not active(found.verdicts["kunlun"])


@pytest.mark.parametrize("config, work", [
    # mmengine's pytorch launcher initialises hccl itself; only its slurm/mpi launchers pass the value on
    pytest.param("env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n", False, id="dist-cfg"),
    pytest.param("dist_cfg = {'backend': 'nccl', 'timeout': 1800}\n", False, id="dist-cfg-as-a-table"),
    # mmcv 1.x's configurations (mmedit, mmrotate): tools/train.py hands them to mmcv.runner.init_dist, whose
    # pytorch launcher does the same from 1.7 on
    pytest.param("dist_params = dict(backend='nccl')\nlog_level = 'INFO'\n", False, id="mmcv-dist-params"),
    pytest.param("import torch.distributed as dist\ncfg = dict(backend='nccl')\n"
                 "dist.init_process_group(**cfg)\n", True, id="the-projects-own-process-group"),
])
def test_mmengines_dist_cfg_backend_is_the_launchers_to_decide(scan_tree, config, work):
    report = scan_tree({"configs/runtime.py": config}, ["cann"])
    # (the process group unpacking `cfg` is a site of the literal it receives)
    (found,) = [f for f in report.judged if f.rule == "collective-backend" and f.root is None]
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message
    assert (found in report.validate) != work
    assert work or "slurm and mpi launchers pass this value on" in found.verdicts["cann"].message


LIBRARY_MODULE = ("import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n\n\n"
                  "if __name__ == '__main__':\n    net = Net().cuda()\n")


@pytest.mark.parametrize("files, path, context", [
    pytest.param({"pkg/__init__.py": "", "pkg/net.py": LIBRARY_MODULE, "pyproject.toml": "[project]\nname='p'\n"},
                 "pkg/net.py", Context.TOOLING, id="a-packaged-librarys-usage-example"),
    pytest.param({"net.py": LIBRARY_MODULE, "fit.py": "import torch\nfrom net import Net\nmodel = Net()\n"},
                 "net.py", Context.TOOLING, id="a-module-the-training-code-imports"),
    pytest.param({"pkg/__init__.py": "", "pkg/train.py": LIBRARY_MODULE, "pyproject.toml": "[project]\nname='p'\n"},
                 "pkg/train.py", Context.TRAINING, id="a-script-named-for-a-run"),
    pytest.param({"net.py": LIBRARY_MODULE}, "net.py", Context.TRAINING, id="a-script-nothing-imports"),
    pytest.param({"scripts/net.py": LIBRARY_MODULE, "pyproject.toml": "[project]\nname='p'\n"}, "scripts/net.py",
                 Context.TRAINING, id="a-script-in-a-folder-that-is-no-package"),
    # cleanrl's apex_dqn_atari_visual.py: a package module whose main block trains
    pytest.param({"pkg/__init__.py": "", "pyproject.toml": "[project]\nname='p'\n",
                  "pkg/net.py": LIBRARY_MODULE + "    opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
                                "    for step in range(10):\n        loss = net(step).sum()\n"
                                "        loss.backward()\n        opt.step()\n"},
                 "pkg/net.py", Context.TRAINING, id="a-package-module-that-trains"),
])
def test_the_main_block_of_a_library_module_is_a_demo(scan_tree, files, path, context):
    report = scan_tree(files, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.nn.Module.cuda"]
    assert found.path == path and found.context == context


AUTOCAST_OFF = """import torch
import torch.nn.functional as F


def extract(a, t, shape):
    return a.gather(-1, t).reshape(shape)


class Diffusion(torch.nn.Module):
    def warp(self, x):
        return x.sigmoid() * 2

    @torch.amp.autocast('cuda', enabled=False)
    def q_sample(self, x, t, w):
{body}
"""


@pytest.mark.parametrize("body, work", [
    pytest.param("        return extract(w, t, x.shape) * x + torch.randn_like(x)", False,
                 id="elementwise-and-a-gather-helper"),
    pytest.param("        return self.warp(x).sqrt()", False, id="a-method-of-its-own-that-is-elementwise"),
    pytest.param("        return self.log_snr(t) * x", True, id="an-attribute-that-may-be-a-network"),
    pytest.param("        return x @ w", True, id="a-matmul"),
    pytest.param("        return F.linear(x, w)", True, id="a-linear"),
])
def test_turning_cudas_autocast_off_around_code_autocast_never_lowers_changes_nothing(scan_tree, body, work):
    # the project autocasts (its scaler): a switch that turns it off around what it lowers is work
    report = scan_tree({"diffusion.py": AUTOCAST_OFF.format(body=body),
                        "train.py": "import torch\n\nscaler = torch.amp.GradScaler('cuda')\n"}, ["cann"])
    (found,) = [f for f in report.judged if f.rule == "amp-device" and f.path == "diffusion.py"]
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


def test_the_cuda_amp_spelling_of_an_idle_autocast_switch_changes_nothing_either(scan_tree):
    code = AUTOCAST_OFF.format(body="        return extract(w, t, x.shape) * x").replace(
        "@torch.amp.autocast('cuda', enabled=False)", "@torch.cuda.amp.autocast(enabled=False)")
    report = scan_tree({"diffusion.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api.startswith("torch.cuda.amp")]
    assert not active(found.verdicts["cann"]) and found.verdicts["cann"].status == Status.SUPPORTED


FID = ("import torch\n\n\nclass FIDEvaluation:\n    def __init__(self, batch_size, dl, device='cuda'):\n"
       "        self.device = torch.device(device)\n\n\ndef evaluate(model, loader, device='cuda:0'):\n"
       "    return model(loader).to(device)\n")


@pytest.mark.parametrize("trainer, work", [
    pytest.param("from fid import FIDEvaluation, evaluate\n\n\ndef fit(model, dl, device):\n"
                 "    fid = FIDEvaluation(8, dl, device=device)\n    return evaluate(model, dl, device)\n", False,
                 id="every-call-passes-it"),
    pytest.param("import fid\n\n\ndef fit(model, dl, device):\n    scorer = fid.FIDEvaluation(8, dl, device)\n"
                 "    return fid.evaluate(model, dl, **{'device': device})\n", False,
                 id="through-the-module-and-a-mapping"),
    pytest.param("from fid import FIDEvaluation, evaluate\n\n\ndef fit(model, dl, device):\n"
                 "    fid = FIDEvaluation(8, dl)\n    return evaluate(model, dl)\n", True, id="a-call-without-it"),
    pytest.param("from functools import partial\nfrom fid import FIDEvaluation, evaluate\n\n\n"
                 "def fit(model, dl, device):\n    make = partial(FIDEvaluation, 8)\n    run = evaluate\n"
                 "    return make(dl), run(model, dl)\n", True, id="handed-on-as-a-value"),
    # alibi-detect's learned kernel: the partial binds the device, what its calls pass is the rest
    pytest.param("from functools import partial\nfrom fid import FIDEvaluation, evaluate\n\n\n"
                 "def fit(model, dl, device):\n    make = partial(FIDEvaluation, 8, device=device)\n"
                 "    run = partial(evaluate, device=device)\n    return make(dl), run(model, dl)\n", False,
                 id="a-partial-that-binds-it"),
    pytest.param("", True, id="no-caller-in-the-project"),
])
def test_a_device_default_every_project_call_overrides_is_to_validate(scan_tree, trainer, work):
    report = scan_tree({"fid.py": FID, **({"trainer.py": trainer} if trainer else {})}, ["cann"])
    defaults = [f for f in report.judged if f.rule == "device-string" and f.path == "fid.py"]
    assert len(defaults) == 2
    assert all(active(f.verdicts["cann"]) == work for f in defaults), [f.verdicts["cann"].message for f in defaults]


# glide's CLIP encoders: attrs fields, built only by ``create_clip_model``, which passes its own device (chosen where
# its caller leaves it ``None``)
ENCODERS = ("import attr\nimport torch\nimport torch.nn as nn\n\n\n@attr.s(eq=False, repr=False)\n"
            "class TextEncoder(nn.Module):\n    n_embd: int = attr.ib()\n"
            "    device: torch.device = attr.ib(default=torch.device('cuda'))\n"
            "    block_size: int = attr.ib(init=False, default=32)\n\n"
            "    def __attrs_post_init__(self):\n        super().__init__()\n")


@pytest.mark.parametrize("creation, work", [
    pytest.param("    return TextEncoder(n_embd=8, device=device)\n", False, id="every-call-passes-the-field"),
    pytest.param("    return TextEncoder(8, device)\n", False, id="by-its-place-among-the-fields"),
    pytest.param("    return TextEncoder(n_embd=8)\n", True, id="a-call-without-it"),
])
def test_a_field_default_of_an_attrs_class_every_call_overrides_is_to_validate(scan_tree, creation, work):
    model = ("import torch\nfrom clip.encoders import TextEncoder\n\n\ndef create_clip_model(device=None):\n"
             "    if device is None:\n        device = torch.device('cpu')\n" + creation)
    report = scan_tree({"clip/__init__.py": "", "clip/encoders.py": ENCODERS, "clip/model_creation.py": model},
                       ["cann"])
    (default,) = [f for f in report.judged if f.path == "clip/encoders.py" and f.rule == "device-argument"]
    assert active(default.verdicts["cann"]) == work, default.verdicts["cann"].message


@pytest.mark.parametrize("call, work", [
    # mmcls' train_model: the wrapper imported from the package that re-exports it, the device passed by position
    pytest.param("wrap_non_distributed_model(model, cfg.device, device_ids=cfg.gpu_ids)", False,
                 id="every-call-through-the-package-passes-it"),
    pytest.param("wrap_non_distributed_model(model, device_ids=cfg.gpu_ids)", True,
                 id="a-call-through-the-package-without-it"),
])
def test_a_default_of_a_function_a_package_re_exports_is_read_at_the_packages_importers(scan_tree, call, work):
    files = {"pkg/__init__.py": "", "pkg/utils/__init__.py": "from .distribution import wrap_non_distributed_model\n",
             "pkg/utils/distribution.py": ("def wrap_non_distributed_model(model, device='cuda', **kwargs):\n"
                                           "    return model.to(device)\n"),
             "pkg/apis/__init__.py": "",
             "pkg/apis/train.py": ("from pkg.utils import wrap_non_distributed_model\n\n\n"
                                   f"def train_model(model, cfg):\n    return {call}\n")}
    report = scan_tree(files, ["cann"])
    (default,) = [f for f in report.judged if f.rule == "device-string" and f.path == "pkg/utils/distribution.py"]
    assert active(default.verdicts["cann"]) == work, default.verdicts["cann"].message


@pytest.mark.parametrize("base_call, work", [
    # deepod's models: ``super(GoadLoss, self).__init__()`` names the class, and builds nothing
    pytest.param("super(Loss, self).__init__()", False, id="python-2-spelling-of-its-own-base-call"),
    pytest.param("super().__init__()", False, id="python-3-spelling"),
    pytest.param("super(Loss, self).__init__()\n        self.spare = Loss", True, id="the-class-handed-on-too"),
])
def test_a_class_naming_itself_in_its_own_base_call_is_no_caller(scan_tree, base_call, work):
    loss = ("import torch\n\n\nclass Loss(torch.nn.Module):\n    def __init__(self, margin, device='cuda'):\n"
            f"        {base_call}\n        self.device = device\n\n\ndef fit(margin, device):\n"
            "    return Loss(margin, device=device)\n")
    report = scan_tree({"loss.py": loss}, ["cann"])
    (default,) = [f for f in report.judged if f.rule == "device-string" and f.path == "loss.py"]
    assert active(default.verdicts["cann"]) == work, default.verdicts["cann"].message


WEIGHTS = ("import torch\n\n\nclass Weights:\n    def __init__(self, path, device=None):\n"
           "        self.device = {fallback}\n")


@pytest.mark.parametrize("fallback, call, work", [
    # lerobot's RA-BC weights: the trainer always passes its accelerator's device
    pytest.param("device or torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
                 "Weights(path, device=accelerator.device)", False, id="or-fallback-every-call-overrides"),
    pytest.param("torch.device('cuda') if device is None else device", "Weights(path, device=accelerator.device)",
                 False, id="is-none-fallback-every-call-overrides"),
    # alibi-detect's batch_compute_kernel_matrix: the fallback as a statement
    pytest.param("None\n        if device is None:\n            device = torch.device('cuda' if "
                 "torch.cuda.is_available() else 'cpu')\n        self.device = device",
                 "Weights(path, device=accelerator.device)", False,
                 id="is-none-statement-every-call-overrides"),
    pytest.param("None\n        if device is None:\n            device = torch.device('cuda')\n"
                 "        self.device = device", "Weights(path)",
                 True, id="is-none-statement-a-call-leaves-it-none"),
    pytest.param("device or torch.device('cuda' if torch.cuda.is_available() else 'cpu')", "Weights(path)", True,
                 id="a-call-leaves-it-none"),
    pytest.param("device or torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
                 "Weights(path, device=None)", True, id="a-call-passes-none"),
])
def test_a_fallback_for_a_device_left_none_is_a_default_every_call_may_override(scan_tree, fallback, call, work):
    trainer = f"from weights import Weights\n\n\ndef fit(path, accelerator):\n    return {call}\n"
    report = scan_tree({"weights.py": WEIGHTS.format(fallback=fallback), "trainer.py": trainer}, ["cann"])
    chosen = [f for f in report.judged if f.path == "weights.py" and f.category == Category.DEVICE]
    assert chosen
    assert any(active(f.verdicts["cann"]) for f in chosen) == work, [f.verdicts["cann"].message for f in chosen]


@pytest.mark.parametrize("wrapper, work", [
    # yolox's model zoo: ``yolox_s(device=None)`` hands its own None on, so the builder's fallback runs
    pytest.param("def yolox_s(pretrained=True, device=None):\n    return create(pretrained, device)\n", True,
                 id="a-wrapper-hands-on-its-none"),
    pytest.param("def yolox_s(pretrained=True, device='npu'):\n    return create(pretrained, device)\n", False,
                 id="a-wrapper-hands-on-its-own-default"),
])
def test_a_caller_handing_on_its_own_none_passes_nothing(scan_tree, wrapper, work):
    build = ("import torch\n\n\ndef create(pretrained, device=None):\n    if device is None:\n"
             "        device = 'cuda:0' if torch.cuda.is_available() else 'cpu'\n"
             "    return torch.nn.Linear(2, 2).to(device)\n\n\n" + wrapper)
    report = scan_tree({"build.py": build}, ["cann"])
    chosen = [f for f in report.judged if f.path == "build.py" and f.category == Category.DEVICE and f.span.line == 6]
    assert chosen and any(active(f.verdicts["cann"]) for f in chosen) == work, \
        [f.verdicts["cann"].message for f in chosen]


@pytest.mark.parametrize("call, work", [
    # funasr's trainers: `self.device = kwargs.get("device", "cuda")`, built with the device written out
    pytest.param("Trainer(rank, device=kwargs['device'], **kwargs.get('train_conf'))", False,
                 id="every-call-writes-the-keyword"),
    # a configuration handed on whole may lack the key: the default is what runs then
    pytest.param("Trainer(rank, **kwargs)", True, id="a-call-hands-on-its-kwargs"),
])
def test_a_keyword_read_from_kwargs_is_a_default_every_call_may_override(scan_tree, call, work):
    trainer = ("import torch\n\n\nclass Trainer:\n    def __init__(self, rank, **kwargs):\n"
               "        self.device = kwargs.get('device', 'cuda')\n")
    train = f"from trainer import Trainer\n\n\ndef main(rank, **kwargs):\n    return {call}\n"
    report = scan_tree({"trainer.py": trainer, "train.py": train}, ["cann"])
    chosen = [f for f in report.judged if f.path == "trainer.py" and f.category == Category.DEVICE]
    assert chosen
    assert any(active(f.verdicts["cann"]) for f in chosen) == work, [f.verdicts["cann"].message for f in chosen]


@pytest.mark.parametrize("between, work", [
    # funasr's train.py: the key is set from the device chosen above, then read with a default that never applies
    pytest.param("", False, id="the-key-is-set-before"),
    pytest.param("    kwargs = dict(model.kwargs)\n", True, id="the-dict-is-bound-again-between"),
    pytest.param("    kwargs.pop('device')\n", True, id="the-key-is-taken-out-between"),
])
def test_a_keys_default_after_the_key_is_set_never_applies(scan_tree, between, work):
    code = ("import torch\n\n\ndef main(model, device, **kwargs):\n    kwargs['device'] = device\n" + between
            + "    return model.to(device=kwargs.get('device', 'cuda'))\n")
    report = scan_tree({"train.py": code}, ["cann"])
    read = [f for f in report.judged if f.category == Category.DEVICE and "get" in f.snippet + f.api]
    defaults = [f for f in report.judged if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(defaults) == work, [(f.span.line, f.snippet) for f in read + defaults]


BUFFER = ("import torch\n\n\nclass ReplayBuffer:\n    def __init__(self, capacity, device='cuda:0'):\n"
          "        self.device = torch.device(device)\n\n    @classmethod\n"
          "    def from_dataset(cls, dataset, device='cuda:0', capacity=None):\n"
          "        buffer = cls(capacity or len(dataset){passes})\n"
          "        buffer.source_device = torch.device(device)\n        return buffer\n")


@pytest.mark.parametrize("passes, learner, work", [
    # lerobot's ReplayBuffer: built by the learner and by its own classmethod, each with the learner's device
    pytest.param(", device=device", "ReplayBuffer(100, device=device), ReplayBuffer.from_dataset(data, device=device)",
                 False, id="the-class-and-its-alternative-constructor"),
    pytest.param(", device=device", "ReplayBuffer(100, device=device), ReplayBuffer.from_dataset(data)",
                 True, id="the-classmethod-called-without-it"),
    pytest.param("", "ReplayBuffer(100, device=device), ReplayBuffer.from_dataset(data, device=device)",
                 True, id="the-classmethod-builds-the-class-without-it"),
])
def test_a_device_default_of_a_class_and_its_classmethod_every_call_overrides(scan_tree, passes, learner, work):
    code = f"from buffer import ReplayBuffer\n\n\ndef learn(data, device):\n    return {learner}\n"
    report = scan_tree({"buffer.py": BUFFER.format(passes=passes), "learner.py": code}, ["cann"])
    defaults = [f for f in report.judged if f.rule == "device-string" and f.path == "buffer.py"]
    assert len(defaults) == 2
    assert any(active(f.verdicts["cann"]) for f in defaults) == work, [f.verdicts["cann"].message for f in defaults]


FOCAL = ("import torch\nfrom mmcv.ops import sigmoid_focal_loss as _sigmoid_focal_loss\n\n\n"
         "def py_sigmoid_focal_loss(pred, target):\n    return (pred.sigmoid() - target).abs().mean()\n\n\n"
         "def focal(pred, target):\n    if torch.cuda.is_available() and pred.is_cuda:\n"
         "        loss = _sigmoid_focal_loss(pred.contiguous(), target.contiguous(), 2.0, 0.25)\n"
         "    else:\n        loss = py_sigmoid_focal_loss(pred, target)\n    return loss\n")


def test_a_cuda_librarys_call_in_a_cuda_tensors_branch_beside_another_is_not_work_where_tensors_are_not_cudas(
        scan_tree):
    report = scan_tree({"focal.py": FOCAL}, ["cann", "kunlun"])
    by_line = {(f.span.line, f.rule): f for f in report.judged}
    call, test = by_line[11, "cuda-library"], by_line[10, "device-call"]
    assert not active(call.verdicts["cann"]) and not active(test.verdicts["cann"])
    assert active(call.verdicts["kunlun"])  # Kunlunxin's tensors are CUDA's: the branch runs mmcv's CUDA kernel


def test_a_device_pick_written_over_lines_and_passed_on_is_one_item(scan_tree):
    code = ("import torch\nfrom avalanche.training import EWC\n\n\ndef main(args, model, optimizer):\n"
            "    device = torch.device(\n"
            "        f\"cuda:{args.cuda}\" if torch.cuda.is_available() and args.cuda >= 0 else \"cpu\"\n"
            "    )\n    strategy = EWC(model=model, optimizer=optimizer, device=device)\n    strategy.train()\n")
    report = scan_tree({"train.py": code}, ["cann"])
    items = [f for f in report.findings if f.root is None]
    assert [(f.span.line, f.rule) for f in items] == [(7, "device-call")]  # the test that decides the string
    assert {f.root for f in report.findings if f.root} == {items[0].id}


def test_a_library_the_targets_own_package_build_serves_is_one_item_in_the_project(scan_tree):
    files = {"heads/san.py": "from mmcv.ops import point_sample\n",
             "losses/focal.py": "from mmcv.ops import sigmoid_focal_loss\n",
             "kern.py": TRITON_MODULE, "other.py": "import triton\n"}
    report = scan_tree(files, ["cann"])
    mmcv = [f for f in report.findings if f.api.startswith("mmcv.ops")]
    assert len(mmcv) == 2 and len([f for f in mmcv if f.root is None]) == 1  # one build of mmcv for the NPU
    triton = [f for f in report.findings if f.api == "triton" and f.root is None]
    assert sorted(f.path for f in triton) == ["kern.py"]  # a port is one per kernel module; an import is none


SYNC_CHECK = ("import torch\n\n\nclass Solver:\n    def run_step(self, idx, batch, model):\n"
              "        check = idx == 1 and self.device == 'cuda'\n        if check:\n"
              "            torch.cuda.set_sync_debug_mode('warn')\n        loss = model(batch)\n        if check:\n"
              "            {after}\n        return loss\n")


@pytest.mark.parametrize("after, skipped", [
    pytest.param("torch.cuda.set_sync_debug_mode('default')", True, id="a-flag-that-only-guards-a-debug-switch"),
    pytest.param("torch.cuda.set_device(0)", False, id="a-flag-that-also-guards-a-set-device"),
])
def test_a_device_flag_whose_branches_only_measure_is_skipped_with_its_test(scan_tree, after, skipped):
    report = scan_tree({"solver.py": SYNC_CHECK.replace("{after}", after)}, ["cann"])
    (test,) = [f for f in report.judged if f.span.line == 6 and f.rule == "device-string"]
    assert (test.verdicts["cann"].status == Status.SUPPORTED) == skipped, test.verdicts["cann"].message


PER_DEVICE_FUNCTIONS = (
    "import torch\n\n\ndef is_rocm_available():\n"
    "    return torch.version.hip is not None and torch.cuda.is_available()\n"
    "\n\ndef is_cuda_available():\n    return torch.cuda.is_available()\n\n\n"
    "def is_npu_available():\n    return hasattr(torch, 'npu') and torch.npu.is_available()\n\n\n"
    "def rng_state(rng_type):\n    if rng_type == RNGType.CUDA:\n"
    "        return torch.cuda.get_rng_state()\n"
    "    elif rng_type == RNGType.NPU:\n        return torch.npu.get_rng_state()\n"
    "    return torch.get_rng_state()\n\n\n"
    "def setup():\n    return torch.cuda.is_available()\n")


@pytest.mark.parametrize("line, work", [
    pytest.param(5, False, id="a-function-named-for-another-device"),
    pytest.param(9, False, id="cudas-member-of-a-per-device-family-of-functions"),
    pytest.param(18, False, id="an-enum-chain-that-names-the-target"),
    pytest.param(25, True, id="a-plain-function-that-probes-cuda"),
])
def test_per_device_functions_and_enum_chains_already_serve_the_target(scan_tree, line, work):
    report = scan_tree({"devices.py": PER_DEVICE_FUNCTIONS}, ["cann"])
    (found,) = [f for f in report.judged if f.span.line == line and f.rule == "device-call"]
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


ACCELERATE_ENV = (
    "import enum\n\nimport torch\nfrom accelerate.utils import is_mlu_available, is_npu_available\n\n\n"
    "class RNGType(enum.Enum):\n    TORCH = 'torch'\n    CUDA = 'cuda'\n    NPU = 'npu'\n\n\n"
    "class Backend(enum.Enum):\n    CUDA = 'cuda'\n    ROCM = 'rocm'\n\n\n"
    "def env_command(info):\n    pt_cuda_available = torch.cuda.is_available()\n"
    "    pt_npu_available = is_npu_available()\n    if pt_cuda_available:\n"
    "        info['GPU type'] = torch.cuda.get_device_name()\n    elif pt_npu_available:\n"
    "        info['NPU type'] = torch.npu.get_device_name()\n    return info\n")


@pytest.mark.parametrize("line, rule, work", [
    pytest.param(9, "device-string", False, id="an-enum-of-devices-that-names-the-target"),
    pytest.param(14, "device-string", True, id="an-enum-of-devices-without-the-target"),
    pytest.param(19, "device-call", False, id="a-flag-tested-as-cudas-arm-of-a-per-device-chain"),
    pytest.param(22, "device-call", False, id="cudas-arm-of-a-chain-of-flags"),
])
def test_accelerates_tables_and_flag_chains_already_serve_the_target(scan_tree, line, rule, work):
    """accelerate's ``RNGType`` enum and its ``accelerate env`` command: CUDA's member or arm beside the NPU's."""
    report = scan_tree({"env.py": ACCELERATE_ENV}, ["cann"])
    (found,) = [f for f in report.judged if f.span.line == line and f.rule == rule]
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


def test_cudas_branch_of_a_conditional_expression_is_skipped_where_the_device_is_not_cudas(scan_tree):
    code = ("import torch\nfrom contextlib import nullcontext\n\n\ndef load(load_device, path):\n"
            "    ctx = torch.cuda.device(load_device) if load_device.type == 'cuda' else nullcontext()\n"
            "    with ctx:\n        return torch.load(path)\n")
    report = scan_tree({"load.py": code}, ["cann"])
    (call,) = [f for f in report.judged if f.api == "torch.cuda.device"]
    assert call.verdicts["cann"].status == Status.SUPPORTED and call not in report.findings


@pytest.mark.parametrize("call, on_device", [
    pytest.param("torch.tril_indices(n, n, offset=-1)", False, id="indices-built-on-the-host"),
    pytest.param("torch.tril_indices(n, n, offset=-1, device=x.device)", True, id="indices-built-on-the-device"),
])
def test_an_index_factory_without_a_device_builds_on_the_host(scan_tree, call, on_device):
    code = f"import torch\n\n\ndef pairs(x, n):\n    idx = {call}\n    return x[..., idx[0], idx[1]]\n"
    report = scan_tree({"pairs.py": code}, ["cann"])
    assert bool([f for f in report.judged if f.api == "torch.tril_indices"]) == on_device


@pytest.mark.parametrize("body, skipped", [
    pytest.param("major, minor = torch.cuda.get_device_capability(f'cuda:{i}')\n            if major <= 5:\n"
                 "                old = True", True, id="a-loop-that-only-measures-each-cuda-device"),
    pytest.param("torch.cuda.set_device(i)", False, id="a-loop-that-sets-each-device"),
])
def test_a_loop_over_cudas_devices_is_a_test_of_cuda(scan_tree, body, skipped):
    code = (f"import torch\n\n\ndef old_gpu():\n    old = False\n    for i in range(torch.cuda.device_count()):\n"
            f"            {body}\n    return old\n").replace("\n            ", "\n        ")
    report = scan_tree({"oss.py": code}, ["cann"])
    (count,) = [f for f in report.judged if f.api == "torch.cuda.device_count"]
    assert (count.verdicts["cann"].status == Status.SUPPORTED) == skipped, count.verdicts["cann"].message


@pytest.mark.parametrize("line", [
    pytest.param("    with torch.backends.cuda.sdp_kernel(**cfg):\n"
                 "        return F.scaled_dot_product_attention(a, a, a)", id="attention-backend-context"),
    pytest.param("    torch.backends.cuda.enable_flash_sdp(False)\n    return F.scaled_dot_product_attention(a, a, a)",
                 id="attention-backend-switch"),
])
def test_cudas_attention_backend_switches_set_flags_the_target_does_not_read(scan_tree, line):
    report = _scan(scan_tree, line.replace("**cfg", "**model.cfg"), ["cann", "neuware"])
    (switch,) = [f for f in report.judged if f.api.startswith("torch.backends.cuda.")]
    assert not any(active(v) for v in switch.verdicts.values()), switch.verdicts
    assert switch not in report.findings


def test_a_requirements_files_cuda_wheels_are_one_change_of_that_file(scan_tree):
    lock = ("--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.4.1+cu121\n"
            "nvidia-cudnn-cu12==9.1.0.70\nnvidia-cublas-cu12==12.1.3.1\nnvidia-nccl-cu12==2.20.5\n")
    report = scan_tree({"requirements.txt": lock, "other/requirements.txt": "nvidia-cudnn-cu12==9.1.0.70\n",
                        "train.py": "import torch\n"}, ["cann"])
    wheels = [f for f in report.findings if f.rule == "cuda-requirement"]
    heads = [f for f in wheels if f.root is None]
    assert len(wheels) > len(heads) and sorted(f.path for f in heads).count("other/requirements.txt") == 1
    assert all(f.root in {h.id for h in heads} for f in wheels if f.root)


FRAMES = "import argparse\nimport os\n\n\ndef main():\n    for name in os.listdir('videos'):\n        print(name)\n"
TRAINER = "import torch\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    return model\n"


@pytest.mark.parametrize("script, files, stays", [
    # mmaction2's tools/data/*/*.sh: ``cd ..`` then a file-list script that touches no device
    pytest.param("#!/bin/bash\ncd ../\npython build_file_list.py data/videos --level 2\n",
                 {"tools/data/build_file_list.py": FRAMES}, False, id="data-preparation-script"),
    pytest.param("#!/bin/bash\npython tools/train.py configs/a.py\n", {"tools/train.py": TRAINER}, True,
                 id="training-script"),
    pytest.param("#!/bin/bash\npython build_file_list.py\npython tools/train.py\n",
                 {"tools/data/build_file_list.py": FRAMES, "tools/train.py": TRAINER}, True,
                 id="a-data-step-then-training"),
    pytest.param("#!/bin/bash\ntorchrun --nproc_per_node=8 build_file_list.py\n",
                 {"tools/data/build_file_list.py": FRAMES}, True, id="a-distributed-launcher"),
    pytest.param("#!/bin/bash\npython elsewhere/run.py\n", {"tools/data/build_file_list.py": FRAMES}, True,
                 id="a-script-the-scan-does-not-hold"),
])
def test_a_launch_needs_the_runtimes_environment_only_where_what_it_runs_does_device_work(
        scan_tree, script, files, stays):
    report = scan_tree({"tools/data/kinetics/extract.sh": script, **files}, ["cann"])
    (launch,) = [f for f in report.judged if f.rule == "launch-environment"]
    # the environment is the machine's (a shell, a container's profile sources it once): to check, never work
    assert (launch.verdicts["cann"].status != Status.SUPPORTED) == stays, launch.verdicts["cann"].message
    assert (launch in report.validate) == stays and launch not in report.findings


FAST_PATH = ("import torch\n\n\ndef median_filter(x, width):\n    result = None\n    if x.is_cuda:\n"
             "        try:\n            {fast}\n        except RuntimeError:\n            pass\n"
             "    if result is None:\n        result = x.unfold(-1, width, 1).sort()[0][..., width // 2]\n"
             "    return result\n")
TRITON_OPS = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef kernel(x_ptr):\n"
              "    tl.store(x_ptr, tl.load(x_ptr))\n\n\ndef median_filter_cuda(x, width):\n    kernel[(1,)](x)\n"
              "    return x\n")


@pytest.mark.parametrize("fast, skipped", [
    # whisper's timing.py: a lazily imported Triton fast path, the code after it does the same in torch
    pytest.param("from .triton_ops import median_filter_cuda\n            result = median_filter_cuda(x, width)",
                 True, id="imports-its-fast-path-there"),
    pytest.param("result = x.cpu().unfold(-1, width, 1).median(-1)[0].to(x.device)", False,
                 id="generic-work-in-the-branch"),
])
def test_a_cuda_tensors_fast_path_with_code_after_it_is_skipped_by_other_devices(scan_tree, fast, skipped):
    report = scan_tree({"pkg/__init__.py": "", "pkg/timing.py": FAST_PATH.replace("{fast}", fast),
                        "pkg/triton_ops.py": TRITON_OPS, "train.py": "from pkg.timing import median_filter\n"},
                       ["cann", "kunlun"])
    (test,) = [f for f in report.judged if f.api == "torch.Tensor.is_cuda"]
    assert (not active(test.verdicts["cann"])) == skipped, test.verdicts["cann"].message
    kernels = [f for f in report.judged if f.path == "pkg/triton_ops.py" and f.rule == "cuda-library"]
    assert kernels and all(active(f.verdicts["kunlun"]) for f in kernels)  # Kunlunxin's tensors are CUDA's
    assert all(not active(f.verdicts["cann"]) for f in kernels) == skipped


@pytest.mark.parametrize("branch, work", [
    pytest.param("warnings.warn('Performing inference on CPU when CUDA is available')", False, id="a-warning"),
    pytest.param("model = model.cuda()", True, id="a-move"),
])
def test_an_availability_test_that_only_warns_decides_nothing(scan_tree, branch, work):
    code = ("import warnings\n\nimport torch\n\n\ndef transcribe(model):\n    if model.device == torch.device('cpu'):\n"
            f"        if torch.cuda.is_available():\n            {branch}\n    return model\n")
    report = scan_tree({"transcribe.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    assert active(test.verdicts["cann"]) == work, test.verdicts["cann"].message


PARSED = ("import argparse\n\nimport torch\n\n\ndef parse_args():\n    parser = argparse.ArgumentParser()\n"
          "    parser.add_argument('--device', default='cuda')\n"
          "    parser.add_argument('--steps', type=int, default=10)\n"
          "    return parser.parse_args()\n\n\ndef train(opt):\n    for _ in range(opt.steps):\n        {use}\n\n\n"
          "def main():\n    args = parse_args()\n    train(args)\n")


@pytest.mark.parametrize("use, work", [
    # the bundled example's train.py: the device comes from torch.device("cuda", local_rank), not the option
    pytest.param("torch.zeros(2).cuda()", False, id="never-read"),
    pytest.param("torch.zeros(2).to(opt.device)", True, id="read-through-main"),
    pytest.param("torch.zeros(2).to(getattr(opt, 'device'))", True, id="read-by-name"),
    pytest.param("log(vars(opt))", True, id="handed-to-another-function"),
])
def test_a_device_default_of_an_option_nobody_reads_is_to_validate(scan_tree, use, work):
    report = scan_tree({"train.py": PARSED.replace("{use}", use)}, ["cann"])
    (default,) = [f for f in report.judged if f.rule == "device-string" and f.span.line == 8]
    assert active(default.verdicts["cann"]) == work, default.verdicts["cann"].message


@pytest.mark.parametrize("sibling, loaded", [
    # whisper's timing.py: dtw_cuda imports the Triton module, dtw_cpu is what other devices run
    pytest.param("def dtw_cpu(x):\n    return x.cpu().numpy()\n", False, id="cuda-member-of-a-family"),
    pytest.param("def dtw_reference(x):\n    return x.cpu().numpy()\n", True, id="no-family"),
])
def test_a_module_imported_only_by_cudas_member_of_a_family_is_not_loaded_elsewhere(scan_tree, sibling, loaded):
    timing = ("import torch\n\n\ndef dtw_cuda(x):\n    from .triton_ops import median_filter_cuda\n"
              "    return median_filter_cuda(x, 3)\n\n\n" + sibling)
    report = scan_tree({"pkg/__init__.py": "", "pkg/timing.py": timing, "pkg/triton_ops.py": TRITON_OPS,
                        "train.py": "from pkg.timing import dtw_cuda\n"}, ["cann"])
    kernels = [f for f in report.judged if f.path == "pkg/triton_ops.py" and f.rule == "cuda-library"]
    assert kernels and all(active(f.verdicts["cann"]) == loaded for f in kernels)


@pytest.mark.parametrize("name, work", [
    # d2l's gpu(i) beside cpu(): the device a chapter trains on, which falls to the host on the target
    pytest.param("gpu", True, id="the-device-itself"),
    # a CUDA implementation beside the host's: the other devices take the host's, to measure
    pytest.param("pairwise_gpu", False, id="an-implementation-beside-the-hosts"),
])
def test_a_cuda_function_beside_a_cpu_one_is_a_fast_path_only_when_it_implements_something(scan_tree, name, work):
    other = name.replace("gpu", "cpu")
    devices = (f"import torch\n\n\ndef {other}():\n    return torch.device('cpu')\n\n\n"
               f"def {name}(i=0):\n    return torch.device(f'cuda:{{i}}')\n\n\n"
               f"def try_gpu(i=0):\n    return {name}(i) if torch.cuda.device_count() > i else {other}()\n")
    report = scan_tree({"d2l.py": devices}, ["cann"])
    (found,) = [f for f in report.judged if f.rule == "device-argument" and f.scope.endswith(f".{name}")]
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


BNB = ("import torch\n\n\ndef _import_bitsandbytes():\n    import bitsandbytes as bnb\n\n"
       "    class _Linear8bitLt(bnb.nn.Linear8bitLt):\n        @staticmethod\n"
       "        def quantize(params, weight, device):\n            device = device or torch.device('cuda')\n"
       "            return bnb.nn.Int8Params(weight.to(device=device, dtype=torch.float16))\n\n"
       "    return _Linear8bitLt\n\n\ndef place(model):\n    return model.to(torch.device('cuda'))\n")


def test_a_device_written_for_a_cuda_library_where_it_is_used_changes_with_its_port(scan_tree):
    # (a module not named for the library: in one that is, its device handling is the library's backend whole)
    report = scan_tree({"precision.py": BNB}, ["cann"])
    library = [f for f in report.judged if f.rule == "cuda-library" and f.root is None]
    devices = {f.span.line: f for f in report.judged if f.rule.startswith("device-")}
    assert library and devices[10].root in {f.id for f in library}  # Lightning's bnb layers
    # a device outside the library's function is its own work: its line's item, no site of the library's
    outside = [f for f in report.judged if f.rule.startswith("device-") and f.span.line == 17]
    assert outside and all(f.root in {None, *(g.id for g in outside)} for f in outside)


@pytest.mark.parametrize("line, work", [
    # torchreid's load_checkpoint: elsewhere the host takes the checkpoint, load_state_dict puts it on the device
    pytest.param("map_location = None if torch.cuda.is_available() else 'cpu'\n"
                 "    state = torch.load(path, map_location=map_location)", False, id="assigned-choice"),
    # pfrl's agent: the host where CUDA is missing, the saved devices where it is there
    pytest.param("map_location = torch.device('cpu') if not torch.cuda.is_available() else None\n"
                 "    state = torch.load(path, map_location=map_location)", False, id="a-negated-choice"),
    pytest.param("state = torch.load(path, map_location='cuda' if torch.cuda.is_available() else 'cpu')", False,
                 id="keyword-choice"),
    pytest.param("device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                 "    state = torch.load(path, map_location=device)", True, id="the-runs-device"),
])
def test_a_load_that_chooses_the_host_elsewhere_works_as_written(scan_tree, line, work):
    code = ("import torch\n\n\ndef load_checkpoint(model, path):\n    " + line + "\n"
            "    model.load_state_dict(state)\n    return model\n")
    report = scan_tree({"torchtools.py": code}, ["cann"])
    tests = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    assert tests and all(active(f.verdicts["cann"]) == work for f in tests), [f.verdicts["cann"].message for f in tests]


def test_a_move_named_for_cuda_counts_in_a_module_that_does_not_import_torch(scan_tree):
    engine = ("from .engine import Engine\n\n\nclass ImageSoftmaxEngine(Engine):\n"
              "    def forward_backward(self, data):\n        imgs, pids = self.parse_data_for_train(data)\n"
              "        if self.use_gpu:\n            imgs = imgs.cuda()\n        return self.model(imgs)\n")
    report = scan_tree({"engine/__init__.py": "", "engine/engine.py": "import torch\n\n\nclass Engine:\n    pass\n",
                        "engine/softmax.py": engine}, ["cann"])
    moves = [f for f in report.findings if f.path == "engine/softmax.py" and f.api == "torch.Tensor.cuda"]
    assert [f.span.line for f in moves] == [8]


@pytest.mark.parametrize("target, own", [
    # torch_mlu registers ctc_loss.IntList/.Tensor with custom_autograd: its kernel runs, not _ctc_loss
    pytest.param("neuware", True, id="registered-with-its-own-autograd"),
    # op-plugin registers _ctc_loss, not ctc_loss: judged by the ops the trace saw
    pytest.param("cann", False, id="judged-by-its-decomposition"),
])
def test_a_composite_op_the_target_registers_itself_runs_its_kernel(scan_tree, target, own):
    # weight_norm's hook calls torch._weight_norm, which torch_npu registers itself (its CPU decomposition,
    # _weight_norm_interface, has no cann kernel: what the trace saw is not what the card runs)
    hooked = _one(scan_tree({"train.py": STEP}, ["cann"]), "torch.nn.utils.weight_norm").verdicts["cann"]
    assert hooked.status == Status.SUPPORTED and "registers aten::_weight_norm itself" in hooked.message
    report = _scan(scan_tree, "    return F.ctc_loss(a, a, a, a)", [target])
    found = _one(report, "torch.nn.functional.ctc_loss")
    verdict = found.verdicts[target]
    assert ("registers aten::ctc_loss itself" in verdict.message) == own, verdict.message
    if own:
        assert verdict.status == Status.SUPPORTED


@pytest.mark.parametrize("target, own", [
    # pyro's GP models: torch_npu registers linalg_cholesky, which the CPU trace sees as linalg_cholesky_ex
    pytest.param("cann", True, id="the-linalg-op-registered-by-its-name"),
    # torch_mlu registers neither: its trace's linalg_cholesky_ex falls back to the host
    pytest.param("neuware", False, id="no-kernel-either-way"),
])
def test_a_linalg_function_the_target_registers_by_its_own_name_runs_its_kernel(scan_tree, target, own):
    found = _one(_scan(scan_tree, "    return torch.linalg.cholesky(a)", [target]), "torch.linalg.cholesky")
    assert ("registers aten::linalg_cholesky itself" in found.verdicts[target].message) == own
    assert (found.verdicts[target].status == Status.SUPPORTED) == own


@pytest.mark.parametrize("test, taken", [
    # Lightning's precision plugins: torch.amp's scaler from 2.4, CUDA's below; the targets pair with 2.4 and 2.12
    pytest.param("not _TORCH_GREATER_EQUAL_2_4", False, id="a-flag-for-an-older-torch"),
    pytest.param("version.parse(torch.__version__) < version.parse('2.0')", False, id="a-parsed-version"),
    pytest.param("version.parse(torch.__version__) >= version.parse('2.0')", True, id="a-branch-the-target-takes"),
    pytest.param("_TORCH_GREATER_EQUAL_2_13", False, id="a-flag-for-a-newer-torch"),
    # ultralytics' TORCH_1_13 = check_version(TORCH_VERSION, "1.13.0"), imported from its torch_utils
    pytest.param("not TORCH_1_13", False, id="a-bare-release-flag"),
    # basicsr's DCNv2Pack: torchvision 0.9 pairs with torch 1.8, below every target's line
    pytest.param("LooseVersion(torchvision.__version__) < LooseVersion('0.9.0')", False, id="torchvisions-release"),
    pytest.param("version.parse(torchvision.__version__) >= version.parse('0.15')", True,
                 id="torchvisions-release-the-target-has"),
    # axolotl's offload_cpu.py: the parsed version bound to a name first
    pytest.param("torch_version < version.parse('2.4.0')", False, id="a-parsed-version-bound-to-a-name"),
    # chronos' pipeline: the comparison itself bound to a name (``is_torch_geq_2p9``), tested later
    pytest.param("older_torch", False, id="a-comparison-bound-to-a-name"),
    pytest.param("not older_torch", True, id="a-comparison-bound-to-a-name-negated"),
    # accelerate's and trl's helper, and transformers'
    pytest.param("not is_torch_version('>=', '2.4.0')", False, id="a-libraries-helper"),
    pytest.param("is_torch_version('<', '2.4.0')", False, id="a-libraries-helper-below"),
    pytest.param("not is_torch_greater_or_equal('2.4')", False, id="transformers-helper"),
])
def test_a_branch_for_another_torch_than_the_targets_never_runs_there(scan_tree, test, taken):
    code = ("import torch\nimport torchvision\nfrom distutils.version import LooseVersion\n"
            "from packaging import version\nfrom accelerate.utils import is_torch_version\n"
            "from transformers.utils import is_torch_greater_or_equal\nfrom .torch_utils import TORCH_1_13\n\n"
            "torch_version = version.parse(torch.__version__)\n"
            "older_torch = version.parse(torch.__version__) < version.parse('2.0.0')\n"
            "_TORCH_GREATER_EQUAL_2_4 = True\n"
            "_TORCH_GREATER_EQUAL_2_13 = False\n\n\ndef make_scaler():\n"
            f"    if {test}:\n        return torch.cuda.amp.GradScaler()\n    return None\n")
    report = scan_tree({"amp.py": code}, ["cann", "neuware"])
    (scaler,) = [f for f in report.judged if f.api == "torch.cuda.amp.GradScaler"]
    assert active(scaler.verdicts["cann"]) == taken, scaler.verdicts["cann"].message


@pytest.mark.parametrize("handler, taken", [
    # open_clip's main.py: the generic scaler where torch has it, CUDA's on an older torch only
    pytest.param("except (AttributeError, TypeError):", False, id="an-older-torchs-fallback"),
    # a handler for another error is no question of the torch release: it runs on the target too
    pytest.param("except RuntimeError:", True, id="another-error"),
])
def test_a_handler_for_a_torch_without_the_generic_form_never_runs_on_the_targets(scan_tree, handler, taken):
    code = ("import torch\n\n\ndef make_scaler(device):\n    try:\n"
            "        scaler = torch.amp.GradScaler(device=device)\n    " + handler + "\n"
            "        scaler = torch.cuda.amp.GradScaler()\n    return scaler\n")
    report = scan_tree({"amp.py": code}, ["cann", "neuware"])
    (scaler,) = [f for f in report.judged if f.api == "torch.cuda.amp.GradScaler"]
    assert active(scaler.verdicts["cann"]) == taken, scaler.verdicts["cann"].message


def test_a_conditional_expression_on_torchs_version_is_a_branch_for_that_torch(scan_code):
    """trl's offloading: ``torch.get_device_module(t) if is_torch_version(">=", "2.4.0") else torch.cuda``:
    the targets pair with torch 2.4 and 2.12, which take the first."""
    findings = scan_code("import torch\nfrom accelerate.utils import is_torch_version\n\n\ndef module(kind):\n"
                         "    return (torch.get_device_module(kind) if is_torch_version('>=', '2.4.0')\n"
                         "            else torch.cuda)\n", ["cann"])
    cuda = [f for f in findings if f.api == "torch.cuda"]
    assert cuda and not any(active(f.verdicts["cann"]) for f in cuda)


@pytest.mark.parametrize("method, work", [
    # colossalai's BaseAccelerator: each accelerator (npu_accelerator.py among them) overrides it with its own
    pytest.param("    @abstractmethod\n    def get_rng_state(self, device='cuda'):\n        \"\"\"The state.\"\"\"\n",
                 False, id="abstract-method"),
    pytest.param("    def set_device(self, device='cuda'):\n        raise NotImplementedError\n", False,
                 id="not-implemented-here"),
    pytest.param("    def zeros(self, device='cuda'):\n        return torch.zeros(1, device=device)\n", True,
                 id="a-default-the-body-uses"),
])
def test_a_device_default_of_a_method_with_no_body_of_its_own_reaches_no_run(scan_tree, method, work):
    code = "from abc import ABC, abstractmethod\n\nimport torch\n\n\nclass BaseAccelerator(ABC):\n" + method
    report = scan_tree({"base_accelerator.py": code}, ["cann"])
    defaults = [f for f in report.findings if f.rule == "device-string"]
    assert bool(defaults) == work


GENERATOR = ("import torch\n\n\nclass MlvlPointGenerator:\n"
             "    def grid_priors(self, sizes, dtype=torch.float32, device='cuda'):\n"
             "        return [torch.zeros(s, dtype=dtype, device=device) for s in sizes]\n\n"
             "    def forward(self, sizes, feats):\n"
             "        def repeat(n, device='cuda'):\n            return torch.arange(n, device=device)\n"
             "        return repeat(len(sizes), device=feats.device)\n")


@pytest.mark.parametrize("head, work", [
    # mmpose's RTMO head: built from a registry, it calls the generator's method with the features' device
    pytest.param("def predict(self, feats):\n    return self.prior_generator.grid_priors([2], device=feats.device)\n",
                 False, id="every-call-passes-it"),
    pytest.param("def predict(self, feats):\n    return self.prior_generator.grid_priors([2])\n", True,
                 id="a-call-without-it"),
    # mmdet's heads: ``pred_instances.grid_priors = ...`` sets data of the method's name, read back as data
    pytest.param("def predict(self, feats, pred):\n    pred.grid_priors = self.prior_generator.grid_priors("
                 "[2], device=feats.device)\n    return pred.grid_priors\n", False, id="data-of-the-same-name"),
    pytest.param("def predict(self, feats):\n    make = self.prior_generator.grid_priors\n    return make([2])\n",
                 True, id="the-method-handed-on"),
])
def test_a_methods_device_default_every_project_call_overrides_is_to_validate(scan_tree, head, work):
    report = scan_tree({"generator.py": GENERATOR, "head.py": "import torch\n\n\n" + head}, ["cann"])
    (method,) = [f for f in report.judged if f.rule == "device-string" and f.span.line == 5]
    (nested,) = [f for f in report.judged if f.rule == "device-string" and f.span.line == 9]
    assert active(method.verdicts["cann"]) == work, method.verdicts["cann"].message
    assert not active(nested.verdicts["cann"])  # a nested function called by its name, with the device


@pytest.mark.parametrize("imports, context", [
    # LAVIS's app/: Streamlit pages that run a pretrained model for a browser
    pytest.param("import streamlit as st\n", Context.TOOLING, id="a-streamlit-page"),
    pytest.param("import gradio as gr\n", Context.TOOLING, id="a-gradio-demo"),
    # nequip's integrations/ase.py, mace's calculators: a trained potential driving a molecular simulation
    pytest.param("from ase.calculators.calculator import Calculator\n", Context.TOOLING, id="an-ase-calculator"),
    pytest.param("import openmm\n", Context.TOOLING, id="an-openmm-force"),
    # reading structures with ASE is data loading, not a simulation
    pytest.param("from ase.io import read\n", Context.TRAINING, id="ase-reads-data"),
    pytest.param("import numpy as np\n", Context.TRAINING, id="a-module"),
])
def test_a_web_demo_or_a_simulator_is_not_the_training_run(scan_tree, imports, context):
    page = imports + "import torch\n\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    report = scan_tree({"app/classification.py": page}, ["cann"])
    found = [f for f in report.judged if f.path == "app/classification.py"]
    assert found and all(f.context == context for f in found)


def test_an_object_of_another_modules_class_is_no_tensor_for_its_own_methods(scan_tree):
    value = ("import torch\nfrom torch import nn\nfrom dists import TwoHotDist\n\n\nclass Value(nn.Module):\n"
             "    def forward(self, x):\n        self.distr = TwoHotDist(logits=x)\n        return self.distr.mode()\n")
    dists = "import torch\n\n\nclass TwoHotDist:\n    def __init__(self, logits):\n        self.logits = logits\n"
    train = "import torch\nfrom value import Value\n\n\ndef main():\n    model = Value()\n    model.cuda()\n"
    report = scan_tree({"value.py": value, "dists.py": dists, "train.py": train}, ["cann"])
    assert not [f for f in report.judged if f.api.endswith(".mode")]  # rl_games' TwoHotDist.mode, not aten::mode
    (move,) = [f for f in report.findings if f.path == "train.py"]
    assert move.api == "torch.nn.Module.cuda" and active(move.verdicts["cann"])


def test_a_project_wide_librarys_cause_is_headed_in_training_code(scan_tree):
    uses = ("import torch\nfrom mmcv.ops import nms_rotated\n\n\ndef f(boxes, scores):\n"
            "    return nms_rotated(boxes, scores, 0.5)\n")
    report = scan_tree({"a_tools/analysis_tools/confusion_matrix.py": uses, "models/head.py": uses}, ["cann"])
    library = [f for f in report.judged if f.rule == "cuda-library"]
    heads = [f for f in library if f.root is None and any(active(v) for v in f.verdicts.values())]  # the work
    assert library and all(f.path == "models/head.py" for f in heads), [(f.path, f.root) for f in library]
    assert any(f in report.findings for f in heads)


def test_keywords_unpacked_from_a_dict_display_are_the_calls_own(scan_tree):
    # gluonts' estimator: pl.Trainer(**{"accelerator": "auto", **self.trainer_kwargs}) trains on the CPU there
    code = ("import lightning.pytorch as pl\n\n\ndef train(net, data, kwargs):\n"
            "    trainer = pl.Trainer(**{\"accelerator\": \"auto\", \"max_epochs\": 3, **kwargs})\n"
            "    trainer.fit(net, data)\n")
    report = scan_tree({"estimator.py": code}, ["cann"])
    (auto,) = [f for f in report.findings if f.rule == "framework-argument"]
    assert "accelerator=auto" in auto.verdicts["cann"].message and active(auto.verdicts["cann"])


T5 = ('import torch\nfrom torch import nn\n\n\nclass T5Stack(nn.Module):\n    """Example::\n\n'
      '        model.parallelize(device_map)\n    """\n\n    def __init__(self):\n        super().__init__()\n'
      '        self.model_parallel = False\n\n    def parallelize(self, device_map=None):\n'
      '        self.model_parallel = True\n        self.first_device = "cuda:" + str(min(device_map.keys()))\n\n'
      '    def forward(self, x):\n        if self.model_parallel:\n            torch.cuda.set_device(x.device)\n'
      '        return x\n')


# torch-rechub's TIGER keeps HF's branches on the flag and no ``parallelize()`` at all
T5_WITHOUT_SWITCH = T5.replace('    def parallelize(self, device_map=None):\n'
                               '        self.model_parallel = True\n'
                               '        self.first_device = "cuda:" + str(min(device_map.keys()))\n\n', '')


@pytest.mark.parametrize("t5, train, work", [
    # LAVIS vendors HF's modeling_t5.py: nothing in the project turns the naive model parallelism on
    pytest.param(T5, "from t5 import T5Stack\n\nmodel = T5Stack()\nmodel(1)\n", False,
                 id="a-mode-nobody-turns-on"),
    pytest.param(T5, "from t5 import T5Stack\n\nmodel = T5Stack()\nmodel.parallelize({0: [0]})\nmodel(1)\n",
                 True, id="a-script-turns-it-on"),
    pytest.param(T5_WITHOUT_SWITCH, "from t5 import T5Stack\n\nmodel = T5Stack()\nmodel(1)\n", False,
                 id="a-flag-never-set-true"),
    pytest.param(T5_WITHOUT_SWITCH, "from t5 import T5Stack\n\nmodel = T5Stack()\nmodel.model_parallel = True\n"
                 "model(1)\n", True, id="a-script-sets-it"),
    pytest.param(T5_WITHOUT_SWITCH, "import sys\nfrom t5 import T5Stack\n\nmodel = T5Stack()\n"
                 "model.model_parallel = len(sys.argv) > 1\nmodel(1)\n", True,
                 id="a-script-sets-it-from-its-arguments"),
])
def test_a_mode_nothing_turns_on_is_not_the_run(scan_tree, t5, train, work):
    report = scan_tree({"t5.py": t5, "train.py": train}, ["cann"])
    inside = [f for f in report.judged if f.path == "t5.py" and f.rule.startswith("device")]
    assert inside and all((f.context == Context.TRAINING) == work for f in inside), [(f.span.line, f.context)
                                                                                     for f in inside]


@pytest.mark.parametrize("branch, work", [
    # stanza's set_random_seed: torch.manual_seed already seeds the target's generator
    pytest.param("torch.cuda.manual_seed(seed)\n        torch.cuda.manual_seed_all(seed)", False, id="only-seeds"),
    pytest.param("torch.cuda.manual_seed_all(seed)\n        model.cuda()", True, id="seeds-and-moves"),
    # s3prl's run_pretrain: cuDNN's switches beside the seeds, which the target does not read
    pytest.param("torch.cuda.manual_seed_all(seed)\n        torch.backends.cudnn.deterministic = True\n"
                 "        torch.backends.cudnn.benchmark = False", False, id="seeds-and-cudnn-switches"),
    # norse's MNIST task: the switches under an imported name, the device chosen from the arguments after
    pytest.param("torch.cuda.manual_seed(seed)\n        cudnn.enabled = True\n        cudnn.benchmark = True",
                 False, id="seeds-and-imported-cudnn-switches"),
])
def test_a_cuda_test_that_only_seeds_cudas_generators_decides_nothing(scan_tree, branch, work):
    code = ("import torch\nfrom torch.backends import cudnn\n\n\ndef set_random_seed(seed, model):\n"
            f"    torch.manual_seed(seed)\n    if torch.cuda.is_available():\n        {branch}\n    return seed\n")
    report = scan_tree({"utils.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    assert active(test.verdicts["cann"]) == work, test.verdicts["cann"].message


@pytest.mark.parametrize("branch, work", [
    # d3rlpy's __init__: compiled autograd and the matmul precision are speed switches ("compiled" holds no "mpi")
    pytest.param("torch._dynamo.config.compiled_autograd = True\n    torch.set_float32_matmul_precision('high')",
                 False, id="speed-switches"),
    pytest.param("model = model.cuda()", True, id="a-move"),
])
def test_device_words_are_read_word_by_word(scan_tree, branch, work):
    code = f"import torch\n\nmodel = torch.nn.Linear(2, 2)\nif torch.cuda.is_available():\n    {branch}\n"
    report = scan_tree({"d3.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.cuda.is_available"]
    assert active(test.verdicts["cann"]) == work, test.verdicts["cann"].message


@pytest.mark.parametrize("train, context", [
    # torchani's tools/tool_utils.py serves its tools/*-benchmark.py scripts only
    pytest.param("import torch\n", Context.TOOLING, id="imported-by-benchmarks-only"),
    pytest.param("import torch\nfrom tools.tool_utils import Timer\n", Context.TRAINING, id="imported-by-training"),
])
def test_a_module_only_tooling_imports_is_tooling(scan_tree, train, context):
    utils = "import torch\n\n\nclass Timer:\n    def stop(self):\n        torch.cuda.synchronize()\n"
    bench = "import torch\nfrom tool_utils import Timer\n\nTimer().stop()\n"
    report = scan_tree({"tools/tool_utils.py": utils, "tools/training-benchmark.py": bench, "train.py": train},
                       ["cann"])
    (sync,) = [f for f in report.judged if f.path == "tools/tool_utils.py"]
    assert sync.context == context




PREDICATE = ("import torch\n\n\ndef _is_cuda(device):\n    \"\"\"Whether the device is CUDA's.\"\"\"\n"
             "    return device.type == 'cuda' and torch.cuda.is_initialized()\n\n\n"
             "def step(x, stats):\n{body}\n")


@pytest.mark.parametrize("body, work", [
    # rfdetr's progress bar: a module's own predicate over the device decides a branch that only measures
    pytest.param("    if _is_cuda(x.device):\n        stats['max'] = torch.cuda.max_memory_allocated(x.device)\n"
                 "    return stats", False, id="a-predicate-deciding-a-measurement"),
    # trl's Triton gate, through its own predicate, with the torch way after it
    pytest.param("    if _is_cuda(x.device):\n        torch.cuda.synchronize()\n        return x\n    return x + 1",
                 False, id="a-predicate-with-the-other-way-after"),
    # the predicate decides set-up every device needs, with no other way: the work stays
    pytest.param("    if _is_cuda(x.device):\n        torch.cuda.set_device(0)\n    return x", True,
                 id="a-predicate-deciding-set-up"),
])
def test_a_call_of_the_modules_device_predicate_is_a_device_test(scan_tree, body, work):
    report = scan_tree({"ops.py": PREDICATE.format(body=body)}, ["cann"])
    device_work = [f for f in counted(report.findings) if f.category == Category.DEVICE
                   and active(f.verdicts["cann"])]
    assert bool(device_work) == work, [(f.span.line, f.snippet, f.verdicts["cann"].message) for f in device_work]


def test_a_negated_device_test_beside_another_condition_leaves_no_cuda_only_rest(scan_tree):
    """torch_geometric's spmm: ``if src.layout == torch.sparse_csr and not src.is_cuda: return <CPU's reduce>``:
    a CSC tensor on the target goes on past it, so what follows is no CUDA-only branch: its fallback stays work."""
    code = ("import torch\n\n\ndef spmm(src, other, reduce):\n"
            "    if src.layout == torch.sparse_csr and not src.is_cuda:\n"
            "        return torch.sparse.mm(src, other, reduce)\n"
            "    src = src.to_sparse_csr()\n    return torch.sparse.mm(src, other, reduce)\n")
    report = scan_tree({"spmm.py": code}, ["cann"])
    after = [f for f in report.judged if f.api == "torch.sparse.mm" and f.span.line == 8]
    assert after and active(after[0].verdicts["cann"]), after[0].verdicts["cann"].message if after else None


_CPU_CACHE = """import torch
from torch import nn


class Propagate(nn.Module):
    def __init__(self, cpu_cache=False):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3)
{init}

    def propagate(self, feats):
        out = []
        for feat in feats:
            if self.cpu_cache:
                feat = feat.cuda()
            out.append(self.conv(feat))
        return out

    def forward(self, lqs):
{forward}
        return self.propagate([lqs[:, i] for i in range(lqs.size(1))])
"""


@pytest.mark.parametrize("init, forward, work", [
    # mmagic's BasicVSR++: the cache is on only for a long clip of CUDA tensors, never on the target
    pytest.param("        self.cpu_cache_length = 100",
                 "        if lqs.size(1) > self.cpu_cache_length and lqs.is_cuda:\n            self.cpu_cache = True\n"
                 "        else:\n            self.cpu_cache = False", False, id="set-true-in-a-cuda-tensors-branch"),
    pytest.param("        self.cpu_cache = False", "        self.cpu_cache = lqs.is_cuda and lqs.size(1) > 100", False,
                 id="bound-to-a-device-test"),
    # set from a parameter: the user may turn it on anywhere, and on the target its body moves to CUDA
    pytest.param("        self.cpu_cache = cpu_cache", "        pass", True, id="set-from-a-parameter"),
    pytest.param("        self.cpu_cache = False",
                 "        if lqs.is_cuda:\n            self.cpu_cache = True\n"
                 "        self.cpu_cache = lqs.size(1) > 100",
                 True, id="also-set-from-anything-else"),
])
def test_an_attribute_set_true_only_on_a_cuda_tensor_guards_as_the_test_does(scan_tree, init, forward, work):
    report = scan_tree({"net.py": _CPU_CACHE.format(init=init, forward=forward)}, ["cann"])
    moves = [f for f in report.findings if f.api == "torch.Tensor.cuda"]
    assert moves and any(f.root is None and active(f.verdicts["cann"]) for f in moves) == work


@pytest.mark.parametrize("test, work", [
    # s3prl's runner: CUDA's out-of-memory is skipped; another device's error text never says CUDA
    pytest.param("'CUDA out of memory' in str(e)", False, id="cudas-words-in-the-error"),
    pytest.param("'out of memory' in str(e) and 'CUDA' in str(e)", False, id="among-other-words"),
    pytest.param("'out of memory' in str(e)", True, id="any-devices-out-of-memory"),
])
def test_a_branch_for_cudas_error_text_is_taken_on_cuda_only(scan_tree, test, work):
    code = ("import torch\n\n\ndef step(model, batch, optimizer, device):\n    try:\n"
            "        model(batch).sum().backward()\n    except RuntimeError as e:\n"
            f"        if {test}:\n            with torch.cuda.device(device):\n"
            "                torch.cuda.empty_cache()\n"
            "            optimizer.zero_grad()\n        else:\n            raise\n")
    report = scan_tree({"runner.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.cuda.device"]
    assert active(found.verdicts["cann"]) == work, found.verdicts["cann"].message


@pytest.mark.parametrize("value, device", [
    pytest.param("'cuda:' + str(rank)", True, id="a-word-and-a-rank"),
    pytest.param("'cuda:' + '0'", True, id="two-strings"),
    pytest.param("'cuda' + suffix", False, id="the-start-of-a-name"),
    pytest.param("prefix + 'cuda'", False, id="the-end-of-a-name"),
    # HiFi-GAN's train.py: the training device, its index filled by the formatting
    pytest.param("'cuda:{:d}'.format(rank)", True, id="a-format-call"),
    pytest.param("'cuda:%d' % rank", True, id="percent-formatting"),
    pytest.param("'cuda_{}'.format(suffix)", False, id="a-formatted-name"),
    pytest.param("'{}:{}'.format(prefix, rank)", False, id="no-device-word"),
])
def test_a_device_joined_with_a_plus_is_a_device_string(scan_tree, value, device):
    code = f"import torch\n\n\ndef place(model, rank, prefix, suffix):\n    name = {value}\n    return model.to(name)\n"
    report = scan_tree({"agent.py": code}, ["cann"])
    found = [f for f in report.judged if f.category == Category.DEVICE and active(f.verdicts["cann"])]
    assert bool(found) == device, [(f.span.line, f.snippet) for f in found]


@pytest.mark.parametrize("code, backend", [
    # bagua's installer: a folder named for NCCL, no backend chosen
    pytest.param("import os\nLIB = os.path.join(os.path.expanduser('~'), 'bagua', 'nccl', 'lib', 'libnccl.so')\n",
                 False, id="a-folder-in-os-path-join"),
    pytest.param("from pathlib import Path\nLIB = Path('/opt') / 'nccl' / 'lib'\n", False, id="a-folder-in-a-path"),
    pytest.param("import torch.distributed as dist\ndist.init_process_group('nccl')\n", True, id="the-backend"),
])
def test_a_backends_name_as_a_path_component_is_no_backend(scan_tree, code, backend):
    report = scan_tree({"env.py": code}, ["cann"])
    found = [f for f in report.judged if f.category == Category.DISTRIBUTED and active(f.verdicts["cann"])]
    assert bool(found) == backend, [(f.span.line, f.snippet) for f in found]


@pytest.mark.parametrize("line, device", [
    # pypose's LieTensor: the torch functions it hands through, 'cuda' and 'cpu' among them as methods' names
    pytest.param("HANDLED = ['__getitem__', 'cpu', 'cuda', 'float', 'double', 'to', 'detach', 'view']", False,
                 id="a-list-of-method-names"),
    pytest.param("DEVICES = ['cpu', 'cuda', 'mps', 'auto']", True, id="a-list-of-devices"),
])
def test_a_devices_word_among_method_names_is_a_methods_name(scan_tree, line, device):
    report = scan_tree({"lie.py": f"import torch\n\n{line}\n"}, ["cann"])
    found = [f for f in report.judged if f.rule == "device-string" and f.verdicts["cann"].status != Status.SUPPORTED]
    assert bool(found) == device, [(f.span.line, f.snippet) for f in found]


_PROFILED_STEP = """\
import argparse

import torch


def train(model, loader, optimizer, args):
    for i, (x, y) in enumerate(loader):
        if {test}:
            torch.cuda.nvtx.range_push("step {{}}".format(i))
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--prof", default=-1, type=int)
    train(None, [], None, parser.parse_args())
"""


@pytest.mark.parametrize("test, opt_in", [
    # bagua's imagenet example: NVTX ranges only under ``--prof``, off by default
    pytest.param("args.prof >= 0", True, id="a-profiling-switch"),
    pytest.param("self_profiler is not None", True, id="a-profiler-object"),
    # rl-games' runner: a configuration's key turns the profiler on
    pytest.param("vars(args).get('profile', False)", True, id="a-profiling-key"),
    pytest.param("args.verbose", False, id="another-switch"),
    pytest.param("vars(args).get('verbose', False)", False, id="another-key"),
])
def test_what_a_profiling_switch_turns_on_is_not_the_run(scan_tree, test, opt_in):
    report = scan_tree({"main.py": _PROFILED_STEP.format(test=test).replace("self_profiler", "args.profiler")},
                       ["cann"])
    (nvtx,) = [f for f in report.judged if f.api.startswith("torch.cuda.nvtx")]
    assert (nvtx.context == Context.TOOLING) == opt_in
    moves = [f for f in report.judged if f.api == "torch.Tensor.cuda"]
    assert moves and all(f.context == Context.TRAINING for f in moves)  # the step itself stays the run


@pytest.mark.parametrize("branch, opt_in", [
    # yolox's evaluators: a TensorRT engine replaces the model only where a file of one is given
    pytest.param("    if trt_file is not None:\n        from torch2trt import TRTModule\n\n"
                 "        model_trt = TRTModule()\n        x = torch.ones(1, 3, 8, 8).cuda()\n"
                 "        model(x)\n        model = model_trt\n", True, id="an-engine-branch"),
    # the same test around code that loads no engine is the run
    pytest.param("    if trt_file is not None:\n        import json\n\n"
                 "        model_trt = json.loads(trt_file)\n        x = torch.ones(1, 3, 8, 8).cuda()\n"
                 "        model(x)\n        model = model_trt\n", False, id="another-branch"),
])
def test_what_an_inference_engines_branch_does_is_not_the_run(scan_tree, branch, opt_in):
    code = "import torch\n\n\ndef evaluate(model, trt_file=None):\n" + branch + "    return model\n"
    report = scan_tree({"yolo/core.py": code}, ["cann"])
    (move,) = [f for f in report.judged if f.api == "torch.Tensor.cuda"]
    assert (move.context == Context.TOOLING) == opt_in


_SOLVER_BUILD = {
    "setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                 "setup(name='solvers', ext_modules=[CUDAExtension('solvers._cusolver', ['csrc/lu.cpp', "
                 "'csrc/lu.cu'])], cmdclass={'build_ext': BuildExtension})\n"),
    "csrc/lu.cu": "__global__ void lu(float* a) { a[0] = 1.0f; }\n",
    "csrc/lu.cpp": "#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n",
}


@pytest.mark.parametrize("code, line, own_work", [
    # theseus' LUCudaSparseSolver: a class named for CUDA around the extension; its requirement test and the
    # moves of the index tensors cuSOLVER reads change with the extension's port
    pytest.param("class LUCudaSolver:\n    def __init__(self, rows):\n        if not torch.cuda.is_available():\n"
                 "            raise RuntimeError('LUCudaSolver needs CUDA')\n        self.reset(rows)\n\n"
                 "    def reset(self, rows):\n        self.rows = torch.tensor(rows, dtype=torch.int32).cuda()\n"
                 "        self.ctx = _cusolver.Context(self.rows)\n", 8, False, id="cuda-named-class-move"),
    pytest.param("class LUCudaSolver:\n    def __init__(self, rows):\n        if not torch.cuda.is_available():\n"
                 "            raise RuntimeError('LUCudaSolver needs CUDA')\n        self.reset(rows)\n\n"
                 "    def reset(self, rows):\n        self.rows = torch.tensor(rows, dtype=torch.int32).cuda()\n"
                 "        self.ctx = _cusolver.Context(self.rows)\n", 3, False, id="cuda-named-class-test"),
    # a test in the function that calls the extension guards it, whatever the class is called
    pytest.param("def solve(a):\n    if not torch.cuda.is_available():\n        raise RuntimeError('needs CUDA')\n"
                 "    return _cusolver.solve(a)\n", 2, False, id="test-before-the-extension"),
    # a trainer that calls the extension in its step still moves its batch for every other op: its own work
    pytest.param("class Trainer:\n    def step(self, batch):\n        batch = batch.cuda()\n"
                 "        return _cusolver.solve(batch).sum()\n", 3, True, id="trainer-move-beside-the-extension"),
])
def test_what_a_cuda_implementation_does_around_its_compiled_extension_changes_with_its_port(
        scan_tree, code, line, own_work):
    files = {**_SOLVER_BUILD, "solvers/__init__.py": "",
             "solvers/lu.py": "import torch\nfrom solvers import _cusolver\n\n\n" + code}
    report = scan_tree(files, ["cann"])
    (found,) = [f for f in report.judged if f.path == "solvers/lu.py" and f.span.line == line + 4
                and f.category == Category.DEVICE]
    (build,) = [f for f in report.judged if f.rule == "extension-build"]
    assert (found.root is None and active(found.verdicts["cann"])) == own_work
    assert own_work or found.root == build.id


@pytest.mark.parametrize("files, path, line, expect", [
    # rl-games' CuleEnv: the emulator's device default, in the class named for the CUDA-only library it wraps,
    # changes with the library's port: a site of it
    pytest.param({"envs/cule.py": "import torch\n\n\nclass CuleEnv:\n    def __init__(self, **kwargs):\n"
                  "        from torchcule.atari import Env\n        self.device = kwargs.pop('device', 'cuda:0')\n"
                  "        self.env = Env('Pong', 8, device=self.device)\n"},
                 "envs/cule.py", 7, "site", id="port-library-class"),
    # alibi-detect's keops detectors: an optional backend (the package goes on without pykeops), so its device
    # test serves a backend the target never takes
    pytest.param({"detect/__init__.py": "", "detect/keops/__init__.py": "",
                  "detect/frameworks.py": "try:\n    import pykeops\n    has_keops = True\nexcept ImportError:\n"
                                          "    has_keops = False\n",
                  "detect/mmd.py": "from detect.frameworks import has_keops\n\nif has_keops:\n"
                                   "    from detect.keops.mmd import MMDDriftKeops\n",
                  "detect/keops/mmd.py": "import torch\nfrom pykeops.torch import LazyTensor\n\n\n"
                  "class MMDDriftKeops:\n    def __init__(self, device):\n        self.device = device\n\n"
                  "    def score(self, x):\n"
                  "        k = LazyTensor(x[:, None, :])\n        if self.device.type == 'cuda':\n"
                  "            x = x.cpu()\n        return k, x\n"},
                 "detect/keops/mmd.py", 11, "runs", id="optional-library-backend"),
    # a training step that calls the library beside its own device handling is not named for it: its own work
    pytest.param({"train.py": "import torch\nfrom torchcule.atari import Env\n\n\ndef train_step(batch):\n"
                  "    batch = batch.to('cuda:0')\n    return Env('Pong', 8, device='cpu'), batch\n"},
                 "train.py", 6, "work", id="unnamed-step-beside-the-library"),
])
def test_device_handling_in_a_backend_named_for_a_cuda_only_library_goes_with_that_library(
        scan_tree, files, path, line, expect):
    report = scan_tree(files, ["cann"])
    (found,) = [f for f in report.judged if f.path == path and f.span.line == line and f.category == Category.DEVICE]
    libraries = [f for f in report.judged if f.rule == "cuda-library"]
    if expect == "site":
        assert found.root in {f.root or f.id for f in libraries}
    elif expect == "runs":
        assert found.verdicts["cann"].status == Status.SUPPORTED and "backend named for `pykeops`" in \
            found.verdicts["cann"].message
    else:
        assert found.root is None and active(found.verdicts["cann"])


# mmfewshot's train_model (mmdet 2.x's shape): the model wrapped in mmcv 1.x's wrappers, which scatter to CUDA
MM_TRAIN = """\
import torch
from mmcv.parallel import MMDataParallel, MMDistributedDataParallel, collate
from mmcv.utils import ConfigDict


def train_model(model, dataset, cfg: ConfigDict, distributed=False):
    batch = collate([dataset[0]])
    if distributed:
        model = MMDistributedDataParallel(model.cuda(), device_ids=[torch.cuda.current_device()],
                                          broadcast_buffers=False)
    else:
        model = MMDataParallel(model.cuda(cfg.gpu_ids[0]), device_ids=cfg.gpu_ids)
    return model, batch
"""


@pytest.mark.parametrize("line, cann, kunlun", [
    pytest.param(9, Status.REWRITE, Status.SUPPORTED, id="distributed-wrapper"),
    pytest.param(12, Status.REWRITE, Status.SUPPORTED, id="data-parallel-wrapper"),
])
def test_mmcv_1x_wrappers_take_the_targets_own_from_mmcv_and_the_rest_of_mmcv_parallel_is_no_library(
        scan_tree, line, cann, kunlun):
    report = scan_tree({"apis/train.py": MM_TRAIN}, ["cann", "neuware", "kunlun"])
    (wrap,) = [f for f in report.judged if f.span.line == line and f.rule == "cuda-library"]
    assert wrap.verdicts["cann"].status == cann and wrap.verdicts["kunlun"].status == kunlun
    assert "mmcv.device.npu.NPU" in (wrap.verdicts["cann"].suggestion or "")
    assert "mmcv.device.mlu.MLU" in (wrap.verdicts["neuware"].suggestion or "")
    # collate and the configuration are mmcv's plain Python: no library finding
    assert not [f for f in report.judged if f.api in ("mmcv.parallel.collate", "mmcv.utils.ConfigDict")]


@pytest.mark.parametrize("code, api, cann", [
    # mmhuman3d's distributed wrapper: mmcv 1.x's scatter copies to CUDA; mmcv.device's goes where get_device() says
    pytest.param("from mmcv.parallel import scatter_kwargs\n\n\ndef to_kwargs(inputs, kwargs, device_id):\n"
                 "    return scatter_kwargs(inputs, kwargs, [device_id])\n",
                 "mmcv.parallel.scatter_kwargs", Status.REWRITE, id="mmcv-scatter"),
    # mmdet3d's FCAF3D: MinkowskiEngine's sparse tensors run its CUDA kernels
    pytest.param("import MinkowskiEngine as ME\n\n\ndef voxelize(coords, feats):\n"
                 "    return ME.SparseTensor(feats, coordinates=coords)\n",
                 "MinkowskiEngine.SparseTensor", Status.PORT, id="minkowski-engine"),
])
def test_cuda_bound_library_members_a_judge_found_unreported(scan_tree, code, api, cann):
    report = scan_tree({"model.py": code}, ["cann", "kunlun"])
    (found,) = [f for f in report.judged if f.api == api and f.span.line == 5]
    assert found.verdicts["cann"].status == cann and active(found.verdicts["cann"])


@pytest.mark.parametrize("call, found", [
    # facexlib's alignment weights: saved from CUDA, loaded as written
    pytest.param("torch.load(model_path)", True, id="no-map-location"),
    pytest.param("torch.load(model_path, map_location='cpu')", False, id="map-location"),
    pytest.param("torch.load(model_path, 'cpu')", False, id="positional-map-location"),
    pytest.param("torch.load(model_path, **load_kwargs)", False, id="unpacked"),
])
def test_a_checkpoint_loaded_where_it_was_saved_is_a_note_to_validate(scan_tree, call, found):
    code = f"import torch\n\n\ndef restore(model, model_path, load_kwargs):\n    model.load_state_dict({call})\n"
    report = scan_tree({"restore.py": code}, ["cann", "kunlun"])
    loads = [f for f in report.judged if f.rule == "checkpoint-load"]
    assert bool(loads) == found
    if found:
        (load,) = loads
        assert load in report.validate and not active(load.verdicts["cann"])
        assert load.verdicts["kunlun"].status == Status.SUPPORTED
        # the quoted lines are torch's own, in the stored file
        stored = (REPO / "operator_maps" / "upstream" / "pytorch" / "serialization.torch-2.13.0.py").read_text()
        assert all(part in stored for part in load.verdicts["cann"].evidence[0].quote.split(" / "))


@pytest.mark.parametrize("target, status", [
    # mmdet3d's voxel backbones: mmcv's NPU build has no sparse convolution kernel, its MLU build has one
    pytest.param("cann", Status.PORT, id="cann-port"),
    pytest.param("neuware", Status.PARTIAL, id="neuware-rebuild"),
])
def test_mmcv_sparse_convolution_is_a_port_where_the_targets_mmcv_build_lacks_it(scan_tree, target, status):
    code = ("import torch\nfrom mmcv.ops import SparseConvTensor, SubMConv3d\n\n\n"
            "def encode(features, coors, shape, batch):\n"
            "    x = SparseConvTensor(features, coors, shape, batch)\n    return SubMConv3d(4, 16, 3)(x)\n")
    report = scan_tree({"sparse_encoder.py": code}, [target])
    (use,) = [f for f in report.judged if f.api == "mmcv.ops.SparseConvTensor" and f.span.line == 6]
    assert use.verdicts[target].status == status


@pytest.mark.parametrize("rest, work", [
    # mmgen's and mmrazor's get_module_device: the host is the answer off CUDA, where the parameters are the NPU's
    pytest.param("    return torch.device('cpu')\n", True, id="answers-the-host"),
    pytest.param("    else_device = 'cpu'\n    return else_device\n", True, id="binds-the-host"),
    # a portable way off CUDA: the test only picks CUDA's special case
    pytest.param("    return next(module.parameters()).device\n", False, id="answers-the-parameters-device"),
])
def test_a_cuda_test_whose_other_way_answers_the_host_as_the_device_is_work(scan_tree, rest, work):
    code = ("import torch\n\n\ndef get_module_device(module):\n    if next(module.parameters()).is_cuda:\n"
            "        return next(module.parameters()).get_device()\n" + rest)
    report = scan_tree({"common.py": code}, ["cann"])
    (test,) = [f for f in report.judged if f.api == "torch.Tensor.is_cuda"]
    assert active(test.verdicts["cann"]) == work, test.verdicts["cann"].message


@pytest.mark.parametrize("choice, work", [
    # EDM's networks: fp16 only where the tensor is CUDA's, so on the target training silently runs in fp32
    pytest.param("torch.float16 if (self.use_fp16 and x.device.type == 'cuda') else torch.float32", True,
                 id="a-plain-value-for-cuda-only"),
    # CUDA's own API in CUDA's branch: the other branch is the way everywhere else
    pytest.param("torch.cuda.device(x.device) if x.device.type == 'cuda' else contextlib.nullcontext()", False,
                 id="cudas-own-api"),
])
def test_a_device_test_choosing_between_values_is_work_where_cudas_value_is_plain(scan_tree, choice, work):
    code = ("import contextlib\nimport torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
            "        chosen = " + choice + "\n        return x, chosen\n")
    report = scan_tree({"net.py": code}, ["cann"])
    tests = [f for f in report.judged if f.span.line == 7 and f.rule == "device-string"]
    assert any(active(f.verdicts["cann"]) for f in tests) == work, [(f.api, f.verdicts["cann"].message) for f in tests]


@pytest.mark.parametrize("use, work", [
    # lucidrains' Attend: the flag unpacked beside the shape picks CUDA's attention config, the others the CPU's
    pytest.param("config = self.cuda_config if {flag} else self.cpu_config\nreturn config", False,
                 id="picks-cudas-config-beside-the-others"),
    # the same flag deciding alone a move to CUDA
    pytest.param("if {flag}:\n    k = torch.nn.functional.pad(k, (0, 1)).cuda()\nreturn q @ k", True,
                 id="decides-a-move"),
])
def test_a_device_flag_unpacked_from_a_tuple_tests_as_its_value_does(scan_tree, use, work):
    def judged(flag: str, unpack: str) -> bool:
        body = "".join("        " + line + "\n" for line in ([unpack] + use.format(flag=flag).splitlines()))
        code = "import torch\n\n\nclass Attend(torch.nn.Module):\n    def flash_attn(self, q, k):\n" + body
        report = scan_tree({"attend.py": code}, ["cann"])
        (read,) = [f for f in report.judged if f.api == "torch.Tensor.is_cuda"]
        return active(read.verdicts["cann"])

    # unpacked beside the shape, the flag is what it is bound on its own (``is_cuda = q.is_cuda``)
    unpacked = judged("is_cuda", "_, heads, q_len, _, k_len, is_cuda = *q.shape, k.shape[-2], q.is_cuda")
    assert unpacked == judged("is_cuda", "is_cuda = q.is_cuda") == work


@pytest.mark.parametrize("code, api", [
    # mmflow's PWC-Net decoder: mmcv's correlation, no kernel in mmcv's NPU build
    pytest.param("from mmcv.ops import Correlation\n\n\ndef cost_volume(f1, f2):\n"
                 "    return Correlation(max_displacement=4)(f1, f2)\n", "mmcv.ops.Correlation", id="correlation"),
    # mmdet's FPN_CARAFE upsampler
    pytest.param("from mmcv.ops import CARAFEPack\n\n\ndef upsample(x):\n    return CARAFEPack(64, 2)(x)\n",
                 "mmcv.ops.CARAFEPack", id="carafe"),
])
def test_an_mmcv_op_the_npu_build_lacks_is_a_port_on_cann_and_a_rebuild_on_neuware(scan_tree, code, api):
    report = scan_tree({"head.py": code}, ["cann", "neuware"])
    (use,) = [f for f in report.judged if f.api == api and f.span.line == 5]
    assert use.verdicts["cann"].status == Status.PORT and use.verdicts["neuware"].status == Status.PARTIAL


@pytest.mark.parametrize("call, api, shown", [
    # the docs' lone "fp32 only" placeholder on nn.Module.cuda says nothing about this call
    pytest.param("model.cuda()", "torch.nn.Module.cuda", False, id="the-docs-placeholder"),
    # a real note stays: Tensor.npu's memory_format
    pytest.param("x.cuda()", "torch.Tensor.cuda", True, id="a-real-note"),
])
def test_a_rename_quotes_the_vendors_note_but_not_its_placeholder(scan_tree, call, api, shown):
    code = (f"import torch\n\n\ndef place(model: torch.nn.Module, x: torch.Tensor):\n    return {call}\n")
    report = scan_tree({"place.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == api]
    assert found.verdicts["cann"].status == Status.REWRITE
    assert ("vendor notes:" in found.verdicts["cann"].message) == shown, found.verdicts["cann"].message


@pytest.mark.parametrize("cls, own_work", [
    # openpoints' pointops: the op's autograd Function allocates its outputs on CUDA for the kernel it calls
    pytest.param("class KNNQuery(Function):\n    @staticmethod\n    def forward(ctx, nsample, xyz):\n"
                 "        idx = torch.cuda.IntTensor(xyz.shape[0], nsample).zero_()\n"
                 "        _cusolver.knnquery(nsample, xyz, idx)\n        return idx\n", False, id="an-op-wrapper"),
    # an autograd Function that calls no compiled code keeps its device handling as work
    pytest.param("class RevBackProp(Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                 "        idx = torch.cuda.IntTensor(x.shape[0], 4).zero_()\n        return x[idx]\n", True,
                 id="a-plain-function"),
])
def test_an_ops_autograd_wrapper_changes_with_the_ops_port(scan_tree, cls, own_work):
    files = {**_SOLVER_BUILD, "solvers/__init__.py": "",
             "solvers/ops.py": "import torch\nfrom torch.autograd import Function\nfrom solvers import _cusolver\n\n\n"
                               + cls}
    report = scan_tree(files, ["cann"])
    (alloc,) = [f for f in report.judged if f.api == "torch.cuda.IntTensor"]
    assert (alloc.root is None and active(alloc.verdicts["cann"])) == own_work


@pytest.mark.parametrize("branch, dead", [
    # moco-v3's main_moco.py: a single-GPU branch that raises before training
    pytest.param("    elif gpu is not None:\n        torch.cuda.set_device(gpu)\n        model = model.cuda(gpu)\n"
                 "        raise NotImplementedError('Only DistributedDataParallel is supported.')\n", True,
                 id="a-branch-that-ends-in-not-implemented"),
    pytest.param("    elif gpu is not None:\n        torch.cuda.set_device(gpu)\n        model = model.cuda(gpu)\n",
                 False, id="a-branch-that-goes-on"),
    pytest.param("    elif gpu is not None:\n        torch.cuda.set_device(gpu)\n        model = model.cuda(gpu)\n"
                 "        raise RuntimeError('use --distributed')\n", False, id="another-error-is-a-requirement"),
])
def test_a_block_that_ends_in_not_implemented_is_in_no_run(scan_tree, branch, dead):
    code = ("import torch\n\n\ndef build(model, gpu, distributed):\n    if distributed:\n"
            "        model = torch.nn.parallel.DistributedDataParallel(model)\n" + branch + "    return model\n")
    report = scan_tree({"main.py": code}, ["cann"])
    (found,) = [f for f in report.judged if f.api == "torch.cuda.set_device"]
    assert (found.context == Context.TOOLING) == dead, found.context
