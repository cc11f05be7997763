"""The ``migrator.report/1`` JSON document (ARCHITECTURE.md): other tools read it, so keep it stable."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, TextIO, Tuple

from ..evidence import active, grade
from ..model import (Blocker, CoveredApi, CustomOp, Edit, FileResult, Finding, GraphSummary, MigrationPlan, OpPlan,
                     Report, ShimPlan, Tally, TraceSummary, Verdict)
from . import View, finished

SCHEMA = "migrator.report/1"


def to_dict(report: Report) -> Dict[str, Any]:
    nodes = report.graph.finding_nodes if report.graph is not None else {}
    return _document(report, [_finding(f, nodes) for f in report.findings])


def _document(report: Report, findings: Any) -> Dict[str, Any]:
    return {
        "schema": SCHEMA,
        "tool": {"name": "migrator", "version": report.tool_version},
        "root": report.root,
        "summary": summary(finished(report)),
        "targets": [
            {"id": t.id, "runtime": t.runtime, "version": t.version, "sources": list(t.sources),
             "readiness": t.readiness, "counts": dict(t.counts), "to_validate": t.to_validate,
             "selects_itself": list(t.selects_itself),
             "effort": dict(t.effort),
             "blockers": [_blocker(b) for b in t.blockers]}
            for t in report.targets
        ],
        "files": [_file(f) for f in report.files],
        "findings": findings,
        "coverage": _coverage(report.covered, report.coverage),
        "validate": _apart(report.validate_by_api),
        "data_gaps": _apart(report.gaps_by_api),
        "custom_ops": [_custom_op(op, [p for p in report.op_plans if p.op == op.name]) for op in report.custom_ops],
        "graph": _graph(report.graph),
        "trace": None if report.trace is None else _trace(report.trace),
        "plan": [_migration_plan(p) for p in report.plans],
        **({"rule_errors": list(report.rule_errors)} if report.rule_errors else {}),
    }


#: Items per ``encode`` call when streaming a long list.
_CHUNK = 2000


def render(report: Report, out: TextIO, view: Optional[View] = None) -> None:  # a document holds all: no view
    """The document, byte for byte what ``json.dumps(to_dict(report), ensure_ascii=False)`` gives, written in
    pieces.

    ``json.dump`` never uses json's C encoder (only a one-shot, unindented ``dumps`` does), and one ``dumps``
    of a big repository's report holds the whole text in memory (hundreds of MiB for transformers); so each
    long list goes out in chunks of ``_CHUNK`` items, each encoded in C. Findings are encoded by
    ``_FindingWriter``: most of their bytes are verdicts, and most verdicts repeat.
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode
    document = _document(report, findings=None)
    out.write("{")
    for index, (key, value) in enumerate(document.items()):
        out.write((", " if index else "") + encode(key) + ": ")
        if key == "findings":
            _FindingWriter(report, encode).write(out)
        elif isinstance(value, list) and len(value) > _CHUNK:
            _write_list(out, [encode(value[start:start + _CHUNK])[1:-1] for start in range(0, len(value), _CHUNK)])
        else:
            out.write(encode(value))
    out.write("}\n")


def _write_list(out: TextIO, pieces: Iterable[str]) -> None:
    """A JSON list from the encoded text of its items, or of runs of them (each without its brackets)."""
    out.write("[")
    for index, piece in enumerate(pieces):
        out.write((", " if index else "") + piece)
    out.write("]")


