"""Modules no run can import: a top-level ``from M import name`` where ``M`` is the project's own module and
defines no ``name``.

deepchem's ``contrib/torch/torch_model.py`` begins ``from deepchem.utils.save import log``, and ``save.py`` has
long defined no ``log``: the import raises ``ImportError``, so nothing in the module runs, and neither does
anything in the modules that import it at their top (``torch_multitask_regression.py``: ``from torch_model import
TorchMultitaskModel``). Their device code is in no run of the project: like a function nothing calls, tooling,
not the worklist (``training_entries.with_untrained_as_tooling``).

Only what the text shows for certain counts. The import must be at the module's top level, outside ``try`` and
``if`` (a guarded import has its way on); the imported module must be a Python file of the scan, and the name
neither one of its submodules nor bound anywhere at its top level (a definition, an assignment, an import, a
loop or ``with`` target, in any ``if``/``try``/``with``/``for`` block, or a ``global`` in a function). A module
that can give names the text does not show (a star import, a module ``__getattr__``, ``sys.modules``,
``globals()``, ``exec``, ``setattr`` on itself) is taken to define every name.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Dict, FrozenSet, Iterator, Mapping, Optional, Sequence, Set, Tuple

from ..model import FileResult
from ..resolve.modules import absolute_import, script_dir_heads
from .reread import parse_text, read_text

_TRY_STAR = tuple(t for t in (getattr(ast, "TryStar", None),) if t is not None)  # ``try``/``except*`` (3.11)
#: what lets a module give names its text does not bind
_DYNAMIC = re.compile(r"__getattr__|sys\.modules|\b(?:globals|locals|vars)\(\)|\bexec\(|setattr\(|__path__|lazy")


def unimportable(results: Sequence[FileResult], texts: Dict[str, Optional[str]]) -> Mapping[str, str]:
    """Each module no run can import -> why (``deepchem.utils.save defines no log``, or the module it
    imports that fails)."""
    project = _Modules(results, texts)
    imports: Dict[str, Set[str]] = {}  # module -> the project modules it imports at its top level
    failing: Dict[str, str] = {}
    for module in project.by_module:
        for base, name in project.top_imports(module):
            imports.setdefault(module, set()).add(base)
            if name is not None and project.missing(name, base):
                failing.setdefault(module, f"`from {base} import {name}` fails: "
                                           f"{project.by_module[base].file.rel} defines no `{name}`")
    changed = True
    while changed:  # what imports a module that fails at its top fails with it
        changed = False
        for module, targets in imports.items():
            broken = next((t for t in sorted(targets) if t in failing), None)
            if module not in failing and broken is not None:
                failing[module] = f"it imports {broken}, which fails ({failing[broken]})"
                changed = True
    return failing


class _Modules:
    """The scan's Python modules, read for the names they bind and the imports they make at their top."""

    def __init__(self, results: Sequence[FileResult], texts: Dict[str, Optional[str]]) -> None:
        self.by_module = {r.outline.module: r for r in results if r.outline is not None and r.file.rel.endswith(".py")}
        self.packages = {m for m, r in self.by_module.items() if r.file.rel.endswith("__init__.py")}
        self.heads = script_dir_heads(self.by_module)
        self.texts = texts
        self.names: Dict[str, Optional[FrozenSet[str]]] = {}

    def tree(self, module: str) -> Optional[ast.Module]:
        text = read_text(self.by_module[module], self.texts)
        return parse_text(text) if text is not None else None

    def top_imports(self, module: str) -> Iterator[Tuple[str, Optional[str]]]:
        """(project module, name or ``None``) for each import at the module's top level, outside any block."""
        tree = self.tree(module)
        # a script's folder is on ``sys.path`` (``from torch_model import ...`` beside it); a package module's
        # bare ``from typing import ...`` is the standard library's, whatever file sits beside it
        local = self.heads.get(module, {}) if module.rpartition(".")[0] not in self.packages else {}

        def located(name: str) -> str:
            head, dot, tail = name.partition(".")
            return local[head] + dot + tail if head in local else name

        for stmt in tree.body if tree is not None else ():
            if isinstance(stmt, ast.ImportFrom) and stmt.module != "__future__":
                base = absolute_import(module, module in self.packages, stmt.level, stmt.module)
                base = located(base) if base is not None and not stmt.level else base
                if base in self.by_module:
                    yield from ((base, alias.name) for alias in stmt.names)
            elif isinstance(stmt, ast.Import):
                yield from ((located(a.name), None) for a in stmt.names if located(a.name) in self.by_module)

    def missing(self, name: str, base: str) -> bool:
        """Whether ``from base import name`` fails for certain. A package may hold a submodule the scan has no
        Python file of (kaolin's compiled ``_C``, a generated ``version``): of a package, only a class's name
        (capitalised, as modules never are) that nothing in its folder is named after counts."""
        if name == "*" or f"{base}.{name}" in self.by_module:
            return False
        defined = self.bound(base)
        if defined is None or name in defined:
            return False
        if base not in self.packages:
            return True
        if not name[:1].isupper():
            return False
        try:
            entries = os.listdir(os.path.dirname(self.by_module[base].file.path))
        except OSError:
            return False
        return not any(entry.split(".")[0] == name for entry in entries)

    def bound(self, module: str) -> Optional[FrozenSet[str]]:
        """The names ``module`` binds at its top level, those its star imports of the project's modules bring
        too; ``None`` where its text cannot say (a star import from outside the project, a dynamic module)."""
        if module in self.names:
            return self.names[module]
        self.names[module] = None  # (a star import that comes back here adds nothing it has not)
        text = read_text(self.by_module[module], self.texts)
        tree = parse_text(text) if text is not None and not _DYNAMIC.search(text) else None
        found: Optional[Set[str]] = set(_top_level_names(tree)) if tree is not None else None
        for stmt in tree.body if tree is not None else ():
            if found is not None and isinstance(stmt, ast.ImportFrom) and stmt.names[0].name == "*":
                base = absolute_import(module, module in self.packages, stmt.level, stmt.module)
                brought = self.exported(base) if base in self.by_module else None
                found = found | brought if brought is not None else None
        listed = _all_of(tree) if tree is not None else None
        if found is not None and listed is not None and not listed <= found:
            found = None  # it exports what its text does not bind: made some way the text does not show
        self.names[module] = frozenset(found) if found is not None else None
        return self.names[module]

    def exported(self, module: str) -> Optional[FrozenSet[str]]:
        """What ``from module import *`` binds: its ``__all__`` where written as a list of strings, else its
        public names."""
        every = self.bound(module)
        if every is None:  # (its ``__all__`` may be filled at run time: pyro's ``__all__.append(_name)``)
            return None
        tree = self.tree(module)
        listed = _all_of(tree) if tree is not None else None
        return listed if listed is not None else frozenset(n for n in every if not n.startswith("_"))


