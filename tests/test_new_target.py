"""Adding a target is data: a throw-away runtime row and release row, no Python change, judged end to end.

The demo target borrows Ascend's coverage files (a real runtime would bring its own, from its reader under
``migrator/maps/``) but has its own name, kernel language, build hint and dispatch facts, and every stage
(rules, custom-op plans, target choice) must pick them up from the row.
"""
import json
import shutil

import pytest

from migrator.maps import load
from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan

DEMO_RUNTIME = {
    "id": "demo", "name": "Demo accelerator", "default_version": "0.1", "cuda_names": "renamed",
    "kernel_language": "Demo C", "kernel_device": "dmo", "build_hint": "build with demo_ext.DemoExtension",
    "build_change": "build with demo_ext.DemoExtension(name, sources)", "dispatch_key": None,
    "dispatch_note": "the demo runtime's dispatch key is not published",
}


@pytest.fixture
def demo_maps(tmp_path, monkeypatch, request):
    runtime = {**DEMO_RUNTIME, **getattr(request, "param", {})}
    maps = tmp_path / "operator_maps"
    shutil.copytree(load.maps_dir(), maps)
    manifest = json.loads((maps / "targets.json").read_text())
    cann = next(t for t in manifest["targets"] if t["id"] == "cann" and t["default"])
    demo = {**cann, "id": "demo", "version": "0.1", "runtime": "demo runtime 0.1"}
    if runtime["cuda_names"] == "kept":  # a runtime that keeps CUDA names keeps `cuda` and `nccl` in its device data
        demo["device_map"] = next(t for t in manifest["targets"] if t["id"] == "kunlun" and t["default"])["device_map"]
    manifest["targets"].append(demo)
    manifest["runtimes"].append(runtime)
    (maps / "targets.json").write_text(json.dumps(manifest))
    caches = (load.load_json, load.available_targets, load.runtimes, load.load_target)
    for cached in caches:
        cached.cache_clear()
    monkeypatch.setattr(load, "maps_dir", lambda: maps)
    yield maps
    for cached in caches:
        cached.cache_clear()


CODE = {
    "setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('fused', ['fused.cu'])\n",
    "fused.cu": "__global__ void scale_kernel(float* x) { x[0] *= 2.0f; }\n",
    "ops.py": "import torch\n@torch.library.custom_op('mylib::f', mutates_args=(), device_types='cuda')\n"
              "def f(x: torch.Tensor) -> torch.Tensor:\n    return x\n",
}


def test_a_target_added_as_data_is_judged_with_its_own_facts(demo_maps, tmp_path):
    project = tmp_path / "project"
    for rel, text in CODE.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    targets = resolve_targets(["demo", "cann"])
    assert [t.label for t in targets] == ["demo@0.1", "cann@2.12-9.1"]
    report = scan(ScanRequest(project, targets))
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
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(
        "import os\nimport torch\nimport torch.distributed as dist\n"
        "os.environ['CUDA_CACHE_PATH'] = '/tmp'\n"
        "dist.init_process_group('nccl')\nx = torch.ones(2, device='cuda:0')\ntorch.cuda.synchronize()\n")
    report = scan(ScanRequest(project, resolve_targets(["demo", "cann"])))
    by_rule = {f.rule: f for f in report.findings}
    for rule in ("device-argument", "collective-backend", "device-call"):
        demo, cann = by_rule[rule].verdicts["demo"], by_rule[rule].verdicts["cann"]
        assert demo.status == Status.SUPPORTED and "Demo accelerator presents itself as torch.cuda" in demo.message
        assert cann.status == Status.REWRITE and not cann.message.startswith(demo.message[:20])
    variable = by_rule["environment-variable"].verdicts["demo"]
    assert variable.status == Status.UNKNOWN and "Demo accelerator honours" in variable.message
    assert not any("torch_xmlir" in v.message for f in report.findings for v in [f.verdicts["demo"]])
