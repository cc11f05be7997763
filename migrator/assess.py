"""Per-target readiness, effort and ranked blockers, from the findings and how the training path reaches them.

Readiness (stated in every report)::

    readiness = 100 * runs / (runs + 1*automatic + 3*manual + 25*(ports + unsupported))

over the findings on the training path (``reachable`` true, or every finding when no entry point was found),
where ``runs`` counts supported + partial + fallback findings (the usages every target runs as written among
them: ``Report.covered``, ``readiness_inputs.covered``), ``automatic`` the rewrites ``migrator fix``
applies and ``manual`` the other rewrites; ``ports`` and ``unsupported`` count blockers, not findings (one
custom operator is one port however many call sites it has). ``unknown`` is left out and shown beside. One
port weighs as much as 25 automatic rewrites, so a training path that needs a kernel port never reads 100%,
and a repository with nothing that blocks reads exactly 100%.

Effort is a planner's estimate in buckets, each with its assumption written next to it (``EFFORT_ASSUMPTIONS``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import AbstractSet, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .inventory import OpMembership
from .evidence import active, counted_status, tally_key
from .maps.load import TargetMap, third_party
from .rules.base import PROJECT_OWN
from .model import (Blocker, Category, Context, CustomOp, Finding, NodeKind, NodeReach, OpPlan, Status, TargetSummary,
                    Verdict)

#: Path counts are capped: beyond this a number stops meaning anything to a reader.
PATHS_CAP = 10**6
WEIGHTS = {"automatic": 1, "manual": 3, "port": 25, "unsupported": 25}
READINESS_FORMULA = ("readiness = 100 * runs / (runs + 1*automatic + 3*manual + 25*(ports + unsupported)); "
                     "runs = supported + partial + fallback findings and the uses that run as written on every "
                     "target (coverage), automatic/manual = rewrite findings, "
                     "ports/unsupported = blockers (one custom op = one port); "
                     "over findings on the training path (reachable), "
                     "or all findings when no entry point was found; unknown left out; none (null) when nothing is "
                     "judged; "
                     "training findings at their cause only (tests, tooling and sites of a cause reported elsewhere "
                     "are left out)")
#: Statuses whose findings run on the target (the readiness formula's ``runs``).
RUNS = (Status.SUPPORTED, Status.PARTIAL, Status.FALLBACK)
BLOCKING = (Status.UNSUPPORTED, Status.PORT, Status.REWRITE)

#: Hours per unit, by bucket. Kernel ports are scaled by the CUDA lines to rewrite.
HOURS = {"automatic": 2 / 60, "manual": 0.5, "fallback": 1.0, "partial": 0.25, "unknown": 0.5,
         "unsupported": 16.0, "library": 40.0, "triton": 16.0, "op_replacement": 4.0}
PORT_BASE_DAYS, PORT_LINES_PER_DAY, HOURS_PER_DAY = 3.0, 100, 8.0
EFFORT_ASSUMPTIONS = (
    "automatic fix: 2 minutes per finding to review the diff `migrator fix` makes",
    "manual rewrite: 30 minutes per finding (the suggestion states the change; someone writes and tests it)",
    "custom operator replaced by the vendor's call or the PyTorch fallback: 4 hours per operator (swap the calls, "
    "compare outputs and gradients against the CUDA version)",
    "op fallback to check: 1 hour per distinct API that falls back to the CPU (profile it, decide if it matters)",
    "partial support to check: 15 minutes per distinct API with documented limits (check dtypes and arguments)",
    "unknown: 30 minutes per distinct API the data cannot judge (try it on the device)",
    f"kernel port: {PORT_BASE_DAYS:g} days per custom operator plus 1 day per {PORT_LINES_PER_DAY} lines of "
    "CUDA kernel code (Ascend C / BANG C / XPU kernel, registration, tests)",
    "triton kernel: 2 days each (rewrite in plain PyTorch or the vendor's Triton backend, then tune)",
    "CUDA-only library without a vendor replacement: 5 days per library",
    "unsupported API: 2 days per distinct API (find another way)",
)


def assess(targets: Sequence[TargetMap], findings: Sequence[Finding], ops: Sequence[CustomOp],
           plans: Sequence[OpPlan] = (), reach: Optional[Mapping[str, NodeReach]] = None,
           finding_nodes: Optional[Mapping[str, str]] = None,
           covered: AbstractSet[str] = frozenset()) -> Tuple[TargetSummary, ...]:
    """``plans`` say how much of each custom op a target must port (the rest has a vendor call); ``covered``:
    the ids of the usages every target runs as written (``project/coverage.apart``), said apart among the
    inputs of readiness."""
    reach = reach or {}
    finding_nodes = finding_nodes or {}
    every = [f for f in findings if f.category != Category.TUNE]  # what runs but stalls: never in readiness
    given, findings = findings, counted(findings)
    left_out = {"test": sum(1 for f in every if f.context == Context.TEST),
                "tooling": sum(1 for f in every if f.context == Context.TOOLING),
                "sites": sum(1 for f in every if f.context == Context.TRAINING and f.root is not None)}
    judged_by_reach = any(f.reachable is not None for f in findings)
    op_of = OpMembership(ops)
    summaries = []
    for target in targets:
        findings = counted(given, target.id)  # a site's gap on this target counts here
        on_path = [f for f in findings if f.reachable is not False] if judged_by_reach else list(findings)
        # CUDA lines to port per op on this target: the plan's (kernels a vendor call replaces are not ported)
        port_lines = {op.name: op.kernel_lines for op in ops}
        port_lines.update({p.op: p.port.kernel_lines for p in plans if p.target == target.id and p.port})
        counts = _counts(findings, target.id)
        to_validate = counts.pop(VALIDATE)
        path_counts = _counts(on_path, target.id)
        automatic = sum(1 for f in on_path if _verdict(f, target.id, Status.REWRITE) and f.verdicts[target.id].fixable)
        manual = path_counts[Status.REWRITE.value] - automatic
        runs = sum(path_counts[s.value] for s in RUNS) + path_counts[VALIDATE]  # what is to validate runs
        blockers = _blockers(findings, target.id, port_lines, op_of, reach, finding_nodes, _line_sites(given))
        ports = sum(1 for b in blockers if b.status == Status.PORT and b.reachable is not False)
        unsupported = sum(1 for b in blockers if b.status == Status.UNSUPPORTED and b.reachable is not False)
        readiness = readiness_score(runs, automatic, manual, ports, unsupported) if (
            runs or automatic or manual or ports or unsupported) else None  # nothing judged: nothing to assess
        effort = _effort(on_path, target.id, len(ops), port_lines, op_of,
                         [b for b in blockers if b.reachable is not False])
        effort["readiness_inputs"] = {"runs": runs, "covered": sum(1 for f in on_path if f.id in covered),
                                      "automatic": automatic, "manual": manual, "ports": ports,
                                      "unsupported": unsupported, "unknown": path_counts[Status.UNKNOWN.value],
                                      "validate": path_counts[VALIDATE],
                                      "on_training_path": len(on_path), "all": len(every),
                                      "left_out": left_out,
                                      "weights": dict(WEIGHTS), "reachability_judged": judged_by_reach}
        summaries.append(TargetSummary(id=target.id, runtime=target.runtime, version=target.version,
                                       sources=target.sources, readiness=readiness, counts=counts, effort=effort,
                                       blockers=blockers, import_first=target.import_first,
                                       to_validate=to_validate, selects_itself=_selects_itself(every, target.id),
                                       substitute=target.substitute))
    return tuple(summaries)


def _selects_itself(findings: Sequence[Finding], target: str) -> Tuple[str, ...]:
    """The training files whose own code already chooses ``target``'s device beside CUDA's."""
    return tuple(sorted({f.path for f in findings if f.context == Context.TRAINING and target in f.verdicts
                         and f.verdicts[target].source == PROJECT_OWN}))


def counted(findings: Sequence[Finding], target: Optional[str] = None) -> List[Finding]:
    """What readiness, effort and blockers count: training findings at their cause (not tests, not tooling,
    not a site of a cause reported at another finding: ``Finding.root``), and not ``tune`` findings (the code
    runs; they say where it stalls). With ``target``: also the sites whose own verdict there is ``unknown``
    under a cause that is not: a cause speaks for its sites only where the data judges them, so that a site's
    gap on one target counts there whatever the other targets' data made of it."""
    training = [f for f in findings if f.context == Context.TRAINING and f.category != Category.TUNE]
    if target is None:
        return [f for f in training if f.root is None]
    status = {f.id: f.verdicts[target].status for f in findings if target in f.verdicts}
    return [f for f in training if f.root is None or (
        status.get(f.id) == Status.UNKNOWN and status.get(f.root, Status.UNKNOWN) != Status.UNKNOWN)]


