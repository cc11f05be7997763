"""The ``migrator.report/1`` JSON document (ARCHITECTURE.md): other tools read it, so keep it stable."""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional, Sequence, TextIO

from ..plan import MigrationPlan, migration_plans
from ..model import Blocker, CustomOp, Edit, FileResult, Finding, GraphSummary, OpPlan, Report, TraceSummary

SCHEMA = "migrator.report/1"


def to_dict(report: Report) -> Dict[str, Any]:
    nodes = report.graph.finding_nodes if report.graph is not None else {}
    return {
        "schema": SCHEMA,
        "tool": {"name": "migrator", "version": report.tool_version},
        "root": report.root,
        "targets": [
            {"id": t.id, "runtime": t.runtime, "version": t.version, "sources": list(t.sources),
             "readiness": t.readiness, "counts": dict(t.counts), "effort": dict(t.effort),
             "blockers": [_blocker(b) for b in t.blockers]}
            for t in report.targets
        ],
        "files": [_file(f) for f in report.files],
        "findings": [_finding(f, nodes) for f in report.findings],
        "custom_ops": [_custom_op(op, [p for p in report.op_plans if p.op == op.name]) for op in report.custom_ops],
        "graph": _graph(report.graph),
        "trace": None if report.trace is None else _trace(report.trace),
        "plan": [_migration_plan(p) for p in migration_plans(report)],
    }


#: Findings per ``json.dumps`` call when streaming a long list.
_CHUNK = 2000


def render(report: Report, out: TextIO) -> None:
    """The document, byte for byte what ``json.dumps`` gives, written in pieces.

    ``json.dump`` never uses json's C encoder (only a one-shot, unindented ``dumps`` does), and one ``dumps``
    of a big repository's report holds the whole text in memory (hundreds of MiB for transformers); so each
    long list goes out in chunks of ``_CHUNK`` items, each encoded in C.
    """
    document = to_dict(report)
    out.write("{")
    for index, (key, value) in enumerate(document.items()):
        out.write((", " if index else "") + json.dumps(key) + ": ")
        if isinstance(value, list) and len(value) > _CHUNK:
            out.write("[")
            for start in range(0, len(value), _CHUNK):
                out.write((", " if start else "") + json.dumps(value[start:start + _CHUNK], ensure_ascii=False)[1:-1])
            out.write("]")
        else:
            out.write(json.dumps(value, ensure_ascii=False))
    out.write("}\n")


def _file(result: FileResult) -> Dict[str, Any]:
    return {"path": result.file.rel, "kind": result.file.kind._value_, "status": result.status._value_,
            "reason": result.reason}


def _finding(finding: Finding, nodes: Mapping[str, str]) -> Dict[str, Any]:
    span = finding.span
    return {
        "id": finding.id, "rule": finding.rule, "category": finding.category._value_, "path": finding.path,
        "line": span.line, "col": span.col, "end_line": span.end_line, "end_col": span.end_col, "cell": span.cell,
        "api": finding.api, "ops": list(finding.ops), "snippet": finding.snippet,
        "confidence": finding.confidence._value_, "reachable": finding.reachable, "scope": finding.scope,
        "node": nodes.get(finding.id),
        "verdicts": {
            target: {"status": v.status._value_, "message": v.message, "suggestion": v.suggestion,
                     "fixable": v.fixable, "source": v.source, "edit": _edit(v.edit)}
            for target, v in finding.verdicts.items()
        },
    }


def _custom_op(op: CustomOp, plans: Sequence[OpPlan] = ()) -> Dict[str, Any]:
    return {
        "name": op.name,
        "build": None if op.build is None else {"api": op.build.api, "path": op.build.path,
                                                "line": op.build.span.line, "sources": list(op.build.sources)},
        "files": list(op.files),
        "kernels": [{"name": k.name, "path": k.path, "line": k.line, "lines": k.lines} for k in op.kernels],
        "registrations": [{"name": r.name, "kind": r.kind, "path": r.path, "line": r.line,
                           "namespace": r.namespace, "signature": r.signature} for r in op.registrations],
        "wrappers": list(op.wrappers),
        "call_sites": [{"path": p, "line": line} for p, line in op.call_sites],
        "kernel_lines": op.kernel_lines,
        "plans": {plan.target: _plan(plan) for plan in plans},
    }


def _plan(plan: OpPlan) -> Dict[str, Any]:
    port = plan.port
    return {
        "status": plan.status.value, "summary": plan.summary, "uncovered": list(plan.uncovered),
        "routes": [{"level": r.level, "family": r.family, "what": r.what, "covers": list(r.covers), "call": r.call,
                    "mapping": r.mapping, "differs": r.differs, "code": r.code, "note": r.note, "source": r.source}
                   for r in plan.routes],
        "port": None if port is None else {
            "language": port.language, "kernel_lines": port.kernel_lines, "days": port.days, "build": port.build,
            "kernels": [{"name": k.name, "path": k.path, "line": k.line, "lines": k.lines} for k in port.kernels],
            "registration": port.registration, "hints": list(port.hints)},
    }


def _blocker(blocker: Blocker) -> Dict[str, Any]:
    return {"key": blocker.key, "title": blocker.title, "status": blocker.status.value,
            "findings": list(blocker.findings), "reachable": blocker.reachable, "entries": blocker.entries,
            "paths": blocker.paths, "path": list(blocker.path), "call_paths": [list(p) for p in blocker.call_paths],
            "hours": blocker.hours,
            "first": {"path": blocker.path_of_first, "line": blocker.line_of_first},
            "message": blocker.message, "suggestion": blocker.suggestion, "fixable": blocker.fixable}


def _graph(graph: Optional[GraphSummary]) -> Optional[Dict[str, Any]]:
    if graph is None:
        return None
    return {
        "nodes": graph.nodes, "edges": graph.edges, "reached": graph.reached,
        "unresolved_entries": list(graph.unresolved_entries),
        "entries": [{"node": e.node, "kind": e.kind, "path": e.path, "line": e.line} for e in graph.entries],
        "reach": {node: {"entries": r.entries, "paths": r.paths, "path": list(r.path)}
                  for node, r in graph.reach.items()},
    }


def _migration_plan(plan: MigrationPlan) -> Dict[str, Any]:
    return {"target": plan.target, "readiness_now": plan.readiness_now, "readiness_after_fix": plan.readiness_after_fix,
            "phases": [{"phase": ph.number, "title": ph.title, "what": ph.what, "hours": ph.hours,
                        "readiness_after": ph.readiness_after, "findings": list(ph.findings),
                        "items": [{"key": i.key, "title": i.title, "status": i.status.value, "findings": i.findings,
                                   "entries": i.entries, "hours": i.hours, "where": i.where, "message": i.message}
                                  for i in ph.items]}
                       for ph in plan.phases]}


def _trace(trace: TraceSummary) -> Dict[str, Any]:
    return {"path": trace.path, "command": list(trace.command), "device": trace.device, "stopped": trace.stopped,
            "steps": trace.steps, "ops": trace.ops, "calls": trace.calls, "confirmed": trace.confirmed,
            "runtime_only": trace.runtime_only, "dtype_findings": trace.dtype_findings,
            "not_redirected": list(trace.not_redirected)}


def _edit(edit: Optional[Edit]) -> Optional[Dict[str, Any]]:
    if edit is None:
        return None
    at = None if edit.at is None else {"line": edit.at.line, "col": edit.at.col, "cell": edit.at.cell}
    return {"kind": edit.kind, "old": edit.old, "new": edit.new, "at": at}
