"""Safe fixes preserve behaviour on the target (issue 25): the four ways a "safe" edit broke training on the
vendors' own ports, each as realistic code, fixed, then run against a fake ``torch_npu`` that reports an NPU
and no CUDA (``npu_stub``)."""

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree
from .npu_stub import run_on_npu, write_stub

torch = pytest.importorskip("torch")


def _fix(root, files, target="cann", unsafe=False):
    """Write ``files`` under ``root``, fix them in place; the fix result, per path."""
    write_tree(root, files)
    chosen = resolve_targets([target])
    result = fix_report(root, scan(ScanRequest(root, chosen, jobs=1)), chosen[0], unsafe=unsafe)
    for item in result.changed:
        (root / item.path).write_text(item.new, encoding="utf-8")
    return {item.path: item for item in result.files}


# ------------------------------------------------------------------ 1. a variable's value inlined at its uses

TIMM_STYLE_TRAIN = '''\
from contextlib import suppress

import torch


def train_one_epoch(model, batches, use_amp):
    amp_autocast = suppress  # do nothing
    if use_amp:
        amp_autocast = torch.cuda.amp.autocast
    losses = []
    for x in batches:
        with amp_autocast():
            losses.append(float(model(x).sum()))
    return losses


def evaluate(model, batches, use_amp):
    autocast = torch.cuda.amp.autocast if use_amp else suppress
    with autocast():
        return [float(model(x).sum()) for x in batches]
'''


def test_an_autocast_chosen_by_a_flag_is_rewritten_where_it_is_bound(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"train.py": TIMM_STYLE_TRAIN})["train.py"]
    assert "amp_autocast = torch_npu.npu.amp.autocast" in fixed.new
    assert "autocast = torch_npu.npu.amp.autocast if use_amp else suppress" in fixed.new
    assert "with amp_autocast():" in fixed.new and "with autocast():" in fixed.new  # the uses keep the name
    assert any("an assignment binds" in s.reason for s in fixed.skipped)
    stub = write_stub(tmp_path / "stub")
    run = "import torch, train\nm = torch.nn.Linear(2, 2)\nb = [torch.ones(1, 2)]\n"
    off = run_on_npu(stub, project, run + "result = [train.train_one_epoch(m, b, False), train.evaluate(m, b, False)]")
    on = run_on_npu(stub, project, run + "result = [train.train_one_epoch(m, b, True), train.evaluate(m, b, True)]")
    assert "error" not in off and "error" not in on
    assert off["events"] == []  # AMP off stays off: no autocast without a loss scaler
    assert on["events"] == [["autocast", True], ["autocast", True]]


# ------------------------------------------------------------------ 2. half-applied device logic

MMDET_STYLE_HELPER = '''\
import torch


class DataParallel(torch.nn.Module):  # mmcv's MMDataParallel, reduced to what the helper touches
    def __init__(self, module, dim=0, **kwargs):
        super().__init__()
        self.module = module


class DistributedDataParallel(DataParallel):
    pass


dp_factory = {'cuda': DataParallel, 'cpu': DataParallel}
ddp_factory = {'cuda': DistributedDataParallel}


def build_dp(model, device='cuda', dim=0, *args, **kwargs):
    if device == 'cuda':
        model = model.cuda()
    return dp_factory[device](model, dim=dim, *args, **kwargs)


def get_device():
    is_device_available = {
        'cuda': torch.cuda.is_available(),
    }
    device_list = [k for k, v in is_device_available.items() if v]
    return device_list[0] if len(device_list) == 1 else 'cpu'
'''


def test_a_device_helper_changes_its_keys_comparisons_and_defaults_together(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"dist_utils.py": MMDET_STYLE_HELPER})["dist_utils.py"].new
    assert "dp_factory = {'npu': DataParallel, 'cpu': DataParallel}" in fixed
    assert "'npu': torch_npu.npu.is_available()" in fixed and "if device == 'npu':" in fixed
    assert "ddp_factory = {'cuda': DistributedDataParallel}" in fixed  # nothing reads it: a label, left alone
    result = run_on_npu(write_stub(tmp_path / "stub"), project, '''
        import torch, dist_utils
        device = dist_utils.get_device()
        wrapped = dist_utils.build_dp(torch.nn.Linear(2, 2), device)
        result = [device, type(wrapped).__name__, getattr(wrapped.module, "placed_on", "host")]
    ''')
    assert result.get("result") == ["npu", "DataParallel", "npu"], result


