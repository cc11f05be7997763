"""The command line's conventions (issue 45): output folders, one configuration policy with --config,
--isolated and --show-settings, target aliases, check's output, the baseline, stdin's paths, what fix counts
as uncommitted, the test cache and the distribution's name."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrator import DISTRIBUTION, HOMEPAGE, __version__
from migrator.cli import main
from migrator.engine.cache import default_cache_dir
from migrator.fix.own_outputs import own_output
from migrator.maps.load import TargetSpecError, resolve_targets

from .conftest import REPO, write_tree

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

TRAIN = ("import torch\nimport torch.distributed as dist\n\n\n"
         "def setup():\n    dist.init_process_group('nccl')\n\n\n"
         "def step(batch):\n    return batch.cuda()\n")


def _run(*args, input=None):
    return CliRunner().invoke(main, [*args], input=input)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with its configuration (cann), as the current folder."""
    write_tree(tmp_path, {"pyproject.toml": '[tool.migrator]\ntargets = ["cann"]\n', "train.py": TRAIN})
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------------------------------ outputs


@pytest.mark.parametrize("command, out", [
    pytest.param(["scan", "train.py", "--format", "json", "-o"], "new/deeper/report.json", id="scan"),
    pytest.param(["check", "train.py", "--format", "json", "-o"], "ci/check.json", id="check"),
    pytest.param(["graph", "train.py", "-o"], "graphs/g.json", id="graph"),
    pytest.param(["fix", ".", "--diff", "--log"], "logs/CHANGES.md", id="fix-log"),
])
def test_an_output_into_a_missing_folder_creates_it(project, command, out):
    result = _run(*command, out, "--no-cache")
    assert result.exit_code in (0, 1), result.output  # check fails on the finding, and still writes
    assert (project / out).is_file() and (project / out).read_text().strip()


def test_an_output_folder_that_cannot_be_made_stops_before_the_scan(project):
    result = _run("scan", ".", "-o", "train.py/report.json", "--no-cache")
    assert result.exit_code == 2 and "cannot create the folder" in result.output
    assert "scanning" not in result.output and "Traceback" not in result.output


def test_check_writes_its_output_file_and_paints_only_when_asked(project):
    written = _run("check", "train.py", "--no-cache", "--output", "out/check.txt")
    assert written.exit_code == 1 and "train.py:6:5: collective-backend" not in written.output
    assert (project / "out" / "check.txt").read_text().startswith("train.py:6:5: collective-backend [*] [cann:rewrite]")
    painted = _run("check", "train.py", "--no-cache", "--color", "always").output
    plain = _run("check", "train.py", "--no-cache", "--color", "never").output
    assert "\x1b[1mtrain.py:6:5\x1b[0m" in painted and "cann:\x1b[31mrewrite\x1b[0m" in painted
    assert "\x1b[" not in plain and plain.startswith("train.py:6:5: collective-backend [*] [cann:rewrite]")


# ------------------------------------------------------------------------------------ configuration


@pytest.mark.parametrize("command", [
    pytest.param(["scan", "."], id="scan"),
    pytest.param(["check", "train.py"], id="check"),
    pytest.param(["fix", ".", "--target", "cann", "--diff"], id="fix"),
])
@pytest.mark.parametrize("config, words", [
    pytest.param('[tool.migrator]\ntarget = ["cann"]\n', ["unknown key 'target'", "did you mean 'targets'"],
                 id="misspelt-key"),
    pytest.param('[tool.migrator]\ntargets = ["cnan"]\n', ["targets", "did you mean 'cann'"], id="bad-target"),
    pytest.param('[tool.migrator]\nexclude = 3\n', ["exclude must be a string or a list"], id="bad-type"),
])
def test_every_command_stops_on_a_bad_configuration_naming_the_key(project, command, config, words):
    (project / "pyproject.toml").write_text(config)
    result = _run(*command, "--no-cache")
    assert result.exit_code == 2 and all(w in result.output for w in words), result.output
    assert "Traceback" not in result.output
    if command[0] != "check":  # a repository whose configuration is broken can still be scanned
        assert _run(*command, "--no-cache", "--isolated").exit_code == 0


