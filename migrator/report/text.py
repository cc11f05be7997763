"""A terminal summary that fits a screen per target: readiness, the plan phase by phase, the blockers by
cause, each one record from its ``path:line:col``, wrapped to the terminal (``terminal.py``) with the vendors'
notes said by kind (``wording.said``). ``--show all`` adds every finding in training code at its cause,
grouped by file and by rule and API (one row for the same call on several lines, with what to do); ``-q`` keeps
one line per target."""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Mapping, Optional, TextIO, Tuple, cast

import click

from ..model import (STATUS_SEVERITY, TUNE_PHASE, Blocker, Context, FileKind, FileStatus, Finding, MigrationPlan,
                     Report, Status, Tally, TargetSummary, TargetTally, Verdict)
from . import View, finished
from .printable import Printable
from .terminal import Wrapping, at_most
from .wording import advised, place, plain, reach_text, said, trace_text, worst_status

#: Blockers shown per target in the summary; the rest are counted.
_TOP = 5
#: Custom operators named in the summary, the most CUDA to port first.
_OPS = 3
#: Entry points named in the summary.
_ENTRIES = 3
#: Files named per reason among those not (fully) scanned.
_FILES_SHOWN = 1
#: Lines listed in one grouped row before "and N more".
_LINES_SHOWN = 6
_COLOURS = {Status.SUPPORTED: "green", Status.PARTIAL: "yellow", Status.FALLBACK: "yellow",
            Status.REWRITE: "cyan", Status.PORT: "red", Status.UNSUPPORTED: "red", Status.UNKNOWN: "magenta"}


def render(report: Report, out: TextIO, view: View = View()) -> None:
    wrapping = Wrapping(out, view.width)
    out = cast(TextIO, Printable(cast(TextIO, wrapping)))  # a file name or snippet cannot drive the terminal
    try:
        _render(report, out, view)
    finally:
        wrapping.flush()


def _render(report: Report, out: TextIO, view: View) -> None:
    paint = _Paint(view.color)
    numbers = finished(report)  # the shared numbers: every view says these (vocabulary.py)
    _summary_line(report, numbers, out)
    plans = {p.target: p for p in report.plans}
    tallies = {t.id: t for t in numbers.targets}
    if view.quiet:
        for target in report.targets:
            out.write(_headline(target, tallies[target.id], paint) + "\n")
        return
    if report.trace is not None:
        out.write(trace_text(report.trace) + "\n\n")
    by_id = {f.id: f for f in report.findings}
    shown: Dict[Tuple[str, str, str, Optional[int]], str] = {}
    for target in report.targets:
        _target(target, tallies[target.id], plans[target.id], paint, out, by_id, view, shown, report.notes_said)
    if numbers.closest is not None and len(numbers.targets) > 1:
        out.write(f"Closest runtime: {numbers.closest}: {numbers.closest_why}\n\n")
    _legend(report, view, out)
    _entries_and_operators(report, out)
    _worklist_notes(report, numbers, paint, out, view)
    _not_scanned(report, out)


def _summary_line(report: Report, numbers: Tally, out: TextIO) -> None:
    more = numbers.runs_as_written
    covered = (f"; {more} more {'use' if more == 1 else 'uses'} in training code {'runs' if more == 1 else 'run'} as "
               "written on every target" if more else "")
    off = f", {numbers.off_path} of them off the training path" if numbers.off_path else ""
    out.write(f"migrator {report.tool_version}: {report.root}: {numbers.files_scanned} files scanned, "
              f"{numbers.findings} findings ({numbers.at_cause} in training code at their cause{off})"
              f"{covered}\n\n")
    unread = [r.file.rel for r in report.files if r.status == FileStatus.ERROR and r.file.kind in _CODE]
    if unread:  # (bearpaw's pytorch-classification: both training scripts hold Python 2's ``.cuda(async=True)``)
        named = ", ".join(unread[:_FILES_SHOWN]) + (f" and {len(unread) - _FILES_SHOWN} more"
                                                    if len(unread) > _FILES_SHOWN else "")
        out.write(f"{len(unread)} code {'file' if len(unread) == 1 else 'files'} could not be read ({named}): "
                  "everything below leaves them out (`Files not (fully) scanned` says why)\n\n")


