"""A scan, stage by stage, as docs/architecture.md draws it:

discover -> analyse -> index -> judge -> project -> custom ops -> graph -> tune -> assess -> report

Each stage is a function of what the earlier ones returned; how they run (the process pool, the caches, the
collector) is the engine's (``migrator/engine/``), and the request says which engine parts to use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Sequence, Tuple

from .. import __version__
from ..analyze import content_key
from ..assess import assess
from ..discover import Discovery, base_dir
from ..graph.packaging import PACKAGING_FILES
from .memo import RuleMemo, report_key, whole_report
from .pool import analyze_all
from ..evidence import weigh
from ..maps.load import third_party
from ..model import CustomOp, FileResult, Finding, GraphSummary, OpPlan, Report, TraceSummary
from ..project import in_project
from ..project.configs import with_config_reads, with_config_roots, with_unread_noted
from ..project.coverage import apart
from ..project.line_suggestions import with_whole_line_suggestions
from ..project.roots import (with_clause_roots, with_copy_roots, with_import_roots, with_line_roots, with_run_roots,
                             with_vendored_roots)
from ..project.training_entries import with_untrained_as_tooling
from ..project.vendored import vendored_folders
from ..rules import RuleContext
from .finish import finish
from .graph import reachable, reached_by_trace, with_call_paths
from .index import indexed
from .judge import file_list, judge
from .operators import custom_operators
from .request import ScanRequest, discovered
from .tune import tune

if TYPE_CHECKING:
    from ..graph import ProjectGraph


@dataclass(frozen=True)
class Scanned:
    report: Report
    #: the call graph reachability was judged on (``None`` when the request asked for none)
    project: Optional["ProjectGraph"]


def scan(request: ScanRequest) -> Report:
    """The report of a scan. With a cache, a repository whose files, targets, entry points and selection are all
    as before gets its report back whole: the cross-file work is a function of those alone. (Not for the few
    files ``check`` and ``fix`` hand over: their scan is short, and keeping its report would cost more.)"""
    found = discovered(request)
    cache = request.cache
    if cache is None or request.trace is not None or request.files is not None:
        return _released(run(request, found))
    keys = {source.rel: content_key(source, cache) for source in found.files}

    def key() -> Optional[str]:  # with the keys as the scan leaves them: those of the bytes it analysed
        return report_key(cache, request.root, found.files, found.skipped, keys, request.targets, request.entries,
                          request.selection)

    return whole_report(cache, key(), lambda: _released(run(request, found, keys)), key)


def scan_with_graph(request: ScanRequest) -> Tuple[Report, "ProjectGraph"]:
    """``scan``, and the call graph it judged reachability on (for ``migrator graph``)."""
    scanned = run(replace(request, call_graph=True), discovered(request))
    assert scanned.project is not None
    return scanned.report, scanned.project


def run(request: ScanRequest, found: Discovery, keys: Optional[Dict[str, Optional[str]]] = None) -> Scanned:
    """Every stage after discovery. ``keys``: each file's content key, as far as known (filled in here)."""
    keys = {} if keys is None else keys
    with request.collector.scanning():
        results = analyze_all(found.files, request.jobs, request.progress, request.cache, keys, request.targets,
                              request.collector)
        with request.collector.keeping():  # the results live to the end: what follows need not walk them again
            return _across_files(request, results, found.skipped, keys)


