"""CMake build files (``CMakeLists.txt``, ``*.cmake``): the CUDA libraries a project builds outside ``setup.py``.

A library is CUDA's when CMake compiles CUDA in it: a ``.cu`` source (``add_library(fused SHARED fused.cpp
fused_kernel.cu)``, ``pybind11_add_module``, ``target_sources``, through ``set``/``list(APPEND)``/``file(GLOB)``
variables), or a ``cuda_add_library`` of the old FindCUDA module. Each is a usage ``cmake.add_library`` at its
line, with its name and sources, so the custom-op inventory joins its kernels to it as to a ``CUDAExtension``. A
file that turns CUDA on (``enable_language(CUDA)``, ``project(... LANGUAGES CXX CUDA)``, ``find_package(CUDA)`` /
``CUDAToolkit``) and builds no such library is one usage ``cmake.enable_language`` at that line. A file that
does neither (CUDA in a comment, a CPU-only library) gives nothing.

The reader is one pass over the text (``_commands``: comments, quoted and bracket arguments, nested
parentheses), never a pattern that rescans.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

from ..model import Argument, Span, Usage, UsageKind, Value, ValueKind

#: the usages a CMake file gives: a CUDA library it builds, or CUDA turned on with no library of its own
CMAKE_LIBRARY, CMAKE_CUDA = "cmake.add_library", "cmake.enable_language"
CMAKE_BUILDERS = (CMAKE_LIBRARY, CMAKE_CUDA)

_LIBRARY_COMMANDS = frozenset({"add_library", "pybind11_add_module", "cuda_add_library", "python_add_library",
                               "nanobind_add_module"})
_KEYWORDS = frozenset({"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "EXCLUDE_FROM_ALL", "IMPORTED",
                       "ALIAS", "GLOBAL", "THIN_LTO", "NO_EXTRAS", "WITH_SOABI", "OPTIONS", "PRIVATE", "PUBLIC"})
_CUDA_SOURCE = re.compile(r"\.cu$", re.IGNORECASE)
_VARIABLE = re.compile(r"\$\{(\w+)\}")
_BLOCK_COMMENT = re.compile(r"#\[(=*)\[")
#: folders CMake spells by a variable: a source path is read relative to the CMake file's own folder
_HERE = re.compile(r"^\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR|"
                   r"CMAKE_SOURCE_DIR)\}/")


def is_cmake_name(name: str) -> bool:
    return name == "CMakeLists.txt" or name.lower().endswith(".cmake")


def read_cmake(text: str) -> Tuple[Usage, ...]:
    """The CUDA libraries a CMake file builds (or the line that turns CUDA on, when it builds none)."""
    if "cu" not in text.lower():
        return ()
    variables: Dict[str, List[str]] = {}
    libraries: Dict[str, Tuple[int, str, List[str]]] = {}  # name -> line, command, sources
    enables: Optional[int] = None
    for name, args, line in _commands(text):
        words = [w for arg in args[:_MAX_WORDS] for w in _expand(arg, variables)][:_MAX_WORDS]
        if name == "project" and args:  # ``project(torchcluster)`` names ``${PROJECT_NAME}``
            variables["PROJECT_NAME"] = words[:1]
        if name == "set" and args:
            variables[args[0]] = [w for w in words[1:] if w not in ("CACHE", "PARENT_SCOPE")]
        elif name == "list" and len(args) > 1 and args[0] == "APPEND":
            held = variables.setdefault(args[1], [])
            held.extend(words[2:_MAX_WORDS - len(held) + 2])
        elif name == "file" and len(args) > 1 and args[0] in ("GLOB", "GLOB_RECURSE"):
            variables[args[1]] = [w for w in words[2:] if w not in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES",
                                                                      "RELATIVE")]
        elif name in _LIBRARY_COMMANDS and words:
            # the library's name is the first argument, spelled as written where it expands to nothing (never
            # the ``SHARED`` after an unknown ``${NAME}``)
            named = _expand(args[0], variables)[:1] or [args[0]]
            rest = words[len(_expand(args[0], variables)[:1]):]
            held = libraries.setdefault(named[0], (line, name, []))[2]
            held.extend([w for w in rest if w not in _KEYWORDS][:_MAX_WORDS - len(held)])
        elif name == "target_sources" and words and words[0] in libraries:
            held = libraries[words[0]][2]
            held.extend([w for w in words[1:] if w not in _KEYWORDS][:_MAX_WORDS - len(held)])
        elif enables is None and _turns_cuda_on(name, words):
            enables = line
    usages = []
    for library, (line, command, sources) in libraries.items():
        if command == "cuda_add_library" or any(_CUDA_SOURCE.search(s) for s in sources):
            usages.append(_usage(CMAKE_LIBRARY, line, f"{command}({library} {' '.join(sources)[:120]})", library,
                                 sources))
    if not usages and enables is not None:
        usages.append(_usage(CMAKE_CUDA, enables, "enable_language(CUDA)", None, []))
    return tuple(usages)


def _turns_cuda_on(name: str, words: List[str]) -> bool:
    if name == "enable_language":
        return "CUDA" in words
    if name == "project":
        return "CUDA" in words[1:]
    if name == "find_package":
        return bool(words) and words[0] in ("CUDA", "CUDAToolkit")
    return name.startswith("cuda_add_")


def _usage(api: str, line: int, snippet: str, name: Optional[str], sources: List[str]) -> Usage:
    args: Tuple[Argument, ...] = ()
    if name is not None:
        listed = ", ".join(repr(_HERE.sub("", s)) for s in sources)
        args = (Argument("name", Value(ValueKind.STR, name)),
                Argument("sources", Value(ValueKind.OTHER, f"[{listed}]")))
    return Usage(api=api, kind=UsageKind.CALL, span=Span(line, 0), snippet=snippet, args=args,
                 context="CMake build file")


#: the most words a variable holds once expanded: ``set(A ${A} ${A})`` written 30 times would double to 2**30
_MAX_WORDS = 2_000


def _expand(word: str, variables: Dict[str, List[str]]) -> List[str]:
    """A word with its ``${VAR}`` replaced by what the file set it to (a list expands to its items)."""
    whole = _VARIABLE.fullmatch(word)
    if whole is not None:
        return variables.get(whole.group(1), [])[:_MAX_WORDS]
    return [word]


def _commands(text: str) -> Iterator[Tuple[str, List[str], int]]:
    """Each command invocation: its lower-case name, its arguments (quotes removed), its line. One pass: a ``#``
    comment, a ``"quoted"`` or ``[[bracket]]`` argument and nested parentheses are read once each."""
    i, n, line = 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch == "#":
            stop = _skip_comment(text, i)
            line += text.count("\n", i, stop)
            i = stop
        elif ch.isalpha() or ch == "_":
            start = i
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
            name, at = text[start:i].lower(), line
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] == "(":
                args, i, line = _arguments(text, i + 1, line)
                yield name, args, at
        else:
            i += 1


def _skip_comment(text: str, i: int) -> int:
    bracket = _BLOCK_COMMENT.match(text, i)
    if bracket is not None:  # #[[ a block comment ]]
        end = text.find("]" + bracket.group(1) + "]", bracket.end())
        return len(text) if end < 0 else end
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _arguments(text: str, i: int, line: int) -> Tuple[List[str], int, int]:
    args: List[str] = []
    word: List[str] = []
    depth, n = 1, len(text)
    while i < n and depth:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            quoted = text[i + 1:end]
            line += quoted.count("\n")
            word.append(quoted)
            i = end + 1
            continue
        if ch == "#":
            stop = _skip_comment(text, i)
            line += text.count("\n", i, stop)
            i = stop
            continue
        if ch in "()":
            depth += 1 if ch == "(" else -1
        if ch.isspace() or ch in "()":
            if word:
                args.append("".join(word))
                word = []
            line += ch == "\n"
        else:
            word.append(ch)
        i += 1
    if word:
        args.append("".join(word))
    return args, i, line

