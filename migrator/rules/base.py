"""What every rule shares: the rule shape, the context it reads, the verdict builders, and what a CUDA name
does on each kind of target (``CudaNames``).

A rule looks at one ``Usage`` and either claims it, returning a verdict per target, or passes
(``None``). Each rule documents itself in its docstring (``rules/docs.py``: what it does, why, fix
safety) and carries examples (``rules/examples.py``): code it must leave alone and code it must report,
with each target's verdict and the output of ``fix``. The test suite runs them all.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Callable, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..devices import ACCELERATORS
from ..maps.coverage import verdict_from_list
from ..maps.limits import clip, for_call, parse_note
from ..maps.load import TargetMap, ThirdParty, same_as_cuda
from ..maps.signatures import api_parameters
from ..model import (Category, Edit, EditKind, Evidence, ExtensionBuild, FileResult, Finding, Grade, GuardKind,
                     LimitKind, Manual, Status, Usage, UsageKind, Value, ValueKind, Verdict, fix_of)
from ..prefixes import longest
from ..resolve.modules import PLACED_BY
from ..resolve.vocabulary import Vocabulary
from .examples import Example

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_ASSIGN = UsageKind.ASSIGN
_ATTRIBUTE = UsageKind.ATTRIBUTE
_CALL = UsageKind.CALL
_CHOICE = ValueKind.CHOICE
_DECORATOR = UsageKind.DECORATOR
_DEVICE = ValueKind.DEVICE
_FSTR = ValueKind.FSTR
_LITERAL = UsageKind.LITERAL
_METHOD = UsageKind.METHOD
_OTHER = ValueKind.OTHER
_REF = ValueKind.REF
_STR = ValueKind.STR

Verdicts = Dict[str, Verdict]
#: ``cuda``, ``cuda:0``, ``cuda:{}`` (an f-string's template): a CUDA device string.
DEVICE_STRING = re.compile(r"^cuda(:(\d+|\{\}))?$")
#: The NCCL backend name, as ``init_process_group`` takes it.
BACKEND_STRING = re.compile(r"^(nccl|NCCL)$")


def is_device_string(text: Optional[str]) -> bool:
    return text is not None and bool(DEVICE_STRING.match(text))


def is_backend_string(text: Optional[str]) -> bool:
    return text is not None and bool(BACKEND_STRING.match(text))


@dataclass(frozen=True)
class ProjectIndex:
    """Cross-file facts rules need: constants by qualified name, extensions, triton kernels."""

    constants: Mapping[str, Value] = field(default_factory=dict)
    extensions: Mapping[str, ExtensionBuild] = field(default_factory=dict)  # module name -> build
    extension_aliases: Mapping[str, str] = field(default_factory=dict)  # last component -> module name
    library_namespaces: FrozenSet[str] = frozenset()  # TORCH_LIBRARY namespaces defined in C++
    triton_kernels: FrozenSet[str] = frozenset()
    #: of ``triton_kernels``, those decorated through a name another module binds only where Triton imports
    #: (DeepSpeed's ``from deepspeed.ops.triton_ops._triton import triton``, ``None`` without it)
    optional_kernels: FrozenSet[str] = frozenset()
    modules: FrozenSet[str] = frozenset()  # Python modules of the scanned repo
    #: the functions and classes their modules define at their top (read only where an extension is built)
    defined: FrozenSet[str] = frozenset()

    def is_repo_module(self, qualname: str) -> bool:
        """True when ``qualname`` is (inside) a module of the scanned repo, e.g. mmcv's own ``mmcv.ops``."""
        return longest(qualname, lambda prefix: prefix in self.modules) is not None

    def extension_of(self, api: str) -> Optional[str]:
        if not self.extensions and not self.extension_aliases:  # most repos build none: asked of every usage
            return None
        hit = longest(api, lambda name: name in self.extensions)
        if hit:
            return hit[0]
        alias = longest(api, lambda name: self._built_as(name))
        return alias[2] if alias else None

    def _built_as(self, prefix: str) -> Optional[str]:
        """The extension ``prefix`` names when one is a dotted tail of the other: built as ``model._fused`` and
        imported from the scan root as ``trainer.model._fused``, or loaded by its last name (mmcv's
        ``load_ext('_ext')``). A config object that shares the last component (detectron2's
        ``config.defaults._C``), torch's own ``torch._C`` or a function a module of the repo defines (torchani's
        ``neighbors.cell_list``, beside its ``cell_list`` extension) is not it."""
        module = self.extension_aliases.get(prefix.rpartition(".")[2])
        if module is None or prefix.startswith("torch.") or prefix in self.defined:
            return None
        name = prefix.split(">.", 1)[1] if prefix.startswith("<") else prefix  # "<loaded>._ext": by a loader
        tail = name == module or name.endswith("." + module) or module.endswith("." + name)
        return module if tail else None