def readiness_score(runs: int, automatic: int, manual: int, ports: int, unsupported: int) -> float:
    """``READINESS_FORMULA``."""
    blocked = (WEIGHTS["automatic"] * automatic + WEIGHTS["manual"] * manual
               + WEIGHTS["port"] * ports + WEIGHTS["unsupported"] * unsupported)
    return round(100.0 * runs / (runs + blocked), 1) if runs + blocked else 100.0


def _counts(findings: Sequence[Finding], target: str) -> Dict[str, int]:
    """Per status, the findings whose verdict on ``target`` is work (or runs); ``unknown`` the data gaps, and
    ``validate`` those whose evidence does not bite (``evidence.tally_key``)."""
    counts: Dict[str, int] = {status.value: 0 for status in Status}
    counts[VALIDATE] = 0
    for finding in findings:
        verdict = finding.verdicts.get(target)
        if verdict is not None:
            counts[tally_key(verdict)] += 1
    return counts


#: The key of ``_counts`` that is not a status: findings whose evidence on the target is to validate.
VALIDATE = "validate"


def _verdict(finding: Finding, target: str, status: Status) -> bool:
    verdict = finding.verdicts.get(target)
    return verdict is not None and counted_status(verdict) == status


def port_days(kernel_lines: int) -> float:
    """Days to port a custom op whose CUDA kernels have ``kernel_lines`` lines (see EFFORT_ASSUMPTIONS)."""
    return PORT_BASE_DAYS + kernel_lines / PORT_LINES_PER_DAY


