"""A guard is one protocol with the branches it decides (issue 43, class 1): ``fix`` flips it only when every
call those branches keep runs on the target; else the guard and its branches stay, with the reason. Each case is
fixed, then run against the fake ``torch_npu`` (``npu_stub``: an NPU, no CUDA) and on a plain CPU."""

import importlib
import runpy
import sys

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree
from .npu_stub import run_on_cpu, run_on_npu, write_stub

torch = pytest.importorskip("torch")


def _fix(root, files, target="cann"):
    """Write ``files`` under ``root`` and a copy under ``root``'s sibling ``original``; fix ``root`` in place."""
    write_tree(root.parent / "original", files)
    write_tree(root, files)
    chosen = resolve_targets([target])
    result = fix_report(root, scan(ScanRequest(root, chosen, jobs=1)), chosen[0])
    for item in result.changed:
        (root / item.path).write_text(item.new, encoding="utf-8")
    return {item.path: item for item in result.files}


# fairseq's trainer and CudaEnvironment, reduced to the guard's protocol: fairseq/trainer.py lines 60-65, 145-167
# and 323 (`if self.cuda and torch.cuda.get_device_capability(0)[0] < 7`), fairseq/utils.py lines 754-761, at
# facebookresearch/fairseq@3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99
FAIRSEQ_UTILS = '''\
import torch


class CudaEnvironment(object):
    def __init__(self):
        cur_device = torch.cuda.current_device()
        prop = torch.cuda.get_device_properties("cuda:{}".format(cur_device))
        self.name = prop.name
        self.major = prop.major
        self.minor = prop.minor
        self.total_memory_in_GB = prop.total_memory / 1024 / 1024 / 1024
'''

FAIRSEQ_TRAINER = '''\
import torch

import utils


class Trainer(object):
    def __init__(self, cfg, model):
        self.cfg = cfg
        self.cuda = torch.cuda.is_available() and not cfg.cpu
        if self.cuda:
            self.device = torch.device("cuda")
        else:
            self.device = torch.device("cpu")
        self._model = model.to(device=self.device)
        if self.cuda and cfg.world_size > 1:
            self._grad_norm_buf = torch.cuda.DoubleTensor(cfg.world_size)
        else:
            self._grad_norm_buf = None
        if self.cuda:
            self.cuda_env = utils.CudaEnvironment()
        else:
            self.cuda_env = None

    def build_optimizer(self):
        if self.cfg.fp16:
            if self.cuda and torch.cuda.get_device_capability(0)[0] < 7:
                print("NOTE: your device does NOT support faster training with --fp16")
        return torch.optim.SGD(self._model.parameters(), lr=0.1)

    def train_step(self, x):
        if self.cuda:
            x = x.cuda()
        loss = self._model(x).sum()
        loss.backward()
        return float(loss)
'''

RUN_TRAINER = '''
    import types, torch, trainer
    cfg = types.SimpleNamespace(cpu=False, world_size=1, fp16=True)
    t = trainer.Trainer(cfg, torch.nn.Linear(2, 1))
    t.build_optimizer()
    t.train_step(torch.ones(3, 2))
    result = [t.device.type, t.cuda_env is None]
'''


def test_a_trainer_guard_whose_branches_reach_cuda_only_calls_stays(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"trainer.py": FAIRSEQ_TRAINER, "utils.py": FAIRSEQ_UTILS})
    on_npu = run_on_npu(write_stub(tmp_path / "stub"), project, RUN_TRAINER)
    assert on_npu.get("result") == ["cpu", True], on_npu  # it ran on the CPU before the fix: it still does
    trainer = fixed["trainer.py"]
    assert trainer.new is None or "self.cuda = torch.cuda.is_available() and not cfg.cpu" in trainer.new
    assert trainer.new is None or 'torch.device("npu")' not in trainer.new  # nor a spelling of what it decides
    held = [s for s in trainer.skipped if "the guard `self.cuda`" in s.reason]
    assert held, trainer.skipped
    why = held[0].reason
    # what would run on the target, named: a kept call in a branch, one in an `and`, one in another file
    assert "torch.cuda.DoubleTensor (line 16" in why and "get_device_capability (line 26" in why
    assert "utils.CudaEnvironment() (line 20: reaches torch.cuda.get_device_properties at utils.py:7)" in why
    assert run_on_cpu(tmp_path / "original", RUN_TRAINER).get("result") == ["cpu", True]


