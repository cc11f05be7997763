"""Dotted names: the one way migrator walks ``a.b.c`` from its longest prefix to its shortest."""

from __future__ import annotations

from typing import Callable, Iterator, Optional, Tuple, TypeVar

T = TypeVar("T")


def prefixes(name: str, proper: bool = False) -> Iterator[Tuple[str, str]]:
    """(prefix, rest) pairs, longest prefix first: ``a.b.c`` -> (``a.b.c``, ``""``), (``a.b``, ``c``), (``a``,
    ``b.c``). ``proper`` leaves out the whole name itself."""
    if not proper:
        yield name, ""
    end = len(name)
    while True:
        end = name.rfind(".", 0, end)
        if end <= 0:
            return
        yield name[:end], name[end + 1:]


def longest(name: str, found: Callable[[str], Optional[T]], proper: bool = False) -> Optional[Tuple[str, str, T]]:
    """The longest prefix of ``name`` for which ``found(prefix)`` is truthy: (prefix, rest, what it gave)."""
    for prefix, rest in prefixes(name, proper):
        value = found(prefix)
        if value:
            return prefix, rest, value
    return None
