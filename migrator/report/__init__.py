"""Report formatters. Every formatter has the same signature: ``render(report, out)``.

Each loads with its module when it first renders (the HTML one brings jinja2): a `check` or a JSON scan
does not pay to import the others.
"""

from __future__ import annotations

import importlib
from typing import Callable, Dict, TextIO

from ..model import Report

Formatter = Callable[[Report, TextIO], None]


def _formatter(module: str) -> Formatter:
    def render(report: Report, out: TextIO) -> None:
        importlib.import_module(f"{__name__}.{module}").render(report, out)

    render.__qualname__ = render.__name__ = f"{module}.render"
    return render


FORMATTERS: Dict[str, Formatter] = {name: _formatter(name) for name in ("text", "json", "sarif", "html")}