def test_the_same_trainer_flips_once_its_branches_run_on_the_target(tmp_path):
    """The guard is held for what its branches keep, not for being a guard: without them it flips, and the
    trainer places its model and batches on the NPU."""
    project = tmp_path / "project"
    trainer = FAIRSEQ_TRAINER.replace("""        if self.cuda and cfg.world_size > 1:
            self._grad_norm_buf = torch.cuda.DoubleTensor(cfg.world_size)
        else:
            self._grad_norm_buf = None
        if self.cuda:
            self.cuda_env = utils.CudaEnvironment()
        else:
            self.cuda_env = None
""", "        self.cuda_env = None\n").replace("""\
            if self.cuda and torch.cuda.get_device_capability(0)[0] < 7:
                print("NOTE: your device does NOT support faster training with --fp16")
""", "            pass\n")
    fixed = _fix(project, {"trainer.py": trainer, "utils.py": FAIRSEQ_UTILS})["trainer.py"]
    assert "self.cuda = torch_npu.npu.is_available() and not cfg.cpu" in fixed.new
    assert 'torch.device("npu")' in fixed.new and "x = x.npu()" in fixed.new
    run = run_on_npu(write_stub(tmp_path / "stub"), project, RUN_TRAINER)
    assert run.get("result") == ["npu", True], run
    assert ["moved", "Tensor"] in run["events"]


# ------------------------------------------------------------------ guard shapes: held or flipped, then run

EARLY_RETURN = '''\
import torch


def describe(model):
    if not torch.cuda.is_available():
        return "cpu"
    model = model.cuda()
    return torch.cuda.get_device_properties(0).name
'''

FLAG_THROUGH_AND = '''\
import torch


def setup(amp):
    use_cuda = torch.cuda.is_available()
    use_amp = use_cuda and amp
    if use_amp:
        major, _ = torch.cuda.get_device_capability()
        return "bf16" if major >= 8 else "fp16"
    return "fp32"
'''

COUNT_IN_A_COMPREHENSION = '''\
import torch


def device_names():
    n_gpu = torch.cuda.device_count()
    return [torch.cuda.get_device_properties(i).name for i in range(n_gpu)]
'''

COUNT_BUILDS_DEVICES = '''\
import torch


def devices():
    n_gpu = torch.cuda.device_count()
    if n_gpu > 0:
        torch.cuda.set_device(0)
    return [str(torch.device(f"cuda:{i}")) for i in range(n_gpu)]
'''

# detectron2's and timm's module-level probes: the count itself as the test of a conditional expression
COUNT_AS_THE_TEST = '''\
import torch

MAJOR = torch.cuda.get_device_capability()[0] if torch.cuda.device_count() else 0


def use_tf32():
    return MAJOR >= 8
'''

ATTRIBUTE_GUARD_CLEAN = '''\
import torch


class Runner:
    def __init__(self, model):
        self.use_cuda = torch.cuda.is_available()
        self.model = model.cuda() if self.use_cuda else model

    def where(self):
        if self.use_cuda:
            torch.cuda.synchronize()
            return getattr(self.model, "placed_on", "?")
        return "cpu"
'''


@pytest.mark.parametrize("code, call, flips, on_npu", [
    pytest.param(EARLY_RETURN, "describe(torch.nn.Linear(2, 2))", False, "cpu", id="early-return-then-properties"),
    pytest.param(FLAG_THROUGH_AND, "setup(True)", False, "fp32", id="flag-bound-through-an-and"),
    # the names are built once per CUDA device only to read them: the count is no work, nothing to fix
    pytest.param(COUNT_IN_A_COMPREHENSION, "device_names()", None, [], id="count-feeds-a-comprehension"),
    pytest.param(COUNT_BUILDS_DEVICES, "devices()", True, ["npu:0"], id="count-builds-device-strings"),
    # the probe asks an NVIDIA fact: on the target the count's branch is the one a GPU without it takes
    pytest.param(COUNT_AS_THE_TEST, "use_tf32()", None, False, id="bare-count-tests-a-capability-probe"),
    pytest.param(ATTRIBUTE_GUARD_CLEAN, "Runner(torch.nn.Linear(2, 2)).where()", True, "npu",
                 id="attribute-guard-whose-branches-all-change"),
])
def test_a_guard_flips_only_with_every_branch_it_decides(tmp_path, code, call, flips, on_npu):
    project = tmp_path / "project"
    fixed = _fix(project, {"mod.py": code}).get("mod.py")
    run = f"import torch, mod\nresult = mod.{call}"
    on_cpu = run_on_cpu(tmp_path / "original", run)
    assert "error" not in on_cpu, on_cpu  # the original runs on a CPU machine
    result = run_on_npu(write_stub(tmp_path / "stub"), project, run)
    assert result.get("result") == on_npu, result  # flipped with a kept call, it raises here
    if flips is None:
        assert fixed is None
    elif flips:
        assert fixed is not None and fixed.new is not None and "torch.cuda" not in fixed.new
    else:
        assert fixed is not None
        assert fixed.new is None and fixed.skipped
        assert all("the guard" in s.reason and "edit" in s.reason for s in fixed.skipped)


