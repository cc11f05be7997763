"""Source positions for libcst nodes, computed once per module and only when a file has something to report.

libcst's ``PositionProvider`` builds line/column objects for every node of every file, which costs more
than parsing. This does the same code-generation walk but records plain character offsets, and turns
offsets into (line, column) only for the nodes asked about. Files with no usage never pay for it.
"""

from __future__ import annotations

import bisect
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

from .model import Span


@dataclass
class _OffsetState(CodegenState):
    offset: int = 0
    spans: Dict[cst.CSTNode, Tuple[int, int]] = field(default_factory=dict)

    def add_token(self, value: str) -> None:
        self.offset += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)

    def pop_trailing_newline(self) -> None:
        pass  # only the end of the file moves; no node starts after it

    @contextmanager
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> Iterator[None]:
        start = self.offset
        try:
            yield
        finally:
            end = self.offset
            # libcst hoists a bound from a child (a parenthesis, say); children with no syntactic
            # position of their own are not recorded here, so keep the bound measured around the node
            if start_node is not None and start_node in self.spans:
                start = self.spans[start_node][0]
            if end_node is not None and end_node in self.spans:
                end = self.spans[end_node][1]
            self.spans[node] = (start, end)


class Positions:
    """``span(node)`` -> ``Span`` with 1-based lines and 0-based columns, like libcst's PositionProvider."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._spans: Optional[Dict[cst.CSTNode, Tuple[int, int]]] = None
        self._line_starts: List[int] = []

    def span(self, node: cst.CSTNode) -> Span:
        if self._spans is None:
            self._compute()
        offsets = self._spans.get(node)
        if offsets is None:
            return Span(None)
        start_line, start_col = self._line_col(offsets[0])
        end_line, end_col = self._line_col(offsets[1])
        return Span(start_line, start_col, end_line, end_col)

    def _compute(self) -> None:
        state = _OffsetState(default_indent=self._module.default_indent,
                             default_newline=self._module.default_newline)
        self._module._codegen(state)
        self._spans = state.spans
        code = self._module.code
        self._line_starts = [0]
        index = code.find("\n")
        while index != -1:
            self._line_starts.append(index + 1)
            index = code.find("\n", index + 1)

    def _line_col(self, offset: int) -> Tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1]
