"""Entry points: where a run starts. ``__main__`` blocks, scripts named like ``train*.py`` / ``main.py``,
notebooks, ``setup.py`` (pip runs it), the project's console scripts (``sources/packaging.py``) and
``--entry MODULE[:FUNC]``. Test files are never entry points."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Mapping, Optional, Sequence, Tuple

from ..discover import base_dir
from ..model import Context, EntryPoint, FileKind, FileResult, Outline
from ..project.contexts import path_context
from ..sources.outline import MAIN
from ..sources.packaging import console_scripts

if TYPE_CHECKING:
    from .names import GraphIndex

_SCRIPT_NAME = re.compile(r"^(train\w*|\w*_train|pretrain\w*|finetune\w*|main|run_\w+)$")


def entry_points(root: Path, outlines: Mapping[str, Tuple[FileResult, Outline]], index: "GraphIndex",
                  extra: Sequence[str]) -> Tuple[Tuple[EntryPoint, ...], Tuple[str, ...]]:
    """The entry points, and the ``--entry`` specs that name nothing in the scanned code."""
    found: Dict[str, EntryPoint] = {}

    def add(node: Optional[str], kind: str, path: str, line: int) -> None:
        if node and node in index.graph and node not in found:
            found[node] = EntryPoint(node=node, kind=kind, path=path, line=line)

    for module, (result, outline) in sorted(outlines.items()):
        rel = result.file.rel
        if path_context(rel) == Context.TEST:  # the same test files the findings' context names
            continue
        stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if result.file.kind == FileKind.NOTEBOOK:
            add(module, "notebook", rel, 1)
        elif stem == "setup":
            add(module, "setup", rel, 1)
        elif outline.main_lines:
            add(f"{module}.{MAIN}", "main-block", rel, outline.main_lines[0])
        elif _SCRIPT_NAME.match(stem):
            add(module, "script-name", rel, 1)

    def add_spec(spec: str, kind: str) -> bool:
        """``pkg.mod:func`` (a console script, ``--entry``): added when it names a node."""
        node = index.resolve(spec.replace(":", "."))
        if node:
            data = index.graph.nodes[node]
            add(node, kind, data.get("path", ""), data.get("line", 1))
        return node is not None

    for spec in console_scripts(base_dir(root)):
        add_spec(spec, "console-script")
    unresolved = tuple(spec for spec in extra if not add_spec(spec, "cli"))
    return tuple(sorted(found.values(), key=lambda e: e.node)), unresolved