#: the kinds of file whose code the numbers count
_CODE = frozenset({FileKind.PYTHON, FileKind.NOTEBOOK})


def _legend(report: Report, view: View, out: TextIO) -> None:
    """What the marks of the blockers listed mean."""
    if not any(t.blockers for t in report.targets):
        return
    legend = ["[*] `migrator fix` applies it"] if any(b.fixable for t in report.targets
                                                       for b in t.blockers[:_TOP]) else []
    if not view.quote:
        legend.append("vendor notes said by kind (`-v` quotes them)")
    if legend:
        out.write("; ".join(legend) + "\n\n")


def _entries_and_operators(report: Report, out: TextIO) -> None:
    """The entry points the call graph started from, and the custom operators with the most CUDA to port."""
    if report.graph is not None:
        names = [e.node for e in report.graph.entries]
        others = f" and {len(names) - _ENTRIES} more" if len(names) > _ENTRIES else ""
        entries = ", ".join(names[:_ENTRIES]) + others if names else "none found (use --entry MODULE:FUNC)"
        out.write(f"Entry points ({len(names)}): {entries}\n\n")
    if report.custom_ops:
        out.write("Custom operators:\n")
        for op in sorted(report.custom_ops, key=lambda o: (-o.kernel_lines, o.name))[:_OPS]:
            out.write(f"  {op.name}: {len(op.kernels)} kernels ({op.kernel_lines} lines), "
                      f"{len(op.registrations)} registrations, {len(op.call_sites)} call sites\n")
        if len(report.custom_ops) > _OPS:
            out.write(f"  ... {len(report.custom_ops) - _OPS} more (`--format html` or `json` has them all)\n")
        out.write("\n")


def _worklist_notes(report: Report, numbers: Tally, paint: "_Paint", out: TextIO, view: View) -> None:
    """The counts left off the blockers (to validate, data gaps, the findings at their cause, the tuning
    points), or the lists themselves with ``--show all`` / ``--show tune``."""
    listed = list(report.at_cause)
    if numbers.to_validate or numbers.data_gaps:
        out.write(f"{_count(numbers.to_validate, 'use')} to validate on the card (substitute data, unconditional "
                  f"vendor notes) and {_count(numbers.data_gaps, 'data gap')} (no data): not on the worklist "
                  "(`--format json` `validate` / `data_gaps`, or the page)\n")
    if view.show == "all":
        _findings(listed, [t.id for t in report.targets], paint, out, view.quote, report.notes_said)
        left_out = _left_out(report.findings)
        if left_out:
            out.write(f"\n(not listed: {left_out}; `--format json` or `html` has them)\n")
    elif listed:
        out.write(f"{numbers.at_cause} findings in training code at their cause: `--show all` lists them by file "
                  "and rule; `--format html` writes the page\n")
    if view.show == "tune":
        _tuning(report, [t.id for t in report.targets], paint, out, view.quote)
    elif numbers.tuning:
        out.write(f"{_count(numbers.tuning, 'tuning point')} on the training step (what runs but stalls the device; "
                  "not in readiness): `--show tune` lists them\n")


