"""Read Python source bytes into text and a libcst tree, turning every failure into a reason.

Covers: binary files, PEP 263 encoding declarations and BOMs (a latin-1 file is still scanned),
undecodable bytes, Python 2 syntax (named as such), other syntax errors, and input nested too
deeply for the parser.
"""

from __future__ import annotations

import ast

import io
import re
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional, Tuple, Union

if TYPE_CHECKING:
    import ast

    import libcst as cst

#: Bracket depth past which the source is checked by CPython's own parser before libcst sees it.
_DEEP_NESTING = 100
#: libcst's native parser gets only what it can take, measured on CPython's tree first (``parse_budget``): past
#: this nesting (an ``and`` chain counts each operand: libcst nests them) it aborts the process (10,000 ``and``)
#: or takes minutes (3,000 ``[0]``: 71 s) ...
MAX_PARSE_DEPTH = 500
#: ... and past this many nodes it needs gigabytes (about 3.4 KB a node: 2 MB of ``x = 1`` aborted at 4 GB) and
#: seconds (25 to 45 us a node in libcst, as long again in the resolver: a list of 200,000 strings, 1.8 MB, took
#: 20 s to scan). The largest real files seen have 28,000 (timm's vision_transformer.py, 234 KB).
MAX_PARSE_NODES = 150_000