def test_held_guards_are_listed_with_what_would_run(tmp_path):
    fixed = _fix(tmp_path, {"mod.py": FLAG_THROUGH_AND})["mod.py"]
    (reason,) = {s.reason for s in fixed.skipped}
    assert "the guard `use_cuda` (line 5) decides lines 6, 8-9" in reason  # `amp` in `use_cuda and amp` too
    assert "torch.cuda.get_device_capability (line 8" in reason


# ------------------------------------------------------------------ 2. a device protocol is one unit

# timm's benchmark runner, reduced to its device protocol: the default, the timing choice made on it, and the
# synchronising timer (benchmark.py lines 153-156, 207-212, 227, 281-284 at
# huggingface/pytorch-image-models@aa4b5850c1543fa488abf260f18390eda46cf85d)
TIMM_BENCHMARK = '''\
import time
from functools import partial

import torch


def timestamp(sync=False):
    return time.perf_counter()


def cuda_timestamp(sync=False, device=None):
    if sync:
        torch.cuda.synchronize(device=device)
    return time.perf_counter()


class BenchmarkRunner:
    def __init__(self, model, device='cuda', num_bench_iter=50):
        self.device = device
        self.model = model.to(device=self.device)
        self.num_bench_iter = num_bench_iter
        if 'cuda' in self.device:
            self.time_fn = partial(cuda_timestamp, device=self.device)
        else:
            self.time_fn = timestamp
'''

RUN_BENCHMARK = '''
    import torch, benchmark
    runner = benchmark.BenchmarkRunner(torch.nn.Linear(2, 2))
    runner.time_fn(sync=True)
    result = [runner.device, runner.time_fn.func.__name__ if hasattr(runner.time_fn, "func") else "timestamp"]
'''

# the same runner split the way larger benchmarks are: the device chosen in __init__, compared in a method
SPLIT_BENCHMARK = '''\
import torch


class Bench:
    def __init__(self, model, device='cuda', backend='nccl'):
        self.device = device
        self.backend = backend
        self.model = model.to(device)

    def sync(self):
        if 'cuda' in self.device:
            torch.cuda.synchronize()
        return self.device

    def uses_nccl(self):
        return self.backend == 'nccl'
'''

ASSERTED = '''\
import torch


def place(model, device='cuda'):
    assert device in ['cuda', 'mlu'], f"unsupported device {device}"
    return model.to(device)
'''


def test_a_renamed_default_takes_the_timing_test_it_feeds_with_it(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"benchmark.py": TIMM_BENCHMARK})["benchmark.py"].new
    assert "device='npu'" in fixed and "if 'npu' in self.device:" in fixed
    assert "torch_npu.npu.synchronize(device=device)" in fixed
    run = run_on_npu(write_stub(tmp_path / "stub"), project, RUN_BENCHMARK)
    # the runner still times with a device sync (before: the default renamed alone chose the sync-less timer)
    assert run.get("result") == ["npu", "cuda_timestamp"], run
    assert ["synchronize", "npu"] in run["events"]
    assert run_on_cpu(tmp_path / "original", RUN_BENCHMARK.replace("Linear(2, 2))", "Linear(2, 2), 'cpu')")) \
        .get("result") == ["cpu", "timestamp"]


def test_a_device_compared_in_another_method_changes_with_its_default_or_not_at_all(tmp_path):
    """The comparison's branch keeps `torch.cuda.synchronize()` (a measuring branch the scan leaves, so it has
    no rewrite): the default, the comparison and the backend spellings fed the same way all stay."""
    project = tmp_path / "project"
    fixed = _fix(project, {"bench.py": SPLIT_BENCHMARK})["bench.py"]
    assert fixed.new is None  # not the default alone, not the backend's default without its comparison
    reasons = {s.reason for s in fixed.skipped}
    assert len(reasons) == 1 and "torch.cuda.synchronize (line 12: stays as written)" in reasons.pop()
    assert {s.line for s in fixed.skipped} == {5, 16}  # the defaults' line and the backend's comparison


def test_a_device_compared_in_another_method_changes_with_it_when_its_branch_can(tmp_path):
    project = tmp_path / "project"
    code = SPLIT_BENCHMARK.replace("            torch.cuda.synchronize()\n", "            self.synced = True\n")
    fixed = _fix(project, {"bench.py": code})["bench.py"].new
    assert "device='npu', backend='hccl'" in fixed
    assert "if 'npu' in self.device:" in fixed and "self.backend == 'hccl'" in fixed
    run = run_on_npu(write_stub(tmp_path / "stub"), project, '''
        import torch, bench
        b = bench.Bench(torch.nn.Linear(2, 2))
        result = [b.sync(), getattr(b, "synced", False), b.uses_nccl()]
    ''')
    assert run.get("result") == ["npu", True, True], run


