"""Per-file work: read, parse, resolve. A pure function of one file, safe to run in a process pool."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union

from .discover import read_source
from .engine.cache import AnalysisCache, LazyUsages
from .inventory import read_by_inventory
from .maps.load import tensor_methods, third_party
from .model import FileKind, FileResult, FileStatus, PythonFacts, SourceFile, StepFacts, Usage
from .project import amp_scopes, diagnostics, dtypes, plain_imports
from .resolve import module_name_for
from .rules import PROJECT_RULES, VOCABULARY
from .rules.tune import keeps_for_tuning
from .sources.cmake import read_cmake
from .sources.config import ConfigError, config_text, python_refs, read_config, script_refs
from .sources.cuda import read_cuda
from .sources.environment import read_environment, read_markdown_launches, scan_line
from .sources.notebook import NotebookCode, read_notebook
from .sources.outline import outline_of
from .sources.python import (ParseFailure, decode_source, is_too_deep, parse_ast, parse_python, python2_marker,
                             without_deep_statements)
from .sources.step import step_facts


def analyze_file(source: SourceFile, cache: Optional[AnalysisCache] = None, look_up: bool = True) -> FileResult:
    """Read, parse and resolve one file; with a cache, reuse the result for identical content and store new ones.

    ``look_up=False`` skips the cache read for a file the caller already found missing.
    """
    data = _read(source)
    if isinstance(data, FileResult):
        return data
    if cache is None:
        return _analyze(source, data)
    key = cache.key(source.rel, source.kind.value, data)
    cached = _hit(cache, key, source) if look_up else None
    return cached if cached is not None else _analysed(source, data, cache, key).result


class Analysed(NamedTuple):
    """A file analysed anew by ``analyze_new``: the result, the same as the cache now keeps it, and its key."""

    result: FileResult
    stored: FileResult
    key: Optional[str]  # the content key of the bytes analysed (``None`` when they could not be read)


def analyze_new(source: SourceFile, cache: AnalysisCache) -> Analysed:
    """Analyse a file the cache lacks (``pipeline/pool.analyze_all`` looked), and store its result.

    A pool worker sends the stored form on as it is, its usages pickled apart (``LazyUsages``), instead of
    pickling them a second time; it runs the rules on the result's own usages, and files their findings under
    the content key of the very bytes analysed.
    """
    data = _read(source)
    if isinstance(data, FileResult):
        return Analysed(data, data, None)
    return _analysed(source, data, cache, cache.key(source.rel, source.kind.value, data))


def _analysed(source: SourceFile, data: bytes, cache: AnalysisCache, key: str) -> Analysed:
    result = _analyze(source, data)
    stored = _as_cached(result)
    cache.put(key, stored)
    return Analysed(result, stored, key)


def _read(source: SourceFile) -> Union[bytes, FileResult]:
    try:
        return read_source(source.path)
    except OSError as exc:
        return FileResult(source, FileStatus.ERROR, f"cannot read: {exc.strerror or exc}")


def _as_cached(result: FileResult) -> FileResult:
    """``result`` as the cache keeps it: its usages pickled apart (``LazyUsages``), and the few the cross-file
    stages read beside them, so that a scan serving this file from the cache loads the rest only if it must."""
    if not result.usages:
        return result
    shared = tuple(u for u in result.usages
                   if read_by_inventory(u) or dtypes.reads(u) or diagnostics.reads(u) or plain_imports.reads(u)
                   or amp_scopes.reads(u)
                   or any(rule.reads(u) for rule in PROJECT_RULES)
                   or keeps_for_tuning(u))
    return replace(result, usages=LazyUsages.of(result.usages), shared_usages=shared)


def cached_result(source: SourceFile, cache: AnalysisCache,
                  key: Optional[str] = None) -> Optional[FileResult]:
    """The cached result for this file's current content, or ``None`` (unreadable files are analysed anew).
    ``key``: the file's ``content_key`` when the caller has it already."""
    key = key or content_key(source, cache)
    return _hit(cache, key, source) if key is not None else None


def content_key(source: SourceFile, cache: AnalysisCache) -> Optional[str]:
    """The cache key of this file's current content (``None`` when it cannot be read)."""
    try:
        data = read_source(source.path)
    except OSError:
        return None
    return cache.key(source.rel, source.kind.value, data)


