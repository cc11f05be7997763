"""A read-only walk over a libcst tree that calls a visitor's ``visit_<Node>`` / ``leave_<Node>`` methods.

libcst's own ``Module.visit`` rebuilds every node as it goes (it serves transformers too), which costs more
than parsing. Migrator only reads the tree, so this walks the dataclass fields directly, in source order,
skips whitespace and punctuation fields, and looks methods up once per node type. The contract is libcst's:
``visit_X`` returning False skips the node's children; ``leave_X`` is called after them.

Given a ``NodeIndex``, the walk also notes the parent of every node it enters, which is how ``Positions``
later finds the nodes a file reports in CPython's ``ast`` without generating code.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

import libcst as cst

from ..engine.positions import NodeIndex

#: Fields that hold only whitespace, comments or punctuation: nothing a rule looks at.
_TRIVIA = frozenset({
    "lpar", "rpar", "comma", "dot", "semicolon", "leading_lines", "lines_after_decorators", "header", "footer",
    "newline", "equal", "colon", "star", "asterisk", "whitespace", "lbracket", "rbracket", "lbrace", "rbrace",
    "trailing_whitespace", "first_line", "empty_lines", "last_line", "whitespace_before", "whitespace_after",
    "whitespace_after_at", "whitespace_after_def", "whitespace_after_class", "whitespace_before_colon",
    "whitespace_after_import", "whitespace_before_import", "whitespace_after_from", "whitespace_after_arg",
    "whitespace_before_params", "whitespace_after_star", "whitespace_after_param", "whitespace_after_name",
    "whitespace_before_as", "whitespace_after_as", "whitespace_after_func", "whitespace_before_args",
    "whitespace_after_await", "whitespace_after_with", "whitespace_after_except", "whitespace_before_in",
    "whitespace_after_in", "whitespace_after_for", "whitespace_after_if", "whitespace_before_if",
    "whitespace_before_else", "whitespace_after_else", "whitespace_after_return", "whitespace_after_lambda",
    "whitespace_after_assert", "whitespace_after_del", "whitespace_after_raise", "whitespace_after_global",
    "whitespace_after_nonlocal", "whitespace_after_while", "whitespace_after_indicator", "whitespace_after_yield",
    "whitespace_after_case", "whitespace_after_match", "whitespace_before_from", "whitespace_after_value",
    "whitespace_before_value", "whitespace_before_indicator", "whitespace_after_walrus", "whitespace_before_walrus",
    "whitespace_before_expression", "whitespace_after_expression", "whitespace_before_colon_token",
    "whitespace_before_keyword", "whitespace_after_keyword", "indent",
})

#: Fields whose ``Name`` labels something instead of referring to a binding: an attribute's name (``x.cuda``),
#: a keyword's (``f(device=...)``), a parameter's, a definition's; and annotations, which name types. Not
#: walked: a visitor of names would take ``args.amp`` for the ``amp`` that ``from apex import amp`` bound, and
#: they are a seventh of all nodes.
LABELS = frozenset({("Attribute", "attr"), ("Arg", "keyword"), ("Param", "name"), ("FunctionDef", "name"),
                     ("ClassDef", "name"),
                     # annotations name types, they call nothing: ``scaler: Optional[torch.cuda.amp.GradScaler]``
                     ("Param", "annotation"), ("AnnAssign", "annotation"), ("FunctionDef", "returns")})

_Entry = Tuple[Optional[Callable], Optional[Callable], Tuple[str, ...]]


class Walker:
    """Walks with one or more visitors; with several, each node's ``visit_X`` runs on them in order, and a
    node's children are skipped when the first visitor that has a ``visit_X`` returns False."""

    def __init__(self, *visitors: object, index: Optional[NodeIndex] = None,
                 skip: FrozenSet[Tuple[str, str]] = LABELS) -> None:
        """``skip``: (node type, field) pairs not walked into; every field with ``skip=frozenset()``."""
        self.visitors = visitors
        self._entries: Dict[type, _Entry] = {}
        self._index = index
        self._skip = skip

    def _entry(self, cls: type) -> _Entry:
        entry = self._entries.get(cls)
        if entry is None:
            name = cls.__name__
            fields = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _TRIVIA
                           and not f.name.startswith("whitespace") and (name, f.name) not in self._skip)
            entry = (_chain([getattr(v, f"visit_{name}", None) for v in self.visitors]),
                     _chain([getattr(v, f"leave_{name}", None) for v in self.visitors]), fields)
            self._entries[cls] = entry
        return entry

    def walk(self, node: cst.CSTNode) -> None:
        index = self._index
        if index is not None:  # noted here, not by a bound method kept on the walker: that would be a cycle
            index.parents[id(node)] = outer = index.current  # holding the visitors, and with them the tree
            index.current = node
        entry = self._entries.get(type(node))  # the hot path: one dict lookup, no call, per node
        visit, leave, fields = entry if entry is not None else self._entry(type(node))
        if visit is None or visit(node) is not False:
            for name in fields:
                value = getattr(node, name)
                kind = _KINDS.get(type(value)) or _kind(type(value))
                if kind is _NODE:
                    self.walk(value)
                elif kind is _SEQUENCE:
                    for item in value:
                        if (_KINDS.get(type(item)) or _kind(type(item))) is _NODE:
                            self.walk(item)
        if leave is not None:
            leave(node)
        if index is not None:
            index.current = outer


_NODE, _SEQUENCE, _OTHER = "node", "sequence", "other"
#: What each field value's type is to the walk (a dict lookup: ``isinstance`` on libcst's abstract base
#: classes costs more than the rest of the walk).
_KINDS: Dict[type, str] = {}


def _kind(kind: type) -> str:
    found = _KINDS.get(kind)
    if found is None:
        found = _KINDS[kind] = (_NODE if issubclass(kind, cst.CSTNode) else
                                _SEQUENCE if issubclass(kind, (list, tuple)) else _OTHER)
    return found


def _chain(methods: List[Optional[Callable]]) -> Optional[Callable]:
    """One callable for the visitors' methods of a node type (the method itself when only one has it)."""
    present = [m for m in methods if m is not None]
    if len(present) <= 1:
        return present[0] if present else None
    first, rest = present[0], present[1:]

    def chained(node):
        result = first(node)
        for method in rest:
            method(node)
        return result
    return chained
