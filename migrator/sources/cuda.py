"""C++/CUDA sources: ``__global__`` kernels with their sizes, launches, CUDA includes, and the
registrations that expose C++ to Python (``PYBIND11_MODULE`` ``m.def``, ``TORCH_LIBRARY`` /
``TORCH_LIBRARY_IMPL``) with the bound function's C++ signature.

This is a lexical reader, not a C++ parser: comments and string contents are masked first so that
a kernel named in a comment is not a kernel, and braces are matched to measure each kernel.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

from ..lines import line_col, line_starts
from ..model import CudaFacts, Kernel, Registration
from ..model import RegistrationKind

_GLOBAL = re.compile(r"\b__global__\b")
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
_LAUNCH = re.compile(r"<<<")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
_CUDA_HEADERS = re.compile(r"^(cuda|cublas|cudnn|curand|cusparse|cusolver|cufft|nccl|thrust/|cub/|ATen/cuda/|"
                           r"c10/cuda/|cutlass/|nvToolsExt|mma\.h|cooperative_groups)")
_PYBIND = re.compile(r"PYBIND11_MODULE\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_TORCH_LIBRARY = re.compile(r"TORCH_LIBRARY(_IMPL|_FRAGMENT)?\s*\(\s*(\w+)\s*,\s*(?:(\w+)\s*,\s*)?(\w+)\s*\)")
_DEF = re.compile(r"\b(\w+)\s*\.\s*(def|impl)\s*\(\s*\"([^\"]+)\"\s*(?:,\s*(?:&\s*)?(?:TORCH_FN\s*\(\s*)?"
                  r"([\w:]+))?")
_MASK = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


def read_cuda(text: str) -> CudaFacts:
    masked = _mask(text)
    starts = line_starts(text)
    kernels = []
    for match in _GLOBAL.finditer(masked):
        head = _LAUNCH_BOUNDS.sub(lambda m: " " * len(m.group()), masked[match.end():match.end() + 400])
        name_match = re.search(r"(\w+)\s*\(", head)
        if name_match is None:
            continue
        name = name_match.group(1)
        start_line = line_col(starts, match.start())[0]
        body_end = _match_brace(masked, match.end() + name_match.end())
        lines = (line_col(starts, body_end)[0] - start_line + 1) if body_end is not None else 1
        if body_end is None:
            continue  # a declaration, not a definition
        kernels.append(Kernel(name=name, path="", line=start_line, lines=lines))
    registrations: List[Registration] = []
    pybind_module = None
    functions = _function_signatures(masked, text)
    for block_kind, namespace, key, var, start, end in _registration_blocks(masked):
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
                                              namespace=key if kind == "torch_library_impl" else namespace,
                                              signature=signature))
    included = [m.group(1) for m in _INCLUDE.finditer(text)]
    includes = tuple(sorted({name for name in included if _CUDA_HEADERS.match(name)}))
    local = tuple(sorted({m.group(1) for m in _LOCAL_INCLUDE.finditer(text)}))
    code_lines = sum(1 for line in masked.splitlines() if line.strip())
    return CudaFacts(kernels=tuple(kernels), registrations=tuple(registrations),
                     launches=len(_LAUNCH.findall(masked)), cuda_includes=includes, includes=local,
                     code_lines=code_lines,
                     pybind_module=pybind_module)


def _mask(text: str) -> str:
    """Blank comments and string/char literals, keeping offsets and newlines."""
    def blank(match: "re.Match[str]") -> str:
        chunk = match.group()
        if chunk.startswith('"'):
            return '"' + re.sub(r"[^\n]", " ", chunk[1:-1]) + '"'
        return re.sub(r"[^\n]", " ", chunk)
    return _MASK.sub(blank, text)


def _literal_at(text: str, masked: str, match: "re.Match[str]") -> Optional[str]:
    quote = masked.find('"', match.start(), match.end())
    if quote < 0:
        return None
    close = masked.find('"', quote + 1)
    return text[quote + 1:close] if close > quote else None


def _match_brace(masked: str, offset: int) -> Optional[int]:
    """Offset of the ``}`` that closes the body following the parameter list at ``offset``."""
    depth = 1
    index = offset
    while index < len(masked) and depth:  # skip the parameter list
        char = masked[index]
        depth += char == "("
        depth -= char == ")"
        index += 1
    while index < len(masked) and masked[index] not in "{;":
        index += 1
    if index >= len(masked) or masked[index] == ";":
        return None
    depth = 0
    for position in range(index, len(masked)):
        char = masked[position]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return position
    return None


def _registration_blocks(masked: str) -> Iterator[Tuple[RegistrationKind, str, Optional[str], str, int, int]]:
    """(kind, namespace or module, dispatch key, module variable, body start, body end)."""
    for match in _PYBIND.finditer(masked):
        end = _match_brace(masked, masked.find("(", match.start()) + 1)
        yield RegistrationKind.PYBIND11, match.group(1), None, match.group(2), match.end(), end or len(masked)
    for match in _TORCH_LIBRARY.finditer(masked):
        end = _match_brace(masked, masked.find("(", match.start()) + 1)
        kind = RegistrationKind.TORCH_LIBRARY_IMPL if match.group(1) == "_IMPL" else RegistrationKind.TORCH_LIBRARY
        yield kind, match.group(2), match.group(3), match.group(4), match.end(), end or len(masked)


_FUNCTION = re.compile(r"^[ \t]*((?:[\w:<>,]+[\s*&]+)+?)(\w+)\s*\(([^;{]*?)\)\s*(?:const\s*)?\{", re.MULTILINE)


def _function_signatures(masked: str, text: str) -> Dict[str, str]:
    found: Dict[str, str] = {}
    for match in _FUNCTION.finditer(masked):
        name = match.group(2)
        if name in ("if", "for", "while", "switch", "return") or "__global__" in match.group(1):
            continue
        signature = " ".join(text[match.start(1):match.end(3) + 1].split())
        found.setdefault(name, signature)
    return found
