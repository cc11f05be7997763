"""--select / --ignore by rule or category, on scan, fix and check, from the command line or
[tool.migrator] (ruff's conventions)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.selection import Selection, SelectionError

TRAIN = ("import os\nimport torch\n\nos.environ['NCCL_DEBUG'] = 'INFO'\nDEVICE = 'cuda'\n\n\ndef main(model):\n"
         "    model.to(DEVICE)\n    torch.cuda.synchronize()\n    x = torch.zeros(3, device=DEVICE)\n    return x\n\n\n"
         "if __name__ == '__main__':\n    main(None)\n")


def _findings(tmp_path, *options):
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-cache", "--target", "cann", "--format", "json",
                                       *options])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)  # the worklist, and the uses to validate or with no data, per API
    return document["findings"] + [{"rule": row["rule"], **site} for row in document["validate"] + document["data_gaps"]
                                   for site in row["sites"]]


def test_select_a_category_and_ignore_a_rule(tmp_path):
    every = {f["rule"] for f in _findings(tmp_path)}
    assert {"device-call", "device-string", "environment-variable"} <= every
    device = {f["rule"] for f in _findings(tmp_path, "--select", "device")}
    assert device and all(rule.startswith("device") for rule in device)
    assert "device-call" not in {f["rule"] for f in _findings(tmp_path, "--ignore", "device-call,environment")}


def test_a_use_whose_cause_is_not_selected_stands_on_its_own(tmp_path):
    kept = _findings(tmp_path, "--ignore", "device-string")
    sites = [f for f in kept if f["line"] in (9, 11)]
    assert sites and all(f["root"] is None for f in sites)  # counted now: the cause is not reported


@pytest.mark.parametrize("selector", ["devices", "torch_op"], ids=["typo-of-a-category", "typo-of-a-rule"])
def test_an_unknown_selector_is_a_usage_error(tmp_path, selector):
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-cache", "--select", selector])
    assert result.exit_code == 2 and selector in result.output
    with pytest.raises(SelectionError):
        Selection.parse(ignore=[selector])


def test_tool_migrator_select_holds_for_scan_check_and_fix(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nignore = ["device-call"]\n')
    assert "device-call" not in {f["rule"] for f in _findings(tmp_path)}
    runner = CliRunner()
    check = runner.invoke(main, ["check", str(tmp_path / "train.py"), "--no-cache", "--format", "json"])
    failing = {f["rule"] for f in json.loads(check.output)["findings"]}
    assert check.exit_code == 1 and "device-string" in failing and "device-call" not in failing
    diff = runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--diff", "--no-cache"])
    assert "synchronize" not in diff.output and "'npu'" in diff.output  # the device string is still fixed
    assert "torch_npu.npu.synchronize" in runner.invoke(
        main, ["fix", str(tmp_path), "--target", "cann", "--diff", "--no-cache", "--ignore", "environment"]).output


def test_a_bad_selector_in_the_configuration_stops_check_and_scan(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.migrator]\nselect = ["devcie"]\n')
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    runner = CliRunner()
    check = runner.invoke(main, ["check", str(tmp_path / "train.py"), "--no-cache"])
    assert check.exit_code == 2 and "devcie" in check.output
    scan = runner.invoke(main, ["scan", str(tmp_path), "--no-cache", "-q"])
    assert scan.exit_code == 2 and "devcie" in scan.output  # one policy for every command: named, exit 2
