"""``migrator explain API``: the aten ops one Python API runs and each target's verdict for it."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .maps.coverage import api_coverage, api_ops, close_matches
from .maps.limits import TRAINING_DTYPES, settle
from .maps.load import TargetMap, third_party
from .model import DtypeProfile, Span, Status, Usage, UsageKind
from .rules import RuleContext, apply_rules


class UnknownApi(Exception):
    """The name is in neither the API table, the vendors' lists nor the migration rules."""


def explain_api(api: str, targets: Sequence[TargetMap],
                dtypes: Sequence[str] = TRAINING_DTYPES) -> Dict[str, Any]:
    """The verdicts ``scan`` would give a call of ``api`` with no arguments but its inputs, in a project that
    computes in ``dtypes``: the same rules, dispatched the same way, and the vendor's notes settled the same
    way (each note said to bite or not, and why)."""
    profile = DtypeProfile(frozenset(dtypes))
    ops, source = api_ops(api)
    verdicts: Dict[str, Dict[str, Any]] = {}
    usage = Usage(api=api, kind=UsageKind.CALL, span=Span(None), snippet=f"{api}()")
    ctx = RuleContext(targets=tuple(targets), third_party=third_party())
    findings = apply_rules([usage], "<explain>", ctx)
    finding = findings[0] if findings else None
    for target in targets:
        if finding is not None:
            verdict, rule = finding.verdicts.get(target.id), finding.rule
        else:  # no rule reports it (torch.save, torch.no_grad): what the vendor's own list says, if anything
            coverage = api_coverage(target, api)
            verdict, rule = (coverage.verdict if coverage else None), None
        verdict = settle(verdict, profile) if verdict is not None else None
        if verdict is None or (verdict.status == Status.UNKNOWN and not ops and rule in ("torch-op", None)):
            continue  # the data knows nothing of it: not a verdict worth printing
        verdicts[target.id] = {"status": verdict.status.value, "message": verdict.message, "source": verdict.source,
                               "version": target.version, "rule": rule}
        if verdict.suggestion:
            verdicts[target.id]["suggestion"] = verdict.suggestion
    if not ops and not verdicts:
        matches = close_matches(api)
        hint = f"; did you mean: {', '.join(matches)}?" if matches else ""
        raise UnknownApi(f"unknown API {api!r}: not in the torch API table, the vendors' lists or the migration "
                         f"rules{hint}")
    return {"api": api, "ops": list(ops), "ops_source": source, "verdicts": verdicts,
            "dtypes": [d for d in TRAINING_DTYPES if d in profile.dtypes]}


def render_explanation(result: Dict[str, Any]) -> str:
    lines: List[str] = [f"{result['api']}  (a call with no optional arguments, in a project computing in "
                        f"{', '.join(result['dtypes'])}; `--dtypes` to change)"]
    ops = result["ops"]
    if ops:
        lines.append(f"  aten ops ({result['ops_source']}): {', '.join(ops)}")
    for target, verdict in result["verdicts"].items():
        judged = f" [{verdict['rule']}]" if verdict.get("rule") else " [no scan rule reports it; the vendor's list]"
        lines.append(f"  {target}@{verdict['version']}: {verdict['status']}{judged}: {verdict['message']}")
        if verdict.get("suggestion"):
            lines.append(f"    suggestion: {verdict['suggestion']}")
        lines.append(f"    source: {verdict['source']}")
    return "\n".join(lines) + "\n"
