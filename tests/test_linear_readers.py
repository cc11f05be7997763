"""Every reader of file content is linear-time on adversarial input (issue 42, "Hangs").

Each input is ~200 KB built to make a backtracking regular expression or a per-item rescan go quadratic: the
code before this took from tens of seconds to minutes on each of them. The bound is on this process's CPU time
(every read here runs in it: ``jobs=1``), not the wall clock, and generous: a machine shared with other work
passes in well under it, so a failure means the reader went back to rescanning, not a busy machine.
"""
import time

import pytest

from migrator.model import FileKind
from migrator.sources.cuda import read_cuda
from migrator.sources.environment import read_environment
from migrator.sources.python import python2_marker

SIZE = 200_000
BOUND_SECONDS = 5.0


def _timed(call, *args):
    started = time.process_time()
    result = call(*args)
    return result, time.process_time() - started


CUDA_INPUTS = {
    "one-word-lines": "a\n" * (SIZE // 2),  # each line start rescanned the file for a function signature
    "unclosed-kernels": "__global__ void k(){\n" * (SIZE // 21),  # each kernel rescanned to the end for its brace
    "unclosed-kernel-parameters": "__global__ void k(\n" * (SIZE // 20),
    "unclosed-signatures": "int f(\n" * (SIZE // 7),
    "unclosed-escaped-quotes": '"\\' * (SIZE // 2),  # each quote rescanned its line
    "blank-lines-before-include": "\n" * SIZE + "#include <cuda.h>\n",  # ``^\s*`` crossed the blank lines
    "unterminated-comments": "/*" * (SIZE // 2),
    "unclosed-registration-blocks": 'PYBIND11_MODULE(a, m) {\nm.def("f", &f);\n' * (SIZE // 40),
}


@pytest.mark.parametrize("text", list(CUDA_INPUTS.values()), ids=list(CUDA_INPUTS))
def test_cuda_reader_is_linear(text):
    facts, seconds = _timed(read_cuda, text)
    assert seconds < BOUND_SECONDS, f"{seconds:.1f} s"
    assert facts.code_lines >= 0


def test_cuda_reader_on_hostile_text_still_reads_what_is_there():
    """The one-pass matching keeps the answers: a closed kernel after a thousand unclosed ones is measured, an
    include after blank lines is found, and a block that is never closed ends where the next one starts."""
    text = ("__global__ void open(\n" * 1000 + ";\n__global__ void k(float* x) {\n  x[0] = 1;\n}\n"
            + "\n" * 5000 + "#include <cublas_v2.h>\n"
            + 'PYBIND11_MODULE(a, m) {\n  m.def("f", &f);\n' + 'PYBIND11_MODULE(b, n) {\n  n.def("g", &g);\n}\n')
    facts = read_cuda(text)
    assert [(k.name, k.lines) for k in facts.kernels] == [("k", 3)]
    assert facts.cuda_includes == ("cublas_v2.h",)
    assert sorted((r.name, r.namespace) for r in facts.registrations) == [("f", "a"), ("g", "b")]


ENVIRONMENT_INPUTS = {
    # ``\s+#.*$`` rescanned the run of spaces from each space
    "spaces-without-comment": (FileKind.SHELL, " " * SIZE + "x\n"),
    # the wheel-index expression rescanned the word from each ``-f`` inside it
    "index-options-in-one-word": (FileKind.SHELL, "pip install x " + "-f=" * (SIZE // 3) + "\n"),
    "index-options-requirement": (FileKind.REQUIREMENTS, "-f=" * (SIZE // 3) + "\n"),
    "dockerfile-spaces": (FileKind.DOCKERFILE, "ENV CUDA_HOME=/x" + " " * SIZE + "\n"),
    # ``docker .*? --gpus`` rescanned the line from every engine's name
    "container-engine-words": (FileKind.SHELL, "docker " * (SIZE // 7) + "\n"),
}


@pytest.mark.parametrize("kind, text", list(ENVIRONMENT_INPUTS.values()), ids=list(ENVIRONMENT_INPUTS))
def test_environment_reader_is_linear(kind, text):
    usages, seconds = _timed(read_environment, text, kind)
    assert seconds < BOUND_SECONDS, f"{seconds:.1f} s"


def test_environment_reader_keeps_its_answers_on_hostile_lines():
    text = "pip install x " + "-f=" * 1000 + "https://download.pytorch.org/whl/cu118   # a comment\n"
    usages = read_environment(text, FileKind.SHELL)
    assert [(u.api, u.args[0].value.text) for u in usages] == [
        ("pip.index-url", "-f=" * 999 + "https://download.pytorch.org/whl/cu118")]
    assert read_environment("CUDA_HOME=/x" + " " * 5000 + "# CUDA_VISIBLE_DEVICES=1\n", FileKind.SHELL)[0].context \
        == "CUDA_HOME"


PYTHON2_INPUTS = {
    "blank-lines": "\n" * SIZE + "print 'x'\n",  # ``^\s*`` crossed the blank lines from every line start
    "indented-blank-lines": " \n" * (SIZE // 2) + "def f(:\n",
}


@pytest.mark.parametrize("text", list(PYTHON2_INPUTS.values()), ids=list(PYTHON2_INPUTS))
def test_python2_detection_is_linear(text):
    marker, seconds = _timed(python2_marker, text)
    assert seconds < BOUND_SECONDS, f"{seconds:.1f} s"


def test_python2_detection_names_the_failing_line_only():
    assert python2_marker("\n" * 1000 + "print 'x'\n") == "print statement at line 1001"
    assert python2_marker("MODE = 0o644\n# chmod 0755\ndef f(:\n") is None


STEP_INPUTS = {
    # a string of ``[`` and one of `` if ``: each rescanned the line to its end looking for a mask or an ``else``
    "brackets-in-a-string": 'import torch\nx = "' + "[" * SIZE + '"\n',
    "conditionals-in-a-string": 'import torch\nx = "' + " if " * (SIZE // 4) + '"\n',
    # every string of a long list was given every other as its siblings (20,000 words: 30 s)
    "a-long-list-of-strings": ("import torch\nWORDS = [" + ",".join(f"'w{i}'" for i in range(SIZE // 10))
                               + ", 'cuda']\n"),
}


@pytest.mark.parametrize("code", list(STEP_INPUTS.values()), ids=list(STEP_INPUTS))
def test_python_reader_is_linear(scan_tree, code):
    report, seconds = _timed(scan_tree, {"train.py": code})
    assert seconds < BOUND_SECONDS, f"{seconds:.1f} s"
    assert [f.status.value for f in report.files] == ["ok"]


def test_gitignore_wildcards_are_linear(tmp_path):
    """Eight ``*`` in a ``.gitignore`` line against long file names: pathspec's ``[^/]*`` runs backtracked for
    minutes; each ``*`` but a name's last is now matched atomically."""
    from migrator.discover import discover

    (tmp_path / ".gitignore").write_text("*a*a*a*a*a*a*a*b\n**/x*y*z*w\n" + "*a" * 30 + "c\n")
    for index in range(40):
        (tmp_path / ("a" * 200 + f"{index}.py")).write_text("x = 1\n")
    (tmp_path / ("a" * 40 + "c")).mkdir()  # thirty ``*a`` and a ``c``: once left out, now used
    (tmp_path / ("a" * 40 + "c") / "ignored_too.py").write_text("x = 1\n")
    (tmp_path / ("a" * 20 + "b")).mkdir()
    (tmp_path / ("a" * 20 + "b") / "ignored.py").write_text("x = 1\n")
    found, seconds = _timed(discover, tmp_path)
    assert seconds < BOUND_SECONDS, f"{seconds:.1f} s"
    assert len(found.files) == 40 and not any("ignored" in f.rel for f in found.files)
    assert not found.skipped  # every line was used


def test_half_a_million_exclude_patterns_are_not_quadratic(tmp_path):
    """``[tool.migrator] exclude`` with 500,000 patterns over 200 files: ``fnmatch`` recompiled every pattern for
    every file (4 s a file at 50,000); compiled once, the folders are set lookups and the globs grouped by their
    start, each group translated only when a path needs it (translating all of them took 6 s here)."""
    from migrator.discover import Discovery
    from migrator.model import FileKind, SourceFile
    from migrator.pipeline import without_excluded

    patterns = ([f"generated/part{index}/" for index in range(100_000)]
                + [f"gen{index}/*.py" for index in range(400_000)])
    rels = [f"src/module{index}.py" for index in range(200)] + ["generated/part77/x.py", "gen42/deep/y.py"]
    found = Discovery(tuple(SourceFile(str(tmp_path / rel), rel, FileKind.PYTHON, 1) for rel in rels), ())
    kept, seconds = _timed(without_excluded, found, (patterns, ""))
    assert seconds < BOUND_SECONDS / 2, f"{seconds:.1f} s"  # 6 s when every glob was translated
    assert [f.rel for f in kept.files] == rels[:200]