class _FindingWriter:
    """Writes ``findings`` as ``_finding`` dicts encode, encoding each distinct set of verdicts once.

    A repository's findings share a few hundred verdict sets (transformers: 617 among 42k findings), and the
    verdicts are three fifths of the document's bytes. Each finding's own fields are encoded in C, and its
    verdicts' text, encoded when first met, is spliced in as the last key, where ``_finding`` puts it.
    """

    def __init__(self, report: Report, encode: Callable[[Any], str]) -> None:
        self.findings = report.findings
        self.nodes = report.graph.finding_nodes if report.graph is not None else {}
        self.encode = encode
        self._by_ids: Dict[Tuple[Any, ...], str] = {}  # the same verdict objects (the objects live meanwhile)
        self._by_value: Dict[Tuple[Any, ...], str] = {}  # equal verdicts built apart (from other cache entries)

    def write(self, out: TextIO) -> None:
        chunks = (", ".join(map(self._encoded, self.findings[start:start + _CHUNK]))
                  for start in range(0, len(self.findings), _CHUNK))
        _write_list(out, chunks)

    def _encoded(self, finding: Finding) -> str:
        head = self.encode(_finding_fields(finding, self.nodes))
        return f"{head[:-1]}, \"verdicts\": {self._verdicts(finding)}}}"

    def _verdicts(self, finding: Finding) -> str:
        by_ids = (*finding.verdicts, *map(id, finding.verdicts.values()))
        text = self._by_ids.get(by_ids)
        if text is None:
            by_value = tuple(finding.verdicts.items())
            text = self._by_value.get(by_value)
            if text is None:
                text = self._by_value[by_value] = self.encode(_verdicts(finding))
            self._by_ids[by_ids] = text
        return text


def summary(tally: Tally) -> Dict[str, Any]:
    """The shared numbers (``vocabulary.py``), as the JSON's ``summary`` and SARIF's run properties say them."""
    return {
        "project": tally.project, "files_scanned": tally.files_scanned, "findings": tally.findings,
        "at_cause": tally.at_cause, "on_path": tally.on_path, "off_path": tally.off_path,
        "to_validate": tally.to_validate, "data_gaps": tally.data_gaps, "runs_as_written": tally.runs_as_written,
        "tuning": tally.tuning,
        "left_out": {"test": tally.left_out_tests, "tooling": tally.left_out_tooling, "sites": tally.left_out_sites},
        "reachability_judged": tally.reachability_judged,
        "closest": None if tally.closest is None else {"target": tally.closest, "why": tally.closest_why},
        "targets": [{
            "id": t.id, "readiness": t.readiness, "readiness_after_fix": t.readiness_after_fix, "hours": t.hours,
            "days": t.days,
            "dominant": None if t.dominant is None else {"name": t.dominant, "hours": t.dominant_hours,
                                                         "share": t.dominant_share},
            "work": {"on_path": t.work_on_path, "off_path": t.work_off_path}, "to_validate": t.to_validate,
            "data_gaps": t.data_gaps, "runs": t.runs, "certain": t.certain, "substitute": t.substitute,
            "uncertain_share": t.uncertain_share,
            "blockers": {"on_path": t.blockers_on_path, "off_path": t.blockers_off_path},
            "ports": {"on_path": t.ports_on_path, "off_path": t.ports_off_path},
            "unsupported": {"on_path": t.unsupported_on_path, "off_path": t.unsupported_off_path},
            "automatic": t.automatic, "manual": t.manual,
            "before_ports": {"readiness": t.readiness_before_ports, "hours": t.hours_before_ports},
            "phases": [{"phase": p.number, "title": p.title, "hours": p.hours, "cumulative_hours": p.cumulative_hours,
                        "readiness_after": p.readiness_after} for p in t.phases]}
            for t in tally.targets],
    }


def _file(result: FileResult) -> Dict[str, Any]:
    return {"path": result.file.rel, "kind": result.file.kind._value_, "status": result.status._value_,
            "reason": result.reason}


def _finding(finding: Finding, nodes: Mapping[str, str]) -> Dict[str, Any]:
    measured = {"measured": asdict(finding.measured)} if finding.measured is not None else {}
    return {**_finding_fields(finding, nodes), **measured, "verdicts": _verdicts(finding)}


def _finding_fields(finding: Finding, nodes: Mapping[str, str]) -> Dict[str, Any]:
    """A finding's own fields, in the document's order: all but its verdicts, which come last."""
    span = finding.span
    return {
        "id": finding.id, "rule": finding.rule, "category": finding.category._value_, "path": finding.path,
        "line": span.line, "col": span.col, "end_line": span.end_line, "end_col": span.end_col, "cell": span.cell,
        "api": finding.api, "ops": list(finding.ops), "snippet": finding.snippet,
        "confidence": finding.confidence._value_, "reachable": finding.reachable, "scope": finding.scope,
        "node": nodes.get(finding.id), "context": finding.context._value_, "root": finding.root,
    }


