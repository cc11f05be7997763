"""The project's files read again by the cross-file stages (a device default's callers, a launch's scripts, the
modules that turn a mode on): the per-file stage keeps no text or tree for them, so a stage that needs a few files
reads them here, each text once per stage (``texts``) and each tree once per project stage (``forget_parsed`` at
its end: the trees are read, never changed)."""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Set

from ..discover import read_source
from ..model import FileResult
from ..sources.python import decode_source, parse_ast


def read_text(result: Optional[FileResult], texts: Dict[str, Optional[str]]) -> Optional[str]:
    """A file's decoded text (``None``: unreadable, or not text), kept in ``texts`` by its path."""
    if result is None:
        return None
    if result.file.rel not in texts:
        try:
            decoded = decode_source(read_source(result.file.path))
        except OSError:
            decoded = None
        texts[result.file.rel] = decoded if isinstance(decoded, str) else None
    return texts[result.file.rel]


def parse_text(text: Optional[str]) -> Optional[ast.Module]:
    """The module's tree, or ``None`` when it cannot be parsed."""
    return None if text is None else _parsed(text)


def forget_parsed() -> None:
    _parsed.cache_clear()


@lru_cache(maxsize=64)
def _parsed(text: str) -> Optional[ast.Module]:
    return parse_ast(text)


def block_end(rows: Sequence[str], line: int) -> int:
    """The last line of the block a statement at ``line`` (1-based, into ``rows``) opens, read by indentation alone
    (before any parse): the lines after it that are blank, indented deeper, or close its brackets."""
    head = rows[line - 1]
    indent = len(head) - len(head.lstrip())
    last = line
    for number in range(line, len(rows)):
        row = rows[number]
        if row.strip() and len(row) - len(row.lstrip()) <= indent and not row.lstrip().startswith((")", "]")):
            break
        last = number + 1
    return last


def type_references(tree: ast.Module) -> Set[int]:
    """The nodes inside annotations and ``isinstance``/``issubclass`` class arguments: a class named as a type,
    not handed on to be called."""
    roots: List[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
            roots.append(node.args[1])
    return {id(inner) for root in roots for inner in ast.walk(root)}
