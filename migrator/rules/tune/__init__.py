"""What runs on the target but stalls it: the ``tune`` findings, on the training step only.

Each rule here judges the project after the call graph is built (``scan`` runs them through
``tune_findings``): a finding needs to know it sits on the training step (``project/step.py``), which no
single file can say. Every verdict cites the vendor's performance guide it comes from
(``operator_maps/curated/tuning.yaml``); a target whose vendor does not document the pitfall says so.
``tune`` findings never count in readiness, effort or blockers (``assess.counted``): the code runs.
"""


from __future__ import annotations

from collections import Counter
from dataclasses import replace
from functools import lru_cache, partial
from typing import (Callable, ClassVar, Dict, FrozenSet, Iterable, Iterator, List, Optional, Protocol, Sequence, Tuple,
                    TypeVar, Union)

from ...contexts import path_context
from ...maps.load import TargetMap, TuneAdvice, tuning
from ...model import (Category, Confidence, Context, FileResult, Finding, Span, Status, TuneKind, TuneSite, Usage,
                      UsageKind, Verdict, fix_of)
from ..base import DocumentedRule, RuleContext, findings_or_error, fingerprint, usages_across_files

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_ASSIGN = UsageKind.ASSIGN

#: What a draft finding carries to where its verdicts are made (the site it came from, what happens there).
Extra = TypeVar("Extra")


#: Where a finding sits in the call graph (``ProjectGraph.node_of``).
NodeOf = Callable[[Finding], Optional[str]]


class TrainingStep(Protocol):
    """What the tune rules read of the training step: why a finding runs on every step. The project stage computes
    it (``project/step.TrainingStep``); the rules, a floor below, know it only by this."""

    def why(self, finding: Finding, node: Optional[str]) -> Optional[str]:
        """Why ``finding`` (at graph node ``node``) runs on every step, or ``None`` when it does not."""

    def on_the_device(self, finding: Finding, node: Optional[str]) -> Optional[str]:
        """``why``, for a step that runs on an accelerator (``None`` where a script puts nothing on one)."""


#: A target's own verdict on a tune finding, or its own words for what happens there (``None``: the row's).
PerTarget = Callable[[TargetMap], Union[Verdict, str, None]]


_MODEL = "class Pooler(torch.nn.Module):\n    def forward(self, boxes, scores):\n        {forward}\n\n\n"


_LOOP = ("def train(model, loader, optimizer):\n    for step, (x, y) in enumerate(loader):\n"
         "        x, y = x.to(DEVICE), y.to(DEVICE)\n        loss = model(x, y).sum()\n        optimizer.zero_grad()\n"
         "        loss.backward()\n"
         "        optimizer.step()\n{step}\n\nif __name__ == \"__main__\":\n"
         "    train(Pooler(), [], torch.optim.SGD(Pooler().parameters(), lr=0.1))\n")


def _trains(forward: str = "return boxes * scores", step: str = "", before: str = "") -> str:
    """An example project in one file: a module whose ``forward`` is ``forward``, a training loop that moves
    its batches to the device and runs it with ``step`` added to its body, and an entry point that reaches both;
    ``before`` is a function defined first, which nothing on the step calls."""
    return ("import torch\n\nDEVICE = \"npu\"  # a ported project: what tuning is for\n\n\n"
            + (before + "\n\n" if before else "") + _MODEL.format(forward=forward)
            + _LOOP.format(step=step + "\n" if step else ""))


class TuneRule(DocumentedRule):
    """A rule over the training step: ``findings`` sees every file's usages and syntax sites, the findings the
    other rules made, and what the step is."""

    category = Category.TUNE
    #: the row of ``curated/tuning.yaml`` its verdicts come from
    pitfall: str = ""
    #: whether ``findings`` reads the other tune rules' findings in ``judged`` (it then runs after them)
    reads_tune_findings: ClassVar[bool] = False

    def reads(self, usage: Usage) -> bool:
        """Whether ``findings`` looks at this usage (the cache keeps those apart from the rest)."""
        return False

    def findings(self, results: Sequence[FileResult], judged: Sequence[Finding], step: TrainingStep,
                 node_of: NodeOf, ctx: RuleContext) -> List[Finding]:
        raise NotImplementedError

    # ----------------------------------------------------------------------------------------- shared

    def verdicts(self, ctx: RuleContext, what: str, why: str, advice_key: Optional[str] = None,
                 status_of: Optional[PerTarget] = None, pitfall: Optional[str] = None) -> Dict[str, Verdict]:
        """Each target's verdict from the pitfall's row (``pitfall``, else the rule's own; or ``advice_key``'s
        switch row): ``what`` happens, its cost there, ``why`` it is on the step, the guides it comes from.
        ``status_of`` may give a target its own verdict, or its own words for what happens there."""
        table = tuning().switches if advice_key else tuning().pitfalls
        rows = table.get(advice_key or pitfall or self.pitfall, {})
        verdicts = {}
        for target in ctx.targets:
            own = status_of(target) if status_of is not None else None
            verdicts[target.id] = (own if isinstance(own, Verdict)
                                   else _verdict(rows.get(target.id), own or what, why))
        return verdicts

    def finding(self, path: str, span: Span, api: str, snippet: str, scope: str, verdicts: Dict[str, Verdict],
                occurrences: Counter, confidence: Confidence = Confidence.HEURISTIC) -> Finding:
        key = (path, api, snippet)
        occurrence = occurrences[key]
        occurrences[key] += 1
        return Finding(id=fingerprint(self.name, path, api, snippet, occurrence), rule=self.name,
                       category=self.category, path=path, span=span, api=api, snippet=snippet,
                       confidence=confidence, verdicts=verdicts, scope=scope)