@pytest.mark.parametrize("target, changes", [
    pytest.param("cann", True, id="cann-the-list-is-the-device-check"),
    pytest.param("neuware", False, id="neuware-the-list-already-names-mlu"),
])
def test_an_assert_that_lists_devices_changes_with_the_default(tmp_path, target, changes):
    project = tmp_path / "project"
    fixed = _fix(project, {"place.py": ASSERTED}, target)["place.py"]
    if not changes:  # a multi-device helper: left whole for a hand edit
        assert fixed.new is None and all("already spells 'mlu'" in s.reason for s in fixed.skipped)
        return
    assert "def place(model, device='npu'):" in fixed.new and "assert device in ['npu', 'mlu']" in fixed.new
    run = run_on_npu(write_stub(tmp_path / "stub"), project,
                     "import torch, place\nresult = place.place(torch.nn.Linear(2, 2)).placed_on")
    assert run.get("result") == "npu", run  # before: the default renamed alone, the assert fired


# timm/utils/distributed.py lines 111-121 (init_distributed_device) at the same timm commit
TIMM_BACKENDS = '''\
def backend_for(device='cuda', dist_backend=None):
    device_type, *device_idx = device.split(':', maxsplit=1)
    if dist_backend is None:
        dist_backends = {
            "xpu": "ccl",
            "cuda": "nccl",
        }
        dist_backend = dist_backends.get(device_type, 'gloo')
    return device_type, dist_backend
'''


@pytest.mark.parametrize("target, device, backend", [
    pytest.param("neuware", "mlu", "cncl", id="neuware"),
    pytest.param("cann", "npu", "hccl", id="cann"),
])
def test_a_backend_table_keyed_by_device_changes_key_and_backend_together(tmp_path, target, device, backend):
    """Before, the key became the target's device and its backend stayed `nccl`: the MLU asked for NCCL."""
    fixed = _fix(tmp_path / "project", {"dist.py": TIMM_BACKENDS}, target)["dist.py"].new
    assert f'"{device}": "{backend}",' in fixed and f"device='{device}'" in fixed
    namespace: dict = {}
    plain = "\n".join(line for line in fixed.splitlines() if not line.startswith("import torch_"))
    exec(compile(plain, "dist.py", "exec"), namespace)  # plain Python once the plugin import is left out
    assert namespace["backend_for"]() == (device, backend)


@pytest.mark.parametrize("target", ["cann", "neuware"])
def test_the_scans_fixable_findings_are_the_ones_fix_applies(tmp_path, target):
    """One source of truth (issue 43): what a guard or a group holds back is not counted fixable by the scan
    (``fix/settle.py``, as ``scan --exact-fixable`` asks), and ``fix`` still says why it left each one."""
    from migrator.fix.settle import settled

    write_tree(tmp_path, {"trainer.py": FAIRSEQ_TRAINER, "utils.py": FAIRSEQ_UTILS,
                          "sync.py": "import torch\n\n\ndef wait():\n    torch.cuda.synchronize()\n"})
    chosen = resolve_targets([target])
    report = scan(ScanRequest(tmp_path, chosen, jobs=1, settle=settled))
    fixable = {f.id for f in report.judged if f.verdicts[target].fixable}
    held = {f.id: f.verdicts[target].fix.held for f in report.judged
            if getattr(f.verdicts[target].fix, "held", None)}
    result = fix_report(tmp_path, report, chosen[0])
    assert fixable and held  # both kinds are there: some edits apply, the guard's are held
    assert {i for item in result.files for i in item.applied} == fixable
    skipped = {s.finding: s.reason for item in result.files for s in item.skipped}
    assert all(skipped[i] == why for i, why in held.items())
    assert any("the guard `self.cuda`" in why for why in held.values())  # and utils.py's string in a CUDA call


# fairseq/modules/layer_norm.py at 3f6ba43 (the Ascend port deletes the apex branch): the guard picks apex's
# FusedLayerNorm, whose constructor loads apex's CUDA extension
FAIRSEQ_LAYER_NORM = '''\
import torch

try:
    from apex.normalization import FusedLayerNorm as _FusedLayerNorm

    has_fused_layernorm = True

    class FusedLayerNorm(_FusedLayerNorm):
        @torch.jit.unused
        def forward(self, x):
            if not x.is_cuda:
                return super().forward(x)
            else:
                with torch.cuda.device(x.device):
                    return super().forward(x)

except ImportError:
    has_fused_layernorm = False


def LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, export=False):
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        export = True
    if not export and torch.cuda.is_available() and has_fused_layernorm:
        return FusedLayerNorm(normalized_shape, eps, elementwise_affine)
    return torch.nn.LayerNorm(normalized_shape, eps, elementwise_affine)
'''

# NVIDIA apex's python package as an NPU machine has it: it imports, its CUDA extension does not
FAKE_APEX = {"apex/__init__.py": "", "apex/normalization/__init__.py": '''\
import torch


class FusedLayerNorm(torch.nn.Module):
    def __init__(self, *args, **kwargs):
        import fused_layer_norm_cuda  # noqa: F401  (apex loads its extension here)
'''}

