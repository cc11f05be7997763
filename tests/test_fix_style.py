"""``fix``'s portable style (issue 43): ``torch.accelerator`` where the target's torch line and the vendor's list have
it, the vendor's names otherwise, a file at a time; the fixed code run on the CPU (here, in-process) and under the
fake runtimes (``npu_stub``: a ``torch_npu`` or ``torch_mlu`` registered through PrivateUse1 and loaded by torch's
autoload, no CUDA)."""


import pytest

from migrator.fix import fix_report
from migrator.fix.style import not_portable, portable_forms
from migrator.maps.load import load_json, resolve_targets
from migrator.pipeline import ScanRequest, scan

from .conftest import load_module as _load, write_tree
from .npu_stub import run_on_npu, write_stub

torch = pytest.importorskip("torch")

# a DDP launcher's device helpers, as training scripts write them
LAUNCH = '''\
"""Device helpers of a DDP launcher."""
import torch


def count():
    return torch.cuda.device_count()


def bind(local_rank):
    torch.cuda.set_device(local_rank)
    return torch.cuda.current_device()


def wait():
    torch.cuda.synchronize()
'''

FILES = {
    "launch.py": LAUNCH,
    # a device string and a move name the device: the file keeps the vendor's names throughout
    "train.py": "import torch\n\n\ndef step(x):\n    torch.cuda.synchronize()\n    return x.cuda()\n",
    # the portable forms take positional arguments only
    "bench.py": "import torch\n\n\ndef wait(d):\n    torch.cuda.synchronize(device=d)\n",
}

RUN = '''
import launch
out = [launch.count()]
for call in (lambda: launch.bind(0), launch.wait):
    try:
        out.append(call())
    except Exception as exc:
        out.append("raises")
result = out
'''


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    """The three files fixed for cann (portable and vendor style) and for neuware, by one scan each."""
    root = write_tree(tmp_path_factory.mktemp("project"), FILES)
    out = {}
    for target in ("cann", "neuware"):
        chosen = resolve_targets([target])
        report = scan(ScanRequest(root, chosen, jobs=1))
        for style in ("portable", "vendor"):
            out[target, style] = {f.path: f for f in fix_report(root, report, chosen[0], style=style).changed}
    return root, out


def _cpu_outcome(call):
    try:
        return ("returns", call())
    except Exception:
        return ("raises", None)


ROWS = [(api, row) for api, row in load_json("accelerator.json")["apis"].items() if row.get("portable")]


@pytest.mark.parametrize("api, row", ROWS, ids=[api for api, _ in ROWS])
def test_the_tables_cpu_column_is_what_the_installed_torch_does(api, row):
    def resolved(name):
        value = torch
        for part in name.split(".")[1:]:
            value = getattr(value, part)
        return value

    args = (0,) if api.endswith("set_device") else ()
    cuda, portable = resolved(api), resolved(row["portable"])  # both exist in this torch
    same = _cpu_outcome(lambda: cuda(*args)) == _cpu_outcome(lambda: portable(*args))
    assert same == (row["cpu"] == "same"), row.get("why")


@pytest.mark.parametrize("target, forms, why", [
    pytest.param("cann", {"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.current_device",
                          "torch.cuda.set_device", "torch.cuda.synchronize"}, None, id="cann-torch-2.12"),
    pytest.param("cann@2.1-8.0", set(), "runs torch 2.1", id="cann-torch-2.1-predates-it"),
    pytest.param("neuware", set(), "runs torch 2.4", id="neuware-torch-2.4-predates-it"),
])
def test_the_style_is_gated_by_the_targets_torch_line_and_the_vendors_list(target, forms, why):
    chosen = resolve_targets([target])[0]
    assert set(portable_forms(chosen)) == forms
    reason = not_portable(chosen, [("name", "torch.cuda.synchronize", (1, 0), "torch.cuda.synchronize")], set(), True)
    assert (reason is None) if why is None else why in reason