def _hit(cache: AnalysisCache, key: str, source: SourceFile) -> Optional[FileResult]:
    cached = cache.get(key)
    return replace(cached, file=source) if cached is not None else None


def _analyze(source: SourceFile, data: bytes, prefilter: bool = True) -> FileResult:
    result = _analyzed(source, data, prefilter)
    return replace(result, marked=True) if b"migrator:" in data else result  # suppressions read only there


def _analyzed(source: SourceFile, data: bytes, prefilter: bool) -> FileResult:
    try:
        if source.kind == FileKind.PYTHON:
            return _python(source, data, prefilter)
        return _ANALYZERS[source.kind](source, data)
    except RecursionError:
        return FileResult(source, FileStatus.ERROR, "nested too deeply to analyse (RecursionError)")
    except Exception as exc:  # a bug in migrator must not stop the scan: report it on the file
        detail = str(exc).splitlines()[0][:160] if str(exc) else ""
        return FileResult(source, FileStatus.ERROR, f"internal error while analysing: {type(exc).__name__}: {detail}")


#: A file with none of these, nor the top-level name of a CUDA-bound library of ``third_party.json``, cannot hold
#: a finding: it is not parsed. (Extension modules are reached through names like ``_C`` or ``_ext``, so those
#: count too.)
_WORDS = (r"torch|cuda|CUDA|nccl|NCCL|cudnn|apex|triton|flash_attn|xformers|bitsandbytes|"
          r"transformer_engine|deepspeed|nvml|nvtx|cupy|nvidia|cpp_extension|mmcv|spconv|_C\b|_ext\b|"
          # frameworks that choose the device, backend and precision (rules/framework)
          r"lightning|TrainingArguments|SFTConfig|Accelerator\b|"
          r"nvcc|nsys\b|ncu\b|nvprof")  # NVIDIA tools a launched command may run (nvidia-tool)
RELEVANT = re.compile("|".join([_WORDS, *sorted(re.escape(root) for root in third_party().roots)]))


def resolve_mentioning(results: List[FileResult], names: Iterable[str], cache: Optional[AnalysisCache] = None,
                       keys: Optional[Mapping[str, Optional[str]]] = None) -> List[FileResult]:
    """``results``, with each prefiltered file that mentions one of ``names`` (the repo's own extension
    modules, ``fused_ops`` or ``amp_C``, which ``RELEVANT`` cannot know) resolved after all; the same list
    when there is none. Which files mention them is kept in the cache (under the names and every prefiltered
    file's content key), so a scan after an edit does not read them all again; the resolved results are not
    cached, as they depend on other files."""
    words = sorted({name for name in names if name and not RELEVANT.search(name)})
    prefiltered = [result for result in results if result.prefiltered]
    if not words or not prefiltered:
        return results
    key = _mentioning_key(cache, words, prefiltered, keys or {})
    mentioning = cache.get_paths(key) if cache is not None and key is not None else None
    read: Dict[str, bytes] = {}  # the files searched just now, so a match is not read a second time
    if mentioning is None:
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")
        for result in prefiltered:
            data = _bytes_of(result.file)
            if pattern.search(data.decode("utf-8", "replace")):
                read[result.file.rel] = data
        mentioning = tuple(read)
        if cache is not None and key is not None:
            cache.put(key, mentioning)
    if not mentioning:
        return results
    chosen = set(mentioning)
    return [_analyze(r.file, read.get(r.file.rel) or _bytes_of(r.file), prefilter=False)
            if r.prefiltered and r.file.rel in chosen else r for r in results]


def _mentioning_key(cache: Optional[AnalysisCache], words: List[str], prefiltered: List[FileResult],
                    keys: Mapping[str, Optional[str]]) -> Optional[str]:
    if cache is None or any(keys.get(r.file.rel) is None for r in prefiltered):
        return None
    parts = [*words, "", *(f"{r.file.rel}\0{keys[r.file.rel]}" for r in prefiltered)]
    return cache.key("<mentioning>", "mentioning", "\n".join(parts).encode("utf-8", "surrogateescape"))


def _bytes_of(source: SourceFile) -> bytes:
    try:
        return read_source(source.path)
    except OSError:
        return b""


