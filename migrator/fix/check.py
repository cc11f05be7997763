"""``migrator fix --check``: import each changed module before and after the write, and report what the fix broke.

This runs the repository's code: importing a module runs its top level (imports, decorators, module-level
statements), in a subprocess of the same Python, with the repository's folders on ``sys.path``. It is opt-in for
that reason, and it does not run training: a module whose top level does more than define (a call, a loop, a
``with`` outside ``if __name__ == "__main__":``) is not imported, and said so. Each import has its own process and
a timeout; bytecode is not written into the repository.

Before the write the original modules are imported the same way, so a failure the fix did not cause (a library
missing on this machine) is told apart from one it did (``ImportCheck.broken``).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from ..discover import base_dir

#: what a module's top level may hold and still be imported: definitions, imports, assignments, docstrings,
#: ``if``/``try`` blocks of those, and ``if __name__ == "__main__":``
_DEFINES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
            ast.AnnAssign, ast.AugAssign, ast.Pass)

_PROGRAM = """
import importlib, json, sys, traceback
sys.path.insert(0, {home!r})
try:
    importlib.import_module({module!r})
    print(json.dumps(None))
except BaseException as exc:
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({{frame.filename}}:{{frame.lineno}})" if frame else ""
    print(json.dumps(f"{{type(exc).__name__}}: {{exc}}{{where}}"))
"""


@dataclass(frozen=True)
class ImportCheck:
    """One changed module: its import before and after the fix (``None``: it imported; else the error), or why
    it was not imported (``skipped``)."""

    path: str
    module: Optional[str] = None
    before: Optional[str] = None
    after: Optional[str] = None
    skipped: Optional[str] = None

    @property
    def broken(self) -> bool:
        """It imported before the fix and does not after."""
        return self.skipped is None and self.before is None and self.after is not None


def importable(root: Path, rel: str) -> Tuple[Optional[Tuple[str, str]], Optional[str]]:
    """``((folder for sys.path, module name), None)`` for a module that can be imported without running more
    than definitions, or ``(None, why not)``."""
    if not rel.endswith(".py"):
        return None, "not a Python module (notebooks and scripts are not imported)"
    path = base_dir(root) / rel
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
        return None, f"cannot be read: {exc}"
    busy = _runs_code(tree.body)
    if busy is not None:
        return None, f"its top level runs code at line {busy} (it would run on import): not imported"
    parts = list(Path(rel).with_suffix("").parts)
    home = path.parent
    while (home / "__init__.py").is_file() and home != base_dir(root).parent:
        home = home.parent
    depth = len(path.relative_to(home).parts)
    module = ".".join(parts[-depth:])
    if parts[-1] == "__init__":
        module = ".".join(parts[-depth:-1])
    if not module or not all(p.isidentifier() for p in module.split(".")):
        return None, "its path is not a module name"
    return (str(home), module), None


def _runs_code(body: Iterable[ast.stmt]) -> Optional[int]:
    """The line of the first top-level statement that does more than define, or ``None``."""
    for statement in body:
        if isinstance(statement, _DEFINES):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, ast.If):
            test = statement.test
            if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__":
                continue
            inner = _runs_code([*statement.body, *statement.orelse])
            if inner is not None:
                return inner
            continue
        if isinstance(statement, ast.Try):
            inner = _runs_code([*statement.body, *statement.orelse, *statement.finalbody,
                                *(s for h in statement.handlers for s in h.body)])
            if inner is not None:
                return inner
            continue
        return statement.lineno
    return None


def import_all(root: Path, rels: Iterable[str], timeout: float) -> Dict[str, ImportCheck]:
    """Import each module in its own process; ``ImportCheck.after`` holds the outcome (``None``: imported)."""
    results: Dict[str, ImportCheck] = {}
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for rel in rels:
        where, why = importable(root, rel)
        if where is None:
            results[rel] = ImportCheck(rel, skipped=why)
            continue
        home, module = where
        try:
            done = subprocess.run([sys.executable, "-c", _PROGRAM.format(home=home, module=module)],
                                  capture_output=True, text=True, env=env, timeout=timeout, cwd=home)
            lines = done.stdout.strip().splitlines()
            outcome = json.loads(lines[-1]) if lines else f"the interpreter exited with {done.returncode}: " \
                + (done.stderr.strip().splitlines() or [""])[-1]
        except subprocess.TimeoutExpired:
            outcome = f"no answer in {timeout:g} s (the import was stopped)"
        except (OSError, ValueError) as exc:
            outcome = f"cannot run the import: {exc}"
        results[rel] = ImportCheck(rel, module, after=outcome)
    return results


def compared(before: Dict[str, ImportCheck], after: Dict[str, ImportCheck]) -> List[ImportCheck]:
    """Each module after the fix, with how it imported before."""
    out = []
    for rel, check in sorted(after.items()):
        prior = before.get(rel)
        out.append(ImportCheck(rel, check.module, prior.after if prior is not None else None, check.after,
                               check.skipped))
    return out


def report_lines(checks: List[ImportCheck], plugin: Optional[str]) -> List[str]:
    """What ``--check`` prints: the modules the fix broke first, then the ones that failed before too, then a
    count of the ones that import."""
    lines = []
    for check in checks:
        if check.broken:
            hint = (f" ({plugin} is not installed here: run --check where the target's runtime is)"
                    if plugin and f"No module named '{plugin}'" in (check.after or "") else "")
            lines.append(f"check: {check.path}: imports before the fix, fails after: {check.after}{hint}")
    for check in checks:
        if check.skipped is None and check.before is not None and check.after is not None:
            lines.append(f"check: {check.path}: fails before and after the fix (not the fix's doing): {check.after}")
        elif check.skipped is None and check.before is not None:
            lines.append(f"check: {check.path}: failed before the fix, imports after")
    skipped = [c for c in checks if c.skipped is not None]
    for check in skipped:
        lines.append(f"check: {check.path}: {check.skipped}")
    fine = sum(1 for c in checks if c.skipped is None and c.after is None)
    lines.append(f"check: {fine} of {len(checks)} changed module(s) import after the fix; "
                 f"{sum(c.broken for c in checks)} broken by it; {len(skipped)} not imported")
    return lines
