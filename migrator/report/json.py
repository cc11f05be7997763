"""The ``migrator.report/1`` JSON document (ARCHITECTURE.md): other tools read it, so keep it stable."""

from __future__ import annotations

import json
from typing import Any, Dict, TextIO

from ..model import CustomOp, FileResult, Finding, Report

SCHEMA = "migrator.report/1"


def to_dict(report: Report) -> Dict[str, Any]:
    return {
        "schema": SCHEMA,
        "tool": {"name": "migrator", "version": report.tool_version},
        "root": report.root,
        "targets": [
            {"id": t.id, "runtime": t.runtime, "version": t.version, "sources": list(t.sources),
             "readiness": t.readiness, "counts": dict(t.counts), "effort": dict(t.effort)}
            for t in report.targets
        ],
        "files": [_file(f) for f in report.files],
        "findings": [_finding(f) for f in report.findings],
        "custom_ops": [_custom_op(op) for op in report.custom_ops],
    }


def render(report: Report, out: TextIO) -> None:
    # no indentation: json's C encoder only runs without it, and reports of big repos are large
    json.dump(to_dict(report), out, ensure_ascii=False)
    out.write("\n")


def _file(result: FileResult) -> Dict[str, Any]:
    return {"path": result.file.rel, "kind": result.file.kind.value, "status": result.status.value,
            "reason": result.reason}


def _finding(finding: Finding) -> Dict[str, Any]:
    span = finding.span
    return {
        "id": finding.id, "rule": finding.rule, "category": finding.category.value, "path": finding.path,
        "line": span.line, "col": span.col, "end_line": span.end_line, "end_col": span.end_col, "cell": span.cell,
        "api": finding.api, "ops": list(finding.ops), "snippet": finding.snippet,
        "confidence": finding.confidence.value, "reachable": finding.reachable, "scope": finding.scope,
        "verdicts": {
            target: {"status": v.status.value, "message": v.message, "suggestion": v.suggestion,
                     "fixable": v.fixable, "source": v.source}
            for target, v in finding.verdicts.items()
        },
    }


def _custom_op(op: CustomOp) -> Dict[str, Any]:
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
    }