#: Rules whose findings are phase 4 (a port) whatever their status: the operator or library itself changes.
PORT_PHASE_RULES = frozenset({"extension-build", "extension-call", "torch-ops-call", "torch-library-cuda",
                              "cuda-kernel", "cuda-library", "triton-launch"})


def phase_of(finding: Finding, target: str, op_of: OpMembership) -> int:
    """The plan's phase that resolves ``finding`` on ``target`` (``plan.PHASES``); 0 when nothing is to do."""
    verdict = finding.verdicts.get(target)
    if verdict is None or not active(verdict):  # runs, or evidence to validate, or a data gap: not work
        return 0
    if op_of.op_of(finding) or finding.rule in PORT_PHASE_RULES or verdict.status in (Status.PORT, Status.UNSUPPORTED):
        return 4
    if verdict.status == Status.REWRITE:
        return 1 if verdict.fixable else 2
    return 3


def validation_hours(status: Status) -> float:
    """Phase 3: the hours to check one API whose first use on the training path has ``status``."""
    return {Status.FALLBACK: HOURS["fallback"], Status.PARTIAL: HOURS["partial"]}.get(status, HOURS["unknown"])


def _effort(findings: Sequence[Finding], target: str, op_count: int, port_lines: Mapping[str, int],
            op_of: OpMembership, blockers: Sequence[Blocker]) -> Dict[str, Any]:
    """The card's effort, bucket by bucket, as the plan's phases count it (so that the two add up): phase 1
    and 2 per finding, phase 3 per API by the status of its first use, phase 4 per blocker at its hours."""
    phase = {f.id: phase_of(f, target, op_of) for f in findings}
    automatic = sum(1 for f in findings if phase[f.id] == 1)
    manual = sum(1 for f in findings if phase[f.id] == 2)
    first_status: Dict[str, Status] = {}
    for finding in sorted((f for f in findings if phase[f.id] == 3), key=lambda f: (f.api, f.path, f.span.line or 0)):
        first_status.setdefault(finding.api, finding.verdicts[target].status)
    validate = {status: sum(1 for s in first_status.values() if s == status)
                for status in (Status.FALLBACK, Status.PARTIAL, Status.UNKNOWN)}
    in_port_phase = {f.id for f in findings if phase[f.id] == 4}
    ports: Dict[str, List[Blocker]] = defaultdict(list)
    for blocker in blockers:
        if any(i in in_port_phase for i in blocker.findings):
            ports[_port_kind(blocker)].append(blocker)
    ported_ops = [b.key.split(":", 1)[1] for b in ports["kernel port"]]
    buckets = [
        _bucket("automatic fix", automatic, HOURS["automatic"] * automatic, "minutes"),
        _bucket("manual rewrite", manual, HOURS["manual"] * manual, "hours"),
        _bucket("op fallback to check", validate[Status.FALLBACK],
                HOURS["fallback"] * validate[Status.FALLBACK], "hours"),
        _bucket("partial support to check", validate[Status.PARTIAL], HOURS["partial"] * validate[Status.PARTIAL],
                "hours"),
        _bucket("unknown to try", validate[Status.UNKNOWN], HOURS["unknown"] * validate[Status.UNKNOWN], "hours"),
        *(_bucket(kind, len(found), sum(b.hours for b in found), "days" if kind != "custom operator replacement"
                  else "hours") for kind, found in ((k, ports[k]) for k in _PORT_KINDS)),
    ]
    total = sum(b["hours"] for b in buckets)
    return {
        "automatic_rewrites": automatic,
        "manual_rewrites": manual,
        "ports": sum(1 for f in findings if _verdict(f, target, Status.PORT)),
        "custom_ops": op_count,
        "kernel_lines_to_port": sum(port_lines.get(op, 0) for op in ported_ops),
        "buckets": buckets,
        "total_hours": round(total, 1),
        "total_days": round(total / HOURS_PER_DAY, 1),
        "assumptions": list(EFFORT_ASSUMPTIONS),
        "formula": READINESS_FORMULA,
    }


