"""A terminal summary: per target, counts and top blockers; then findings grouped by file, worst first."""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, TextIO

from ..model import STATUS_SEVERITY, FileStatus, Finding, Report, Status

_BLOCKING = (Status.UNSUPPORTED, Status.PORT, Status.REWRITE)
_TOP = 8


def render(report: Report, out: TextIO) -> None:
    ok = sum(1 for f in report.files if f.status == FileStatus.OK)
    out.write(f"migrator {report.tool_version}: {report.root}: {ok} files scanned, "
              f"{len(report.findings)} findings\n\n")
    for target in report.targets:
        counts = ", ".join(f"{n} {s}" for s, n in target.counts.items() if n)
        out.write(f"{target.id}@{target.version} ({target.runtime}): readiness {target.readiness}%\n")
        out.write(f"  {counts or 'nothing to judge'}\n")
        blockers = _blockers(report.findings, target.id)
        for finding in blockers[:_TOP]:
            verdict = finding.verdicts[target.id]
            out.write(f"  {verdict.status.value:<11} {_where(finding)}  {verdict.message}\n")
        if len(blockers) > _TOP:
            out.write(f"  ... {len(blockers) - _TOP} more blockers\n")
        out.write("\n")
    if report.custom_ops:
        out.write("Custom operators:\n")
        for op in report.custom_ops:
            out.write(f"  {op.name}: {len(op.kernels)} kernels ({op.kernel_lines} lines), "
                      f"{len(op.registrations)} registrations, {len(op.call_sites)} call sites\n")
        out.write("\n")
    by_file: Dict[str, List[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_file[finding.path].append(finding)
    for path in sorted(by_file):
        shown = [f for f in by_file[path] if _worst(f) != Status.SUPPORTED]
        hidden = len(by_file[path]) - len(shown)
        out.write(f"{path}\n")
        for finding in sorted(shown, key=lambda f: (STATUS_SEVERITY.index(_worst(f)), f.span.cell or 0,
                                                     f.span.line or 0)):
            statuses = " ".join(f"{t}:{v.status.value}" for t, v in finding.verdicts.items())
            out.write(f"  {_position(finding)}  {finding.rule}  {finding.api}  [{statuses}]\n")
        if hidden:
            out.write(f"  ({hidden} more uses supported on every target)\n")
    errors = [f for f in report.files if f.status != FileStatus.OK or f.reason]
    if errors:
        out.write("\nFiles not (fully) scanned:\n")
        for result in errors:
            out.write(f"  {result.file.rel}: {result.status.value}: {result.reason}\n")


def _blockers(findings, target: str) -> List[Finding]:
    hits = [f for f in findings if target in f.verdicts and f.verdicts[target].status in _BLOCKING]
    return sorted(hits, key=lambda f: (STATUS_SEVERITY.index(f.verdicts[target].status), f.path, f.span.line or 0))


def _worst(finding: Finding) -> Status:
    return min((v.status for v in finding.verdicts.values()), key=STATUS_SEVERITY.index, default=Status.UNKNOWN)


def _position(finding: Finding) -> str:
    span = finding.span
    cell = f"cell {span.cell} " if span.cell is not None else ""
    return f"{cell}{span.line or '-'}:{span.col if span.col is not None else '-'}"


def _where(finding: Finding) -> str:
    return f"{finding.path}:{_position(finding)}"
