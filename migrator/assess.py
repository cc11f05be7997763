"""Per-target readiness and effort from the findings.

readiness = 100 x (findings that run as written: supported + partial + fallback)
                / (findings whose verdict is known, i.e. all but ``unknown``)
A repository with nothing to judge reads 100. Unknown verdicts are counted and shown, never guessed.
"""

from __future__ import annotations

from typing import Dict, Sequence, Tuple

from .maps.load import TargetMap
from .model import CustomOp, Finding, Status, TargetSummary

READINESS_FORMULA = ("readiness = 100 * (supported + partial + fallback) / (all findings - unknown); "
                     "100 when nothing is known")
_RUNS = (Status.SUPPORTED, Status.PARTIAL, Status.FALLBACK)


def assess(targets: Sequence[TargetMap], findings: Sequence[Finding], ops: Sequence[CustomOp]) -> Tuple[TargetSummary, ...]:
    summaries = []
    for target in targets:
        counts: Dict[str, int] = {status.value: 0 for status in Status}
        fixable = manual = 0
        for finding in findings:
            verdict = finding.verdicts.get(target.id)
            if verdict is None:
                continue
            counts[verdict.status.value] += 1
            if verdict.status == Status.REWRITE:
                fixable += verdict.fixable
                manual += not verdict.fixable
        known = sum(counts.values()) - counts[Status.UNKNOWN.value]
        runs = sum(counts[s.value] for s in _RUNS)
        readiness = round(100.0 * runs / known, 1) if known else 100.0
        effort = {
            "automatic_rewrites": fixable,
            "manual_rewrites": manual,
            "ports": counts[Status.PORT.value],
            "custom_ops": len(ops),
            "kernel_lines_to_port": sum(op.kernel_lines for op in ops),
            "formula": READINESS_FORMULA,
        }
        summaries.append(TargetSummary(id=target.id, runtime=target.runtime, version=target.version,
                                       sources=target.sources, readiness=readiness, counts=counts, effort=effort))
    return tuple(summaries)