@dataclass(frozen=True)
class RuleContext:
    targets: Tuple[TargetMap, ...]
    third_party: ThirdParty
    project: ProjectIndex = ProjectIndex()


class DocumentedRule:
    """What every rule carries, whatever it judges: its name, its docs (the docstring, ``rules/docs.py``),
    its examples, and what it needs the resolver to record."""

    name: str = ""
    category: Category = Category.OP
    summary: str = ""
    #: code the rule must leave alone (``Valid``) and must report (``Invalid``), checked by the tests
    examples: ClassVar[Tuple[Example, ...]] = ()
    #: What this rule needs the resolver to record (see ``resolve/vocabulary.py``).
    vocabulary: ClassVar[Vocabulary] = Vocabulary()


class Claim(IntEnum):
    """Which rule makes a usage's finding when rules of several tiers would claim it: the lowest tier's (a call
    into the repository's own extension is that, not a torch operator). The rules of one tier claim disjoint
    usages (``tests/test_rule_examples.py`` holds every example to it), so a tier is a set, not an order."""

    #: the repository's own CUDA operators: their builds, calls into them, registrations and kernels
    PROJECT_OPERATOR = 1
    #: a third-party CUDA library, triton, ``torch.compile``, torchvision's CUDA operators
    LIBRARY = 2
    #: torch's CUDA-named APIs and settings (device, mixed precision, distributed), and the environment's
    #: (variables, tools, base images, pinned wheels, CUDA packages)
    CUDA_API = 3
    #: a dtype some target computes in differently (``torch.cuda.DoubleTensor`` is a device call first)
    DTYPE = 4
    #: any other torch call: the aten operators behind it
    OPERATOR = 5


class Rule(DocumentedRule):
    """A rule over one usage at a time. Subclasses set the class attributes and implement ``check``."""

    #: The tier this rule claims usages in (``Claim``); a rule of a lower tier that claims a usage makes its
    #: finding instead.
    claim: ClassVar[Claim] = Claim.OPERATOR
    #: The usage kinds (``call``, ``method``, ``literal``, ...) ``check`` may claim; ``None``: any. Only these
    #: reach the rule (``apply_rules`` dispatches on them).
    kinds: ClassVar[Optional[FrozenSet[str]]] = None
    #: Whether the call stays a torch call once its rewrite is made (only an argument changes: ``torch.zeros(
    #: device='cuda')``), so a scan after the fix judges it as an operator; else the rewrite leaves nothing to
    #: report (``torch.cuda.synchronize()`` becomes ``torch_npu.npu.synchronize()``). The plan's readiness after
    #: each phase counts the one as running and drops the other, as the scan after it will.
    call_stays: ClassVar[bool] = False
    #: Whether the rule judges the CUDA test its usage sits in itself (``version-cuda``: what the branch does
    #: decides), so the guard analysis (``on_cuda_branch``) leaves its verdicts as they are.
    judges_its_test: ClassVar[bool] = False

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        raise NotImplementedError

    def ops(self, usage: Usage, ctx: RuleContext) -> Tuple[str, ...]:
        """The aten ops behind a claimed usage (operator rules only)."""
        return ()

    def category_for(self, usage: Usage) -> Category:
        return self.category


class ProjectRule(DocumentedRule):
    """A rule over the whole project at once, run after every file's own findings (``PROJECT_RULES``):
    ``scan`` runs it, ``check`` (which sees a few files) does not. It reads each file's usages through
    ``usages_across_files``, and says which in ``reads``."""

    def reads(self, usage: Usage) -> bool:
        """Whether ``findings`` looks at this usage (the cache keeps those apart from the rest)."""
        raise NotImplementedError

    def findings(self, results: Sequence[FileResult], ctx: RuleContext) -> List[Finding]:
        raise NotImplementedError


def findings_or_error(name: str, judge: Callable[[], Sequence[Finding]], errors: List[str]) -> List[Finding]:
    """A project-wide rule's findings; when it raises (a bug in migrator, not in the repository), none, and
    what failed goes to ``errors`` for the report (``Report.rule_errors``): the scan goes on."""
    try:
        return list(judge())
    except Exception as exc:  # noqa: BLE001 - any bug in one rule costs that rule's findings, not the scan
        errors.append(f"rule {name} failed: {type(exc).__name__}: {exc}"[:300])
        return []


def usages_across_files(result: FileResult) -> Sequence[Usage]:
    """The usages a cross-file stage may read of one file: the few kept apart for them when the file comes
    from the cache (so the rest need not load), else all of them."""
    return result.usages if result.shared_usages is None else result.shared_usages


# ------------------------------------------------------------------------------------------ values


def resolve_value(value: Value, project: ProjectIndex, depth: int = 0) -> Value:
    """Follow a ``ref`` to a constant defined in another module of the repo."""
    if value.kind == _REF and value.ref is not None and value.ref in project.constants and depth < 5:
        target = resolve_value(project.constants[value.ref], project, depth + 1)
        return Value(target.kind, target.text, target.options, target.ref, target.origin, value.ref)
    return value


