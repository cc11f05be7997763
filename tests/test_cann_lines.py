"""The Ascend lines read from torch_npu's own wheels (2.8 ... 2.13): their registration lists agree with
op-plugin's per-line entries, each file is the one its provenance row names, a verdict follows the line
judged, and a torch pin gets the torch_npu release Ascend pairs with it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from migrator.maps.load import load_target, paired, resolve_targets
from migrator.mapsbuild.release import OpRelease
from migrator.mapsbuild.upstream import parse_yaml
from migrator.mapsbuild.vendors import cann
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "operator_maps" / "upstream"


@pytest.mark.parametrize("wheel, line", [
    pytest.param("2.9.0.post6", "2.9", id="torch_npu-2.9.0.post6"),
    pytest.param("2.10.0.post4", "2.10", id="torch_npu-2.10.0.post4"),
    pytest.param("2.11.0", "2.11", id="torch_npu-2.11.0"),
    pytest.param("2.12.0", "2.12", id="torch_npu-2.12.0"),
])
def test_a_wheels_list_is_op_plugins_entries_for_its_line(wheel, line):
    """The 26.1.0 branches pin op-plugin 09024aa (the op-plugin file bundled): two vendor files, one set."""
    from_wheel, _ = cann.wheel_registered(UPSTREAM, cann.WHEEL_REGISTRATIONS.format(version=wheel))
    release = OpRelease("cann", line, "", line, "", ("cann/op_plugin_functions.op-plugin-26.1.0.yaml",
                                                     "cann/npu_native_functions.torch_npu-v2.7.1-26.1.0.yaml"))
    from_plugin, _ = cann.registered(UPSTREAM, release)
    assert from_wheel == from_plugin
    assert "aten::convolution" in from_wheel and len(from_wheel) > 1000


def test_every_wheel_file_is_the_one_its_provenance_row_names():
    for folder in ("cann", "pytorch"):
        rows = json.loads((UPSTREAM / folder / "wheels.json").read_text())["wheels"]
        assert rows, folder
        for row in rows:
            data = (UPSTREAM / folder / row["file"]).read_bytes()
            assert (hashlib.sha256(data).hexdigest(), len(data)) == (row["sha256"], row["size"]), row["file"]
            assert len(row["wheel_sha256"]) == 64 and row["wheel"].endswith(".whl") and row["license"]


def test_the_default_line_is_ascends_recommended_combination():
    (default,) = [t for t in resolve_targets(None) if t.id == "cann"]
    recommended = cann.recommended(UPSTREAM)
    pairing = next(p for p in cann.pairings(UPSTREAM) if p.torch_npu == recommended)
    assert default.runtime == f"torch_npu {recommended}, CANN {pairing.cann}"
    assert default.torch_line == pairing.torch_line


def test_a_verdict_follows_the_line_judged():
    """torch 2.13's torch_npu registers the fused Adam kernel; 2.12's does not, so it falls back to the CPU."""
    op = "aten::_fused_adam_"
    statuses = {version: load_target("cann", version).op_map()["ops"].get(op) for version in ("2.12-9.1", "2.13")}
    assert statuses == {"2.12-9.1": "not-registered", "2.13": "registered"}
    names = parse_yaml((UPSTREAM / cann.WHEEL_REGISTRATIONS.format(version="2.13.0")).read_text())["supported"]
    assert "_fused_adam_" in [str(e["func"] if isinstance(e, dict) else e).split("(")[0] for e in names]


@pytest.mark.parametrize("torch, expected", [
    pytest.param("2.11.0", ("2.11.0", "CANN 9.1.0"), id="exact"),
    pytest.param("2.9.0", ("2.9.0.post6", "CANN 9.1.0"), id="newest-cann-first"),
    pytest.param("2.5.0", ("2.5.1.post1", "CANN 8.2.RC1"), id="same-line"),
    pytest.param("2.13.0", ("2.13.0", "CANN not in the compatibility table"), id="from-the-wheel"),
])
def test_a_torch_version_pairs_with_a_torch_npu_release(torch, expected):
    pairing = paired("cann", torch)
    assert (pairing.version, pairing.runtime) == expected


def test_no_pairing_for_a_line_ascend_never_built():
    assert paired("cann", "1.99.0") is None and paired("neuware", "2.4.0") is None


def _pin_findings(tmp_path, files, target="cann"):
    write_tree(tmp_path, files)
    report = scan(ScanRequest(tmp_path, resolve_targets([target]), jobs=1))
    return {f.path: f.verdicts[target] for f in report.judged if f.rule in ("torch-pin", "cuda-requirement")}


def test_a_cuda_build_pin_gets_the_torch_npu_built_for_that_torch(tmp_path):
    found = _pin_findings(tmp_path, {"requirements.txt": "numpy\ntorch==2.11.0+cu126\n", "train.py": "import torch\n"})
    verdict = found["requirements.txt"]
    assert verdict.suggestion == "torch==2.11.0\ntorch_npu==2.11.0"
    assert "CANN 9.1.0" in verdict.message and "--target cann@2.11" in verdict.message
    assert verdict.source.startswith("COMPATIBILITY.torch_npu-master.en.md")


def test_plain_pins_with_and_without_their_plugin(tmp_path):
    found = _pin_findings(tmp_path, {
        "requirements.txt": "torch==2.12.0\n",
        "requirements-npu.txt": "torch==2.12.0\ntorch_npu==2.12.0\n",
        "requirements-old.txt": "torch==2.11.0\ntorch-npu==2.9.0.post6\n",
        "requirements-range.txt": "torch>=2.1\n",
        "train.py": "import torch\n",
    })
    assert found["requirements.txt"].status.value == "rewrite"
    assert found["requirements.txt"].suggestion == "torch==2.12.0\ntorch_npu==2.12.0"
    assert "--target" not in found["requirements.txt"].message  # the line this scan judged
    assert found["requirements-npu.txt"].status.value == "supported"
    assert "2.9.0.post6 is not built for torch 2.11.0" in found["requirements-old.txt"].message
    assert "requirements-range.txt" not in found


def test_a_pin_on_a_line_no_release_judges_names_maps_update(tmp_path):
    found = _pin_findings(tmp_path, {"requirements.txt": "torch==2.5.0\n", "train.py": "import torch\n"})
    message = found["requirements.txt"].message
    assert "torch_npu 2.5.1.post1" in message and "no torch_npu release is built for torch 2.5.0" in message
    assert "migrator maps update 2.5" in message


ASCEND_PAGE = """# torch.nn

