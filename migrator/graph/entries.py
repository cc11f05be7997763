"""Entry points: where a run starts. ``__main__`` blocks, scripts named like ``train*.py`` / ``main.py``,
notebooks, ``setup.py`` (pip runs it) (a ``train*.py`` another module imports is a library's module, not a
script), the project's console scripts (``graph/packaging.py``) and ``--entry MODULE[:FUNC]``. A library
with none of these but its packaging (timm's sdist) and its own modules' ``__main__`` blocks (deepod's,
flair's: its authors' trials) starts where its users do: every public module, function, class and method of
its packages, and what their ``__init__`` re-exports, behind one ``pkg.<public api>`` entry each
(``public-api``). Test files are never entry points."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Dict, FrozenSet, Mapping, Optional, Sequence, Set, Tuple

from ..discover import base_dir
from ..model import Context, EntryPoint, FileKind, FileResult, Outline
from ..contexts import path_context
from ..sources.outline import MAIN, runs_at_its_top
from .packaging import console_scripts
from ..model import EntryKind
from ..model import NodeKind

if TYPE_CHECKING:
    from .index import GraphIndex

_SCRIPT_NAME = re.compile(r"^(train\w*|\w*_train|pretrain\w*|finetune\w*|main|run_\w+)$")


def named_as_a_script(rel: str) -> bool:
    """``train.py``, ``pretrain_gpt.py``, ``main.py``, ``run_glue.py``: a file named as a run's entry."""
    return bool(_SCRIPT_NAME.match(rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]))


def _started_at(module: str, result: FileResult, outline: Outline, imported: bool,
                outlines: Mapping[str, Tuple[FileResult, Outline]]) -> Optional[Tuple[str, EntryKind, int]]:
    """Where a run starts in one module (its node, why, the line), if one does: a notebook, ``setup.py``, a
    ``__main__`` block, or, where no module imports it, a script named for training or one with code at its top
    outside any package."""
    rel = result.file.rel
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if result.file.kind == FileKind.NOTEBOOK:
        return module, EntryKind.NOTEBOOK, 1
    if stem == "setup":
        return module, EntryKind.SETUP, 1
    if outline.main_lines:
        return f"{module}.{MAIN}", EntryKind.MAIN_BLOCK, outline.main_lines[0]
    if not imported and _SCRIPT_NAME.match(stem):
        return module, EntryKind.SCRIPT_NAME, 1
    if not imported and runs_at_its_top(rel, outline) and not _in_a_package(module, outlines):
        return module, EntryKind.SCRIPT, 1
    return None


def _in_a_package(module: str, outlines: Mapping[str, Tuple[FileResult, Outline]]) -> bool:
    """Whether a module's folder is a package (has an ``__init__.py``): its modules are imported, not run by path."""
    parent = module.rpartition(".")[0]
    return bool(parent) and parent in outlines and outlines[parent][0].file.rel.endswith("__init__.py")


def entry_points(root: Path, outlines: Mapping[str, Tuple[FileResult, Outline]], index: "GraphIndex",
                  extra: Sequence[str]) -> Tuple[Tuple[EntryPoint, ...], Tuple[str, ...]]:
    """The entry points, and the ``--entry`` specs that name nothing in the scanned code."""
    found: Dict[str, EntryPoint] = {}

    def add(node: Optional[str], kind: EntryKind, path: str, line: int) -> None:
        if node and node in index.graph and node not in found:
            found[node] = EntryPoint(node=node, kind=kind, path=path, line=line)

    imported = _imported_modules(outlines)
    for module, (result, outline) in sorted(outlines.items()):
        rel = result.file.rel
        if path_context(rel) == Context.TEST:  # the same test files the findings' context names
            continue
        started = _started_at(module, result, outline, module in imported, outlines)
        if started is not None:
            add(started[0], started[1], rel, started[2])

    def add_spec(spec: str, kind: EntryKind) -> bool:
        """``pkg.mod:func`` (a console script, ``--entry``): added when it names a node."""
        node = index.resolve(spec.replace(":", "."))
        if node:
            data = index.graph.nodes[node]
            add(node, kind, data.get("path", ""), data.get("line", 1))
        return node is not None

    for spec in console_scripts(base_dir(root)):
        add_spec(spec, EntryKind.CONSOLE_SCRIPT)
    unresolved = tuple(spec for spec in extra if not add_spec(spec, EntryKind.CLI))
    packaged = _public_apis(outlines, index)
    if all(_library_s_own(entry, {p for p, _, _ in packaged}) for entry in found.values()):
        # a library: runs start at what it exports (its modules' own ``__main__`` blocks are its authors' trials)
        for package, rel, public in packaged:
            node = f"{package}.{PUBLIC_API}"
            index.graph.add_node(node, kind=NodeKind.PUBLIC_API, path=rel, line=1)
            for target in public:
                index.add_edge(node, target, kind="exports")
            add(node, EntryKind.PUBLIC_API, rel, 1)
    return tuple(sorted(found.values(), key=lambda e: e.node)), unresolved


