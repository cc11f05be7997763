"""Fleet scans: the portfolio arithmetic on rows, the row of a real report, and a LocalCluster end to end."""
import json
import re
import sys

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.fleet.model import RepoBlocker, RepoRow, RepoTarget
from migrator.fleet.portfolio import build_portfolio, unlock_steps
from migrator.fleet.summary import summarise_report
from migrator.maps.load import resolve_targets
from migrator.report.json import to_dict
from migrator.pipeline import ScanRequest, scan

from .conftest import REPO, write_tree
from .test_report_formats import CHROMIUM, _chromium

# ----------------------------------------------------------------------------- realistic small repositories

ROI_ALIGN_CU = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
__global__ void roi_align_forward_kernel(const float* input, const float* rois, float* output, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { output[i] = input[i] * rois[0]; }
}
torch::Tensor roi_align_forward(torch::Tensor input, torch::Tensor rois, int pooled_h, int pooled_w) {
  auto output = torch::zeros_like(input);
  roi_align_forward_kernel<<<1, 256>>>(input.data_ptr<float>(), rois.data_ptr<float>(),
                                       output.data_ptr<float>(), input.numel());
  return output;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("roi_align_forward", &roi_align_forward); }
"""

ROI_ALIGN_PY = '''
import torch
from torch.autograd import Function
from . import _ext


class _RoIAlign(Function):
    @staticmethod
    def forward(ctx, input, rois, output_size):
        return _ext.roi_align_forward(input, rois, output_size[0], output_size[1])


roi_align = _RoIAlign.apply


class RoIAlign(torch.nn.Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x, rois):
        return roi_align(x, rois, self.output_size)
'''

SETUP = '''
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name="{name}", ext_modules=[CUDAExtension("{name}.ops._ext", ["csrc/roi_align_cuda.cu"])],
      cmdclass={{"build_ext": BuildExtension}})
'''

DETECTOR_TRAIN = '''
import torch
from {name}.ops.roi_align import RoIAlign


def main():
    head = RoIAlign((7, 7)).cuda()
    feats = torch.randn(2, 256, 64, 64, device="cuda")
    rois = torch.tensor([[0, 0, 0, 10, 10]], dtype=torch.float, device="cuda")
    out = head(feats, rois)
    torch.cuda.synchronize()
    return out


if __name__ == "__main__":
    main()
'''

LM_TRAIN = '''
import torch
from flash_attn import flash_attn_func


def attention(q, k, v):
    return flash_attn_func(q, k, v, causal=True)


def main():
    q = torch.randn(2, 128, 8, 64, device="cuda", dtype=torch.bfloat16)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = attention(q, q, q)
    print(torch.cuda.max_memory_allocated())


if __name__ == "__main__":
    main()
'''


def detector(root, name):
    return write_tree(root, {
        f"{name}/__init__.py": "", f"{name}/ops/__init__.py": "",
        f"{name}/ops/roi_align.py": ROI_ALIGN_PY.replace("from . import _ext", f"from {name}.ops import _ext"),
        "csrc/roi_align_cuda.cu": ROI_ALIGN_CU, "setup.py": SETUP.format(name=name),
        "tools/train.py": DETECTOR_TRAIN.format(name=name),
    })


def language_model(root):
    return write_tree(root, {"train.py": LM_TRAIN, "requirements.txt": "torch==2.3.0\nflash-attn==2.5.8\n",
                             "data/corrupt.py": b"\xff\xfe\x00def broken(:\n"})


# ----------------------------------------------------------------------------- the row of a real report


def test_a_repository_row_keys_a_custom_op_by_family_and_a_library_by_package(tmp_path):
    report = scan(ScanRequest(detector(tmp_path / "mmdet_lite", "mmdet_lite"), resolve_targets(["cann", "neuware"]),
                              jobs=1))
    row = summarise_report(to_dict(report), "mmdet_lite", str(tmp_path))
    cann = row.target("cann")
    shared = {b.key: b for b in cann.shared_blockers}
    assert "custom-op:roi_align" in shared, [b.key for b in cann.blockers]
    assert shared["custom-op:roi_align"].kind == "custom operator"
    assert not any(b.shared for b in cann.blockers if b.key.startswith("device-"))  # local edits stay local
    lm = scan(ScanRequest(language_model(tmp_path / "lm"), resolve_targets(["cann"]), jobs=1))
    row = summarise_report(to_dict(lm), "lm", str(tmp_path / "lm"))
    assert {b.key for b in row.target("cann").shared_blockers} == {"library:flash_attn"}
    assert row.unreadable_files == sum(1 for f in lm.files if f.status.value != "ok") >= 1


# ----------------------------------------------------------------------------- the portfolio arithmetic


def _row(name, **blockers_by_target):
    """Blocker keys written ``~key`` are not on the repository's training path."""
    targets = tuple(RepoTarget(id=t, runtime=t, version="1", readiness=50.0, counts={}, hours=1.0,
                               blockers=tuple(RepoBlocker(key=k.lstrip("~"), kind="custom operator", title=k,
                                                          status="port", shared=True, reachable=not k.startswith("~"),
                                                          entries=0 if k.startswith("~") else 1, findings=1,
                                                          hours=8.0) for k in keys))
                    for t, keys in blockers_by_target.items())
    return RepoRow(name=name, path=f"/src/{name}", status="ok", targets=targets)


