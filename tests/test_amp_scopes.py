"""An autocast scope (switched off, ``custom_fwd``, ``custom_bwd``) in a project that never enters autocast changes
nothing: to validate, off the worklist (``project/amp_scopes.py``); any autocast the project's code enters, a scaler
or a framework that autocasts keeps it work."""

from __future__ import annotations

import pytest

from migrator.evidence import active

# dinov2's KoLeo loss and gpt-neox's MoE scaling Function, trained in fp32 (or by FSDP's own mixed precision)
LOSSES = """
import torch


class KoLeoLoss(torch.nn.Module):
    def forward(self, x):
        with torch.cuda.amp.autocast(enabled=False):
            return (x @ x.t()).mean()


class ScaleGradient(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x, w):
        return torch.nn.functional.linear(x, w)

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, grad):
        return grad, None
"""
TRAIN = """
import torch
from pkg.losses import KoLeoLoss, ScaleGradient


def train():
    model = torch.nn.Linear(2, 2).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        x = torch.ones(2, 2).cuda()
        loss = KoLeoLoss()(ScaleGradient.apply(model(x), model.weight))
        loss.backward()
        opt.step()


if __name__ == "__main__":
    train()
"""
_SCOPES = ("torch.cuda.amp.autocast", "torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd")


@pytest.mark.parametrize("train, test, work", [
    pytest.param(TRAIN, "", False, id="never-autocasts"),
    pytest.param(TRAIN.replace("        x = torch.ones(2, 2).cuda()\n", "        x = torch.ones(2, 2).cuda()\n"
                               "        with torch.autocast('cuda', dtype=torch.bfloat16):\n"
                               "            y = model(x)\n"), "", True, id="enters-autocast"),
    pytest.param(TRAIN.replace("    opt = ", "    scaler = torch.cuda.amp.GradScaler()\n    opt = "), "", True,
                 id="scales-its-loss"),
    pytest.param("import lightning\n" + TRAIN, "", True, id="a-framework-that-autocasts"),
    # the tests' own autocast is not the project's run
    pytest.param(TRAIN, "import torch\n\n\ndef test_amp():\n    with torch.autocast('cpu'):\n        pass\n", False,
                 id="only-a-test-autocasts"),
])
def test_an_autocast_scope_in_a_project_that_never_autocasts_is_to_validate(scan_tree, train, test, work):
    report = scan_tree({"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/train.py": train,
                        "tests/test_amp.py": test}, ["cann"])
    found = [f for f in (*report.findings, *report.validate) if f.path == "pkg/losses.py" and f.api in _SCOPES]
    assert {f.api for f in found} == set(_SCOPES)
    for finding in found:
        assert active(finding.verdicts["cann"]) is work, (finding.api, finding.verdicts["cann"].message)
