"""The pipeline: discover -> analyse each file -> join across files -> rules -> assess -> Report."""

from __future__ import annotations

import gc
import hashlib
import itertools
import os
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import (TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional,
                    Sequence, Tuple)

from . import __version__
from .analyze import analyze_file, analyze_new, cached_result, content_key, resolve_mentioning
from .assess import assess
from .cache import AnalysisCache
from .discover import Discovery, base_dir, discover, excluded
from .gate.suppress import apply_suppressions, suppressions_in
from .inventory import OpMembership, build_index, custom_ops, kernel_usages
from .maps.load import TargetMap, third_party
from .project import in_project
from .project.coverage import apart
from .project.roots import with_op_roots, with_requirement_roots
from .selection import Selection
from .model import (Confidence, FileKind, FileResult, FileStatus, Finding, NodeReach, Report, RuleResults, SourceFile,
                    TargetSummary, Verdict)
from .resolve import module_name_for
from .rules import PROJECT_RULES, ProjectIndex, RuleContext, apply_rules
from .rules.base import findings_or_error
from .rules.reads import Answers, recording
from .sources.packaging import console_scripts
from .op_plans import apply_plans, plan_custom_ops

if TYPE_CHECKING:
    from .graph import ProjectGraph

#: Blockers (per target, in rank order) that get a sample of call paths from several entry points.
_PATHS_FOR = 60

#: The collector's first-generation threshold during a scan (the default is 700).
_GC_THRESHOLD = 100_000

#: Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 40

#: Results received between two ``gc.freeze`` calls while the files are analysed (``analyze_all``).
_FREEZE_EVERY = 64

Progress = Optional[Callable[[int, int], None]]
#: A ``migrator.trace/1`` document and the path it was read from.
Trace = Tuple[Mapping[str, Any], str]


def scan(root: Path, targets: Sequence[TargetMap], jobs: Optional[int] = None, progress: Progress = None,
         cache: Optional[AnalysisCache] = None, entries: Sequence[str] = (), trace: Optional[Trace] = None,
         exclude: Exclude = None, selection: Selection = Selection()) -> Report:
    """Scan a folder (or one file) and judge everything found for each target.

    ``entries`` adds entry points (``pkg.mod`` or ``pkg.mod:func``) to the ones found in the repository;
    ``trace`` is a ``migrator.trace/1`` document (with its file name) to join to the findings. With a cache,
    a repository whose files, targets and entry points are all as before gets its report back whole
    (``report_key``): the cross-file work is a function of those alone. ``exclude``: ``[tool.migrator]
    exclude`` patterns and the path of ``root`` below the configuration's folder (``without_excluded``);
    ``selection``: the rules reported (``--select`` / ``--ignore``).
    """
    if cache is None or trace is not None:
        report, project = scan_with_graph(root, targets, jobs, progress, cache, entries, trace, exclude, selection)
        project.release()
        return report
    root = Path(root)
    found = without_excluded(discover(root), exclude)
    keys = {source.rel: content_key(source, cache) for source in found.files}
    whole = report_key(cache, root, found.files, found.skipped, keys, targets, entries, selection)
    report = cache.get_report(whole) if whole is not None else None
    if report is None:
        report, project = _scan(root, found.files, targets, jobs, progress, cache, found.skipped, entries, True,
                                keys=keys, selection=selection)
        if project is not None:
            project.release()
        # kept only when no file changed while it was scanned (the keys are now those of the bytes analysed)
        if whole is not None and whole == report_key(cache, root, found.files, found.skipped, keys, targets, entries,
                                                     selection):
            cache.put(whole, report)
    return report


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


def scan_with_graph(root: Path, targets: Sequence[TargetMap], jobs: Optional[int] = None, progress: Progress = None,
                    cache: Optional[AnalysisCache] = None, entries: Sequence[str] = (),
                    trace: Optional[Trace] = None, exclude: Exclude = None,
                    selection: Selection = Selection()) -> Tuple[Report, "ProjectGraph"]:
    """``scan``, and the call graph it judged reachability on (for ``migrator graph``)."""
    root = Path(root)
    found = without_excluded(discover(root), exclude)
    report, project = _scan(root, found.files, targets, jobs, progress, cache, found.skipped, entries, True, trace,
                            selection=selection)
    assert project is not None
    return report, project


