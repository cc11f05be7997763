"""Findings read in their project: the dtypes it computes in (``dtypes``), the part of it each finding sits in
(``contexts``), and the cause each finding is a site of (``roots``). Run once over every file's findings,
before the custom-op plans and the assessment (``in_project``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Sequence

from ..maps.limits import settle_all
from ..model import FileResult, Finding
from .contexts import context_of
from .dtypes import dtype_profile
from .roots import with_roots

__all__ = ["in_project"]


def in_project(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """Each finding with its vendor notes settled against the project's dtypes, its context and its root."""
    profile = dtype_profile(results)
    memo: Dict = {}
    placed = []
    for finding in findings:
        verdicts = settle_all(finding.verdicts, profile, memo)
        context = context_of(finding.path, finding.category)
        if verdicts is not finding.verdicts or context != finding.context:
            finding = replace(finding, verdicts=verdicts, context=context)
        placed.append(finding)
    return with_roots(placed)
