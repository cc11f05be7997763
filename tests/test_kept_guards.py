"""A device test whose branch keeps only code the target cannot run as written (kuangliu's pytorch-cifar: ``if
device == 'cuda': net = torch.nn.DataParallel(net)``) is kept: as written the target skips the branch, as a
machine without CUDA does (``project/kept_guards.py``); a branch that also places the model stays work."""

from __future__ import annotations

import pytest

from migrator.evidence import active
from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

# kuangliu/pytorch-cifar main.py, lines 24 and 71-75, around a small network
CIFAR = """import torch
import torch.backends.cudnn as cudnn

device = 'cuda' if torch.cuda.is_available() else 'cpu'
net = torch.nn.Linear(2, 2)
net = net.to(device)
if device == 'cuda':
{branch}

def train(inputs):
    inputs = inputs.to(device)
    return net(inputs)
"""
_WRAPS = "    net = torch.nn.DataParallel(net)\n    cudnn.benchmark = True\n"
_PLACES = "    net = torch.nn.DataParallel(net)\n    net = net.cuda()\n"


def _scan(root, branch):
    write_tree(root, {"main.py": CIFAR.format(branch=branch)})
    chosen = resolve_targets(["cann"])
    return scan(ScanRequest(root, chosen, jobs=1)), chosen[0]


@pytest.mark.parametrize("branch, kept", [
    pytest.param(_WRAPS, True, id="a-branch-of-what-the-target-cannot-run-is-kept-out"),
    pytest.param(_PLACES, False, id="a-branch-that-also-places-the-model-is-work"),
    # a line no finding is on may be what the target needs
    pytest.param(_WRAPS + "    parallel = True\n", False, id="a-branch-that-also-does-other-work-is-work"),
    # T2T-ViT's transfer_learning.py reads what the wrap adds (``net.module.blocks``) after the branch
    pytest.param(_WRAPS + "head = net.module.weight\n", False, id="later-code-reads-the-wrapped-module"),
])
def test_a_device_test_that_keeps_unrunnable_code_out_is_no_work(tmp_path, branch, kept):
    report, _ = _scan(tmp_path, branch)
    (test,) = [f for f in report.judged if f.rule == "device-string" and f.span.line == 7]
    (wrap,) = [f for f in report.judged if f.api == "torch.nn.DataParallel"]
    assert (test.verdicts["cann"].status == Status.SUPPORTED) == kept, test.verdicts["cann"].message
    assert active(wrap.verdicts["cann"]) is not kept
    assert any(f.span.line == 4 and active(f.verdicts["cann"]) for f in report.findings)  # the device choice
    if kept:
        assert "renamed alone, the test would send cann into them" in test.verdicts["cann"].message
        # the wrap is to validate, no cause the device choice is a site of (pointmlp's main.py)
        assert wrap.id in {f.id for f in report.validate} and all(f.root != wrap.id for f in report.findings)


def test_the_fix_renames_the_choice_and_keeps_the_test_so_the_target_trains_on_one_device(tmp_path):
    pytest.importorskip("torch")
    from .npu_stub import run_on_cpu, run_on_npu, write_stub

    root = tmp_path / "project"
    report, target = _scan(root, _WRAPS)
    write_tree(tmp_path / "original", {"main.py": CIFAR.format(branch=_WRAPS)})
    result = fix_report(root, report, target)
    (fixed,) = [item for item in result.changed if item.path == "main.py"]
    assert "device = 'npu' if torch_npu.npu.is_available() else 'cpu'" in fixed.new
    assert "if device == 'cuda':" in fixed.new
    (root / "main.py").write_text(fixed.new, encoding="utf-8")
    run = "import main\nresult = [main.device, type(main.net).__name__]"
    assert run_on_cpu(tmp_path / "original", run).get("result") == ["cpu", "Linear"]
    assert run_on_npu(write_stub(tmp_path / "stub"), root, run).get("result") == ["npu", "Linear"]


# pointMLP's classification_ModelNet40/main.py: CUDA asserted, the device written, the same guarded wrap
POINTMLP = """import torch
import torch.backends.cudnn as cudnn


def main():
    assert torch.cuda.is_available(), "Please ensure codes are executed in cuda."
    device = 'cuda'
    net = torch.nn.Linear(2, 2)
    net = net.to(device)
    if device == 'cuda':
        net = torch.nn.DataParallel(net)
        cudnn.benchmark = True
    return net
"""


def test_a_kept_wrap_is_no_cause_of_the_device_choice(tmp_path):
    write_tree(tmp_path, {"main.py": POINTMLP})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    (wrap,) = [f for f in report.judged if f.api == "torch.nn.DataParallel"]
    assert wrap.id in {f.id for f in report.validate}
    assert all(f.root != wrap.id for f in report.judged), [(f.span.line, f.api) for f in report.judged
                                                            if f.root == wrap.id]