#: ``[tool.migrator] exclude`` for a scan: (patterns, the scanned folder's path below the configuration's folder
#: with a trailing slash, or "" when they are the same)
Exclude = Optional[Tuple[Sequence[str], str]]


def without_excluded(found: Discovery, exclude: Exclude) -> Discovery:
    """``found`` without the files ``exclude`` names (patterns match paths from the configuration's folder)."""
    if not exclude or not exclude[0]:
        return found
    patterns, base = exclude
    return replace(found, files=tuple(f for f in found.files if not excluded(base + f.rel, patterns)),
                   skipped=tuple(r for r in found.skipped if not excluded(base + r.file.rel, patterns)))


def scan_files(root: Path, files: Sequence[SourceFile], targets: Sequence[TargetMap], jobs: Optional[int] = None,
               progress: Progress = None, cache: Optional[AnalysisCache] = None,
               skipped: Sequence[FileResult] = (), entries: Sequence[str] = (), call_graph: bool = True,
               suppress: bool = True, selection: Selection = Selection()) -> Report:
    """``call_graph=False`` skips the graph and reachability (``check`` on a few files cannot judge them);
    ``suppress=False`` keeps the findings ``# migrator: ignore`` marks (``check`` reports them as suppressed)."""
    report, project = _scan(root, files, targets, jobs, progress, cache, skipped, entries, call_graph,
                            suppress=suppress, selection=selection)
    if project is not None:
        project.release()
    return report


@contextmanager
def fewer_collections():
    """Raise the cyclic collector's first threshold while a scan runs.

    A scan allocates millions of small objects that never form cycles (usages, findings, syntax trees); at the
    default threshold (700) the collector walks them over and over: 2 s of the 2.9 s it takes to load
    transformers' cached results. Collections still happen, only less often.
    """
    previous = gc.get_threshold()
    gc.set_threshold(_GC_THRESHOLD, previous[1], previous[2])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


