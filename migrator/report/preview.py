"""What ``migrator fix`` does to a finding's own line, read from the finding alone: the preview the page's diffs
and SARIF's fixes share.

``fix`` itself parses each file and applies the edits with LibCST (``fix/__init__.py``); a report renderer
must stay fast on big repositories and does not re-parse files. Where an edit replaces exactly the finding's
own text on one line (a device string, a renamed call), that replacement is the suggestion put where the
snippet is: the same text ``fix`` writes there. Anything else (an edit at the constant the value came through,
a span over several lines) is not previewed: the renderers say what to do in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..model import Auto, EditKind, Finding, Unsafe


@dataclass(frozen=True)
class LineRewrite:
    """The finding's ``snippet`` at ``line``, columns ``col`` to ``end_col`` (0-based, end exclusive), becomes
    ``new``; ``fix`` applies it by default when ``fix`` is ``Auto``, with ``--unsafe`` when it is ``Unsafe``."""

    path: str
    cell: Optional[int]
    line: int
    col: int
    end_col: int
    old: str
    new: str
    fix: Union[Auto, Unsafe]

    def applied_to(self, text: str) -> Optional[str]:
        """``text`` (the file's line) with the rewrite made, or ``None`` when the line does not hold the
        snippet where the finding says (the file changed since the scan)."""
        if text[self.col:self.end_col] != self.old:
            return None
        return text[:self.col] + self.new + text[self.end_col:]


def line_rewrite(finding: Finding, target: str) -> Optional[LineRewrite]:
    """The rewrite of the finding's own text for ``target``, when its verdict has an exact edit of that text: not
    an edit elsewhere (``at``), nor a plain-text edit of a script line (its span is the name it changes, its
    snippet the whole line), nor a span that is not the snippet's width."""
    verdict = finding.verdicts.get(target)
    fix = verdict.fix if verdict is not None else None
    span = finding.span
    if not isinstance(fix, (Auto, Unsafe)) or fix.edit.at is not None or fix.edit.kind == EditKind.TEXT \
            or span.line is None or span.col is None or span.end_col is None or span.line != span.end_line \
            or span.end_col - span.col != len(finding.snippet):
        return None
    return LineRewrite(finding.path, span.cell, span.line, span.col, span.end_col, finding.snippet, fix.suggestion,
                       fix)
