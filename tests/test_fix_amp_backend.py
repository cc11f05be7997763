"""``fix``'s portable style for the calls that name the device themselves (issue 43): CUDA's autocast becomes
``torch.autocast(<the accelerator's type>, ...)`` and the ``'nccl'`` given to ``init_process_group`` torch's
default backend for the accelerator, where the target's torch line has the form and the vendor's list documents
what it runs; the fixed code run on the CPU (in-process) and under the fake runtime (``npu_stub``: registered
through PrivateUse1, its ``hccl`` registered into torch's default backend map, loaded by torch's autoload)."""

import warnings

import pytest

from migrator.fix import fix_report
from migrator.maps.accelerator import device_form_gap, device_forms
from migrator.maps.load import load_json, resolve_targets
from migrator.pipeline import ScanRequest, scan

from .conftest import load_module as _load, write_tree
from .npu_stub import run_on_npu, write_stub

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

FILES = {
    # open_clip's / Stable Diffusion's pattern: the block under autocast, one projection kept in fp32
    "model.py": '''\
import torch
from torch.cuda.amp import autocast


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(4, 12)
        self.proj = torch.nn.Linear(12, 4)

    @torch.cuda.amp.autocast()
    def forward(self, x):
        h = self.qkv(x)
        with autocast(False):
            return self.proj(h.float())
''',
    # pytorch/examples' imagenet: one process per device on NCCL's backend
    "launch.py": '''\
import torch
import torch.distributed as dist


def init_distributed(rank, world_size, store=None):
    dist.init_process_group(backend="nccl", store=store, rank=rank, world_size=world_size)
    return dist.get_backend(), torch.cuda.device_count()
''',
    # a backend value that meets a comparison: the protocol cannot be written half portable
    "setup.py": '''\
import torch
import torch.distributed as dist


def setup(rank, backend="nccl"):
    dist.init_process_group(backend, rank=rank, world_size=1)
    if backend == "nccl":
        torch.cuda.set_device(rank)
''',
    # timm's train.py: the autocast class chosen by a flag and called later: no call to write the form into
    "choose.py": '''\
import torch
from contextlib import suppress


def pick(use_amp):
    return torch.cuda.amp.autocast if use_amp else suppress
''',
    # the scaler's portable form is in no vendor list: the file keeps the vendor's names whole
    "train.py": '''\
import torch


def step(model, optimizer, x):
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast():
        loss = model(x).sum()
    scaler.scale(loss).backward()
''',
}

# what the code did: per Linear of the block, which devices' autocast was on when it ran; the process group
PROBE = '''
import torch
import launch, model
seen = []


class Probe(torch.nn.Linear):
    def forward(self, x):
        seen.append([torch.is_autocast_enabled(d) for d in ("npu", "cuda", "cpu")])
        return super().forward(x)


block = model.Block()
block.qkv, block.proj = Probe(4, 12), Probe(12, 4)
out = block(torch.ones(2, 4))
try:
    group = list(launch.init_distributed(0, 1, torch.distributed.HashStore()))
except Exception as exc:
    group = type(exc).__name__
result = [seen, str(out.dtype), group]
'''


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("project"), FILES)
    chosen = resolve_targets(["cann"])
    report = scan(ScanRequest(root, chosen, jobs=1))
    return root, {f.path: f for f in fix_report(root, report, chosen[0]).changed}