# fairseq/models/text_to_speech/vocoder.py lines 222-226 at 3f6ba43, and fairseq/utils.py lines 754-757
VOCODER = '''\
import torch


def load(checkpoint_path):
    if torch.cuda.is_available():
        state_dict = torch.load(checkpoint_path)
        torch.cuda.set_device(0)
    else:
        state_dict = torch.load(checkpoint_path, map_location=torch.device("cpu"))
    return sorted(state_dict)


def describe():
    cur_device = torch.cuda.current_device()
    return torch.cuda.get_device_properties("cuda:{}".format(cur_device)).name
'''


def test_a_guard_that_picks_a_cuda_only_librarys_class_stays(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"layer_norm.py": FAIRSEQ_LAYER_NORM})["layer_norm.py"]
    # the guard stays (and `torch.cuda.device` in the `else` of `not x.is_cuda` is CUDA's branch: no edit left)
    assert fixed.new is None or "torch.cuda.is_available() and has_fused_layernorm" in fixed.new
    why = next(s.reason for s in fixed.skipped if s.line == 24)
    assert "FusedLayerNorm() (line 25: apex.normalization.FusedLayerNorm, of the CUDA-only library apex" in why
    stub = write_tree(write_stub(tmp_path / "stub"), FAKE_APEX)
    run = "import layer_norm\nresult = type(layer_norm.LayerNorm(4)).__module__"
    assert run_on_npu(stub, project, run).get("result") == "torch.nn.modules.normalization"  # before: raised
    original = runpy.run_path(str(tmp_path / "original" / "layer_norm.py"))  # on this CPU, in-process
    assert type(original["LayerNorm"](4)).__module__ == "torch.nn.modules.normalization"


def test_a_load_without_map_location_and_a_string_inside_a_kept_cuda_call_stay(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"vocoder.py": VOCODER})["vocoder.py"]
    reasons = {s.line: s.reason for s in fixed.skipped}
    assert "torch.load() (line 6: restores each tensor to the device it was saved from" in reasons[5]
    # CUDA's own function takes a CUDA device only: the string stays with the call (before: "npu:{}" inside it)
    assert "line 15 spells 'cuda' where it stays: the device string is passed to `torch.cuda.get_device_properties`" \
        in reasons[14]
    assert fixed.new is None or '"cuda:{}"' in fixed.new
    torch.save({"w": torch.ones(1)}, tmp_path / "ckpt.pt")
    run = f"import vocoder\nresult = vocoder.load({str(tmp_path / 'ckpt.pt')!r})"
    assert run_on_npu(write_stub(tmp_path / "stub"), project, run).get("result") == ["w"]
    assert runpy.run_path(str(tmp_path / "original" / "vocoder.py"))["load"](tmp_path / "ckpt.pt") == ["w"]


# ------------------------------------------------------------------ guards an assert, a decorator or a callee carries
# Each module is a reduced copy of the code at the exact vendor bases where the flip was harmful (or, for the
# flipping ones, where it was right): timm/optim/optim_factory.py lines 118-120 and 195 at
# huggingface/pytorch-image-models@878bee1d; detectron2 at facebookresearch/detectron2@be792b95:
# demo/predictor.py lines 31-33 and 165-176, setup.py lines 96-99, tests/structures/test_rotated_boxes.py lines
# 31-36 with detectron2/layers/rotated_boxes.py, detectron2/utils/comm.py lines 94-109, engine/launch.py 68-83.

FUSED_OPTIMIZER = '''\
import torch

try:
    from apex.optimizers import FusedSGD
    has_apex = True
except ImportError:
    has_apex = False


def create_optimizer(params, opt):
    if "fused" in opt:
        assert has_apex and torch.cuda.is_available(), "APEX and CUDA required for fused optimizers"
    if opt == "sgd":
        return torch.optim.SGD(params, lr=0.1)
    return FusedSGD(params, lr=0.1)
'''

FAKE_APEX_OPTIMIZERS = {"apex/optimizers/__init__.py": '''\
class FusedSGD:
    def __init__(self, *args, **kwargs):
        import amp_C  # noqa: F401  (apex loads its CUDA extension here)
'''}

ASSERT_THEN_SET = '''\
import torch


def setup(rank):
    assert torch.cuda.is_available(), "cuda is not available. Please check your installation."
    torch.cuda.set_device(rank)
    return torch.cuda.device_count()
'''

DEMO_PREDICTOR = '''\
import torch


class AsyncPredictor:
    def __init__(self, name, num_gpus=1):
        self.devices = []
        for gpuid in range(max(num_gpus, 1)):
            self.devices.append("cuda:{}".format(gpuid) if num_gpus > 0 else "cpu")


def build(parallel=True):
    if parallel:
        num_gpu = torch.cuda.device_count()
        return AsyncPredictor("demo", num_gpus=num_gpu).devices
    return ["cpu"]
'''