def _not_scanned(report: Report, out: TextIO) -> None:
    """The rules that failed and the files not (fully) scanned, each with its reason."""
    if report.rule_errors:
        out.write("\nRules that failed (a migrator bug; their findings are missing, the rest stand):\n")
        for error in report.rule_errors:
            out.write(f"  {error}\n")
    errors = [f for f in report.files if f.status != FileStatus.OK or f.reason]
    if errors:
        out.write("\nFiles not (fully) scanned:\n")
        by_reason: Dict[Tuple[str, str], List[str]] = defaultdict(list)
        for result in errors:
            by_reason[(result.status.value, result.reason or "")].append(result.file.rel)
        for (status, reason), paths in by_reason.items():
            if len(paths) == 1:
                out.write(f"  {paths[0]}: {status}: {reason}\n")
                continue
            rest = f" and {len(paths) - _FILES_SHOWN} more" if len(paths) > _FILES_SHOWN else ""
            out.write(f"  {len(paths)} files: {status}: {reason}: {', '.join(paths[:_FILES_SHOWN])}{rest}\n")


def _headline(target: TargetSummary, tally: TargetTally, paint: "_Paint") -> str:
    if tally.readiness is None:
        score = "nothing to assess (no use in training code the data judges)"
    else:
        judged = f" of what the data judges, {_count(tally.data_gaps, 'data gap')}" if tally.data_gaps else ""
        score = (f"readiness {paint.bold(f'{tally.readiness}%')}{judged} ({tally.readiness_after_fix}% after "
                 f"`migrator fix`)")
    dominated = (f", {round(100 * tally.dominant_share)}% of it {tally.dominant}"
                 if tally.dominant and tally.dominant_share >= 0.5 else "")
    if tally.readiness is not None and 0 < tally.hours_before_ports < tally.hours:
        dominated += (f"; {tally.readiness_before_ports}% ready after the first ~{tally.hours_before_ports:g} h "
                      f"({round(100 * tally.hours_before_ports / tally.hours)}% of the hours)")
    return f"{target.id}@{target.version} ({target.runtime}): {score}, effort ~{tally.days:g} days{dominated}"


def _target(target: TargetSummary, tally: TargetTally, plan: MigrationPlan, paint: "_Paint", out: TextIO,
            by_id: Dict[str, Finding], view: View, shown: Dict[Tuple[str, str, str, Optional[int]], str],
            notes: Mapping[str, str]) -> None:
    """One target: its headline, counts, plan and blockers. ``shown``: the blockers earlier targets listed (by
    key, status and first line), each with its target: the same blocker again is named, not repeated."""
    out.write(_headline(target, tally, paint) + "\n")
    if tally.through_shim:
        out.write(f"  runs on the vendor's runtime patcher an entry point imports: {tally.through_shim} uses need no "
                  "change while it is imported\n")
    counts = ", ".join(f"{n} {paint.status(Status(s))}" for s, n in target.counts.items()
                       if n and s != Status.UNKNOWN.value)
    validate = f"; {tally.to_validate} to validate on the card (substitute data, notes)" if tally.to_validate else ""
    out.write(f"  {counts or 'nothing to judge'}{validate}\n")
    if target.blockers:
        out.write(f"  blockers: {tally.blockers_on_path} on the training path, {tally.blockers_off_path} off it "
                  f"({_count(tally.ports_on_path, 'port')} on it, {tally.ports_off_path} off it)\n")
    if target.selects_itself:
        files = ", ".join(target.selects_itself[:2]) + (" ..." if len(target.selects_itself) > 2 else "")
        out.write(f"  chooses this device itself in {_count(len(target.selects_itself), 'file')} ({files}): its "
                  "CUDA branches there stay\n")
    _plan_table(plan, out)
    again: Dict[str, List[str]] = defaultdict(list)
    for blocker in target.blockers[:_TOP]:
        first = _first_of(blocker, by_id)
        key = (blocker.key, blocker.status.value, blocker.path_of_first, blocker.line_of_first)
        if key in shown and not view.quote:
            again[shown[key]].append(blocker.title)
            continue
        shown.setdefault(key, target.id)
        verdict = first.verdicts.get(target.id) if first is not None else None
        message = plain(" ".join(blocker.message.split()), verdict.quotes if verdict is not None else (), notes,
                        view.quote)
        mark = "[*] " if blocker.fixable else ""
        sites = f", {len(blocker.findings)} findings" if len(blocker.findings) > 1 else ""
        title = blocker.title.removesuffix(f" in {blocker.path_of_first}")  # the line starts with that path
        line = (f"{_where(blocker, first)} {mark}{paint.status(blocker.status)} {title} "
                f"({_reach(blocker)}{sites}): {message}")
        out.write(_at_most(line, view, _BLOCKER_LINES))
    for other, titles in again.items():
        out.write(_at_most(f"  as under {other}: {', '.join(titles)}", view, _BLOCKER_LINES))
    if len(target.blockers) > _TOP:
        out.write(f"  ... {len(target.blockers) - _TOP} more blockers of the {tally.blockers_on_path} on the training "
                  f"path and {tally.blockers_off_path} off it (`--format html` or `json` has them all)\n")
    out.write("\n")


