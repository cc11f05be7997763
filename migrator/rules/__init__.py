"""The rule set: one rule a file under ``rules/<category>/``, found there (``discovered``), each with its own
valid and invalid examples. A usage's finding is made by the first rule that claims it, tier by tier
(``Claim``); the rules of one tier claim disjoint usages, so within a tier their order does not matter."""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter
from functools import lru_cache
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from ..maps.limits import for_call
from ..maps.load import release_tuple
from ..maps.signatures import api_parameters
from ..model import Category, Finding, GuardKind, Span, Status, TorchGate, Usage, UsageKind, Value, Verdict
from ..prefixes import longest
from ..resolve.modules import ENV_KEY, module_name_for, tests_the_device
from ..resolve.vocabulary import Vocabulary
from .adaptations import adapted
from .base import (Claim, DocumentedRule, ProjectIndex, ProjectRule, Rule, RuleContext, branch_beside,
                   dispatched_beside, fingerprint, in_a_cuda_method, is_backend_string, is_device_string,
                   normalised_snippet, on_cuda_branch, resolve_value)
from .tune import TuneRule

_LITERAL = UsageKind.LITERAL


def discovered(package: str = __name__) -> Iterator[DocumentedRule]:
    """An instance of every rule defined in a module of a category folder of ``package`` (``rules/device/
    device_call.py``): a class with a ``name`` that is a ``DocumentedRule``, defined in that module (not
    imported into it). A folder's ``__init__`` holds what its rules share, never a rule."""
    for category in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if not category.ispkg:
            continue
        folder = importlib.import_module(f"{package}.{category.name}")
        for module in pkgutil.iter_modules(folder.__path__):
            loaded = importlib.import_module(f"{folder.__name__}.{module.name}")
            for value in vars(loaded).values():
                if (isinstance(value, type) and issubclass(value, DocumentedRule)
                        and value.__module__ == loaded.__name__ and value.name):
                    yield value()


_FOUND = sorted(discovered(), key=lambda rule: rule.name)

#: The rules over one usage at a time, tier by tier (``Claim``), by name within a tier.
ALL_RULES: Tuple[Rule, ...] = tuple(sorted((r for r in _FOUND if isinstance(r, Rule)), key=lambda r: r.claim))
#: Rules that judge the whole project at once, after every file's own findings.
PROJECT_RULES: Tuple[ProjectRule, ...] = tuple(r for r in _FOUND if isinstance(r, ProjectRule))
#: The ``tune`` rules, run over the training step once the call graph is built (``rules/tune``), in the order
#: ``rules/tune.in_order`` gives them (the one their findings are listed in).
TUNE_RULES: Tuple[TuneRule, ...] = tuple(r for r in _FOUND if isinstance(r, TuneRule))
#: Findings the project stage makes from the others' settled verdicts (``project/dtype_roots.py``).
PROJECT_STAGE_RULES: Tuple[DocumentedRule, ...] = tuple(
    r for r in _FOUND if not isinstance(r, (Rule, ProjectRule, TuneRule)))
#: Every rule with its documentation and examples: what ``migrator rules`` and SARIF list.
DOCUMENTED_RULES: Tuple[DocumentedRule, ...] = (*ALL_RULES, *PROJECT_RULES, *PROJECT_STAGE_RULES, *TUNE_RULES)

#: Everything the rules need the resolver to record, from their own declarations.
VOCABULARY: Vocabulary = Vocabulary.union([rule.vocabulary for rule in DOCUMENTED_RULES])

__all__ = ["ALL_RULES", "Claim", "DOCUMENTED_RULES", "PROJECT_RULES", "ProjectIndex", "ProjectRule", "Rule",
           "RuleContext", "TUNE_RULES", "TuneRule", "VOCABULARY", "apply_rules", "discovered", "fingerprint"]


def apply_rules(usages: Iterable[Usage], path: str, ctx: RuleContext, rules: Tuple[Rule, ...] = ALL_RULES,
                errors: Optional[List[str]] = None) -> List[Finding]:
    """Findings for one file's usages, each with a fingerprint that survives unrelated edits. With ``errors``,
    a rule that raises on a usage is noted there (rule, API, line, exception) and the usage gets no finding,
    so one rule's bug costs one verdict, not the scan; without it, the exception goes up (``explain``)."""
    findings: List[Finding] = []
    occurrences: Counter = Counter()
    by_kind = _by_kind(rules)
    for usage in usages:
        for rule in by_kind.get(usage.kind) or by_kind[None]:
            try:
                finding = _judged(rule, usage, path, ctx, occurrences)
            except Exception as exc:
                if errors is None:
                    raise
                errors.append(f"rule {rule.name} failed on `{usage.api}` at line {usage.span.line}: "
                              f"{type(exc).__name__}: {exc}"[:300])
                break  # a lower rule's verdict would stand in for the one that failed: none, and say so
            if finding is not None:
                findings.append(finding)
                break
    return findings


