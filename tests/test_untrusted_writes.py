"""Confinement (issue 42): no path a repository or its configuration names makes a command write outside it;
every output is written atomically, never through a link the repository ships, and a failed write keeps the
previous file; cache pruning deletes only what the cache wrote, following no link."""

import json
import os
import stat

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.engine.cache import AnalysisCache
from migrator.model import FileKind, FileResult, FileStatus, SourceFile
from migrator.safe_write import atomic_text, write_text

from .conftest import write_tree

CODE = "import torch\nx = torch.ones(2).cuda()\n"


@pytest.fixture
def outside(tmp_path):
    """A folder beside the repository, standing for the user's home: nothing may be written in it."""
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / ".bashrc").write_text("original\n")
    return folder


def _repo(tmp_path, config=""):
    return write_tree(tmp_path / "repo", {"pyproject.toml": f"[tool.migrator]\ntargets = [\"cann\"]\n{config}",
                                          "train.py": CODE})


def _check(*args):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


@pytest.mark.parametrize("baseline", ["../home/evil/b.json", "../../x.json", "ABS"])
def test_a_baseline_named_outside_the_repository_is_a_config_error(tmp_path, outside, monkeypatch, baseline):
    baseline = str(outside / "b.json") if baseline == "ABS" else baseline
    repo = _repo(tmp_path, f"baseline = {json.dumps(baseline)}\n")
    monkeypatch.chdir(repo)
    result = _check("--write-baseline", "train.py")
    assert result.exit_code == 2 and "outside the repository" in result.output, result.output
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]
    assert not (tmp_path / "x.json").exists()


def test_a_baseline_through_a_linked_folder_out_of_the_repository_is_refused(tmp_path, outside, monkeypatch):
    repo = _repo(tmp_path, 'baseline = "gate/b.json"\n')
    (repo / "gate").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(repo)
    result = _check("--write-baseline", "train.py")
    assert result.exit_code == 2 and "outside the repository" in result.output, result.output
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]


def test_a_baseline_inside_the_repository_is_still_written(tmp_path, monkeypatch):
    repo = _repo(tmp_path, 'baseline = "ci/migrator/b.json"\n')
    monkeypatch.chdir(repo)
    assert _check("--write-baseline", "train.py").exit_code == 0
    assert json.loads((repo / "ci" / "migrator" / "b.json").read_text())["findings"]


@pytest.mark.parametrize("pattern", ["../other", "/etc", "a/../../b"])
def test_an_exclude_pattern_leaving_the_repository_is_a_config_error(tmp_path, monkeypatch, pattern):
    repo = _repo(tmp_path, f"exclude = [{json.dumps(pattern)}]\n")
    monkeypatch.chdir(repo)
    result = _check("train.py")
    assert result.exit_code == 2 and "leaves the repository" in result.output, result.output


def _link_out(place, outside):
    place.symlink_to(outside / ".bashrc")
    return place


def _unharmed(outside, place):
    assert (outside / ".bashrc").read_text() == "original\n"
    assert place.is_file() and not place.is_symlink()  # the link was replaced by the output, not followed


def test_the_default_html_report_replaces_a_link_the_repository_ships(tmp_path, outside, monkeypatch):
    repo = _repo(tmp_path)
    page = _link_out(repo / "migrator-report.html", outside)
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "html", "--no-cache"])
    assert result.exit_code == 0, result.output
    _unharmed(outside, page)
    assert "<html" in page.read_text().lower()


@pytest.mark.parametrize("command", [
    ["scan", "REPO", "--format", "json", "-o", "OUT"],
    ["graph", "REPO", "-o", "OUT"],
    ["fix", "REPO", "--target", "cann", "--diff", "--log", "OUT"],
])
def test_explicit_outputs_never_write_through_a_link(tmp_path, outside, command):
    repo = _repo(tmp_path)
    place = _link_out(repo / "out.txt", outside)
    args = [str(repo) if a == "REPO" else str(place) if a == "OUT" else a for a in command]
    result = CliRunner().invoke(main, [*args, "--no-cache"])
    assert result.exit_code == 0, result.output
    _unharmed(outside, place)
    assert place.read_text()


