"""An import of a CUDA library whose every use in its file is a plain-PyTorch member of it (``from torch_scatter
import scatter`` before ``scatter(src, index, dim=0)``, whose default reduce is "sum"; ``import bitsandbytes as
bnb`` before ``bnb.nn.StableEmbedding(...)`` alone): the uses run as written (``rules/third_party/plain``), so the
import needs the package installed, none of its kernels, and is no work either. One use that is not plain (a
``reduce="max"``, ``bnb.optim.AdamW8bit``), or none at all, leaves the import the library's finding."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..maps.load import third_party
from ..model import FileResult, Finding, Status, Usage, UsageKind
from ..rules.base import usages_across_files
from ..rules.third_party.plain import import_verdict
from .coverage import runs_as_written

_IMPORT = UsageKind.IMPORT
_RULE = "cuda-library"

#: an import's place in its file: path, cell, line, column
_Place = Tuple[str, Optional[int], Optional[int], Optional[int]]


def reads(usage: Usage) -> bool:
    """Whether ``with_plain_imports`` looks at this usage (the cache keeps those apart for it): an import of a
    library with plain-PyTorch members."""
    if usage.kind != _IMPORT:
        return False
    table = third_party()
    library = table.library_of(usage.api)
    return library is not None and library in table.plain


def with_plain_imports(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, each import finding of a library with plain-PyTorch members made ``supported`` in a file where
    that library has uses and every one of them is such a member running as written."""
    table = third_party()
    paths = {f.path for f in findings if f.rule == _RULE and _library(f) in table.plain and not runs_as_written(f)}
    if not paths:
        return list(findings)
    imports: Set[_Place] = set()
    for result in results:
        if result.file.rel in paths:
            imports.update((result.file.rel, u.span.cell, u.span.line, u.span.col)
                           for u in usages_across_files(result) if reads(u))
    groups: Dict[Tuple[str, str], Tuple[List[Finding], List[Finding]]] = {}
    for finding in findings:
        library = _library(finding) if finding.rule == _RULE and finding.path in paths else None
        if library is not None and library in table.plain:
            imported, used = groups.setdefault((finding.path, library), ([], []))
            (imported if _place(finding) in imports else used).append(finding)
    changed: Dict[str, Finding] = {}
    for (_, library), (imported, used) in groups.items():
        members = [table.plain_member(f.api) for f in used]
        if not used or not all(m is not None and runs_as_written(f) for m, f in zip(members, used)):
            continue
        names = [m.name for m in members if m is not None]
        needs = table.plain_import(library)
        for finding in imported:
            if needs is not None and not runs_as_written(finding):
                changed[finding.id] = replace(finding, verdicts={
                    t: v if v.status == Status.SUPPORTED else import_verdict(t, needs, names)
                    for t, v in finding.verdicts.items()})
    return [changed.get(f.id, f) for f in findings]


def _library(finding: Finding) -> Optional[str]:
    return third_party().library_of(finding.api)


def _place(finding: Finding) -> _Place:
    return (finding.path, finding.span.cell, finding.span.line, finding.span.col)
