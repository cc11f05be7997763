"""``migrator explain API``: the aten ops one Python API runs and each target's verdict for it."""

from __future__ import annotations

from typing import Dict, List, Sequence

from .maps.coverage import api_coverage, api_ops, close_matches
from .maps.load import TargetMap, third_party
from .model import Span, Status, Usage
from .rules import ALL_RULES, RuleContext


class UnknownApi(Exception):
    """The name is in neither the API table, the vendors' lists nor the migration rules."""


def explain_api(api: str, targets: Sequence[TargetMap]) -> Dict[str, object]:
    ops, source = api_ops(api)
    verdicts: Dict[str, Dict[str, object]] = {}
    usage = Usage(api=api, kind="call", span=Span(None), snippet=f"{api}()")
    ctx = RuleContext(targets=tuple(targets), third_party=third_party())
    rule_verdicts = None
    for rule in ALL_RULES:
        if rule.name == "torch-op":
            continue
        rule_verdicts = rule.check(usage, ctx)
        if rule_verdicts is not None:
            break
    for target in targets:
        if rule_verdicts is not None:
            verdict = rule_verdicts[target.id]
        else:
            coverage = api_coverage(target, api)
            verdict = coverage.verdict if coverage is not None else None
        if verdict is None or (verdict.status == Status.UNKNOWN and not ops and rule_verdicts is None):
            continue
        verdicts[target.id] = {"status": verdict.status.value, "message": verdict.message, "source": verdict.source,
                               "version": target.version}
        if verdict.suggestion:
            verdicts[target.id]["suggestion"] = verdict.suggestion
    if not ops and not verdicts:
        matches = close_matches(api)
        hint = f"; did you mean: {', '.join(matches)}?" if matches else ""
        raise UnknownApi(f"unknown API {api!r}: not in the torch API table, the vendors' lists or the migration "
                         f"rules{hint}")
    return {"api": api, "ops": list(ops), "ops_source": source, "verdicts": verdicts}


def render_explanation(result: Dict[str, object]) -> str:
    lines: List[str] = [str(result["api"])]
    ops = result["ops"]
    if ops:
        lines.append(f"  aten ops ({result['ops_source']}): {', '.join(ops)}")
    for target, verdict in result["verdicts"].items():
        lines.append(f"  {target}@{verdict['version']}: {verdict['status']}: {verdict['message']}")
        if verdict.get("suggestion"):
            lines.append(f"    suggestion: {verdict['suggestion']}")
        lines.append(f"    source: {verdict['source']}")
    return "\n".join(lines) + "\n"
