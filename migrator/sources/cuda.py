"""C++/CUDA sources: ``__global__`` kernels with their sizes, launches, CUDA includes, and the
registrations that expose C++ to Python (``PYBIND11_MODULE`` ``m.def``, ``TORCH_LIBRARY`` /
``TORCH_LIBRARY_IMPL``) with the bound function's C++ signature.

This is a lexical reader, not a C++ parser: comments and string contents are masked first so that
a kernel named in a comment is not a kernel, and braces are matched to measure each kernel.

Every step is linear in the file's size whatever it holds (the file is untrusted): comments and literals are
masked by a scanner that gives up on an unterminated one once (``_mask``), brackets are matched in one pass
(``_Brackets``), function signatures are read back from each body's ``{`` (``_function_signatures``), and the
regular expressions left are anchored to what they look for.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Dict, Iterator, List, Optional, Tuple

from ..lines import line_col, line_starts
from ..model import CudaFacts, Kernel, Registration
from ..model import RegistrationKind

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_TORCH_LIBRARY_IMPL = RegistrationKind.TORCH_LIBRARY_IMPL

_GLOBAL = re.compile(r"\b__global__\b")
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
_LAUNCH = re.compile(r"<<<")
#: ``[ \t]`` and possessive, not ``\s*``: ``^\s*`` crosses newlines, and a run of blank lines made each line start
#: rescan the rest of the run (quadratic)
_INCLUDE = re.compile(r'^[ \t]*+#[ \t]*+include[ \t]*+[<"]([^>"\n]+)[>"]', re.MULTILINE)
_LOCAL_INCLUDE = re.compile(r'^[ \t]*+#[ \t]*+include[ \t]*+"([^"\n]+)"', re.MULTILINE)
_CUDA_HEADERS = re.compile(r"^(cuda|cublas|cudnn|curand|cusparse|cusolver|cufft|nccl|thrust/|cub/|ATen/cuda/|"
                           r"c10/cuda/|cutlass/|nvToolsExt|mma\.h|cooperative_groups)")
_PYBIND = re.compile(r"PYBIND11_MODULE\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_TORCH_LIBRARY = re.compile(r"TORCH_LIBRARY(_IMPL|_FRAGMENT)?\s*\(\s*(\w+)\s*,\s*(?:(\w+)\s*,\s*)?(\w+)\s*\)")
_DEF = re.compile(r"\b(\w+)\s*\.\s*(def|impl)\s*\(\s*\"([^\"]+)\"\s*(?:,\s*(?:&\s*)?(?:TORCH_FN\s*\(\s*)?"
                  r"([\w:]+))?")
#: the registration API before ``TORCH_LIBRARY`` (torch-cluster's, torch-scatter's: ``static auto registry =
#: torch::RegisterOperators().op("torch_cluster::fps", &fps);``): each ``.op("<namespace>::<name>"`` a schema
_REGISTER_OPERATORS = re.compile(r"\bRegisterOperators\s*\(\s*\)")
_OLD_STYLE_OP = re.compile(r'\.\s*op\s*\(\s*"(\w+)::(\w+)')
#: where a comment or a literal may start
_MASK_START = re.compile(r"//|/\*|[\"']")
_NOT_NEWLINE = re.compile(r"[^\n]")


def read_cuda(text: str) -> CudaFacts:
    masked = _mask(text)
    starts = line_starts(text)
    brackets = _Brackets(masked)
    kernels = []
    for match in _GLOBAL.finditer(masked):
        head = _LAUNCH_BOUNDS.sub(lambda m: " " * len(m.group()), masked[match.end():match.end() + 400])
        name_match = re.search(r"(\w+)\s*\(", head)
        if name_match is None:
            continue
        name = name_match.group(1)
        start_line = line_col(starts, match.start())[0]
        body_end = brackets.body_end(masked, match.end() + name_match.end())
        lines = (line_col(starts, body_end)[0] - start_line + 1) if body_end is not None else 1
        if body_end is None:
            continue  # a declaration, not a definition
        kernels.append(Kernel(name=name, path="", line=start_line, lines=lines))
    registrations: List[Registration] = []
    pybind_module = None
    functions = _function_signatures(masked, text, brackets)
    for block_kind, namespace, key, var, start, end in _registration_blocks(masked, brackets):
        if block_kind == "pybind11":
            pybind_module = pybind_module or namespace
        for match in _DEF.finditer(masked, start, end):
            if match.group(1) != var:
                continue
            literal = _literal_at(text, masked, match)
            name = literal.split("(", 1)[0].strip() if literal else match.group(3)
            kind = (block_kind if match.group(2) == "def" or block_kind == RegistrationKind.PYBIND11
                    else RegistrationKind.TORCH_LIBRARY_IMPL)
            bound = match.group(4)
            signature = literal if literal and "(" in literal else functions.get((bound or "").split("::")[-1])
            registrations.append(Registration(name=name, kind=kind, path="", line=line_col(starts, match.start())[0],
                                              namespace=key if kind == _TORCH_LIBRARY_IMPL else namespace,
                                              signature=signature))
    for start in (m.end() for m in _REGISTER_OPERATORS.finditer(masked)):
        end = masked.find(";", start)
        for match in _OLD_STYLE_OP.finditer(text, start, end if end >= 0 else len(text)):
            registrations.append(Registration(name=match.group(2), kind=RegistrationKind.TORCH_LIBRARY, path="",
                                              line=line_col(starts, match.start())[0], namespace=match.group(1)))
    included = [m.group(1) for m in _INCLUDE.finditer(text)]
    includes = tuple(sorted({name for name in included if _CUDA_HEADERS.match(name)}))
    local = tuple(sorted({m.group(1) for m in _LOCAL_INCLUDE.finditer(text)}))
    code_lines = sum(1 for line in masked.splitlines() if line.strip())
    return CudaFacts(kernels=tuple(kernels), registrations=tuple(registrations),
                     launches=len(_LAUNCH.findall(masked)), cuda_includes=includes, includes=local,
                     code_lines=code_lines,
                     pybind_module=pybind_module)


def _mask(text: str) -> str:
    r"""Blank comments and string/char literals, keeping offsets and newlines (a string keeps its quotes).

    What counts is what ``//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'`` (DOTALL) matches, scanned
    left to right, but in one pass: an unterminated ``/*`` means no later one closes either, and a quote whose
    literal runs into the end of its line has every same quote before that end fail the same way (each was
    escaped inside it, so a scan from it is in step with the first one), so neither is tried again.
    """
    pieces: List[str] = []
    position = 0
    comments_close = True
    fails_until = {'"': -1, "'": -1}
    search = _MASK_START.search
    while True:
        match = search(text, position)
        if match is None:
            break
        start = match.start()
        opener = match.group()
        pieces.append(text[position:start])
        if opener == "//":
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            pieces.append(_NOT_NEWLINE.sub(" ", text[start:end]))
            position = end
            continue
        if opener == "/*":
            close = text.find("*/", start + 2) if comments_close else -1
            if close < 0:
                comments_close = False
                pieces.append("/")
                position = start + 1
                continue
            pieces.append(_NOT_NEWLINE.sub(" ", text[start:close + 2]))
            position = close + 2
            continue
        end, closed = _literal_end(text, start, opener) if start > fails_until[opener] else (start, False)
        if not closed:  # unterminated on its line: the quote stays, the scan goes on after it
            fails_until[opener] = max(fails_until[opener], end)
            pieces.append(opener)
            position = start + 1
            continue
        body = _NOT_NEWLINE.sub(" ", text[start + 1:end])
        pieces.append(f'"{body}"' if opener == '"' else f" {body} ")
        position = end + 1
    pieces.append(text[position:])
    return "".join(pieces)