#: Each anchored to one line (``[ \t]*+``, possessive: ``^\s*`` crossed newlines, so every line start of a run of
#: blank lines rescanned the rest of the run, minutes for 200 KB) and matched no further than the failing line.
_PY2_MARKERS = (
    (re.compile(r"^[ \t]*+print[ \t]++[\"'\w]", re.MULTILINE), "print statement"),
    (re.compile(r"^[ \t]*+except[ \t]++[\w.]++[ \t]*+,[ \t]*+\w++[ \t]*+:", re.MULTILINE), "'except X, e:' clause"),
    (re.compile(r"^[ \t]*+exec[ \t]++[\"'\w]", re.MULTILINE), "exec statement"),
    (re.compile(r"^[ \t]*+raise[ \t]++\w++[ \t]*+,", re.MULTILINE), "'raise E, msg' statement"),
    # ``0755``, not ``000`` (zeros alone are a Python 3 literal too)
    (re.compile(r"\b0++[1-7][0-7]*+\b(?![.\w])"), "old-style octal literal"),
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


def is_too_deep(failure: ParseFailure) -> bool:
    return failure.reason.startswith(_TOO_DEEP)


def parse_python(text: str, valid: bool = False, tree: Optional["ast.AST"] = None
                 ) -> Union["cst.Module", ParseFailure]:
    """The libcst tree of ``text``, or why there is none.

    ``valid``: CPython's ``ast`` has parsed this very text (``tree``, when the caller has it), so it is neither
    nested past what the parsers take nor invalid, and libcst builds its tree without validating each node again
    (``engine/trusted_parse.parser_output_trusted``). Either way the text must be within ``parse_budget``.
    """
    import libcst as cst  # here, not at the top: a scan served from the cache never parses, nor pays for libcst

    from ..engine.trusted_parse import parser_output_trusted

    if valid and tree is not None:
        over = parse_budget(tree)
        if over is not None:
            return ParseFailure(over)
    if not valid:  # CPython's parser first: it refuses in microseconds what libcst's takes gigabytes or minutes
        import ast  # for (a 10 KB run of unary minus aborts the process; a 4,000-term sum takes 21 s)

        try:
            over = parse_budget(ast.parse(text))
            if over is not None:
                return ParseFailure(over)
        except (RecursionError, MemoryError) as exc:
            return ParseFailure(f"{_TOO_DEEP} ({type(exc).__name__})")
        except SyntaxError as exc:
            if _bracket_depth(text) > _DEEP_NESTING:
                return ParseFailure(f"{_TOO_DEEP} ({type(exc).__name__})")
        except ValueError:  # a NUL byte: libcst says why in its own words
            pass
    try:
        if valid:
            with parser_output_trusted():
                return cst.parse_module(text)
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        py2 = python2_marker(text)
        if py2:
            return ParseFailure(f"Python 2 source ({py2}); migrator reads Python 3 only")
        return ParseFailure(_syntax_error(text, exc))
    except RecursionError:
        return ParseFailure(f"{_TOO_DEEP} (RecursionError)")
    except Exception as exc:  # the native parser can raise its own error types
        return ParseFailure(f"cannot parse: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


_TOO_DEEP = "expression nested too deeply to analyse"


def parse_budget(tree: "ast.AST") -> Optional[str]:
    """Why libcst's parser must not be given the source of ``tree`` (``MAX_PARSE_DEPTH``, ``MAX_PARSE_NODES``),
    or None. One walk without recursion; an ``and``/``or`` chain is as deep as it has operands, as in libcst.

    The walk is ``ast.iter_child_nodes``'s, in its order, without its generators: a node's fields read by name
    and pushed as they are (0.83 -> 0.35 CPU seconds over timm's files; every node of every file is walked)."""
    import ast

    node_type, bool_op = ast.AST, ast.BoolOp
    stack = [(tree, 0)]
    pop, push = stack.pop, stack.append
    nodes = 0
    while stack:
        node, depth = pop()
        nodes += 1
        if nodes > MAX_PARSE_NODES:
            return f"too large to analyse (more than {MAX_PARSE_NODES:,} syntax nodes)"
        if type(node) is bool_op:
            depth += len(node.values) - 1
        if depth > MAX_PARSE_DEPTH:
            return f"{_TOO_DEEP} (deeper than {MAX_PARSE_DEPTH} levels)"
        depth += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        push((item, depth))
            elif isinstance(value, node_type):
                push((value, depth))
    return None


@dataclass(frozen=True)
class PartialSource:
    """The text with its over-deep top-level statements blanked (lines kept), and which lines they were."""

    text: str
    skipped: Tuple[Tuple[int, int], ...]  # (first line, last line) of each blanked statement

    @property
    def note(self) -> str:
        where = ", ".join(f"line {a}" if a == b else f"lines {a}-{b}" for a, b in self.skipped)
        return f"statement at {where} {LEFT_OUT}; the rest of the file was scanned"


#: What a file's reason says when statements of it were left out (``check`` cannot pass what it did not read).
LEFT_OUT = "nested too deeply to analyse (left out)"


def without_deep_statements(text: str) -> Optional[PartialSource]:
    """Blank the top-level statements nested past what the parsers take, keeping every line number.

    None when the text cannot be split into statements (tokenize fails) or when nothing would be left.
    """
    chunks = _top_level_statements(text)
    if not chunks:
        return None
    lines = text.split("\n")
    skipped = []
    for first, last in chunks:
        chunk = "\n".join(lines[first - 1:last])
        if (len(chunk) > MAX_PARSE_DEPTH or _bracket_depth(chunk) > _DEEP_NESTING) and _too_deep(chunk):
            skipped.append((first, last))
            lines[first - 1:last] = ["pass"] + [""] * (last - first)
    if not skipped or len(skipped) == len(chunks):
        return None
    return PartialSource("\n".join(lines), tuple(skipped))


def _too_deep(chunk: str) -> bool:
    import ast

    try:
        over = parse_budget(ast.parse(chunk))
    except (RecursionError, MemoryError):
        return True
    except SyntaxError as exc:
        return "too many nested" in str(exc) or "too complex" in str(exc)
    return over is not None and over.startswith(_TOO_DEEP)


def _top_level_statements(text: str) -> List[Tuple[int, int]]:
    """(first line, last line) of each top-level statement, from the tokenizer (which does not recurse)."""
    chunks: List[Tuple[int, int]] = []
    start: Optional[int] = None
    level = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.INDENT:
                level += 1
            elif token.type == tokenize.DEDENT:
                level -= 1
                if level == 0 and start is not None:
                    chunks.append((start, token.start[0] - 1))
                    start = None
            elif token.type == tokenize.NEWLINE and level == 0 and start is not None:
                chunks.append((start, token.end[0]))
                start = None
            elif start is None and token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER,
                                                      tokenize.NEWLINE, tokenize.DEDENT, tokenize.INDENT):
                start = token.start[0]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return chunks


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
    """The Python 2 construct that makes ``text`` fail to parse, or ``None``: a marker counts only on the line
    where CPython's parser stops, so a damaged Python 3 file with a stray ``0777`` elsewhere is a syntax
    error, not Python 2."""
    import ast

    try:
        ast.parse(text)
        return None
    except SyntaxError as exc:
        failing = exc.lineno
    except (ValueError, RecursionError, MemoryError):
        return None
    if failing is None:
        start, end = 0, len(text)
    else:  # only the failing line counts: only it is searched
        start = 0
        for _ in range(failing - 1):
            start = text.find("\n", start) + 1
            if start == 0:
                return None
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
    for pattern, what in _PY2_MARKERS:
        match = pattern.search(text, start, end)
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


def parse_ast(text: str) -> Optional[ast.Module]:
    """CPython's own parser (C, ~7x faster than libcst), or ``None`` for what it cannot read: the call-graph
    outline's tree, and the one the cross-file stages read again (``project/reread.py``)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