@contextmanager
def frozen_heap():
    """Leave every object alive now out of the cyclic collector's walks (``gc.freeze``) until the block ends.

    For work whose inputs stay alive through it anyway (the cross-file work after every file's result is in,
    writing the report after a scan): collections still run at their pace and free the new cycles, but no
    longer walk millions of old objects each time (0.7 s of a transformers scan after an edit). (Raising the
    threshold instead, as ``fewer_collections`` does, lets the report writer's short-lived cycles pile up:
    22 MB more at the peak on transformers.)
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _worker_init(targets: Tuple[TargetMap, ...], modules: FrozenSet[str]) -> None:
    """A pool worker runs the cyclic collector by hand, once a file (``_analyze_in_worker``), over what that
    file left: the collector's own schedule walks each file's live syntax trees again and again (5 to 9% of
    the analysis). What the worker imported is frozen out of every walk. ``targets`` (inherited with the
    fork, or pickled once per worker) are what its rules judge against, and ``modules`` the repository's
    Python modules, known from the file names before any file is read."""
    global _WORKER_RULES
    _WORKER_RULES = (RuleContext(targets=targets, third_party=third_party(), project=ProjectIndex(modules=modules))
                     if targets else None)
    gc.disable()
    gc.freeze()


#: A worker's rules context: the targets and the project index as far as it is known before every file is in
#: (the repository's modules; no constants, extensions or kernels yet). ``None`` outside a pool worker.
_WORKER_RULES: Optional[RuleContext] = None


def _analyze_in_worker(source: SourceFile, cache: Optional[AnalysisCache]) -> Tuple[Optional[str], FileResult]:
    """One file the cache lacks, analysed, stored, and sent on as stored (its usages still pickled), with the
    content key of the very bytes analysed (a file edited since the main process keyed it is known by these).

    With a cache, its rules run here too, on the project index as far as the worker knows it, and their
    results are stored with what they read of it: ``_file_findings`` takes them when the whole index answers
    the same, as it does for almost every file. The rules' time is then spent beside the other worker
    instead of after the pool with a core idle, and the main process need not load the usages at all.
    """
    try:
        if cache is None:
            return None, analyze_file(source, look_up=False)
        new = analyze_new(source, cache)
        ctx = _WORKER_RULES
        if ctx is not None and new.key is not None and _has_rule_input(new.result):
            cache.put(rules_key(cache, source.rel, new.key, ctx.targets), rule_results(new.result, ctx))
        return new.key, new.stored
    finally:
        gc.collect(0)  # the few cycles a file leaves (``ast.literal_eval``'s closures): its tree is freed as the
        # pass returns, since nothing in it is held in a cycle (``test_the_pass_leaves_no_cycle...``)
        if next(_FILES_IN_THIS_WORKER) % 100 == 0:
            gc.collect()  # anything that became garbage after surviving one of the above


_FILES_IN_THIS_WORKER = itertools.count(1)


def _scan(root: Path, files: Sequence[SourceFile], targets: Sequence[TargetMap], jobs: Optional[int],
          progress: Progress, cache: Optional[AnalysisCache], skipped: Sequence[FileResult],
          entries: Sequence[str], call_graph: bool, trace: Optional[Trace] = None,
          keys: Optional[Dict[str, Optional[str]]] = None, suppress: bool = True,
          selection: Selection = Selection()) -> Tuple[Report, Optional["ProjectGraph"]]:
    keys = {} if keys is None else keys
    with fewer_collections():
        results = analyze_all(files, jobs, progress, cache, keys, targets)
        with frozen_heap():  # the results live to the end of the scan: what follows need not walk them again
            return _judge(root, results, targets, cache, skipped, entries, call_graph, trace, keys, suppress,
                          selection)


def _judge(root: Path, results: List[FileResult], targets: Sequence[TargetMap], cache: Optional[AnalysisCache],
           skipped: Sequence[FileResult], entries: Sequence[str], call_graph: bool, trace: Optional[Trace],
           keys: Dict[str, Optional[str]], suppress: bool = True,
           selection: Selection = Selection()) -> Tuple[Report, Optional["ProjectGraph"]]:
    """The cross-file work, from every file's result: rules, custom operators, the call graph, readiness."""
    if cache is not None:
        cache.prune_if_due()
    all_results = _file_list(results, skipped)
    index = build_index(results)
    mentioned = resolve_mentioning(results, {part for name in index.extensions for part in name.split(".")},
                                   cache, keys)
    if mentioned is not results:  # a file reaches one of the repo's extensions by a name RELEVANT cannot know
        results, all_results = mentioned, _file_list(mentioned, skipped)
        index = build_index(results)
    ctx = RuleContext(targets=tuple(targets), third_party=third_party(), project=index)
    findings: List[Finding] = []
    answers = Answers(index)  # the whole index's answers to what the files' rules asked, each asked once
    failed: Dict[str, Tuple[str, ...]] = {}  # a file whose rules raised: what failed, for its entry in the report
    for result in results:
        judged = _file_findings(result, ctx, cache, keys.get(result.file.rel), answers)
        findings.extend(judged.findings)
        if judged.errors:
            failed[result.file.rel] = judged.errors
    if failed:
        all_results = [_with_rule_errors(r, failed[r.file.rel]) if r.file.rel in failed else r for r in all_results]
    rule_errors: List[str] = []
    if call_graph:  # a project-wide judgement: not from the few files `check` or `fix` hand over
        for rule in PROJECT_RULES:
            findings.extend(findings_or_error(rule.name, partial(rule.findings, results, ctx), rule_errors))
    if suppress:  # `# migrator: ignore` (``check`` keeps them, to report what it suppressed)
        commented = {r.file.rel for r in results if r.marked} & {f.path for f in findings}  # read only those again
        findings = (apply_suppressions(findings, suppressions_in(base_dir(root), commented)).kept if commented
                    else findings)
    findings = in_project(findings, results, targets)
    traced = None
    if trace is not None:
        from .trace.join import join_trace

        findings, traced = join_trace(findings, trace[0], str(root), targets, trace[1])
    findings.sort(key=lambda f: (f.path, f.span.cell or 0, f.span.line or 0, f.span.col or 0, f.rule, f.id))
    ops = custom_ops(results, index, findings)
    plans = plan_custom_ops(ops, targets)
    findings = with_op_roots(share_verdicts(apply_plans(findings, ops, plans)), OpMembership(ops).op_of)
    findings = with_requirement_roots(findings, third_party().library_of)
    if selection:  # --select / --ignore: what is reported, and so what readiness and the plan are over
        findings = selection.apply(findings)
    if not call_graph:
        acted_on, covered = apart(findings)
        return Report(root=str(root), tool_version=__version__,
                      targets=assess(targets, findings, ops, plans, covered={f.id for f in covered}),
                      files=tuple(all_results), findings=acted_on, custom_ops=ops, op_plans=plans,
                      trace=traced, covered=covered), None
    from .graph import mark_reachable, subgraph_around, summarise  # networkx: only here
    from .graph.shimmed import through_shims

    project, reached = _graph_and_reach(root, results, entries, cache)
    marked, nodes = mark_reachable(project, reached, findings, ops)
    marked = tuple(through_shims(marked, project, nodes, results))  # an entry point already on a vendor's patcher
    marked += _tuning(results, marked, ctx, project, reached, ops, nodes, selection,
                      trace[0] if trace is not None else None, str(root), rule_errors)
    if traced is not None:  # the run went through them, whatever the call graph could resolve
        marked = tuple(replace(f, reachable=True) if f.confidence == Confidence.TRACED else f for f in marked)
    summary = summarise(project, reached, nodes)
    acted_on, covered = apart(marked)
    summaries = tuple(_with_call_paths(project, t)
                      for t in assess(targets, marked, ops, plans, summary.reach, summary.finding_nodes,
                                      covered={f.id for f in covered}))
    top = {b.key: b.path for t in summaries for b in t.blockers[:12] if b.path}  # the most-reached, per target
    summary = replace(summary, picture=subgraph_around(project, reached, top.values()))
    return Report(root=str(root), tool_version=__version__, targets=summaries, files=tuple(all_results),
                  findings=acted_on, custom_ops=ops, graph=summary, op_plans=plans, trace=traced,
                  covered=covered, rule_errors=tuple(rule_errors)), project


