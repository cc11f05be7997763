"""A module only tooling imports is tooling: torchani's ``tools/tool_utils.py`` (NVTX ranges, CUDA events, memory
printouts) serves its ``tools/*-benchmark.py`` scripts and nothing else. A module the training code imports, one
nobody imports (a script of its own), or one with a main block stays as its path says."""

from __future__ import annotations

from typing import Callable, Dict, Sequence, Set

from ..contexts import path_context
from ..graph.entries import named_as_a_script
from ..model import Context, FileResult
from .launches import ModuleIndex


def tooling_helpers(results: Sequence[FileResult], tooling: Callable[[str], bool]) -> Set[str]:
    """Paths of the training-path modules whose every importer in the project is tooling or a test
    (``tooling(path)``: whether a file is, beyond its path: a web demo)."""
    index = ModuleIndex(results)
    importers: Dict[str, Set[str]] = {}
    for result in results:
        if result.outline is None:
            continue
        for name in result.outline.imports:
            for rel in index.files_named(name):
                if rel != result.file.rel:
                    importers.setdefault(rel, set()).add(result.file.rel)
    entries = {r.file.rel for r in results if r.outline is not None and r.outline.main_lines is not None}
    return {rel for rel, sources in importers.items()
            if path_context(rel) == Context.TRAINING and not named_as_a_script(rel) and rel not in entries
            and all(path_context(source) != Context.TRAINING or tooling(source) for source in sources)}
