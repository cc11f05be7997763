"""The pipeline: discover -> analyse each file -> join across files -> rules -> assess -> Report."""

from __future__ import annotations

import os
from dataclasses import replace
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple

from . import __version__
from .analyze import analyze_file
from .assess import assess
from .cache import AnalysisCache
from .discover import discover
from .inventory import build_index, custom_ops, kernel_usages
from .maps.load import TargetMap, third_party
from .model import FileResult, Finding, Report, SourceFile
from .rules import RuleContext, apply_rules
from .suggest import apply_plans, plan_custom_ops

if TYPE_CHECKING:
    from .graph import ProjectGraph

#: Blockers (per target, in rank order) that get a sample of call paths from several entry points.
_PATHS_FOR = 60

#: Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 40

Progress = Optional[Callable[[int, int], None]]


def scan(root: Path, targets: Sequence[TargetMap], jobs: Optional[int] = None, progress: Progress = None,
         cache: Optional[AnalysisCache] = None, entries: Sequence[str] = ()) -> Report:
    """Scan a folder (or one file) and judge everything found for each target.

    ``entries`` adds entry points (``pkg.mod`` or ``pkg.mod:func``) to the ones found in the repository.
    """
    return scan_with_graph(root, targets, jobs, progress, cache, entries)[0]


def scan_with_graph(root: Path, targets: Sequence[TargetMap], jobs: Optional[int] = None, progress: Progress = None,
                    cache: Optional[AnalysisCache] = None, entries: Sequence[str] = ()) -> Tuple[Report, "ProjectGraph"]:
    """``scan``, and the call graph it judged reachability on (for ``migrator graph``)."""
    root = Path(root)
    found = discover(root)
    report, project = _scan(root, found.files, targets, jobs, progress, cache, found.skipped, entries, True)
    assert project is not None
    return report, project


def scan_files(root: Path, files: Sequence[SourceFile], targets: Sequence[TargetMap], jobs: Optional[int] = None,
               progress: Progress = None, cache: Optional[AnalysisCache] = None,
               skipped: Sequence[FileResult] = (), entries: Sequence[str] = (), call_graph: bool = True) -> Report:
    """``call_graph=False`` skips the graph and reachability (``check`` on a few files cannot judge them)."""
    return _scan(root, files, targets, jobs, progress, cache, skipped, entries, call_graph)[0]


def _scan(root: Path, files: Sequence[SourceFile], targets: Sequence[TargetMap], jobs: Optional[int],
          progress: Progress, cache: Optional[AnalysisCache], skipped: Sequence[FileResult],
          entries: Sequence[str], call_graph: bool) -> Tuple[Report, Optional["ProjectGraph"]]:
    results = analyze_all(files, jobs, progress, cache)
    if cache is not None:
        cache.prune()
    all_results = sorted([*results, *skipped], key=lambda r: r.file.rel)
    index = build_index(results)
    ctx = RuleContext(targets=tuple(targets), third_party=third_party(), project=index)
    findings: List[Finding] = []
    for result in results:
        findings.extend(apply_rules(result.usages + kernel_usages(result), result.file.rel, ctx))
    findings.sort(key=lambda f: (f.path, f.span.cell or 0, f.span.line or 0, f.span.col or 0, f.rule, f.id))
    ops = custom_ops(results, index, findings)
    plans = plan_custom_ops(ops, targets)
    findings = apply_plans(findings, ops, plans)
    if not call_graph:
        return Report(root=str(root), tool_version=__version__, targets=assess(targets, findings, ops),
                      files=tuple(all_results), findings=tuple(findings), custom_ops=ops, op_plans=plans), None
    from .graph import build_graph, call_paths, mark_reachable, reach, subgraph_around, summarise  # networkx: only here

    project = build_graph(root, results, entries)
    reached = reach(project)
    marked, nodes = mark_reachable(project, reached, findings, ops)
    summary = summarise(project, reached, nodes)
    summaries = tuple(replace(t, blockers=tuple(
        replace(b, call_paths=call_paths(project, b.path[-1])) if b.path and rank < _PATHS_FOR else b
        for rank, b in enumerate(t.blockers))) for t in assess(targets, marked, ops, summary.reach, summary.finding_nodes))
    focus = [nodes[i] for t in summaries for b in t.blockers[:20] for i in b.findings if i in nodes]
    summary = replace(summary, picture=subgraph_around(project, reached, dict.fromkeys(focus)))
    return Report(root=str(root), tool_version=__version__, targets=summaries, files=tuple(all_results),
                  findings=marked, custom_ops=ops, graph=summary, op_plans=plans), project


def analyze_all(files: Sequence[SourceFile], jobs: Optional[int] = None, progress: Progress = None,
                cache: Optional[AnalysisCache] = None) -> List[FileResult]:
    jobs = jobs or os.cpu_count() or 1
    work = partial(analyze_file, cache=cache)
    if jobs <= 1 or len(files) < _POOL_THRESHOLD:
        results = []
        for done, source in enumerate(files, start=1):
            results.append(work(source))
            if progress:
                progress(done, len(files))
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = []
        chunk = max(1, min(32, len(files) // (jobs * 8)))
        for done, result in enumerate(pool.map(work, files, chunksize=chunk), start=1):
            results.append(result)
            if progress:
                progress(done, len(files))
        return results