#: The card's phase-4 buckets, in order.
_PORT_KINDS = ("custom operator replacement", "kernel port", "triton kernel port", "library port", "unsupported API",
               "other library changes")


def _port_kind(blocker: Blocker) -> str:
    if blocker.key.startswith("custom-op:"):
        return "kernel port" if blocker.status == Status.PORT else "custom operator replacement"
    if blocker.status == Status.UNSUPPORTED:
        return "unsupported API"
    if blocker.status == Status.PORT:
        return "triton kernel port" if blocker.key.startswith("triton") else "library port"
    return "other library changes"  # a rewrite in a library's use (triton's device query), counted per finding


def _bucket(name: str, count: int, hours: float, unit: str) -> Dict[str, Any]:
    return {"name": name, "count": count, "hours": round(hours, 2), "unit": unit}


def _line_sites(findings: Sequence[Finding]) -> Mapping[str, List[Finding]]:
    """Per cause, its sites on the cause's own line (``torch.device("cuda" if torch.cuda.is_available() else
    "cpu")``: the string is the cause, the test beside it a site that changes with it)."""
    by_id = {f.id: f for f in findings}
    out: Dict[str, List[Finding]] = defaultdict(list)
    for finding in findings:
        head = by_id.get(finding.root or "")
        if head is not None and head.path == finding.path and head.span.line == finding.span.line:
            out[head.id].append(finding)
    return out


def _with_its_line(message: str, first: Finding, sites: Sequence[Finding], target: str) -> str:
    """A cause's message, and, where sites on its line change with it, the line as a whole as its suggestion
    shows it (``project/line_suggestions``): the worklist's line is the whole change."""
    shown = first.verdicts[target].suggestion
    changes = any(v is not None and v.status == Status.REWRITE for v in (s.verdicts.get(target) for s in sites))
    return f"{message}; with what changes beside it, the line becomes `{shown}`" if changes and shown else message


