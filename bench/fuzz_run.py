"""Fuzz run (issue 42): `scan`, `check` and `fix` over generated, damaged and hostile repositories, counted.

Three families of cases, each a small repository in its own temporary folder:

- generated: Python modules from hypothesmith (CPython's grammar, and libcst's node types), a batch a repository,
  some as notebook cells, each after two lines of CUDA code that `fix` has to rewrite;
- mutated: real files (``--corpus`` folders: /work/repos/*, bench/_downloads, the bundled examples) damaged byte by
  byte (flips, cuts, splices, hostile tokens, surrogates, NULs, CR/BOM/U+2028) and, for notebooks, in their JSON;
- adversarial: issue 42's inputs scaled by ``--scale`` (10 by default: 100,000-term ``and`` chains, 30,000 nested
  parentheses, 20 MB of statements, 2 MB requirements/Dockerfile/shell/C/CUDA/Python-2 files, 500,000 exclude
  patterns, deep notebooks and TOML, long subscript chains, FIFOs, link loops and links out, non-UTF-8 and
  control-character names, a shipped report link, a forged cache).

Every repository holds ``good_fix.py`` beside the hostile files: `fix` must rewrite it whatever its neighbours are.
The commands run in forked children of this process (the package imported once, a fresh process state per
command, its own process group): `scan` (a random format, with the cache), `check`, and `fix` on copies: `--diff`
(must change nothing), `--force` while another process appends a line to one file at a random moment (the line
must survive), and without `--force` in a clean git repository (must write), a dirty one or one with a broken
``.git`` (must refuse and write nothing). Next to each repository lies a folder nothing may write to (links in
the repository point into it); the case folder may gain nothing but the commands' named outputs.

Counted: cases, commands, tracebacks (an exception out of a command, a child killed by a signal, an exit code
other than 0/1/2), hangs (a command over the per-file budget; a batch over it is re-run a file at a time and
only a file over it alone counts), lost edits (the appended line gone, `good_fix.py` not rewritten, a file
changed that `fix` does not count as written), writes outside (anything changed beside the repository or by a
read-only command), and the time. Failures are listed with the case kept under ``--keep``.

    python bench/fuzz_run.py [--seed 0] [--scale 10] [--generated 120] [--mutated 60] [--budget 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from migrator.discover import MAX_FILE_BYTES  # noqa: E402

GOOD = "import torch\n\n\ndef step(x):\n    return torch.zeros(3, device='cuda') + x.cuda()\n"
CUDA_HEAD = "import torch\nx = torch.zeros(3, device='cuda')\n"
UNDER_CAP = MAX_FILE_BYTES - 4096  # the hostile files that are read: just under the size cap
MARKER = "# edited while fix ran "
#: ``--exclude=genNNNNN/*.py`` options a command line can carry (the system's argument limit, half of it for the
#: environment): 500,000 patterns reach no command, neither so (ARG_MAX) nor in a pyproject.toml (1 MiB cap)
ARGUMENTS_FIT = os.sysconf("SC_ARG_MAX") // 2 // (len("--exclude=gen99999/*.py") + 1 + 8)
UNCAUGHT = 70  # a forked command's exit code when an exception escaped it


# ---------------------------------------------------------------- running a command in a forked child

@dataclass(frozen=True)
class Ran:
    args: Tuple[str, ...]
    code: Optional[int]  # None: over the budget and killed
    signalled: Optional[int]
    seconds: float
    out: str
    err: str

    @property
    def traceback(self) -> bool:
        return (self.code == UNCAUGHT or self.signalled is not None or "Traceback (most recent call last)" in self.err
                or (self.code is not None and self.code not in (0, 1, 2)))


def run(args: Sequence[str], cwd: Path, timeout: float, env: Dict[str, str],
        during: Optional[Callable[[], None]] = None) -> Ran:
    """``migrator ARGS`` in a forked child (its own process group, stdin closed), killed past ``timeout``;
    ``during`` runs in a second child at the same time (the concurrent editor)."""
    from migrator.cli import main

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the command
            code = UNCAUGHT
            try:
                os.setpgid(0, 0)
                os.environ.update(env)
                os.chdir(cwd)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                try:
                    main(list(args), prog_name="migrator")
                    code = 0
                except SystemExit as exit_:
                    code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
                except BaseException:
                    traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        helper = None
        if during is not None:
            helper = os.fork()
            if helper == 0:
                try:
                    during()
                finally:
                    os._exit(0)
        code_: Optional[int] = None
        signalled = None
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                if os.WIFSIGNALED(status):
                    signalled = os.WTERMSIG(status)
                else:
                    code_ = os.WEXITSTATUS(status)
                break
            if time.perf_counter() - started > timeout:
                _kill_group(pid)
                os.waitpid(pid, 0)
                break
            time.sleep(0.005)
        seconds = time.perf_counter() - started
        _kill_group(pid)  # what the command left (pool workers) goes with it
        if helper is not None:
            os.waitpid(helper, 0)
        out.seek(0)
        err.seek(0)
        return Ran(tuple(args), code_, signalled, seconds, out.read().decode("utf-8", "replace"),
                   err.read().decode("utf-8", "replace"))


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---------------------------------------------------------------- what a tree holds

def snapshot(root: Path) -> Dict[str, Tuple[str, str]]:
    """Every entry under ``root`` (links not followed): its kind and its bytes' digest or link target."""
    found: Dict[str, Tuple[str, str]] = {}
    for folder, dirs, files in os.walk(os.fsencode(root)):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.fsdecode(os.path.relpath(path, os.fsencode(root)))
            try:
                info = os.lstat(path)
            except OSError as error:  # past PATH_MAX
                found[rel] = ("unreachable", str(error.errno))
                continue
            if stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.fsdecode(os.readlink(path)))
            elif stat.S_ISREG(info.st_mode):
                try:
                    with open(path, "rb") as handle:
                        found[rel] = ("file", hashlib.sha256(handle.read()).hexdigest())
                except OSError as error:
                    found[rel] = ("file", f"unreadable {error.errno}")
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("dir", "")
            else:
                found[rel] = ("special", str(stat.S_IFMT(info.st_mode)))
    return found


