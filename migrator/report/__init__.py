"""Report formatters. Every formatter has the same signature: ``render(report, out)``."""

from __future__ import annotations

from typing import Callable, Dict, TextIO

from ..model import Report
from . import html as html_format
from . import json as json_format
from . import sarif as sarif_format
from . import text as text_format

Formatter = Callable[[Report, TextIO], None]

FORMATTERS: Dict[str, Formatter] = {
    "text": text_format.render,
    "json": json_format.render,
    "sarif": sarif_format.render,
    "html": html_format.render,
}