def _verdict(row: Optional[TuneAdvice], what: str, why: str) -> Verdict:
    if row is None:
        return Verdict(Status.UNKNOWN, f"{what}; no performance guide for this target is bundled",
                       "operator_maps/curated/tuning.yaml")
    said = "" if row.vendor else " (the vendor's documentation does not name this pitfall; PyTorch's guide does, " \
                                 "for any accelerator)"
    message = f"{what}, {why}: {row.cost}{said}"
    return Verdict(Status(row.status), message, _cited(row), fix=fix_of(row.advice or None))


def _cited(row: TuneAdvice) -> str:
    """A verdict's source: the row's guides, ``title <url>`` each."""
    return "; ".join(f"{g.title} <{g.url}>" for g in row.guides) or "operator_maps/curated/tuning.yaml"


def _on_step(candidates: Iterable[Tuple[Finding, Extra]], step: TrainingStep,
             node_of: NodeOf) -> Iterator[Tuple[Finding, Extra, str]]:
    """The drafts in training code that sit on the step, with why."""
    for finding, extra in candidates:
        if not _training(finding):
            continue
        why = step.on_the_device(finding, node_of(finding))
        if why is not None:
            yield finding, extra, why


def _site_findings(rule: TuneRule, results: Sequence[FileResult], kinds: FrozenSet[TuneKind],
                   step: TrainingStep, node_of: NodeOf, ctx: RuleContext,
                   what: Callable[[TuneSite], str], api: Callable[[TuneSite], str],
                   pitfall: Callable[[TuneSite], Optional[str]] = lambda site: None) -> List[Finding]:
    occurrences: Counter = Counter()
    candidates: List[Tuple[Finding, TuneSite]] = []
    for result in results:
        for site in result.step.sites if result.step is not None else ():
            if site.kind in kinds:
                draft = rule.finding(result.file.rel, site.span, api(site), site.snippet, site.scope, {},
                                     occurrences)
                candidates.append((draft, site))
    found = []
    for draft, site, why in _on_step(candidates, step, node_of):
        found.append(replace(draft, verdicts=rule.verdicts(ctx, what(site), why, pitfall=pitfall(site))))
    return found


#: Each usage's pitfall row, from the usages on the step of one file and the file (``None``: the rule's own;
#: ``""``: no cost at all, a read of a tensor the code made on the host).
PitfallOf = Callable[[FileResult, Sequence[Usage]], List[Optional[str]]]


def _usage_findings(rule: TuneRule, results: Sequence[FileResult], picks: Callable[[Usage], Optional[str]],
                    step: TrainingStep, node_of: NodeOf, ctx: RuleContext,
                    pitfalls: Optional[PitfallOf] = None) -> List[Finding]:
    """A finding per usage ``picks`` describes (``picks`` returns what happens there), on the step, in line and
    column order (``tune_findings`` keeps the first on a line: ``x.cpu().numpy()`` is one read back).
    ``pitfalls`` gives the usages of a file on the step their pitfall rows (read once per such file)."""
    occurrences: Counter = Counter()
    candidates: List[Tuple[Finding, Tuple[str, FileResult, Usage]]] = []
    for result in results:
        for usage in usages_across_files(result):
            what = picks(usage) if rule.reads(usage) else None
            if what is not None:
                draft = rule.finding(result.file.rel, usage.span, usage.api, usage.snippet, usage.scope, {},
                                     occurrences, usage.confidence)
                candidates.append((draft, (what, result, usage)))
    on_step = list(_on_step(candidates, step, node_of))
    rows: Dict[int, Optional[str]] = {}
    if pitfalls is not None:
        by_file: Dict[int, Tuple[FileResult, List[Usage]]] = {}
        for _, (_, result, usage), _ in on_step:
            by_file.setdefault(id(result), (result, []))[1].append(usage)
        for result, usages in by_file.values():
            rows.update(zip(map(id, usages), pitfalls(result, usages)))
    costs = [c for c in on_step if rows.get(id(c[1][2])) != NOT_A_COST]
    return [replace(draft, verdicts=rule.verdicts(ctx, what, why, pitfall=rows.get(id(usage))))
            for draft, (what, _, usage), why in sorted(costs, key=lambda c: (c[0].path, c[0].span.cell or 0,
                                                                             c[0].span.line or 0, c[0].span.col or 0))]


#: A pitfall row that says the usage costs nothing (a read of a tensor the code made on the host).
NOT_A_COST = ""