def cuda_device_in(value: Value, project: ProjectIndex) -> Optional[Value]:
    """The part of ``value`` that names a CUDA device (a string, an f-string, a torch.device), if any."""
    value = resolve_value(value, project)
    if value.from_default:
        return None  # reported where the default is written, not at each use of the parameter
    if value.kind in (_STR, _FSTR, _DEVICE) and is_device_string(value.text):
        return value
    if value.kind in (_CHOICE, _DEVICE):
        for option in value.options:
            found = cuda_device_in(option, project)
            if found is not None:
                if found.via is None and value.via is not None:  # keep where the name was set
                    found = Value(found.kind, found.text, found.options, found.ref, value.origin, value.via)
                return found
    return None


def backend_in(value: Value, project: ProjectIndex) -> Optional[Value]:
    value = resolve_value(value, project)
    if value.kind == _STR and value.text and ("nccl" in value.text.lower().split(":")[-1].split(",")[0]
                                               or is_backend_string(value.text)):
        return value
    if value.kind == _STR and value.text and "nccl" in value.text.lower():
        return value
    if value.kind == _CHOICE:
        for option in value.options:
            found = backend_in(option, project)
            if found is not None:
                return found
    if value.kind == _OTHER and value.text and ('"nccl"' in value.text or "'nccl'" in value.text):
        return Value(ValueKind.STR, "nccl", origin=value.origin, via=value.via or value.text)
    return None


def renamed_backend(text: str, backend: str, device: str) -> str:
    """``nccl`` -> ``hccl``; in a per-device backend string (``"cpu:gloo,cuda:nccl"``, what
    ``init_process_group`` takes since torch 2.0) the device of each NCCL pair is renamed too:
    ``"cpu:gloo,npu:hccl"``, never ``"cpu:gloo,cuda:hccl"`` (no ``cuda`` device to bind it to)."""
    def one(part: str) -> str:
        head, colon, name = part.rpartition(":")
        renamed = name.replace("nccl", backend).replace("NCCL", backend.upper())
        if colon and renamed != name and head.strip().lower() == "cuda":
            head = head.replace("cuda", device).replace("CUDA", device)
        return f"{head}{colon}{renamed}"
    return ",".join(one(part) for part in text.split(","))


def where(value: Value) -> str:
    """' (from DEVICE, line 12)' when the value came through a name."""
    if value.via and value.origin and value.origin.line:
        cell = f"cell {value.origin.cell}, " if value.origin.cell is not None else ""
        return f" (set through {value.via} at {cell}line {value.origin.line})"
    return ""


# ---------------------------------------------------------------------------------------- verdicts


def per_target(ctx: RuleContext, build: Callable[[TargetMap], Verdict]) -> Verdicts:
    return {target.id: build(target) for target in ctx.targets}


def on_cuda_branch(verdicts: Verdicts, usage: Usage, ctx: RuleContext) -> Verdicts:
    """A device call or an operator in the body of ``if device.type == "cuda": ... else: ...`` runs only on a CUDA
    device: on a target that renames the device the other branch runs, so the call needs no change there, and
    nor does the test. A runtime that keeps CUDA names takes the branch, and keeps its verdict. (With no other
    branch the test decides what runs: its finding is the cause, ``rules._cause``.)"""
    guard = usage.cuda_guard
    if guard is None or guard.kind == GuardKind.DECIDED_BY_TEST:
        return verdicts
    if guard.kind == GuardKind.TEST:
        why = ("a test for CUDA that only chooses CUDA's special case: another branch (`elif`/`else`, the code "
               "after it, the body of a `not x.is_cuda`) is written for every device, or the case only checks "
               "CUDA's own state; on {target} the test is False and that other way runs; nothing to change")
    else:
        why = (f"inside a branch taken only on a CUDA device (the test at line {guard.span.line}), beside another "
               "branch: on {target} the device is `{device}`, this branch is skipped and the other one runs")
    out = dict(verdicts)
    for target in ctx.targets:
        verdict = verdicts.get(target.id)
        if verdict is None or verdict.status == Status.SUPPORTED or not cuda_names(target).rewritten:
            continue
        out[target.id] = Verdict(Status.SUPPORTED, why.format(target=target.id, device=target.device_to),
                                 "migrator guard analysis")
    return out


