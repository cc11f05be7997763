"""What every view says the same way: a finding's worst status, and how a blocker is reached."""

from __future__ import annotations

from ..model import STATUS_SEVERITY, Blocker, Finding, Status, TraceSummary


def worst_status(finding: Finding) -> Status:
    """The most severe of a finding's per-target statuses (``unknown`` when it has no verdict)."""
    return min((v.status for v in finding.verdicts.values()), key=STATUS_SEVERITY.index, default=Status.UNKNOWN)


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
