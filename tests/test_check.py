"""migrator check: configuration, baseline stability, suppressions, cache, pool determinism, pre-commit."""
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrator.engine.cache import AnalysisCache, cache_salt
from migrator.cli import main
from migrator.maps.load import resolve_targets
from migrator.report.json import render as render_json
from migrator.pipeline import ScanRequest, scan

from .conftest import REPO, write_tree

TRAIN = ("import torch\n"
         "import torch.distributed as dist\n\n\n"
         "def setup():\n"
         "    dist.init_process_group('nccl')\n\n\n"
         "def step(batch, steps_done=0):\n"
         "    return batch.cuda()\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    write_tree(tmp_path, {"pyproject.toml": '[tool.migrator]\ntargets = ["cann"]\n', "train.py": TRAIN})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, ["check", "--no-cache", *args], catch_exceptions=False)


def test_findings_fail_with_linter_lines(repo):
    result = run("train.py")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("train.py:6:5: collective-backend [*] [cann:rewrite] collective backend 'nccl'")
    assert lines[1].startswith("train.py:10:12: device-move [*] [cann:rewrite]")
    assert lines[-1] == ("migrator: 2 new, 0 in baseline, 0 suppressed, 0 fixed; "
                         "2 can be fixed with `migrator fix PATH --target cann`")


def test_a_clean_check_says_so_in_one_line_and_quiet_says_nothing(repo):
    (repo / "ok.py").write_text("import torch\nx = torch.ones(2).to('cpu')\n")
    result = run("ok.py")
    assert result.exit_code == 0 and result.output == "migrator: clean: 1 file checked for cann, no new finding\n"
    assert run("ok.py", "-q").output == ""


@pytest.mark.parametrize("config, words", [
    pytest.param('[tool.migrator]\ntarget = ["cann"]\n', "unknown key 'target'", id="unknown-key"),
    pytest.param('[tool.migrator]\nfail-on = ["broken"]\n', "unknown status 'broken'", id="bad-status"),
    pytest.param('[tool.migrator]\ntargets = ["tpu"]\n', "unknown target 'tpu'", id="bad-target"),
    pytest.param('[tool.migrator]\nexclude = 3\n', "must be a string or a list", id="bad-type"),
    pytest.param('[tool.migrator\n', "not valid TOML", id="bad-toml"),
    pytest.param("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply", id="deep-array"),
])
def test_config_errors_exit_2_and_name_the_problem(repo, config, words):
    (repo / "pyproject.toml").write_text(config)
    result = CliRunner().invoke(main, ["check", "--no-cache", "train.py"])
    assert result.exit_code == 2
    assert words in result.output


def test_config_found_by_walking_up_and_flags_override(repo):
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    (repo / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nfail-on = ["port"]\n')
    assert run("pkg/mod.py").exit_code == 0  # rewrite is not a failing status here
    assert run("--fail-on", "rewrite", "pkg/mod.py").exit_code == 1
    (repo / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nexclude = ["pkg"]\n')
    assert run("pkg/mod.py").exit_code == 0


@pytest.mark.parametrize("edit", [
    pytest.param(lambda s: "import os\n# a new comment\n\n" + s, id="lines-inserted-above"),
    pytest.param(lambda s: s.replace("def setup", "def other():\n    unused_name = 1\n\n\ndef setup"),
                 id="function-added-above"),
    pytest.param(lambda s: s.replace("steps_done", "completed"), id="unrelated-variable-renamed"),
    pytest.param(lambda s: s.split("def step")[0].replace("def setup", "def step(batch, steps_done=0):\n"
                                                          "    return batch.cuda()\n\n\ndef setup"),
                 id="function-moved"),
])
def test_baseline_survives_edits(repo, edit):
    assert run("--write-baseline").exit_code == 0
    baseline = json.loads((repo / ".migrator-baseline.json").read_text())
    assert [e["rule"] for e in baseline["findings"]] == ["collective-backend", "device-move"]
    (repo / "train.py").write_text(edit(TRAIN))
    result = run()
    assert result.exit_code == 0, result.output


def test_new_finding_fails_fixed_is_reported_and_pruned(repo):
    run("--write-baseline")
    (repo / "train.py").write_text(TRAIN.replace("dist.init_process_group('nccl')", "dist.init_process_group('gloo')")
                                   + "\ndef sync():\n    import torch\n    torch.cuda.synchronize()\n")
    result = run()
    assert result.exit_code == 1
    assert "device-call" in result.output and "collective-backend torch.distributed.init_process_group: fixed" \
        in result.output
    assert run("--write-baseline").exit_code == 0
    baseline = json.loads((repo / ".migrator-baseline.json").read_text())
    assert sorted(e["rule"] for e in baseline["findings"]) == ["device-call", "device-move"]


def test_baseline_file_is_sorted_and_stable(repo):
    run("--write-baseline")
    first = (repo / ".migrator-baseline.json").read_text()
    run("--write-baseline")
    assert (repo / ".migrator-baseline.json").read_text() == first
    entries = json.loads(first)["findings"]
    assert entries == sorted(entries, key=lambda e: (e["path"], e["rule"], e["api"], e["id"]))


@pytest.mark.parametrize("code, failing", [
    pytest.param("import torch\nx = torch.ones(2).cuda()  # migrator: ignore\n", 0, id="line"),
    pytest.param("import torch\nx = torch.ones(2).cuda()  # migrator: ignore[device-move]\n", 0, id="rule-listed"),
    pytest.param("import torch\nx = torch.ones(2).cuda()  # migrator: ignore[device-call]\n", 1, id="other-rule"),
    pytest.param("import torch\n# migrator: ignore[device-argument]\nx = torch.zeros(\n    3, device='cuda')\n", 0,
                 id="line-above-multiline"),
    pytest.param("# migrator: ignore-file\nimport torch\nx = torch.ones(2).cuda()\ntorch.cuda.synchronize()\n", 0,
                 id="whole-file"),
])
def test_suppressions(repo, code, failing):
    (repo / "mod.py").write_text(code)
    result = run("mod.py")
    assert result.output.count("mod.py:") == failing, result.output


def test_unused_suppression_is_reported_on_request(repo):
    (repo / "mod.py").write_text("import torch\nx = 1  # migrator: ignore\ny = torch.ones(2).cuda()  # migrator: "
                                 "ignore\n")
    assert "unused" not in run("mod.py").output
    result = run("--report-unused-suppressions", "mod.py")
    assert "mod.py:2: unused suppression" in result.output and "mod.py:3" not in result.output


def test_check_json_and_sarif(repo):
    data = json.loads(run("--format", "json", "train.py").output)
    assert data["schema"] == "migrator.report/1" and len(data["findings"]) == 2
    sarif = json.loads(run("--format", "sarif", "train.py").output)
    assert sarif["version"] == "2.1.0"
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"collective-backend", "device-move"}


# -------------------------------------------------------------------------------------------- cache


def test_cache_hits_misses_and_invalidation(tmp_path):
    cache = AnalysisCache(tmp_path / "cache", salt="s1")
    source = write_tree(tmp_path / "src", {"m.py": "import torch\ntorch.cuda.synchronize()\n"}) / "m.py"
    from migrator.analyze import analyze_file
    from migrator.model import FileKind, SourceFile

    sf = SourceFile(str(source), "m.py", FileKind.PYTHON, source.stat().st_size)
    first = analyze_file(sf, cache)
    key = cache.key("m.py", "python", source.read_bytes())
    assert cache.get(key) == first
    source.write_text("import torch\ntorch.cuda.empty_cache()\n")  # file change: new key
    assert cache.get(cache.key("m.py", "python", source.read_bytes())) is None
    assert analyze_file(sf, cache).usages[0].api == "torch.cuda.empty_cache"
    other = AnalysisCache(tmp_path / "cache", salt="s2")  # tool or map version change: new salt
    assert other.get(other.key("m.py", "python", source.read_bytes())) is None


def test_cache_salt_follows_tool_version_and_maps(monkeypatch, tmp_path):
    import migrator.engine.cache as cache_module

    before = cache_salt()
    monkeypatch.setattr(cache_module, "__version__", "9.9.9")
    assert cache_salt() != before
    monkeypatch.undo()
    maps = tmp_path / "maps"
    shutil.copytree(REPO / "operator_maps", maps)
    monkeypatch.setattr(cache_module, "maps_dir", lambda: maps)
    cache_module.maps_digest.cache_clear()
    original = cache_module.maps_digest()
    (maps / "tensor_methods.json").write_text((maps / "tensor_methods.json").read_text().replace("masked_fill", "x"))
    cache_module.maps_digest.cache_clear()
    assert cache_module.maps_digest() != original
    cache_module.maps_digest.cache_clear()


def test_cache_salt_follows_a_change_anywhere_in_the_package(tmp_path):
    """An edit to any module (the model's classes, a rule) makes a new salt, not only one to the cache's own
    folder: a cached report pickled with other classes would load with their fields missing."""
    import migrator

    package = tmp_path / "migrator"
    shutil.copytree(Path(migrator.__file__).resolve().parent, package,
                    ignore=shutil.ignore_patterns("__pycache__", "_data"))

    def digest() -> str:
        done = subprocess.run([sys.executable, "-c", "from migrator.engine.cache import code_digest; "
                               "print(code_digest())"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    before = digest()
    model = package / "model.py"
    model.write_text(model.read_text() + "\n# an edit\n")
    assert digest() != before


def test_corrupt_cache_entry_is_a_miss(tmp_path):
    cache = AnalysisCache(tmp_path, salt="s")
    key = cache.key("a.py", "python", b"x")
    path = tmp_path / key[:2] / f"{key[2:]}.pkl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a pickle")
    assert cache.get(key) is None


class _Exploit:
    """A crafted cache entry: unpickling it would run a shell command."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_crafted_cache_entry_runs_nothing_and_is_a_miss(tmp_path):
    import pickle

    cache = AnalysisCache(tmp_path / "cache", salt="s")
    key = cache.key("a.py", "python", b"x")
    path = tmp_path / "cache" / key[:2] / f"{key[2:]}.pkl"
    path.parent.mkdir(parents=True)
    marker = tmp_path / "pwned"
    path.write_bytes(pickle.dumps(_Exploit(marker)))
    assert cache.get(key) is None
    assert not marker.exists()
    pickle.loads(path.read_bytes())  # the same bytes through the plain loader do run it: the test can fail
    assert marker.exists()


def test_cache_is_pruned_to_its_bound(tmp_path):
    cache = AnalysisCache(tmp_path, salt="s", max_bytes=2000)
    from migrator.model import FileKind, FileResult, FileStatus, SourceFile

    for i in range(40):
        cache.put(cache.key(f"f{i}.py", "python", b"x"), FileResult(SourceFile("p", f"f{i}.py", FileKind.PYTHON, 1),
                                                                     FileStatus.OK, reason="r" * 100))
    assert cache.prune() > 0
    assert sum(p.stat().st_size for p in tmp_path.rglob("*.pkl")) <= 2000


def test_scans_check_the_cache_size_at_most_every_ten_minutes(tmp_path):
    import os
    import time

    from migrator.engine.cache import PRUNE_EVERY
    from migrator.model import FileKind, FileResult, FileStatus, SourceFile

    cache = AnalysisCache(tmp_path, salt="s", max_bytes=2000)

    def fill(start):
        for i in range(start, start + 40):
            cache.put(cache.key(f"f{i}.py", "python", b"x"),
                      FileResult(SourceFile("p", f"f{i}.py", FileKind.PYTHON, 1), FileStatus.OK, reason="r" * 100))

    fill(0)
    assert cache.prune_if_due() > 0  # never pruned: prunes now
    fill(40)
    assert cache.prune_if_due() == 0  # pruned a moment ago: the size is not checked again yet
    past = time.time() - PRUNE_EVERY - 1
    os.utime(tmp_path / "last-prune", (past, past))
    assert cache.prune_if_due() > 0
    assert sum(p.stat().st_size for p in tmp_path.rglob("*.pkl")) <= 2000


def test_pool_and_single_process_reports_are_identical(tmp_path):
    files = {f"pkg/m{i}.py": TRAIN.replace("batch", f"b{i}") for i in range(45)}
    files["pkg/__init__.py"] = ""
    write_tree(tmp_path, files)
    targets = resolve_targets(None)
    single, pooled = io.StringIO(), io.StringIO()
    render_json(scan(ScanRequest(tmp_path, targets, jobs=1)), single)
    render_json(scan(ScanRequest(tmp_path, targets, jobs=2)), pooled)
    assert single.getvalue() == pooled.getvalue()


# --------------------------------------------------------------------------------------- pre-commit


def test_pre_commit_hook_through_the_real_client(tmp_path):
    if shutil.which("pre-commit") is None or shutil.which("git") is None:
        pytest.skip("pre-commit and git are needed")
    if not (REPO / ".git").exists():
        pytest.skip("the hook is tried from a git checkout of migrator")
    project = write_tree(tmp_path / "project", {"pyproject.toml": '[tool.migrator]\ntargets = ["cann"]\n',
                                                "train.py": TRAIN, "clean.py": "import torch\nx = torch.ones(1)\n"})
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "PATH": __import__("os").environ["PATH"],
           "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True, env=env)

    def try_repo(*files):
        return subprocess.run(["pre-commit", "try-repo", str(REPO), "migrator-check", "--files", *files],
                              cwd=project, capture_output=True, text=True, env=env, timeout=600)

    passed = try_repo("clean.py")  # (the first run installs the hook's environment; the second reuses it)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    # the hook hands over scripts, Dockerfiles and requirements too (NVIDIA images, CUDA wheels, CUDA variables)
    (project / "Dockerfile").write_text("FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\n")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True, env=env)
    failed = try_repo("train.py", "Dockerfile", "clean.py")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "train.py:6:5: collective-backend [*] [cann:rewrite]" in failed.stdout
    assert "Dockerfile:1" in failed.stdout and "clean.py" not in failed.stdout, failed.stdout


def test_cached_rule_results_follow_the_cross_file_facts(tmp_path):
    """A file's findings come from the cache only while the constants, extensions and modules of the
    whole project that its rules read are unchanged: a backend constant edited in another file re-judges it."""
    from migrator.engine.cache import open_cache
    from migrator.maps.load import resolve_targets

    write_tree(tmp_path / "src", {"settings.py": "BACKEND = 'nccl'\n",
                                  "train.py": "import torch.distributed as dist\nfrom settings import BACKEND\n"
                                              "dist.init_process_group(backend=BACKEND)\n"})
    cache = open_cache(tmp_path / "cache")
    targets = resolve_targets(["cann"])

    def backend_findings():
        report = scan(ScanRequest(tmp_path / "src", targets, jobs=1, cache=cache))
        return [f for f in report.findings if f.path == "train.py" and f.rule == "collective-backend"]

    first = backend_findings()
    assert first and first == backend_findings()  # the second scan reads the cached rule results
    (tmp_path / "src" / "settings.py").write_text("BACKEND = 'gloo'\n")
    assert backend_findings() == []  # train.py did not change; its verdict did


def test_an_edit_runs_again_only_the_rules_whose_reads_of_the_index_changed(tmp_path, monkeypatch):
    """A constant added to one module changes the project index, not what the other files' rules asked of it:
    their findings come from the cache; changing the constant a file reads judges that file again."""
    import migrator.pipeline.memo as memo
    from migrator.engine.cache import open_cache

    src = write_tree(tmp_path / "src", {
        "settings.py": "BACKEND = 'nccl'\n",
        "train.py": "import torch.distributed as dist\nfrom settings import BACKEND\n"
                    "dist.init_process_group(backend=BACKEND)\n",
        "util.py": "import torch\n\n\ndef sync():\n    torch.cuda.synchronize()\n"})
    cache = open_cache(tmp_path / "cache")
    targets = resolve_targets(["cann"])
    judged = []
    real = memo.rule_results
    monkeypatch.setattr(memo, "rule_results", lambda result, ctx: judged.append(result.file.rel)
                        or real(result, ctx))

    scan(ScanRequest(src, targets, jobs=1, cache=cache))
    assert sorted(judged) == ["settings.py", "train.py", "util.py"]
    del judged[:]
    (src / "settings.py").write_text("BACKEND = 'nccl'\nLOG_DIR = 'runs'\n")
    edited = scan(ScanRequest(src, targets, jobs=1, cache=cache))
    assert judged == ["settings.py"]
    assert edited == scan(ScanRequest(src, targets, jobs=1, cache=None))
    del judged[:]
    (src / "settings.py").write_text("BACKEND = 'gloo'\nLOG_DIR = 'runs'\n")
    edited = scan(ScanRequest(src, targets, jobs=1, cache=cache))
    assert "train.py" in judged and "util.py" not in judged
    assert not [f for f in edited.findings if f.rule == "collective-backend"]


def test_rules_a_pool_worker_ran_are_checked_against_the_whole_index(tmp_path):
    """A pool worker runs each file's rules before the whole index exists (it knows the modules, not the
    constants), and caches them with what they read of it; a file whose verdict hangs on another module's
    constant is judged again once the index is built, and the report is the one a single process makes
    without a cache."""
    from migrator.engine.cache import open_cache

    files = {f"pkg/m{i}.py": "import torch.distributed as dist\nfrom pkg.settings import BACKEND\n"
                             f"def setup{i}():\n    dist.init_process_group(backend=BACKEND)\n" for i in range(45)}
    files.update({"pkg/__init__.py": "", "pkg/settings.py": "BACKEND = 'nccl'\n"})
    src = write_tree(tmp_path / "src", files)
    targets = resolve_targets(["cann"])
    single, pooled = io.StringIO(), io.StringIO()
    render_json(scan(ScanRequest(src, targets, jobs=1)), single)
    report = scan(ScanRequest(src, targets, jobs=2, cache=open_cache(tmp_path / "cache")))
    render_json(report, pooled)
    assert single.getvalue() == pooled.getvalue()
    assert len([f for f in report.findings if f.rule == "collective-backend" and f.path != "pkg/settings.py"]) == 45


def test_a_pooled_scan_whose_worker_rules_hold_never_loads_the_usages_in_the_main_process(tmp_path, monkeypatch):
    """The usages stay as the workers pickled them: the main process judges from the rule results the workers
    cached (transformers' peak: 500 -> 366 MiB)."""
    from migrator.engine.cache import LazyUsages, open_cache

    files = {f"pkg/m{i}.py": TRAIN.replace("batch", f"b{i}") for i in range(45)}
    files["pkg/__init__.py"] = ""
    src = write_tree(tmp_path / "src", files)
    targets = resolve_targets(["cann"])
    expected = scan(ScanRequest(src, targets, jobs=1))
    loaded = []
    real = LazyUsages._loaded
    monkeypatch.setattr(LazyUsages, "_loaded", lambda self: loaded.append(self) or real(self))
    assert scan(ScanRequest(src, targets, jobs=2, cache=open_cache(tmp_path / "cache"))) == expected
    assert loaded == []


def test_an_unchanged_repository_gets_its_whole_report_from_the_cache(tmp_path, monkeypatch):
    """The cross-file work reads only the files, the targets, the entry points and the packaging files: while
    none of them changes, the report comes back whole; any one of them changing judges the repository again."""
    import migrator.pipeline.flow as flow
    from migrator.engine.cache import open_cache

    src = write_tree(tmp_path / "src", {"train.py": TRAIN, "pyproject.toml": "[project]\nname = 'demo'\n"})
    cache = open_cache(tmp_path / "cache")
    cann, both = resolve_targets(["cann"]), resolve_targets(["cann", "neuware"])
    judged = []
    real_judge = flow._across_files
    monkeypatch.setattr(flow, "_across_files", lambda *a, **k: judged.append(1) or real_judge(*a, **k))

    first = scan(ScanRequest(src, cann, jobs=1, cache=cache))
    assert scan(ScanRequest(src, cann, jobs=1, cache=cache)) == first and len(judged) == 1
    assert scan(ScanRequest(src, both, jobs=1, cache=cache)) != first and len(judged) == 2  # other targets
    (src / "pyproject.toml").write_text("[project]\nname = 'demo'\n[project.scripts]\ndemo = 'train:main'\n")
    scan(ScanRequest(src, cann, jobs=1, cache=cache))
    assert len(judged) == 3  # a console script is an entry point: reachability may change
    (src / "train.py").write_text(TRAIN.replace("nccl", "gloo"))
    changed = scan(ScanRequest(src, cann, jobs=1, cache=cache))
    assert len(judged) == 4 and not any(f.rule == "collective-backend" for f in changed.findings)
    assert scan(ScanRequest(src, cann, jobs=1, cache=None)) == changed  # what the cache serves is what a scan finds


def test_a_check_of_every_file_never_stands_in_for_a_scan(tmp_path):
    """The files ``check`` hands over can be every file of the repository; its report (no call graph, its
    suppressed findings kept) must not be kept where a scan of that repository finds its whole report."""
    from migrator.discover import discover
    from migrator.engine.cache import open_cache

    src = write_tree(tmp_path / "src", {"train.py": TRAIN})
    cache, targets = open_cache(tmp_path / "cache"), resolve_targets(["cann"])
    checked = scan(ScanRequest(src, targets, files=discover(src).files, call_graph=False, suppress=False, jobs=1,
                               cache=cache))
    scanned = scan(ScanRequest(src, targets, jobs=1, cache=cache))
    assert checked.graph is None and scanned.graph is not None
    assert scanned == scan(ScanRequest(src, targets, jobs=1))


def test_a_cached_file_loads_its_usages_only_when_its_rules_run_again(tmp_path, monkeypatch):
    """After an edit, the other files come from the cache with their usages unread: the cross-file stages
    (extension builds, autograd functions, the mixed-precision rule) see the few kept apart for them, and the
    report is the one a scan without a cache makes."""
    from migrator.engine.cache import LazyUsages, open_cache

    files = {
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"
                    "ext = CUDAExtension('fused_ops', ['fused.cu'])\n",
        "fused.cu": "__global__ void scale_kernel(float* x) { x[0] *= 2.0f; }\n",
        "ops.py": "import torch\nimport fused_ops\n\n\nclass Scale(torch.autograd.Function):\n"
                  "    @staticmethod\n    def forward(ctx, x):\n        return fused_ops.scale(x)\n",
        "train.py": "import torch\nfrom ops import Scale\nmodel = torch.nn.Linear(2, 2).cuda()\n"
                    "opt = torch.optim.AdamW(model.parameters())\nScale.apply(model(torch.ones(2).cuda())).sum()\n",
        "util.py": "import torch\n\n\ndef sync():\n    torch.cuda.synchronize()\n",
    }
    src = write_tree(tmp_path / "src", files)
    cache = open_cache(tmp_path / "cache")
    targets = resolve_targets(["cann"])
    scan(ScanRequest(src, targets, jobs=1, cache=cache))
    (src / "util.py").write_text(files["util.py"] + "\n\ndef more():\n    torch.cuda.empty_cache()\n")
    loaded = []
    real = LazyUsages._loaded
    monkeypatch.setattr(LazyUsages, "_loaded", lambda self: loaded.append(self) or real(self))
    edited = scan(ScanRequest(src, targets, jobs=1, cache=cache))
    assert loaded == []  # util.py was analysed again; no other file's usages were read
    assert edited == scan(ScanRequest(src, targets, jobs=1, cache=None))
    assert {"extension-call", "no-mixed-precision", "device-call"} <= {f.rule for f in edited.judged}
    assert edited.custom_ops and edited.custom_ops[0].wrappers  # the autograd function wraps the extension


def test_crafted_usages_in_a_cache_entry_run_nothing(tmp_path):
    import os
    import pickle

    from migrator.engine.cache import LazyUsages

    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    usages = LazyUsages(pickle.dumps((Evil(),)), 1)
    assert len(usages) == 1 and tuple(usages) == () and not marker.exists()


def test_loaded_usages_drop_their_bytes_and_still_pickle_as_what_they_hold():
    """A file whose rules run again loads its usages; holding the bytes too would double them."""
    import io
    import pickle

    import libcst

    from migrator.engine.cache import LazyUsages, _ResultUnpickler
    from migrator.maps.load import tensor_methods
    from migrator.resolve import resolve_module
    from migrator.rules import VOCABULARY

    code = "import torch\nx = torch.ones(2).cuda()\ntorch.cuda.synchronize()\n"
    _, found = resolve_module(libcst.parse_module(code), "m", False, tensor_methods(), VOCABULARY, source=code)
    usages = LazyUsages.of(found)
    assert tuple(usages) == found and usages._blob == b"" and len(usages) == len(found) >= 2
    again = _ResultUnpickler(io.BytesIO(pickle.dumps(usages))).load()
    assert isinstance(again, LazyUsages) and tuple(again) == found


def test_which_plain_files_name_a_repo_extension_is_remembered_across_scans(tmp_path, monkeypatch):
    """A file that names nothing a rule looks for is not resolved, unless it names one of the repo's own
    extensions (``fused_ops``, which no fixed pattern knows): which files do is kept in the cache, so a
    scan after an unrelated edit reads none of them again, and one that starts naming it is resolved."""
    import migrator.analyze as analyze_module
    from migrator.engine.cache import open_cache

    files = {
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"
                    "ext = CUDAExtension('fused_ops', ['fused.cu'])\n",
        "fused.cu": "__global__ void scale_kernel(float* x) { x[0] *= 2.0f; }\n",
        "helpers.py": "import fused_ops\n\n\ndef scale(x):\n    return fused_ops.scale(x)\n",
        "plain.py": "def add(a, b):\n    return a + b\n",
        "util.py": "import torch\n\n\ndef sync():\n    torch.cuda.synchronize()\n",
    }
    src = write_tree(tmp_path / "src", files)
    cache = open_cache(tmp_path / "cache")
    targets = resolve_targets(["cann"])
    read = []
    real = analyze_module._bytes_of
    monkeypatch.setattr(analyze_module, "_bytes_of", lambda source: read.append(source.rel) or real(source))

    def extension_calls():
        report = scan(ScanRequest(src, targets, jobs=1, cache=cache))
        return sorted({f.path for f in report.findings if f.rule == "extension-call"})

    assert extension_calls() == ["helpers.py"] and "plain.py" in read
    assert read.count("helpers.py") == 1  # searched and resolved from one read
    (src / "util.py").write_text(files["util.py"] + "# edited\n")
    read.clear()
    assert extension_calls() == ["helpers.py"] and "plain.py" not in read
    (src / "plain.py").write_text(files["plain.py"] + "\n\ndef scaled(x):\n    import fused_ops\n"
                                                     "    return fused_ops.scale(x)\n")
    assert extension_calls() == ["helpers.py", "plain.py"]
    assert scan(ScanRequest(src, targets, jobs=1, cache=cache)) == scan(ScanRequest(src, targets, jobs=1, cache=None))


@pytest.mark.parametrize("findings", [
    pytest.param("[1, 2]", id="entries-not-objects"),
    pytest.param('[{"id": "abc"}]', id="entry-missing-fields"),
    pytest.param('{"id": "abc"}', id="findings-not-a-list"),
])
def test_a_malformed_baseline_is_a_usage_error_not_new_findings(repo, findings):
    from migrator.gate.baseline import SCHEMA

    (repo / ".migrator-baseline.json").write_text(f'{{"schema": "{SCHEMA}", "findings": {findings}}}')
    result = CliRunner().invoke(main, ["check", "train.py", "--no-cache"])
    assert result.exit_code == 2 and "not a migrator baseline" in result.output


def test_check_skips_a_file_over_the_size_cap_instead_of_reading_it(repo):
    from migrator.discover import MAX_FILE_BYTES

    (repo / "big.py").write_text("import torch\ntorch.cuda.synchronize()\n" + "x = 1\n" * (MAX_FILE_BYTES // 6 + 10))
    result = CliRunner().invoke(main, ["check", "big.py", "--no-cache"])
    # nothing read (the cap holds for `check` too), and a gate that could not read a file does not pass it
    assert result.exit_code == 1 and "device-call" not in result.output and "not checked" in result.output


def test_a_file_edited_during_a_scan_never_leaves_its_other_version_in_the_cache(tmp_path, monkeypatch):
    """The main process keys a file by the bytes it read; the analysis reads it again. When an editor saved in
    between, the results are filed under the bytes analysed, so a later scan of either version reads its own."""
    import migrator.analyze as analyze
    from migrator.engine.cache import AnalysisCache

    v1 = "import torch\ntorch.cuda.synchronize()\n"
    v2 = "import torch\nx = torch.ones(2).cuda()\n"
    (tmp_path / "repo").mkdir()
    train = tmp_path / "repo" / "train.py"
    train.write_text(v1)
    cache = AnalysisCache(tmp_path / "cache", cache_salt())
    real_read, reads = analyze.read_source, []

    def saved_meanwhile(path):
        reads.append(path)
        if len(reads) == 2:  # the analysis, after the key was taken: the editor has saved v2
            train.write_text(v2)
        return real_read(path)

    monkeypatch.setattr(analyze, "read_source", saved_meanwhile)
    targets = resolve_targets(["cann"])
    during = scan(ScanRequest(tmp_path / "repo", targets, jobs=1, cache=cache))
    assert [f.api for f in during.findings] == ["torch.Tensor.cuda"]  # what was analysed: v2
    monkeypatch.setattr(analyze, "read_source", real_read)
    train.write_text(v1)
    request = ScanRequest(tmp_path / "repo", targets, jobs=1, cache=cache)
    assert [f.api for f in scan(request).findings] == ["torch.cuda.synchronize"]
    train.write_text(v2)
    assert [f.api for f in scan(request).findings] == ["torch.Tensor.cuda"]


def test_the_cache_folder_is_created_private(tmp_path):
    import stat

    cache = AnalysisCache(tmp_path / "cache", cache_salt())
    cache.put("ab" * 32, ("train.py",))
    for folder in (tmp_path / "cache", tmp_path / "cache" / "ab"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert cache.get_paths("ab" * 32) == ("train.py",)


def test_a_file_check_cannot_read_fails_the_gate(tmp_path, monkeypatch):
    """ruff's convention: a syntax error is a failure, not a silent pass (a gate that cannot read a file would
    let anything in it through)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("import torch\ndef (:\n    torch.cuda.synchronize()\n", encoding="utf-8")
    (tmp_path / "good.py").write_text("import torch\nx = torch.ones(2)\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "bad.py", "good.py", "--no-cache"])
    assert result.exit_code == 1
    assert "bad.py: error: not checked: syntax error at line 2" in result.output and "1 not checked" in result.output
    assert CliRunner().invoke(main, ["check", "good.py", "--no-cache"]).exit_code == 0
    sarif = CliRunner().invoke(main, ["check", "bad.py", "--no-cache", "--format", "sarif"])
    (note,) = json.loads(sarif.output)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert sarif.exit_code == 1 and note["level"] == "error" and "syntax error" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"


def test_check_reads_stdin_as_the_file_its_filename_names(tmp_path, monkeypatch):
    """An editor hands its buffer on stdin: `-` with --stdin-filename gives findings under that name, with
    the project's configuration, suppressions and baseline."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\n', encoding="utf-8")
    code = "import torch\nx = torch.ones(2).cuda()\ntorch.cuda.synchronize()  # migrator: ignore\n"
    runner = CliRunner()
    result = runner.invoke(main, ["check", "-", "--stdin-filename", "src/train.py", "--no-cache"], input=code)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("src/train.py:2:5: device-move [*] [cann:rewrite]")
    assert "synchronize" not in result.output  # the buffer's own suppression holds
    assert not (tmp_path / "src").exists()  # nothing written into the project
    clean = runner.invoke(main, ["check", "-", "--no-cache"], input="import torch\nx = torch.ones(2)\n")
    assert clean.exit_code == 0 and clean.output.startswith("migrator: clean: 1 file checked")
    both = runner.invoke(main, ["check", "-", "train.py"], input=code)
    assert both.exit_code == 2


def test_quiet_prints_the_failing_lines_only_and_verbose_what_was_let_through(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n"
                                       "torch.cuda.synchronize()  # migrator: ignore\n", encoding="utf-8")
    runner = CliRunner()
    normal = runner.invoke(main, ["check", "train.py", "--no-cache", "--target", "cann"]).output.splitlines()
    quiet = runner.invoke(main, ["check", "train.py", "--no-cache", "--target", "cann", "-q"]).output.splitlines()
    verbose = runner.invoke(main, ["check", "train.py", "--no-cache", "--target", "cann", "-v"]).output.splitlines()
    assert normal[-1].startswith("migrator: 1 new, 0 in baseline, 1 suppressed")
    assert quiet == normal[:-1] and len(quiet) == 1
    assert any(line.startswith("train.py:3:1: device-call") and line.endswith("(suppressed)") for line in verbose)


@pytest.mark.parametrize("excluded", [False, True], ids=["unread-fails", "excluded-passes"])
def test_a_file_too_large_to_read_fails_the_gate_unless_excluded(repo, excluded):
    from migrator.discover import MAX_FILE_BYTES

    (repo / "vendored.py").write_text("x = 1\n" * (MAX_FILE_BYTES // 6 + 10))
    if excluded:
        (repo / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nexclude = ["vendored.py"]\n')
    result = run("vendored.py")
    assert result.exit_code == (0 if excluded else 1)
    assert ("vendored.py: error: not checked: file too large" in result.output) != excluded


@pytest.mark.parametrize("excluded", [False, True], ids=["partly-read-fails", "excluded-passes"])
def test_a_statement_left_out_as_too_deep_fails_the_gate_unless_excluded(repo, excluded):
    """A statement nested past what the parsers take is left out and the rest of the file read: the gate cannot
    pass the file, whose left-out line may be CUDA code (the fuzz run's attribute chain passed)."""
    (repo / "chained.py").write_text("import torch\nx = 1\ny = torch" + ".cuda" * 2_000 + "\n")
    if excluded:
        (repo / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nexclude = ["chained.py"]\n')
    result = run("chained.py")
    assert result.exit_code == (0 if excluded else 1)
    assert ("chained.py: error: not checked: statement at line 3 nested too deeply to analyse (left out)"
            in result.output) != excluded
