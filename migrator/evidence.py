"""The one judge: what a verdict rests on decides whether it is work.

A verdict's status says what the data reads (``fallback``: no kernel; ``partial``: a documented limit);
its evidence says how strongly that reading speaks about *this call on this target*
(``model.Grade``). Only ``proof`` (the target's own data: its registration list lacks the op, the API is
absent or renamed in its runtime, a run showed it) and ``condition-met`` (a vendor note whose condition this
call's arguments or the project's dtypes meet) make a verdict *active*: something on the worklist, in the
headline, the counts, the blockers and the plan. ``substitute`` (Kunlun judged through Paddle's XPU kernels,
not torch_xmlir's), ``note`` (an unconditional or untestable vendor line; a step pattern no run measured)
make it something to *validate* on the card; ``gap`` (no data) a *data gap*. Those stay in every view and
the JSON, apart from the worklist.

Rules attach the evidence they know (``maps/coverage.py``: substitute data, overload notes;
``maps/limits.settle``: which clauses bite and how; the ``tune`` rules: measured or not); a verdict made
from a curated table row (a renamed device API, a CUDA-only library) carries the row's source as proof,
filled in here. Everything that decides what counts reads ``active`` / ``bucket`` from this module and
nowhere else.
"""

from __future__ import annotations

from dataclasses import replace
from enum import Enum
from typing import AbstractSet, Dict, Iterable, Mapping, Optional, Tuple

from .model import ACTIVE_GRADES, Category, Evidence, Finding, Grade, Status, Verdict

#: The longest quote an evidence item keeps of the text it stands on.
QUOTE_LIMIT = 300


class Bucket(str, Enum):
    """Where a finding (or one target's verdict on it) goes in every view."""

    WORK = "work"  # active: proof or a condition met
    VALIDATE = "validate"  # substitute evidence or an unconditional note: try it on the card
    GAP = "data-gap"  # no data says
    RUNS = "runs"  # supported: runs as written


def item(grade: Grade, source: str, quote: str) -> Evidence:
    """An evidence item, its quote clipped to ``QUOTE_LIMIT`` characters."""
    quote = " ".join(quote.split())
    return Evidence(grade, source, quote if len(quote) <= QUOTE_LIMIT else quote[: QUOTE_LIMIT - 3] + "...")


def with_evidence(verdict: Verdict, *items: Evidence) -> Verdict:
    """``verdict`` resting on ``items`` (replacing what it carried)."""
    return replace(verdict, evidence=tuple(items))


def judged(verdict: Verdict) -> Verdict:
    """``verdict`` with its evidence made explicit: a rule's own items, else what its status rests on
    (``unknown``: a data gap; any other finding status: the curated row or the target's data it names)."""
    if verdict.evidence or verdict.status == Status.SUPPORTED:
        return verdict
    grade = Grade.GAP if verdict.status == Status.UNKNOWN else Grade.PROOF
    return with_evidence(verdict, item(grade, verdict.source, verdict.message))


def grade(verdict: Verdict) -> Optional[Grade]:
    """The strongest grade among the verdict's evidence (``None`` for a supported verdict with none)."""
    grades = {e.grade for e in judged(verdict).evidence}
    return next((g for g in Grade if g in grades), None)


def active(verdict: Verdict) -> bool:
    """Whether ``verdict`` is work: a status other than ``supported`` on proof or a condition met."""
    return verdict.status != Status.SUPPORTED and grade(verdict) in ACTIVE_GRADES


def bucket(verdict: Verdict) -> Bucket:
    """Where one target's verdict goes: the worklist, the list to validate, the data gaps, or what runs."""
    if verdict.status == Status.SUPPORTED:
        return Bucket.RUNS
    if active(verdict):
        return Bucket.WORK
    return Bucket.GAP if grade(verdict) in (Grade.GAP, None) else Bucket.VALIDATE