def _tuning(results: Sequence[FileResult], judged: Sequence[Finding], ctx: RuleContext, project: "ProjectGraph",
            reached: Mapping[str, NodeReach], ops, nodes: Dict[str, str], selection: Selection,
            trace: Optional[Mapping[str, Any]], root: str, errors: List[str]) -> Tuple[Finding, ...]:
    """The ``tune`` findings: what stalls the device on the training step (``rules/tune.py``), reached from
    the entry points, and with a trace, how often each ran per step (``trace/join.measure_step``)."""
    from .graph import mark_reachable
    from .project.step import training_step
    from .rules.tune import tune_findings

    step = training_step(results, project.graph, main_lines=project.main_lines)
    found = tune_findings(results, judged, step, project.node_of, ctx, errors)
    if selection:
        found = selection.apply(found)
    marked, placed = mark_reachable(project, reached, found, ops)
    nodes.update(placed)
    imported = {n for n in reached if project.graph.nodes[n].get("kind") == "module"}
    kept = []
    for finding in marked:
        if finding.reachable is False:
            node = placed.get(finding.id)
            method, trainer = step.run_by_a_module(node), step.run_by_a_trainer(node)
            if not ((method is not None and module_name_for(project.graph.nodes[method].get("path", "")) in imported)
                    or (trainer is not None and trainer in reached)):
                continue  # dead code, or code only a test or a tool runs
            # a built module's forward, or what a reached trainer's step calls on an attribute: the graph cannot
            # say who calls it, nor so whether it is reached
            finding = replace(finding, reachable=None)
        kept.append(finding)
    if trace is not None:
        from .trace.join import measure_step

        kept = measure_step(kept, trace, root)
    return tuple(kept)


