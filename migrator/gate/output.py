"""How ``migrator check`` prints: one line per new finding, linter style, then one summary line."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, Mapping, Optional, TextIO, Tuple, cast

import click

from ..model import Finding, Status
from ..maps.limits import note_summary
from ..plan import migration_plans
from ..report import FORMATTERS
from ..report.printable import Printable
from ..report.terminal import Wrapping
from ..report.wording import place, said
from .check import CheckResult


def render_check(result: CheckResult, fmt: str, out: TextIO, report_unused: bool = False, verbosity: int = 0,
                 color: bool = False, width: Optional[int] = None) -> None:
    """``verbosity``: -1 (``-q``) the failing lines only; 1 (``-v``) also the findings the baseline and
    suppressions let through, each said as such, and the vendors' notes quoted. ``color``: each failing line's
    place in bold and its statuses in red (``--color``). ``width``: the terminal's columns to wrap each line at
    (``None``: one line a finding, for a pipe or a file)."""
    if fmt != "text":
        failing = replace(result.report, findings=tuple(result.failing))  # the plan is over what fails
        FORMATTERS[fmt](replace(failing, plans=migration_plans(failing)), out)
        return
    wrapping = Wrapping(out, width)
    out = cast(TextIO, Printable(cast(TextIO, wrapping)))  # a file name or snippet cannot drive the terminal
    quote = verbosity > 0
    for finding in result.failing:
        out.write(_line(finding, quote, color) + "\n")
    if verbosity > 0:
        for finding in result.baselined:
            out.write(_line(finding, quote) + " (in the baseline)\n")
        for finding in result.suppressed:
            out.write(_line(finding, quote) + " (suppressed)\n")
    for error in result.errors:
        out.write(f"{error.file.rel}: error: not checked: {error.reason}\n")
    if verbosity >= 0:
        _summary(result, out, report_unused)
    wrapping.flush()


def _line(finding: Finding, quote: bool = False, color: bool = False) -> str:
    """``path:line:col: RULE [*] [target:status] message``, linter style: ``[*]`` when `migrator fix` applies an
    exact edit on some target; the vendors' notes said by kind, or ``quote``d; with ``color``, the place in bold
    and the statuses in red (only the lines that fail the check are painted)."""
    where = place(finding.path, finding.span)
    failing = [(t, v) for t, v in finding.verdicts.items() if v.status != Status.SUPPORTED]
    tags = ",".join(f"{t}:{_paint(v.status.value, color, fg='red')}" for t, v in failing)
    message = said(failing[0][1], _said(failing[0][1].quotes), quote) if failing else ""
    fixed = " [*]" if any(v.fixable and v.edit is not None for _, v in failing) else ""
    return f"{_paint(where, color, bold=True)}: {finding.rule}{fixed} [{tags}] {' '.join(message.split())}"


def _paint(text: str, color: bool, **style) -> str:
    return click.style(text, **style) if color else text


def _summary(result: CheckResult, out: TextIO, report_unused: bool) -> None:
    for entry in result.fixed:
        out.write(f"{entry.path}: {entry.rule} {entry.api}: fixed (still in the baseline"
                  f"{'' if result.baseline_written is not None else '; --write-baseline prunes it'})\n")
    if report_unused:
        for path, suppression in result.unused_suppressions:
            cell = f"cell {suppression.cell}:" if suppression.cell is not None else ""
            out.write(f"{path}:{cell}{suppression.line}: unused suppression\n")
    if result.baseline_written is not None:
        out.write(f"migrator: wrote {result.baseline_written} findings to the baseline\n")
    elif result.failing or result.fixed or result.errors or (report_unused and result.unused_suppressions):
        unread = f", {len(result.errors)} not checked" if result.errors else ""
        out.write(f"migrator: {len(result.failing)} new, {len(result.baselined)} in baseline, "
                  f"{len(result.suppressed)} suppressed, {len(result.fixed)} fixed{unread}{_fix_hint(result)}\n")
    else:  # one line that says the gate ran and passed (a linter's "All checks passed!")
        files = len(result.report.files)
        let_through = [f"{n} {what}" for n, what in ((len(result.baselined), "in the baseline"),
                                                     (len(result.suppressed), "suppressed")) if n]
        out.write(f"migrator: clean: {files} file{'s' if files != 1 else ''} checked for "
                  f"{', '.join(t.id for t in result.report.targets) or 'no target'}, no new finding"
                  + (f" ({', '.join(let_through)})" if let_through else "") + "\n")


def _fix_hint(result: CheckResult) -> str:
    """'; 3 can be fixed with `migrator fix --target cann`' for the targets where new findings have exact edits."""
    counts: Dict[str, int] = {}
    for finding in result.failing:
        for target, verdict in finding.verdicts.items():
            if verdict.fixable and verdict.edit is not None:
                counts[target] = counts.get(target, 0) + 1
    return "".join(f"; {n} can be fixed with `migrator fix PATH --target {t}`" for t, n in sorted(counts.items()))


def _said(quotes: Tuple[str, ...]) -> Mapping[str, str]:
    """The vendor notes ``quotes``, each said in English by its kind."""
    return {quote: note_summary(quote) for quote in quotes}
