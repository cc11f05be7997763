"""``migrator explain API``: the aten ops one Python API runs and each target's verdict for it.

Every target chosen is answered: where its data says nothing of the API, the answer is ``unknown``, said to be
a data gap. A name no table knows that is close to one a table does know (``torch.cuda.amp.autocst``) is a
misspelling: it is refused with the names it is close to, never judged by its module's prefix."""

from __future__ import annotations

import difflib
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from .maps.coverage import api_coverage, api_ops
from .maps.limits import TRAINING_DTYPES, clause_summary, for_call, note_summary, read_clauses, settle
from .maps.load import TargetMap, load_json, third_party, torch_api_aliases, torch_api_table
from .maps.signatures import api_parameters
from .model import DtypeProfile, Grade, Span, Status, Usage, UsageKind, Verdict
from .report.terminal import at_most
from .report.wording import plain
from .rules import RuleContext, apply_rules

#: How alike a name no table knows must be to a known one (difflib's ratio) to be read as its misspelling:
#: ``autocst`` / ``autocast`` is 0.93; ``is_bf16_supported`` (real, in no table) is close to no name.
_MISSPELT = 0.85
_SUGGESTIONS = 5
#: Terminal lines a verdict's source takes (``-v``: all it needs).
_SOURCE_LINES = 2


class UnknownApi(Exception):
    """The name is in neither the API table, the vendors' lists nor the migration rules, or it is a misspelling
    of a name they hold."""


def explain_api(api: str, targets: Sequence[TargetMap],
                dtypes: Sequence[str] = TRAINING_DTYPES) -> Dict[str, Any]:
    """The verdicts ``scan`` would give a call of ``api`` with no arguments but its inputs, in a project that
    computes in ``dtypes``: the same rules, dispatched the same way, and the vendor's notes settled the same
    way (each note said to bite or not, and why)."""
    known = _known(api, targets)
    if not known:
        near = _near(api, targets)
        if near:
            raise UnknownApi(f"unknown API {api!r}: no table holds it; did you mean: {', '.join(near)}?")
    profile = DtypeProfile(frozenset(dtypes))
    ops, source = api_ops(api)
    verdicts: Dict[str, Dict[str, Any]] = {}
    usage = Usage(api=api, kind=UsageKind.CALL, span=Span(None), snippet=f"{api}()")
    ctx = RuleContext(targets=tuple(targets), third_party=third_party())
    findings = apply_rules([usage], "<explain>", ctx)
    finding = findings[0] if findings else None
    gaps = []
    for target in targets:
        if finding is not None:
            found, rule = finding.verdicts.get(target.id), finding.rule
        else:  # no rule reports it (torch.save, torch.no_grad): what the vendor's own list says, if anything
            coverage = api_coverage(target, api)  # its argument notes read as a call passing none of them
            found = for_call(coverage.verdict, (), api_parameters(api)) if coverage else None
            rule = None
        if found is None or (found.status == Status.UNKNOWN and not ops and rule in ("torch-op", None)
                             and all(e.grade == Grade.GAP for e in found.evidence)):
            gaps.append(target)  # the data knows nothing of it: said so below, once the API is known at all
            continue
        verdicts[target.id] = _verdict(found, rule, target, profile)
    if not ops and not verdicts and not known:
        near = close_names(api, targets)
        hint = f"; did you mean: {', '.join(near)}?" if near else ""
        raise UnknownApi(f"unknown API {api!r}: not in the torch API table, the vendors' lists or the migration "
                         f"rules{hint}")
    for target in gaps:
        verdicts[target.id] = _gap(api, target, bool(ops))
    return {"api": api, "ops": list(ops), "ops_source": source,
            "verdicts": {t.id: verdicts[t.id] for t in targets},
            "dtypes": [d for d in TRAINING_DTYPES if d in profile.dtypes]}


def _verdict(found: Verdict, rule: Any, target: TargetMap, profile: DtypeProfile) -> Dict[str, Any]:
    settled = settle(found, profile)
    said: Dict[str, Any] = {"status": settled.status.value, "message": settled.message, "source": settled.source,
                            "version": target.version, "rule": rule,
                            "head": found.message, "quoted": list(found.quotes),
                            "notes": [{"kind": limit.kind.value, "bites": bites, "why": why, "quote": limit.text,
                                       "summary": clause_summary(limit)}
                                      for limit, bites, why in read_clauses(found, profile)]}
    if settled.suggestion:
        said["suggestion"] = settled.suggestion
    return said


def _gap(api: str, target: TargetMap, traced: bool) -> Dict[str, Any]:
    """A target whose data names neither the API nor (``traced`` false) an aten op it runs: a data gap."""
    what = "has no row for its aten ops" if traced else "names neither it nor an aten op it runs"
    message = f"no data: the {target.id} data {what} (validate `{api}` on the card)"
    return {"status": Status.UNKNOWN.value, "message": message, "source": target.sources[0],
            "version": target.version, "rule": None, "head": message, "quoted": [], "notes": [], "gap": True}


def _known(api: str, targets: Sequence[TargetMap]) -> bool:
    """Whether a table holds ``api`` itself: torch's API table, the signatures, a target's device map, API
    list or bridge, a third-party library's rows or roots."""
    if api in torch_api_table() or api in torch_api_aliases() or api_parameters(api) is not None:
        return True
    if any(api in target.apis or target.documented(api) or target.bridged(api) for target in targets):
        return True
    return third_party().library_of(api) is not None


