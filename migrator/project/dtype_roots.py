"""One dtype choice, one finding: the uses of ops whose vendor notes leave out a dtype the project computes in
are sites of the place the project chooses that dtype (rule ``dtype-limits``, ``rules/dtype/dtype_limits.py``).

``settle`` makes ``nn.Linear`` ``partial`` on cann in a project that autocasts in bf16 (the Ascend docs list
fp16/fp32 for its input). Five layers and a loss in the model code are then five and one findings with one
cause, an evaluation notebook's ``autocast(dtype=torch.bfloat16)``: the finding is there, listing the APIs,
and each use names it as its ``root``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..model import Category, Confidence, Context, DtypeChoice, Evidence, Finding, Grade, Status, Verdict
from ..rules.base import fingerprint
from ..rules.dtype.dtype_limits import DtypeLimits

#: per finding id, per target: the project's dtypes that bite its verdict (only dtype clauses biting)
Bites = Mapping[str, Mapping[str, FrozenSet[str]]]
_RULE = DtypeLimits.name
_SHOWN = 8
_NO_OTHER_REASON = frozenset({Status.SUPPORTED, Status.UNKNOWN})


def with_dtype_roots(findings: Sequence[Finding], bites: Bites, choices_of: Mapping[str, Tuple[DtypeChoice, ...]],
                     caveats: Optional[Mapping[DtypeChoice, Mapping[str, Mapping[str, str]]]] = None) -> List[Finding]:
    """``findings`` with each dtype-only ``partial`` use rooted at a ``dtype-limits`` finding at its project's
    choice of the dtype (added after them). A use that is already a site of another cause keeps it, and a
    use with another reason to be a finding on some target (a rewrite, an argument note) stays its own.
    ``caveats``: per choice, the targets whose own ports train without that dtype (note and source); such a
    choice is a finding on those targets whether or not a use is bitten."""
    caveats = caveats or {}
    sites: Dict[DtypeChoice, List[Finding]] = {}
    for finding in findings:
        bitten = bites.get(finding.id)
        choice = _choice(finding, bitten, choices_of.get(finding.path, ())) if bitten else None
        if choice is not None:
            sites.setdefault(choice, []).append(finding)
    for choice in caveats:
        sites.setdefault(choice, [])
    targets = list(dict.fromkeys(t for f in findings for t in f.verdicts))
    rooted: Dict[str, str] = {}
    causes = []
    seen: Counter = Counter()  # a framework import chooses fp16 and bf16 at one place: two findings, two ids
    for choice, uses in sorted(sites.items(), key=lambda item: (item[0].path, item[0].dtype)):
        place = (choice.path, choice.api, choice.snippet)
        seen[place] += 1
        cause = _finding_at(choice, uses, bites, targets, caveats.get(choice, {}), seen[place] - 1)
        causes.append(cause)
        rooted.update((use.id, cause.id) for use in uses)
    return [replace(f, root=rooted[f.id]) if f.id in rooted else f for f in findings] + causes


def _choice(finding: Finding, bitten: Mapping[str, FrozenSet[str]],
            choices: Sequence[DtypeChoice]) -> Optional[DtypeChoice]:
    """The place the dtype that bites ``finding`` is chosen, when only such bites make it a finding."""
    if finding.root is not None or finding.cause is not None:
        return None
    for target, verdict in finding.verdicts.items():
        if verdict.status not in _NO_OTHER_REASON and not bitten.get(target):
            return None  # another reason to act here (a target whose data cannot judge the use has none: the
            # use stays a gap on that target, ``assess.counted``, and another target's data decides nothing here)
    dtypes = set().union(*bitten.values())
    return next((c for c in choices if c.dtype in dtypes), None)


def _finding_at(choice: DtypeChoice, uses: Sequence[Finding], bites: Bites, targets: Sequence[str],
                caveats: Mapping[str, Mapping[str, str]], occurrence: int) -> Finding:
    judged = list(dict.fromkeys([t for use in uses for t in use.verdicts] + list(caveats) + list(targets)))
    return Finding(id=fingerprint(_RULE, choice.path, choice.api, choice.snippet, occurrence), rule=_RULE,
                   category=Category.DTYPE, path=choice.path, span=choice.span, api=choice.api,
                   snippet=choice.snippet, confidence=Confidence.RESOLVED,
                   verdicts={t: _graded(choice, _with_caveat(choice, t, _verdict(choice, t, uses, bites),
                                                                 caveats.get(t)))
                             for t in judged}, scope=choice.scope, context=Context.TRAINING)


def _graded(choice: DtypeChoice, verdict: Verdict) -> Verdict:
    """A note to validate, never work on its own: the vendor notes that leave the dtype out are unconditional
    (Ascend's docs list fp16/fp32 for ``nn.Linear``, which Atlas A2 cards run in bf16), and the project's dtype
    profile links them to calls whose own inputs the scan has not seen in that dtype (mmpretrain's fp16 softmax
    cast in BLIP-2 tied to HorNet's ``view_as_complex`` on an fp32 weight). Thirty-nine such findings judged on
    repositories nobody tuned on: none was work. A choice read only off a framework's import says so."""
    if verdict.status == Status.SUPPORTED:
        return verdict
    why = (f"{choice.dtype} read off the import of {choice.api} at {choice.where}, not off code computing in it"
           if choice.inferred else f"vendor notes that leave {choice.dtype} out, tied to this choice by the "
           f"project's dtype profile, not by the calls' own inputs: check those ops in {choice.dtype} on the card")
    return replace(verdict, evidence=(Evidence(Grade.NOTE, verdict.source, why),))


def _with_caveat(choice: DtypeChoice, target: str, verdict: Verdict,
                 caveat: Optional[Mapping[str, str]]) -> Verdict:
    """The verdict at a dtype choice, with what the target's own ports say of that dtype."""
    if caveat is None:
        return verdict
    said = (f"the project computes in {choice.dtype} from here ({choice.where}); {caveat['note']}")
    if verdict.status == Status.SUPPORTED:
        return Verdict(Status.PARTIAL, said, caveat["source"])
    return Verdict(verdict.status, f"{verdict.message}; and {said}", f"{verdict.source}; {caveat['source']}",
                   quotes=verdict.quotes)


def _verdict(choice: DtypeChoice, target: str, uses: Sequence[Finding], bites: Bites) -> Verdict:
    bitten = [u for u in uses if choice.dtype in bites[u.id].get(target, ())]
    if not bitten:
        return Verdict(Status.SUPPORTED, f"the project computes in {choice.dtype} from {choice.where}; no vendor "
                       f"note on the APIs it uses leaves {choice.dtype} out on {target}", "migrator dtype profile")
    apis = Counter(u.api for u in bitten)
    listed = ", ".join(f"{api} ({n})" for api, n in apis.most_common(_SHOWN))
    more = f" and {len(apis) - _SHOWN} more" if len(apis) > _SHOWN else ""
    sources = list(dict.fromkeys(u.verdicts[target].source for u in bitten))
    return Verdict(Status.PARTIAL,
                   f"the project computes in {choice.dtype} from here ({choice.where}), and the {target} vendor "
                   f"notes on {len(apis)} API(s) it uses leave {choice.dtype} out: {listed}{more}; "
                   f"{len(bitten)} use(s) listed as sites of this finding, each with its note. Check those ops in "
                   f"{choice.dtype} on the card, or keep them in a dtype the notes list",
                   "; ".join(sources[:3]) + (f"; and {len(sources) - 3} more" if len(sources) > 3 else ""))