# rl-games' multi-GPU agent: the device joined from a word and the process's rank, beside a kernel's name that
# starts with the same word
RL_GAMES_AGENT = '''\
import torch


class Agent:
    def __init__(self, local_rank, variant):
        self.device_name = "cuda:" + str(local_rank)
        self.kernel = "cuda" + variant

    def place(self, model):
        return model.to(self.device_name)
'''


def test_a_device_joined_from_a_word_and_a_rank_is_rewritten_and_a_name_beside_it_is_not(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"agent.py": RL_GAMES_AGENT})["agent.py"].new
    assert 'self.device_name = "npu:" + str(local_rank)' in fixed
    assert 'self.kernel = "cuda" + variant' in fixed  # the start of a name, no device
    result = run_on_npu(write_stub(tmp_path / "stub"), project, '''
        import torch, agent
        placed = agent.Agent(0, "_fused").place(torch.nn.Linear(2, 2))
        result = [str(getattr(placed, "placed_on", "host")), agent.Agent(0, "_fused").kernel]
    ''')
    assert result.get("result") == ["npu:0", "cuda_fused"], result


PORTED_BY_HAND = '''\
import torch

dp_factory = {'cuda': torch.nn.DataParallel, 'npu': torch.nn.DataParallel}


def build_dp(model, device='cuda'):
    if device == 'npu':
        model = model.npu()
    elif device == 'cuda':
        model = model.cuda()
    return dp_factory[device](model)
'''

UNKNOWN_COMPARISON = '''\
import torch


def build_extension(kind, x):
    x = x.cuda()
    if kind in ('cuda', 'rocm'):  # an extension flavour, or a device?
        return x, 'CUDAExtension'
    return x, 'CppExtension'
'''


@pytest.mark.parametrize("code, why", [
    pytest.param(PORTED_BY_HAND, "already spells 'npu'", id="multi-device-helper-ported-by-hand"),
    pytest.param(UNKNOWN_COMPARISON, "compares with 'cuda'", id="comparison-of-unknown-role"),
])
def test_a_unit_whose_spellings_cannot_all_change_is_left_whole(tmp_path, code, why):
    fixed = _fix(tmp_path, {"helper.py": code})["helper.py"]
    assert fixed.new is None  # not half: nothing
    assert fixed.skipped and all(why in s.reason and "edit it by hand" in s.reason for s in fixed.skipped)


# ------------------------------------------------------------------ 3. renames the vendor says behave differently

CAPABILITY = '''\
import torch


def use_tf32():
    return torch.cuda.get_device_capability(0)[0] >= 8


def describe(i):
    props = torch.cuda.get_device_properties(i)
    return props.name
'''


def test_a_rename_the_vendor_notes_behaves_differently_waits_for_unsafe(tmp_path):
    project = tmp_path / "project"
    assert "caps.py" not in _fix(project, {"caps.py": CAPABILITY})  # nothing to do in safe mode
    findings = scan(ScanRequest(project, resolve_targets(["cann"]), jobs=1)).findings
    capability = next(f for f in findings if f.api == "torch.cuda.get_device_capability").verdicts["cann"]
    assert not capability.fixable and "TORCH_NPU_DEVICE_CAPABILITY" in capability.message
    assert "--unsafe" in capability.message
    # why: renamed as it is, every run raises on the NPU
    _fix(project, {"caps.py": CAPABILITY}, unsafe=True)
    run = run_on_npu(write_stub(tmp_path / "stub"), project, "import caps\nresult = caps.use_tf32()")
    assert run.get("error", "").startswith("TypeError"), run


