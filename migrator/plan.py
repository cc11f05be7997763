"""The migration plan: per target, the phases a migration team works in, each with its findings, its effort
and the readiness the project reaches after it.

1. what ``migrator fix`` applies (safe, mechanical rewrites);
2. manual rewrites on the training path, the most-reached first (core model and training loop before
   tools and tests: blockers are ranked by how many entry points reach them);
3. fallbacks, partial support and unknowns to validate numerically on the device;
4. custom operators, CUDA-only libraries, triton kernels and unsupported APIs to port;
5. once it runs: what stalls the device on the training step (the ``tune`` findings), module by module, the
   most-reached (or, with a trace, the busiest) first. Not counted in readiness or effort: it is measured on
   the device, not estimated.

Derived from a ``Report`` alone, so it never disagrees with the readiness and blockers beside it; the flow
derives it once (``pipeline/finish.py``) and carries it on ``Report.plans``, which the views render.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import AbstractSet, Dict, List, Mapping, Optional, Sequence, Tuple

from .assess import HOURS, RUNS, counted, phase_of, readiness_score, validation_hours
from .evidence import counted_status
from .inventory import OpMembership
from .model import (PLAN_PHASES, TUNE_PHASE, Blocker, Category, EditKind, Finding, MigrationPlan, Phase,
                    PlanItem, Report, Status, TargetSummary)
from .maps.accelerator import device_forms, portable_forms, takes_device_form
from .maps.load import load_target
from .rules import ALL_RULES
from .rules.device.device_call import device_twin
from .shim import shim_plan

#: the plan's phases (kept in ``model`` beside the plan's types, which the views read)
PHASES = PLAN_PHASES


def migration_plans(report: Report) -> Tuple[MigrationPlan, ...]:
    membership = OpMembership(report.custom_ops)
    return tuple(_plan(report, target, membership) for target in report.targets)


def _plan(report: Report, target: TargetSummary, membership: OpMembership) -> MigrationPlan:
    findings = counted(report.judged, target.id)  # what runs as written counts in readiness too
    judged = any(f.reachable is not None for f in findings)
    on_path = [f for f in findings if f.reachable is not False] if judged else findings
    phase = {f.id: phase_of(f, target.id, membership) for f in report.judged}
    by_phase: Dict[int, List[Finding]] = {}
    for finding in on_path:
        by_phase.setdefault(phase[finding.id], []).append(finding)
    twins = _renamed_with_their_file(report.judged, target)
    readiness: List[Optional[float]] = list(_readiness_after(on_path, target, phase, twins))
    if target.readiness is None:  # nothing judged now, so nothing a phase changes
        readiness = [None] * len(readiness)
    phases = []
    for number, title, what in PHASES:
        members = by_phase.get(number, [])
        items, hours = _items(number, members, target)
        phases.append(Phase(number=number, title=title, what=what, items=items, findings=tuple(f.id for f in members),
                            hours=round(hours, 2), readiness_after=readiness[number]))
    phases.append(_tune_phase(report, target, readiness[-1]))
    return MigrationPlan(target=target.id, readiness_now=readiness[0],
                         readiness_after_fix=phases[0].readiness_after, phases=tuple(phases),
                         shim=shim_plan(on_path, target.id))


def _tune_phase(report: Report, target: TargetSummary, readiness: Optional[float]) -> Phase:
    """One item per module of the training step: its ``tune`` findings on this target, in ``tune_modules``'s
    order, with the busiest (or most-reached) finding's advice."""
    items = []
    for path, found in tune_modules(report, target.id):
        kinds = Counter(f.rule for f in found)
        first, verdict = found[0], found[0].verdicts[target.id]
        summary = ", ".join(_tune_count(rule, n) for rule, n in kinds.most_common())
        advice = f"; {verdict.suggestion}" if verdict.suggestion else ""
        items.append(PlanItem(key=path, title=path, status=verdict.status, findings=len(found),
                              entries=max(_entries(report, f) for f in found), hours=0.0,
                              where=f"{first.path}:{first.span.line or '-'}", message=f"{summary}{advice}"))
    number, title, what = TUNE_PHASE
    return Phase(number=number, title=title, what=what, items=tuple(items),
                 findings=tuple(f.id for _, found in tune_modules(report, target.id) for f in found),
                 hours=0.0, readiness_after=readiness)


