"""Bad input gives a per-file status and reason; the rest of the scan goes on."""
import json
import os

import pytest

from migrator.discover import MAX_FILE_BYTES
from migrator.model import FileStatus
from migrator.pipeline import ScanRequest, scan

GOOD = "import torch\ntorch.cuda.synchronize()\n"


def _status(report, rel):
    return next((f.status, f.reason) for f in report.files if f.file.rel == rel)


@pytest.mark.parametrize("name, content, status, words", [
    pytest.param("bad.py", "def f(:\n    pass\n", FileStatus.ERROR, "syntax error at line 1", id="syntax-error"),
    pytest.param("py2.py", "import torch\nprint 'hello'\n", FileStatus.ERROR, "Python 2", id="python2-print"),
    pytest.param("py2b.py", "try:\n    pass\nexcept ValueError, e:\n    pass\n", FileStatus.ERROR, "Python 2",
                 id="python2-except"),
    pytest.param("damaged.py", "MODE = 0o644\n# chmod 0755 below\ndef f(:\n    pass\n", FileStatus.ERROR,
                 "syntax error at line 3", id="damaged-python3-with-an-octal-in-a-comment-is-not-python2"),
    pytest.param("zeros.py", "N = (50,000)\ndef f(:\n    pass\n", FileStatus.ERROR, "syntax error at line 2",
                 id="a-literal-of-zeros-is-python3"),
    pytest.param("blob.py", b"\x00\x01\x02binary", FileStatus.ERROR, "binary", id="binary"),
    pytest.param("undecodable.py", b"x = '\xff\xfe\xfa'\n", FileStatus.ERROR, "cannot decode", id="undecodable"),
    pytest.param("deep.py", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", FileStatus.ERROR, "nested too deeply",
                 id="deep-nesting"),
    pytest.param("broken.ipynb", "{not json", FileStatus.ERROR, "not a valid notebook", id="broken-notebook"),
    pytest.param("nocells.ipynb", json.dumps({"metadata": {}}), FileStatus.ERROR, "no 'cells'", id="notebook-no-cells"),
])
def test_bad_file_is_reported_and_scan_continues(scan_tree, name, content, status, words):
    report = scan_tree({"good.py": GOOD, name: content})
    got_status, reason = _status(report, name)
    assert got_status == status and words in reason
    assert any(f.path == "good.py" and f.api == "torch.cuda.synchronize" for f in report.findings)


def test_one_over_deep_statement_leaves_the_rest_of_the_file_scanned(scan_tree):
    deep = "TABLE = " + "(" * 5000 + "1" + ")" * 5000
    code = f"import torch\n\n\ndef step():\n    torch.cuda.synchronize()\n\n\n{deep}\nx = torch.ones(2).cuda()\n"
    report = scan_tree({"mixed.py": code})
    status, reason = _status(report, "mixed.py")
    assert status == FileStatus.OK and "line 8 nested too deeply" in reason and "rest of the file was scanned" in reason
    assert {(f.span.line, f.api) for f in report.findings if f.path == "mixed.py"} >= {
        (5, "torch.cuda.synchronize"), (9, "torch.Tensor.cuda")}


def test_latin1_declared_encoding_is_scanned(scan_tree):
    code = "# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\xe9'\ntorch.cuda.synchronize()\n"
    report = scan_tree({"legacy.py": code.encode("latin-1")})
    assert _status(report, "legacy.py") == (FileStatus.OK, None)
    assert [f.api for f in report.findings] == ["torch.cuda.synchronize"]


