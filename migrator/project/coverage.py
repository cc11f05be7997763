"""Coverage: the usages that run as written on every target are not findings.

A finding is something an engineer acts on. ``nn.Linear`` supported by every runtime is not one: it counts
in readiness (it runs), and the report says how much of the project runs as written, per API, but it is not
listed among the findings (on timm 1.0.31, 6,928 of 8,794 usages). A usage stays a finding when any target
judges it otherwise or suggests something, or when another finding names it as its cause (``Finding.root``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from ..evidence import Bucket, finding_bucket
from ..model import Context, CoveredApi, Finding, Status


@dataclass(frozen=True)
class Apart:
    """What the judge's buckets make of a scan's judged usages (``evidence.finding_bucket``)."""

    findings: Tuple[Finding, ...]  # the worklist (active on some target) and the causes its findings point at
    covered: Tuple[Finding, ...]  # run as written on every target
    validate: Tuple[Finding, ...]  # on evidence that does not bite: to validate on the card, or data gaps


def apart(judged: Sequence[Finding]) -> Apart:
    """``judged`` apart, each part in the order given. A usage that is not itself work stays a finding when a
    finding on the worklist is a site of it, or it is a site of a cause on the worklist (a layer a bf16 choice
    limits: the choice is the work, the layers are where it bites; roots are the end of their chain)."""
    buckets = [finding_bucket(f) for f in judged]
    causes = {f.root for f, b in zip(judged, buckets) if b == Bucket.WORK and f.root is not None}
    work = {f.id for f, b in zip(judged, buckets) if b == Bucket.WORK} | causes
    parts: Dict[str, List[Finding]] = {"findings": [], "covered": [], "validate": []}
    for finding, found in zip(judged, buckets):
        part = ("findings" if found == Bucket.WORK or finding.id in causes
                or (finding.root in work and found != Bucket.RUNS)
                else "covered" if found == Bucket.RUNS and runs_as_written(finding)
                else "validate" if found != Bucket.RUNS else "findings")
        parts[part].append(finding)
    return Apart(tuple(parts["findings"]), tuple(parts["covered"]), tuple(parts["validate"]))


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


def apart_by_api(validate: Sequence[Finding], which: Bucket) -> Tuple[CoveredApi, ...]:
    """The uses the judge keeps apart in ``which`` bucket (to validate, or data gaps), one row per API as
    ``coverage_by_api`` gives the covered ones: the views render these rows, they do not group again."""
    return coverage_by_api([f for f in validate if finding_bucket(f) == which])