def test_a_fleet_page_never_writes_through_a_link(tmp_path, outside):
    from migrator.fleet.model import RepoRow
    from migrator.fleet.run import _row
    from migrator.fleet.task import RepoTask, TaskResult

    pages = tmp_path / "pages"
    pages.mkdir()
    place = _link_out(pages / "evil.html", outside)

    class Done:
        def result(self):
            return TaskResult(RepoRow(name="evil", path="p", status="ok"), html="<html>page</html>")

    row = _row(RepoTask("evil", "p"), Done(), pages, None)
    assert row.report
    _unharmed(outside, place)
    assert place.read_text() == "<html>page</html>"


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary(tmp_path):
    report = tmp_path / "report.json"
    report.write_text("previous\n")
    os.chmod(report, 0o640)
    with pytest.raises(RuntimeError):
        with atomic_text(report) as out:
            out.write("half of a ")
            raise RuntimeError("the renderer failed")
    assert report.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    write_text(report, "new\n")
    assert report.read_text() == "new\n" and stat.S_IMODE(report.stat().st_mode) == 0o640  # its mode kept
    fresh = tmp_path / "fresh.txt"
    write_text(fresh, "x")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~_umask()
    with pytest.raises(IsADirectoryError):
        write_text(tmp_path, "x")


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_cli_output_that_cannot_be_written_is_a_clear_error(tmp_path):
    repo = _repo(tmp_path)
    result = CliRunner().invoke(main, ["graph", str(repo), "-o", str(repo / "train.py" / "g.json"), "--no-cache"])
    assert result.exit_code == 2 and "cannot create the folder" in result.output, result.output


def _fill(cache, count):
    for i in range(count):
        cache.put(cache.key(f"f{i}.py", "python", b"x"),
                  FileResult(SourceFile("p", f"f{i}.py", FileKind.PYTHON, 1), FileStatus.OK, reason="r" * 100))


def test_cache_pruning_follows_no_link_and_deletes_only_its_own_entries(tmp_path, outside):
    project = write_tree(tmp_path / "project", {"a" * 62 + ".pkl": "x" * 5000, "main.py": "y" * 5000})
    victim = outside / ("b" * 62 + ".pkl")
    victim.write_text("z" * 5000)
    directory = tmp_path / "cache"
    cache = AnalysisCache(directory, salt="s", max_bytes=2000)
    _fill(cache, 40)
    (directory / "zz").symlink_to(project, target_is_directory=True)  # not two hex digits, but a link anyway
    (directory / "ab").mkdir(exist_ok=True)
    free = next(f"{i:02x}" for i in range(256) if not (directory / f"{i:02x}").exists())
    (directory / free).symlink_to(project, target_is_directory=True)  # a two-hex-digit link to a folder
    (directory / "ab" / ("c" * 62 + ".pkl")).symlink_to(victim)  # an entry-like link to a file
    (directory / "ab" / "notes.txt").write_text("n" * 5000)  # something the cache did not write
    (directory / "last-prune").symlink_to(outside / "created-by-touch")
    before = sorted(p.name for p in project.iterdir())
    assert cache.prune_if_due() > 0
    assert sorted(p.name for p in project.iterdir()) == before
    assert victim.read_text() == "z" * 5000
    assert (directory / "ab" / "notes.txt").exists() and (directory / "ab" / ("c" * 62 + ".pkl")).is_symlink()
    assert not (outside / "created-by-touch").exists()
    real = [p for p in directory.glob("[0-9a-f][0-9a-f]/*.pkl") if not p.is_symlink() and not p.parent.is_symlink()]
    assert sum(p.stat().st_size for p in real) <= 2000


def test_the_cache_writes_no_entry_through_a_linked_folder(tmp_path, outside):
    directory = tmp_path / "cache"
    cache = AnalysisCache(directory, salt="s")
    key = cache.key("f.py", "python", b"x")
    directory.mkdir()
    (directory / key[:2]).symlink_to(outside, target_is_directory=True)
    _fill(cache, 0)
    cache.put(key, FileResult(SourceFile("p", "f.py", FileKind.PYTHON, 1), FileStatus.OK))
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]


