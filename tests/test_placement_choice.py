"""A device chosen as CUDA or the CPU by a tensor's own placement (SupContrast's loss, DomainBed's DANN):
``torch.device('cuda') if x.is_cuda else torch.device('cpu')``. On a target ``x`` is on the target's device and
the choice reads "cpu": the finding is its CUDA side, the fix ``x.device`` by hand, and no rename of the string
(by the choice's own finding or by a use it flows into) is applied."""

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

SUPCON = """import torch


def loss(features, labels):
    device = (torch.device('cuda')
              if features.is_cuda
              else torch.device('cpu'))
    mask = torch.eye(labels.shape[0]).to(device)
    return (features * mask).sum()
"""
DANN = """import torch


def update(minibatches):
    device = "cuda" if minibatches[0][0].is_cuda else "cpu"
    return torch.zeros(3, device=device)
"""
BY_TYPE = """import torch


def update(x):
    device = "cuda" if x.device.type == "cuda" else "cpu"
    return torch.zeros(3, device=device)
"""


def _cause(report):
    causes = [f for f in report.judged if f.root is None and f.span.line == 5]
    assert len(causes) == 1, [(f.span.line, f.api) for f in report.judged]
    return causes[0]


# PyTorch-GAN's UNIT: a legacy tensor type chosen by placement, then a host array made into it
UNIT = """import numpy as np
import torch


def reparameterization(mu):
    Tensor = torch.cuda.FloatTensor if mu.is_cuda else torch.FloatTensor
    z = Tensor(np.random.normal(0, 1, mu.shape))
    return z + mu
"""


@pytest.mark.parametrize("code, tensor", [
    pytest.param(SUPCON, "features", id="torch-device-calls"),
    pytest.param(DANN, "minibatches[0][0]", id="strings"),
    pytest.param(BY_TYPE, "x", id="device-type-test"),
])
def test_the_choice_is_the_tensors_device_by_hand(tmp_path, code, tensor):
    write_tree(tmp_path, {"train.py": code})
    report = scan(ScanRequest(tmp_path, resolve_targets(None), jobs=1))
    cause = _cause(report)
    for target in ("cann", "neuware"):
        verdict = cause.verdicts[target]
        assert verdict.status == Status.REWRITE
        assert verdict.fix is not None and verdict.fix.suggestion == f"{tensor}.device"
        assert verdict.edit is None  # by hand: renaming "cuda" alone leaves the test False there
    assert cause.verdicts["kunlun"].status == Status.SUPPORTED  # torch.cuda there: is_cuda holds
    # the use it flows into is a site of it, not a cause of its own
    assert all(f.root == cause.id for f in report.judged if f.span.line > 5 and f.verdicts["cann"].status
               == Status.REWRITE)


def test_a_tensor_type_chosen_by_placement_makes_its_tensors_on_that_device(tmp_path):
    write_tree(tmp_path, {"train.py": UNIT})
    report = scan(ScanRequest(tmp_path, resolve_targets(None), jobs=1))
    (cause,) = [f for f in report.judged if f.span.line == 6 and f.root is None and f.rule == "device-call"]
    for target in ("cann", "neuware"):
        verdict = cause.verdicts[target]
        assert verdict.status == Status.REWRITE and verdict.edit is None
        assert verdict.fix.suggestion == "torch.tensor(..., device=mu.device)"
    assert cause.verdicts["kunlun"].status == Status.SUPPORTED


def test_fix_leaves_the_choice_even_with_unsafe(tmp_path):
    write_tree(tmp_path, {"train.py": DANN})
    chosen = resolve_targets(["cann"])
    result = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0], unsafe=True)
    assert not result.changed  # "npu" if x.is_cuda would send CUDA's own run to a device it does not have


def test_a_choice_whose_other_side_is_not_the_cpu_stays_a_guard(tmp_path):
    code = ("import torch\n\n\ndef f(x, fallback):\n"
            "    device = torch.device('cuda') if x.is_cuda else fallback\n    return torch.zeros(3, device=device)\n")
    write_tree(tmp_path, {"train.py": code})
    report = scan(ScanRequest(tmp_path, resolve_targets(None), jobs=1))
    assert not [f for f in report.judged if f.span.line == 5 and "x.device" in (
        f.verdicts["cann"].fix.suggestion if f.verdicts["cann"].fix else "")]