def placed_by(target: TargetMap, usage: Usage, verdict: Verdict) -> Verdict:
    """``torch.device('cuda') if x.is_cuda else torch.device('cpu')`` (``PLACED_BY``): on a target that names its
    device otherwise, ``x`` is there, the choice reads "cpu" and what is made with it lands on the host beside
    ``x`` (a device mismatch at the first op that mixes them). Renaming the string alone leaves the test False;
    what the choice spells is ``x.device``, on every device."""
    if not (usage.context or "").startswith(PLACED_BY) or not cuda_names(target).rewritten:
        return verdict
    tensor = (usage.context or "")[len(PLACED_BY):].strip()
    if usage.api.endswith("Tensor"):  # ``torch.cuda.FloatTensor if mu.is_cuda else torch.FloatTensor``
        chosen, instead = "a tensor type", f"torch.tensor(..., device={tensor}.device)"
    else:
        chosen, instead = "a device", f"{tensor}.device"
    return Verdict(Status.REWRITE, f"{chosen} chosen as CUDA's or the host's by where `{tensor}` is: on {target.id} "
                   f"`{tensor}` is on `{target.device_to}`, the choice reads the host's, and what is made with it "
                   f"lands on the host beside `{tensor}`; use `{instead}`, which is right on every device",
                   "migrator guard analysis", fix=Manual(instead))


def in_a_cuda_method(verdicts: Verdicts, usage: Usage, ctx: RuleContext) -> Verdicts:
    """A device use inside a class's own ``cuda()`` method (pyannote's ``Pipeline.cuda()``: ``return
    self.to(torch.device("cuda", device))``), CUDA's shortcut beside its ``to()``: code that trains on a target
    that renames the device moves the object with ``.to(device)``, and a call of ``.cuda()`` is found where it
    is made. A runtime that keeps CUDA names keeps its verdict."""
    parts = usage.scope.split(".")
    if len(parts) < 3 or parts[-1] != "cuda" or not parts[-2][:1].isupper():
        return verdicts
    out = dict(verdicts)
    for target in ctx.targets:
        verdict = verdicts.get(target.id)
        if verdict is None or verdict.status == Status.SUPPORTED or not cuda_names(target).rewritten:
            continue
        out[target.id] = Verdict(Status.SUPPORTED, f"inside {parts[-2]}'s own `cuda()` method, CUDA's shortcut: "
                                 f"code that trains on {target.id} does not call it, and a call of `.cuda()` is "
                                 "reported where it is made; nothing to change here", "migrator guard analysis")
    return out


def _patcher_swap(target: TargetMap, usage: Usage, api: str) -> Optional[Verdict]:
    """What the vendor's own runtime patcher swaps ``api`` for (``transfer_to_npu``: ``Tensor.is_cuda`` ->
    ``Tensor.is_npu``), where the device map names no equivalent: the vendor's word that this is its twin. A
    rewrite to make by hand (the test it is in decides what runs: flipped alone it may wake CUDA-only code)."""
    from ..shim import shims

    shim = shims().get(target.id)
    if shim is None:
        return None
    to = shim.swapped.get(api)
    if to is None or to.startswith("_"):
        return None
    leaf, new = api.rsplit(".", 1)[-1], to.rsplit(".", 1)[-1]
    suggestion = usage.snippet.replace(f".{leaf}", f".{new}", 1) if usage.kind in (_METHOD, _ATTRIBUTE) else to
    return Verdict(Status.REWRITE, f"use `{to}`: the vendor's runtime patcher swaps `{api}` for it ({shim.source}); "
                   f"false on a {target.device_to} tensor as written{needs_import(target)}", shim.source,
                   fix=fix_of(suggestion))


_DEVICE_TOKENS = re.compile(r"cuda|cudnn|npu|mlu|nccl|hccl|cncl|cnnl")


def _same_name_but_device(api: str, to: str) -> bool:
    """``to`` is ``api``'s twin with only its device spelled otherwise (``torch.cuda.synchronize`` ->
    ``torch_npu.npu.synchronize``, ``CUDAGraph`` -> ``NPUGraph``), not another API the vendor maps it to
    (``torch.cuda.DoubleTensor`` -> ``torch.npu.FloatTensor``: float64 becomes float32)."""
    def leaf(name: str) -> str:
        return _DEVICE_TOKENS.sub("", name.rsplit(".", 1)[-1].lower())
    return leaf(api) == leaf(to)


def _differs_here(note: str, api: str, usage: Usage) -> Tuple[str, ...]:
    """The clauses of a renamed API's vendor note that can make it behave otherwise than the CUDA original
    at this call: all but an argument the call leaves at its default and the docs' "fp32 only" placeholder.
    ``torch.cuda.get_device_capability`` returns what an environment variable says (``None`` unset) on
    torch_npu: renamed as is, ``get_device_capability(0)[0]`` raises."""
    parameters = api_parameters(api)
    limits = for_call(Verdict(Status.SUPPORTED, "", "", limits=parse_note(note, parameters)), usage.args, parameters)
    return tuple(clip(limit.text) for limit in limits.limits
                 if limit.kind != LimitKind.TEMPLATE
                 and not (limit.kind == LimitKind.ARGUMENT and limit.bites is False))


