"""Adding a target is adding a folder: ``operator_maps/targets/demo/`` with its ``target.json`` (runtime facts,
one release) and its own data files (a device table, an operator list), no Python change and no other file
edited, judged end to end. Every verdict on the demo target must come from its folder: its device and
collective names, its renames and their source, its operators' statuses, its kernel language and build hint.
"""
import json
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from migrator.maps import load
from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan
from migrator.rules.examples import Invalid, Valid

from . import test_rule_examples as rule_examples

DEMO_RUNTIME = {
    "id": "demo", "name": "Demo accelerator", "default_version": "0.1", "cuda_names": "renamed",
    "kernel_language": "Demo C", "kernel_device": "dmo", "build_hint": "build with demo_ext.DemoExtension",
    "build_change": "build with demo_ext.DemoExtension(name, sources)", "build_api": "demo_ext.DemoExtension",
    "dispatch_key": None, "dispatch_note": "the demo runtime's dispatch key is not published",
}

DEVICE_TABLE = "demo device table 0.1 (a test's)"
OP_LIST = "demo op list 0.1 (a test's)"



def _device(runtime):
    """The demo's device table: its own names, or CUDA's where the runtime keeps them."""
    kept = runtime["cuda_names"] == "kept"
    return {
        "schema": "migrator.maps/1", "target": "demo", "runtime": "demo runtime 0.1", "sources": [DEVICE_TABLE],
        "device_string": {"from": "cuda", "to": "cuda" if kept else "dmo", "source": DEVICE_TABLE},
        "backend_string": {"from": "nccl", "to": "nccl" if kept else "dccl", "source": DEVICE_TABLE},
        "import_first": None if kept else "import torch_dmo",
        "apis": {} if kept else {  # the renames every renaming runtime's table has, one exact entry
            "torch.cuda": {"to": "torch.dmo", "source": DEVICE_TABLE},
            "torch.Tensor.cuda": {"to": "torch.Tensor.dmo", "source": DEVICE_TABLE},
            "torch.nn.Module.cuda": {"to": "torch.nn.Module.dmo", "source": DEVICE_TABLE},
            "torch.cuda.synchronize": {"to": "torch.dmo.synchronize", "source": DEVICE_TABLE, "exact": True}},
        "dtype_caveats": {}, "adaptations": {},
    }


OPS = {
    "schema": "migrator.maps/1", "target": "demo", "version": "0.1", "runtime": "demo runtime 0.1",
    "aten_source": "native_functions.torch-2.7.1.yaml", "sources": [OP_LIST],
    "reasons": {"registered": "supported", "not-registered": "fallback"},
    "ops": {"aten::add.Tensor": "registered", "aten::sum": "registered", "aten::cumsum": "not-registered"},
}


def _folder(runtime):
    return {
        "schema": "migrator.maps/1", "runtime": runtime,  # no position: listed after the bundled targets
        "releases": [{"id": "demo", "version": "0.1", "runtime": "demo runtime 0.1", "torch_line": "2.7",
                      "default": True, "sources": [DEVICE_TABLE, OP_LIST],
                      "device_map": "targets/demo/device.json", "op_map": "targets/demo/ops.json"}],
    }


_CACHES = (load.load_json, load.target_folders, load.available_targets, load.runtimes, load.target_names,
           load.load_target)


@contextmanager
def _maps_with_demo(tmp_path, runtime):
    """The bundled maps with one more folder, ``targets/demo/``, and nothing else changed."""
    maps = tmp_path / "operator_maps"
    shutil.copytree(load.maps_dir(), maps, ignore=shutil.ignore_patterns("upstream"))
    before = {p.relative_to(maps): p.read_bytes() for p in maps.rglob("*") if p.is_file()}
    folder = maps / "targets" / "demo"
    folder.mkdir()
    for name, document in (("target.json", _folder(runtime)), ("device.json", _device(runtime)), ("ops.json", OPS)):
        (folder / name).write_text(json.dumps(document))
    assert all((maps / rel).read_bytes() == data for rel, data in before.items())  # the folder is the whole change
    for cached in _CACHES:
        cached.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(load, "maps_dir", lambda: maps)
        try:
            yield maps
        finally:
            for cached in _CACHES:
                cached.cache_clear()


@pytest.fixture
def demo_maps(tmp_path, request):
    with _maps_with_demo(tmp_path, {**DEMO_RUNTIME, **getattr(request, "param", {})}) as maps:
        yield maps