#: Terminal lines a blocker takes in the summary (``-v``: as many as it needs).
_BLOCKER_LINES = 3


def _at_most(line: str, view: View, lines: int) -> str:
    """``line`` and its newline, cut to fill at most ``lines`` terminal lines (whole with ``-v``)."""
    return (line if view.quote else at_most(line, view.width, lines)) + "\n"


def _plan_table(plan: MigrationPlan, out: TextIO) -> None:
    """The plan's phases as a table: items, findings, hours, readiness after the phase."""
    phases = [p for p in plan.phases if p.findings]
    if not phases:
        return
    width = max(len(f"{p.number}. {p.title}") for p in phases)
    out.write(f"  {'plan':<{width}} {'items':>5} {'findings':>8} {'hours':>6}  after\n")
    for phase in phases:
        title = f"{phase.number}. {phase.title}"
        after = (f"{phase.hours:>6g}  {phase.readiness_after}%" if phase.number != TUNE_PHASE[0]
                 else "  on the device")
        out.write(f"  {title:<{width}} {len(phase.items):>5} {len(phase.findings):>8} {after}\n")


def _reach(blocker: Blocker) -> str:
    """How a blocker is reached, in a few words: its entry points (the call paths are the page's)."""
    if blocker.reachable is not False and blocker.entries:
        return _count(blocker.entries, "entry point")
    return reach_text(blocker)


def _first_of(blocker: Blocker, by_id: Dict[str, Finding]) -> Optional[Finding]:
    """The finding a blocker names first (its path and line), for its column and its vendor quotes."""
    members = [by_id[i] for i in blocker.findings if i in by_id]
    return next((m for m in members if m.path == blocker.path_of_first and m.span.line == blocker.line_of_first),
                members[0] if members else None)


def _where(blocker: Blocker, first: Optional[Finding]) -> str:
    """``path:line:col:``, as editors and terminals open it (the column counted from 1)."""
    if first is None or first.path != blocker.path_of_first:
        return f"{blocker.path_of_first}:{blocker.line_of_first or 1}:1:"
    return f"{place(first.path, first.span)}:"


def _findings(listed: List[Finding], targets: List[str], paint: "_Paint", out: TextIO, quote: bool,
              notes: Mapping[str, str]) -> None:
    """By file; in a file, one row per rule and API and the same verdicts, worst first, with its lines and
    what to do on the target that needs the most."""
    by_file: Dict[str, List[Finding]] = defaultdict(list)
    for finding in listed:
        by_file[finding.path].append(finding)
    for path in sorted(by_file):
        rows: Dict[Tuple[str, str, Tuple[str, ...]], List[Finding]] = {}
        for finding in by_file[path]:
            statuses = tuple(finding.verdicts[t].status.value if t in finding.verdicts else "-" for t in targets)
            rows.setdefault((finding.rule, finding.api, statuses), []).append(finding)
        shown = [key for key, found in rows.items() if worst_status(found[0]) != Status.SUPPORTED]
        if not shown:
            continue
        out.write(f"{path}\n")
        for key in sorted(shown, key=lambda k: (STATUS_SEVERITY.index(worst_status(rows[k][0])),
                                                 _first_line(rows[k]))):
            found = sorted(rows[key], key=lambda f: (f.span.cell or 0, f.span.line or 0))
            rule, api, statuses = key
            lines = ", ".join(_position(f) for f in found[:_LINES_SHOWN])
            more = f" and {len(found) - _LINES_SHOWN} more" if len(found) > _LINES_SHOWN else ""
            verdicts = " ".join(f"{t}:{paint.status(Status(s))}" for t, s in zip(targets, statuses) if s != "-")
            out.write(f"  {lines}{more}  {rule}  {api}  [{verdicts}]\n")
            worst = _worst_verdict(found[0])
            if worst is not None:
                target, verdict = worst
                out.write(f"      {target}: {_clip(verdict.suggestion or said(verdict, notes, quote))}\n")