def with_role(verdicts: Verdicts, usage: Usage) -> Verdicts:
    """A literal's verdicts with its role appended to each message (``(compared with x.device.type)``,
    ``(default of parameter device)``): where the string sits says what changing it does."""
    if not usage.context:
        return verdicts
    return {k: replace(v, message=f"{v.message} ({usage.context})") for k, v in verdicts.items()}


def needs_import(target: TargetMap) -> str:
    return f"; needs `{target.import_first}` before use" if target.import_first else ""


def renamed_call(snippet: str, new_name: str, kind: str) -> str:
    """``torch.cuda.synchronize()`` with ``torch_npu.npu.synchronize`` -> ``torch_npu.npu.synchronize()``."""
    if kind in (_CALL, _DECORATOR) and "(" in snippet:
        return new_name + snippet[snippet.index("("):]
    if kind == _ASSIGN and "=" in snippet:
        return new_name + " " + snippet[snippet.index("="):]
    return new_name


def runs_on_a_note(quote: str, source: str) -> Verdict:
    """``supported``, resting on a note: the call runs as written on the target (a no-op, an unread flag, a test
    that decides nothing there); what its twin would do is advice in ``quote``, to validate, not work."""
    return Verdict(Status.SUPPORTED, quote, source, evidence=(Evidence(Grade.NOTE, source, quote),))


def rename_verdict(target: TargetMap, usage: Usage, api: Optional[str] = None) -> Verdict:
    """Verdict for a CUDA-named API on a target, from its device map (docs list, transfer table)."""
    return cuda_names(target).api(target, usage, api or usage.api)


def _rename_edit(api: str, new: str, usage: Usage) -> Optional[Edit]:
    if usage.kind == _METHOD:  # torch.Tensor.cuda -> torch.Tensor.npu: rename the method where it is called
        old_name, new_name = api.rsplit(".", 1)[-1], new.rsplit(".", 1)[-1]
        return Edit(EditKind.METHOD, old_name, new_name) if api.rsplit(".", 1)[0] == new.rsplit(".", 1)[0] else None
    if usage.kind in (_CALL, _ATTRIBUTE, _ASSIGN, _DECORATOR):
        return Edit(EditKind.NAME, api, new)
    if usage.kind == _LITERAL and usage.args:  # 'torch.cuda.HalfTensor' -> 'torch.npu.HalfTensor'
        return literal_edit(usage.args[0].value, api, registered_type_name(new))
    return None


def registered_type_name(to: str) -> str:
    """The name a legacy tensor type answers to in a string (``x.type('torch.npu.HalfTensor')``): ``torch.<device>.
    <Type>``, whatever module holds the class (torch_npu's ``torch_npu.npu.HalfTensor`` is registered as
    ``torch.npu.HalfTensor``: torch_npu/csrc/utils/TensorType.cpp, as torch's own ``torch.cuda.HalfTensor``)."""
    parts = to.split(".")
    return ".".join(["torch", *parts[-2:]]) if len(parts) >= 3 else to


def literal_edit(value: Value, old: str, new: str) -> Optional[Edit]:
    """Replace a literal where it is written: in the call itself, or where the constant it came through is set.

    An f-string's ``old``/``new`` are the words inside its text (``cuda`` -> ``npu`` in ``f"cuda:{rank}"``).
    ``None`` when the value is not a literal, or came through a name with no known place.
    """
    if value.kind not in (_STR, _FSTR) or (value.via is not None and value.origin is None):
        return None
    kind = EditKind.FSTRING if value.kind == ValueKind.FSTR else EditKind.STRING
    return Edit(kind, old, new, at=value.origin if value.via else None)


def replaced_literal(snippet: str, text: str, new: str) -> str:
    """``snippet`` with the string literal ``text`` written as ``new``: quoted in code, or a configuration file's
    plain ``key: value`` (``device: cuda`` -> ``device: npu``). The same snippet when it holds neither."""
    out = snippet.replace(f"'{text}'", f"'{new}'").replace(f'"{text}"', f'"{new}"')
    if out == snippet and snippet.endswith(f": {text}"):
        out = snippet[:-len(text)] + new
    return out


def device_string_verdict(target: TargetMap, value: Value, snippet: str, what: str = "CUDA device") -> Verdict:
    return cuda_names(target).device_string(target, value, snippet, what)


def backend_verdict(target: TargetMap, value: Value, snippet: str) -> Verdict:
    return cuda_names(target).backend(target, value, snippet)


def literal_verdict(usage: Usage, judge: Callable[[TargetMap], Verdict]) -> Callable[[TargetMap], Verdict]:
    """``judge`` for a device or backend literal, except on a target whose own spelling the code already
    writes beside it (``dispatched_beside``); beside other accelerators' names only, the literal is one entry of
    a list of the devices the code allows (``listed_beside``)."""
    return lambda target: dispatched_beside(target, usage) or listed_beside(target, usage, judge(target))