def tune_modules(report: Report, target: Optional[str] = None) -> List[Tuple[str, List[Finding]]]:
    """The ``tune`` findings on the training path (those ``target``'s guides document, when one is given), by
    file: the busiest file first (calls per step, with a trace), then the most-reached, then the one with the
    most findings; in a file, the busiest line, then the most-reached, then line order. The plan, the page and
    the text list them in this one order."""
    by_path: Dict[str, List[Finding]] = {}
    for finding in report.findings + report.validate:  # measured (on the worklist) or a pattern to measure
        verdict = finding.verdicts.get(target) if target is not None else None
        if finding.category != Category.TUNE or finding.reachable is False or (
                target is not None and (verdict is None or verdict.status != Status.PARTIAL)):
            continue
        by_path.setdefault(finding.path, []).append(finding)
    for found in by_path.values():
        found.sort(key=lambda f: (-_busy(f), -_entries(report, f), f.span.cell or 0, f.span.line or 0))
    return sorted(by_path.items(), key=lambda item: (-sum(_busy(f) for f in item[1]),
                                                     -max(_entries(report, f) for f in item[1]), -len(item[1]),
                                                     item[0]))


def _busy(finding: Finding) -> float:
    return finding.measured.calls_per_step if finding.measured is not None else 0.0


def _entries(report: Report, finding: Finding) -> int:
    """How many entry points reach the node a finding sits in."""
    if report.graph is None:
        return 0
    reach = report.graph.reach.get(report.graph.finding_nodes.get(finding.id, ""))
    return reach.entries if reach is not None else 0


#: What one ``tune`` finding is, and many, counted in a module's plan item.
_TUNE_NOUNS = {"tune-dynamic-shape": ("data-dependent shape", "data-dependent shapes"),
               "tune-host-sync": ("host sync", "host syncs"), "tune-cpu-fallback": ("CPU fallback", "CPU fallbacks"),
               "tune-float64": ("float64 use", "float64 uses"),
               "tune-parameter-loop": ("per-parameter loop", "per-parameter loops"),
               "tune-unfused-optimizer": ("optimizer the target ships fused", "optimizers the target ships fused"),
               "tune-cuda-switch": ("CUDA switch", "CUDA switches")}


def _tune_count(rule: str, n: int) -> str:
    one, many = _TUNE_NOUNS.get(rule, (rule, rule))
    return f"{n} {one if n == 1 else many}"


def _items(number: int, members: Sequence[Finding], target: TargetSummary) -> Tuple[Tuple[PlanItem, ...], float]:
    """A phase's items, and its hours summed before each item's are rounded (so that the phases add up to
    the effort on the target's card, which is summed the same way)."""
    ids = {f.id for f in members}
    if number == 3:  # one item per API: what to validate
        by_api: Dict[str, List[Finding]] = OrderedDict()
        for finding in sorted(members, key=lambda f: (f.api, f.path, f.span.line or 0)):
            by_api.setdefault(finding.api, []).append(finding)
        items = []
        for api, found in by_api.items():
            verdict = found[0].verdicts[target.id]
            hours = validation_hours(verdict.status)
            items.append(PlanItem(key=api, title=api, status=verdict.status, findings=len(found), entries=0,
                                  hours=hours, where=f"{found[0].path}:{found[0].span.line or '-'}",
                                  message=verdict.message))
        return tuple(sorted(items, key=lambda i: (-i.findings, i.key))), sum(i.hours for i in items)
    per_finding = HOURS["automatic"] if number == 1 else HOURS["manual"]
    items, total = [], 0.0
    for blocker in target.blockers:  # ranked by reach: the most entry points first
        inside = [i for i in blocker.findings if i in ids]
        if inside:
            hours = blocker.hours if number == 4 else per_finding * len(inside)
            items.append(_item(blocker, len(inside), hours))
            total += hours
    return tuple(items), total


