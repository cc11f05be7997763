"""``# migrator: ignore`` comments: per line (or the line above a statement) and per file.

Forms:
    x = t.cuda()  # migrator: ignore
    x = t.cuda()  # migrator: ignore[device-move, device-call]
    # migrator: ignore[device-argument]
    y = torch.zeros(
        3, device="cuda")
    # migrator: ignore-file          (anywhere in the file)
Comments are read from the file's text (any language with ``#`` comments: Python, notebooks cell by
cell, shell, Dockerfile, requirements); a directive inside a string literal is found too, which only
ever suppresses more, never less.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ..model import Finding

_DIRECTIVE = re.compile(r"#\s*migrator:\s*(ignore-file|ignore)(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class Suppression:
    line: int
    cell: Optional[int]
    rules: FrozenSet[str]  # empty: every rule
    own_line: bool  # a comment alone on its line covers the statement below; a trailing one, its own line

    def covers(self, finding: Finding) -> bool:
        if finding.span.cell != self.cell or finding.span.line is None:
            return False
        start, end = finding.span.line, finding.span.end_line or finding.span.line
        hit = self.line == start - 1 if self.own_line else start <= self.line <= end
        return hit and (not self.rules or finding.rule in self.rules)


@dataclass(frozen=True)
class FileSuppressions:
    whole_file: bool
    lines: Tuple[Suppression, ...]


def read_suppressions(text: str, cells: Optional[Sequence[Tuple[int, str]]] = None) -> FileSuppressions:
    """``cells`` (index, source) for a notebook; otherwise the file's text is one unit."""
    units = cells if cells is not None else [(None, text)]
    whole = False
    found: List[Suppression] = []
    for cell, source in units:
        for number, line in enumerate(source.splitlines(), start=1):
            if "migrator:" not in line:
                continue
            for match in _DIRECTIVE.finditer(line):
                if match.group(1) == "ignore-file":
                    whole = True
                    continue
                rules = frozenset(r.strip() for r in (match.group(2) or "").split(",") if r.strip())
                found.append(Suppression(number, cell, rules, own_line=not line[:match.start()].strip()))
    return FileSuppressions(whole, tuple(found))


@dataclass
class SuppressionResult:
    kept: List[Finding] = field(default_factory=list)
    suppressed: List[Finding] = field(default_factory=list)
    unused: List[Tuple[str, Suppression]] = field(default_factory=list)


def apply_suppressions(findings: Sequence[Finding], by_path: Dict[str, FileSuppressions]) -> SuppressionResult:
    result = SuppressionResult()
    used: Set[Tuple[str, int]] = set()
    for finding in findings:
        rules = by_path.get(finding.path)
        if rules is None:
            result.kept.append(finding)
            continue
        if rules.whole_file:
            result.suppressed.append(finding)
            continue
        hit = next((i for i, s in enumerate(rules.lines) if s.covers(finding)), None)
        if hit is None:
            result.kept.append(finding)
        else:
            used.add((finding.path, hit))
            result.suppressed.append(finding)
    for path, rules in sorted(by_path.items()):
        for index, suppression in enumerate(rules.lines):
            if (path, index) not in used:
                result.unused.append((path, suppression))
    return result


def suppressions_in(folder: Path, rels: Iterable[str]) -> Dict[str, FileSuppressions]:
    """The ``# migrator: ignore`` comments of the files ``rels`` under ``folder`` (only files that have one;
    each read as a scan reads it: regular files, size-capped)."""
    from ..discover import kind_of, read_source
    from ..model import FileKind
    from ..cells import read_notebook_cells

    found: Dict[str, FileSuppressions] = {}
    for rel in sorted(rels):
        path = folder / rel
        try:
            text = read_source(str(path)).decode("utf-8", errors="replace")
        except (OSError, ValueError):
            continue
        if "migrator:" not in text:
            continue
        cells = read_notebook_cells(text) if kind_of(path.name) == FileKind.NOTEBOOK else None
        found[rel] = read_suppressions(text, cells)
    return found