def test_config_names_another_file_and_show_settings_prints_what_a_command_runs_with(project):
    (project / "shared.toml").write_text('targets = ["mlu"]\nfail-on = ["port"]\nexclude = ["gen/*"]\n')
    shown = _run("check", "--config", "shared.toml", "--show-settings")
    assert shown.exit_code == 0, shown.output
    assert f"# read from: {project / 'shared.toml'}" in shown.output
    table = tomllib.loads(shown.output)["tool"]["migrator"]
    assert table["targets"][0].startswith("neuware@") and table["fail-on"] == ["port"]
    assert table["exclude"] == ["gen/*"] and table["baseline"] == ".migrator-baseline.json"
    overridden = tomllib.loads(_run("scan", ".", "--target", "kunlun", "--ignore", "device", "--show-settings").output)
    assert overridden["tool"]["migrator"]["targets"][0].startswith("kunlun@")
    assert overridden["tool"]["migrator"]["ignore"] == ["device"]
    isolated = _run("fix", ".", "--target", "cann", "--isolated", "--show-settings").output
    assert "# read from: nothing (the defaults)" in isolated
    data = json.loads(_run("scan", ".", "--no-cache", "--format", "json", "--config", "shared.toml").output)
    assert [t["id"] for t in data["targets"]] == ["neuware"]


