"""Source positions for libcst nodes, measured only for the nodes a file reports.

libcst's ``PositionProvider`` builds line/column objects for every node of every file, which costs more
than parsing, and even counting the characters libcst's code generation produces over a whole module costs
half a parse. Positions are found in three ways instead, cheapest first, each exact:

1. from CPython's ``ast`` of the same text (parsed anyway, in C), which records where every expression and
   statement starts and ends: ``TreeSpans`` finds a libcst node's ``ast`` counterpart through its chain
   of parents and checks the source text there;
2. for the few nodes ``ast`` cannot place (inside f-strings, say), by generating code for the one
   statement that holds them, starting at the offset ``ast`` gives for that statement, and trusting the
   count only when the generated text is the source text there;
3. when even that does not line up, by generating the whole module.

Offsets become (line, column) only for the nodes asked about.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

from ..lines import line_col, line_starts
from ..model import Span
from .tree_spans import TreeSpans, statement_counterparts
from .tree_spans import field_names as _field_names


@dataclass
class _OffsetState(CodegenState):
    """Counts characters while libcst generates code, recording spans only for the wanted nodes."""

    offset: int = 0
    wanted: frozenset = frozenset()
    spans: Dict[int, Tuple[int, int]] = field(default_factory=dict)

    def add_token(self, value: str) -> None:
        self.offset += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)

    def pop_trailing_newline(self) -> None:
        pass  # only the end of the file moves; no node starts after it

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None):
        # Statements hoist their end from their body; migrator never asks for a statement's span, so the
        # bound measured around the node is what it records.
        return _Record(self, id(node)) if id(node) in self.wanted else _SKIP


@dataclass
class _CheckedOffsetState(_OffsetState):
    """Counts like ``_OffsetState`` and keeps the text, so a statement can be checked against the source."""

    def add_token(self, value: str) -> None:
        super().add_token(value)
        self.tokens.append(value)

    def add_indent_tokens(self) -> None:
        super().add_indent_tokens()
        self.tokens.extend(self.indent_tokens)


class _Record:
    """A plain context manager (cheaper than a generator-based one)."""

    __slots__ = ("state", "key", "start")

    def __init__(self, state: _OffsetState, key: int) -> None:
        self.state, self.key = state, key

    def __enter__(self) -> None:
        self.start = self.state.offset

    def __exit__(self, *exc) -> None:
        self.state.spans[self.key] = (self.start, self.state.offset)


class _Skip:
    __slots__ = ()

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        pass


_SKIP = _Skip()

#: Statements whose indented body is measured statement by statement when they hold nothing else wanted.
_DESCENDED = (cst.ClassDef, cst.FunctionDef)
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


class NodeIndex:
    """The parent of every walked node, and the node being walked: filled by the ``Walker`` as it goes, so
    ``Positions`` can find a wanted node's chain of parents without a second walk. A node a visitor asks
    about without walking into it (the names of an import, say) is looked for under ``current``."""

    __slots__ = ("parents", "current")

    def __init__(self) -> None:
        self.parents: Dict[int, Optional[cst.CSTNode]] = {}
        self.current: Optional[cst.CSTNode] = None


@dataclass(frozen=True)
class PendingSpan(Span):
    """Where a node will be: resolved by ``Positions.resolve`` once every wanted node is known."""

    key: int = 0


class Positions:
    """Spans (1-based lines, 0-based columns, like libcst's PositionProvider) for the nodes asked about.

    ``pending(node)`` hands out a placeholder while the tree is walked; ``resolve()`` then measures only
    those nodes, and ``span_of`` turns a placeholder into a Span. With the ``ast`` tree of the same text and
    a filled ``index``, a node's offsets come from ``ast`` (``TreeSpans``), code is generated only for the
    statements holding the nodes ``ast`` cannot place, and the whole module only when that fails too.
    """

    def __init__(self, module: cst.Module, source: Optional[str] = None,
                 tree: Optional[ast.Module] = None) -> None:
        self._module = module
        self._source = source  # the text the module was parsed from (libcst round-trips it exactly)
        self._tree = tree if source is not None else None  # line numbers are only good for that text
        self.index = NodeIndex()
        self._nodes: Dict[int, cst.CSTNode] = {}  # keeps the nodes alive while their ids are keys
        self._asked_in: Dict[int, Optional[cst.CSTNode]] = {}  # the node being walked when a node was asked for
        self._spans: Dict[int, Tuple[int, int]] = {}
        self._line_starts: List[int] = []

    def pending(self, node: cst.CSTNode) -> PendingSpan:
        self._nodes[id(node)] = node
        self._asked_in[id(node)] = self.index.current
        return PendingSpan(None, key=id(node))

    def resolve(self) -> None:
        if not self._nodes:
            return
        if self._source is None:
            self._source = self._module.code
        self._line_starts = line_starts(self._source)
        if self._tree is None or not self._measure_from_tree(self._tree, self._source):
            self._spans = {}
            self._generate(self._module, 0, (), checked=False)

    def span_of(self, pending: Span) -> Span:
        if not isinstance(pending, PendingSpan):
            return pending
        offsets = self._spans.get(pending.key)
        if offsets is None:
            return Span(None)
        start_line, start_col = line_col(self._line_starts, offsets[0])
        end_line, end_col = line_col(self._line_starts, offsets[1])
        return Span(start_line, start_col, end_line, end_col)

    def text_of(self, pending: Span) -> Optional[str]:
        """The source text of a measured node (after ``resolve``), or ``None`` when it was not measured."""
        offsets = self._spans.get(pending.key) if isinstance(pending, PendingSpan) else None
        if offsets is None or self._source is None:
            return None
        return self._source[offsets[0]:offsets[1]]

    def span(self, node: cst.CSTNode) -> Span:
        """One node's span right away (tests, and callers outside a walk)."""
        placeholder = self.pending(node)
        self.resolve()
        return self.span_of(placeholder)

    # ------------------------------------------------------------------------------ from ast, then by statement

    def _measure_from_tree(self, tree: ast.Module, source: str) -> bool:
        """Offsets from ``ast``, then code generation for the statements holding what it could not place;
        False when even that cannot be trusted."""
        spans = TreeSpans(tree, source, self._line_starts)
        holding: Set[int] = set()  # statements with an unplaced node outside any statement nested in them
        enclosing: Set[int] = set()  # statements with an unplaced node in a statement nested in them
        for key in self._nodes:
            chain = self._chain(key)
            if chain is None:
                return False
            offsets = spans.offsets(chain)
            if offsets is not None:
                self._spans[key] = offsets
                continue
            statements = [node for node in chain if isinstance(node, _STATEMENTS)]
            if not statements:
                return False
            holding.add(id(statements[-1]))
            enclosing.update(id(statement) for statement in statements[:-1])
        if holding and not self._measure_block(self._module.body, tree.body, (), holding, enclosing):
            return False
        return len(self._spans) == len(self._nodes)

    def _chain(self, key: int) -> Optional[List[cst.CSTNode]]:
        """The wanted node and its parents, from the module down; None when it is not under the module."""
        node, parents = self._nodes[key], self.index.parents
        below: List[cst.CSTNode] = []
        if key not in parents:  # not walked: look under the node that was being walked when it was asked for
            top = self._asked_in.get(key)
            path = _path_below(top, node) if top is not None and id(top) in parents else None
            if top is None or path is None:
                return None
            node, below = top, path
        chain = [node]
        parent = parents.get(id(node))
        while parent is not None:
            chain.append(parent)
            parent = parents.get(id(parent))
        chain.reverse()
        chain.extend(below)
        return chain if chain[0] is self._module else None

    def _measure_block(self, statements: Sequence[cst.CSTNode], tree_statements: Sequence[ast.stmt],
                       indents: Tuple[str, ...], holding: Set[int], enclosing: Set[int]) -> bool:
        pairs = statement_counterparts(statements, tree_statements)
        if pairs is None:
            return False
        for statement, position in pairs:
            first, key = tree_statements[position], id(statement)
            if key not in holding and key not in enclosing:
                continue
            if key not in holding and self._measure_body(statement, first, indents, holding, enclosing):
                continue
            start = self._start_of(statement, first)
            if start is None or not self._generate(statement, start, indents, checked=True):
                return False
        return True

    def _measure_body(self, statement: cst.CSTNode, first: Any, indents: Tuple[str, ...],
                      holding: Set[int], enclosing: Set[int]) -> bool:
        """Measure a class or function body statement by statement, leaving its header ungenerated."""
        body = getattr(statement, "body", None)
        if not isinstance(statement, _DESCENDED) or not isinstance(body, cst.IndentedBlock):
            return False
        indent = self._module.default_indent if body.indent is None else body.indent
        return self._measure_block(body.body, first.body, indents + (indent,), holding, enclosing)

    def _start_of(self, statement: Any, first: Any) -> Optional[int]:
        """The offset where libcst's statement starts: the ``ast`` line of its first token, less the blank
        and comment lines libcst counts as the statement's own (before it, and before its first decorator)."""
        line = first.lineno - len(statement.leading_lines)
        decorators = getattr(statement, "decorators", ())
        if decorators and getattr(first, "decorator_list", None):
            line = first.decorator_list[0].lineno - len(decorators[0].leading_lines) - len(statement.leading_lines)
        if not 1 <= line <= len(self._line_starts):
            return None
        return self._line_starts[line - 1]

    def _generate(self, node: cst.CSTNode, start: int, indents: Tuple[str, ...], checked: bool) -> bool:
        """Generate ``node`` from ``start``, recording the wanted nodes' offsets; with ``checked``, True only
        when the generated text is the source text there."""
        state_type = _CheckedOffsetState if checked else _OffsetState
        state = state_type(default_indent=self._module.default_indent,
                           default_newline=self._module.default_newline, indent_tokens=list(indents),
                           offset=start, wanted=frozenset(self._nodes), spans=self._spans)
        node._codegen(state)
        if not checked:
            return True
        text = "".join(state.tokens)
        source = self._source
        assert source is not None, "resolve() reads the module's text first"
        if source.startswith(text, start):
            return True
        # the file's last line has no newline: libcst generates one and drops it at the module's end
        newline = self._module.default_newline
        return (not self._module.has_trailing_newline and text.endswith(newline)
                and start + len(text) - len(newline) == len(source)
                and source.startswith(text[:-len(newline)], start))



#: Whether a field value's type is a libcst node, per type (``isinstance`` on the ``CSTNode`` ABC costs more).
_NODE_TYPES: Dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    found = _NODE_TYPES.get(kind)
    if found is None:
        found = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return found


def _path_below(top: cst.CSTNode, node: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The nodes from just under ``top`` down to ``node``; None when ``node`` is not under ``top``."""
    for name in _field_names(type(top)):
        value = getattr(top, name)
        for child in (value if isinstance(value, (list, tuple)) else (value,)):
            if child is node:
                return [node]
            if _is_node(type(child)):
                below = _path_below(child, node)
                if below is not None:
                    return [child] + below
    return None
