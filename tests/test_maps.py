"""The committed maps are exactly what the generator makes from the upstream data."""
import json
import shutil

import pytest

from migrator.mapsbuild.build import MapsBuildError, build_maps
from migrator.maps.load import TargetSpecError, maps_dir, resolve_targets

from .conftest import REPO, UPSTREAM

needs_upstream = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="operator_maps/upstream is missing")


@needs_upstream
def test_committed_maps_equal_a_fresh_build():
    fresh = build_maps(UPSTREAM, REPO / "operator_maps" / "curated")
    for rel, text in fresh.items():
        assert (REPO / "operator_maps" / rel).read_text(encoding="utf-8") == text, rel
    committed = {p.relative_to(REPO / "operator_maps").as_posix()
                 for p in (REPO / "operator_maps").rglob("*.json")
                 if p.parent.name != "schema" and UPSTREAM not in p.parents}
    # the API table comes from `maps trace`, the argument names from `maps signatures` (both need torch)
    assert committed == set(fresh) | {"torch_api.json", "signatures.json"}


@needs_upstream
def test_curated_row_without_evidence_fails_the_build(tmp_path):
    curated = tmp_path / "curated"
    shutil.copytree(REPO / "operator_maps" / "curated", curated)
    text = (curated / "third_party.yaml").read_text(encoding="utf-8")
    (curated / "third_party.yaml").write_text(text.replace('"func: npu_fusion_attention(Tensor query"',
                                                           '"func: npu_flash_attention_invented("'), encoding="utf-8")
    with pytest.raises(MapsBuildError, match="npu_flash_attention_invented"):
        build_maps(UPSTREAM, curated)


@needs_upstream
@pytest.mark.parametrize("old, new, error", [
    # the file a plain-PyTorch row reads is not the one its sha256 names (another release, an edited copy)
    pytest.param("torch_scatter-2.1.2.py: ff6a3f", "torch_scatter-2.1.2.py: 0f6a3f", "has sha256 ff6a3f",
                 id="sha256"),
    # a quote the released file does not hold
    pytest.param('"        return self.norm(emb).to(self.weight.dtype)"', '"        return self.norm(emb).cuda()"',
                 "norm\\(emb\\).cuda", id="quote"),
    # a member named outside its library
    pytest.param("      torch_scatter.scatter_add:\n", "      torch_sparse.spmm:\n", "a member of torch_scatter",
                 id="member-of-another-library"),
])
def test_a_plain_pytorch_row_the_source_does_not_bear_out_fails_the_build(tmp_path, old, new, error):
    curated = tmp_path / "curated"
    shutil.copytree(REPO / "operator_maps" / "curated", curated)
    text = (curated / "third_party.yaml").read_text(encoding="utf-8")
    assert old in text
    (curated / "third_party.yaml").write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(MapsBuildError, match=error):
        build_maps(UPSTREAM, curated)


def test_every_map_entry_names_its_source():
    for path in sorted((maps_dir() / "device").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["sources"] and data["device_string"]["source"]
        assert all(entry.get("source") for entry in data["apis"].values()), path.name


@pytest.mark.parametrize("spec, expected", [
    pytest.param(None, ["cann@2.12-9.1", "neuware@1.25-2.4", "kunlun@kl3"], id="defaults"),
    pytest.param(["cann@2.1-8.0"], ["cann@2.1-8.0"], id="pinned-version"),
    pytest.param(["cann@2.11"], ["cann@2.11-9.1"], id="torch-line"),
    pytest.param(["cann@2.7"], ["cann@2.7-9.1"], id="torch-line-newest-cann"),
    pytest.param(["cann@2.13"], ["cann@2.13"], id="line-with-no-cann-pairing"),
])
def test_target_selection(spec, expected):
    assert [t.label for t in resolve_targets(spec)] == expected


@pytest.mark.parametrize("spec", [["tpu"], ["cann@9.9"], ["cann", "cann"]], ids=["unknown", "no-version", "twice"])
def test_bad_target_selection(spec):
    with pytest.raises(TargetSpecError):
        resolve_targets(spec)


@pytest.mark.parametrize("pattern, schema", [
    ("targets/*/target.json", "target.schema.json"),
    ("device/*.json", "device.schema.json"),
    ("ops/*.json", "ops.schema.json"),
    ("torch_api.json", "torch_api.schema.json"),
])
def test_maps_validate_against_their_schema(pattern, schema):
    import jsonschema

    spec = json.loads((maps_dir() / "schema" / schema).read_text(encoding="utf-8"))
    paths = sorted(maps_dir().glob(pattern))
    assert paths
    for path in paths:
        jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), spec)


def test_a_rename_judgement_holds_only_for_the_note_it_read():
    from migrator.mapsbuild.build import _rename_semantics_table

    curated = REPO / "operator_maps" / "curated"
    device_map = json.loads((REPO / "operator_maps" / "device" / "cann-torch2.7.json").read_text(encoding="utf-8"))
    targets = [{"id": "cann", "device_map": "device/cann-torch2.7.json"},
               {"id": "neuware", "device_map": "device/neuware-r2.4.json"}]
    neuware = json.loads((REPO / "operator_maps" / "device" / "neuware-r2.4.json").read_text(encoding="utf-8"))
    outputs = {"device/cann-torch2.7.json": device_map, "device/neuware-r2.4.json": neuware}
    assert _rename_semantics_table(curated, outputs, targets)["targets"]["cann"]["torch.cuda.current_stream"]
    reworded = json.loads(json.dumps(device_map))
    reworded["apis"]["torch.cuda.current_stream"]["limitations"] = "调用该接口前需先设置device"  # the vendor rewords it
    with pytest.raises(MapsBuildError, match="current_stream"):
        _rename_semantics_table(curated, {**outputs, "device/cann-torch2.7.json": reworded}, targets)


def test_the_wheel_ships_every_generated_map_and_no_raw_vendor_file():
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = set(config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"])
    present = {f"operator_maps/{p.name}" for p in (REPO / "operator_maps").iterdir() if p.name != "upstream"}
    assert shipped & {f"operator_maps/{p.name}" for p in (REPO / "operator_maps").iterdir()} == present
    assert "operator_maps/upstream" not in shipped and "operator_maps" not in shipped