@pytest.fixture(scope="module")
def demo_targets(tmp_path_factory):
    """Every target's default release, the demo's among them: what a scan with no ``--target`` judges."""
    with _maps_with_demo(tmp_path_factory.mktemp("maps"), DEMO_RUNTIME):
        yield resolve_targets(None)


def _project(tmp_path, files):
    project = tmp_path / "project"
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    return project


def test_a_target_folder_validates_against_the_target_schema(demo_maps):
    import jsonschema

    schema = json.loads((demo_maps / "schema" / "target.schema.json").read_text())
    jsonschema.validate(json.loads((demo_maps / "targets" / "demo" / "target.json").read_text()), schema)


@pytest.mark.parametrize("document", [
    pytest.param("{not json", id="not-json"),
    pytest.param(json.dumps({"schema": "migrator.maps/1", "releases": []}), id="no-runtime"),
    pytest.param(json.dumps({"schema": "migrator.maps/1", "runtime": {**DEMO_RUNTIME, "id": "other"},
                             "releases": []}), id="another-folders-id"),
])
def test_a_folder_that_is_not_a_target_is_named_not_a_traceback(demo_maps, document):
    (demo_maps / "targets" / "demo" / "target.json").write_text(document)
    load.load_json.cache_clear()
    load.target_folders.cache_clear()
    with pytest.raises(load.TargetSpecError, match="targets/demo/target.json is not a target"):
        load.target_folders()


def test_a_target_added_as_a_folder_is_listed_after_the_bundled_ones(demo_maps):
    assert load.target_ids() == ("cann", "neuware", "kunlun", "demo")
    assert [t.label for t in resolve_targets(["demo", "cann"])] == ["demo@0.1", "cann@2.12-9.1"]
    assert [t.id for t in resolve_targets(None)][-1] == "demo"


@pytest.mark.parametrize("command", [
    pytest.param(["scan", "{project}", "--isolated", "--show-settings"], id="scan"),
    pytest.param(["explain", "torch.cumsum"], id="explain"),
])
def test_a_command_without_target_judges_every_target_folder(demo_maps, tmp_path, command):
    """No ``--target`` and no ``[tool.migrator] targets``: every folder of the maps, the demo's among them."""
    from click.testing import CliRunner

    from migrator.cli import main

    project = _project(tmp_path, {"train.py": "import torch\n"})
    result = CliRunner().invoke(main, [part.format(project=project) for part in command])
    assert result.exit_code == 0, result.output
    assert "demo@0.1" in result.output and "cann@" in result.output and "kunlun@" in result.output


def test_a_target_added_as_a_folder_is_judged_from_its_own_data(demo_maps, tmp_path):
    project = _project(tmp_path, {"train.py": (
        "import torch\nimport torch.distributed as dist\n\n\n"
        "def main():\n    dist.init_process_group('nccl')\n    x = torch.ones(4, device='cuda')\n"
        "    torch.cuda.synchronize()\n    return torch.cumsum(x, 0) + torch.add(x, x)\n\n\n"
        "if __name__ == '__main__':\n    main()\n")})
    report = scan(ScanRequest(project, resolve_targets(["demo", "cann"])))
    by_api = {f.api: f.verdicts["demo"] for f in report.judged}
    sync = by_api["torch.cuda.synchronize"]
    assert sync.status == Status.REWRITE and sync.suggestion == "torch.dmo.synchronize()"
    assert sync.source == DEVICE_TABLE and sync.fixable
    device = next(f for f in report.findings if f.rule == "device-argument").verdicts["demo"]
    assert device.suggestion == "torch.ones(4, device='dmo')" and device.source == DEVICE_TABLE
    backend = next(f for f in report.findings if f.rule == "collective-backend").verdicts["demo"]
    assert "'dccl'" in backend.message and backend.source == DEVICE_TABLE
    assert by_api["torch.cumsum"].status == Status.FALLBACK and OP_LIST in by_api["torch.cumsum"].source
    assert by_api["torch.add"].status == Status.SUPPORTED and OP_LIST in by_api["torch.add"].source
    assert report.targets[0].id == "demo" and report.targets[0].version == "0.1"