def changed(before: Dict[str, Tuple[str, str]], after: Dict[str, Tuple[str, str]]) -> List[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


# ---------------------------------------------------------------- cases

@dataclass
class Case:
    name: str
    files: Dict[str, bytes]  # relative path -> content
    build: Optional[Callable[[Path, Path], None]] = None  # (repository, outside) -> extra entries (links, FIFOs)
    config: Optional[str] = None  # pyproject.toml
    cwd_in_repo: bool = False  # scan with the default HTML output written in the repository
    private_cache: bool = False
    edited: Optional[str] = None  # the file the concurrent editor appends to (default: one chosen at random)
    refused: bool = False  # a configuration the commands refuse (exit 2): nothing is written, nothing to check
    check_args: Tuple[str, ...] = ()  # more options for the whole-repository `check`

    @property
    def file_count(self) -> int:
        return len(self.files)


def notebook(*sources: object, metadata: Optional[dict] = None) -> bytes:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
             for source in sources]
    return json.dumps({"cells": cells, "metadata": metadata or {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def text(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def generated_cases(count: int, seed: int, per_case: int) -> List[Case]:
    """hypothesmith's modules, ``per_case`` a repository, every third one a notebook cell."""
    import hypothesmith
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded, strategies

    modules: List[str] = []

    @seeded(seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategies.one_of(hypothesmith.from_grammar(auto_target=False), hypothesmith.from_node(auto_target=False)))
    def collect(source: str) -> None:
        modules.append(source)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collect()
    cases = []
    for start in range(0, len(modules), per_case):
        files: Dict[str, bytes] = {}
        for index, source in enumerate(modules[start:start + per_case]):
            if index % 3 == 2:
                files[f"gen{index}.ipynb"] = notebook(CUDA_HEAD, source)
            else:
                files[f"gen{index}.py"] = text(CUDA_HEAD + source)
        cases.append(Case(f"generated-{start // per_case}", files))
    return cases


CORPUS_SUFFIXES = (".py", ".ipynb", ".cu", ".cuh", ".cpp", ".h", ".sh", ".txt", ".yaml", ".yml", ".json", ".toml",
                   ".cfg")
HOSTILE_TOKENS = (b"(", b"[", b"{", b"'", b'"""', b"\\", b"\x00", b"\t", b"\r", b"\r\n", b"\xef\xbb\xbf",
                  b"\xe2\x80\xa8", b"\xed\xa0\x80", b"\\ud800", b"lambda", b":", b"device='cuda'", b".cuda()",
                  b"torch.cuda.synchronize()", b"%time ", b"!pip install x\n", b"\n    ", b"#", b"__global__ void k(",
                  b"-f=", b"1e3", b"\x1b[31m", b"*" * 40, b"and " * 50, b"[0]" * 80)


def corpus_files(folders: Sequence[Path]) -> List[Path]:
    found = []
    for folder in folders:
        for path in folder.rglob("*"):
            if ((path.suffix in CORPUS_SUFFIXES or path.name.startswith(("Dockerfile", "requirements")))
                    and path.is_file() and not path.is_symlink() and 0 < path.stat().st_size < 400_000):
                found.append(path)
    return sorted(found)


def damaged(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        if not data:
            return rng.choice(HOSTILE_TOKENS)
        how = rng.choice(("flip", "cut", "splice", "insert", "insert", "duplicate"))
        at = rng.randrange(len(data))
        if how == "flip":
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
        elif how == "cut":
            data = data[:at]
        elif how == "splice":
            other = rng.randrange(len(data))
            data = data[:min(at, other)] + data[max(at, other):]
        elif how == "duplicate":
            other = rng.randrange(len(data))
            data = data[:at] + data[min(at, other):max(at, other)] + data[at:]
        else:
            data = data[:at] + rng.choice(HOSTILE_TOKENS) + data[at:]
    return data


def damaged_notebook(data: bytes, rng: random.Random) -> bytes:
    """A notebook damaged in its JSON: values swapped for hostile ones, sources split or joined."""
    try:
        document = json.loads(data)
        cells = document["cells"]
        assert isinstance(cells, list) and cells
    except Exception:
        return damaged(data, rng)
    hostile: List[object] = [None, 1e308, -0.0, 10 ** 30, "x\u2028y", "\ud800", [], {}, "%time y = x.cuda()\n",
                             ["import torch\n", "torch.cuda.synchronize()"], "a" * 10_000, [[[[[]]]]], True]
    for _ in range(rng.randint(1, 4)):
        cell = rng.choice(cells)
        if not isinstance(cell, dict):
            continue
        key = rng.choice(("source", "cell_type", "metadata", "outputs", "execution_count", "id"))
        if key == "source" and isinstance(cell.get("source"), str) and rng.random() < 0.5:
            cell["source"] = cell["source"].splitlines(keepends=True)
        else:
            cell[key] = rng.choice(hostile)
    return json.dumps(document, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def mutated_cases(count: int, rng: random.Random, corpus: Sequence[Path], per_case: int) -> List[Case]:
    cases = []
    for index in range(count):
        files: Dict[str, bytes] = {}
        for number, path in enumerate(rng.sample(list(corpus), min(per_case, len(corpus)))):
            data = path.read_bytes()
            data = damaged_notebook(data, rng) if path.suffix == ".ipynb" and rng.random() < 0.6 else damaged(data, rng)
            files[f"m{number}/{path.name}"] = data
        cases.append(Case(f"mutated-{index}", files))
    return cases


def adversarial_cases(scale: int) -> List[Case]:
    """Issue 42's inputs, each ``scale`` times the size the issue names; the readers' ones grown to the cap."""
    def fill(unit: str, prefix: str = "", suffix: str = "") -> bytes:  # ~200 KB x scale, kept under the size cap
        size = min(200_000 * scale, UNDER_CAP) - len(prefix) - len(suffix)
        return text(prefix + unit * max(1, size // max(1, len(unit))) + suffix)

    def chain(word: str, terms: int) -> str:
        return "ok = " + f" {word} ".join(["a"] * terms) + "\n"

    and_chain = chain("and", 10_000 * scale)
    cases = [
        Case("and-chain", {"chain.py": text("import torch\n" + and_chain),
                           "chain.ipynb": notebook(CUDA_HEAD, and_chain)}),
        Case("or-chain-in-a-function",
             {"chain.py": text("import torch\ndef f():\n    " + chain("or", 10_000 * scale))}),
        Case("nested-parentheses",
             {"deep.py": text("x = " + "(" * (3_000 * scale) + "1" + ")" * (3_000 * scale) + "\n")}),
        Case("nested-lists", {"deep.py": text("x = " + "[" * (3_000 * scale) + "]" * (3_000 * scale) + "\n")}),
        Case("unclosed-parentheses", {"deep.py": text("x = " + "(" * (3_000 * scale) + "\n")}),
        Case("unary-minus-run", {"deep.py": text("x = " + "-" * (10_000 * scale) + "1\n")}),
        Case("long-sum", {"sum.py": text("x = " + " + ".join(["1"] * (4_000 * scale)) + "\n")}),
        Case("subscript-chain", {"sub.py": text("import torch\nx = a" + "[0]" * (2_000 * scale) + "\n")}),
        Case("attribute-chain", {"attr.py": text("import torch\nx = torch" + ".cuda" * (2_000 * scale) + "\n")}),
        Case("call-chain", {"call.py": text("import torch\nx = f" + "()" * (2_000 * scale) + "\n")}),
        Case("statements-20MB", {"big.py": b"x = 1\n" * (2_000_000 * scale // 6)}),
        Case("statements-under-cap", {"big.py": b"x = torch.ones(1).cuda()\n" * (UNDER_CAP // 25)}),
        Case("one-line-under-cap", {"line.py": b"x = '" + b"a" * (UNDER_CAP - 10) + b"'\n"}),
        Case("requirements-index-options", {"requirements.txt": fill("-f=", suffix="\n")}),
        Case("requirements-spaces", {"requirements.txt": fill(" ", "torch==2.1.0+cu118", "x\n")}),
        Case("shell-index-options", {"install.sh": fill("-f=", "pip install x ", "\n")}),
        Case("shell-spaces", {"run.sh": fill(" ", "", "x\n")}),
        Case("dockerfile-spaces", {"Dockerfile": fill(" ", "ENV CUDA_HOME=/x", "\n")}),
        Case("cuda-one-word-lines", {"k.cu": fill("a\n")}),
        Case("cuda-unclosed-kernels", {"k.cu": fill("__global__ void k(){\n")}),
        Case("cuda-unclosed-parameters", {"k.cu": fill("__global__ void k(\n")}),
        Case("cpp-unclosed-signatures", {"k.cpp": fill("int f(\n")}),
        Case("cuda-escaped-quotes", {"k.cu": fill('"\\')}),
        Case("cuda-blank-lines-include", {"k.cu": fill("\n", "", "#include <cuda.h>\n")}),
        Case("cuda-comments", {"k.cu": fill("/*")}),
        Case("cpp-registration-blocks", {"ops.cpp": fill('PYBIND11_MODULE(a, m) {\nm.def("f", &f);\n')}),
        Case("python2-blank-lines", {"old.py": fill("\n", "", "print 'x'\n")}),
        Case("python2-indented-blank-lines", {"old.py": fill(" \n", "", "def f(:\n")}),
        Case("brackets-in-a-string", {"s.py": fill("[", "import torch\nx = '", "'\n")}),
        Case("conditionals-in-a-string", {"s.py": fill(" if ", "import torch\nx = '", "'\n")}),
        Case("long-list-of-strings", {"s.py": text("import torch\nW = [" + ",".join(
            f"'w{i}'" for i in range(min(20_000 * scale, UNDER_CAP // 10))) + ", 'cuda']\n")}),
        Case("exclude-patterns-over-1MiB", {"a.py": text(GOOD)}, config="[tool.migrator]\nexclude = [" + ",".join(
            f'"gen{i}/*.py"' for i in range(50_000 * scale)) + "]\n", refused=True),
        Case("exclude-patterns-under-1MiB", {"a.py": text(GOOD)}, config="[tool.migrator]\nexclude = [" + ",".join(
            f'"{i}/"' for i in range(min(50_000 * scale, 100_000))) + "]\n"),
        Case("exclude-options", {"a.py": text(GOOD), "gen7/b.py": text(GOOD)}, check_args=tuple(
            f"--exclude=gen{i}/*.py" for i in range(min(50_000 * scale, ARGUMENTS_FIT)))),
        Case("gitignore-wildcards", {".gitignore": text(("*a" * 30 + "c\n") * (100 * scale) + "*a*a*a*a*a*a*a*b\n"),
                                     **{"a" * 200 + f"{i}.py": text(GOOD) for i in range(20)}}),
        Case("gitignore-many-lines", {".gitignore": text("".join(f"dir{i}/*.py\n" for i in range(50_000 * scale)))}),
        Case("deep-pyproject", {}, config="[tool.migrator]\nx = " + "[" * (5_000 * scale) + "]" * (5_000 * scale),
             refused=True),
        Case("pyproject-wrong-types", {}, config='tool = "x"\n'),
        Case("pyproject-table-wrong-types", {}, config='[tool.migrator]\nexclude = 3\ntargets = [1, {}]\n',
             refused=True),
        Case("baseline-outside", {}, config='[tool.migrator]\nbaseline = "../outside/baseline.json"\n',
             refused=True),
        Case("deep-notebook-metadata", {"nb.ipynb": notebook(CUDA_HEAD, metadata={"x": json.loads(
            "[" * 50 + "]" * 50)}).replace(b'"metadata": {"x"', b'"metadata": {"y": ' + b"[" * (10_000 * scale)
                                           + b"]" * (10_000 * scale) + b', "x"')}),
        Case("deep-notebook-source", {"nb.ipynb": b'{"cells": [{"cell_type": "code", "source": '
                                      + b"[" * (10_000 * scale) + b"]" * (10_000 * scale)
                                      + b'}], "metadata": {}, "nbformat": 4}'}),
        Case("many-cells", {"nb.ipynb": notebook(*([CUDA_HEAD] + ["y = x.cuda()\n"] * (3_000 * scale)))}),
        Case("notebook-surrogates", {
            "code.ipynb": notebook(CUDA_HEAD + "s = '\ud800'\n"),
            "beside.ipynb": notebook(CUDA_HEAD, "s = '\udcff'\n"),
            "magic.ipynb": notebook("import torch\n!echo '\ud800'\nx = torch.zeros(3, device='cuda')\n"),
            "lines.ipynb": notebook(["import torch\n", "%ls \udcff\n", "x = torch.zeros(3, device='cuda')\n"]),
            "raw.ipynb": notebook(CUDA_HEAD).replace(b"import torch", b"import torch #\xed\xa0\x80"),
            "meta.ipynb": notebook(CUDA_HEAD, metadata={"k": "\ud800"})}),
        Case("notebook-odd-json", {"nb.ipynb": notebook(CUDA_HEAD, "a = 1\u2028\n").replace(
            b'"nbformat": 4', b'"nbformat": 4.0, "x": 1e3, "y": -0.0, "z": 1E+400')}),
        Case("notebook-magic-device-code", {"nb.ipynb": notebook(
            "import torch\n%time y = torch.zeros(3, device='cuda')\n%timeit -n1 torch.cuda.synchronize()\n")}),
        Case("binary-and-bom-crlf", {"blob.py": b"\x00\x01\x02" * 1000, "bom.py": b"\xef\xbb\xbf" + text(
            CUDA_HEAD).replace(b"\n", b"\r\n"), "mixed.py": b"import torch\r\nx = torch.zeros(3, device='cuda')\r"
            b"y = 1\n", "latin.py": b"# -*- coding: latin-1 -*-\n" + text(CUDA_HEAD) + b"s = '\xe9'\n"}),
        Case("many-files", {**{f"pkg{i % 7}/m{i}.py": text(GOOD.replace("step", f"step{i}")) for i in range(120)},
                            "pkg0/chain.py": text("import torch\n" + and_chain),
                            "pkg1/deep.py": text("x = " + "(" * 30_000 + ")" * 30_000 + "\n")}),
        Case("fifo-and-links", {"pkg/train.py": text(GOOD)}, build=_links_and_fifos),
        Case("non-utf8-and-control-names", {}, build=_odd_names),
        Case("path-near-path-max", {}, build=_deep_path),
        Case("shipped-report-link", {"train.py": text(GOOD)}, build=_report_link, cwd_in_repo=True),
        Case("broken-dot-git", {"train.py": text(GOOD)}, build=_broken_git),
        Case("forged-cache", {"train.py": text(GOOD)}, build=_forged_cache, private_cache=True),
    ]
    return cases


def _links_and_fifos(repo: Path, outside: Path) -> None:
    os.mkfifo(repo / "pipe.py")
    os.mkfifo(repo / "requirements.txt")
    (repo / "pkg" / "loop").symlink_to(repo / "pkg")
    (repo / "a.py").symlink_to(repo / "b.py")
    (repo / "b.py").symlink_to(repo / "a.py")
    (repo / "escape.py").symlink_to(outside / "victim.py")  # a link out: never followed, never written
    (repo / "escape_dir").symlink_to(outside)
    (repo / "zero.py").symlink_to("/dev/zero")


def _odd_names(repo: Path, outside: Path) -> None:
    for name in (b"caf\xe9.py", b"\xff\xfe/train.py", "\x1b[31mred\x07.py".encode(), b"new\nline.py",
                 "\u202eevil.py".encode()):
        path = os.path.join(os.fsencode(repo), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(GOOD.encode())


def _deep_path(repo: Path, outside: Path) -> None:
    path = os.fsencode(repo)
    while len(path) < 4096 - 300:
        path = os.path.join(path, b"d" * 200)
        os.mkdir(path)
    with open(os.path.join(path, b"train.py"), "wb") as handle:
        handle.write(GOOD.encode())
    here = os.getcwd()
    os.chdir(path)
    try:
        os.makedirs(b"e" * 250 + b"/" + b"f" * 250, exist_ok=True)  # past PATH_MAX from the root
    finally:
        os.chdir(here)


def _report_link(repo: Path, outside: Path) -> None:
    (repo / "migrator-report.html").symlink_to(outside / "victim.py")
    (repo / "report.json").symlink_to(outside / "victim.py")


def _broken_git(repo: Path, outside: Path) -> None:
    (repo / ".git").write_text("gitdir: /nonexistent/elsewhere\n")


def _forged_cache(repo: Path, outside: Path) -> None:
    """The case's own cache folder, full of what migrator did not write: FIFOs, links out, forged entries."""
    cache = repo.parent / "cache" / "migrator"
    for prefix in ("00", "ab", "ff"):
        (cache / prefix).mkdir(parents=True, exist_ok=True)
        os.mkfifo(cache / prefix / ("0" * 62 + ".pkl"))
        (cache / prefix / ("1" * 62 + ".pkl")).write_bytes(b"\x80\x04forged" * 100)
        (cache / prefix / ("2" * 62 + ".pkl")).symlink_to(outside / "victim.py")
    (cache / "cd").symlink_to(outside)
    (cache / "last-prune").symlink_to(outside / "victim.py")


# ---------------------------------------------------------------- one case through the commands

@dataclass
class Tally:
    cases: int = 0
    commands: int = 0
    tracebacks: int = 0
    hangs: int = 0
    lost_edits: int = 0
    writes_outside: int = 0
    slowest: float = 0.0
    slowest_what: str = ""
    failures: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def failed(self, kind: str, case: str, what: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        self.failures.append(f"{kind}: {case}: {what}")


def lay(case: Case, base: Path) -> Tuple[Path, Path]:
    repo, outside = base / "repo", base / "outside"
    outside.mkdir(parents=True)
    (outside / "victim.py").write_text(GOOD)
    (outside / "sub").mkdir()
    (outside / "sub" / "train.py").write_text(GOOD)
    repo.mkdir()
    for rel, data in case.files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (repo / "good_fix.py").write_text(GOOD)
    if case.config is not None:
        (repo / "pyproject.toml").write_text(case.config)
    if case.build is not None:
        case.build(repo, outside)
    return repo, outside


def _git(repo: Path, *args: str) -> bool:
    """Whether git did it in time (a hostile ``.gitignore`` makes git's own matching backtrack for minutes)."""
    try:
        subprocess.run(["git", "-c", "user.name=fuzz", "-c", "user.email=fuzz@example.invalid", "-c",
                        "commit.gpgsign=false", *args], cwd=repo, capture_output=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        return False
    return True


def copy_repo(repo: Path, into: Path) -> Path:
    """A copy as it is: links as links, FIFOs as FIFOs, names as bytes, paths past PATH_MAX (``cp -a`` walks by
    folder descriptors)."""
    subprocess.run(["cp", "-a", "--", str(repo), str(into)], capture_output=True, timeout=300, check=False)
    return into


def fixed_count(ran: Ran) -> Optional[int]:
    for line in ran.err.splitlines():
        if line.startswith("applied ") and " file(s) for " in line:
            return int(line.split(" in ", 1)[1].split(" ", 1)[0])
    return None


def run_case(case: Case, base: Path, rng: random.Random, budget: float, env: Dict[str, str], tally: Tally,
             verbose: bool) -> None:
    tally.cases += 1
    repo, outside = lay(case, base)
    cwd = base / "cwd"
    cwd.mkdir()
    if case.private_cache:
        env = {**env, "XDG_CACHE_HOME": str(base / "cache")}
    timeout = budget * max(1, case.file_count)  # a batch is killed past its files' budgets; a command over one

    def command(args: Sequence[str], where: Path, during: Optional[Callable[[], None]] = None) -> Ran:
        ran = run(args, where, timeout, env, during)
        tally.commands += 1
        if ran.seconds > tally.slowest:
            tally.slowest, tally.slowest_what = ran.seconds, f"{case.name}: {' '.join(args[:1])}"
        if verbose:
            last = (ran.err.strip().splitlines() or [""])[-1][:150] if ran.code else ""
            print(f"  {case.name:32s} {' '.join(args)[:60]:60s} {ran.code} {ran.seconds:6.2f}s {last}", flush=True)
        if ran.code is None or ran.seconds > budget:  # budget is re-run a file at a time (``_bisected``)
            tally.failed("hangs", case.name, f"{' '.join(args)[:120]} took {ran.seconds:.0f} s"
                         + (" (killed)" if ran.code is None else ""))
        if ran.code is None:
            pass
        elif ran.traceback:
            tally.failed("tracebacks", case.name, f"{' '.join(args)[:120]} -> exit {ran.code} signal "
                         f"{ran.signalled}: {ran.err[-1500:]}")
        return ran

    outside_before = snapshot(outside)
    repo_before = snapshot(repo)
    fmt = rng.choice(("text", "json", "sarif", "html"))
    if case.cwd_in_repo:
        command(["scan", ".", "--format", "html"], repo)
        allowed = {"migrator-report.html"}
    else:
        command(["scan", str(repo), "--format", fmt, "-o", str(cwd / f"report.{fmt}")], cwd)
        allowed = set()
    command(["check", *case.check_args], repo)
    command(["check", "--format", "sarif", "--no-cache", *[str(repo / rel) for rel in list(case.files)[:5]]], repo)
    moved = [rel for rel in changed(repo_before, snapshot(repo)) if rel not in allowed]
    if moved:
        tally.failed("writes_outside", case.name, f"scan/check changed the repository: {moved[:5]}")

    # fix --diff: nothing may change
    diffed = copy_repo(repo, base / "diff")
    before = snapshot(diffed)
    command(["fix", str(diffed), "--target", "cann", "--diff"], cwd)
    if changed(before, snapshot(diffed)):
        tally.failed("writes_outside", case.name, f"fix --diff wrote {changed(before, snapshot(diffed))[:5]}")

    # fix --force while an editor appends to a file
    forced = copy_repo(repo, base / "forced")
    before = snapshot(forced)
    candidates = [rel for rel in case.files if os.path.isfile(forced / rel) and not os.path.islink(forced / rel)
                  and rel.endswith((".py", ".ipynb"))]
    edited = case.edited or (rng.choice(candidates) if candidates else None)
    token = f"{MARKER}{rng.randrange(10 ** 9)}\n"
    delay = rng.uniform(0.0, 1.5)

    def editor() -> None:
        time.sleep(delay)
        with open(forced / edited, "a") as handle:  # type: ignore[operator]
            handle.write(token)

    ran = command(["fix", str(forced), "--target", "cann", "--force", "--no-cache" if rng.random() < 0.5 else "-q"],
                  cwd, editor if edited else None)
    after = snapshot(forced)
    if ran.code is not None and not ran.traceback and not (case.refused and ran.code == 2):
        if edited and token not in (forced / edited).read_text("utf-8", "surrogateescape"):
            tally.failed("lost_edits", case.name, f"the editor's line in {edited} is gone after fix --force")
        if (forced / "good_fix.py").read_text() == GOOD:
            tally.failed("lost_edits", case.name, f"good_fix.py not rewritten: {ran.err[-600:]}")
        rewritten = [rel for rel in changed(before, after) if rel != edited]
        count = fixed_count(ran)
        if count is not None and len(rewritten) > count:
            tally.failed("lost_edits", case.name, f"fix says {count} file(s), changed {rewritten[:8]}")

    # fix without --force: a clean git repository is written, a dirty one (or a broken .git) is not
    plain = copy_repo(repo, base / "plain")
    dirty = rng.random() < 0.4
    if not (plain / ".git").exists():
        if not (_git(plain, "init", "-q") and _git(plain, "add", "-A") and _git(plain, "commit", "-q", "-m", "case")):
            tally.notes.append(f"{case.name}: git itself cannot build this tree in 30 s: fix without --force not run "
                               "(it would wait for git status until gitcheck's timeout, then refuse)")
            return _beside(case, base, outside, outside_before, tally)
        if dirty:
            (plain / "good_fix.py").write_text(GOOD + "\n# uncommitted\n")
    broken = (plain / ".git").is_file()
    before = snapshot(plain)
    ran = command(["fix", str(plain), "--target", "cann"], cwd)
    if ran.code is not None and not ran.traceback and not (case.refused and ran.code == 2):
        wrote = [rel for rel in changed(before, snapshot(plain)) if not rel.startswith(".git/") and rel != ".git"]
        if (dirty or broken) and (wrote or ran.code != 2):
            tally.failed("writes_outside", case.name, f"fix without --force on a {'broken' if broken else 'dirty'}"
                         f" tree: exit {ran.code}, wrote {wrote[:5]}")
        if not dirty and not broken and "good_fix.py" not in wrote:
            tally.failed("lost_edits", case.name, f"fix on a clean repository did not rewrite good_fix.py: "
                         f"exit {ran.code} {ran.err[-600:]}")

    _beside(case, base, outside, outside_before, tally)


def _beside(case: Case, base: Path, outside: Path, outside_before: Dict[str, Tuple[str, str]], tally: Tally) -> None:
    escaped = changed(outside_before, snapshot(outside))
    if escaped:
        tally.failed("writes_outside", case.name, f"the folder beside changed: {escaped[:5]}")
    extra = sorted(set(os.listdir(base)) - {"repo", "outside", "cwd", "diff", "forced", "plain", "cache"})
    if extra:
        tally.failed("writes_outside", case.name, f"new entries beside the repository: {extra}")


def _bisected(case: Case, base: Path, rng: random.Random, budget: float, env: Dict[str, str], tally: Tally,
              verbose: bool) -> None:
    """A batch over its budget is re-run a file at a time: only a file over the budget alone is a hang."""
    hangs = [f for f in tally.failures if f.startswith(f"hangs: {case.name}:")]
    if not hangs or case.file_count <= 1:
        return
    tally.hangs -= len(hangs)
    tally.failures = [f for f in tally.failures if f not in hangs]
    alone = Tally()  # what else the single runs find was counted in the batch already
    for index, (rel, data) in enumerate(case.files.items()):
        single = replace(case, name=f"{case.name}/{rel}", files={rel: data})
        run_case(single, base / f"single{index}", rng, budget, env, alone, verbose)
    tally.commands += alone.commands
    tally.hangs += alone.hangs
    tally.failures += [f for f in alone.failures if f.startswith("hangs:")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=int, default=10, help="the adversarial inputs' size, times the issue's")
    parser.add_argument("--generated", type=int, default=120, help="hypothesmith modules (0: none)")
    parser.add_argument("--mutated", type=int, default=40, help="repositories of damaged real files (0: none)")
    parser.add_argument("--per-case", type=int, default=8, help="files a generated or mutated repository holds")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds one file may take in one command")
    parser.add_argument("--corpus", type=Path, action="append", default=None,
                        help="folders of real files to damage (default: /work/repos/*, bench/_downloads/*, examples)")
    parser.add_argument("--only", default="",
                        help="run only the cases whose name contains one of these (comma-separated)")
    parser.add_argument("--no-adversarial", action="store_true")
    parser.add_argument("--keep", type=Path, help="keep the failing cases' folders here")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    started = time.perf_counter()
    rng = random.Random(args.seed)
    corpus_folders = args.corpus or [p for p in sorted(Path("/work/repos").glob("*")) + sorted(
        (HERE / "_downloads").glob("*")) + [HERE.parent / "examples"] if p.is_dir()]
    corpus = corpus_files(corpus_folders)
    cases: List[Case] = []
    if not args.no_adversarial:
        cases += adversarial_cases(args.scale)
    if args.generated:
        cases += generated_cases(args.generated, args.seed, args.per_case)
    if args.mutated and corpus:
        cases += mutated_cases(args.mutated, rng, corpus, args.per_case)
    cases = [c for c in cases if any(word in c.name for word in args.only.split(","))]
    print(f"{len(cases)} cases (corpus: {len(corpus)} files in {len(corpus_folders)} folders), seed {args.seed}, "
          f"scale {args.scale}, budget {args.budget:.0f} s a file", flush=True)

    import migrator.cli  # noqa: F401  # imported once, before the forks
    import migrator.pipeline  # noqa: F401
    import libcst  # noqa: F401

    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="migrator-fuzz-", ignore_cleanup_errors=True) as scratch:
        root = Path(scratch)
        env = {"XDG_CACHE_HOME": str(root / "cache"), "XDG_CONFIG_HOME": str(root / "config"),
               "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root / "home"), "COLUMNS": "120"}
        (root / "home").mkdir()
        for number, case in enumerate(cases):
            base = root / f"case{number}"
            base.mkdir()
            failures = len(tally.failures)
            case_rng = random.Random(f"{args.seed}-{case.name}")
            try:
                run_case(case, base, case_rng, args.budget, env, tally, args.verbose)
                _bisected(case, base, case_rng, args.budget, env, tally, args.verbose)
            except Exception:  # the bench's own failure: named, the run goes on
                tally.failures.append(f"bench: {case.name}: {traceback.format_exc()[-800:]}")
            if len(tally.failures) > failures:
                print(f"{case.name}: {len(tally.failures) - failures} failure(s)", flush=True)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    copy_repo(base, args.keep / case.name.replace("/", "_"))
            subprocess.run(["rm", "-rf", "--", str(base)], check=False)
    for failure in tally.failures:
        print(failure[:2000])
    for note in tally.notes:
        print(f"note: {note}")
    print(f"cases {tally.cases}  commands {tally.commands}  tracebacks {tally.tracebacks}  hangs {tally.hangs}  "
          f"lost edits {tally.lost_edits}  writes outside {tally.writes_outside}  "
          f"time {time.perf_counter() - started:.0f} s  (slowest command {tally.slowest:.1f} s: {tally.slowest_what})")


if __name__ == "__main__":
    main()