def test_a_character_device_is_written_into_never_replaced(tmp_path):
    """``-o /dev/null`` (bench/bench_scan.py does it): replacing the device with a file, as root, broke every
    program that reads /dev/null (git read it as its global configuration)."""
    write_text(os.devnull, "{}\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_fifo_at_the_destination_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "migrator-report.html"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        write_text(fifo, "<html></html>")


def test_a_file_name_cannot_drive_the_terminal(tmp_path):
    """A file named with an OSC sequence (set the terminal's title) prints as its name, escaped; the views' own
    colour stays."""
    from migrator.report.printable import escaped

    name = "train\x1b]0;pwned\x07.py"
    (tmp_path / name).write_text("import torch\nx = torch.ones(2).cuda()\n")
    for command in (["scan", str(tmp_path), "--no-cache", "--show", "all", "--color", "always"],
                    ["check", str(tmp_path / name), "--no-cache"]):
        output = CliRunner().invoke(main, command).output
        assert "\x1b]" not in output and "\x07" not in output and "\\x1b]0;pwned\\x07" in output
    assert escaped("\x1b[31mrewrite\x1b[0m") == "\x1b[31mrewrite\x1b[0m"  # colour is the view's own


def _entry(cache, key):
    return cache.directory / key[:2] / f"{key[2:]}.pkl"


def test_a_cache_entry_this_user_did_not_write_is_a_miss(tmp_path):
    """A check must not pass on a planted "nothing found here": an entry is trusted only with the tag of the
    user's own secret, which lives apart from the cache folder."""
    import pickle

    directory = tmp_path / "cache"
    cache = AnalysisCache(directory, salt="s", secret=b"k" * 32)
    key = cache.key("train.py", "python", b"import torch\ntorch.cuda.synchronize()\n")
    clean = FileResult(SourceFile("p", "train.py", FileKind.PYTHON, 1), FileStatus.OK)
    cache.put(key, clean)
    assert cache.get(key) == clean
    payload = pickle.dumps(clean, protocol=pickle.HIGHEST_PROTOCOL)
    for forged in (payload, b"\0" * 32 + payload, _entry(cache, key).read_bytes()[:32] + payload + b"."):
        _entry(cache, key).write_bytes(forged)
        assert cache.get(key) is None
    cache.put(key, clean)
    assert AnalysisCache(directory, salt="s", secret=b"m" * 32).get(key) is None  # another user's, or machine's
    other = cache.key("other.py", "python", b"")
    (directory / other[:2]).mkdir(exist_ok=True)
    _entry(cache, other).write_bytes(_entry(cache, key).read_bytes())  # a real entry moved under another key
    assert cache.get(other) is None


def test_a_cache_entry_that_is_a_folder_or_larger_than_the_cache_is_a_miss(tmp_path):
    cache = AnalysisCache(tmp_path / "cache", salt="s", max_bytes=1000, secret=b"k" * 32)
    folder, huge = cache.key("a.py", "python", b""), cache.key("b.py", "python", b"")
    _entry(cache, folder).mkdir(parents=True)
    _entry(cache, huge).parent.mkdir(parents=True, exist_ok=True)
    with _entry(cache, huge).open("wb") as out:
        out.truncate(10 ** 9)  # sparse: a gigabyte on paper
    assert cache.get(folder) is None and cache.get(huge) is None


def test_the_secret_lives_in_the_configuration_folder_private(tmp_path, monkeypatch):
    from migrator.engine.cache import user_secret

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user_secret.cache_clear()
    try:
        secret = user_secret()
        stored = tmp_path / "config" / "migrator" / "cache-key"
        assert stored.read_bytes() == secret and stored.stat().st_mode & 0o077 == 0
        user_secret.cache_clear()
        assert user_secret() == secret  # the next run reads the same key
        stored.chmod(0o644)  # readable by others: not a secret any more, so not trusted
        user_secret.cache_clear()
        assert user_secret() != secret
    finally:
        user_secret.cache_clear()