def test_a_target_added_as_a_folder_brings_its_own_kernel_and_build_facts(demo_maps, tmp_path):
    project = _project(tmp_path, {
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('fused', ['fused.cu'])\n",
        "fused.cu": "__global__ void scale_kernel(float* x) { x[0] *= 2.0f; }\n",
        "ops.py": "import torch\n@torch.library.custom_op('mylib::f', mutates_args=(), device_types='cuda')\n"
                  "def f(x: torch.Tensor) -> torch.Tensor:\n    return x\n",
    })
    report = scan(ScanRequest(project, resolve_targets(["demo", "cann"])))
    kernel = next(f for f in report.findings if f.rule == "cuda-kernel")
    assert kernel.verdicts["demo"].status == Status.PORT
    assert "Demo C" in kernel.verdicts["demo"].message and "demo_ext.DemoExtension" in kernel.verdicts["demo"].message
    assert "Ascend C" in kernel.verdicts["cann"].message
    registration = next(f for f in report.findings if f.rule == "torch-library-cuda")
    assert registration.verdicts["demo"].status == Status.UNKNOWN  # dispatch_key: null says "we do not know"
    assert "not published" in registration.verdicts["demo"].message
    assert registration.verdicts["cann"].status == Status.REWRITE


@pytest.mark.parametrize("demo_maps", [{"cuda_names": "kept"}], indirect=True, ids=["kept"])
def test_a_runtime_that_keeps_cuda_names_is_one_field(demo_maps, tmp_path):
    """``cuda_names: kept`` alone turns every CUDA spelling into a shim verdict, in the runtime's own name."""
    project = _project(tmp_path, {"train.py": (
        "import os\nimport torch\nimport torch.distributed as dist\n"
        "os.environ['CUDA_CACHE_PATH'] = '/tmp'\n"
        "dist.init_process_group('nccl')\nx = torch.ones(2, device='cuda:0')\ntorch.cuda.synchronize()\n")})
    report = scan(ScanRequest(project, resolve_targets(["demo", "cann"])))
    by_rule = {f.rule: f for f in report.judged}
    for rule in ("device-argument", "collective-backend", "device-call"):
        demo, cann = by_rule[rule].verdicts["demo"], by_rule[rule].verdicts["cann"]
        assert demo.status == Status.SUPPORTED and "Demo accelerator presents itself as torch.cuda" in demo.message
        assert cann.status == Status.REWRITE and not cann.message.startswith(demo.message[:20])
    variable = by_rule["environment-variable"].verdicts["demo"]
    assert variable.status == Status.UNKNOWN and "Demo accelerator honours" in variable.message
    assert not any("torch_xmlir" in v.message for f in report.findings for v in [f.verdicts["demo"]])


@pytest.mark.parametrize("rule, example", rule_examples._cases(Valid))
def test_a_valid_rule_example_is_not_reported_beside_a_new_target(tmp_path, demo_targets, rule, example):
    rule_examples.check_valid(tmp_path, rule, example, demo_targets)


@pytest.mark.parametrize("rule, example", rule_examples._cases(Invalid))
def test_a_rule_example_holds_on_a_new_target_by_its_kind_of_runtime(tmp_path, demo_targets, rule, example):
    """Every rule's examples, against the bundled targets and the demo folder: the bundled targets keep their
    verdicts and fixes, and the demo gets its kind of runtime's default (no example names it)."""
    assert [t.id for t in demo_targets] == ["cann", "neuware", "kunlun", "demo"]
    rule_examples.check_invalid(tmp_path, rule, example, demo_targets)


def _numbers(report):
    """What a report says of each target: readiness, counts, effort, blockers, to validate; not the readiness
    input ``covered``, which counts the uses every target judged runs as written (the other targets' by its
    definition)."""
    def effort(target):
        inputs = {k: v for k, v in target.effort["readiness_inputs"].items() if k != "covered"}
        return {**target.effort, "readiness_inputs": inputs}

    return {t.id: (t.readiness, t.counts, effort(t), t.blockers, t.to_validate) for t in report.targets}


def test_adding_a_target_never_moves_another_targets_numbers(demo_targets):
    """The bundled example scanned with every target (no ``--target``): with the demo folder, the bundled
    targets' readiness, counts, effort and blockers are what they are without it."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    with_demo = _numbers(scan(ScanRequest(examples, demo_targets, jobs=1)))
    without = _numbers(scan(ScanRequest(examples, rule_examples.TARGETS, jobs=1)))  # read before the folder was
    assert set(with_demo) == {"cann", "neuware", "kunlun", "demo"} and set(without) == set(with_demo) - {"demo"}
    assert {t: with_demo[t] for t in without} == without
