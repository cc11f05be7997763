"""Text for a terminal that a repository cannot drive: every control character a file name, a snippet or a
vendor note carries is escaped (``\\x1b`` as the four characters ``\\x1b``), so a file named to set the terminal's
title, move its cursor or clear its screen prints as its name. Colour is the views' own and stays: a Select
Graphic Rendition sequence (``ESC [ digits m``) is the one escape that passes."""

from __future__ import annotations

import re
from typing import TextIO

#: C0 controls but tab and newline, DEL and the C1 controls, and lone surrogates (a file name's bytes that are not
#: UTF-8); an SGR colour sequence is matched first and kept.
_CONTROL = re.compile(r"(\x1b\[[0-9;]{0,16}m)|[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def escaped(text: str) -> str:
    """``text`` with its control characters written out (colour sequences kept), and a byte a file name holds
    that is not UTF-8 as that byte (``\\xff``)."""
    return _CONTROL.sub(lambda m: m.group(1) or _escape(m.group(0)), text)


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # ``surrogateescape``'s stand-in for the byte ``code - 0xDC00``
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if code >= 0xD800 else f"\\x{code:02x}"


class Printable:
    """A text stream that escapes what it is given (``escaped``) before writing it to ``out``."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def write(self, text: str) -> int:
        return self._out.write(escaped(text))

    def flush(self) -> None:
        self._out.flush()

    def __getattr__(self, name: str):  # anything else a stream offers, as ``out`` has it
        return getattr(self._out, name)