ROWS = [
    _row("detr", cann=["custom-op:ms_deform_attn", "library:apex"]),
    _row("mmdet", cann=["custom-op:roi_align", "custom-op:nms"]),
    _row("mmseg", cann=["custom-op:roi_align"]),
    _row("fairseq", cann=["~library:apex", "~dead"]),
    _row("timm", cann=[]),
    RepoRow(name="broken", path="/src/broken", status="failed", reason="no such path"),
]


def test_shared_blockers_rank_by_repositories_then_training_path():
    cann = build_portfolio(ROWS).targets[0]
    ranked = [(b.key, len(b.repos), len(b.on_training_path)) for b in cann.blockers]
    assert ranked[:3] == [("custom-op:roi_align", 2, 2), ("library:apex", 2, 1), ("custom-op:ms_deform_attn", 1, 1)]
    assert cann.scanned == 5 and cann.free_now == ("timm",)  # the failed row is not counted as scanned
    roi = next(b for b in cann.blockers if b.key == "custom-op:roi_align")
    assert roi.frees_alone == ("mmseg",) and roi.hours == 8.0  # one port serves both repositories
    dead = next(b for b in cann.blockers if b.key == "dead")
    assert dead.on_training_path == ()


def test_a_shared_port_is_counted_once_in_the_fleets_hours():
    """mmdet and mmseg each count roi_align's port (8 h) in their own 10 h: the fleet ports it once, so it
    needs 8 h plus each repository's 2 h of local edits, not 20 h."""
    def repo(name):
        blocker = RepoBlocker(key="custom-op:roi_align", kind="custom operator", title="roi_align", status="port",
                              shared=True, reachable=True, entries=1, findings=3, hours=8.0)
        return RepoRow(name=name, path=f"/src/{name}", status="ok", targets=(
            RepoTarget(id="cann", runtime="cann", version="1", readiness=40.0, counts={}, hours=10.0,
                       blockers=(blocker,)),))
    [cann] = build_portfolio([repo("mmdet"), repo("mmseg")]).targets
    assert (cann.hours, cann.hours_shared_once, cann.blockers[0].hours) == (20.0, 12.0, 8.0)


def test_a_library_the_fleet_holds_is_ported_with_its_repository():
    """mmdet's blocker on the `mmcv` library is the port of mmcv's own kernels when mmcv is in the fleet: its
    hours are mmcv's (counted once, with mmcv), and the row says who provides it."""
    def blocked(name, key, hours, total, packages=()):
        blocker = RepoBlocker(key=key, kind="CUDA library" if key.startswith("library") else "custom operator",
                              title=key, status="port", shared=True, reachable=True, entries=1, findings=1,
                              hours=hours)
        return RepoRow(name=name, path=f"/src/{name}", status="ok", packages=packages, targets=(
            RepoTarget(id="kunlun", runtime="kunlun", version="kl3", readiness=20.0, counts={}, hours=total,
                       blockers=(blocker,)),))
    [kunlun] = build_portfolio([blocked("mmcv", "custom-op:mmcv._ext", 640.0, 646.0, ("mmcv",)),
                                blocked("mmdet", "library:mmcv", 40.0, 70.0)]).targets
    library = next(b for b in kunlun.blockers if b.key == "library:mmcv")
    assert library.provided_by == "mmcv"
    assert kunlun.hours == 716.0 and kunlun.hours_shared_once == 6.0 + 30.0 + 640.0
    assert [(step.port, step.freed) for step in kunlun.unlock] == [(("custom-op:mmcv._ext",), ("mmcv", "mmdet"))]


