import json

from click.testing import CliRunner

from migrator.cli import main
from migrator.pipeline import ScanRequest, scan

from .conftest import REPO

CATEGORIES = {"device", "distributed", "amp", "op", "dtype", "custom-op", "third-party", "environment", "tune"}
STATUSES = {"supported", "partial", "fallback", "rewrite", "port", "unsupported", "unknown"}


def test_scan_json_follows_the_report_contract(tmp_path):
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["scan", str(REPO / "examples"), "--format", "json", "--output", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["schema"] == "migrator.report/1"
    assert [t["id"] for t in report["targets"]] == ["cann", "neuware", "kunlun"]
    for target in report["targets"]:
        assert set(target["counts"]) == STATUSES and 0 <= target["readiness"] <= 100 and target["sources"]
    for finding in report["findings"]:
        assert finding["category"] in CATEGORIES
        assert not finding["path"].startswith("/") and "\\" not in finding["path"]
        assert set(finding["verdicts"]) == {"cann", "neuware", "kunlun"}
        for verdict in finding["verdicts"].values():
            assert verdict["status"] in STATUSES and verdict["source"] and verdict["message"]
    ids = [f["id"] for f in report["findings"]]
    assert len(ids) == len(set(ids))
    notebook = [f for f in report["findings"] if f["path"].endswith(".ipynb")]
    assert notebook and all(f["cell"] is not None for f in notebook)


def test_scan_text_and_target_selection():
    result = CliRunner().invoke(main, ["scan", str(REPO / "examples"), "--target", "cann"])
    assert result.exit_code == 0
    assert "cann@2.12-9.1" in result.output and "neuware" not in result.output.split("Custom operators")[0]


def test_bad_target_is_a_usage_error():
    result = CliRunner().invoke(main, ["scan", str(REPO / "examples"), "--target", "tpu"])
    assert result.exit_code == 2 and "unknown target" in result.output


def test_missing_path_is_a_usage_error():
    assert CliRunner().invoke(main, ["scan", "/no/such/dir"]).exit_code == 2


def test_installed_console_script_finds_its_data(tmp_path):
    """The `migrator` on PATH (a real, non-editable install in CI) loads maps shipped inside the wheel."""
    import shutil
    import subprocess

    exe = shutil.which("migrator")
    if exe is None:
        import pytest
        pytest.skip("migrator is not installed on PATH")
    out = tmp_path / "r.json"
    done = subprocess.run([exe, "scan", str(REPO / "examples"), "--format", "json", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["findings"] and report["custom_ops"][0]["name"] == "model._fused_rmsnorm"


def test_streamed_json_is_byte_for_byte_json_dumps(monkeypatch):
    import io

    from migrator.maps.load import resolve_targets
    from migrator.report import json as json_report

    report = scan(ScanRequest(REPO / "examples" / "llm_trainer", resolve_targets(None), jobs=1))
    monkeypatch.setattr(json_report, "_CHUNK", 7)  # several chunks even for the example's 63 findings
    out = io.StringIO()
    json_report.render(report, out)
    assert out.getvalue() == json.dumps(json_report.to_dict(report), ensure_ascii=False) + "\n"


def test_equal_verdicts_are_one_object_across_a_scans_findings():
    from migrator.maps.load import resolve_targets

    report = scan(ScanRequest(REPO / "examples", resolve_targets(None), jobs=1))
    verdicts = [v for f in report.findings for v in f.verdicts.values()]
    assert len({id(v) for v in verdicts}) == len(set(verdicts)) < len(verdicts)


def test_rules_lists_every_rule_and_prints_one_rules_docs():
    from migrator.rules import DOCUMENTED_RULES
    from migrator.rules.docs import rule_doc

    listing = CliRunner().invoke(main, ["rules"])
    assert listing.exit_code == 0
    assert [line.split()[0] for line in listing.output.splitlines()] == [r.name for r in DOCUMENTED_RULES]
    shown = CliRunner().invoke(main, ["rules", "collective-backend", "--format", "markdown"])
    rule = next(r for r in DOCUMENTED_RULES if r.name == "collective-backend")
    assert shown.exit_code == 0 and shown.output == rule_doc(rule).markdown()
    assert "dist.init_process_group(backend='hccl')" in shown.output  # the checked `fix` output for cann
    unknown = CliRunner().invoke(main, ["rules", "device-mvoe"])
    assert unknown.exit_code == 2 and "migrator rules" in unknown.output


def test_short_help_and_version_flags():
    runner = CliRunner()
    assert runner.invoke(main, ["-V"]).output.startswith("migrator, version ")
    assert "-h, --help" in runner.invoke(main, ["scan", "-h"]).output


def test_scan_fail_on_makes_a_ci_job_fail_on_the_training_path(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("import torch\nassert torch.cuda.is_available() or True\n")
    runner = CliRunner()
    base = ["scan", str(tmp_path), "--no-cache", "--target", "cann", "--format", "json", "-o", str(tmp_path / "r")]
    failed = runner.invoke(main, [*base, "--fail-on", "rewrite"])
    assert failed.exit_code == 1 and "train.py:2 torch.Tensor.cuda" in failed.output
    assert runner.invoke(main, [*base, "--fail-on", "port,unsupported"]).exit_code == 0
    (tmp_path / "train.py").unlink()  # only the test file is left: not the training path
    assert runner.invoke(main, [*base, "--fail-on", "rewrite"]).exit_code == 0
    assert runner.invoke(main, [*base, "--fail-on", "rewirte"]).exit_code == 2


def test_a_page_goes_to_a_file_not_the_terminal(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["scan", "train.py", "--no-cache", "--format", "html"])
    assert result.exit_code == 0 and "migrator-report.html" in result.output and "<html" not in result.output
    assert (tmp_path / "migrator-report.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype")


def test_check_on_a_missing_path_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["check", str(tmp_path / "gone.py")])
    assert result.exit_code == 2 and "gone.py" in result.output


def test_text_columns_count_from_one_like_check_and_sarif(tmp_path):
    (tmp_path / "t.py").write_text("import torch\nx = torch.ones(2).cuda()\n", encoding="utf-8")
    runner = CliRunner()
    text = runner.invoke(main, ["scan", str(tmp_path / "t.py"), "--no-cache", "--target", "cann",
                                "--show", "all"]).output
    data = json.loads(runner.invoke(main, ["scan", str(tmp_path / "t.py"), "--no-cache", "--target", "cann",
                                           "--format", "json"]).output)
    (finding,) = data["findings"]
    assert finding["col"] == 4 and "  2:5  device-move" in text  # `torch.ones(2).cuda()` starts at column 5


def test_the_headline_says_what_the_data_cannot_judge_and_when_there_is_nothing(tmp_path):
    runner = CliRunner()
    empty = runner.invoke(main, ["scan", str(tmp_path), "--no-cache", "--target", "cann"]).output
    assert "nothing to assess" in empty and "readiness 100.0%" not in empty  # never a silent 100 %
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\ny = torch.special.airy_ai(x)\n")
    judged = runner.invoke(main, ["scan", str(tmp_path), "--no-cache", "--target", "kunlun"]).output
    assert "of what the data judges, 1 data gap" in judged


def test_scan_and_fix_read_tool_migrator_like_check(tmp_path):
    """[tool.migrator] targets and exclude hold for scan and fix too, from the project's root or a folder in it."""
    (tmp_path / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nexclude = ["src/generated"]\n')
    (tmp_path / "src" / "generated").mkdir(parents=True)
    code = "import torch\nx = torch.ones(2).cuda()\n"
    (tmp_path / "src" / "train.py").write_text(code)
    (tmp_path / "src" / "generated" / "stub.py").write_text(code)
    runner = CliRunner()
    for where in (tmp_path, tmp_path / "src"):
        data = json.loads(runner.invoke(main, ["scan", str(where), "--no-cache", "--format", "json"]).output)
        assert [t["id"] for t in data["targets"]] == ["cann"]
        assert {f["path"] for f in data["findings"]} == {"src/train.py" if where == tmp_path else "train.py"}
    explicit = json.loads(runner.invoke(main, ["scan", str(tmp_path), "--no-cache", "--format", "json",
                                               "--target", "neuware"]).output)
    assert [t["id"] for t in explicit["targets"]] == ["neuware"]  # the command line wins
    assert runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--no-cache", "--force"]).exit_code == 0
    assert ".npu()" in (tmp_path / "src" / "train.py").read_text()
    assert (tmp_path / "src" / "generated" / "stub.py").read_text() == code  # excluded: left alone
    (tmp_path / "pyproject.toml").write_text("[tool.migrator]\ntargest = ['cann']\n")
    typo = runner.invoke(main, ["scan", str(tmp_path), "--no-cache"])
    assert typo.exit_code == 2 and "unknown key 'targest'" in typo.output and "'targets'" in typo.output
    assert runner.invoke(main, ["scan", str(tmp_path), "--no-cache", "--isolated"]).exit_code == 0


def test_an_oversized_pyproject_is_a_clear_error_not_a_read(tmp_path):
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.other]\nx = '" + b"a" * (2 << 20) + b"'\n")
    (tmp_path / "train.py").write_text("import torch\n")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-cache"])
    assert result.exit_code == 2 and "not read as a configuration" in result.output  # as the gate: one policy
    assert CliRunner().invoke(main, ["check", str(tmp_path / "train.py")]).exit_code == 2


def test_scan_and_fix_honour_inline_suppressions(tmp_path):
    code = "import torch\nx = torch.ones(2).cuda()  # migrator: ignore[device-move]\ny = torch.ones(2).cuda()\n"
    (tmp_path / "t.py").write_text(code, encoding="utf-8")
    runner = CliRunner()
    data = json.loads(runner.invoke(main, ["scan", str(tmp_path), "--no-cache", "--target", "cann",
                                           "--format", "json"]).output)
    assert [f["line"] for f in data["findings"] if f["rule"] == "device-move"] == [3]
    assert runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--no-cache", "--force"]).exit_code == 0
    fixed = (tmp_path / "t.py").read_text(encoding="utf-8").splitlines()
    assert "torch.ones(2).cuda()  # migrator: ignore" in fixed[2] and fixed[3] == "y = torch.ones(2).npu()"


def test_sarif_paths_start_at_the_repository_root_for_a_subfolder_scan(tmp_path):
    """Code scanning places a result by its path from the repository root; the .git folder says where that is
    (git is not run)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "models" / "vision").mkdir(parents=True)
    (tmp_path / "models" / "vision" / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    runner = CliRunner()
    for where, uri in ((tmp_path / "models", "models/vision/train.py"), (tmp_path, "models/vision/train.py")):
        sarif = json.loads(runner.invoke(main, ["scan", str(where), "--no-cache", "--target", "cann",
                                                "--format", "sarif"]).output)
        (result,) = sarif["runs"][0]["results"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri
        assert result["fixes"][0]["artifactChanges"][0]["artifactLocation"]["uri"] == uri


def test_fix_quiet_keeps_only_the_summary_line(tmp_path):
    (tmp_path / "train.py").write_text("import torch\ntorch.cuda.synchronize()\n", encoding="utf-8")
    runner = CliRunner()
    loud = runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--diff", "--no-cache"])
    quiet = runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--diff", "--no-cache", "-q"])
    assert "train.py:2: device-call: torch.cuda.synchronize() ->" in loud.output
    assert "train.py:2: device-call" not in quiet.output and "would apply 1 rewrite(s)" in quiet.output
    assert "+torch.accelerator.synchronize()" in quiet.output  # the diff itself is the output, not a log line
