"""Source positions for libcst nodes, computed once per module and only when a file has something to report.

libcst's ``PositionProvider`` builds line/column objects for every node of every file, which costs more
than parsing. This does the same code-generation walk but records plain character offsets, and turns
offsets into (line, column) only for the nodes asked about. Files with no usage never pay for it.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

from ..model import Span


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


@dataclass(frozen=True)
class PendingSpan(Span):
    """Where a node will be: resolved by ``Positions.resolve`` once every wanted node is known."""

    key: int = 0


class Positions:
    """Spans (1-based lines, 0-based columns, like libcst's PositionProvider) for the nodes asked about.

    ``pending(node)`` hands out a placeholder while the tree is walked; ``resolve()`` then runs one
    code-generation pass that measures only those nodes, and ``span_of`` turns a placeholder into a Span.
    """

    def __init__(self, module: cst.Module, source: Optional[str] = None) -> None:
        self._module = module
        self._source = source  # the text the module was parsed from (libcst round-trips it exactly)
        self._nodes: Dict[int, cst.CSTNode] = {}  # keeps the nodes alive while their ids are keys
        self._spans: Dict[int, Tuple[int, int]] = {}
        self._line_starts: List[int] = []

    def pending(self, node: cst.CSTNode) -> PendingSpan:
        self._nodes[id(node)] = node
        return PendingSpan(None, key=id(node))

    def resolve(self) -> None:
        if not self._nodes:
            return
        state = _OffsetState(default_indent=self._module.default_indent,
                             default_newline=self._module.default_newline, wanted=frozenset(self._nodes))
        self._module._codegen(state)
        self._spans = state.spans
        code = self._source if self._source is not None else self._module.code
        self._source = code
        self._line_starts = [0]
        index = code.find("\n")
        while index != -1:
            self._line_starts.append(index + 1)
            index = code.find("\n", index + 1)

    def span_of(self, pending: Span) -> Span:
        if not isinstance(pending, PendingSpan):
            return pending
        offsets = self._spans.get(pending.key)
        if offsets is None:
            return Span(None)
        start_line, start_col = self._line_col(offsets[0])
        end_line, end_col = self._line_col(offsets[1])
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

    def _line_col(self, offset: int) -> Tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1]
