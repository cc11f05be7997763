"""``migrator fix --shim``: the vendor's runtime patcher imported at each entry point, the vendors' own first
step (run on day one, then replace the shim file by file with real rewrites).

Each Python entry point of the call graph (a ``__main__`` block, a ``train*.py`` / ``main.py`` script, a
console script's module; never ``setup.py``, tests or notebooks, and never a module of a package, which other
code imports as a library: the patcher would change torch for all of it, unless the packaging metadata declares it
a console script: ``fairseq-train = fairseq_cli.train:cli_main`` makes ``fairseq_cli/train.py`` the program
pip installs, read from ``setup.py`` / ``setup.cfg`` / ``pyproject.toml`` as text, never run:
``graph/packaging.py``) gets the target's shim lines
(``shims.json``: ``import torch_npu`` and ``from torch_npu.contrib import transfer_to_npu`` on cann) after
its ``import torch``, those it already has left out. What the shim then covers, and what it does not, is the
plan's ``shim`` section (``migrator.shim``).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Mapping, Optional, Set

import libcst as cst

from ..maps.load import TargetMap
from ..model import EntryKind, Report
from ..shim import shims
from ..sources.python import ParseFailure, parse_python
from ..discover import base_dir
from . import Change, FileFix, FixReport, _import_position, _insert_import, imports_in, read_for_fix

#: entry-point kinds (``graph/entries.py``) that get the shim: the ones Python runs as a program
SHIMMED_KINDS = frozenset({"main-block", "script-name", "script", "console-script"})


def shim_fixes(root: Path, report: Report, target: TargetMap,
               scanned: Optional[Mapping[str, str]] = None) -> FixReport:
    """The shim lines added to each entry point of ``report``'s call graph that lacks them."""
    shim = shims().get(target.id)
    if shim is None or report.graph is None:
        return FixReport(target.id)
    paths = sorted({e.path for e in report.graph.entries if e.kind in SHIMMED_KINDS and e.path.endswith(".py")})
    programs = {e.path for e in report.graph.entries if e.kind == EntryKind.CONSOLE_SCRIPT}
    files: List[FileFix] = []
    for rel in paths:
        if _in_a_package(root, rel) and rel not in programs:
            files.append(FileFix(rel, "", None, error="a module of a package (its folder has an __init__.py), which "
                                                      "other code imports as a library: no shim added"))
            continue
        read = read_for_fix(root, rel, scanned)
        if isinstance(read, FileFix):
            files.append(read)
            continue
        text, digest, bom = read
        module = parse_python(text)  # within libcst's budgets (sources/python.parse_budget), or why not
        if isinstance(module, ParseFailure):
            files.append(FileFix(rel, text, None, error=f"does not parse: {module.reason}: no shim added"))
            continue
        have = _imported_modules(module)
        missing = [line for line in shim.imports if _module_of(line) not in have]
        if not missing:
            continue
        new = _insert_import(text, "\n".join(missing))
        after = _import_position(text)
        changes = tuple(Change(after + 1 + k, ("shim",), "", line) for k, line in enumerate(missing))
        files.append(FileFix(rel, text, new, (), (), changes, read_digest=digest, bom=bom))
    return FixReport(target.id, tuple(files))


def _in_a_package(root: Path, rel: str) -> bool:
    """``rel`` is a package's module (not its ``__main__.py``, which only runs as a program)."""
    path = base_dir(root) / rel
    return path.name != "__main__.py" and (path.parent / "__init__.py").is_file()


def _module_of(line: str) -> str:
    """``from torch_npu.contrib import transfer_to_npu`` -> ``torch_npu.contrib.transfer_to_npu``."""
    words = line.split()
    return f"{words[1]}.{words[3]}" if words[0] == "from" else words[1]


def _imported_modules(module: cst.Module) -> Set[str]:
    """Every module an import statement names, in any scope (``from a.b import c`` names ``a.b.c``)."""
    return {imported.module for imported in imports_in(module, anywhere=True)}