EXTENSION_SETUP = '''\
import torch
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension


def get_extension():
    extension = CppExtension
    if torch.cuda.is_available() and CUDA_HOME is not None:
        extension = CUDAExtension
    return extension.__name__
'''

ROTATED_OPS = '''\
import torch


def pairwise_iou_rotated(boxes1, boxes2):
    major = torch.cuda.get_device_properties(boxes1.device).major
    return torch.zeros(len(boxes1), len(boxes2)) + major


class _RotatedIoU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, boxes1, boxes2):
        return pairwise_iou_rotated(boxes1, boxes2)


rotated_iou = _RotatedIoU.apply


class RotatedIoU(torch.nn.Module):
    def forward(self, boxes1, boxes2):
        return rotated_iou(boxes1, boxes2)
'''

ROTATED_TESTS = '''\
import unittest

import torch

from rotated_ops import RotatedIoU, pairwise_iou_rotated


class TestRotated(unittest.TestCase):
    @unittest.skipIf(not torch.cuda.is_available(), "CUDA not available")
    def test_iou_cuda(self):
        boxes = torch.ones(2, 5)
        self.assertEqual(tuple(pairwise_iou_rotated(boxes.cuda(), boxes.cuda()).shape), (2, 2))

    @unittest.skipIf(not torch.cuda.is_available(), "CUDA not available")
    def test_move_cuda(self):
        boxes = torch.ones(2, 5).cuda()
        self.assertEqual(tuple(boxes.shape), (2, 5))


def compare(boxes):
    op = RotatedIoU()
    if torch.cuda.is_available():
        return tuple(op.forward(boxes.cuda(), boxes.cuda()).shape)
    return None


def outcome():
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(TestRotated).run(result)
    return {"skipped": sorted(t.id().rsplit(".", 1)[1] for t, _ in result.skipped),
            "failed": len(result.errors) + len(result.failures)}
'''

SERIALIZE = '''\
import torch


def serialize(data, backend):
    assert backend in ["gloo", "nccl"]
    device = torch.device("cpu" if backend == "gloo" else "cuda")
    tensor = torch.ByteTensor(list(data)).to(device=device)
    return len(tensor)
'''

CARRIED = {"optimizer.py": FUSED_OPTIMIZER, "launch.py": ASSERT_THEN_SET, "predictor.py": DEMO_PREDICTOR,
           "setup_ext.py": EXTENSION_SETUP, "rotated_ops.py": ROTATED_OPS, "test_rotated.py": ROTATED_TESTS,
           "comm.py": SERIALIZE}


def test_guards_carried_by_an_assert_a_skip_decorator_or_a_callee_flip_only_with_what_they_decide(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {k: v for k, v in CARRIED.items() if k != "optimizer.py"})
    reasons = {(path, s.line): s.reason for path, item in fixed.items() for s in item.skipped}
    # held: the count handed to a class of the file builds "cuda:{}" there; the setup's guard picks nvcc
    assert "the guard `num_gpu` (line 13) decides lines 8, which keep calls" in reasons["predictor.py", 13]
    assert "builds the CUDA sources with nvcc" in reasons["setup_ext.py", 7]
    assert fixed["predictor.py"].new is None and fixed["setup_ext.py"].new is None
    # a skip decorator decides the test it decorates: held where it reaches a kept call, flipped where it does not
    assert "pairwise_iou_rotated() (line 12: reaches torch.cuda.get_device_properties" in reasons["test_rotated.py", 9]
    assert fixed["test_rotated.py"].new.count("torch.cuda.is_available()") == 2
    # an object of a repository class whose method reaches a kept call: `op = RotatedIoU()`, `op.forward(...)`,
    # through `rotated_iou = _RotatedIoU.apply`
    assert "op.forward() (line 23: reaches torch.cuda.get_device_properties" in reasons["test_rotated.py", 22]
    # flipped: the assert and what follows it, the backend list and the device a later line reads through a name
    assert "torch.cuda" not in fixed["launch.py"].new
    assert '["gloo", "hccl"]' in fixed["comm.py"].new and '"npu")' in fixed["comm.py"].new
    run = '''
        import torch, predictor, setup_ext, test_rotated, launch, comm
        result = [predictor.build(), setup_ext.get_extension(), test_rotated.outcome(), launch.setup(0),
                  comm.serialize(b"ab", "hccl"), test_rotated.compare(torch.ones(2, 5))]
    '''
    on_npu = run_on_npu(write_stub(tmp_path / "stub"), project, run)
    assert on_npu.get("result") == [["cpu"], "CppExtension", {"skipped": ["test_iou_cuda"], "failed": 0}, 1, 2,
                                    None], on_npu
    original = {name: runpy.run_path(str(tmp_path / "original" / name)) for name in ("predictor.py", "setup_ext.py")}
    assert original["predictor.py"]["build"]() == ["cpu"]  # on this CPU, as on the NPU after the fix
    assert original["setup_ext.py"]["get_extension"]() == "CppExtension"
    assert runpy.run_path(str(tmp_path / "original" / "comm.py"))["serialize"](b"ab", "gloo") == 2
    assert runpy.run_path(str(project / "launch.py"))["setup"].__name__ == "setup"  # the portable file loads here