@pytest.mark.parametrize("needs, expected", [
    pytest.param({"a": set()}, [], id="nothing-to-port"),
    pytest.param({"a": {"x"}, "b": {"x", "y"}}, [(("x",), ("a",), 1, 1), (("y",), ("b",), 2, 2)],
                 id="closest-first"),
    pytest.param({"a": {"x", "y"}, "b": {"x", "y"}, "c": {"z"}},
                 [(("z",), ("c",), 1, 1), (("x", "y"), ("a", "b"), 3, 3)], id="one-step-frees-two"),
    pytest.param({"a": {"p", "q"}, "b": {"q"}, "c": set()}, [(("q",), ("b",), 1, 2), (("p",), ("a",), 2, 3)],
                 id="free-now-counted"),
])
def test_unlock_steps(needs, expected):
    steps = unlock_steps(needs)
    assert [(s.port, s.freed, s.ported_total, s.free_total) for s in steps] == expected


def test_unlock_steps_end_with_every_repository_free():
    cann = build_portfolio(ROWS).targets[0]
    assert cann.unlock[-1].free_total == cann.scanned
    assert cann.unlock[-1].ported_total == len(cann.blockers)


# ----------------------------------------------------------------------------- a LocalCluster end to end

distributed = pytest.importorskip("distributed", reason="the [fleet] extra (dask distributed) is not installed")


@pytest.fixture(scope="module")
def fleet_run(tmp_path_factory):
    from migrator.fleet.run import repo_tasks, run_fleet

    base = tmp_path_factory.mktemp("fleet")
    paths = [detector(base / "mmdet_lite", "mmdet_lite"), detector(base / "mmseg_lite", "mmseg_lite"),
             language_model(base / "nanolm"), base / "gone", write_tree(base / "slow", {"train.py": LM_TRAIN})]
    tasks = repo_tasks([str(p) for p in paths], "cann,neuware", timeout=600, html=True, cache=False)
    tasks[-1] = type(tasks[-1])(**{**tasks[-1].__dict__, "timeout": 0.05})  # killed long before it can finish
    seen = []
    portfolio = run_fleet(tasks, workers=2, reports_dir=base / "out" / "repos", link_base=base / "out",
                          progress=lambda done, total, row: seen.append((done, total, row.name)))
    return base, portfolio, seen


def test_fleet_rows_keep_order_and_reasons(fleet_run):
    _, portfolio, seen = fleet_run
    rows = {r.name: r for r in portfolio.repos}
    assert [r.name for r in portfolio.repos] == ["mmdet_lite", "mmseg_lite", "nanolm", "gone", "slow"]
    assert rows["gone"].status == "failed" and rows["gone"].reason == "no such path"
    assert rows["slow"].status == "timeout" and "0.05 s" in rows["slow"].reason
    assert rows["nanolm"].status == "ok" and rows["nanolm"].unreadable_files == 1
    assert sorted(n for _, _, n in seen) == sorted(rows) and {t for _, t, _ in seen} == {5}
    assert portfolio.scheduler == "LocalCluster (2 workers)"


def test_fleet_ranks_the_shared_custom_op_first(fleet_run):
    _, portfolio, _ = fleet_run
    cann = next(t for t in portfolio.targets if t.id == "cann")
    top = cann.blockers[0]
    assert (top.key, top.repos) == ("custom-op:roi_align", ("mmdet_lite", "mmseg_lite"))
    assert cann.scanned == 3 and cann.unlock[-1].free_total == 3


