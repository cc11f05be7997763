"""The float dtypes a project computes in, from what its code says: a vendor note that leaves out bf16 bites
a project that casts to bf16 or autocasts in it, and no other."""

from __future__ import annotations

import re

from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Sequence, Set, Tuple

from ..model import Context, DtypeChoice, DtypeProfile, FileResult, Usage, UsageKind, ValueKind
from ..prefixes import longest
from ..resolve.modules import DTYPE_MENTIONS, HOST_INPUT, script_dir_heads
from ..rules.amp.no_mixed_precision import FRAMEWORKS  # they set both 16-bit dtypes from their configuration
from ..rules.base import usages_across_files
from ..contexts import path_context

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_DECORATOR = UsageKind.DECORATOR
_IMPORT = UsageKind.IMPORT

#: APIs whose use puts a dtype in the profile.
_NAMES: Dict[str, str] = {
    "torch.bfloat16": "bf16", "torch.Tensor.bfloat16": "bf16", "torch.nn.Module.bfloat16": "bf16",
    "torch.float16": "fp16", "torch.half": "fp16", "torch.Tensor.half": "fp16", "torch.nn.Module.half": "fp16",
    "torch.cuda.amp.GradScaler": "fp16", "torch.amp.GradScaler": "fp16",
}
#: of those, the casts: what they read is in the dtype it had (``X = G.bfloat16()`` reads ``G`` as it is), so a
#: vendor note on their input leaves out the dtype they choose only where something else chose it too
_CASTS = {"torch.Tensor.bfloat16": "bf16", "torch.Tensor.half": "fp16"}
#: autocast with no ``dtype=`` runs in float16 on CUDA (bf16 only where a dtype argument says so)
_AUTOCAST = ("torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast")


#: a value that asks a framework for bfloat16: Lightning's ``precision="bf16-mixed"``, accelerate's
#: ``mixed_precision="bf16"``, a ``dtype="bfloat16"`` string
_BF16_TEXT = re.compile(r"(?<![a-z0-9])(?:bf16|bfloat16)(?![a-z0-9])", re.IGNORECASE)
#: keywords that switch bfloat16 on with ``True`` (transformers' ``TrainingArguments(bf16=True)``)
_BF16_SWITCHES = frozenset({"bf16", "bf16_full_eval"})


def reads(usage: Usage) -> bool:
    """Whether ``dtype_profiles`` looks at this usage (the cache keeps those apart for the cross-file stages)."""
    return (usage.api in _NAMES or usage.api in _AUTOCAST
            or (usage.kind == _IMPORT and usage.api.startswith(FRAMEWORKS)) or _asks_for_bf16(usage))


def _asks_for_bf16(usage: Usage) -> bool:
    """Whether a call passes a framework's bfloat16 setting (``precision="bf16-mixed"``, ``bf16=True``)."""
    return any((arg.keyword in _BF16_SWITCHES and arg.value.text == "True")
               or (arg.value.kind == ValueKind.STR and _BF16_TEXT.search(arg.value.text or "") is not None)
               for arg in usage.args)  # (``dtype=torch.bfloat16`` is the name's own choice, where it is written)


def dtype_profiles(results: Sequence[FileResult]) -> "ProjectDtypes":
    """The profile of each file (by its path): that of the files it is connected to by imports, so that a
    repository of separate examples (pytorch/examples: one folder a project) gives each its own dtypes, and a
    library's ops take the dtypes of the training script that imports it. Only training code says what the
    project computes in (tests and tooling neither give evidence nor join projects). Files that are not Python
    (shell, requirements, kernels) take the whole repository's."""
    groups = _import_groups(results)
    # a framework sets bf16 only where the project asks it to (fp16 is what its mixed precision means else)
    asks_bf16 = {groups.find(r.file.rel) for r in results if path_context(r.file.rel) == Context.TRAINING
                 and any(_asks_for_bf16(u) for u in usages_across_files(r))}
    evidence: Dict[str, Dict[str, DtypeChoice]] = {}
    here: Dict[Tuple[str, str], Set[str]] = {}  # per file and scope, the 16-bit dtypes its own code computes in
    for result in sorted(results, key=lambda r: r.file.rel):
        found = evidence.setdefault(groups.find(result.file.rel), {})
        if path_context(result.file.rel) != Context.TRAINING:
            continue  # a test of the bf16 path does not make the project train in bf16
        bf16 = groups.find(result.file.rel) in asks_bf16
        for usage in sorted(usages_across_files(result), key=lambda u: (u.span.cell or 0, u.span.line or 0)):
            for dtype in _dtypes_of(usage, bf16):
                inferred = usage.kind == _IMPORT
                if not inferred:
                    here.setdefault((result.file.rel, usage.scope), set()).add(dtype)
                _prefer(found, DtypeChoice(dtype, usage.api, result.file.rel, usage.span, usage.snippet,
                                           usage.scope, inferred=inferred))
    profiles = {group: _profile(found) for group, found in evidence.items()}
    merged: Dict[str, DtypeChoice] = {}
    for found in evidence.values():
        for choice in found.values():
            _prefer(merged, choice)
    whole = _profile(merged)
    python = {r.file.rel for r in results if r.outline is not None}
    chosen = {place: frozenset(found) for place, found in here.items()}

    def chosen_here(path: str, scope: str) -> FrozenSet[str]:  # the function's own choices, and its module's
        return chosen.get((path, scope), frozenset()) | chosen.get((path, "<module>"), frozenset())

    return ProjectDtypes(lambda path: profiles.get(groups.find(path), whole) if path in python else whole,
                         tuple(c for profile in profiles.values() for c in profile.choices), chosen_here)