def test_an_assert_before_a_cuda_only_librarys_class_keeps_its_question(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"optimizer.py": FUSED_OPTIMIZER}, target="neuware")["optimizer.py"]
    assert fixed.new is None
    assert "FusedSGD() (line 15: apex.optimizers.FusedSGD, of the CUDA-only library apex" in fixed.skipped[0].reason
    stub = write_tree(write_stub(tmp_path / "stub", device="mlu"), FAKE_APEX_OPTIMIZERS)
    run = "import optimizer\nresult = optimizer.has_apex\noptimizer.create_optimizer([], 'fusedsgd')"
    on_mlu = run_on_npu(stub, project, run, device="mlu")
    assert on_mlu["error"] == "AssertionError: APEX and CUDA required for fused optimizers", on_mlu  # flipped: amp_C
    with pytest.raises(AssertionError, match="APEX and CUDA required"):  # the original, on this CPU
        runpy.run_path(str(tmp_path / "original" / "optimizer.py"))["create_optimizer"]([], "fusedsgd")


# detectron2's ROIPooler tests and its Caffe2 export test, reduced (tests/modeling/test_roi_pooler.py lines 80-82,
# tests/test_export_caffe2.py lines 62-64, modeling/poolers.py line 150, modeling/meta_arch/build.py line 21, at
# facebookresearch/detectron2@be792b959bca9af0aacfa04799537856c7a92802): the kernel library has CPU and CUDA
# builds only, as torchvision's ops do, and no finding of the test file names it
KERNELS = '''\
import torch


def _align_cpu(x):
    return x * 2


BUILDS = {"cpu": _align_cpu, "cuda": _align_cpu}  # the library's compiled kernels


def align(x, device):
    kernel = BUILDS.get(torch.device(device).type)
    if kernel is None:
        raise NotImplementedError(f"no kernel of align for {device}")
    return kernel(x)


class Align(torch.nn.Module):
    def forward(self, x, device):
        return align(x, device)
'''

POOLERS = '''\
import torch

from kernels import Align


class Pooler(torch.nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device
        self.align = Align()

    def forward(self, x):
        return self.align(x, self.device)


MODELS = {"pooler": Pooler}


def build_model(name, device):
    return MODELS[name](device)
'''

POOLER_TESTS = '''\
import unittest

import torch

from poolers import Pooler, build_model


class TestPooler(unittest.TestCase):
    def _check(self, device):
        self.assertEqual(Pooler(device)(torch.ones(2)).tolist(), [2.0, 2.0])

    def test_pool_cpu(self):
        self._check("cpu")

    @unittest.skipIf(not torch.cuda.is_available(), "CUDA not available")
    def test_pool_cuda(self):
        self._check(device="cuda")

    @unittest.skipIf(not torch.cuda.is_available(), "CUDA not available")
    def test_built_cuda(self):
        self.assertEqual(build_model("pooler", "cuda")(torch.ones(2)).tolist(), [2.0, 2.0])

    @unittest.skipIf(not torch.cuda.is_available(), "CUDA not available")
    def test_move_cuda(self):
        self.assertEqual(torch.ones(2).cuda().tolist(), [1.0, 1.0])


def outcome():
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(TestPooler).run(result)
    return {"skipped": sorted(t.id().rsplit(".", 1)[1] for t, _ in result.skipped),
            "failed": sorted(t.id().rsplit(".", 1)[1] for t, _ in result.errors + result.failures)}
'''


def test_a_guard_whose_branch_reaches_code_it_cannot_follow_stays(tmp_path, monkeypatch):
    project = tmp_path / "project"
    fixed = _fix(project, {"kernels.py": KERNELS, "poolers.py": POOLERS, "test_pooler.py": POOLER_TESTS})
    reasons = {s.line: s.reason for s in fixed["test_pooler.py"].skipped}
    # held: a helper of the test's class builds a module whose constructor makes a submodule of another file;
    # a model taken from a table; flipped: a plain torch move
    assert "`Pooler` builds `Align` (kernels.py), a module of another file, in its constructor" in reasons[15]
    assert "`MODELS[name](...)` (poolers.py:20) calls what is chosen at run time" in reasons[19]
    assert fixed["test_pooler.py"].new.count("torch.cuda.is_available()") == 2
    run = "import test_pooler\nresult = test_pooler.outcome()"
    on_npu = run_on_npu(write_stub(tmp_path / "stub"), project, run)
    assert on_npu.get("result") == {"skipped": ["test_built_cuda", "test_pool_cuda"], "failed": []}, on_npu
    monkeypatch.syspath_prepend(str(tmp_path / "original"))  # the original, on this CPU
    try:
        original = importlib.import_module("test_pooler").outcome()
    finally:
        for name in ("kernels", "poolers", "test_pooler"):
            sys.modules.pop(name, None)
    assert original == {"skipped": ["test_built_cuda", "test_move_cuda", "test_pool_cuda"], "failed": []}