def _item(blocker: Blocker, findings: int, hours: float) -> PlanItem:
    return PlanItem(key=blocker.key, title=blocker.title, status=blocker.status, findings=findings,
                    entries=blocker.entries, hours=round(hours, 2),
                    where=f"{blocker.path_of_first}:{blocker.line_of_first or '-'}", message=blocker.message)


#: per rule: whether a call it rewrote is still judged by a scan after the rewrite (``Rule.call_stays``)
_CALL_STAYS = {rule.name: rule.call_stays for rule in ALL_RULES}


def _renamed_with_their_file(judged: Sequence[Finding], target: TargetSummary) -> AbstractSet[str]:
    """The calls that run as written now because they are no-ops without CUDA (a cache flush, a memory counter)
    and that ``fix`` renames to their device twin, because their file gets the vendor's names anyway (a safe
    rewrite with no portable form on the target's line: a device string, a move, a scaler): the next scan no
    longer sees them (``fix``'s ``device_twins`` and portable style, read the same way)."""
    chosen = load_target(target.id, target.version)
    forms, calls = portable_forms(chosen), device_forms(chosen)
    vendor_files = set()
    for finding in judged:
        verdict = finding.verdicts.get(target.id)
        edit = verdict.edit if verdict is not None and verdict.fixable else None
        if edit is not None and not (edit.kind == EditKind.NAME and edit.old in forms) \
                and not takes_device_form(edit, finding.api, calls):
            vendor_files.add(finding.path)
    twins = set()
    for finding in judged:
        verdict = finding.verdicts.get(target.id)
        if finding.path in vendor_files and finding.rule == "device-call" and finding.guard is None \
                and verdict is not None and verdict.status == Status.SUPPORTED \
                and device_twin(chosen, finding.api) is not None:
            twins.add(finding.id)
    return twins


def _readiness_after(on_path: Sequence[Finding], target: TargetSummary, phase: Mapping[str, int],
                     twins: AbstractSet[str] = frozenset()) -> List[float]:
    """The readiness formula now (index 0) and after each phase (index n), in one pass: a finding counts as
    running from the phase that resolves it on, a blocker stops counting from the phase that resolves the last
    of its findings (one that is off the path, or has nothing to do, never resolves it). A call that runs and
    that ``fix`` renames to its device twin (``twins``) leaves the count with the fix."""
    last = max(number for number, _, _ in PHASES)
    runs, automatic, manual = [0] * (last + 1), [0] * (last + 1), [0] * (last + 1)  # what each phase changes
    for finding in on_path:
        verdict = finding.verdicts.get(target.id)
        if verdict is None or counted_status(verdict) == Status.UNKNOWN:
            continue
        if counted_status(verdict) in RUNS:
            runs[0] += 1
            runs[1] -= finding.id in twins
            continue
        number = phase[finding.id]
        rewrite = verdict.status == Status.REWRITE
        automatic[0] += rewrite and verdict.fixable
        manual[0] += rewrite and not verdict.fixable
        if number:
            # a rewritten call either stays a torch call the next scan judges (running), or leaves the report
            runs[number] += not rewrite or _CALL_STAYS.get(finding.rule, False)
            automatic[number] -= rewrite and verdict.fixable
            manual[number] -= rewrite and not verdict.fixable
    on = {f.id for f in on_path}
    open_until: List[Tuple[Status, float]] = []  # each counted blocker, and the phase after which it is resolved
    for blocker in target.blockers:
        if blocker.reachable is False:
            continue
        # resolved by the phase of its last finding on the training path (one off the path does not hold it)
        numbers = [phase.get(i, 0) for i in blocker.findings if i in on]
        open_until.append((blocker.status, max(numbers) if numbers and all(numbers) else float("inf")))
    scores = []
    for after in range(last + 1):
        ports = sum(1 for status, until in open_until if status == Status.PORT and until > after)
        unsupported = sum(1 for status, until in open_until if status == Status.UNSUPPORTED and until > after)
        scores.append(readiness_score(sum(runs[:after + 1]), sum(automatic[:after + 1]), sum(manual[:after + 1]),
                                      ports, unsupported))
    return scores