def listed_beside(target: TargetMap, usage: Usage, verdict: Verdict) -> Verdict:
    """``device_type != "cuda" and device_type != "xpu"`` (torchtune's activation offloading), ``{"cuda", "mps"}``:
    the code lists the devices a feature is allowed on. Renaming ``"cuda"`` would take CUDA off the list; what
    the target needs is its own name added beside it, where the feature works there: a manual change."""
    others = _other_accelerators(target, usage, verdict)
    if not others:
        return verdict
    listed = ", ".join(repr(d) for d in ["cuda", *others])
    return replace(verdict, message=f"the code lists the devices it allows here ({listed}): add '{target.device_to}' "
                   f"beside them where the feature works on {target.id}, rather than renaming 'cuda' (which would "
                   f"drop CUDA){needs_import(target)}",
                   fix=fix_of(f"add '{target.device_to}' beside 'cuda' in this test"))


def branch_beside(target: TargetMap, usage: Usage, verdict: Verdict) -> Verdict:
    """``if torch.cuda.is_available(): ... elif is_torch_npu_available(): ... elif torch.xpu.is_available():``
    (sentence-transformers' ``get_device_name``) on a target the chain has no branch for: the chain picks a
    device per accelerator, so renaming CUDA's test would drop CUDA's branch; the target needs a branch of its
    own beside the others: a manual change."""
    others = _other_accelerators(target, usage, verdict)
    if not others:
        return verdict
    return replace(verdict, message=f"the code picks a device per accelerator here (branches for "
                   f"{', '.join(repr(d) for d in others)} beside CUDA's) and none for {target.id}: add a branch "
                   f"for '{target.device_to}' beside them, rather than renaming CUDA's test (which would drop "
                   f"CUDA){needs_import(target)}",
                   fix=fix_of(f"add a branch for '{target.device_to}' beside CUDA's"))


def _other_accelerators(target: TargetMap, usage: Usage, verdict: Verdict) -> List[str]:
    """The other accelerators a literal or a test is written beside, when renaming it would be the verdict's fix
    on a target that does not answer to CUDA's names."""
    if verdict.status != Status.REWRITE or target.device_to == "cuda":
        return []
    return sorted({s.split(":", 1)[0] for s in usage.siblings} & ACCELERATORS - {target.device_to})


#: The source of a verdict that rests on the project's own per-device code (``dispatched_beside``).
PROJECT_OWN = "the project's own code"


def dispatched_beside(target: TargetMap, usage: Usage) -> Optional[Verdict]:
    """A ``"cuda"`` / ``"nccl"`` written beside the target's own spelling (``{"cuda": "nccl", "npu": "hccl"}``,
    ``device.type in {"cuda", "npu"}``, ``t if t in {"npu", "xpu"} else "cuda"``) is the CUDA branch of code that
    already dispatches per device: the target takes its own branch, and this one needs no change there."""
    if target.device_to == "cuda":  # a target that answers to CUDA's spellings: the literal is its own
        return None
    named = sorted({s for s in usage.siblings if s.split(":", 1)[0] == target.device_to})  # its device, not a
    # backend name another device shares (Habana's "hpu" also runs "hccl")
    if not named:
        return None
    return Verdict(Status.SUPPORTED, f"already portable: the code names {', '.join(repr(n) for n in named)} beside "
                   f"it, the branch that serves {target.id}; this one is CUDA's own", PROJECT_OWN,
                   evidence=(Evidence(Grade.PROOF, PROJECT_OWN,
                                      f"{usage.snippet} beside {', '.join(named)}"),))


def documented_verdict(target: TargetMap, api: str, unknown_message: str) -> Verdict:
    """Verdict from the vendor's Python-API list (Ascend docs, Cambricon torch_api.yaml)."""
    found = target.documented(api)
    if found is None:
        return cuda_names(target).unlisted_api(target, api, unknown_message)
    return verdict_from_list(target, api, found)


def first_arg(usage: Usage, keywords: Sequence[str], position: Optional[int] = 0) -> Optional[Value]:
    for arg in usage.args:
        if arg.keyword in keywords:
            return arg.value
    positional = [a for a in usage.args if a.keyword is None]
    if position is not None and len(positional) > position:
        return positional[position].value
    return None


def fingerprint(rule: str, path: str, api: str, snippet: str, occurrence: int) -> str:
    """Stable id: no line numbers, so moving code or adding lines above a finding keeps it."""
    digest = hashlib.sha256("\x1f".join((rule, path, api, normalised_snippet(snippet), str(occurrence))).encode())
    return digest.hexdigest()[:16]


def normalised_snippet(snippet: str) -> str:
    return re.sub(r"\s+", "", snippet)


# ------------------------------------------------------------------------------ what CUDA names do


