"""Report formatters. Every formatter has the same signature: ``render(report, out, view)``, where ``view``
says how much a terminal view shows and whether in colour; the documents (JSON, SARIF, the page) always
hold everything and read only what applies to them.

Each loads with its module when it first renders (the HTML one brings jinja2): a `check` or a JSON scan
does not pay to import the others.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Dict, Optional, Protocol, TextIO

from ..model import Report, Tally


@dataclass(frozen=True)
class View:
    """How a terminal view reads: ``show`` ``summary`` (per target: readiness, the plan, the blockers by
    cause) or ``all`` (and every finding in training code, grouped by file and rule); ``quiet``: one line
    per target; ``color``: status words in colour (a TTY, unless ``NO_COLOR`` or ``--color never``); ``width``
    and ``quote``: below."""

    show: str = "summary"
    quiet: bool = False
    color: bool = False
    #: the terminal's columns to wrap lines at (``report/terminal.terminal_width``); ``None``: unwrapped (a pipe,
    #: a file)
    width: Optional[int] = None
    #: the vendors' notes as they wrote them, where the default says each in English by its kind
    quote: bool = False


def finished(report: Report) -> Tally:
    """The report's shared numbers, and the sign that the flow finished it: a view renders what the flow
    derived once (``Report.plans``, ``coverage``, ``tally``...), never derives it. A report made by hand goes
    through ``migrator.pipeline.finish.finish`` first."""
    if report.tally is None:
        raise ValueError("this report was not finished by the flow: run migrator.pipeline.finish.finish(report) "
                         "on a report made by hand before a view renders it")
    return report.tally


class Formatter(Protocol):
    """``render(report, out, view)``: what every format shares."""

    def __call__(self, report: Report, out: TextIO, view: View = View()) -> None: ...


def _formatter(module: str) -> Formatter:
    def render(report: Report, out: TextIO, view: View = View()) -> None:
        importlib.import_module(f"{__name__}.{module}").render(report, out, view)

    render.__qualname__ = render.__name__ = f"{module}.render"
    return render


FORMATTERS: Dict[str, Formatter] = {name: _formatter(name) for name in ("text", "json", "sarif", "html")}
