"""Coverage: the usages that run as written on every target are not findings.

A finding is something an engineer acts on. ``nn.Linear`` supported by every runtime is not one: it counts
in readiness (it runs), and the report says how much of the project runs as written, per API, but it is not
listed among the findings (on timm 1.0.31, 6,928 of 8,794 usages). A usage stays a finding when any target
judges it otherwise or suggests something, or when another finding names it as its cause (``Finding.root``).
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from ..model import Context, CoveredApi, Finding, Status


def apart(judged: Sequence[Finding]) -> Tuple[Tuple[Finding, ...], Tuple[Finding, ...]]:
    """``judged`` as (findings, covered usages), each in the order given. A usage that runs as written stays a
    finding when a finding that does not is a site of it (roots are the end of their chain: one pass)."""
    runs = [runs_as_written(f) for f in judged]
    causes = {f.root for f, ok in zip(judged, runs) if not ok and f.root is not None}
    findings: List[Finding] = []
    covered: List[Finding] = []
    for finding, ok in zip(judged, runs):
        (covered if ok and finding.id not in causes else findings).append(finding)
    return tuple(findings), tuple(covered)


def runs_as_written(finding: Finding) -> bool:
    """Supported on every target it was judged for, with nothing to suggest: a supported verdict that names
    the vendor's path beside a working fallback (Ascend's apex build for timm's optional ``apex`` import) is
    something to act on."""
    return bool(finding.verdicts) and all(v.status == Status.SUPPORTED and not v.suggestion
                                          for v in finding.verdicts.values())


def coverage_by_api(covered: Sequence[Finding]) -> Tuple[CoveredApi, ...]:
    """One row per API (and rule), most used first: how often the project uses it, where, and on whose data
    each target says it runs."""
    groups: Dict[Tuple[str, str], List[Finding]] = {}
    for usage in covered:
        groups.setdefault((usage.api, usage.rule), []).append(usage)
    rows = []
    for (api, rule), uses in groups.items():
        counted = [u for u in uses if u.context == Context.TRAINING and u.root is None]
        first = uses[0]
        rows.append(CoveredApi(api=api, rule=rule, category=first.category, uses=len(uses), counted=len(counted),
                               sources=tuple((t, v.source) for t, v in first.verdicts.items()),
                               sites=tuple(uses)))
    return tuple(sorted(rows, key=lambda r: (-r.uses, r.api, r.rule)))