def test_fix_takes_its_target_from_the_configuration(project):
    (project / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["ascend"]\n')
    diff = _run("fix", ".", "--diff", "--no-cache")
    assert diff.exit_code == 0 and "+    dist.init_process_group('hccl')" in diff.output
    (project / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann", "neuware"]\n')
    several = _run("fix", ".", "--diff", "--no-cache")
    assert several.exit_code == 2 and "give --target" in several.output and "lists cann, neuware" in several.output
    assert "'cncl'" in _run("fix", ".", "--diff", "--no-cache", "--target", "neuware").output


# ------------------------------------------------------------------------------------------ targets


@pytest.mark.parametrize("alias, target", [
    ("ascend", "cann"), ("npu", "cann"), ("Huawei", "cann"), ("mlu", "neuware"), ("cambricon", "neuware"),
    ("xpu", "kunlun"), ("kunlunxin", "kunlun"), ("baidu", "kunlun"), ("ascend@2.11", "cann"),
])
def test_a_target_answers_to_its_vendor_chip_and_device_names(alias, target):
    (chosen,) = resolve_targets([alias])
    assert chosen.id == target
    if "@" in alias:
        assert chosen.torch_line == "2.11"


@pytest.mark.parametrize("spec, words", [
    (["cnan"], ["unknown target 'cnan'", "did you mean 'cann'"]),
    (["ascned"], ["did you mean 'ascend' (cann)"]),
    (["gaudi"], ["unknown target 'gaudi'", "choose from cann, neuware, kunlun", "ascend, npu, huawei = cann"]),
    (["cann", "npu"], ["target 'cann' given twice ('npu' is 'cann')"]),
])
def test_an_unknown_target_is_named_with_the_closest_names(spec, words):
    with pytest.raises(TargetSpecError) as raised:
        resolve_targets(spec)
    assert all(w in str(raised.value) for w in words), str(raised.value)
    if spec == ["gaudi"]:
        assert "did you mean" not in str(raised.value)  # nothing close: no guess


# -------------------------------------------------------------------------------------------- check


def test_a_baseline_named_but_missing_is_an_error_before_the_scan(project):
    missing = _run("check", "train.py", "--no-cache", "--baseline", "ci/baseline.json")
    assert missing.exit_code == 2 and "ci/baseline.json: no such baseline file" in missing.output
    assert _run("check", "train.py", "--no-cache", "--baseline", "ci/baseline.json",
                "--write-baseline").exit_code == 0  # writing it is how it is made
    assert _run("check", "train.py", "--no-cache", "--baseline", "ci/baseline.json").exit_code == 0
    (project / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\nbaseline = "gate.json"\n')
    named = _run("check", "train.py", "--no-cache")
    assert named.exit_code == 2 and "gate.json: no such baseline file" in named.output
    (project / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\n')
    assert _run("check", "train.py", "--no-cache").exit_code == 1  # the default, absent: nothing accepted yet


def test_stdin_keeps_its_path_from_the_repository_found_from_the_current_folder(tmp_path, monkeypatch):
    """No pyproject.toml: the repository's top (its .git) is the root, so the baseline there and the
    excludes written from there hold for the buffer, checked from a subfolder."""
    write_tree(tmp_path, {"src/train.py": TRAIN})
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    assert _run("check", "src/train.py", "--no-cache", "--target", "cann", "--write-baseline").exit_code == 0
    assert "src/train.py" in (tmp_path / ".migrator-baseline.json").read_text()
    monkeypatch.chdir(tmp_path / "src")
    code = TRAIN + "\n\nx = torch.ones(1).cuda()\n"
    new = _run("check", "-", "--stdin-filename", "train.py", "--no-cache", "--target", "cann", input=code)
    assert new.exit_code == 1 and new.output.startswith("src/train.py:13:5: device-move")
    assert "2 in baseline" in new.output  # the file's accepted findings, matched under its path from the top
    excluded = _run("check", "-", "--stdin-filename", "train.py", "--no-cache", "--target", "cann",
                    "--exclude", "src/*", input=code)
    assert excluded.exit_code == 0 and "clean: 0 files checked" in excluded.output


# ---------------------------------------------------------------------------------------------- fix


def _git(repo, *args):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(repo.parent), "PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")
def test_fix_does_not_count_what_migrator_wrote_as_uncommitted(project):
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "start")
    assert _run("scan", ".", "--format", "html", "--no-cache").exit_code == 0  # the default page, here
    assert _run("scan", ".", "--format", "sarif", "-o", "reports/scan.sarif", "--no-cache").exit_code == 0
    assert _run("check", "train.py", "--no-cache", "--write-baseline").exit_code == 0
    assert {p.name for p in project.iterdir()} >= {"migrator-report.html", "reports", ".migrator-baseline.json"}
    (project / "notes.txt").write_text("work in progress\n")
    refused = _run("fix", ".", "--no-cache")
    assert refused.exit_code == 2 and "1 uncommitted change(s)" in refused.output and "notes.txt" in refused.output
    (project / "notes.txt").unlink()
    fixed = _run("fix", ".", "--no-cache", "--log", "CHANGES.md")
    assert fixed.exit_code == 0, fixed.output
    assert "'hccl'" in (project / "train.py").read_text()


@pytest.mark.parametrize("name, text, own", [
    ("migrator-report.html", '<!doctype html>\n<meta name="generator" content="migrator 0.2.0">', True),
    ("r.json", '{"schema": "migrator.report/1", "tool": {}}', True),
    ("page.html", '<!doctype html>\n<meta name="generator" content="hugo">', False),
    ("data.json", '{"schema": "other/1"}', False),
    ("tool.py", '# migrator fix: changes for cann\n', False),  # a file fix rewrites is never its output
])
def test_own_outputs_are_recognised_by_their_first_bytes(tmp_path, name, text, own):
    (tmp_path / name).write_text(text)
    assert own_output(tmp_path / name) is own


# ---------------------------------------------------------------------------------- tests, the name


def test_the_suite_never_touches_the_users_own_cache(temporary_cache):
    assert default_cache_dir() == temporary_cache / "migrator"
    assert Path.home() / ".cache" not in default_cache_dir().parents


def test_the_distribution_name_is_ours_everywhere_a_user_reads_it():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION == "migrator-accel" and project["urls"]["Homepage"] == HOMEPAGE
    assert project["scripts"] == {"migrator": "migrator.cli:main"}  # the command keeps its name
    from migrator.fleet.run import INSTALL_HINT

    assert f"pip install '{DISTRIBUTION}[fleet]'" in INSTALL_HINT
    readme = (REPO / "README.md").read_text()
    assert "pip install . && migrator scan examples" in readme and f"`{DISTRIBUTION}`" in readme


def test_the_readmes_pre_commit_snippet_names_this_release_and_a_hook_that_exists():
    """The snippet's `rev` is this version's release tag (created at release: `git tag -a v0.2.0`) and its
    hook id one .pre-commit-hooks.yaml defines; `test_pre_commit_hook_through_the_real_client` runs it."""
    import yaml

    readme = (REPO / "README.md").read_text()
    snippet = readme.split("# .pre-commit-config.yaml", 1)[1].split("```", 1)[0]
    (repo,) = yaml.safe_load(snippet)
    hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert repo["rev"] == f"v{__version__}" and {h["id"] for h in repo["hooks"]} <= hooks
