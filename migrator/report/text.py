"""A terminal summary: per target, counts and top blockers; then findings grouped by file, worst first."""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, TextIO

from ..plan import migration_plans
from ..assess import counted
from ..model import STATUS_SEVERITY, Context, FileStatus, Finding, Report, Status
from .wording import reach_text, trace_text, worst_status

_TOP = 8


def render(report: Report, out: TextIO) -> None:
    ok = sum(1 for f in report.files if f.status == FileStatus.OK)
    listed = counted(report.findings)
    covered = f"; {len(report.covered)} more uses run as written on every target" if report.covered else ""
    out.write(f"migrator {report.tool_version}: {report.root}: {ok} files scanned, "
              f"{len(report.findings)} findings ({len(listed)} in training code at their cause){covered}\n\n")
    if report.trace is not None:
        out.write(trace_text(report.trace) + "\n\n")
    plans = {p.target: p for p in migration_plans(report)}
    for target in report.targets:
        counts = ", ".join(f"{n} {s}" for s, n in target.counts.items() if n)
        after_fix = plans[target.id].readiness_after_fix
        unknown = target.counts.get(Status.UNKNOWN.value, 0)
        if not any(target.counts.values()):
            score = "nothing to assess (no finding in training code)"
        else:
            judged = f" of what the data judges, {unknown} unknown" if unknown else ""
            score = f"readiness {target.readiness}%{judged} ({after_fix}% after `migrator fix`)"
        out.write(f"{target.id}@{target.version} ({target.runtime}): {score}, "
                  f"effort ~{target.effort.get('total_days', '?')} days\n")
        out.write(f"  {counts or 'nothing to judge'}\n")
        for blocker in target.blockers[:_TOP]:
            where = f"{blocker.path_of_first}:{blocker.line_of_first or '-'}"
            out.write(f"  {blocker.status.value:<11} {blocker.title}  ({reach_text(blocker)}; {where})\n"
                      f"              {blocker.message}\n")
        if len(target.blockers) > _TOP:
            out.write(f"  ... {len(target.blockers) - _TOP} more blockers\n")
        out.write("\n")
    if report.graph is not None:
        entries = ", ".join(e.node for e in report.graph.entries) or "none found (use --entry MODULE:FUNC)"
        out.write(f"Entry points: {entries}\n\n")
    if report.custom_ops:
        out.write("Custom operators:\n")
        for op in report.custom_ops:
            out.write(f"  {op.name}: {len(op.kernels)} kernels ({op.kernel_lines} lines), "
                      f"{len(op.registrations)} registrations, {len(op.call_sites)} call sites\n")
        out.write("\n")
    by_file: Dict[str, List[Finding]] = defaultdict(list)
    for finding in listed:  # tests, tooling and the sites of a cause listed here are in the JSON and HTML
        by_file[finding.path].append(finding)
    for path in sorted(by_file):
        shown = [f for f in by_file[path] if worst_status(f) != Status.SUPPORTED]
        hidden = len(by_file[path]) - len(shown)
        out.write(f"{path}\n")
        for finding in sorted(shown, key=lambda f: (STATUS_SEVERITY.index(worst_status(f)), f.span.cell or 0,
                                                     f.span.line or 0)):
            statuses = " ".join(f"{t}:{v.status.value}" for t, v in finding.verdicts.items())
            out.write(f"  {_position(finding)}  {finding.rule}  {finding.api}  [{statuses}]\n")
        if hidden:
            out.write(f"  ({hidden} more uses supported on every target)\n")
    left_out = _left_out(report.findings)
    if left_out:
        out.write(f"\n(not listed: {left_out}; `--format json` or `html` has them)\n")
    errors = [f for f in report.files if f.status != FileStatus.OK or f.reason]
    if errors:
        out.write("\nFiles not (fully) scanned:\n")
        for result in errors:
            out.write(f"  {result.file.rel}: {result.status.value}: {result.reason}\n")


def _left_out(findings: List[Finding]) -> str:
    """'3 in tests, 2 in tooling, 5 uses of a cause listed above' for what the listing leaves out."""
    tests = sum(1 for f in findings if f.context == Context.TEST)
    tooling = sum(1 for f in findings if f.context == Context.TOOLING)
    sites = sum(1 for f in findings if f.context == Context.TRAINING and f.root is not None)
    parts = [f"{tests} in tests" if tests else "", f"{tooling} in tooling (packaging, benchmarks, export)"
             if tooling else "", f"{sites} uses of a cause listed above" if sites else ""]
    return ", ".join(p for p in parts if p)


def _position(finding: Finding) -> str:
    """``line:column``, the column counted from 1 as `check`, SARIF and editors count it (the JSON keeps its
    0-based ``col``)."""
    span = finding.span
    cell = f"cell {span.cell} " if span.cell is not None else ""
    return f"{cell}{span.line or '-'}:{span.col + 1 if span.col is not None else '-'}"


def _where(finding: Finding) -> str:
    return f"{finding.path}:{_position(finding)}"