def _literal_end(text: str, start: int, quote: str) -> Tuple[int, bool]:
    """(offset of the closing quote, True) for the literal opened at ``start``, or (where the scan stopped, False)
    when a newline or the end of the text comes first (a backslash escapes any next character, a newline too)."""
    stops = _LITERAL_STOPS[quote]
    position = start + 1
    while True:
        match = stops.search(text, position)
        if match is None:
            return len(text), False
        if match.group() != "\\":
            return match.start(), match.group() == quote
        position = match.start() + 2  # a backslash and the character it escapes


_LITERAL_STOPS = {quote: re.compile("[\n\\\\" + quote + "]") for quote in "\"'"}


def _literal_at(text: str, masked: str, match: "re.Match[str]") -> Optional[str]:
    quote = masked.find('"', match.start(), match.end())
    if quote < 0:
        return None
    close = masked.find('"', quote + 1)
    return text[quote + 1:close] if close > quote else None


class _Brackets:
    """The masked text's brackets, matched in one pass: what closes each ``(`` and ``{`` (a bracket never closed
    has no entry), and where every ``{`` and ``;`` is."""

    def __init__(self, masked: str) -> None:
        self.closing: Dict[int, int] = {}
        self.opens: List[int] = []  # every "(", in order
        self.stops: List[int] = []  # every "{" and ";", in order
        parens: List[int] = []
        braces: List[int] = []
        for match in _BRACKET.finditer(masked):
            char, position = match.group(), match.start()
            if char == "(":
                parens.append(position)
                self.opens.append(position)
            elif char == ")":
                if parens:
                    self.closing[parens.pop()] = position
            elif char == "{":
                braces.append(position)
                self.stops.append(position)
            elif char == "}":
                if braces:
                    self.closing[braces.pop()] = position
            else:
                self.stops.append(position)

    def body_end(self, masked: str, offset: int) -> Optional[int]:
        """Offset of the ``}`` that closes the body following the parameter list opened just before ``offset``;
        None when the list or the body is never closed, or a ``;`` comes first (a declaration)."""
        close = self.closing.get(offset - 1)
        if close is None:
            return None
        index = bisect_left(self.stops, close + 1)
        if index == len(self.stops) or masked[self.stops[index]] == ";":
            return None
        return self.closing.get(self.stops[index])