def _graph_and_reach(root: Path, results: Sequence[FileResult], entries: Sequence[str],
                     cache: Optional[AnalysisCache]) -> Tuple["ProjectGraph", Dict[str, NodeReach]]:
    """The call graph and what its entry points reach: from the cache when no file's imports, definitions
    or calls changed (``graph/saved.py``), else built, and stored for the next scan."""
    from .graph import build_graph, reach
    from .graph.saved import graph_digest, restored, snapshot_of

    key = cache.key("<graph>", "graph", graph_digest(root, results, entries)) if cache is not None else None
    saved = cache.get_graph(key) if key is not None else None
    if saved is not None:
        return restored(saved, results)
    project = build_graph(root, results, entries)
    reached = reach(project)
    snapshot = snapshot_of(project, reached) if key is not None else None
    if snapshot is not None:
        cache.put(key, snapshot)
    return project, reached


def _with_rule_errors(result: FileResult, errors: Sequence[str]) -> FileResult:
    """A file's report entry saying which rules failed on it (a bug in migrator, not in the file): its other
    findings stand."""
    said = "; ".join(errors[:3]) + (f"; and {len(errors) - 3} more" if len(errors) > 3 else "")
    reason = f"{result.reason}; {said}" if result.reason else said
    return replace(result, reason=f"{reason} (a migrator bug: the rest of the file was judged)")


def _file_list(results: Sequence[FileResult], skipped: Sequence[FileResult]) -> List[FileResult]:
    """What the report says of each file: its status and why, not its facts (the findings carry what
    matters, and a report that held every usage again would cost a second copy to cache or send)."""
    return sorted((FileResult(r.file, r.status, r.reason) for r in [*results, *skipped]), key=lambda r: r.file.rel)


def rules_key(cache: AnalysisCache, rel: str, content: str, targets: Sequence[TargetMap]) -> str:
    """Where one file's rule results are kept: by its content key and the targets. What they read of the
    project index is kept with them (``RuleResults.reads``) and checked when they are taken."""
    return cache.key(rel, "rules", f"{content}:{[(t.id, t.version) for t in targets]!r}".encode())


def _has_rule_input(result: FileResult) -> bool:
    """Whether the rules have anything to judge in ``result`` (what ``rule_results`` hands them), known without
    loading a cached result's usages."""
    return bool(result.usages) or bool(kernel_usages(result))


def rule_results(result: FileResult, ctx: RuleContext) -> RuleResults:
    """The rules' findings for one file, with every question they asked of ``ctx.project`` and its answer."""
    project, answers = recording(ctx.project)
    errors: List[str] = []
    findings = apply_rules(result.usages + kernel_usages(result), result.file.rel, replace(ctx, project=project),
                           errors=errors)
    return RuleResults(findings=tuple(findings), reads=answers.reads, errors=tuple(errors))


def _file_findings(result: FileResult, ctx: RuleContext, cache: Optional[AnalysisCache], content: Optional[str],
                   answers: Answers) -> RuleResults:
    """The rules' findings for one file: those kept for its content (its ``content`` key, as ``analyze_all``
    read it) and the targets, when the project index answers what their rules asked of it as it did then
    (a pool worker stores them before the index exists: ``_analyze_in_worker``); else the rules run again."""
    if not _has_rule_input(result):
        return RuleResults((), ())
    key = rules_key(cache, result.file.rel, content, ctx.targets) if cache is not None and content else None
    kept = cache.get_rule_results(key) if key is not None else None  # type: ignore[union-attr]
    if kept is not None and answers.hold(kept.reads):
        return kept
    fresh = rule_results(result, ctx)  # only now are the file's usages needed (from the cache, they load here)
    if key is not None:
        cache.put(key, fresh)  # type: ignore[union-attr]
    return fresh


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


def _with_call_paths(project: "ProjectGraph", summary: TargetSummary) -> TargetSummary:
    """The first ``_PATHS_FOR`` blockers get up to three call paths from different entry points."""
    from .graph import call_paths

    blockers = tuple(replace(b, call_paths=call_paths(project, b.path[-1])) if b.path and rank < _PATHS_FOR else b
                     for rank, b in enumerate(summary.blockers))
    return replace(summary, blockers=blockers)


def _analyze_here(source: SourceFile, cache: Optional[AnalysisCache]) -> Tuple[Optional[str], FileResult]:
    """``_analyze_in_worker`` in this process: the result, and the key of the bytes analysed."""
    if cache is None:
        return None, analyze_file(source, look_up=False)
    new = analyze_new(source, cache)
    return new.key, new.result