### <code><i>class</i></code> torch.nn.Linear

<div style="margin-left: 2em">

**原生文档**：[torch.nn.Linear](https://pytorch.org/docs/2.13/generated/torch.nn.Linear.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✘ |

**限制与说明**：

- `input`仅支持bf16，fp16，fp32
- <term>Ascend 950DT</term>：不支持fp64

</div>

> <font size="3">forward()</font>

<div style="margin-left: 2em">

**原生文档**：[Linear.forward](https://pytorch.org/docs/2.13/generated/torch.nn.Linear.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |

</div>

### torch.cuda.synchronize

**NPU 形式名称**：torch_npu.npu.synchronize

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |

**限制与说明**：只支持默认流

</div>

### torch.nn.Unlisted

No support table: not a row.
"""


def test_ascends_api_pages_read_as_the_lists_rows():
    from migrator.mapsbuild.vendors.ascend_docs import parse_page

    rows = [e.row() for e in parse_page(ASCEND_PAGE, "torch-nn") if e.support]
    assert rows == [
        ["torch.nn.Linear", "class", "torch-nn", "", "Y", "", "N", "",
         "- `input`仅支持bf16，fp16，fp32 / - Ascend 950DT：不支持fp64"],
        ["Linear.forward", "member", "torch-nn", "", "Y", "", "", "", ""],
        ["torch.cuda.synchronize", "", "torch-nn", "torch_npu.npu.synchronize", "Y", "", "", "", "只支持默认流"],
    ]


def test_the_newer_lines_read_their_own_api_list():
    assert load_target("cann", "2.13").api_support_file == "api_support/cann-2.13.json"
    assert load_target("cann", "2.9-9.1").api_support_file == "api_support/cann-2.7-9.1.json"  # none of its own
    assert any("PyTorch 2.13.0 API list" in s for s in load_target("cann", "2.13").sources)


def test_each_wheel_lines_device_map_reads_its_own_transfer_tables():
    rows = {r["version"]: r for r in json.loads((UPSTREAM / "cann" / "wheels.json").read_text())["wheels"]}
    for version, row in rows.items():
        tables = json.loads((UPSTREAM / "cann" / f"transfer_to_npu.torch_npu-{version}.json").read_text())
        assert tables["_source"]["wheel_sha256"] == row["wheel_sha256"]
        assert tables["_source"]["commit"] == row["git_version"]
    device = json.loads((ROOT / "operator_maps" / "device" / "cann-torch2.13.json").read_text())
    assert device["device_string"]["source"] == "transfer_to_npu.torch_npu-2.13.0.json (Ascend/pytorch@c798c6532a0d)"
    assert device["apis"]["torch.Tensor.cuda"]["to"] == "torch.Tensor.npu"