_BRACKET = re.compile(r"[(){};]")


def _registration_blocks(masked: str, brackets: _Brackets
                         ) -> Iterator[Tuple[RegistrationKind, str, Optional[str], str, int, int]]:
    """(kind, namespace or module, dispatch key, module variable, body start, body end). A block whose body is
    never closed ends where the next block starts (or at the end of the file), so that blocks never overlap."""
    found: List[Tuple[RegistrationKind, str, Optional[str], str, int, Optional[int]]] = []
    for match in _PYBIND.finditer(masked):
        end = brackets.body_end(masked, masked.find("(", match.start()) + 1)
        found.append((RegistrationKind.PYBIND11, match.group(1), None, match.group(2), match.end(), end))
    for match in _TORCH_LIBRARY.finditer(masked):
        end = brackets.body_end(masked, masked.find("(", match.start()) + 1)
        kind = RegistrationKind.TORCH_LIBRARY_IMPL if match.group(1) == "_IMPL" else RegistrationKind.TORCH_LIBRARY
        found.append((kind, match.group(2), match.group(3), match.group(4), match.end(), end))
    starts = sorted(block[4] for block in found)
    for kind, namespace, key, var, start, end in found:
        if end is None:
            index = bisect_left(starts, start + 1)
            end = starts[index] if index < len(starts) else len(masked)
        yield kind, namespace, key, var, start, end


def _function_signatures(masked: str, text: str, brackets: _Brackets) -> Dict[str, str]:
    r"""The C++ signature of each function defined in the file, by name (the first definition of a name wins).

    A definition is what ``^[ \t]*((?:[\w:<>,]+[\s*&]+)+?)(\w+)\s*\(([^;{]*?)\)\s*(?:const\s*)?\{`` (MULTILINE)
    matches, read back from each ``{`` instead of forward from each line start (that expression rescanned the
    rest of the file from every line: minutes for 200 KB of one-word lines): the ``)`` before the brace, the
    first ``(`` since the last ``;`` or ``{`` whose name is preceded by a type starting a line."""
    found: Dict[str, str] = {}
    stops, opens = brackets.stops, brackets.opens
    for index, brace in enumerate(stops):
        if masked[brace] != "{":
            continue
        close = _skip_space_back(masked, brace - 1, -1)
        if masked.endswith("const", 0, close + 1) and masked[close] != ")":
            close = _skip_space_back(masked, close - 5, -1)
        if close < 0 or masked[close] != ")":
            continue
        previous = stops[index - 1] if index else -1
        for paren in opens[bisect_left(opens, previous + 1):bisect_left(opens, close)]:
            match = _definition_at(masked, paren, previous)
            if match is None:
                continue
            type_start, name_start = match
            name = masked[name_start:_skip_space_back(masked, paren - 1, previous) + 1]
            if name not in _NOT_FUNCTIONS and "__global__" not in masked[type_start:name_start]:
                found.setdefault(name, " ".join(text[type_start:close + 1].split()))
            break
    return found


_NOT_FUNCTIONS = ("if", "for", "while", "switch", "return")


def _definition_at(masked: str, paren: int, floor: int) -> Optional[Tuple[int, int]]:
    """(where the return type starts, where the name starts) when the ``(`` at ``paren`` follows ``type... name`` from a
    line start (nothing before ``floor`` is read), or None."""
    name_end = _skip_space_back(masked, paren - 1, floor) + 1
    name_start = name_end
    while name_start - 1 > floor and _is_word(masked[name_start - 1]):
        name_start -= 1
    if name_start == name_end or name_start - 1 <= floor or not _is_separator(masked[name_start - 1]):
        return None
    chain = name_start - 1
    while chain - 1 > floor and (_is_word(masked[chain - 1]) or masked[chain - 1] in ":<>," or
                                 _is_separator(masked[chain - 1])):
        chain -= 1
    line = chain
    while line < name_start:
        if line == 0 or masked[line - 1] == "\n":
            first = line
            while first < name_start and masked[first] in " \t":
                first += 1
            if first < name_start and (_is_word(masked[first]) or masked[first] in ":<>,"):
                return first, name_start
        newline = masked.find("\n", line, name_start)
        if newline < 0:
            return None
        line = newline + 1
    return None


def _skip_space_back(text: str, position: int, floor: int) -> int:
    while position > floor and text[position].isspace():
        position -= 1
    return position


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _is_separator(char: str) -> bool:
    return char.isspace() or char in "*&"