def _coverage(covered: Sequence[Finding], rows: Sequence[CoveredApi]) -> Dict[str, Any]:
    """The usages every target runs as written, per API (``rows``): counted in readiness, not listed as
    findings."""
    return {"usages": len(covered), "counted": sum(r.counted for r in rows),
            "apis": [{"api": r.api, "rule": r.rule, "category": r.category._value_, "uses": r.uses,
                      "counted": r.counted, "sources": dict(r.sources), "sites": [_site(u) for u in r.sites]}
                     for r in rows]}


def _verdicts(finding: Finding) -> Dict[str, Any]:
    return {target: {"status": v.status._value_, "message": v.message, "suggestion": v.suggestion,
                     "fixable": v.fixable, "source": v.source, "edit": _edit(v.edit), **_weight(v)}
            for target, v in finding.verdicts.items()}


def _weight(verdict: Verdict) -> Dict[str, Any]:
    """What the judge made of a verdict (``evidence.py``): active or not, its grade, the items it rests on."""
    found = grade(verdict)
    return {"active": active(verdict), "grade": None if found is None else found.value,
            "evidence": [{"grade": e.grade.value, "source": e.source, "quote": e.quote} for e in verdict.evidence]}


def _apart(rows: Sequence[CoveredApi]) -> List[Dict[str, Any]]:
    """The uses of one bucket (to validate, or data gaps), per API: each target's verdict on its first use,
    and every site."""
    return [{"api": r.api, "rule": r.rule, "category": r.category._value_, "uses": r.uses, "counted": r.counted,
             "verdicts": {t: {"status": v.status._value_, "message": v.message, "source": v.source, **_weight(v)}
                          for t, v in r.sites[0].verdicts.items()},
             "sites": [_site(f) for f in r.sites]}
            for r in rows]


def _site(usage: Finding) -> Dict[str, Any]:
    return {"id": usage.id, "path": usage.path, "line": usage.span.line, "col": usage.span.col,
            "cell": usage.span.cell, "context": usage.context._value_, "reachable": usage.reachable,
            "root": usage.root}


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
                       for ph in plan.phases],
            "shim": _shim(plan.shim)}


def _shim(shim: Optional[ShimPlan]) -> Optional[Dict[str, Any]]:
    if shim is None:
        return None
    return {"imports": list(shim.imports), "source": shim.source, "covered": len(shim.covered),
            "if_passed": len(shim.if_passed), "not_covered": len(shim.not_covered),
            "not_covered_findings": list(shim.not_covered),
            # issue 43: swapped to a twin the vendor notes behaves otherwise here (returns None, raises)
            "differs": len(shim.differs), "differs_findings": list(shim.differs),
            "reasons": [{"why": why, "findings": count} for why, count in shim.reasons]}


def _trace(trace: TraceSummary) -> Dict[str, Any]:
    return {"path": trace.path, "command": list(trace.command), "device": trace.device, "stopped": trace.stopped,
            "steps": trace.steps, "ops": trace.ops, "calls": trace.calls, "confirmed": trace.confirmed,
            "confirmed_by_redirects": trace.confirmed_by_redirects,
            "runtime_only": trace.runtime_only, "dtype_findings": trace.dtype_findings,
            "not_redirected": list(trace.not_redirected), "device_calls": trace.device_calls,
            "host_calls": trace.host_calls, "host_ops": list(trace.host_ops)}


def _edit(edit: Optional[Edit]) -> Optional[Dict[str, Any]]:
    if edit is None:
        return None
    at = None if edit.at is None else {"line": edit.at.line, "col": edit.at.col, "cell": edit.at.cell}
    return {"kind": edit.kind, "old": edit.old, "new": edit.new, "at": at}