def analyze_all(files: Sequence[SourceFile], jobs: Optional[int] = None, progress: Progress = None,
                cache: Optional[AnalysisCache] = None, keys: Optional[Dict[str, Optional[str]]] = None,
                targets: Sequence[TargetMap] = ()) -> List[FileResult]:
    """Every file's result, in order. Cache hits load in this process (cheaper than sending results back
    from workers); only misses go to the process pool, whose workers also store the rule results for
    ``targets`` (``_analyze_in_worker``). ``keys`` receives each file's content key (read once here, reused
    for the rule cache); a key already in it is taken as read."""
    jobs = jobs or os.cpu_count() or 1
    results: List[Optional[FileResult]] = [None] * len(files)
    todo = list(range(len(files)))
    if cache is not None:
        todo = []
        for index, source in enumerate(files):
            key = keys[source.rel] if keys is not None and source.rel in keys else content_key(source, cache)
            if keys is not None:
                keys[source.rel] = key
            hit = cached_result(source, cache, key) if key is not None else None
            if hit is None:
                todo.append(index)
            else:
                results[index] = hit
    done = len(files) - len(todo)
    if progress and done:
        progress(done, len(files))
    if jobs <= 1 or len(todo) < _POOL_THRESHOLD:
        computed: Iterable[Tuple[int, Tuple[Optional[str], FileResult]]] = \
            zip(todo, map(partial(_analyze_here, cache=cache), (files[i] for i in todo)))
    else:
        modules = frozenset(module_name_for(f.rel) for f in files if f.kind in (FileKind.PYTHON, FileKind.NOTEBOOK))
        # largest first: a worker parses its largest trees before its memory is fragmented by what it keeps
        # (timm: 186 -> 174 MiB at a worker's peak), and the small files at the end even out the two workers
        todo.sort(key=lambda i: -files[i].size)
        computed = _in_pool(files, todo, jobs, cache, (tuple(targets) if cache is not None else (), modules))
    with frozen_heap():  # the results are kept: frozen as they come, so that the collections while the pool runs
        for index, (key, result) in computed:  # walk only what came since (1 s on transformers)
            results[index] = result
            if keys is not None and key is not None:  # the bytes analysed: what the rule and report keys use
                keys[files[index].rel] = key
            done += 1
            if done % _FREEZE_EVERY == 0:
                gc.freeze()
            if progress:
                progress(done, len(files))
    return results  # type: ignore[return-value]


def _in_pool(files: Sequence[SourceFile], todo: List[int], jobs: int, cache: Optional[AnalysisCache],
             initargs: tuple) -> Iterator[Tuple[int, Tuple[Optional[str], FileResult]]]:
    """(index, worker result) for each of ``todo``, from a process pool. A worker that dies (a native parser
    fault, the memory limit) takes one file down, not the scan: the files not yet back are analysed again one
    worker at a time, in order, so the one that kills it again is known, reported with the reason, and passed."""
    from concurrent.futures import ProcessPoolExecutor  # multiprocessing: 14 ms a `check` never needs
    from concurrent.futures.process import BrokenProcessPool

    work = partial(_analyze_in_worker, cache=cache)
    back = set()
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init, initargs=initargs)
    try:
        chunk = max(1, min(32, len(todo) // (jobs * 8)))
        for index, item in zip(todo, pool.map(work, (files[i] for i in todo), chunksize=chunk)):
            back.add(index)
            yield index, item
        return
    except BrokenProcessPool:
        pass
    finally:
        pool.shutdown()
    queue = [i for i in todo if i not in back]
    while queue:
        single = ProcessPoolExecutor(max_workers=1, initializer=_worker_init, initargs=initargs)
        done = 0
        try:
            for index, item in zip(queue, single.map(work, (files[i] for i in queue))):
                done += 1
                yield index, item
        except BrokenProcessPool:
            culprit = queue[done]
            yield culprit, (None, FileResult(files[culprit], FileStatus.ERROR, "the analysis of this file killed "
                                             "its worker process (a fault in the native parser, or the memory "
                                             "limit); the rest of the scan went on"))
            done += 1
        finally:
            single.shutdown()
        queue = queue[done:]
