"""Adding a rule is adding one file: a copy of the package with one more module in a category folder finds
the rule, runs it in its claim tier, lists and documents it, and reports its findings, with no other edit."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import migrator
from migrator.data import data_dir

NEW_RULE = '''"""The ``nvtx-range`` rule (a test's rule: its verdicts are not vendor data)."""

from __future__ import annotations

from ...model import Category, Status, Verdict
from ..base import Claim, Rule, per_target
from ..examples import Invalid, Valid


class NvtxRange(Rule):
    """NVTX ranges around training code.

    ## What it does
    Finds `torch.cuda.nvtx.range_push` and `range_pop`.

    ## Why is this bad?
    NVTX is NVIDIA's profiler annotation; a target's profiler has its own.

    ## Fix safety
    No fix: which of the target's profiler marks fits is the user's choice.
    """

    name = "nvtx-range"
    category = Category.DEVICE
    summary = "NVTX profiler ranges"
    claim = Claim.LIBRARY  # before device-call, which claims every torch.cuda API
    kinds = frozenset({"call"})
    examples = (
        Invalid("import torch\\ntorch.cuda.nvtx.range_push('step')\\n", expect=Status.UNKNOWN),
        Valid("import torch\\ntorch.cuda.synchronize()\\n"),
    )

    def check(self, usage, ctx):
        if usage.api not in ("torch.cuda.nvtx.range_push", "torch.cuda.nvtx.range_pop"):
            return None
        return per_target(ctx, lambda target: Verdict(Status.UNKNOWN, f"an NVTX range: {target.id}'s profiler "
                                                      "has its own marks", "a test's rule"))
'''

PROJECT = ("import torch\n\n\ndef train(step):\n    torch.cuda.nvtx.range_push('step')\n"
           "    torch.cuda.synchronize()\n    torch.cuda.nvtx.range_pop()\n\n\n"
           "if __name__ == '__main__':\n    train(0)\n")


@pytest.fixture(scope="module")
def with_new_rule(tmp_path_factory):
    """A copy of the installed package with ``rules/device/nvtx_range.py`` added, and its data beside it."""
    src = tmp_path_factory.mktemp("src")
    package = Path(migrator.__file__).resolve().parent
    shutil.copytree(package, src / "migrator", ignore=shutil.ignore_patterns("__pycache__", "_data"))
    for name in ("operator_maps", "reports"):  # a copy without ``_data`` reads its data from beside it
        (src / name).symlink_to(data_dir(name), target_is_directory=True)
    (src / "migrator" / "rules" / "device" / "nvtx_range.py").write_text(NEW_RULE)
    return src


def _migrator(src: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "migrator", *args], cwd=src, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_rule_added_as_one_file_is_listed_and_documented(with_new_rule):
    listed = {line.split()[0] for line in _migrator(with_new_rule, "rules").splitlines()}
    assert "nvtx-range" in listed and "device-call" in listed
    doc = _migrator(with_new_rule, "rules", "nvtx-range")
    assert "NVTX ranges around training code." in doc and "torch.cuda.nvtx.range_push('step')" in doc


def test_a_rule_added_as_one_file_claims_in_its_tier(with_new_rule, tmp_path):
    (tmp_path / "train.py").write_text(PROJECT)
    out = tmp_path / "report.json"
    _migrator(with_new_rule, "scan", str(tmp_path), "--format", "json", "-o", str(out), "--no-cache",
              "--target", "cann,kunlun")
    rules = {(f["line"], f["rule"]) for f in json.loads(out.read_text())["findings"]}
    # its tier comes before device-call's: the NVTX lines are its own; the other CUDA call stays device-call's
    assert {(5, "nvtx-range"), (7, "nvtx-range"), (6, "device-call")} <= rules
    assert not {(5, "device-call"), (7, "device-call")} & rules