def finding_bucket(finding: Finding) -> Bucket:
    """Where a finding goes: on the worklist when some target's verdict is active; else to validate when some
    target's is, else a data gap; ``runs`` when every target runs it as written."""
    buckets = {bucket(v) for v in finding.verdicts.values()}
    return next((b for b in (Bucket.WORK, Bucket.VALIDATE, Bucket.GAP) if b in buckets), Bucket.RUNS)


#: what a fallback off the step is told: the step the scan found, or with none, the function's name decides
_OFF_STEP = ("off the training step as the scan reads it (the step it found, or, where it found none, the "
             "function's name: an evaluation, an export, an unmerge): ")


def weigh(findings: Iterable[Finding], fallbacks_on_step: Optional[AbstractSet[str]] = None) -> Tuple[Finding, ...]:
    """Every finding with each verdict's evidence explicit: what the report carries and every view reads.
    A ``tune`` finding is a pattern the vendor's guide documents: a note until a traced run measured its line
    on the step (``Finding.measured``), which is proof that it costs. Where the training step is known
    (``fallbacks_on_step``: the findings that fall back to the CPU on it; in a project with no step found, those
    not in a function named off it, ``project/step.off_the_step``), a fallback off the step runs where it
    is called (initialisation, a merge, evaluation), not every iteration: correct, and slow only if often,
    which is for the card to say: a note."""
    out = []
    memo: Dict[Tuple[int, bool, bool, bool], Tuple[Verdict, Verdict]] = {}  # equal verdicts stay one object

    def weighed(finding: Finding, verdict: Verdict) -> Verdict:
        off_step = (fallbacks_on_step is not None and verdict.status == Status.FALLBACK
                    and finding.category != Category.TUNE and finding.id not in fallbacks_on_step)
        key = (id(verdict), finding.category == Category.TUNE, finding.measured is not None, off_step)
        if key not in memo:
            found = _weighed(finding, verdict)
            if off_step and grade(found) == Grade.PROOF:
                why = found.evidence[0].quote if found.evidence else found.message
                found = with_evidence(found, item(Grade.NOTE, found.source, _OFF_STEP + why))
            memo[key] = (verdict, found)  # (the verdict kept alive: its id stays its own)
        return memo[key][1]

    for finding in findings:
        verdicts: Mapping[str, Verdict] = {t: weighed(finding, v) for t, v in finding.verdicts.items()}
        same = all(verdicts[t] is v for t, v in finding.verdicts.items())
        out.append(finding if same else replace(finding, verdicts=verdicts))
    return tuple(out)


def _weighed(finding: Finding, verdict: Verdict) -> Verdict:
    if finding.category != Category.TUNE or verdict.status == Status.SUPPORTED or verdict.evidence:
        return judged(verdict)
    measured = finding.measured
    if measured is not None and measured.calls_per_step > 0:
        return with_evidence(verdict, item(Grade.PROOF, "migrator trace",
                                           f"a traced run measured {measured.calls_per_step:g} calls per step here"))
    return with_evidence(verdict, item(Grade.NOTE, verdict.source, "a pattern the guide documents on the training "
                                       "step; no traced run measured it here (scan --trace)"))


def counted_status(verdict: Verdict) -> Status:
    """The status every count, the plan and the blockers read: the verdict's own when it is active or
    supported; ``unknown`` for a data gap; ``supported`` for evidence to validate (the use runs as far as the
    target's own data says: what a substitute list or an unconditional note adds is tried on the card, apart
    from the worklist)."""
    if verdict.status == Status.SUPPORTED or active(verdict):
        return verdict.status
    return Status.UNKNOWN if bucket(verdict) == Bucket.GAP else Status.SUPPORTED


def tally_key(verdict: Verdict) -> str:
    """The key one target's verdict adds to in a target's ``counts``: its counted status, or ``validate``."""
    return Bucket.VALIDATE.value if bucket(verdict) == Bucket.VALIDATE else counted_status(verdict).value
