"""One vocabulary of counts, computed once (issue 45): the numbers every view says the same way.

The flow counts them here after the assess stage (``pipeline/finish.py``) and carries them on the
``Report`` as a frozen ``Tally``; the text, the page, the JSON (``summary``) and SARIF (the run's
``properties``) read them and recount nothing. Every count reads the one judge (``evidence.bucket``):

- the worklist's findings, and of those the ones in training code at their cause (``assess.counted``), on and
  off the training path;
- the uses kept apart from it: to validate on the card (substitute data, unconditional notes), data gaps;
- the uses every target runs as written;
- per target: readiness (``None`` when the data judges nothing: an empty or torch-free project), the hours
  and the effort bucket that dominates them, the plan's phases with their cumulative hours (the page's chart),
  blockers and ports split on / off the training path, how much of the target's judgement rests on its own
  data (``certain``) or on another stack's (``substitute``), and the uses that run through a runtime patcher an
  entry point imports (``through_shim``);
- the closest runtime, weighing effort against the share of a target's verdicts that rest on substitute data
  or none (``UNCERTAIN_LIMIT``), with the reason in words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .assess import counted
from .evidence import Bucket, bucket, finding_bucket, grade
from .model import (Category, Context, FileStatus, Finding, Grade, PhaseStep, Report, Status, Tally,
                    TargetSummary, TargetTally, Verdict)
from .plan import PHASES, MigrationPlan, migration_plans
from .shim import through_shim

#: the plan's phase of ports (custom operators, CUDA libraries, unsupported APIs): the costly last points
PORT_PHASE = PHASES[-1][0]

#: A target whose verdicts rest on substitute data or on no data for more than this share is ranked after
#: those that rest on their own: its effort may be far off.
UNCERTAIN_LIMIT = 0.25


def tally(report: Report, plans: Optional[Sequence[MigrationPlan]] = None) -> Tally:
    """The report's shared numbers (``Report.tally``); ``plans``: the report's, when already made."""
    every = [f for f in report.findings if f.category != Category.TUNE]
    at_cause = counted(report.findings)
    judged_by_reach = any(f.reachable is not None for f in counted(report.judged))
    off = [f for f in at_cause if judged_by_reach and f.reachable is False]
    apart = [finding_bucket(f) for f in counted(report.validate)]
    by_target = {p.target: p for p in (migration_plans(report) if plans is None else plans)}
    uses = counted(report.judged)
    targets = tuple(_target(t, by_target[t.id], uses, judged_by_reach, through_shim(report.judged, t.id))
                    for t in report.targets)
    closest, why = _closest(targets)
    return Tally(
        project=project_name(report.root),
        files_scanned=sum(1 for f in report.files if f.status == FileStatus.OK),
        findings=len(every), at_cause=len(at_cause), on_path=len(at_cause) - len(off), off_path=len(off),
        to_validate=sum(1 for b in apart if b == Bucket.VALIDATE), data_gaps=sum(1 for b in apart if b == Bucket.GAP),
        runs_as_written=len(counted(report.covered)),
        tuning=sum(1 for f in report.findings + report.validate if f.category == Category.TUNE),
        left_out_tests=sum(1 for f in every if f.context == Context.TEST),
        left_out_tooling=sum(1 for f in every if f.context == Context.TOOLING),
        left_out_sites=sum(1 for f in every if f.context == Context.TRAINING and f.root is not None),
        reachability_judged=judged_by_reach, targets=targets, closest=closest, closest_why=why)


def project_name(root: str) -> str:
    """The scanned repository's name: its folder's, resolved (``.`` is the current folder's name), a file's
    folder for a single file; the path as given when it has no name (``/``)."""
    path = Path(root)
    try:
        path = path.resolve()
    except (OSError, RuntimeError):
        pass
    if path.is_file():
        path = path.parent
    return path.name or root


def _target(summary: TargetSummary, plan: MigrationPlan, uses: Sequence[Finding], judged_by_reach: bool,
            shimmed: int) -> TargetTally:
    work_on = work_off = validate = gaps = runs = notes = substitute = 0
    judged: Dict[int, Tuple[Verdict, Bucket, Optional[Grade]]] = {}  # verdicts are shared: each judged once
    for finding in uses:
        verdict = finding.verdicts.get(summary.id)
        if verdict is None:
            continue
        if id(verdict) not in judged:
            judged[id(verdict)] = (verdict, bucket(verdict), grade(verdict))  # (kept: its id stays its own)
        _, where, found = judged[id(verdict)]
        if where == Bucket.WORK:
            if judged_by_reach and finding.reachable is False:
                work_off += 1
            else:
                work_on += 1
        validate += where == Bucket.VALIDATE
        gaps += where == Bucket.GAP
        runs += where == Bucket.RUNS
        substitute += found == Grade.SUBSTITUTE
        notes += found == Grade.NOTE
    total = work_on + work_off + validate + gaps + runs
    certain = total - gaps - substitute - notes  # the target's own data, or a condition this call meets
    blockers = summary.blockers
    on = [b for b in blockers if b.reachable is not False]
    off = [b for b in blockers if b.reachable is False]
    buckets = [b for b in summary.effort.get("buckets", ()) if b.get("hours")]
    hours = float(summary.effort.get("total_hours", 0.0) or 0.0)
    top = max(buckets, key=lambda b: b["hours"], default=None)
    inputs = summary.effort.get("readiness_inputs", {})
    steps = _steps(plan)
    before_ports = next((p for p in steps if p.number == PORT_PHASE - 1), None)
    return TargetTally(
        id=summary.id, readiness=summary.readiness, readiness_after_fix=plan.readiness_after_fix,
        hours=hours, days=float(summary.effort.get("total_days", 0.0) or 0.0),
        dominant=None if top is None else str(top["name"]), dominant_hours=0.0 if top is None else float(top["hours"]),
        dominant_share=round(top["hours"] / hours, 3) if top is not None and hours else 0.0,
        work_on_path=work_on, work_off_path=work_off, to_validate=validate, data_gaps=gaps, runs=runs,
        certain=certain, substitute=substitute,
        uncertain_share=round((gaps + substitute) / total, 3) if total else 0.0,
        blockers_on_path=len(on), blockers_off_path=len(off),
        ports_on_path=sum(1 for b in on if b.status == Status.PORT),
        ports_off_path=sum(1 for b in off if b.status == Status.PORT),
        unsupported_on_path=sum(1 for b in on if b.status == Status.UNSUPPORTED),
        unsupported_off_path=sum(1 for b in off if b.status == Status.UNSUPPORTED),
        automatic=int(inputs.get("automatic", 0)), manual=int(inputs.get("manual", 0)),
        readiness_before_ports=before_ports.readiness_after if before_ports else summary.readiness,
        hours_before_ports=before_ports.cumulative_hours if before_ports else 0.0,
        phases=steps, through_shim=shimmed)


def _steps(plan: MigrationPlan) -> Tuple[PhaseStep, ...]:
    """The plan's phases with the hours done once each is (the tuning phase has none: measured, not estimated)."""
    steps: List[PhaseStep] = []
    total = 0.0
    for phase in plan.phases:
        total += phase.hours
        steps.append(PhaseStep(number=phase.number, title=phase.title, hours=phase.hours,
                               cumulative_hours=round(total, 2), readiness_after=phase.readiness_after))
    return tuple(steps)


def _closest(targets: Sequence[TargetTally]) -> Tuple[Optional[str], str]:
    """The target with the least effort among those whose verdicts rest mostly on their own data, and why."""
    assessed = [t for t in targets if t.readiness is not None]
    if not assessed:
        return None, "nothing to assess: no use of torch in training code that the data judges"
    own = [t for t in assessed if t.uncertain_share <= UNCERTAIN_LIMIT]
    pool = own or assessed
    best = min(pool, key=lambda t: (t.hours, -(t.readiness or 0.0), t.id))
    why = [f"{best.id} needs the least estimated effort (~{best.hours:g} h, {best.readiness}% ready now)"
           + (" of the targets judged mostly on their own data" if own and len(own) < len(assessed) else "")]
    if best.uncertain_share:
        why.append(f"{_percent(best.uncertain_share)} of its verdicts rest on substitute data or none")
    for other in assessed:
        if other not in pool and other.hours <= best.hours:
            why.append(f"{other.id} reads ~{other.hours:g} h, but {_percent(other.uncertain_share)} of its verdicts "
                       "rest on substitute data or none: its effort may be far off")
    if not own:
        why.append(f"every target rests on substitute data or none for over {_percent(UNCERTAIN_LIMIT)} of its "
                   "verdicts: the ranking may change")
    return best.id, "; ".join(why)


def _percent(share: float) -> str:
    return f"{round(100 * share)}%"