def test_reach_through_a_long_chain_or_a_symlink_loop_is_unknown_not_a_crash(tmp_path):
    from migrator.fix.unknown_reach import CHAIN, Repository

    chain = "".join(f"def f{i}():\n    return f{i + 1}()\n\n\n" for i in range(400)) + "def f400():\n    return 1\n"
    write_tree(tmp_path, {"chain.py": chain, "short.py": "from chain import f395\n\n\ndef g():\n    return f395()\n"})
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    repository = Repository(tmp_path)
    assert f"more than {CHAIN} calls deep" in repository.call_in("chain.py", ("f0",), None)
    assert repository.call_in("short.py", ("g",), None) is None  # six calls, followed to the end
    assert repository.module("loop.py") is None


def test_an_answer_cut_at_a_depth_is_not_the_answer_from_a_shallower_caller(tmp_path):
    from migrator.fix.unknown_reach import Repository

    files = {f"m{i}.py": f"from m{i + 1} import f{i + 1}\n\n\ndef f{i}():\n    return f{i + 1}()\n" for i in range(5)}
    files["m5.py"] = "def f5():\n    return 1\n"
    files["top.py"] = "from m4 import f4\n\n\ndef g():\n    return f4()\n"
    write_tree(tmp_path, files)
    alone = Repository(tmp_path).call_in("top.py", ("g",), None)
    repository = Repository(tmp_path)
    assert "repository calls deep" in repository.call_in("m0.py", ("f0",), None)
    assert alone is None and repository.call_in("top.py", ("g",), None) is None  # two calls: followed


def test_a_module_written_with_a_byte_order_mark_is_read_as_python_reads_it(tmp_path):
    from migrator.fix.unknown_reach import Repository

    (tmp_path / "lib.py").write_bytes("\ufeffREG = {}\n\n\ndef P():\n    return REG['x']()\n".encode("utf-8"))
    write_tree(tmp_path, {"use.py": "from lib import P\n\n\ndef g():\n    return P()\n"})
    why = Repository(tmp_path).call_in("use.py", ("g",), None)
    assert why is not None and "chosen at run time" in why


# detectron2's engine/launch.py `_distributed_worker`, reduced (lines 68-83 at detectron2@be792b95):
# the backend literal on the second line of the call the assert decides
WORKER = '''\
import torch
import torch.distributed as dist


def worker(rank, world_size, store):
    assert torch.cuda.is_available(), "cuda is not available. Please check your installation."
    dist.init_process_group(
        backend="NCCL", store=store, world_size=world_size, rank=rank
    )
    assert world_size <= torch.cuda.device_count()
    torch.cuda.set_device(rank)
    return dist.get_backend()
'''


def test_a_backend_on_the_calls_second_line_flips_with_the_assert_that_decides_it(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"launch.py": WORKER})["launch.py"]
    assert not fixed.skipped and 'backend="HCCL"' in fixed.new and "torch.cuda" not in fixed.new
    run = ("import torch, launch\ntry:\n    result = launch.worker(0, 1, torch.distributed.HashStore())\n"
           "finally:\n    torch.distributed.destroy_process_group()")
    on_npu = run_on_npu(write_stub(tmp_path / "stub"), project, run)
    assert on_npu.get("result") == "hccl" and ["process_group", "hccl"] in on_npu["events"], on_npu
    with pytest.raises(AssertionError, match="cuda is not available"):  # the original, on this CPU
        runpy.run_path(str(tmp_path / "original" / "launch.py"))["worker"](0, 1, None)


@pytest.mark.parametrize("body, unknown", [
    pytest.param("return type(data)(x for x in data)", False, id="a-container-rebuilt-as-its-own-type"),
    pytest.param("return data.__class__(x for x in data)", False, id="the-same-through-__class__"),
    pytest.param("return TABLE[data]()", True, id="a-callee-from-a-table"),
    pytest.param("return getattr(data, 'build')()", True, id="a-callee-looked-up-by-name"),
    pytest.param("return torch.nn.Linear(2, 2)(data)", False, id="a-library-class-built-and-called"),
])
def test_what_a_callee_chosen_at_run_time_is(tmp_path, body, unknown):
    from migrator.fix.unknown_reach import Repository

    write_tree(tmp_path, {"ops.py": f"import torch\n\nTABLE = {{}}\n\n\ndef convert(data):\n    {body}\n"})
    why = Repository(tmp_path).call_in("ops.py", ("convert",), None)
    assert (why is not None and "chosen at run time" in why) == unknown, why