def _near(api: str, targets: Sequence[TargetMap]) -> Sequence[str]:
    """Known names ``api`` reads as a misspelling of: the same module's names its last part is close to, or
    whole names it is close to."""
    module, _, tail = api.rpartition(".")
    names = _names(tuple(targets))
    siblings = {n.rpartition(".")[2]: n for n in names if n.rpartition(".")[0] == module}
    near = [siblings[t] for t in difflib.get_close_matches(tail, list(siblings), n=_SUGGESTIONS, cutoff=_MISSPELT)]
    whole = difflib.get_close_matches(api, names, n=_SUGGESTIONS, cutoff=max(_MISSPELT, 0.9))
    return list(dict.fromkeys(near + whole))[:_SUGGESTIONS]


def close_names(api: str, targets: Sequence[TargetMap]) -> Sequence[str]:
    """The known names closest to ``api`` (the same last part first), for a name nothing knows."""
    names = _names(tuple(targets))
    tail = api.rsplit(".", 1)[-1]
    same_tail = [n for n in names if n.rsplit(".", 1)[-1] == tail]
    return list(dict.fromkeys(same_tail + difflib.get_close_matches(api, names, n=_SUGGESTIONS, cutoff=0.6)))[
        :_SUGGESTIONS]


def _names(targets: Tuple[TargetMap, ...]) -> List[str]:
    """Every name a table holds, for the targets chosen (memoised by their labels)."""
    labels = tuple(t.label for t in targets)
    if labels not in _NAMES:
        names: FrozenSet[str] = frozenset(torch_api_table()) | frozenset(torch_api_aliases())
        names |= frozenset(load_json("signatures.json").get("apis", {}))
        for target in targets:
            names |= frozenset(target.apis)
            if target.api_support_file:
                names |= frozenset(load_json(target.api_support_file)["apis"])
        _NAMES[labels] = sorted(names)
    return _NAMES[labels]


_NAMES: Dict[Tuple[str, ...], List[str]] = {}


# ------------------------------------------------------------------------------------------ the text


def render_explanation(result: Dict[str, Any], quote: bool = False, width: Optional[int] = None) -> str:
    """One API: its ops, then per target its status and one bullet per clause of what the data says; the
    vendors' notes said by kind and counted (``quote``: each as the vendor wrote it, and every source whole;
    else a source takes at most two lines of ``width`` columns)."""
    lines: List[str] = [f"{result['api']}  (a call with no optional arguments, computing in "
                        f"{', '.join(result['dtypes'])}: `--dtypes`)"]
    ops = result["ops"]
    if ops:
        lines.append(f"  aten ops ({result['ops_source']}): {', '.join(ops)}")
    for target, verdict in result["verdicts"].items():
        judged = (f"[{verdict['rule']}]" if verdict.get("rule") else "[data gap]" if verdict.get("gap")
                  else "[no scan rule reports it; the vendor's list]")
        lines.append(f"  {target}@{verdict['version']}: {verdict['status']} {judged}")
        lines += [f"    - {clause}" for clause in _clauses(verdict, quote)]
        if verdict.get("suggestion") and verdict["suggestion"] not in verdict["message"]:  # not said twice
            lines.append(f"    suggestion: {verdict['suggestion']}")
        source = f"    source: {verdict['source']}"
        lines.append(source if quote else at_most(source, width, _SOURCE_LINES))
    return "\n".join(lines) + "\n"


def _clauses(verdict: Dict[str, Any], quote: bool) -> List[str]:
    """The verdict's own message, clause by clause, then its vendor notes: each that bites, and those that
    cannot counted by kind and reason (``quote``: one bullet each, as the vendor wrote it)."""
    quoted = tuple(verdict["quoted"])
    notes = {note: note_summary(note) for note in quoted}
    clauses = split_clauses(" ".join(plain(verdict["head"], quoted, notes, quote).split()))
    idle: Dict[str, Dict[str, int]] = {}  # why -> what each says -> how many
    for note in verdict["notes"]:
        said = " ".join(note["quote"].split()) if quote else note["summary"]
        if note["bites"]:
            clauses.append(f"vendor note that bites here: {said}" + (f" ({note['why']})" if note["why"] else ""))
        elif quote:
            clauses.append(f"vendor note that cannot bite here: {said} ({note['why']})")
        else:
            kinds = idle.setdefault(note["why"], {})
            kinds[said] = kinds.get(said, 0) + 1
    for why, kinds in idle.items():
        count = sum(kinds.values())
        times = f"{count} vendor notes" if count > 1 else "vendor note"
        said = ", ".join(f"{n} x {kind}" if n > 1 else kind for kind, n in kinds.items())
        clauses.append(f"{times} that cannot bite here ({why}): {said}")
    return clauses


def split_clauses(message: str) -> List[str]:
    """``message`` split at its ``; `` separators, never inside parentheses, brackets or back-quotes."""
    clauses, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(message):
        if char == "`":
            quoted = not quoted
        elif not quoted and char in "([":
            depth += 1
        elif not quoted and char in ")]":
            depth = max(depth - 1, 0)
        elif char == ";" and not quoted and depth == 0 and message[index + 1:index + 2] == " ":
            clauses.append(message[start:index].strip())
            start = index + 1
    clauses.append(message[start:].strip())
    return [c for c in clauses if c]