class CudaNames:
    """What a CUDA name in user code does on a target. The target's data row says which kind applies
    (``cuda_names`` in ``curated/targets.yaml``); the verdict builders above ask it, so no rule tests
    for a runtime. A runtime that treats CUDA names a third way is one more subclass in ``CUDA_NAMES``."""

    #: whether code must change its CUDA spellings to run (what ``migrator fix`` rewrites)
    rewritten: ClassVar[bool] = True

    def api(self, target: TargetMap, usage: Usage, api: str) -> Verdict:
        """A CUDA-named API (``torch.cuda.synchronize``, ``Tensor.cuda``)."""
        raise NotImplementedError

    def device_string(self, target: TargetMap, value: Value, snippet: str, what: str) -> Verdict:
        """A CUDA device string (``"cuda:0"``), written here or set through a name."""
        raise NotImplementedError

    def backend(self, target: TargetMap, value: Value, snippet: str) -> Verdict:
        """The ``nccl`` collective backend name."""
        raise NotImplementedError

    def wrapper(self, target: TargetMap, api: str) -> Verdict:
        """A CUDA-facing wrapper class (DDP, FSDP): its entry in the vendor's API list."""
        return documented_verdict(target, api, api.rsplit(".", 1)[-1])

    def unlisted_api(self, target: TargetMap, api: str, unknown_message: str) -> Verdict:
        """An API the vendor's list does not name."""
        return Verdict(Status.UNKNOWN, f"{unknown_message}; `{api}` is not in the vendor's list (not verified)",
                       target.sources[0])

    def unlisted_variable(self, target: TargetMap, action: str, name: str) -> Verdict:
        """An environment variable the vendor data does not map."""
        return Verdict(Status.UNKNOWN, f"{action} {name}, which has no effect on {target.id}; the bundled vendor "
                       "data names no equivalent variable, so find it in the runtime's documentation",
                       target.sources[0])


class RenamedCudaNames(CudaNames):
    """The runtime has its own names (Ascend's ``npu``/``hccl``, Cambricon's ``mlu``/``cncl``): each CUDA
    spelling is looked up in the target's device map and rewritten."""

    def api(self, target: TargetMap, usage: Usage, api: str) -> Verdict:
        rule = target.lookup(api)
        if rule is None:
            return _patcher_swap(target, usage, api) or Verdict(
                Status.UNKNOWN, f"`{api}`: the {target.id} data names no equivalent; check by hand", target.sources[0])
        # the note as the vendor wrote it, unless all it says is the docs' "fp32 only" placeholder (``Module.cuda``'s
        # "`self`仅支持fp32")
        said = rule.limitations if rule.limitations and any(
            limit.kind != LimitKind.TEMPLATE for limit in parse_note(rule.limitations)) else ""
        limits = f"; vendor notes: {said}" if said else ""
        quotes: Tuple[str, ...] = (said,) if said else ()
        if rule.status == "unsupported":
            return Verdict(Status.UNSUPPORTED, f"`{api}` is documented as not supported on {target.id}{limits}",
                           rule.source, quotes=quotes)
        if rule.status == "supported":
            return Verdict(Status.SUPPORTED, f"`{api}` is documented to work as written on {target.id}", rule.source,
                           limits=parse_note(rule.limitations, api_parameters(api)) if rule.limitations else ())
        if rule.to:
            how = "documented equivalent" if rule.exact else "module rename in the vendor's migration table"
            note = f" ({rule.note})" if rule.note else ""
            differs = _differs_here(rule.limitations, api, usage) if rule.limitations and not same_as_cuda(
                target.id, api, rule.limitations) else ()
            renamed_only = _same_name_but_device(api, rule.to)
            exact = rule.exact and not rule.note and not differs and renamed_only
            if not renamed_only:
                limits += (f"; not a safe rename: `{rule.to}` is another API than `{api}`, not its device-renamed "
                           "twin, so `fix` applies it only with --unsafe")
            if differs:
                limits += ("; not a safe rename: the vendor says it behaves differently here (" + "; ".join(differs)
                           + "), so `fix` applies it only with --unsafe")
                quotes += differs
            suggestion = renamed_call(usage.snippet, rule.to, usage.kind)
            written = rule.to  # what the code writes instead: a name, or a string naming it
            if usage.kind == _LITERAL:
                written = f"'{registered_type_name(rule.to)}'"
                suggestion = replaced_literal(usage.snippet, api, written[1:-1])
            if usage.kind == _METHOD:  # x.cuda(non_blocking=True) -> x.npu(non_blocking=True)
                old_method, new_method = api.rsplit(".", 1)[-1], rule.to.rsplit(".", 1)[-1]
                head, dot, tail = usage.snippet.rpartition(f".{old_method}")
                suggestion = f"{head}.{new_method}{tail}" if dot else rule.to
            edit = _rename_edit(api, rule.to, usage) if rule.exact else None
            return Verdict(Status.REWRITE, f"use `{written}` ({how}){note}{needs_import(target)}{limits}", rule.source,
                           fix=fix_of(suggestion, edit, safe=exact), quotes=quotes)
        return Verdict(Status.UNKNOWN, f"`{api}`: listed by the vendor without an equivalent{limits}"
                       + (f" ({rule.note})" if rule.note else ""), rule.source, quotes=quotes)

    def device_string(self, target: TargetMap, value: Value, snippet: str, what: str) -> Verdict:
        text = value.text or "cuda"
        new = text.replace("cuda", target.device_to, 1)
        direct = value.via is None
        suggestion = replaced_literal(snippet, text, new) if direct else None
        if value.kind == _FSTR and direct:
            suggestion = snippet.replace("cuda", target.device_to, 1)
        message = f"device '{text}' must be '{new}' on {target.id}{where(value)}{needs_import(target)}"
        edit = (literal_edit(value, "cuda", target.device_to) if value.kind == _FSTR
                else literal_edit(value, text, new))
        return Verdict(Status.REWRITE, message, target.device_source,
                       fix=fix_of(suggestion or f"set {value.via} to '{new}'", edit,
                                  safe=direct and suggestion != snippet))

    def backend(self, target: TargetMap, value: Value, snippet: str) -> Verdict:
        text = value.text or "nccl"
        new = renamed_backend(text, target.backend_to, target.device_to)
        direct = value.via is None
        suggestion = replaced_literal(snippet, text, new) if direct else None
        # written in the call, on a line after the one the snippet shows (``init_process_group(\n backend="NCCL"``):
        # the edit rewrites that literal inside the call all the same
        below = direct and suggestion == snippet and text not in snippet and value.kind == _STR
        if below:
            suggestion = f"'{new}' for the '{text}' this call passes"
        edit = literal_edit(value, text, new) if value.kind == _STR else None
        return Verdict(Status.REWRITE, f"collective backend '{text}' must be '{new}' on {target.id}{where(value)}"
                       f"{needs_import(target)}", target.backend_source,
                       fix=fix_of(suggestion or f"set {value.via} to '{new}'", edit,
                                  safe=direct and (suggestion != snippet or below)))


