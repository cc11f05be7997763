"""git as an untrusted program (issue 42): nothing a repository's ``.git`` configures runs under ``fix``, and a
repository git cannot be asked about stops ``fix`` (without ``--force``) instead of reading as "no repository"."""

import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.fix import tree_state
from migrator.gitcheck import GitUnavailable, git_environment, uncommitted

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")

CODE = "import torch\nx = torch.ones(2).cuda()\n"


def _git(repo, *args):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(repo.parent), "PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True, text=True).stdout


def _committed(repo, files):
    repo.mkdir()
    for name, text in files.items():
        (repo / name).write_bytes(text.encode())
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    return repo


def _hostile_partial_clone(tmp_path):
    """A clone whose index names a blob that is missing, marked as a partial clone of a promisor remote whose
    ``uploadpack`` is a script writing a marker; ``core.autocrlf`` makes ``git status`` read the index's blob
    (``has_crlf_in_index``) for the file whose stat no longer matches, which fetches it lazily."""
    marker = tmp_path / "uploadpack-ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    script.chmod(0o755)
    repo = _committed(tmp_path / "repo", {"train.py": CODE.replace("\n", "\r\n")})
    blob = _git(repo, "rev-parse", "HEAD:train.py").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.url", str(tmp_path / "nowhere")), ("remote.origin.promisor", "true"),
                       ("remote.origin.uploadpack", str(script)), ("protocol.file.allow", "always"),
                       ("protocol.ext.allow", "always"), ("core.gitProxy", str(script)),
                       ("core.autocrlf", "true")):
        _git(repo, "config", key, value)
    os.utime(repo / "train.py", (1_000_000_000, 1_000_000_000))  # stale stat: git compares the contents
    return repo, marker


def test_the_hostile_partial_clone_does_run_its_uploadpack_under_plain_git(tmp_path):
    """The attack is real: a plain ``git status`` runs the script (so the next test can fail)."""
    repo, marker = _hostile_partial_clone(tmp_path)
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True,
                   env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"})
    assert marker.exists()


def test_fix_never_runs_a_promisor_remotes_uploadpack(tmp_path):
    repo, marker = _hostile_partial_clone(tmp_path)
    result = CliRunner().invoke(main, ["fix", str(repo), "--target", "cann", "--no-cache"])
    assert not marker.exists(), "git ran the repository's uploadpack"
    # the blob could not be fetched: git sees the file as changed (or fails): either way nothing is written
    assert result.exit_code == 2, result.output
    assert (repo / "train.py").read_bytes() == CODE.replace("\n", "\r\n").encode()
    assert not marker.exists()


def test_a_git_file_pointing_nowhere_stops_fix_unless_forced(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(CODE)
    (repo / ".git").write_text(f"gitdir: {tmp_path / 'gone'}\n")
    state = tree_state(repo)
    assert state.error and not state.writable
    refused = CliRunner().invoke(main, ["fix", str(repo), "--target", "cann", "--no-cache"])
    assert refused.exit_code == 2 and "git could not be asked" in refused.output
    assert (repo / "train.py").read_text() == CODE
    forced = CliRunner().invoke(main, ["fix", str(repo), "--target", "cann", "--no-cache", "--force"])
    assert forced.exit_code == 0, forced.output
    assert ".npu()" in (repo / "train.py").read_text()


def test_git_missing_in_a_repository_is_an_error_and_no_repository_is_clean(tmp_path, monkeypatch):
    from migrator import gitcheck

    repo = _committed(tmp_path / "repo", {"train.py": CODE})
    plain = tmp_path / "plain"
    plain.mkdir()
    assert uncommitted(plain, plain) is None  # no .git at or above: no repository, git is not even needed
    monkeypatch.setattr(gitcheck, "_git_program", lambda: None)
    with pytest.raises(GitUnavailable):
        uncommitted(repo, repo)
    assert uncommitted(plain, plain) is None


def test_untracked_and_renamed_files_count_as_uncommitted(tmp_path):
    repo = _committed(tmp_path / "repo", {"train.py": CODE, "a.py": "x = 1\n"})
    assert uncommitted(repo, repo) == []
    _git(repo, "mv", "a.py", "b.py")
    (repo / "new file.py").write_text("y = 2\n")
    assert sorted(uncommitted(repo, repo)) == ["b.py", "new file.py"]


def test_the_environment_carries_no_git_variable_of_the_callers(monkeypatch):
    monkeypatch.setenv("GIT_DIR", "/elsewhere")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch x'")
    env = git_environment()
    assert "GIT_DIR" not in env and "GIT_CONFIG_PARAMETERS" not in env
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull and env["GIT_ALLOW_PROTOCOL"] == ""
    assert env["GIT_NO_LAZY_FETCH"] == "1" and env["GIT_TERMINAL_PROMPT"] == "0"
