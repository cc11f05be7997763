"""SARIF 2.1.0: one run, a rule per migrator rule (with help text), a result per finding with its location,
per-target verdicts as properties, and a fix where the rewrite is exact and safe."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote
from typing import Any, Dict, List, Optional, TextIO

from .. import HOMEPAGE, __version__
from ..model import Auto, FileStatus, Finding, Report, RuleHelp, Status
from . import View, finished
from .caps import MAX_RESULTS_PER_FILE, per_file_cap
from .json import summary
from .preview import line_rewrite
from .wording import worst_status

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Status.UNSUPPORTED: "error", Status.PORT: "error", Status.REWRITE: "warning", Status.FALLBACK: "note",
          Status.UNKNOWN: "note", Status.PARTIAL: "note", Status.SUPPORTED: "none"}


def _uri(path: str) -> str:
    """A relative URI reference for a POSIX path (RFC 3986, as SARIF requires): ``#``, ``?``, ``%``, spaces and
    everything outside ASCII percent-encoded, so that a file named ``a#b.py`` is not read as ``a`` and a fragment."""
    return quote(path, safe="/")


def to_dict(report: Report) -> Dict[str, Any]:
    """The SARIF log. Paths are from the root of the git work tree the scanned folder is in, so code scanning
    places the results of a subfolder's scan (``repository_prefix``)."""
    prefix = repository_prefix(Path(report.root))
    rules = [_rule(rule) for rule in report.rules]
    index = {rule.name: i for i, rule in enumerate(report.rules)}
    plugins = {t.id: t.import_first for t in report.targets if t.import_first}
    kept, left_out = per_file_cap(report.findings)
    notes = [{"level": "note", "message": {"text": f"{count} more results in {path} left out (over "
                                                   f"{MAX_RESULTS_PER_FILE} in one file); the JSON report has them"},
              "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(prefix + path)}}}]}
             for path, count in sorted(left_out.items())]
    # a file that could not be read is said as an error, where code scanning shows it (a syntax error fails
    # `check`: it cannot pass what it could not read)
    notes += [{"level": "error", "message": {"text": f"not analysed: {result.reason}"},
               "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(prefix + result.file.rel)}}}]}
              for result in report.files if result.status == FileStatus.ERROR]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "migrator", "version": __version__, "semanticVersion": __version__,
                                "informationUri": HOMEPAGE, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}],
            "results": [_result(f, index, plugins, prefix) for f in kept],
            # the report's shared numbers, as the JSON's ``summary`` says them (readiness, blockers on / off
            # the training path, the closest runtime and why)
            "properties": {"migrator": summary(finished(report))},
        }],
    }


def repository_prefix(root: Path) -> str:
    """The scanned folder's path from the root of the git work tree it is in (``sub/dir/``), found by looking
    for ``.git`` upwards (git itself is not run); "" at the top, or outside any work tree."""
    folder = (root if root.is_dir() else root.parent).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            below = folder.relative_to(candidate).as_posix()
            return "" if below == "." else below + "/"
    return ""


def render(report: Report, out: TextIO, view: Optional[View] = None) -> None:  # a document holds all: no view
    json.dump(to_dict(report), out, indent=2, ensure_ascii=False)
    out.write("\n")


def _rule(rule: RuleHelp) -> Dict[str, Any]:
    """A reportingDescriptor: the rule's own docs (what / why / example / fix safety), as text and Markdown."""
    return {"id": rule.name, "name": rule.name, "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.what}, "help": {"text": rule.text, "markdown": rule.markdown},
            "properties": {"category": rule.category.value}}


def _result(finding: Finding, index: Dict[str, int], plugins: Dict[str, str], prefix: str) -> Dict[str, Any]:
    worst = worst_status(finding)
    verdict = next(v for v in finding.verdicts.values() if v.status == worst) if finding.verdicts else None
    summary = "; ".join(f"{t}: {v.status.value}" for t, v in finding.verdicts.items())
    result: Dict[str, Any] = {
        "ruleId": finding.rule,
        "level": _LEVEL[worst],
        "message": {"text": f"{finding.api}: {summary}. {verdict.message if verdict else ''}".strip()},
        "locations": [{"physicalLocation": _location(finding, prefix)}],
        "partialFingerprints": {"migratorFingerprint/v1": finding.id},
        "properties": {
            "category": finding.category.value, "api": finding.api, "confidence": finding.confidence.value,
            "ops": list(finding.ops), "reachable": finding.reachable,
            "verdicts": {t: {"status": v.status.value, "message": v.message, "source": v.source,
                             "suggestion": v.suggestion, "fixable": v.fixable} for t, v in finding.verdicts.items()},
        },
    }
    if finding.rule in index:  # a baseline entry may name a rule this version no longer has
        result["ruleIndex"] = index[finding.rule]
    if finding.span.cell is not None:
        result["properties"]["cell"] = finding.span.cell
    fixes = _fixes(finding, plugins, prefix)
    if fixes:
        result["fixes"] = fixes
    return result


def _location(finding: Finding, prefix: str) -> Dict[str, Any]:
    location: Dict[str, Any] = {"artifactLocation": {"uri": _uri(prefix + finding.path)}}
    span = finding.span
    if span.line is not None and span.cell is None:
        region: Dict[str, Any] = {"startLine": span.line}
        if span.col is not None:
            region["startColumn"] = span.col + 1
        if span.end_line is not None:
            region["endLine"] = span.end_line
            if span.end_col is not None:
                region["endColumn"] = span.end_col + 1
        location["region"] = region
    return location


def _fixes(finding: Finding, plugins: Dict[str, str], prefix: str) -> List[Dict[str, Any]]:
    """An exact replacement of the finding's own text (``report/preview.py``), per target whose rewrite ``fix``
    applies by default; not in a notebook (SARIF has no cells)."""
    fixes = []
    for target in finding.verdicts:
        rewrite = line_rewrite(finding, target)
        if rewrite is None or rewrite.cell is not None or not isinstance(rewrite.fix, Auto) or not rewrite.new \
                or rewrite.new == rewrite.old:
            continue
        plugin = f" (the file also needs `{plugins[target]}`)" if target in plugins else ""
        fixes.append({
            "description": {"text": f"{target}: {rewrite.new}{plugin}"},
            "artifactChanges": [{
                "artifactLocation": {"uri": _uri(prefix + rewrite.path)},
                "replacements": [{"deletedRegion": {"startLine": rewrite.line, "startColumn": rewrite.col + 1,
                                                    "endLine": rewrite.line, "endColumn": rewrite.end_col + 1},
                                  "insertedContent": {"text": rewrite.new}}],
            }],
        })
    return fixes
