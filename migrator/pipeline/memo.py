"""What a scan keeps in the analysis cache besides each file's result, and when it may be taken back.

Three memos, each ``get_or_compute``: a file's rule findings (valid for as long as the project index answers
what its rules asked of it: ``pipeline/reads.py``), the call graph with what its entry points reach (valid while
no file's imports, definitions or calls changed: ``graph/saved.py``), and a whole report (valid while every
file, the targets, the entry points and the selection are as before). Without a cache each computes.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..discover import base_dir
from ..inventory import kernel_usages
from ..maps.load import TargetMap
from ..model import FileResult, Finding, NodeReach, Report, RuleResults, SourceFile, Verdict
from ..rules import RuleContext, apply_rules
from ..selection import Selection
from ..graph.packaging import console_scripts
from ..engine.cache import AnalysisCache
from .reads import Answers, recording

if TYPE_CHECKING:
    from ..graph import ProjectGraph


def rules_key(cache: AnalysisCache, rel: str, content: str, targets: Sequence[TargetMap]) -> str:
    """Where one file's rule results are kept: by its content key and the targets. What they read of the
    project index is kept with them (``RuleResults.reads``) and checked when they are taken."""
    return cache.key(rel, "rules", f"{content}:{[(t.id, t.version) for t in targets]!r}".encode())


def has_rule_input(result: FileResult) -> bool:
    """Whether the rules have anything to judge in ``result`` (what ``rule_results`` hands them), known without
    loading a cached result's usages."""
    return bool(result.usages) or bool(kernel_usages(result))


def rule_results(result: FileResult, ctx: RuleContext) -> RuleResults:
    """The rules' findings for one file, with every question they asked of ``ctx.project`` and its answer."""
    project, answers = recording(ctx.project)
    errors: List[str] = []
    findings = apply_rules((*result.usages, *kernel_usages(result)), result.file.rel, replace(ctx, project=project),
                           errors=errors)
    return RuleResults(findings=tuple(findings), reads=answers.reads, errors=tuple(errors))


class RuleMemo:
    """Each file's rule findings, from the cache when the whole project index answers what they asked of it
    as it did when they were stored (a pool worker stores them before the index exists:
    ``pipeline/pool.py``); else the rules run again, and are stored."""

    def __init__(self, cache: Optional[AnalysisCache], ctx: RuleContext, keys: Mapping[str, Optional[str]]) -> None:
        self._cache = cache
        self._ctx = ctx
        self._keys = keys  # each file's content key, as the analysis read it
        self._answers = Answers(ctx.project)  # the whole index's answers to what the files' rules asked, once each

    def get_or_compute(self, result: FileResult) -> RuleResults:
        if not has_rule_input(result):
            return RuleResults((), ())
        cache, content = self._cache, self._keys.get(result.file.rel)
        key = rules_key(cache, result.file.rel, content, self._ctx.targets) if cache is not None and content else None
        kept = cache.get_rule_results(key) if cache is not None and key is not None else None
        if kept is not None and self._answers.hold(kept.reads):
            return kept
        fresh = rule_results(result, self._ctx)  # only now are the file's usages needed (from the cache, they load)
        if cache is not None and key is not None:
            cache.put(key, fresh)
        return fresh


def graph_and_reach(cache: Optional[AnalysisCache], root: Path, results: Sequence[FileResult],
                    entries: Sequence[str],
                    compute: Callable[[], Tuple["ProjectGraph", Dict[str, NodeReach]]]
                    ) -> Tuple["ProjectGraph", Dict[str, NodeReach]]:
    """The call graph and what its entry points reach: from the cache when no file's imports, definitions
    or calls changed (``graph/saved.py``), else ``compute``d, and stored for the next scan."""
    if cache is None:
        return compute()
    from ..graph.saved import graph_digest, restored, snapshot_of

    key = cache.key("<graph>", "graph", graph_digest(root, results, entries))
    saved = cache.get_graph(key)
    if saved is not None:
        return restored(saved, results)
    project, reached = compute()
    snapshot = snapshot_of(project, reached)
    if snapshot is not None:
        cache.put(key, snapshot)
    return project, reached


def report_key(cache: AnalysisCache, root: Path, files: Sequence[SourceFile], skipped: Sequence[FileResult],
               keys: Mapping[str, Optional[str]], targets: Sequence[TargetMap], entries: Sequence[str],
               selection: Selection = Selection()) -> Optional[str]:
    """The cache key of a whole report: everything the cross-file work reads (every file's content key, the
    files left out and why, the targets, the entry points given and the console scripts declared).
    ``None`` when a file could not be read (its result is not a function of its key)."""
    if any(keys.get(source.rel) is None for source in files):
        return None
    digest = hashlib.sha256()
    parts = [str(root), repr(sorted((s.rel, s.kind.value, keys[s.rel]) for s in files)),
             repr(sorted((r.file.rel, r.status.value, r.reason) for r in skipped)),
             repr([(t.id, t.version) for t in targets]), repr(list(entries)),
             repr((sorted(selection.select), sorted(selection.ignore)))]
    parts.append(repr(console_scripts(base_dir(root))))  # entry points: what the graph key reads too
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return cache.key("<report>", "report", digest.digest())


def share_verdicts(findings: List[Finding]) -> List[Finding]:
    """``findings``, with equal verdicts made one object: each file's findings come from their own rule run or
    cache entry, and transformers has 127k verdicts of which 1.3k differ. The report then holds, pickles into
    the cache and loads each verdict once. Done in place, on verdict maps no one else holds yet."""
    pool: Dict[Verdict, Verdict] = {}
    for finding in findings:
        verdicts = finding.verdicts
        for target, verdict in verdicts.items():
            verdicts[target] = pool.setdefault(verdict, verdict)  # type: ignore[index]
    return findings


def whole_report(cache: Optional[AnalysisCache], key: Optional[str], compute: Callable[[], Report],
                 still: Callable[[], Optional[str]]) -> Report:
    """The report kept under ``key``, else ``compute``d and kept when ``still()`` gives the same key (no file
    changed while it was scanned: the keys are then those of the bytes analysed)."""
    report = cache.get_report(key) if cache is not None and key is not None else None
    if report is not None:
        return report
    report = compute()
    if cache is not None and key is not None and key == still():
        cache.put(key, report)
    return report