def _python(source: SourceFile, data: bytes, prefilter: bool = True) -> FileResult:
    text = decode_source(data)
    if isinstance(text, ParseFailure):
        return FileResult(source, FileStatus.ERROR, text.reason)
    name, is_package = module_name_for(source.rel), source.rel.endswith("__init__.py")
    tree = _ast_tree(text)
    if tree is None:  # newer libcst reads `except A, B:` (Python 3.14); this interpreter calls it Python 2
        py2 = python2_marker(text)
        if py2:
            return FileResult(source, FileStatus.ERROR, f"Python 2 source ({py2}); migrator reads Python 3 only")
    outline = outline_of(tree, name, is_package) if tree is not None else None
    refs = python_refs(text)
    if prefilter and tree is not None and not RELEVANT.search(text):  # no finding can come from here: skip libcst
        return FileResult(source, FileStatus.OK, python=PythonFacts(module=name), outline=outline, prefiltered=True,
                          config_refs=refs)
    module = parse_python(text, valid=tree is not None, tree=tree)
    note = None
    if isinstance(module, ParseFailure) and is_too_deep(module):  # leave the one statement out, read the rest
        partial = without_deep_statements(text)
        if partial is not None:
            text, note = partial.text, partial.note
            tree = _ast_tree(text)
            module = parse_python(text, valid=tree is not None, tree=tree)  # CPython's parser has vetted it: once
            outline = outline_of(tree, name, is_package) if tree is not None else None
    if isinstance(module, ParseFailure):
        return FileResult(source, FileStatus.ERROR, module.reason)
    facts, usages = _resolve(module, name, is_package, source=text, tree=tree)
    step, left_out = _step(tree, name, text)
    return FileResult(source, FileStatus.OK, _joined(note, left_out), usages=usages, python=facts, outline=outline,
                      step=step, config_refs=refs)


def _resolve(module, name: str, is_package: bool, position_map=None, source: Optional[str] = None,
             tree: Optional[ast.Module] = None):
    """``resolve_module`` with the rules' vocabulary; imported here, with libcst, only once a file is parsed."""
    from .resolve import resolve_module

    return resolve_module(module, name, is_package, tensor_methods(), VOCABULARY, position_map, source=source,
                          tree=tree)


def _step(tree: Optional[ast.Module], module: str, text: str,
          map_span=None) -> Tuple[Optional[StepFacts], Optional[str]]:
    """The file's training-step facts, and a note when an expression too deep for them left them out (the
    file's usages, read by libcst, stand)."""
    if tree is None:
        return None, None
    try:
        return step_facts(tree, module, map_span, text), None
    except (RecursionError, MemoryError) as exc:
        return None, f"training-step reading left out: an expression nested too deeply ({type(exc).__name__})"


def _joined(note: Optional[str], more: Optional[str]) -> Optional[str]:
    return "; ".join(part for part in (note, more) if part) or None


def _ast_tree(text: str) -> Optional[ast.Module]:
    """Vets files libcst skips and feeds the call-graph outline."""
    return parse_ast(text)


def _notebook(source: SourceFile, data: bytes) -> FileResult:
    text = decode_source(data)
    if isinstance(text, ParseFailure):
        return FileResult(source, FileStatus.ERROR, text.reason)
    code = read_notebook(text)
    if isinstance(code, str):
        return FileResult(source, FileStatus.ERROR, code)
    shell = _notebook_shell(code)
    tree = _ast_tree(code.python)
    module = parse_python(code.python, valid=tree is not None, tree=tree)
    if isinstance(module, ParseFailure):
        return _notebook_by_cell(source, code, shell, module.reason)
    name = module_name_for(source.rel)
    facts, usages = _resolve(module, name, False, code.map_span, source=code.python, tree=tree)
    outline = outline_of(tree, name, False) if tree is not None else None
    step, left_out = _step(tree, name, code.python, code.map_span)
    return FileResult(source, FileStatus.OK, left_out, usages=usages + shell, python=facts, outline=outline,
                      step=step, config_refs=python_refs(code.python))


