"""One cause, one finding: every use of a device (or backend) variable is a site of the finding at the place
the variable is set. The site keeps its verdicts (``fix`` and ``explain`` read them) and names the finding at
the cause as its ``root``; readiness, effort and blockers count roots only."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..model import Finding

_Place = Tuple[str, Optional[int], Optional[int]]  # path, cell, line


def with_roots(findings: Sequence[Finding]) -> List[Finding]:
    """``findings`` in their order, each site of a cause pointing at the finding there: the one written on the
    cause's line, or else the first site (the cause itself is a plain assignment no rule reports)."""
    at_line: Dict[_Place, Finding] = {}
    for finding in findings:
        at_line.setdefault((finding.path, finding.span.cell, finding.span.line), finding)
    chosen: Dict[_Place, str] = {}
    roots: Dict[str, str] = {}
    for finding in findings:
        if finding.cause is None:
            continue
        place = (finding.path, finding.cause.cell, finding.cause.line)
        if place not in chosen:
            there = at_line.get(place)
            chosen[place] = there.id if there is not None and there.id != finding.id else finding.id
        if chosen[place] != finding.id:
            roots[finding.id] = chosen[place]
    return [replace(f, root=_last(roots, f.id)) if f.id in roots else f for f in findings]


def _last(roots: Dict[str, str], start: str) -> str:
    """The root at the end of a chain (a binding set from another binding), never a cycle."""
    seen = {start}
    current = roots[start]
    while current in roots and roots[current] not in seen:
        seen.add(current)
        current = roots[current]
    return current