def _all_of(tree: ast.Module) -> Optional[FrozenSet[str]]:
    """A module's ``__all__``, where one top-level assignment writes it as a list or tuple of strings."""
    if any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "__all__"
           or isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == "__all__"
           for n in ast.walk(tree)):
        return None  # ``__all__.append(...)``, ``__all__ += [...]``: more than it is written as
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
            value = stmt.value
            if isinstance(value, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                return frozenset(e.value for e in value.elts)  # type: ignore[attr-defined]
            return None
    return None


def _top_level_names(tree: ast.Module) -> FrozenSet[str]:
    """Every name a module binds at its top level, in any block there, and by ``global`` in its functions."""
    found: Set[str] = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With,
                               ast.AsyncWith)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if not isinstance(
                node, (ast.With, ast.AsyncWith)) else [i.optional_vars for i in node.items if i.optional_vars]
            for target in targets:
                found.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        if isinstance(node, (ast.If, ast.Try, *_TRY_STAR, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While,
                             ast.Match)):
            for block in ("body", "orelse", "finalbody"):
                stack.extend(getattr(node, block, ()))
            for case in getattr(node, "cases", ()):
                stack.extend(case.body)
                found.update(n.name for n in ast.walk(case.pattern) if isinstance(n, ast.MatchAs) and n.name)
            for handler in getattr(node, "handlers", ()):
                stack.extend(handler.body)
                if handler.name:
                    found.add(handler.name)
    found.update(name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names)
    found.update(n.target.id for n in ast.walk(tree) if isinstance(n, ast.NamedExpr)
                 and isinstance(n.target, ast.Name))
    return frozenset(found)
