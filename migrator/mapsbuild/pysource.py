"""What a Python module binds at its top level, read with ``ast``: shared by the readers of vendor packages'
sources (Paddle's API -> kernel table, the APIs each torch wheel has), which import nothing they read."""

from __future__ import annotations

import ast
from typing import Iterable, Iterator, List, Tuple

from ..resolve.modules import absolute_import


def top_level(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's statements, with those under its ``if`` and ``try`` blocks (``if TYPE_CHECKING:``,
    try-imports), which bind module names too."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            yield from top_level([*node.body, *node.orelse, *getattr(node, "finalbody", []),
                                  *[s for handler in getattr(node, "handlers", []) for s in handler.body]])


def imported(node: ast.stmt, module: str, is_package: bool) -> List[Tuple[str, str]]:
    """(local name, absolute name) for each name an import binds; ``("*", module)`` for a star import.
    ``import a.b`` binds ``a``; a relative import that climbs above the root binds nothing."""
    if isinstance(node, ast.Import):
        return [(alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0], alias.name.split(".")[0])
                for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        source = absolute_import(module, is_package, node.level, node.module)
        if source is None:
            return []
        return [("*", source) if alias.name == "*" else (alias.asname or alias.name, f"{source}.{alias.name}")
                for alias in node.names]
    return []