def _judged(rule: Rule, usage: Usage, path: str, ctx: RuleContext, occurrences: Counter) -> Optional[Finding]:
    """``rule``'s finding on ``usage``, or ``None`` when the rule does not claim it."""
    verdicts = rule.check(usage, ctx)
    if verdicts is None:
        return None
    verdicts = adapted(_argument_notes_settled(verdicts, usage), usage, ctx.targets)
    unguarded = None
    if rule.category in _BRANCHED and usage.cuda_guard is not None and not rule.judges_its_test:
        judged_alone, verdicts = verdicts, on_cuda_branch(verdicts, usage, ctx)
        if usage.cuda_guard.key is not None and verdicts != judged_alone:
            unguarded = judged_alone  # the configuration decides whether the branch runs (project/configs)
    if rule.category in _FLOWS:
        verdicts = in_a_cuda_method(verdicts, usage, ctx)
    if rule.category in _FLOWS and usage.siblings and usage.kind != UsageKind.LITERAL:
        verdicts = _beside_branches(verdicts, usage, ctx)
    if usage.torch_gate is not None:
        verdicts = _on_torch_line(verdicts, usage.torch_gate, ctx)
    seen = (rule.name, usage.api, normalised_snippet(usage.snippet))
    occurrences[seen] += 1
    # the value this finding judges came through a name from where it was set: a device or backend (``x.to(DEVICE)``),
    # or an environment variable's key (``os.environ[CUDA_ENVVAR]``); resolved once, for the cause and its module
    came = _came_through(usage, ctx.project) if rule.category in _FLOWS \
        else _named_key(usage, ctx.project) if rule.category == Category.ENVIRONMENT else None
    return Finding(
        id=fingerprint(rule.name, path, usage.api, usage.snippet, occurrences[seen] - 1),
        rule=rule.name, category=rule.category_for(usage), path=path, span=usage.span, api=usage.api,
        snippet=usage.snippet, confidence=usage.confidence, verdicts=verdicts, scope=usage.scope,
        ops=rule.ops(usage, ctx), cause=_cause(usage, came) if rule.category in _FLOWS
        else came.origin if came is not None else None,
        cause_module=_cause_module(came, path, ctx),
        guard=usage.cuda_guard.span if usage.cuda_guard is not None
        and usage.cuda_guard.kind == GuardKind.DECIDED_BY_TEST else None,
        config_key=usage.config_key or (usage.cuda_guard.key if unguarded is not None and usage.cuda_guard else None),
        unguarded=unguarded,
        tests_device=usage.kind == _LITERAL and tests_the_device(usage.context),
    )


def _on_torch_line(verdicts, gate: TorchGate, ctx: RuleContext):
    """A use in a branch for another torch than the target's (Lightning's ``else: torch.cuda.amp.GradScaler()``
    for torch below 2.4, where the target's torch_npu pairs with torch 2.12): never run there."""
    out = dict(verdicts)
    for target in ctx.targets:
        verdict = out.get(target.id)
        line = _release(target.torch_line)
        if verdict is None or verdict.status == Status.SUPPORTED or line is None \
                or (line >= gate.version) == gate.at_least:
            continue
        wanted = f"{'at least' if gate.at_least else 'below'} {gate.version[0]}.{gate.version[1]}"
        out[target.id] = Verdict(Status.SUPPORTED, f"in a branch for torch {wanted}: {target.id} pairs with torch "
                                 f"{target.torch_line}, which takes the other one; nothing to change",
                                 "migrator torch-version analysis")
    return out


def _release(line: Optional[str]) -> Optional[Tuple[int, int]]:
    """A torch line's (major, minor) (``2.4`` -> ``(2, 4)``), or ``None``."""
    numbers = release_tuple(line or "")
    return (numbers[0], numbers[1]) if len(numbers) >= 2 else None


def _beside_branches(verdicts, usage: Usage, ctx: RuleContext):
    """A device call in an if/elif chain whose other tests name the target's device (``elif is_npu_available():``)
    is CUDA's branch of code that already dispatches per device: the target takes its own branch. In a chain with
    branches for other accelerators only, the target needs one of its own (``branch_beside``), not a rename."""
    out = dict(verdicts)
    for target in ctx.targets:
        if target.id in out and out[target.id].status != Status.SUPPORTED:
            out[target.id] = dispatched_beside(target, usage) or branch_beside(target, usage, out[target.id])
    return out