def _blockers(findings: Sequence[Finding], target: str, port_lines: Mapping[str, int],
              op_of: OpMembership, reach: Mapping[str, NodeReach],
              finding_nodes: Mapping[str, str],
              line_sites: Optional[Mapping[str, Sequence[Finding]]] = None) -> Tuple[Blocker, ...]:
    """Findings that block the target, grouped (one custom op, or one API under one rule), ranked by reach, then
    effort."""
    groups: Dict[str, List[Finding]] = defaultdict(list)
    titles: Dict[str, str] = {}
    for finding in findings:
        verdict = finding.verdicts.get(target)
        if verdict is None or verdict.status not in BLOCKING or not active(verdict):
            continue
        op = op_of.op_of(finding)
        key, title = (f"custom-op:{op}", f"custom operator {op}") if op else _cause_of(finding, verdict.status)
        groups[key].append(finding)
        titles[key] = title
    blockers = []
    for key, members in groups.items():
        verdicts = [m.verdicts[target] for m in members]
        status = min((v.status for v in verdicts), key=BLOCKING.index)
        reaches = [reach[finding_nodes[m.id]] for m in members
                   if m.id in finding_nodes and finding_nodes[m.id] in reach]
        # the best-reached place, preferring code that runs in a function over a module's import-time body
        best = max(reaches, key=lambda r: (r.entries, r.kind not in (NodeKind.MODULE, NodeKind.MAIN), r.paths),
                   default=None)
        paths = min(sum(r.paths for r in {r.node: r for r in reaches}.values()), PATHS_CAP)
        op = key.split(":", 1)[1] if key.startswith("custom-op:") else None
        if op is not None:
            hours = HOURS_PER_DAY * port_days(port_lines[op]) if status == Status.PORT else HOURS["op_replacement"]
        else:
            hours = _finding_hours(verdicts, key.startswith("triton"))  # "triton:<module>" or "triton-launch:..."
        reachable = any(m.reachable for m in members) if any(m.reachable is not None for m in members) else None
        on_best = [m for m in members if best is not None and finding_nodes.get(m.id) == best.node]
        first = min(on_best or members, key=lambda m: (m.reachable is False, m.path, m.span.line or 0))
        suggestion = next((v.suggestion for v in verdicts if v.suggestion), None)
        blockers.append(Blocker(key=key, title=titles[key], status=status, findings=tuple(m.id for m in members),
                                entries=best.entries if best else 0, paths=paths,
                                path=best.path if best else (), hours=round(hours, 2), reachable=reachable,
                                path_of_first=first.path, line_of_first=first.span.line,
                                message=_with_its_line(verdicts[members.index(first)].message, first,
                                                       (line_sites or {}).get(first.id, ()), target),
                                suggestion=suggestion,
                                fixable=all(v.fixable for v in verdicts)))
    blockers.sort(key=lambda b: (b.reachable is False, -b.entries, -b.paths, -b.hours, b.key))
    return tuple(blockers)


def _cause_of(finding: Finding, status: Status) -> Tuple[str, str]:
    """A blocker's key and title: one API under one rule, except a port, which is one per cause: every
    ``triton.language.*`` use in a module is that module's triton kernels, every use of a CUDA library
    (``transformer_engine.pytorch.*``) one port of that library."""
    if status == Status.PORT and finding.rule in _PORT_RULES:
        if finding.api.split(".", 1)[0] == "triton" or finding.rule == "triton-launch":
            return f"triton:{finding.path}", f"triton kernels in {finding.path}"
        library = third_party().library_of(finding.api) or finding.api.split(".", 1)[0]
        return f"cuda-library:{library}", f"{library} (CUDA library)"
    return f"{finding.rule}:{finding.api}", finding.api


#: Rules whose ports are grouped by cause (a kernel module, a library) rather than by API.
_PORT_RULES = frozenset({"cuda-library", "triton-launch"})


def _finding_hours(verdicts: Sequence[Verdict], triton: bool) -> float:
    """Rewrites cost per finding; an unsupported API or a library / triton port costs once per group."""
    hours = sum(HOURS["automatic"] if v.fixable else HOURS["manual"] for v in verdicts if v.status == Status.REWRITE)
    if any(v.status == Status.UNSUPPORTED for v in verdicts):
        hours += HOURS["unsupported"]
    if any(v.status == Status.PORT for v in verdicts):
        hours += HOURS["triton"] if triton else HOURS["library"]
    return hours