def test_autocast_and_the_backend_take_the_accelerators_form_and_a_protocol_stays_whole(fixed):
    _, out = fixed
    model, launch, setup, train = (out[name] for name in ("model.py", "launch.py", "setup.py", "train.py"))
    accelerator = '(torch.accelerator.current_accelerator() or torch.device("cuda")).type'
    assert model.style == "portable" and "torch_npu" not in model.new and "from torch.cuda.amp" not in model.new
    assert f"@torch.autocast({accelerator})" in model.new
    assert f"with torch.autocast({accelerator}, enabled=False):" in model.new  # CUDA's positional by name
    assert launch.style == "portable" and "torch.accelerator.device_count()" in launch.new
    assert ('backend=torch.distributed.get_default_backend_for_device(torch.accelerator.current_accelerator() or '
            '"cpu")') in launch.new
    # the default, the call and the comparison carry one value: all three keep the vendor's names
    assert setup.style == "vendor" and 'backend="hccl"' in setup.new and 'backend == "hccl"' in setup.new
    assert "`nccl` rewritten" in setup.style_note
    assert train.style == "vendor" and "torch_npu.npu.amp.GradScaler()" in train.new
    choose = out["choose.py"]
    assert choose.style == "vendor" and "torch_npu.npu.amp.autocast if use_amp" in choose.new
    assert "not called where it is named" in choose.style_note and "__migrator" not in choose.new
    assert "torch.amp.GradScaler" in train.style_note and "does not document" in train.style_note