def test_huge_file_is_skipped(scan_tree):
    report = scan_tree({"big.py": "x = 1\n" * (MAX_FILE_BYTES // 6 + 10), "good.py": GOOD})
    status, reason = _status(report, "big.py")
    assert status == FileStatus.SKIPPED and "too large" in reason


def test_symlink_loop_and_dangling_link(tmp_path, scan_tree):
    (tmp_path / "pkg").mkdir()
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "loop")
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    report = scan_tree({"pkg/train.py": GOOD})
    assert any(f.path == "pkg/train.py" for f in report.findings)
    assert _status(report, "pkg/loop")[0] == FileStatus.SKIPPED
    assert _status(report, "dangling.py")[0] == FileStatus.ERROR


def test_gitignore_virtualenv_and_build_folders_are_skipped(scan_tree):
    report = scan_tree({
        ".gitignore": "generated/\n*.tmp.py\n",
        "generated/x.py": GOOD, "scratch.tmp.py": GOOD,
        "venv/lib/x.py": GOOD, ".venv/x.py": GOOD, "env2/pyvenv.cfg": "", "env2/x.py": GOOD,
        "build/lib/x.py": GOOD, ".git/hooks/x.py": GOOD,
        "src/train.py": GOOD,
    })
    assert {f.file.rel for f in report.files} == {"src/train.py"}


def test_a_package_of_the_projects_package_is_scanned_whatever_gitignore_says(scan_tree):
    """Open-Sora's ``.gitignore`` line ``datasets`` (written for data) matches ``opensora/datasets/``, a package of
    its package: committed code, which git keeps tracking. A data folder of the same name is still left out."""
    report = scan_tree({
        ".gitignore": "*.tmp.py\n", "opensora/.gitignore": "datasets\n",
        "opensora/__init__.py": "", "opensora/datasets/__init__.py": "", "opensora/datasets/utils.py": GOOD,
        "opensora/datasets/scratch.tmp.py": GOOD, "opensora/data/datasets/cifar.py": GOOD,
    })
    rels = {f.file.rel for f in report.files}
    assert "opensora/datasets/utils.py" in rels and "opensora/data/datasets/cifar.py" not in rels
    assert "opensora/datasets/scratch.tmp.py" not in rels  # the root's other lines still apply inside
    assert _status(report, "opensora/datasets")[0] == FileStatus.OK  # said, with why


def test_unreadable_file(tmp_path, scan_tree):
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    path = tmp_path / "secret.py"
    path.write_text(GOOD)
    path.chmod(0)
    report = scan_tree({"good.py": GOOD})
    assert _status(report, "secret.py")[0] == FileStatus.ERROR


def test_scan_never_executes_code(scan_tree, tmp_path):
    marker = tmp_path / "executed"
    report = scan_tree({"evil.py": f"open({str(marker)!r}, 'w').write('x')\nimport torch\ntorch.cuda.init()\n",
                        "setup.py": f"open({str(marker)!r}, 'w').write('x')\n"})
    assert not marker.exists()
    assert any(f.api == "torch.cuda.init" for f in report.findings)


# ------------------------------------------------------------------------------ hostile repositories


@pytest.mark.parametrize("name, content, words", [
    pytest.param("unary.py", "x = " + "-" * 10_000 + "1\n", "nested too deeply", id="unary-minus-run"),
    pytest.param("sum.py", "x = " + " + ".join(["a"] * 4_000) + "\n", "nested too deeply", id="long-sum"),
])
def test_a_small_file_that_would_exhaust_the_parser_is_one_files_error(scan_tree, name, content, words):
    """libcst's native parser aborts the process on the first and takes 21 s on the second: CPython's parser
    refuses them first, in microseconds."""
    report = scan_tree({"good.py": GOOD, name: content})
    status, reason = _status(report, name)
    assert status == FileStatus.ERROR and words in reason
    assert any(f.path == "good.py" for f in report.findings)


def test_special_files_and_links_out_of_the_root_are_skipped_with_a_reason(tmp_path, scan_tree):
    outside = tmp_path / "secret" / "keys.py"
    outside.parent.mkdir()
    outside.write_text("import torch\nTOKEN = 'do-not-report'\ntorch.cuda.synchronize()\n")
    root = tmp_path / "repo"
    root.mkdir()
    os.mkfifo(root / "pipe.py")
    os.symlink("/dev/zero", root / "zero.py")
    os.symlink(outside, root / "leak.py")
    os.symlink(outside.parent, root / "linked_dir")
    os.symlink(root / "loop_b.py", root / "loop_a.py")
    os.symlink(root / "loop_a.py", root / "loop_b.py")
    (root / "good.py").write_text(GOOD)
    from migrator.maps.load import resolve_targets

    report = scan(ScanRequest(root, resolve_targets(["cann"]), jobs=1))
    reasons = {f.file.rel: (f.status, f.reason) for f in report.files}
    assert reasons["pipe.py"] == (FileStatus.SKIPPED, "a FIFO: not read")
    assert reasons["zero.py"] == (FileStatus.SKIPPED, "a device (through a symbolic link): not read")
    assert reasons["leak.py"][1] == "symbolic link to a file outside the scanned folder: not followed"
    assert reasons["linked_dir"][1] == "symbolic link to a folder outside the scanned folder: not followed"
    assert reasons["loop_a.py"][0] == FileStatus.ERROR and "symbolic links" in reasons["loop_a.py"][1]
    assert {f.path for f in report.findings} == {"good.py"}
    assert "do-not-report" not in json.dumps([f.snippet for f in report.findings])


def test_a_file_name_that_is_not_utf8_is_escaped_in_every_format(tmp_path):
    import io

    from migrator.maps.load import resolve_targets
    from migrator.report import html, sarif
    from migrator.report import json as json_report
    from migrator.report import text

    name = os.fsdecode(b"caf\xe9_train.py")
    (tmp_path / name).write_text(GOOD)
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    assert [f.path for f in report.findings] == ["caf\\xe9_train.py"]
    for render in (text.render, json_report.render, sarif.render, html.render):
        out = io.StringIO()
        render(report, out)
        out.getvalue().encode("utf-8")  # no lone surrogate left to crash a UTF-8 writer
        # the escaped text, as JSON writes it, or percent-encoded in a SARIF URI
        forms = ("caf\\xe9_train.py", "caf\\\\xe9_train.py", "caf%5Cxe9_train.py")
        assert any(form in out.getvalue() for form in forms)


@pytest.mark.parametrize("fmt", ["text", "json", "html", "sarif"])
def test_a_root_folder_whose_name_is_not_utf8_is_written_in_every_format(tmp_path, fmt):
    from click.testing import CliRunner

    from migrator.cli import main

    root = tmp_path / os.fsdecode(b"proj\xff")
    root.mkdir()
    (root / "train.py").write_text(GOOD)
    out = tmp_path / f"report.{fmt}"
    result = CliRunner().invoke(main, ["scan", str(root), "--target", "cann", "--no-cache", "--format", fmt,
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = out.read_text(encoding="utf-8")  # valid UTF-8: the byte is written as its escape
    if fmt == "json":
        assert json.loads(written)["root"] == str(root)  # JSON reads the escape back to the name as it was
    if fmt == "sarif":
        json.loads(written)  # its locations are relative to the root: the root's name is not in it
    else:
        assert "proj\\udcff" in written or "proj\\xff" in written


@pytest.mark.parametrize("pyproject", [
    pytest.param('project = "x"\n', id="project-is-a-string"),
    pytest.param('[project]\nscripts = ["a", "b"]\n', id="scripts-is-a-list"),
    pytest.param("x = " + "[" * 2_000 + "]" * 2_000 + "\n", id="deeply-nested-array"),
    pytest.param("[project\n", id="not-toml"),
])
def test_packaging_metadata_that_is_not_what_it_should_be_never_stops_a_scan(scan_tree, pyproject):
    report = scan_tree({"pyproject.toml": pyproject, "train.py": GOOD, "setup.cfg": "[options.entry_points\n"})
    assert any(f.path == "train.py" for f in report.findings)


@pytest.mark.parametrize("line, words", [
    pytest.param("!", "GitIgnorePatternError", id="invalid-pattern"),
    pytest.param("**/a/**/b/**/c/**/d", "too many '**'", id="backtracking-pattern"),
])
def test_a_gitignore_line_that_cannot_be_used_is_named_and_the_rest_applies(scan_tree, line, words):
    report = scan_tree({".gitignore": f"ignored/\n{line}\n", "ignored/x.py": GOOD, "a" * 120 + ".py": GOOD,
                        "train.py": GOOD})
    status, reason = _status(report, ".gitignore")
    assert status == FileStatus.OK and "line 2" in reason and words in reason
    paths = {f.path for f in report.findings}
    assert "train.py" in paths and "ignored/x.py" not in paths


def _dies_on_boom(source, cache):
    """A worker that dies on one file, as one does when a native parser faults (forked workers inherit it)."""
    if source.rel == "pkg/boom.py":
        os._exit(139)
    return _REAL_WORKER(source, cache)


_REAL_WORKER = None


def test_a_worker_that_dies_takes_down_one_file_not_the_scan(tmp_path, monkeypatch):
    import migrator.pipeline.pool as pool
    from migrator.maps.load import resolve_targets

    global _REAL_WORKER
    _REAL_WORKER = pool._analyze_in_worker
    monkeypatch.setattr(pool, "_analyze_in_worker", _dies_on_boom)
    (tmp_path / "pkg").mkdir()
    for i in range(60):  # over the pool threshold
        (tmp_path / "pkg" / f"m{i:02d}.py").write_text(GOOD)
    (tmp_path / "pkg" / "boom.py").write_text(GOOD)
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=2))
    status, reason = _status(report, "pkg/boom.py")
    assert status == FileStatus.ERROR and "killed its worker process" in reason
    assert sum(f.api == "torch.cuda.synchronize" for f in report.findings) == 60  # every other file is judged


def test_a_rule_that_raises_costs_one_verdict_not_the_scan(tmp_path, monkeypatch):
    """A rule's bug (here: the device-call rule raising on one API) is an error for that file and rule; the
    file's other findings, and the other files, are judged as usual."""
    from migrator.maps.load import resolve_targets
    from migrator.rules.device.device_call import DeviceCall

    from .conftest import write_tree

    original = DeviceCall.check

    def broken(self, usage, ctx):
        if usage.api == "torch.cuda.synchronize":
            raise KeyError("a bug")
        return original(self, usage, ctx)

    monkeypatch.setattr(DeviceCall, "check", broken)
    write_tree(tmp_path, {
        "train.py": "import torch\nx = torch.ones(2).cuda()\ntorch.cuda.synchronize()\nn = torch.cuda.device_count()\n"
                    "x = x.repeat(n)\n",
        "other.py": "import torch\ntorch.cuda.synchronize()\n",
    })
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    apis = {(f.path, f.api) for f in report.findings}
    assert ("train.py", "torch.Tensor.cuda") in apis and ("train.py", "torch.cuda.device_count") in apis
    assert not {api for _, api in apis} & {"torch.cuda.synchronize"}  # no stand-in verdict from a lower rule
    entries = {f.file.rel: f.reason or "" for f in report.files}
    assert "rule device-call failed on `torch.cuda.synchronize` at line 3: KeyError" in entries["train.py"]
    assert "at line 2" in entries["other.py"] and "a migrator bug" in entries["train.py"]


def test_folders_deeper_than_the_path_limit_are_one_error_and_the_rest_is_scanned(tmp_path, monkeypatch, scan_tree):
    monkeypatch.chdir(tmp_path)
    for depth in range(18):  # 18 names of 243 characters: past Linux's 4,096-byte PATH_MAX
        name = f"d{depth:02d}" + "x" * 240
        os.mkdir(name)
        os.chdir(name)
    with open("train.py", "w") as out:
        out.write(GOOD)
    monkeypatch.chdir(tmp_path)
    report = scan_tree({"top.py": GOOD}, ["cann"])
    assert [f.path for f in report.findings] == ["top.py"]
    (error,) = [f for f in report.files if f.status == FileStatus.ERROR]
    assert "cannot list this folder" in error.reason and error.file.rel.startswith("d00")


@pytest.mark.parametrize("empty_folder", [True, False], ids=["empty-folder", "no-folder"])
def test_a_submodule_not_checked_out_is_said_and_the_scan_goes_on(scan_tree, tmp_path, empty_folder):
    """dust3r cloned without ``--recursive``: its ``croco`` submodule's folder is empty, and the code that imports
    it is scanned without it; the report names the submodule and the command that fetches it. A listed path that
    leaves the folder is no submodule of this scan."""
    gitmodules = ('[submodule "croco"]\n\tpath = croco\n\turl = https://github.com/naver/croco\n'
                  '[submodule "present"]\n\tpath = third_party/present\n\turl = https://example.com/present\n'
                  '[submodule "escape"]\n\tpath = ../outside\n\turl = https://example.com/outside\n')
    if empty_folder:
        (tmp_path / "croco").mkdir()
    report = scan_tree({".gitmodules": gitmodules, "third_party/present/mod.py": "x = 1\n",
                        "train.py": "import torch\nfrom croco.models import CroCoNet\nx = torch.ones(1).cuda()\n"})
    skipped = {r.file.rel: r for r in report.files if r.status == FileStatus.SKIPPED}
    assert set(skipped) == {"croco"}
    assert "git submodule update --init croco" in skipped["croco"].reason
    assert "https://github.com/naver/croco" in skipped["croco"].reason
    assert any(f.path == "train.py" for f in report.findings)  # the rest is scanned


def test_code_that_could_not_be_read_is_said_at_the_top(scan_tree):
    """bearpaw's pytorch-classification: both training scripts hold Python 2's ``.cuda(async=True)``, a syntax
    error now; the text's first lines say the numbers leave them out, not only its last."""
    import io

    from migrator.report import text as text_report

    report = scan_tree({"cifar.py": "import torch\nx = torch.ones(2).cuda(async=True)\n",
                        "utils.py": "import torch\ny = torch.ones(2)\n"})
    out = io.StringIO()
    text_report.render(report, out)
    head = out.getvalue().split("\n\n")[:2]
    assert "1 code file could not be read (cifar.py)" in head[1], head
