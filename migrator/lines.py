"""Offsets and lines: the one way migrator counts lines in a text.

``\r\n``, ``\r`` and ``\n`` each end a line, as for CPython's tokenizer and libcst, so a line number read
here is the one ``ast`` and an editor show.
"""

from __future__ import annotations

import bisect
import re
from typing import List, Sequence, Tuple

_NEWLINE = re.compile(r"\r\n?|\n")


def line_starts(text: str) -> List[int]:
    """The offset where each line starts (the first is 0)."""
    if "\r" not in text:
        starts = [0]
        index = text.find("\n")
        while index != -1:
            starts.append(index + 1)
            index = text.find("\n", index + 1)
        return starts
    return [0] + [match.end() for match in _NEWLINE.finditer(text)]


def line_col(starts: Sequence[int], offset: int) -> Tuple[int, int]:
    """The 1-based line and 0-based column of ``offset``, given the text's ``line_starts``."""
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1]
