"""The report finished for its views: what every view says, derived once from the assessed report and carried
on it (``Report.plans`` ... ``Report.rules``, ``Report.tally``), so that the views render and compute nothing
(docs/architecture.md, "Floors").

The flow finishes every report it makes (``flow._report``); a report made by hand (a test's) is finished by
``finish`` before a view renders it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Dict, Iterable, Set, Tuple

from ..assess import counted
from ..discover import base_dir
from ..evidence import Bucket
from ..maps.limits import note_summary
from ..model import Finding, Report, RuleHelp, TuneModule
from ..plan import migration_plans, tune_modules
from ..project.coverage import apart_by_api, coverage_by_api
from ..rules import DOCUMENTED_RULES
from ..rules.docs import WHAT, rule_doc
from ..vocabulary import tally


def finish(report: Report) -> Report:
    """``report`` with everything its views say derived from its targets and findings."""
    plans = migration_plans(report)
    return replace(report, tally=tally(report, plans), plans=plans, coverage=coverage_by_api(report.covered),
                   validate_by_api=apart_by_api(report.validate, Bucket.VALIDATE),
                   gaps_by_api=apart_by_api(report.validate, Bucket.GAP),
                   tuning=tuple(TuneModule(path, tuple(found)) for path, found in tune_modules(report)),
                   at_cause=tuple(counted(report.findings)), notes_said=notes_said(report.judged), rules=rule_help(),
                   base=str(base_dir(Path(report.root))))


def notes_said(findings: Iterable[Finding]) -> Dict[str, str]:
    """Every vendor note a verdict of ``findings`` carries (``Verdict.quotes``), said in English by its kind."""
    said: Dict[str, str] = {}
    seen: Set[int] = set()  # verdicts are shared (``memo.share_verdicts``): each read once
    for finding in findings:
        for verdict in finding.verdicts.values():
            if id(verdict) in seen:
                continue
            seen.add(id(verdict))
            for quote in verdict.quotes:
                if quote and quote not in said:
                    said[quote] = note_summary(quote)
    return said


def rule_help() -> Tuple[RuleHelp, ...]:
    """Every documented rule's help, as SARIF's descriptors say it (the rule's own docs: what, why, example, fix
    safety)."""
    helps = []
    for rule in DOCUMENTED_RULES:
        doc = rule_doc(rule)
        helps.append(RuleHelp(name=rule.name, summary=rule.summary or doc.title,
                              what=" ".join(doc.section(WHAT).split()), text=doc.text(), markdown=doc.markdown(),
                              category=rule.category))
    return tuple(helps)
