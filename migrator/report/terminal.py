"""Text that fits the terminal it is printed on: each line written is wrapped at the terminal's width, its
continuation indented under it, and left whole when the output is piped or written to a file (as linters do:
the next tool reads one record a line). The width is ``$COLUMNS`` where set, else the terminal's own.

Width is counted as a terminal counts it: a colour sequence takes no column, a wide (CJK) character two."""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from typing import IO, List, Optional

#: A Select Graphic Rendition sequence: the one escape the views write (``printable``), zero columns wide.
_SGR = re.compile(r"\x1b\[[0-9;]*m")
#: Under this, wrapping helps nobody: a line is left as it is.
_NARROWEST = 20
#: Where a line was cut (ASCII, as ``maps/limits.clip`` cuts: any terminal encodes it).
_CUT = "..."
#: How much deeper than its line a wrapped line's continuation is indented.
HANGING = 4


def terminal_width(stream: Optional[IO[str]]) -> Optional[int]:
    """The width to wrap ``stream``'s text at: ``$COLUMNS`` when set to a number, else the terminal's size
    when ``stream`` is one; ``None`` (no wrapping) for a pipe or a file (``stream`` ``None``: a file)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if stream is None or not _isatty(stream):
        return None
    return shutil.get_terminal_size().columns


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or a stream-like object without isatty
        return False


def width_of(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    plain = _SGR.sub("", text)
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in plain)


def clipped(text: str, width: Optional[int]) -> str:
    """``text`` cut to ``width`` columns ending in ``...`` (as it is when ``width`` is ``None`` or it fits)."""
    if width is None or width_of(text) <= width:
        return text
    out, used = [], 0
    for piece in re.split(r"(\x1b\[[0-9;]*m)", text):
        if _SGR.fullmatch(piece):
            out.append(piece)
            continue
        for char in piece:
            wide = width_of(char)
            if used + wide > width - len(_CUT):
                break
            out.append(char)
            used += wide
        else:
            continue
        break
    reset = "\x1b[0m" if _SGR.search(text) else ""
    return "".join(out).rstrip() + _CUT + reset


def wrapped(line: str, width: Optional[int]) -> List[str]:
    """``line`` (no newline) as lines of at most ``width`` columns, broken at spaces; the continuation indented
    ``HANGING`` columns deeper than the line. A word wider than a whole line is cut, except the line's first
    (a ``path:line:col`` stays whole, clickable)."""
    if width is None or width < _NARROWEST or width_of(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    rest = " " * (indent + HANGING)
    words = line[indent:].split(" ")
    lines: List[str] = []
    current = " " * indent
    fresh = True  # nothing on ``current`` but its indent
    for word in words:
        if not word:  # two spaces in a row: keep them where they are on the line
            current += " " if not fresh else ""
            continue
        gap = "" if fresh else " "
        if width_of(current + gap + word) <= width:
            current += gap + word
            fresh = False
            continue
        if not fresh:
            lines.append(current.rstrip())
            current, fresh = rest, True
        while width_of(current + word) > width and (lines or not fresh) and len(word) > 1:
            cut = _fitting(word, width - width_of(current))
            lines.append(current + word[:cut])
            word = word[cut:]
        current += word
        fresh = False
    lines.append(current.rstrip())
    return lines


def at_most(line: str, width: Optional[int], lines: int) -> str:
    """``line`` cut to fill at most ``lines`` terminal lines once ``wrapped`` (as it is unwrapped), its end
    marked with ``...``."""
    if width is None:
        return line
    fitted = wrapped(line, width)
    if len(fitted) <= lines:
        return line
    kept = fitted[:lines]
    kept[-1] = clipped(kept[-1] + " " * width, width)  # never fits: cut with its ellipsis
    return "\n".join(kept)


def _fitting(word: str, columns: int) -> int:
    """How many characters of ``word`` fit in ``columns`` (at least one)."""
    used = 0
    for index, char in enumerate(word):
        used += width_of(char)
        if used > columns:
            return max(index, 1)
    return len(word)


class Wrapping:
    """A text stream that writes each whole line it is given wrapped at ``width`` (``wrapped``); what follows
    the last newline waits for the next write or ``flush``."""

    def __init__(self, out: IO[str], width: Optional[int]) -> None:
        self._out = out
        self._width = width
        self._pending = ""

    def write(self, text: str) -> int:
        if self._width is None:
            return self._out.write(text)
        text = self._pending + text
        *whole, self._pending = text.split("\n")
        for line in whole:
            self._out.write("\n".join(wrapped(line, self._width)) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._out.write("\n".join(wrapped(self._pending, self._width)))
            self._pending = ""
        self._out.flush()

    def __getattr__(self, name: str):  # anything else a stream offers, as ``out`` has it
        return getattr(self._out, name)