#: Categories whose findings judge a value that may come through a name (a device, a backend).
_FLOWS = frozenset({Category.DEVICE, Category.DISTRIBUTED, Category.AMP})
#: Categories judged by the branch they sit in: a device call, an operator too (``if x.is_cuda and ngpu > 1:
#: data_parallel(...) else: ...``: on a target whose tensors are not CUDA's the branch never runs), and a CUDA
#: library's call (mmseg's ``if torch.cuda.is_available() and pred.is_cuda: mmcv's sigmoid_focal_loss else: ...``)
_BRANCHED = _FLOWS | {Category.OP, Category.THIRD_PARTY}


def _cause(usage: Usage, value: Optional[Value]) -> Optional[Span]:
    """Where the name a call was made through was bound to the API, where the value an argument came through
    was set (``value``: ``device = 'cuda'`` for ``x.to(device)``), or the CUDA test that decides whether this body
    runs (``torch.cuda.is_available()``, or a device-type test with no other branch): its finding is the cause."""
    if usage.through is not None:  # ``get_current_device()`` after ``get_current_device = torch.cuda.current_device``
        return usage.through
    if value is not None:
        return value.origin
    guard = usage.cuda_guard
    return guard.span if guard is not None and guard.kind == GuardKind.DECIDED_BY_TEST else None


def _came_through(usage: Usage, project: ProjectIndex) -> Optional[Value]:
    """The first argument value that came through a name from where a device or backend was set (a constant of
    another module followed there: ``resolve_value``)."""
    for arg in usage.args:
        resolved = resolve_value(arg.value, project)
        for value in (resolved, *resolved.options):
            if value.via and value.origin is not None and value.origin.line and _names_cuda(value):
                return value
    return None


def _named_key(usage: Usage, project: ProjectIndex) -> Optional[Value]:
    """The key of an environment variable's use, where it came through a name set elsewhere (sample-factory's
    ``os.environ[CUDA_ENVVAR]`` after ``CUDA_ENVVAR = "CUDA_VISIBLE_DEVICES"``): every use is a site of that one
    name, the place to change."""
    if usage.kind not in _ENVIRONMENT:
        return None
    for arg in usage.args:
        if arg.keyword == ENV_KEY or (arg.keyword is None and usage.kind == UsageKind.ENV_READ):
            value = resolve_value(arg.value, project)
            if value.via and value.origin is not None and value.origin.line and value.text == usage.context:
                return value
    return None


#: the kinds of an environment variable's use from Python
_ENVIRONMENT = frozenset({UsageKind.ENV, UsageKind.ENV_READ})


def _cause_module(value: Optional[Value], path: str, ctx: RuleContext) -> Optional[str]:
    """The repository module the value an argument came through (``value``) was set in, when that is another
    module than ``path``'s (``colbert.parameters`` for ``.to(DEVICE)`` after ``from colbert.parameters import
    DEVICE``)."""
    if value is None or value.via is None or "." not in value.via:
        return None
    found = longest(value.via.rpartition(".")[0], lambda prefix: prefix in ctx.project.modules)
    return found[0] if found is not None and found[0] != module_name_for(path) else None


def _names_cuda(value: Value) -> bool:
    """A device or backend value a rule judges (``'cuda:0'``, ``torch.device('cuda')``, ``'nccl'``, or a choice
    with one among its options: ``'cuda' if ... else 'cpu'``), not any value that came through a name
    (``args.gpu``)."""
    return is_device_string(value.text) or is_backend_string(value.text) or any(
        _names_cuda(option) for option in value.options)  # ``torch.device(f"cuda:{r}" if ok else "cpu")``


def _argument_notes_settled(verdicts: Dict[str, Verdict], usage: Usage) -> Dict[str, Verdict]:
    """The vendor notes on an argument settled by what this call passes (``maps/limits.for_call``)."""
    if not any(v.limits for v in verdicts.values()):
        return verdicts
    parameters = api_parameters(usage.api)
    return {target: for_call(v, usage.args, parameters) for target, v in verdicts.items()}


@lru_cache(maxsize=8)
def _by_kind(rules: Tuple[Rule, ...]) -> Dict[Optional[str], Tuple[Rule, ...]]:
    """For each usage kind a rule names, the rules that may claim it, tier by tier; under ``None``, the
    rules that take any kind (what a kind no rule names gets). The tiers order them whatever order ``rules``
    comes in: a rule passed first does not claim before a lower tier."""
    rules = tuple(sorted(rules, key=lambda rule: rule.claim))  # stable: the given order within a tier
    kinds = {kind for rule in rules for kind in rule.kinds or ()}
    table: Dict[Optional[str], Tuple[Rule, ...]] = {
        kind: tuple(rule for rule in rules if rule.kinds is None or kind in rule.kinds) for kind in kinds}
    table[None] = tuple(rule for rule in rules if rule.kinds is None)
    return table