def _library_s_own(entry: EntryPoint, packages: AbstractSet[str]) -> bool:
    """Whether an entry leaves a library a library: its packaging (``setup.py``), or a ``__main__`` block inside
    one of its packages' modules (deepod's ``models/time_series/seq_reg_ad.py``: a trial its author runs, while
    its users start at the estimators the package exports)."""
    return entry.kind == EntryKind.SETUP or (
        entry.kind == EntryKind.MAIN_BLOCK and "." in entry.node.removesuffix(f".{MAIN}")
        and entry.node.split(".", 1)[0] in packages)


def _imported_modules(outlines: Mapping[str, Tuple[FileResult, Outline]]) -> FrozenSet[str]:
    """The modules another module of the project imports (``from flair.trainers.trainer import ModelTrainer``):
    a ``trainer.py`` so imported is a library's module, run by its importers' runs, not a script of its own
    (a script's ``__main__`` block still makes it one)."""
    heads: Set[str] = set()
    for module, (result, outline) in outlines.items():
        if path_context(result.file.rel) == Context.TEST:  # a test importing ``train`` leaves it a script
            continue
        for name in outline.imports:
            parts = name.split(".")
            heads.update(".".join(parts[:n]) for n in range(1, len(parts) + 1) if ".".join(parts[:n]) != module)
    return frozenset(heads & set(outlines))


#: The node that stands for a library's public API (``pkg.<public api>``): one entry for all it exports.
PUBLIC_API = "<public api>"


def _public_apis(outlines: Mapping[str, Tuple[FileResult, Outline]], index: "GraphIndex"):
    """Per top-level package of training code: its ``__init__`` path and the nodes its users can call: every
    module, function, class and method whose dotted name has no private part (``_helpers``; dunders such as
    ``__init__`` are public), and whatever a public package's ``__init__`` re-exports from a private module
    (``timm.create_model`` is ``timm.models._factory.create_model``). When in doubt the graph reaches more."""
    packages = {module: result.file.rel for module, (result, _) in outlines.items()
                if "." not in module and result.file.rel.endswith("__init__.py")
                and path_context(result.file.rel) == Context.TRAINING}
    public: Dict[str, set] = {package: set() for package in packages}
    for node, data in index.graph.nodes(data=True):
        package = node.split(".", 1)[0]
        if package in public and data.get("kind") in _CALLABLE and _is_public(node):
            public[package].add(node)
    for module, (result, outline) in outlines.items():
        package = module.split(".", 1)[0]
        if package not in public or not _is_public(module) or not result.file.rel.endswith("__init__.py"):
            continue
        for name, target in outline.bindings:
            node = index.resolve(target) if not name.startswith("_") else None
            if node and index.graph.nodes[node].get("kind") in _CALLABLE:
                public[package].add(node)
    return [(package, packages[package], sorted(nodes)) for package, nodes in sorted(public.items()) if nodes]


_CALLABLE = frozenset({"module", "function", "method", "class"})


def _is_public(dotted: str) -> bool:
    return not any(part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
                   for part in dotted.split("."))
