"""Modules no run can import: a top-level ``from M import name`` where ``M`` is the project's own module and
defines no ``name``.

deepchem's ``contrib/torch/torch_model.py`` begins ``from deepchem.utils.save import log``, and ``save.py`` has
long defined no ``log``: the import raises ``ImportError``, so nothing in the module runs, and neither does
anything in the modules that import it at their top (``torch_multitask_regression.py``: ``from torch_model import
TorchMultitaskModel``). Their device code is in no run of the project: like a function nothing calls, tooling,
not the worklist (``training_entries.with_untrained_as_tooling``).

Only what the text shows for certain counts, read from each file's outline as it is analysed (``Outline.names``:
the cross-file stage parses nothing again). The import must be at the module's top level, outside ``try`` and
``if`` (a guarded import has its way on); the imported module must be a Python file of the scan, and the name
neither one of its submodules nor bound anywhere at its top level (a definition, an assignment, an import, a loop
or ``with`` target, in any ``if``/``try``/``with``/``for`` block, a ``global`` in a function, or what a star import
of another of the project's modules brings). A module that can give names its text does not show (a module
``__getattr__``, ``sys.modules``, ``globals()``, ``locals()``, ``vars()``, ``exec``, ``__path__``, a lazy module,
an ``__all__`` filled at run time) is taken to define every name.
"""

from __future__ import annotations

import os
from typing import Dict, FrozenSet, Mapping, Optional, Sequence, Set

from ..model import FileResult, ModuleNames
from ..resolve.modules import script_dir_heads


def unimportable(results: Sequence[FileResult]) -> Mapping[str, str]:
    """Each module no run can import -> why (``deepchem.utils.save defines no log``, or the module it
    imports that fails). Read from each file's outline (``Outline.names``): nothing is parsed again."""
    project = _Modules(results)
    imports: Dict[str, Set[str]] = {}  # module -> the project modules it imports at its top level
    failing: Dict[str, str] = {}
    for module, names in project.names.items():
        for base, taken in names.imports:
            base = project.located(module, base)
            if base not in project.names:
                continue
            imports.setdefault(module, set()).add(base)
            missing = next((name for name in taken if project.missing(name, base)), None)
            if missing is not None:
                failing.setdefault(module, f"`from {base} import {missing}` fails: "
                                           f"{project.files[base].file.rel} defines no `{missing}`")
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
    """The scan's Python modules, by what their outlines say they bind and import at their top."""

    def __init__(self, results: Sequence[FileResult]) -> None:
        self.files = {r.outline.module: r for r in results if r.outline is not None and r.file.rel.endswith(".py")}
        self.names: Dict[str, ModuleNames] = {m: r.outline.names for m, r in self.files.items()}  # type: ignore
        self.packages = {m for m, r in self.files.items() if r.file.rel.endswith("__init__.py")}
        self.heads = script_dir_heads(self.files)
        self.bound_names: Dict[str, Optional[FrozenSet[str]]] = {}

    def located(self, module: str, imported: str) -> str:
        """The module an import names: a script's folder is on ``sys.path`` (``from torch_model import ...``
        beside it); a package module's bare ``from typing import ...`` is the standard library's, whatever file
        sits beside it."""
        if module.rpartition(".")[0] in self.packages:
            return imported
        local = self.heads.get(module, {})
        head, dot, tail = imported.partition(".")
        return local[head] + dot + tail if head in local else imported

    def missing(self, name: str, base: str) -> bool:
        """Whether ``from base import name`` fails for certain. A package may hold a submodule the scan has no
        Python file of (kaolin's compiled ``_C``, a generated ``version``): of a package, only a class's name
        (capitalised, as modules never are) that nothing in its folder is named after counts."""
        if name == "*" or f"{base}.{name}" in self.files:
            return False
        defined = self.bound(base)
        if defined is None or name in defined:
            return False
        if base not in self.packages:
            return True
        if not name[:1].isupper():
            return False
        try:
            entries = os.listdir(os.path.dirname(self.files[base].file.path))
        except OSError:
            return False
        return not any(entry.split(".")[0] == name for entry in entries)

    def bound(self, module: str) -> Optional[FrozenSet[str]]:
        """The names ``module`` binds at its top level, those its star imports of the project's modules bring
        too; ``None`` where its text cannot say (a star import from outside the project, a dynamic module, an
        ``__all__`` naming what it does not bind)."""
        if module in self.bound_names:
            return self.bound_names[module]
        self.bound_names[module] = None  # (a star import that comes back here adds nothing it has not)
        names = self.names[module]
        found: Optional[Set[str]] = None if names.dynamic else set(names.bound)
        for base in names.stars:
            brought = self.exported(base) if found is not None and base in self.names else None
            found = found | brought if found is not None and brought is not None else None
        if found is not None and names.exports is not None and not set(names.exports) <= found:
            found = None  # it exports what its text does not bind: made some way the text does not show
        self.bound_names[module] = frozenset(found) if found is not None else None
        return self.bound_names[module]

    def exported(self, module: str) -> Optional[FrozenSet[str]]:
        """What ``from module import *`` binds: its ``__all__`` where written as a list of strings, else its
        public names."""
        every = self.bound(module)
        if every is None:  # (its ``__all__`` may be filled at run time: pyro's ``__all__.append(_name)``)
            return None
        exports = self.names[module].exports
        return frozenset(exports) if exports is not None else frozenset(n for n in every if not n.startswith("_"))