def _probe_in_process(folder, tag):
    """``PROBE`` on this CPU machine, in this process (the process group destroyed after)."""
    launch, model = _load(folder / "launch.py", f"launch_{tag}"), _load(folder / "model.py", f"model_{tag}")
    seen = []

    class Probe(torch.nn.Linear):
        def forward(self, x):
            seen.append([torch.is_autocast_enabled(d) for d in ("cuda", "cpu")])  # no "npu" device type here
            return super().forward(x)

    block = model.Block()
    block.qkv, block.proj = Probe(4, 12), Probe(12, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CUDA's autocast on a CPU build: "Disabling autocast"
        out = block(torch.ones(2, 4))
    try:
        group = list(launch.init_distributed(0, 1, dist.HashStore()))
    except Exception as exc:  # NCCL is not built into a CPU torch
        group = type(exc).__name__
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    return [[[False] * 2] * 2 == seen, str(out.dtype), group]


def test_on_the_cpu_autocast_stays_off_and_the_backend_is_gloo_where_nccl_raised(fixed, tmp_path):
    root, out = fixed
    write_tree(tmp_path, {name: out[name].new for name in ("launch.py", "model.py")})
    assert _probe_in_process(root, "original") == [True, "torch.float32", "RuntimeError"]
    assert _probe_in_process(tmp_path, "portable") == [True, "torch.float32", ["gloo", 0]]


def test_on_the_fake_npu_the_portable_file_autocasts_the_npu_and_builds_hccls_group(fixed, tmp_path):
    _, out = fixed
    project = write_tree(tmp_path / "project", {name: out[name].new for name in ("launch.py", "model.py")})
    run = run_on_npu(write_stub(tmp_path / "stub"), project, PROBE, plugin_import=False)  # torch's autoload alone
    # the block under the NPU's autocast, the projection out of it, as CUDA's ran on CUDA
    assert run.get("result") == [[[True, False, False], [False, False, False]], "torch.float32", ["hccl", 1]], run
    assert ["process_group", "hccl"] in run["events"]


FORMS = [(api, row) for api, row in load_json("accelerator.json")["device_forms"].items()
         if api in ("torch.cuda.amp.autocast", "torch.autocast", "torch.cuda.amp.GradScaler",
                    "torch.distributed.init_process_group")]


def _cpu_run(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("returns", call())
        except Exception:
            return ("raises", None)
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()


@pytest.mark.parametrize("api, row", FORMS, ids=[api for api, _ in FORMS])
def test_the_device_forms_cpu_column_is_what_the_installed_torch_does(api, row):
    value = eval(load_json("accelerator.json")["values"][row["value"]], {"torch": torch})  # noqa: S307 (our table)
    linear = torch.nn.Linear(2, 2)

    def under(context):
        with context:
            return str(linear(torch.ones(1, 2)).dtype)

    cuda, portable = {
        "torch.cuda.amp.autocast": (lambda: under(torch.cuda.amp.autocast()), lambda: under(torch.autocast(value))),
        "torch.autocast": (lambda: under(torch.autocast("cuda")), lambda: under(torch.autocast(value))),
        "torch.cuda.amp.GradScaler": (lambda: torch.cuda.amp.GradScaler().is_enabled(),
                                      lambda: torch.amp.GradScaler(value).is_enabled()),
        "torch.distributed.init_process_group": (
            lambda: dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1),
            lambda: (dist.init_process_group(value, store=dist.HashStore(), rank=0, world_size=1),
                     dist.get_backend())[1]),
    }[api]
    before, after = _cpu_run(cuda), _cpu_run(portable)
    if row["cpu"] == "same":
        assert before == after
    else:  # "runs": CUDA's raises on a CPU build, the portable one runs on gloo
        assert before[0] == "raises" and after == ("returns", "gloo")


@pytest.mark.parametrize("target, forms, gap", [
    pytest.param("cann", {"torch.cuda.amp.autocast", "torch.autocast", "torch.distributed.init_process_group"},
                 "does not document", id="cann-2.12-has-autocast-and-the-backend-not-the-scaler"),
    pytest.param("cann@2.7-9.1", {"torch.cuda.amp.autocast", "torch.autocast", "torch.distributed.init_process_group"},
                 "does not document", id="cann-2.7"),
    pytest.param("cann@2.1-8.0", set(), "needs torch 2.6", id="cann-torch-2.1-predates-them"),
    pytest.param("neuware", set(), "needs torch 2.6", id="neuware-torch-2.4-predates-them"),
])
def test_the_device_forms_are_gated_by_the_torch_line_and_the_vendors_list(target, forms, gap):
    chosen = resolve_targets([target])[0]
    assert forms <= set(device_forms(chosen)) and "torch.cuda.amp.GradScaler" not in device_forms(chosen)
    assert not forms ^ {api for api in device_forms(chosen) if api in {api for api, _ in FORMS}}
    assert gap in device_form_gap(chosen, "torch.cuda.amp.GradScaler")


# mamba's fused functions: CUDA's autocast state asked with no device, the weight cast to its dtype
CAST = '''\
import torch


def cast(w):
    if torch.is_autocast_enabled():
        return w.to(torch.get_autocast_gpu_dtype())
    return w
'''

CAST_PROBE = '''
import torch
import cast
with torch.autocast("npu", dtype=torch.bfloat16):
    result = str(cast.cast(torch.ones(2)).dtype)
'''


@pytest.mark.parametrize("target, dtype", [("cann@2.13", "torch.bfloat16"), ("cann@2.12-9.1", "torch.float32")],
                         ids=["the-vendors-dtype-function-the-protocol-whole", "no-dtype-function-nothing-safe"])
def test_cudas_autocast_state_is_rewritten_whole_or_not_at_all_and_runs_on_the_fake_npu(tmp_path, target, dtype):
    root = write_tree(tmp_path / "project", {"cast.py": CAST})
    chosen = resolve_targets([target])  # torch_npu 2.13's patcher swaps torch.get_autocast_gpu_dtype; 2.12's does not
    changed = fix_report(root, scan(ScanRequest(root, chosen, jobs=1)), chosen[0]).changed
    new = changed[0].new if changed else CAST
    whole = "torch_npu.npu.get_autocast_dtype()" in new and "torch.is_autocast_enabled('npu')" in new
    assert whole is (target == "cann@2.13") and (whole or new == CAST)  # never the question without its dtype
    as_written = CAST.replace("import torch\n", "import torch\nimport torch_npu\n")
    project = write_tree(tmp_path / "fixed", {"cast.py": new if whole else as_written})
    run = run_on_npu(write_stub(tmp_path / "stub"), project, CAST_PROBE)
    # rewritten: the weight is cast to the NPU's autocast dtype; as written, CUDA's autocast is off on the NPU
    assert run.get("result") == dtype, run
