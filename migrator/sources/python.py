"""Read Python source bytes into text and a libcst tree, turning every failure into a reason.

Covers: binary files, PEP 263 encoding declarations and BOMs (a latin-1 file is still scanned),
undecodable bytes, Python 2 syntax (named as such), other syntax errors, and input nested too
deeply for the parser.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

#: Bracket depth past which the source is checked by CPython's own parser before libcst sees it.
_DEEP_NESTING = 100

_PY2_MARKERS = (
    (re.compile(r"^\s*print\s+(?![\s(=.,)\[]|$)[\"'\w]", re.MULTILINE), "print statement"),
    (re.compile(r"^\s*except\s+[\w.]+\s*,\s*\w+\s*:", re.MULTILINE), "'except X, e:' clause"),
    (re.compile(r"^\s*exec\s+[\"'\w]", re.MULTILINE), "exec statement"),
    (re.compile(r"^\s*raise\s+\w+\s*,", re.MULTILINE), "'raise E, msg' statement"),
    (re.compile(r"\b0[0-7]+\b(?![.\w])"), "old-style octal literal"),
    (re.compile(r"\bur[\"']"), "ur'' string prefix"),
)


@dataclass(frozen=True)
class ParseFailure:
    reason: str


def decode_source(data: bytes) -> Union[str, ParseFailure]:
    """Decode as Python does: BOM, then a coding declaration, then UTF-8."""
    if b"\x00" in data[:8192]:
        return ParseFailure("binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "invalid or missing encoding declaration" in str(exc):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as decode_error:
                return ParseFailure(f"cannot decode as utf-8 (no encoding declared): {_decode_detail(decode_error)}; "
                                    "declare the encoding with a '# -*- coding: ... -*-' line")
        return ParseFailure(f"unknown source encoding: {exc}")
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        return ParseFailure(f"cannot decode as {encoding}: {_decode_detail(exc)}; declare the encoding "
                            "with a '# -*- coding: ... -*-' line")
    return text.lstrip("\ufeff")


def _decode_detail(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"invalid byte 0x{exc.object[exc.start]:02x} at offset {exc.start}"
    return str(exc)


def parse_python(text: str) -> Union[cst.Module, ParseFailure]:
    if _bracket_depth(text) > _DEEP_NESTING:
        import ast

        try:
            ast.parse(text)
        except (RecursionError, MemoryError, SyntaxError) as exc:
            return ParseFailure(f"expression nested too deeply to analyse ({type(exc).__name__})")
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        py2 = python2_marker(text)
        if py2:
            return ParseFailure(f"Python 2 source ({py2}); migrator reads Python 3 only")
        return ParseFailure(_syntax_error(text, exc))
    except RecursionError:
        return ParseFailure("expression nested too deeply to analyse (RecursionError)")
    except Exception as exc:  # the native parser can raise its own error types
        return ParseFailure(f"cannot parse: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


def _syntax_error(text: str, exc: cst.ParserSyntaxError) -> str:
    """CPython's own message and position where it has one: libcst's can point past the error."""
    import ast

    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"syntax error at line {error.lineno}, column {max((error.offset or 1) - 1, 0)}: {error.msg}"
    except (RecursionError, MemoryError, ValueError):
        pass
    detail = exc.message.splitlines()[0] if exc.message else "invalid syntax"
    return f"syntax error near line {exc.raw_line} (newer or unusual syntax libcst cannot read): {detail}"


def python2_marker(text: str) -> Optional[str]:
    for pattern, what in _PY2_MARKERS:
        match = pattern.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            return f"{what} at line {line}"
    return None


def _bracket_depth(text: str) -> int:
    depth = best = 0
    for match in re.finditer(r"[()\[\]{}]", text):
        if match.group() in "([{":
            depth += 1
            best = max(best, depth)
        else:
            depth = max(0, depth - 1)
    return best