def _notebook_by_cell(source: SourceFile, code: NotebookCode, shell: Tuple[Usage, ...], reason: str) -> FileResult:
    """A cell that does not parse is left out; the others are still scanned together."""
    lines = code.python.split("\n")
    bad_cells = set()
    for cell in sorted({c for c, _ in code.origins}):
        text = "\n".join(line for line, (c, _) in zip(lines, code.origins) if c == cell)
        if isinstance(parse_python(text + "\n"), ParseFailure):
            bad_cells.add(cell)
    kept = "\n".join("" if code.origins[i][0] in bad_cells else line
                     for i, line in enumerate(lines[:len(code.origins)])) + "\n"
    module = parse_python(kept)
    if isinstance(module, ParseFailure) or not bad_cells:
        return FileResult(source, FileStatus.ERROR, f"notebook code does not parse: {reason}")
    facts, usages = _resolve(module, module_name_for(source.rel), False, replace(code, python=kept).map_span)
    cells = ", ".join(str(c) for c in sorted(bad_cells))
    return FileResult(source, FileStatus.OK, f"cells {cells} skipped: {reason}", usages=usages + shell, python=facts)


def _notebook_shell(code: NotebookCode) -> Tuple[Usage, ...]:
    found = []
    for cell, line, command in code.shell:
        found.extend(scan_line(command, line, FileKind.SHELL, cell=cell))
    return tuple(found)


def _cuda(source: SourceFile, data: bytes) -> FileResult:
    if b"\x00" in data[:8192]:
        return FileResult(source, FileStatus.ERROR, "binary file (contains NUL bytes)")
    facts = read_cuda(data.decode("utf-8", errors="replace"))
    facts = replace(facts,
                    kernels=tuple(replace(k, path=source.rel) for k in facts.kernels),
                    registrations=tuple(replace(r, path=source.rel) for r in facts.registrations))
    return FileResult(source, FileStatus.OK, cuda=facts)


def _text_of(source: SourceFile, data: bytes) -> Union[str, FileResult]:
    """A text file's text, or the error a binary one gets (a NUL byte in its first 8 KiB)."""
    if b"\x00" in data[:8192]:
        return FileResult(source, FileStatus.ERROR, "binary file (contains NUL bytes)")
    return data.decode("utf-8", errors="replace")


def _environment(source: SourceFile, data: bytes) -> FileResult:
    text = _text_of(source, data)
    if isinstance(text, FileResult):
        return text
    refs = script_refs(text) if source.kind in (FileKind.SHELL, FileKind.DOCKERFILE) else None
    return FileResult(source, FileStatus.OK, usages=read_environment(text, source.kind), config_refs=refs)


def _training_config(source: SourceFile, data: bytes) -> FileResult:
    """A configuration file: its values, judged later only if something reads the file (``project/configs``)."""
    text = config_text(data)
    if isinstance(text, ConfigError):
        return FileResult(source, FileStatus.ERROR, str(text))
    try:
        usages, refs = read_config(text, source.rel)
    except ConfigError as exc:
        return FileResult(source, FileStatus.ERROR, str(exc))
    return FileResult(source, FileStatus.OK, usages=usages, config_refs=refs if refs.names else None)


def _cmake(source: SourceFile, data: bytes) -> FileResult:
    """A CMake build file: the CUDA libraries it builds (``sources/cmake.py``)."""
    text = _text_of(source, data)
    return text if isinstance(text, FileResult) else FileResult(source, FileStatus.OK, usages=read_cmake(text))


def _markdown(source: SourceFile, data: bytes) -> FileResult:
    """A README: the training launches its shell blocks document (``sources/environment.read_markdown_launches``)."""
    text = _text_of(source, data)
    return text if isinstance(text, FileResult) else \
        FileResult(source, FileStatus.OK, usages=read_markdown_launches(text))


_ANALYZERS = {
    FileKind.PYTHON: _python,
    FileKind.NOTEBOOK: _notebook,
    FileKind.CUDA: _cuda,
    FileKind.CPP: _cuda,
    FileKind.SHELL: _environment,
    FileKind.DOCKERFILE: _environment,
    FileKind.REQUIREMENTS: _environment,
    FileKind.TRAINING_CONFIG: _training_config,
    FileKind.CMAKE: _cmake,
    FileKind.MARKDOWN: _markdown,
}