def test_an_argument_note_on_an_argument_left_at_its_default_keeps_the_rename_safe(tmp_path):
    # Tensor.npu's note is on memory_format alone: x.cuda() passes none, x.cuda(memory_format=...) does
    code = ("import torch\n\n\ndef place(x, y):\n    return x.cuda(non_blocking=True), "
            "y.cuda(memory_format=torch.channels_last)\n")
    fixed = _fix(tmp_path, {"place.py": code})["place.py"].new
    assert "x.npu(non_blocking=True)" in fixed and "y.cuda(memory_format=torch.channels_last)" in fixed


# ------------------------------------------------------------------ 4. a moved call whose arguments still say cuda

DEVICE_ARGUMENTS = '''\
import torch


def setup(rank):
    torch.cuda.set_device("cuda:{}".format(rank))
    torch.cuda.synchronize(f"cuda:{rank}")
    return torch.cuda.memory_allocated('cuda:%d' % rank)
'''


def test_device_strings_inside_a_renamed_call_are_rewritten_with_it(tmp_path):
    project = tmp_path / "project"
    fixed = _fix(project, {"setup.py": DEVICE_ARGUMENTS})["setup.py"].new
    assert 'torch_npu.npu.set_device("npu:{}".format(rank))' in fixed
    assert 'torch_npu.npu.synchronize(f"npu:{rank}")' in fixed
    assert "torch_npu.npu.memory_allocated('npu:%d' % rank)" in fixed
    run = run_on_npu(write_stub(tmp_path / "stub"), project, "import setup\nresult = setup.setup(0)")
    assert run.get("result") == 0, run


@pytest.mark.parametrize("call, target, safe", [
    pytest.param("torch.cuda.current_stream()", "cann", True, id="note-judged-to-describe-cuda"),
    pytest.param("torch.cuda.synchronize()", "cann", True, id="no-note"),
    pytest.param("torch.cuda.get_device_capability(0)", "cann", False, id="returns-none-unless-env-set"),
    pytest.param("torch.cuda.CUDAGraph()", "cann", False, id="inference-only"),
    pytest.param("torch.ones(2).cuda(memory_format=torch.contiguous_format)", "cann", False,
                 id="argument-note-on-passed-argument"),
    pytest.param("torch.ones(2).cuda()", "neuware", True, id="note-describes-the-rename"),
    pytest.param("torch.cuda.Event(blocking=True)", "neuware", False, id="unjudged-note"),
    pytest.param("torch.cuda.DoubleTensor(4)", "cann", False, id="another-api-not-the-device-twin"),
])
def test_a_rename_is_safe_only_when_it_is_the_device_twin_and_its_note_cannot_bite(tmp_path, call, target, safe):
    write_tree(tmp_path, {"t.py": f"import torch\nx = {call}\n"})
    findings = scan(ScanRequest(tmp_path, resolve_targets([target]), jobs=1)).findings
    verdict = next(f.verdicts[target] for f in findings if f.rule in ("device-call", "device-move"))
    assert verdict.edit is not None and verdict.fixable is safe, verdict.message
    assert ("--unsafe" in verdict.message) is not safe


def test_the_plans_automatic_rewrites_are_what_fix_applies(tmp_path):
    """Phase 1 of the plan counts the findings `fix` applies: a verdict is `fixable` only with its edit."""
    from migrator.plan import migration_plans

    write_tree(tmp_path, {"train.py": (
        "import torch\nDEV = 'cuda'\n\n\ndef step(model, x):\n    x = x + torch.zeros(3, device=torch.device(DEV))\n"
        "    x = x * torch.ones(3, device=torch.device('cuda', 0))\n"
        "    y = torch.zeros(3, device='cuda')\n    torch.cuda.synchronize()\n    return model(x).cuda() + y\n\n\n"
        "if __name__ == '__main__':\n    step(torch.nn.Linear(3, 3), torch.ones(3))\n")})
    chosen = resolve_targets(["cann"])
    report = scan(ScanRequest(tmp_path, chosen, jobs=1))
    phase_one = next(p for p in migration_plans(report) if p.target.startswith("cann")).phases[0]
    applied = fix_report(tmp_path, report, chosen[0]).files[0].applied
    assert set(phase_one.findings) == set(applied) and len(applied) >= 3
    assert all(v.edit is not None for f in report.findings for v in f.verdicts.values() if v.fixable)
