"""``migrator maps update`` against a local package index: a new torch_npu line arrives from its wheel, checked
by sha256, and the rebuilt maps offer it; a bad download or no network leaves everything as it was."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrator.cli import main

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "operator_maps" / "upstream"
MEMBER = "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml"


TRANSFER_TO_NPU = """
import torch
import torch_npu
torch_fn_white_list = ['zeros', 'ones']
device_kwargs_list = ['device', 'map_location']
def _wrapper_cuda(fn):
    return fn
def _device_wrapper(enter_fn, white_list):
    pass
def _patch_cuda():
    patches = [['cuda', torch_npu.npu], ['cuda.amp', torch_npu.npu.amp]]
def _init():
    _patch_cuda()
    _device_wrapper(torch, torch_fn_white_list)
    torch.Tensor.cuda = torch.Tensor.npu
    torch.cuda.CUDAGraph = torch.npu.NPUGraph
def _replace(device, backend):
    return device.replace('cuda', 'npu'), backend.replace('nccl', 'hccl')
_init()
"""


def _wheel(version: str, registrations: bytes, transfer: str = TRANSFER_TO_NPU) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr(MEMBER, registrations)
        wheel.writestr("torch_npu/contrib/transfer_to_npu.py", transfer)
        wheel.writestr("torch_npu/version.py", f"__version__ = '{version}'\ngit_version = 'abc123def456'\n")
        wheel.writestr(f"torch_npu-{version}.dist-info/METADATA",
                       f"Metadata-Version: 2.4\nName: torch_npu\nVersion: {version}\n"
                       f"Requires-Dist: torch=={version.split('.post')[0]}.*\nRequires-Dist: numpy\n")
    return buffer.getvalue()


def _index(root: Path, wheels: dict, sha_override: str = "") -> str:
    """A folder laid out as PyPI's JSON API (``<index>/torch-npu/json``), its wheels beside it."""
    releases = {}
    for version, data in wheels.items():
        name = f"torch_npu-{version}-cp311-cp311-manylinux_2_28_x86_64.whl"
        (root / name).write_bytes(data)
        releases[version] = [{"filename": name, "url": (root / name).as_uri(),
                              "digests": {"sha256": sha_override or hashlib.sha256(data).hexdigest()}}]
    (root / "torch-npu").mkdir()
    (root / "torch-npu" / "json").write_text(json.dumps({"info": {"name": "torch_npu"}, "releases": releases}))
    return root.as_uri()


@pytest.fixture
def checkout(tmp_path: Path):
    """A copy of the maps' inputs (upstream files and curated tables), so the test writes nothing real."""
    upstream = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, upstream)
    for path in upstream.rglob("*"):
        path.chmod(0o644 if path.is_file() else 0o755)
    out = tmp_path / "maps"
    shutil.copytree(ROOT / "operator_maps" / "curated", out / "curated")
    index_root = tmp_path / "index"
    index_root.mkdir()
    return upstream, out, index_root


def _run(*args: str):
    return CliRunner().invoke(main, ["maps", "update", *args], catch_exceptions=False)