class KeptCudaNames(CudaNames):
    """The runtime presents itself as ``torch.cuda`` (Kunlunxin's torch_xmlir): CUDA spellings run as
    written. That is the vendor's claim for the whole namespace, not a per-API validation, so the verdicts
    say so."""

    rewritten = False

    @staticmethod
    def _as_written(target: TargetMap, what: str) -> Verdict:
        return Verdict(Status.SUPPORTED, f"{what} works as written: {target.runtime_facts.name} presents itself as "
                       "torch.cuda (substitute evidence, not validated per API)", target.device_source)

    def api(self, target: TargetMap, usage: Usage, api: str) -> Verdict:
        return self._as_written(target, f"`{api}`")

    def device_string(self, target: TargetMap, value: Value, snippet: str, what: str) -> Verdict:
        return self._as_written(target, f"the {what} string")

    def backend(self, target: TargetMap, value: Value, snippet: str) -> Verdict:
        if target.backend_to == "nccl":
            return self._as_written(target, "the 'nccl' backend name")
        # a generation whose vendor writes another backend (FlagPerf's `xccl` on R300) while `nccl` still reaches
        # the collectives through the shim (the source says both): partial, with the vendor's name as a
        # suggestion that `fix` does not apply (the code runs as it is)
        text = value.text or "nccl"
        renamed = RenamedCudaNames().backend(target, value, snippet)
        return Verdict(Status.PARTIAL, f"collective backend '{text}' runs through the shim on {target.id}, but the "
                       f"vendor's own ports write '{target.backend_to}'{where(value)}", target.backend_source,
                       fix=fix_of(renamed.suggestion))

    def wrapper(self, target: TargetMap, api: str) -> Verdict:
        return self._as_written(target, api.rsplit(".", 1)[-1])

    def unlisted_api(self, target: TargetMap, api: str, unknown_message: str) -> Verdict:
        return Verdict(Status.UNKNOWN, f"{unknown_message}; no public data for {target.runtime_facts.name} "
                       f"covers `{api}`", target.sources[0])

    def unlisted_variable(self, target: TargetMap, action: str, name: str) -> Verdict:
        if not name.startswith(("CUDA_", "NCCL_", "TORCH_NCCL_")):
            return super().unlisted_variable(target, action, name)
        # the shim keeps the `nccl` backend name too: whether an NCCL variable reaches it is not in the data,
        # so "no effect" would claim more than it says
        return Verdict(Status.UNKNOWN, f"{action} {name}: the CUDA shim keeps CUDA and NCCL names, but no public "
                       f"data says whether {target.runtime_facts.name} honours this variable", target.device_source)


#: Each ``cuda_names`` value a target's data row may take, and what it means.
CUDA_NAMES: Mapping[str, CudaNames] = {"renamed": RenamedCudaNames(), "kept": KeptCudaNames()}


def cuda_names(target: TargetMap) -> CudaNames:
    return CUDA_NAMES[target.runtime_facts.cuda_names]