def test_a_file_takes_one_style_whole(fixed):
    _, out = fixed
    portable, vendor = out["cann", "portable"], out["cann", "vendor"]
    assert portable["launch.py"].style == "portable" and "import torch_npu" not in portable["launch.py"].new
    assert "torch.accelerator.set_device_index(local_rank)" in portable["launch.py"].new
    assert "torch.cuda" not in portable["launch.py"].new
    assert portable["train.py"].style == "vendor" and "torch_npu.npu.synchronize()" in portable["train.py"].new
    assert "`cuda` rewritten" in portable["train.py"].style_note
    assert "keyword argument at line 5" in portable["bench.py"].style_note
    assert vendor["launch.py"].new.count("torch_npu.npu.") == 4 and vendor["launch.py"].style_note is None
    # the same edits apply in both styles, only their names differ
    for name in FILES:
        assert portable[name].applied == vendor[name].applied


def test_the_portable_file_runs_as_before_on_the_cpu(fixed, tmp_path):
    root, out = fixed
    (tmp_path / "launch.py").write_text(out["cann", "portable"]["launch.py"].new)
    results = []
    for where, name in ((root / "launch.py", "launch_original"), (tmp_path / "launch.py", "launch_portable")):
        module = _load(where, name)
        results.append([_cpu_outcome(module.count), _cpu_outcome(lambda module=module: module.bind(0)),
                        _cpu_outcome(module.wait)])
    assert results[0] == results[1] == [("returns", 0), ("raises", None), ("raises", None)]


@pytest.mark.parametrize("target, style, device, plugin_import, synchronized", [
    # torch.accelerator.synchronize() passes the current index; torch.mlu.synchronize() passes nothing
    pytest.param("cann", "portable", "npu", False, "0", id="portable-on-npu-by-autoload-alone"),
    pytest.param("neuware", "vendor", "mlu", True, "None", id="vendor-on-mlu"),
])
def test_the_fixed_file_runs_on_the_fake_vendor_runtime(fixed, tmp_path, target, style, device, plugin_import,
                                                        synchronized):
    _, out = fixed
    project = write_tree(tmp_path / "project", {"launch.py": out[target, style]["launch.py"].new})
    assert ("import torch_" in out[target, style]["launch.py"].new) == plugin_import
    run = run_on_npu(write_stub(tmp_path / "stub", device), project, RUN, device=device, plugin_import=False)
    assert run.get("result") == [1, 0, None], run
    assert run["events"] == [["synchronize", synchronized]]



# a cache flush and a memory counter run as written without CUDA (no-ops): in a file `fix` writes in the vendor's
# names they take the device twin (the file's device is the target's now); in a portable file they stay
MEMORY = {
    # timm's validate.py/benchmark.py: a flush before each retry with a smaller batch, beside device moves
    "retry.py": '''\
import torch


def run(model, x):
    torch.cuda.empty_cache()
    out = model.cuda()(x.cuda())
    return [getattr(model, "placed_on", "?"), torch.cuda.max_memory_allocated()]
''',
    "wait.py": "import torch\n\n\ndef wait():\n    torch.cuda.empty_cache()\n    torch.cuda.synchronize()\n",
}


def test_a_no_op_memory_call_takes_the_device_twin_only_where_the_file_names_the_target(tmp_path):
    root = write_tree(tmp_path / "project", MEMORY)
    chosen = resolve_targets(["cann"])
    fixed = {f.path: f for f in fix_report(root, scan(ScanRequest(root, chosen, jobs=1)), chosen[0]).changed}
    retry, wait = fixed["retry.py"], fixed["wait.py"]
    assert retry.style == "vendor" and "torch_npu.npu.empty_cache()" in retry.new
    assert "torch_npu.npu.max_memory_allocated()" in retry.new and "torch.cuda" not in retry.new
    assert wait.style == "portable" and "torch.cuda.empty_cache()" in wait.new  # as written: a no-op off CUDA
    assert "torch.accelerator.synchronize()" in wait.new
    write_tree(root, {"retry.py": retry.new, "wait.py": wait.new})
    run = run_on_npu(write_stub(tmp_path / "stub"), root, '''
        import torch, retry, wait
        wait.wait()
        result = retry.run(torch.nn.Linear(2, 1), torch.ones(1, 2))
    ''', plugin_import=False)
    assert run.get("result") == ["npu", 0], run
    assert ["empty_cache", True] in run["events"]  # the NPU's cache, as the original flushed CUDA's
    wait_module = _load(root / "wait.py", "wait_portable")
    assert _cpu_outcome(wait_module.wait) == _cpu_outcome(_load(tmp_path / "project" / "wait.py", "wait_again").wait)
