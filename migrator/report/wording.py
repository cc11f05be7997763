"""What every view says the same way: a finding's worst status, how a blocker is reached, a verdict's message
with the vendors' notes said in English (by the words the flow gave each: ``Report.notes_said``)."""

from __future__ import annotations

from typing import Mapping, Optional, Tuple

from ..model import STATUS_SEVERITY, Blocker, Finding, Span, Status, TraceSummary, Verdict


def worst_status(finding: Finding) -> Status:
    """The most severe of a finding's per-target statuses (``unknown`` when it has no verdict)."""
    return min((v.status for v in finding.verdicts.values()), key=STATUS_SEVERITY.index, default=Status.UNKNOWN)


def place(path: str, span: Span) -> str:
    """``path:line:col`` as editors and terminals open it (the column counted from 1; a notebook's cell
    before the line)."""
    cell = f"cell {span.cell}:" if span.cell is not None else ""
    return f"{path}:{cell}{span.line or 1}:{(span.col or 0) + 1}"


def reach_text(blocker: Blocker) -> str:
    if blocker.reachable is False:
        return "not on the training path"
    if blocker.entries:
        return (f"{blocker.entries} entry point{'s' if blocker.entries > 1 else ''}, "
                f"{blocker.paths} path{'s' if blocker.paths > 1 else ''}")
    return "every run (launch environment)" if blocker.reachable else "reach not judged"


def trace_text(trace: TraceSummary) -> str:
    """What a joined trace contributed, in one paragraph: traced findings are facts, the rest inferred."""
    lines = [f"Traced: `{' '.join(trace.command)}` on {trace.device} ({trace.stopped}): {trace.ops} aten ops, "
             f"{trace.calls} calls. {trace.confirmed} findings confirmed by the run (confidence traced; "
             f"{trace.confirmed_by_redirects} by the CUDA uses it redirected), "
             f"{trace.runtime_only} ops seen only at run time, {trace.dtype_findings} dtype findings from the "
             "dtypes that ran; every other finding is inferred from the code. Evidence is what ran on the device "
             f"in the training step ({trace.device_calls} calls); host work is not: {trace.host_calls} calls of "
             f"{len(trace.host_ops)} ops (data loading, host tensors)."]
    lines += [f"  not run: {item}" for item in trace.not_redirected]
    return "\n".join(lines)


def said(verdict: Verdict, notes: Mapping[str, str], quoted: bool = False) -> str:
    """``verdict``'s message with each vendor note it carries (``Verdict.quotes``) said by its kind in English
    (``notes``: each note's words, ``Report.notes_said``), or, ``quoted``, as the vendor wrote it."""
    return plain(verdict.message, verdict.quotes, notes, quoted)


def plain(message: str, quotes: Tuple[str, ...], notes: Mapping[str, str], quoted: bool = False) -> str:
    """``said`` for a message and the quotes it carries (a blocker keeps its first finding's); a note ``notes``
    has no words for stays as the vendor wrote it."""
    if quoted:
        return message
    for quote in sorted(set(quotes), key=len, reverse=True):  # a clause inside a whole note: the note first
        if quote and quote in notes:
            message = message.replace(quote, notes[quote])
    return message


def advised(finding: Finding) -> Optional[Tuple[str, Verdict]]:
    """The verdict to show for a ``tune`` finding: the first target whose guide documents it (``partial``)."""
    return next(((t, v) for t, v in finding.verdicts.items() if v.status == Status.PARTIAL), None)