def _across_files(request: ScanRequest, results: List[FileResult], skipped: Sequence[FileResult],
                  keys: Dict[str, Optional[str]]) -> Scanned:
    if request.cache is not None:
        request.cache.prune_if_due()
    targets, root = tuple(request.targets), request.root
    results, index = indexed(results, request.cache, keys)
    ctx = RuleContext(targets=targets, third_party=third_party(), project=index)
    judged = judge(results, file_list(results, skipped), ctx, RuleMemo(request.cache, ctx, keys), root,
                   project_rules=request.call_graph, suppress=request.suppress)
    read, reads = with_config_reads(judged.findings, results)
    judged = replace(judged, files=with_unread_noted(judged.files, reads))
    base = base_dir(root)
    findings = with_config_roots(in_project(read, results, targets,
                                            packaged=any((base / name).is_file() for name in PACKAGING_FILES)),
                                 reads)
    traced = None
    if request.trace is not None:
        from .trace_join import join_trace

        findings, traced = join_trace(findings, request.trace[0], str(root), targets, request.trace[1])
    findings.sort(key=lambda f: (f.path, f.span.cell or 0, f.span.line or 0, f.span.col or 0, f.rule, f.id))
    ops, plans, findings = custom_operators(findings, results, index, targets)
    if request.selection:  # --select / --ignore: what is reported, and so what readiness and the plan are over
        findings = request.selection.apply(findings)
    if not request.call_graph:
        return Scanned(_report(request, judged.files, findings, ops, plans, traced, ()), None)
    from ..graph import subgraph_around, summarise

    reached = reachable(root, results, findings, ops, request.entries, request.cache,
                        tuple(t.id for t in targets if t.device_to != "cuda"))
    project, nodes = reached.project, reached.nodes
    rule_errors = list(judged.rule_errors)
    tuned = tune(results, reached.findings, ctx, project, nodes, ops, request.selection,
                 request.trace[0] if request.trace is not None else None, str(root), rule_errors)
    marked, placed = reached.findings + tuned.findings, {**reached.placed, **tuned.placed}
    vendored = vendored_folders(base, (r.file.rel for r in results))
    marked = tuple(with_untrained_as_tooling(marked, results, project, placed, tuned.step_nodes,  # eval scripts
                                             vendored))
    if traced is not None:
        marked = reached_by_trace(marked)
    summary = summarise(project, nodes, placed)
    report = _report(request, judged.files, marked, ops, plans, traced, tuple(rule_errors), summary,
                     tuned.fallbacks_on_step)
    report = replace(report, targets=tuple(with_call_paths(project, t) for t in report.targets))
    top = {b.key: b.path for t in report.targets for b in t.blockers[:12] if b.path}  # the most reached, per target
    picture = subgraph_around(project, nodes, top.values())
    return Scanned(replace(report, graph=replace(summary, picture=picture)), project)


def _report(request: ScanRequest, files: Tuple[FileResult, ...], judged: Sequence[Finding],
            ops: Tuple[CustomOp, ...], plans: Tuple[OpPlan, ...], traced: Optional[TraceSummary],
            rule_errors: Tuple[str, ...], graph: Optional[GraphSummary] = None,
            fallbacks_on_step: Optional[FrozenSet[str]] = None) -> Report:
    """The assess stage and the report: readiness, effort and blockers per target over what the scan judged."""
    judged = weigh(judged, fallbacks_on_step)  # every verdict's evidence explicit: what is work is decided here
    if request.settle is not None:  # fixable: what `fix` applies on this tree (``fix/settle.py``, asked for)
        judged = request.settle(request.root, judged, request.targets)
    # one item of work: a line, a run of the same work on lines in a row, the calls one vendor clause bites, a
    # file and its copy, a library shipped in the tree
    judged = with_vendored_roots(with_copy_roots(with_clause_roots(with_run_roots(with_line_roots(
        with_import_roots(judged))))))
    judged = with_whole_line_suggestions(judged)  # a cause's suggestion with its sites' rewrites on its line
    parts = apart(judged)
    summaries = assess(request.targets, judged, ops, plans, graph.reach if graph else None,
                       graph.finding_nodes if graph else None, covered={f.id for f in parts.covered})
    report = Report(root=str(request.root), tool_version=__version__, targets=summaries, files=files,
                    findings=parts.findings, custom_ops=ops, graph=graph, op_plans=plans, trace=traced,
                    covered=parts.covered, rule_errors=rule_errors, validate=parts.validate)
    return finish(report)  # what every view says (the plan, the coverage, the numbers), derived once


def _released(scanned: Scanned) -> Report:
    """The report, with the call graph's memory given back."""
    if scanned.project is not None:
        scanned.project.release()
    return scanned.report