def test_a_new_line_arrives_from_its_wheel_and_the_maps_offer_it(checkout):
    upstream, out, index_root = checkout
    # torch_npu 2.13.0's own list stands in for a 2.14 release: the op statuses then follow from the data
    registrations = (upstream / "cann" / "npu_native_functions_by_codegen.torch_npu-2.13.0.yaml").read_bytes()
    wheel = _wheel("2.14.0.post1", registrations)
    index = _index(index_root, {"2.14.0rc1": _wheel("2.14.0rc1", b"supported: []\n"), "2.14.0": _wheel(
        "2.14.0", b"supported: []\n"), "2.14.0.post1": wheel})

    result = _run("2.14", "--index", index, "--upstream", str(upstream), "--out", str(out))

    assert result.exit_code == 0, result.output
    assert "torch_npu 2.14.0.post1" in result.output and "checked" in result.output
    stored = upstream / "cann" / "npu_native_functions_by_codegen.torch_npu-2.14.0.post1.yaml"
    assert stored.read_bytes() == registrations
    row = next(r for r in json.loads((upstream / "cann" / "wheels.json").read_text())["wheels"]
               if r["version"] == "2.14.0.post1")
    assert row["wheel_sha256"] == hashlib.sha256(wheel).hexdigest()
    assert row["git_version"] == "abc123def456" and row["requires_torch"] == "torch==2.14.0.*"
    targets = json.loads((out / "targets" / "cann" / "target.json").read_text())["releases"]
    line = next(t for t in targets if t["id"] == "cann" and t["version"] == "2.14")
    assert line["torch_line"] == "2.14" and "CANN: not in" in line["runtime"]
    assert any("sha256 " + row["wheel_sha256"][:12] in s for s in line["sources"])
    ops = json.loads((out / line["op_map"]).read_text())
    # no torch 2.14 aten list is bundled: the newest older one is used, and the map names it
    assert ops["aten_source"] == "native_functions.torch-2.13.0.yaml"
    assert ops["ops"]["aten::add.Tensor"] == "registered"
    # its own transfer_to_npu tables make its device map
    tables = json.loads((upstream / "cann" / "transfer_to_npu.torch_npu-2.14.0.post1.json").read_text())
    assert tables["attribute_assignments_in_init"][0] == {
        "target": "torch.Tensor.cuda", "value": "torch.Tensor.npu", "value_kind": "attribute"}
    assert tables["_source"]["commit"] == "abc123def456"
    device = json.loads((out / line["device_map"]).read_text())
    assert line["device_map"] == "device/cann-torch2.14.json"
    assert device["apis"]["torch.cuda.CUDAGraph"]["to"] == "torch.npu.NPUGraph"
    source = "transfer_to_npu.torch_npu-2.14.0.post1.json (Ascend/pytorch@abc123def456)"
    assert device["device_string"] == {"from": "cuda", "to": "npu", "source": source}


def test_a_wheel_that_fails_its_checksum_writes_nothing(checkout):
    upstream, out, index_root = checkout
    before = (upstream / "cann" / "wheels.json").read_bytes()
    index = _index(index_root, {"2.14.0": _wheel("2.14.0", b"supported: [add.Tensor]\n")}, sha_override="0" * 64)

    result = _run("2.14", "--index", index, "--upstream", str(upstream), "--out", str(out))

    assert result.exit_code == 2
    assert "is not the index's" in result.output
    assert not list((upstream / "cann").glob("*2.14.0*"))
    assert (upstream / "cann" / "wheels.json").read_bytes() == before
    assert not (out / "targets").exists()


def test_offline_it_says_so_and_keeps_the_maps(checkout):
    upstream, out, _ = checkout
    result = _run("2.14", "--index", "http://127.0.0.1:9/pypi", "--upstream", str(upstream), "--out", str(out))
    assert result.exit_code == 2
    assert "cannot reach the package index" in result.output and "the maps are unchanged" in result.output
    assert not (out / "targets").exists()


@pytest.mark.parametrize("asked, message", [
    pytest.param("2.99", "no torch_npu release on the 2.99 line", id="line-not-published"),
    pytest.param("2.14.0rc1", "is not a readable wheel", id="broken-wheel"),
    pytest.param("2.14.0", "has no torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml", id="no-list-in-wheel"),
    pytest.param("2.14.0rc2", "unpacks to more than 32 MB; refused", id="zip-bomb"),
])
def test_what_cannot_be_fetched_is_named(checkout, asked, message):
    upstream, out, index_root = checkout
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as wheel:
        wheel.writestr("torch_npu/__init__.py", "")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr(MEMBER, b"\0" * (33 * 1024 * 1024))  # 33 MB of zeros, a few KB packed
    index = _index(index_root, {"2.14.0rc1": b"not a zip", "2.14.0": empty.getvalue(), "2.14.0rc2": bomb.getvalue()})
    result = _run(asked, "--index", index, "--upstream", str(upstream), "--out", str(out))
    assert result.exit_code == 2
    assert message in result.output


def test_with_no_line_named_it_brings_the_lines_newer_than_the_folder_holds():
    from migrator.mapsbuild.update import newer_lines

    wheel = [{"filename": "w.whl", "url": "w.whl", "digests": {"sha256": "0" * 64}}]
    available = {"2.12.0": wheel, "2.13.0": wheel, "2.14.0rc1": wheel, "2.14.0": wheel, "2.15.0.post1": wheel,
                 "2.16.0": []}  # a release with no files is not a line to bring
    assert newer_lines(UPSTREAM, available) == ["2.14", "2.15"]
