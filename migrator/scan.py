"""The pipeline: discover -> analyse each file -> join across files -> rules -> assess -> Report."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from . import __version__
from .analyze import analyze_file
from .assess import assess
from .discover import discover
from .inventory import build_index, custom_ops, kernel_usages
from .maps.load import TargetMap, third_party
from .model import FileResult, Finding, Report, SourceFile
from .rules import RuleContext, apply_rules

#: Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 40


def scan(root: Path, targets: Sequence[TargetMap], jobs: Optional[int] = None,
         progress: Optional[Callable[[int, int], None]] = None) -> Report:
    root = Path(root)
    found = discover(root)
    results = analyze_all(found.files, jobs, progress)
    all_results = sorted([*results, *found.skipped], key=lambda r: r.file.rel)
    index = build_index(results)
    ctx = RuleContext(targets=tuple(targets), third_party=third_party(), project=index)
    findings: List[Finding] = []
    for result in results:
        usages = result.usages + kernel_usages(result)
        findings.extend(apply_rules(usages, result.file.rel, ctx))
    findings.sort(key=lambda f: (f.path, f.span.cell or 0, f.span.line or 0, f.span.col or 0, f.rule))
    ops = custom_ops(results, index, findings)
    return Report(root=str(root), tool_version=__version__, targets=assess(targets, findings, ops),
                  files=tuple(all_results), findings=tuple(findings), custom_ops=ops)


def analyze_all(files: Sequence[SourceFile], jobs: Optional[int] = None,
                progress: Optional[Callable[[int, int], None]] = None) -> List[FileResult]:
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(files) < _POOL_THRESHOLD:
        results = []
        for done, source in enumerate(files, start=1):
            results.append(analyze_file(source))
            if progress:
                progress(done, len(files))
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = []
        for done, result in enumerate(pool.map(analyze_file, files, chunksize=8), start=1):
            results.append(result)
            if progress:
                progress(done, len(files))
        return results