def test_fleet_json_validates_and_html_links_each_report(fleet_run, tmp_path):
    import jsonschema

    from migrator.fleet.render import render_html, to_dict as fleet_dict

    base, portfolio, _ = fleet_run
    schema = json.loads((REPO / "reports" / "schema" / "fleet.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(json.dumps(fleet_dict(portfolio))), schema)
    page = base / "out" / "fleet.html"
    with page.open("w", encoding="utf-8") as out:
        render_html(portfolio, out)
    html = page.read_text(encoding="utf-8")
    links = re.findall(r'<a href="(repos/[^"]+\.html)">', html)
    assert links == ["repos/mmdet_lite.html", "repos/mmseg_lite.html", "repos/nanolm.html"]
    assert all((base / "out" / link).read_text(encoding="utf-8").startswith("<!DOCTYPE html>") for link in links)
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    dom = _chromium(tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom", f"{page.as_uri()}#sort=cann")
    assert 'data-ready="1"' in dom.stdout, dom.stderr[-2000:]
    order = re.findall(r'<tr data-repo="([^"]+)"', dom.stdout)
    readiness = {r.name: r.target("cann").readiness if r.target("cann") else -1 for r in portfolio.repos}
    assert [readiness[name] for name in order] == sorted(readiness.values(), reverse=True)  # sorted by cann
    assert set(order[-2:]) == {"gone", "slow"}
    assert not re.search(r"Uncaught|SyntaxError|ReferenceError|TypeError", dom.stderr)


def test_fleet_command_writes_text_and_the_html_with_its_reports(tmp_path):
    detector(tmp_path / "det", "det")
    result = CliRunner().invoke(main, ["fleet", str(tmp_path / "det"), str(tmp_path / "nowhere"), "--target", "cann",
                                       "--workers", "1", "--no-cache"])
    assert result.exit_code == 1, result.output  # a repository failed: the portfolio is written, the exit says so
    assert re.search(r"^nowhere +failed: no such path$", result.output, re.M)
    assert "1 of 2 repositories not scanned: nowhere (failed: no such path)" in result.output
    assert "custom operator roi_align [custom operator]: blocks 1" in result.output
    out = tmp_path / "plan.html"
    result = CliRunner().invoke(main, ["fleet", str(tmp_path / "det"), "--target", "cann", "--workers", "1",
                                       "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "plan-repos" / "det.html").is_file() and 'href="plan-repos/det.html"' in out.read_text()


def test_a_scheduler_no_worker_joins_fails_fast_and_says_so(tmp_path):
    """A scheduler with no workers once held the fleet for the longest task timeout (30 minutes by default) in
    silence: within --no-worker-wait it exits 1 and says what to do."""
    from distributed import LocalCluster

    detector(tmp_path / "det", "det")
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        result = CliRunner().invoke(main, ["fleet", str(tmp_path / "det"), "--scheduler", cluster.scheduler_address,
                                           "--no-worker-wait", "0.5", "--no-cache"])
    assert result.exit_code == 1, result.output
    assert f"no worker joined the scheduler {cluster.scheduler_address} within 0.5 s" in result.output


def test_fleet_without_dask_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    result = CliRunner().invoke(main, ["fleet", str(tmp_path)])
    assert result.exit_code == 2
    assert "pip install 'migrator-accel[fleet]'" in result.output


def _scans_of(repo) -> list:
    """Pids of live processes whose command line names ``repo`` (the fleet's scan children)."""
    from pathlib import Path

    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(repo) in (proc / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find orphaned scans")
def test_a_fleet_whose_only_worker_is_killed_ends_and_leaves_nothing_behind(tmp_path):
    """A real `dask worker` process, SIGKILLed while its repository is being scanned: the run does not wait
    forever for a worker that never comes (the row says so), and the task's scan and temporary folder go too."""
    import os
    import signal
    import subprocess
    import threading
    import time

    from distributed import Client, LocalCluster

    from migrator.fleet.run import repo_tasks, run_fleet

    big = "import torch\n\n" + "".join(f"def f{i}(x):\n    return torch.relu(x.cuda()) + {i}\n\n" for i in range(60))
    repo = write_tree(tmp_path / "busy", {f"pkg/m{n}.py": big for n in range(300)})
    temp = tmp_path / "tmp"
    temp.mkdir()
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        worker = subprocess.Popen(["dask", "worker", cluster.scheduler_address, "--nworkers", "1", "--nthreads", "1",
                                   "--no-nanny", "--no-dashboard"], env={**os.environ, "TMPDIR": str(temp)},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with Client(cluster.scheduler_address) as client:
                client.wait_for_workers(1, timeout=60)
            tasks = repo_tasks([str(repo)], "cann", timeout=600, html=False, cache=False)
            result = {}
            run = threading.Thread(target=lambda: result.update(p=run_fleet(
                tasks, scheduler=cluster.scheduler_address, no_worker_timeout=2)))
            run.start()
            deadline = time.monotonic() + 60
            while not _scans_of(repo) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _scans_of(repo), "the scan never started"
            worker.send_signal(signal.SIGKILL)
            run.join(timeout=60)
        finally:
            worker.kill()
            worker.wait()
    assert not run.is_alive(), "the fleet waited for a worker that never came"
    [row] = result["p"].repos
    assert row.status == "failed" and "no live worker" in row.reason
    deadline = time.monotonic() + 10
    while (_scans_of(repo) or list(temp.glob("migrator-fleet-*"))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _scans_of(repo), "the killed worker's scan is still running"
    assert not list(temp.glob("migrator-fleet-*")), "the killed worker's temporary folder is still there"


def test_repositories_whose_names_slug_alike_get_distinct_pages():
    """``a b``, ``a?b`` and ``a_b`` (and ``Repo``/``repo`` on a case-blind file system) once shared one page: the
    last repository's report overwrote the others'."""
    from migrator.fleet.run import _slug

    names = ["a b", "a?b", "a_b", "Repo", "repo", "..", ".hidden", "x" * 300]
    slugs = [_slug(name) for name in names]
    assert len({slug.lower() for slug in slugs}) == len(names)
    assert all(slug and "/" not in slug and not slug.startswith(".") and len(slug) < 120 for slug in slugs)
    assert _slug("nanolm") == "nanolm"  # a plain name keeps its page