_SHAPE_APIS = {
    "torch.nonzero": "`nonzero` returns as many rows as there are nonzero elements",
    "torch.Tensor.nonzero": "`nonzero` returns as many rows as there are nonzero elements",
    "torch.argwhere": "`argwhere` returns as many rows as there are nonzero elements",
    "torch.Tensor.argwhere": "`argwhere` returns as many rows as there are nonzero elements",
    "torch.masked_select": "`masked_select` returns as many elements as the mask selects",
    "torch.Tensor.masked_select": "`masked_select` returns as many elements as the mask selects",
    "torch.unique": "`unique` returns as many elements as there are distinct values",
    "torch.Tensor.unique": "`unique` returns as many elements as there are distinct values",
    "torch.unique_consecutive": "`unique_consecutive` returns as many elements as there are runs",
    "torch.Tensor.unique_consecutive": "`unique_consecutive` returns as many elements as there are runs",
}


_SYNC_APIS = {
    "torch.Tensor.item": "`.item()` reads a value back to the host",
    "torch.Tensor.tolist": "`.tolist()` reads the tensor back to the host",
    "torch.Tensor.numpy": "`.numpy()` reads the tensor back to the host",
    "torch.Tensor.cpu": "`.cpu()` copies the tensor to the host",
    "torch.cuda.synchronize": "`synchronize()` waits for the device",
    "torch.npu.synchronize": "`synchronize()` waits for the device",
}


def _again(rule: TuneRule, judged: Sequence[Finding], step: TrainingStep, node_of: NodeOf, ctx: RuleContext,
           says: Callable[[Finding], Optional[Tuple[str, Optional[PerTarget]]]]) -> List[Finding]:
    """Another rule's findings in training code that sit on the step, reported again as ``rule``'s: ``says``
    gives what happens there (and a target's own verdict, where it differs from the pitfall's row), or
    ``None`` for a finding this rule leaves alone."""
    occurrences: Counter = Counter()
    found = []
    for original in judged:
        if original.category == Category.TUNE or original.context != Context.TRAINING:
            continue
        said = says(original)
        why = step.on_the_device(original, node_of(original)) if said is not None else None
        if said is None or why is None:
            continue
        what, status_of = said
        verdicts = rule.verdicts(ctx, what, why, status_of=status_of)
        found.append(replace(rule.finding(original.path, original.span, original.api, original.snippet,
                                          original.scope, verdicts, occurrences, original.confidence),
                             ops=original.ops))
    return found


#: Every API a tune rule's ``reads`` may keep (a set lookup before the rules are asked, once per usage); the
#: CUDA switches are the assignments of ``torch.backends.*`` the resolver records (read lazily: no map at import)
TUNE_APIS = frozenset({*_SHAPE_APIS, "torch.where", "torch.repeat_interleave", "torch.Tensor.repeat_interleave",
                       *_SYNC_APIS, "torch.Tensor.to"})


def keeps_for_tuning(usage: Usage) -> bool:
    """Whether some tune rule reads this usage (``analyze`` keeps those apart in a cached result)."""
    if usage.api not in TUNE_APIS and not (usage.kind == _ASSIGN and usage.api.startswith("torch.backends.")):
        return False
    return any(rule.reads(usage) for rule in in_order())


def tune_findings(results: Sequence[FileResult], judged: Sequence[Finding], step: TrainingStep, node_of: NodeOf,
                  ctx: RuleContext, errors: Optional[List[str]] = None) -> List[Finding]:
    """Every tune rule's findings, rule by rule (``in_order``): one per line and rule, and only where some
    target's guide documents a cost (a ``partial`` verdict). With ``errors``, a rule that raises costs its own
    findings (noted there), not the scan's; without, the exception goes up."""
    found: List[Finding] = []
    for rule in in_order():  # a rule that reads the others' findings comes after them (the CUDA switches)
        lines = set()
        judge = partial(rule.findings, results, [*judged, *found], step, node_of, ctx)
        made = judge() if errors is None else findings_or_error(rule.name, judge, errors)
        for finding in made:
            line = (finding.path, finding.span.cell, finding.span.line)
            if line in lines:  # ``x1[mask], y1[mask] = ...``: one cause, one finding
                continue
            lines.add(line)
            if any(v.status == Status.PARTIAL for v in finding.verdicts.values()):
                found.append(finding)  # else no target's guide documents a cost there: nothing to act on
    return found


@lru_cache(maxsize=None)
def in_order() -> Tuple[TuneRule, ...]:
    """The tune rules as ``curated/tuning.yaml`` lists their pitfalls (the order their findings are listed in),
    a rule that reads the others' findings after them."""
    from .. import TUNE_RULES  # found once every rule file is imported

    listed = tuning().order
    return tuple(sorted(TUNE_RULES, key=lambda rule: (rule.reads_tune_findings, listed.index(rule.pitfall)
                                                      if rule.pitfall in listed else len(listed), rule.name)))


def _training(finding: Finding) -> bool:
    """Training code (not tests, not tooling): the step of a test is no one's step. Reachability from the
    entry points is judged with the other findings' (``scan`` drops those the entry points do not reach)."""
    return path_context(finding.path) == Context.TRAINING