@dataclass(frozen=True)
class ProjectDtypes:
    """What each file's project computes in, and every place a project of the repository chooses a dtype."""

    of: Callable[[str], DtypeProfile]
    choices: Tuple[DtypeChoice, ...]
    #: the 16-bit dtypes the code of a file's scope (a function, or the module's top level) computes in: a vendor
    #: note on one bites the calls there as a condition met; elsewhere in the project it is a note to validate
    here: Callable[[str, str], FrozenSet[str]] = lambda path, scope: frozenset()


def _prefer(found: Dict[str, DtypeChoice], choice: DtypeChoice) -> None:
    """Keep the first choice of each dtype, unless only a framework's import said so and code does now."""
    kept = found.get(choice.dtype)
    if kept is None or (kept.inferred and not choice.inferred):
        found[choice.dtype] = choice


def _profile(choices: Dict[str, DtypeChoice]) -> DtypeProfile:
    ordered = sorted(choices.items())
    return DtypeProfile(frozenset({"fp32", *choices}), tuple(c for _, c in ordered))


class _Groups:
    """Union-find over file paths."""

    def __init__(self) -> None:
        self.parent: Dict[str, str] = {}

    def find(self, item: str) -> str:
        parent = self.parent.setdefault(item, item)
        while parent != item:
            grand = self.parent[parent]
            self.parent[item] = grand
            item, parent = parent, grand
        return item

    def join(self, a: str, b: str) -> None:
        first, second = self.find(a), self.find(b)
        if first != second:
            self.parent[max(first, second)] = min(first, second)


def _import_groups(results: Sequence[FileResult]) -> _Groups:
    """Files joined by the repository modules they import, as a script sees them (``script_dir_heads``)."""
    groups = _Groups()
    by_module = {r.outline.module: r.file.rel for r in results if r.outline is not None}
    heads = script_dir_heads(by_module)
    for result in results:
        if result.outline is None or path_context(result.file.rel) != Context.TRAINING:
            continue  # tests and tooling import several projects: they join none
        local = heads.get(result.outline.module, {})
        for name in result.outline.imports:
            head, dot, tail = name.partition(".")
            name = local[head] + dot + tail if head in local else name
            hit = longest(name, lambda prefix: prefix in by_module)
            if hit is not None:
                groups.join(result.file.rel, by_module[hit[0]])
    return groups


def _dtypes_of(usage: Usage, framework_bf16: bool) -> Sequence[str]:
    """The dtypes a usage chooses; a framework's import both 16-bit dtypes where its project asks one for bf16
    (``framework_bf16``), else fp16 (what the frameworks' mixed precision is unless told otherwise)."""
    if usage.context in DTYPE_MENTIONS or usage.context == HOST_INPUT:
        return ()  # ``x.dtype in (torch.float16, torch.bfloat16)`` tests, a cast of a host tensor: no device's dtype
    if usage.api in _NAMES:
        return (_NAMES[usage.api],)
    if _asks_for_bf16(usage):  # ``Trainer(precision="bf16-mixed")``: the project's own choice, written down
        return ("bf16",)
    if usage.api in _AUTOCAST and usage.kind in (_CALL, _DECORATOR):
        dtype = next((a.value for a in usage.args if a.keyword == "dtype"), None)
        if any(a.keyword == "enabled" and a.value.text == "False" for a in usage.args):
            return ()  # x_transformers' ``disable_autocast``: a region kept out of 16 bits, in fp32
        if dtype is None:
            return ("fp16",)
        return ()  # the dtype argument is a name of its own (torch.bfloat16): counted where it is written
    if usage.kind == _IMPORT and usage.api.startswith(FRAMEWORKS):
        return ("fp16", "bf16") if framework_bf16 else ("fp16",)
    return ()


def read_by(api: str, here: FrozenSet[str]) -> FrozenSet[str]:
    """The 16-bit dtypes a call of ``api`` reads, of ``here`` (those its function computes in): a cast to one
    (nequip's Muon step, ``G.bfloat16()``) reads its input in the dtype the input had, not the one it makes."""
    cast = _CASTS.get(api)
    return here - {cast} if cast in here else here
