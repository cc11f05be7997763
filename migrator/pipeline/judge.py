"""The judge stage: each file's usages through the rules, then the rules over the whole project, then the
findings ``# migrator: ignore`` marks taken out. A rule that raises is an error for that file (or, for a
project rule, in ``Report.rule_errors``), and the scan goes on."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from ..discover import base_dir
from .memo import RuleMemo
from .suppress import apply_suppressions, suppressions_in
from ..model import FileResult, Finding
from ..rules import PROJECT_RULES, RuleContext
from ..rules.base import findings_or_error


@dataclass(frozen=True)
class Judged:
    findings: List[Finding]
    #: each file's entry in the report, saying which rules failed on it
    files: Tuple[FileResult, ...]
    #: a project-wide rule that raised, as ``rule NAME failed: TYPE: message``
    rule_errors: Tuple[str, ...]


def judge(results: Sequence[FileResult], files: Sequence[FileResult], ctx: RuleContext, memo: RuleMemo,
          root: Path, project_rules: bool, suppress: bool) -> Judged:
    """``files``: every file's entry in the report (``file_list``); ``project_rules``: run the project-wide rules
    too (not on the few files ``check`` or ``fix`` hand over); ``suppress``: take out what is marked."""
    findings: List[Finding] = []
    failed: Dict[str, Tuple[str, ...]] = {}  # a file whose rules raised: what failed, for its entry in the report
    for result in results:
        judged = memo.get_or_compute(result)
        findings.extend(judged.findings)
        if judged.errors:
            failed[result.file.rel] = judged.errors
    rule_errors: List[str] = []
    if project_rules:
        for rule in PROJECT_RULES:
            findings.extend(findings_or_error(rule.name, partial(rule.findings, results, ctx), rule_errors))
    if suppress:
        commented = {r.file.rel for r in results if r.marked} & {f.path for f in findings}  # read only those again
        if commented:
            findings = apply_suppressions(findings, suppressions_in(base_dir(root), commented)).kept
    files = tuple(_with_rule_errors(r, failed[r.file.rel]) if r.file.rel in failed else r for r in files)
    return Judged(findings, files, tuple(rule_errors))


def file_list(results: Sequence[FileResult], skipped: Sequence[FileResult]) -> Tuple[FileResult, ...]:
    """What the report says of each file: its status and why, not its facts (the findings carry what
    matters, and a report that held every usage again would cost a second copy to cache or send)."""
    return tuple(sorted((FileResult(r.file, r.status, r.reason) for r in [*results, *skipped]),
                        key=lambda r: r.file.rel))


def _with_rule_errors(result: FileResult, errors: Sequence[str]) -> FileResult:
    """A file's report entry saying which rules failed on it (a bug in migrator, not in the file): its other
    findings stand."""
    said = "; ".join(errors[:3]) + (f"; and {len(errors) - 3} more" if len(errors) > 3 else "")
    reason = f"{result.reason}; {said}" if result.reason else said
    return replace(result, reason=f"{reason} (a migrator bug: the rest of the file was judged)")