def _tuning(report: Report, targets: List[str], paint: "_Paint", out: TextIO, quote: bool) -> None:
    """The ``tune`` findings by file, in the plan's order (``Report.tuning``)."""
    count = sum(len(module.findings) for module in report.tuning)
    out.write(f"\nTuning the training step ({_count(count, 'finding')}; not counted in readiness):\n")
    for module in report.tuning:
        out.write(f"{module.path}\n")
        for finding in module.findings:
            measured = (f"  [{finding.measured.calls_per_step:g} calls/step, {finding.measured.shapes} shapes]"
                        if finding.measured is not None else "")
            verdicts = " ".join(f"{t}:{paint.status(finding.verdicts[t].status)}" for t in targets
                                if t in finding.verdicts)
            out.write(f"  {_position(finding)}  {finding.rule}  {_clip(finding.snippet)}  [{verdicts}]{measured}\n")
            shown = advised(finding)
            if shown is not None:
                advice = shown[1].suggestion or said(shown[1], report.notes_said, quote)
                out.write(f"      {shown[0]}: {_clip(advice)}\n")


def _worst_verdict(finding: Finding) -> Optional[Tuple[str, Verdict]]:
    """The target whose verdict needs the most, and that verdict (the first target on a tie)."""
    judged = [(t, v) for t, v in finding.verdicts.items() if v.status != Status.SUPPORTED]
    return min(judged, key=lambda tv: STATUS_SEVERITY.index(tv[1].status), default=None)


def _first_line(found: List[Finding]) -> Tuple[int, int]:
    return min((f.span.cell or 0, f.span.line or 0) for f in found)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _clip(text: str, limit: int = 150) -> str:
    """On one line (a vendor note's line breaks and indents folded), at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _left_out(findings: Tuple[Finding, ...]) -> str:
    """'3 in tests, 2 in tooling, 5 uses of a cause listed above' for what the listing leaves out."""
    tests = sum(1 for f in findings if f.context == Context.TEST)
    tooling = sum(1 for f in findings if f.context == Context.TOOLING)
    sites = sum(1 for f in findings if f.context == Context.TRAINING and f.root is not None)
    parts = [f"{tests} in tests" if tests else "", f"{tooling} in tooling (packaging, benchmarks, export)"
             if tooling else "", f"{sites} uses of a cause listed above" if sites else ""]
    return ", ".join(p for p in parts if p)


def _position(finding: Finding) -> str:
    """``line:column``, the column counted from 1 as `check`, SARIF and editors count it (the JSON keeps its
    0-based ``col``)."""
    span = finding.span
    cell = f"cell {span.cell} " if span.cell is not None else ""
    return f"{cell}{span.line or '-'}:{span.col + 1 if span.col is not None else '-'}"


class _Paint:
    """Status words in colour, or as they are."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def status(self, status: Status, width: int = 0) -> str:
        word = status.value.ljust(width)
        return click.style(word, fg=_COLOURS[status]) if self.color else word

    def bold(self, text: str) -> str:
        return click.style(text, bold=True) if self.color else text
