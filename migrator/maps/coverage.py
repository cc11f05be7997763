"""The verdict for one Python API on one target: its traced aten ops judged by the target's operator map,
then refined by what the vendor says of the API itself (documented limits, not supported, test skips)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..evidence import item, with_evidence
from ..model import Evidence, Grade, Limit, Status, Verdict
from .limits import clip, parse_note, skip_limit
from .load import TargetMap, load_json, torch_api_aliases, torch_api_table
from .signatures import api_parameters

#: How aten-level reasons read in a message.
_REASON_TEXT = {
    "not-registered": "no {target} kernel",
    "composite-implicit": "a composite op (decomposes; not traced further)",
    "kunlun-unlisted": "no Kunlun kernel for its Paddle equivalent",
    "kunlun-unmapped": "no reviewed aten-to-Paddle mapping",
    "kunlun-bridged-partial": "some kernels of its Paddle equivalent (PaConvert) are not in the Kunlun list",
    "kunlun-bridged-unlisted": "no Kunlun kernel for its Paddle equivalent (PaConvert)",
    "kunlun-dtypes": "Kunlun kernel for float16/bfloat16 only",
    "missing": "not in aten {line}",
    "later-composite-explicit": "not in torch {line}, whose own decomposition of the API runs instead",
    "later-composite-implicit": "a composite op of a later torch, not in torch {line}",
}
#: Ops of the CPU build's own kernel libraries (oneDNN, FBGEMM, the CPU flash attention): the API table is traced
#: on the CPU, where an LSTM runs ``mkldnn_rnn_layer``; a device dispatches its own kernel for that path instead.
_CPU_BACKEND = re.compile(r"^aten::(?:mkldnn_|to_mkldnn|fbgemm_|_nnpack_)|_for_cpu(?:_backward)?$")
#: Ops an API's ATen code runs only for a CPU tensor (a host-side check the trace, run on the CPU, recorded): a
#: device never dispatches them. Each row cites the ATen source that branches on the device.
#:   one_hot: pytorch/pytorch aten/src/ATen/native/Onehot.cpp @000c5f01 (BSD-3-Clause):
#:   ``if (self.device().is_cpu()) { auto [self_min, self_max] = at::aminmax(self); ... }``; on a device,
#:   ``num_classes`` given, only ``zeros`` and ``scatter_`` run ("rely on device asserts from scatter")
_HOST_ONLY = {"torch.nn.functional.one_hot": frozenset({"aten::aminmax"})}
#: Aggregation: the worst op decides, in this order.
_ORDER = (Status.FALLBACK, Status.UNKNOWN, Status.PARTIAL, Status.SUPPORTED)
#: OpInfo tests whose dtype skips mean the op misbehaves for that dtype on NPU. ``test_backward`` and
#: ``test_variant_consistency_eager`` run for float32 alone: a skip there disables a test class, it does not
#: say fp32 fails (most of torch_npu's skips are those two).
_SKIP_TESTS = ("test_compare_cpu", "test_dtypes")
_FALLBACK = ("runs on the host CPU through the vendor's fallback (correct but slow; each call copies tensors "
             "between device and host)")


@dataclass(frozen=True)
class CallForm:
    """What a call's own arguments say of the overload it takes: an ``out=`` keyword takes an out overload
    (``mode.values``), a Python number literal a Scalar one (``special_zeta.other_scalar``), neither the plain
    Tensor overload. ``None`` where there is no call to read (``explain``)."""

    out: bool = False
    scalar: bool = False
    keywords: FrozenSet[str] = frozenset()  # ``round(x, decimals=2)`` takes ``round.decimals``


@dataclass(frozen=True)
class ApiCoverage:
    api: str
    ops: Tuple[str, ...]
    verdict: Verdict
    traced: bool


#: ``api_ops``'s path for a call that runs without autograd: its forward ops alone.
FORWARD = "forward"


def api_row(api: str) -> Optional[Mapping[str, Any]]:
    """The API table's row of ``api``, by its own name or another spelling of it (``torch_api_aliases``)."""
    table = torch_api_table()
    return table.get(api) or table.get(torch_api_aliases().get(api, ""))


def api_ops(api: str, path: Optional[str] = None) -> Tuple[Tuple[str, ...], Optional[str]]:
    """(aten ops, row source) for an API: forward and backward, one optimizer path, or (``FORWARD``) the forward
    ops alone."""
    row = api_row(api)
    if row is None:
        return (), None
    if path == FORWARD and row["source"] != "native_functions":
        return tuple(sorted(set(row["forward"]))), str(row["source"])
    if path and row.get("paths", {}).get(path):
        return tuple(row["paths"][path]), str(row["source"])
    if row["source"] == "native_functions":
        return _called_overloads(row["forward"]), "native_functions"
    return tuple(sorted(set(row["forward"]) | set(row.get("backward", ())))), str(row["source"])


def argument_paths(api: str) -> Tuple[str, ...]:
    """The names of an API's op sets taken by an argument a call passes (``reduce@2``, ``hermitian@2=True``: see
    ``mapsbuild/trace_api.keyword_path``)."""
    row = api_row(api)
    return tuple(path for path in (row or {}).get("paths", {}) if "@" in path)


def _called_overloads(overloads: Sequence[str]) -> Tuple[str, ...]:
    """An untraced API lists every overload of its name; a plain call reaches the default one (no suffix),
    or failing that one of the non-``out=`` overloads."""
    default = [op for op in overloads if "." not in op.split("::", 1)[1]]
    if default:
        return tuple(default)
    return tuple(op for op in overloads if not op.endswith(".out")) or tuple(overloads)


_MEMO: Dict[Tuple[str, str, str, Optional[str], Optional[CallForm]], Optional["ApiCoverage"]] = {}


def api_coverage(target: TargetMap, api: str, path: Optional[str] = None,
                 form: Optional[CallForm] = None) -> Optional[ApiCoverage]:
    """None when neither the API table nor the vendor's API list knows ``api``. Memoised: a scan asks
    about the same few hundred APIs thousands of times."""
    key = (target.id, target.version, api, path, form)
    if key not in _MEMO:
        _MEMO[key] = _api_coverage(target, api, path, form)
    return _MEMO[key]


def _api_coverage(target: TargetMap, api: str, path: Optional[str],
                  form: Optional[CallForm]) -> Optional[ApiCoverage]:
    """The aten path's verdict; where the target has a bridge table (kunlun) with a row for ``api``, that row
    instead when the aten path cannot say (``unknown``, or no trace and no list entry) or says only what the
    bridge says of the ops' names (the ops that decide it are judged through the bridge themselves: the API's
    own row is the more specific)."""
    missing = _absent(target, api)
    if missing is not None:
        return ApiCoverage(api, (), graded(missing, Grade.PROOF), False)
    found = _aten_coverage(target, api, path, form)
    bridged = target.bridged(api) if target.bridge_file else None
    if bridged is None or (found is not None and found.verdict.status != Status.UNKNOWN
                           and not _decided_by_bridge(target, found)):
        return None if found is None else replace(found, verdict=_graded_ops(target, found.verdict))
    return ApiCoverage(api, found.ops if found else (),
                       substituted(bridge_verdict(target, api, *bridged)),
                       found.traced if found else False)


def graded(verdict: Verdict, grade: Grade) -> Verdict:
    """``verdict`` resting on one item of ``grade`` (none for a supported verdict: it needs no evidence)."""
    if verdict.status == Status.SUPPORTED or verdict.evidence:
        return verdict
    return with_evidence(verdict, item(grade, verdict.source, verdict.message))


def substituted(verdict: Verdict) -> Verdict:
    """``verdict`` resting on another stack's data, whatever its status: a supported verdict read off a
    substitute list is substitute evidence too (the headline says how much of a target rests on it)."""
    if verdict.evidence:
        return verdict
    return with_evidence(verdict, item(Grade.SUBSTITUTE, verdict.source, verdict.message))


def _graded_ops(target: TargetMap, verdict: Verdict) -> Verdict:
    """An op-level verdict's evidence: the target's own registration list is proof of a missing kernel; a
    substitute target's list (Kunlun: Paddle's XPU kernels) is substitute evidence; no entry is a gap."""
    if verdict.status == Status.UNKNOWN:
        return graded(verdict, Grade.GAP)
    return substituted(verdict) if target.substitute else graded(verdict, Grade.PROOF)


def _absent(target: TargetMap, api: str) -> Optional[Verdict]:
    """``api`` is not in the torch the target runs (read from that torch's wheel): the call fails there."""
    op_map = target.op_map()
    if api not in op_map.get("absent_apis", ()):
        return None
    return Verdict(Status.UNSUPPORTED, f"`{api}` is not in torch {op_map['torch_version']}, which "
                   f"{target.label} runs: the call fails there (a later torch added it): write it another way, "
                   "or move to a release on a newer torch line", str(op_map["absent_source"]))


def _decided_by_bridge(target: TargetMap, found: ApiCoverage) -> bool:
    """Whether the ops with the verdict's status are all judged by the bridge (``kunlun-bridged*``)."""
    op_map = target.op_map()
    worst = [op for op in found.ops
             if op_map["reasons"].get(op_map["ops"].get(op, "missing"), "unknown") == found.verdict.status.value]
    return bool(worst) and all(str(op_map["ops"].get(op, "")).startswith("kunlun-bridged") for op in worst)


def bridge_verdict(target: TargetMap, api: str, row: Mapping[str, Any], sources: Sequence[str]) -> Verdict:
    """A bridge row as a verdict: PaConvert's Paddle API, its kernels, and which the XPU list lacks."""
    kernels = [str(k) for k in row["kernels"]]
    unlisted = [str(k) for k in row["unlisted"]]
    how = f"{_substitute(target)}PaConvert maps `{api}` to `{row['paddle_api']}`"
    if row["status"] == "supported":
        message = f"{how}, and every kernel it calls is in the list ({clip(', '.join(kernels), 160)})"
    elif row["status"] == "partial":
        message = (f"{how}; of the kernels it may call, {', '.join(unlisted[:6])} "
                   f"{'is' if len(unlisted) == 1 else 'are'} not in the list: the paths that take "
                   f"{'it' if len(unlisted) == 1 else 'them'} (a mode, dtype or shape the call picks) run on the CPU; "
                   f"{len(kernels) - len(unlisted)} of {len(kernels)} kernels are listed")
    else:
        primary = [str(k) for k in row.get("primary", unlisted)]
        message = f"{how}; its kernel {', '.join(primary[:6])} is not in the list: {_FALLBACK}"
    return Verdict(Status(str(row["status"])), message, "; ".join(sources))


def _aten_coverage(target: TargetMap, api: str, path: Optional[str],
                   form: Optional[CallForm]) -> Optional[ApiCoverage]:
    ops, row_source = api_ops(api, path)
    documented = target.documented(api)
    if not ops and row_source not in (None, "native_functions") and documented is None:
        return ApiCoverage(api, (), Verdict(Status.SUPPORTED, f"`{api}` dispatches no aten op when traced "
                                            "(metadata, or a no-op on its input): no device kernel is involved",
                                            "operator_maps/torch_api.json (traced)"), True)
    if not ops:
        if documented is None:
            return None
        listed = verdict_from_list(target, api, documented, " (no aten trace for it)")
        if row_source not in (None, "native_functions") and listed.status == Status.UNSUPPORTED:
            # traced, it runs no aten op (``to_dense`` on a strided tensor returns it): the target's own list
            # and what the call does disagree, so it is tried on the card, not ported
            ran = "yet traced, it dispatches no aten op (metadata, or a no-op on its input): no device kernel"
            listed = with_evidence(listed, item(Grade.NOTE, documented[1], listed.message),
                                   item(Grade.NOTE, "operator_maps/torch_api.json (traced)", ran))
        return ApiCoverage(api, (), listed, False)
    op_map = target.op_map()
    host_only = _HOST_ONLY.get(api, frozenset())
    judged = [op for op in ops if not _CPU_BACKEND.search(op) and op not in host_only] or list(ops)
    cpu_only = sorted(set(ops) - set(judged))
    own = _own_kernel(target, api, ops, path)
    if own is not None:  # the target's kernel for the API's own op runs instead of what the CPU decomposed it into
        judged = [op for op in judged if op not in own.replaced] + list(own.overloads)
    reasons: Dict[str, str] = {op: op_map["ops"].get(op, "missing") for op in judged}
    statuses = {op: Status(op_map["reasons"].get(reason, "unknown")) for op, reason in reasons.items()}
    status = next(s for s in _ORDER if s in statuses.values() or s == Status.SUPPORTED)
    message = _ops_message(target, api, status, reasons, statuses, row_source, path)
    if cpu_only:
        message += (f"; ops the trace ran only on the CPU ({', '.join(cpu_only[:3])}) are left out: a device runs its "
                    "own path")
    if own is not None:
        message += (f"; {target.id} registers {own.overloads[0].split('.')[0]} itself, whose kernel runs in place of "
                    f"the {'forward and backward' if own.autograd else 'forward'} ops a CPU trace decomposes it into")
    sources = [str(s) for s in op_map.get("sources", ())]
    verdict = Verdict(status, message, "; ".join(sources))
    conflict = _overload_conflict(api, statuses, op_map, target.op_map_file, documented, form)
    if conflict is not None:
        return ApiCoverage(api, ops, conflict, row_source != "native_functions")
    layouts = _layouts(api) if path in (None, FORWARD) else ()
    if layouts:
        return ApiCoverage(api, ops, _sparse_verdict(target, api, layouts, verdict, documented), True)
    verdict = _refine(target, api, verdict, documented)
    return ApiCoverage(api, ops, verdict, row_source != "native_functions")


def _layouts(api: str) -> Tuple[str, ...]:
    """The layouts other than strided the API's traced ops ran on (``sparse_coo``: ``torch.sparse.mm``)."""
    row = api_row(api)
    return tuple((row or {}).get("layouts", ()))


def _sparse_verdict(target: TargetMap, api: str, layouts: Sequence[str], verdict: Verdict, documented) -> Verdict:
    """An API whose ops run on sparse tensors: the op maps hold each op's dense registration (a composite's
    decomposition, the CPU fallback), which says nothing of the sparse kernels (SparsePrivateUse1) the call
    needs. The vendor's own word on the API decides where it gives one (Cambricon's ``torch.sparse.mm``:
    "只支持sparse x dense"); else the data cannot say: a gap, checked on the card."""
    if documented is not None:  # the maps' dense kernels say nothing of what the vendor's list does
        return verdict_from_list(target, api, documented, f" (its ops run on {'/'.join(layouts)} tensors)")
    text = (f"`{api}`: its ops run on {'/'.join(layouts)} tensors, and the maps hold {target.id}'s dense kernels, not "
            "its sparse ones; check on the card")
    return Verdict(Status.UNKNOWN, text, f"operator_maps/torch_api.json (traced); {verdict.source}",
                   evidence=(item(Grade.GAP, "operator_maps/torch_api.json (traced)", text),))


#: where an API's last name is its aten op's (``torch.nn.functional.ctc_loss``, ``torch.inverse``) or a module's
#: snake-cased class name is (``torch.nn.CTCLoss`` -> ``ctc_loss``)
#: the modules whose functions name their own aten op, and the prefix the op's name takes there
#: (``torch.linalg.cholesky`` is ``aten::linalg_cholesky``, ``torch.special.erf`` ``aten::special_erf``)
_OWN_OP_MODULES = {"torch": "", "torch.nn.functional": "", "torch.Tensor": "", "torch.nn": "", "torch.nn.utils": "",
                   "torch.linalg": "linalg_", "torch.special": "special_", "torch.fft": "fft_"}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@dataclass(frozen=True)
class _OwnKernel:
    """The target's registration of an API's own composite op: its overloads, the traced ops they stand in for,
    and whether the vendor's autograd stands in for the traced backward too."""

    overloads: Tuple[str, ...]
    replaced: FrozenSet[str]
    autograd: bool


def _own_kernel(target: TargetMap, api: str, ops: Sequence[str], path: Optional[str]) -> Optional[_OwnKernel]:
    """A composite op the CPU build decomposes before a trace sees it (``ctc_loss`` into ``_ctc_loss``,
    ``linalg_cholesky`` into ``linalg_cholesky_ex``), that the target registers itself (torch_mlu's
    ``ctc_loss.IntList``, torch_npu's ``linalg_cholesky``): a backend's own kernel wins over the composite
    one in the dispatcher, so the traced forward ops do not run there; the backward ones neither when the
    vendor registers the op with its own autograd (``own_autograd``: torch_mlu's ``custom_autograd``)."""
    module, _, last = api.rpartition(".")
    if module not in _OWN_OP_MODULES or target.substitute:
        return None
    own = _OWN_OP_MODULES[module] + (_CAMEL.sub("_", last).lower() if last[:1].isupper() else last)
    registered = _registered_by_name(target.op_map_file)
    op_map = target.op_map()
    composites = set(op_map.get("registered_composites", ()))
    # the op itself, or its private twin (``weight_norm`` -> ``aten::_weight_norm``, the one its hook calls), where
    # torch decomposes it (a composite the trace cannot see) and the target registers it
    overloads = [op for name in (f"aten::{own}", f"aten::_{own}") for op in registered.get(name, ())
                 if op in composites]
    names = {op.split(".", 1)[0] for op in overloads}
    if not overloads or any(op.split(".", 1)[0] in names for op in ops):
        return None
    autograd = all(op in set(op_map.get("own_autograd", ())) for op in overloads)
    row = torch_api_table().get(api) or torch_api_table().get(torch_api_aliases().get(api, "")) or {}
    replaced = set(row.get("forward", ())) | (set(ops) if autograd or path == FORWARD else set())
    return _OwnKernel(tuple(sorted(overloads)), frozenset(replaced), autograd)


def _ops_message(target: TargetMap, api: str, status: Status, reasons: Mapping[str, str],
                 statuses: Mapping[str, Status], row_source: Optional[str], path: Optional[str]) -> str:
    prefix = _substitute(target)
    how = "listed by name in native_functions.yaml, not traced" if row_source == "native_functions" else \
        f"traced{' (' + path + ' path)' if path else ''}"
    if status == Status.SUPPORTED:
        later = [op for op, reason in reasons.items() if reason.startswith("later-")]
        note = (f"; {', '.join(later[:4])} {'is' if len(later) == 1 else 'are'} not in torch {_ops_line(target)}, "
                "which decomposes the API its own way (not traced)") if later else ""
        return (f"{prefix}all {len(reasons)} aten ops it runs ({how}) have {target.id} kernels or backend-agnostic "
                f"implementations{note}")
    worst = [op for op, s in statuses.items() if s == status]
    details = ", ".join(f"{op} ({_reason(target, reasons[op])})" for op in worst[:6])
    more = f" and {len(worst) - 6} more" if len(worst) > 6 else ""
    if status == Status.FALLBACK:
        return f"{prefix}{details}{more}: {_FALLBACK}; {len(reasons)} ops in all ({how})"
    if status == Status.PARTIAL:
        return f"{prefix}{details}{more}; {len(reasons)} ops in all ({how})"
    return f"{prefix}the data cannot say for {details}{more}; {len(reasons)} ops in all ({how})"


@lru_cache(maxsize=None)
def _registered_by_name(op_map_file: Optional[str]) -> Dict[str, Tuple[str, ...]]:
    """Overloads with a kernel, by op name (``aten::_ctc_loss`` -> its overloads); once per map file."""
    if not op_map_file:
        return {}
    op_map = load_json(op_map_file)
    found: Dict[str, List[str]] = {}
    for op, reason in op_map["ops"].items():
        if op_map["reasons"].get(reason) == "supported":
            found.setdefault(op.split(".", 1)[0], []).append(op)
    return {name: tuple(ops) for name, ops in found.items()}


def _overload_conflict(api: str, statuses: Mapping[str, Status], op_map: Mapping[str, Any],
                       op_map_file: Optional[str], documented, form: Optional[CallForm] = None) -> Optional[Verdict]:
    """The vendor's API list calls ``api`` supported, but its op registrations cover only some overloads of
    the ops it runs: ``partial``, naming both sources and the overloads, instead of picking one side.

    (torch_npu's docs list ``F.ctc_loss``; op-plugin registers ``_ctc_loss`` for int-list lengths, not the
    ``.Tensor`` overload a call with tensor lengths takes.)
    """
    if documented is None or documented[0].get("documented") == "N":
        return None
    missing = [op for op, st in statuses.items() if st == Status.FALLBACK]
    if not missing:
        return None
    registered = _registered_by_name(op_map_file)
    siblings = {op: sorted(r for r in registered.get(op.split(".", 1)[0], ()) if r != op) for op in missing}
    if not all(siblings.values()):
        return None  # some op has no kernel at all: a plain fallback, not a disagreement
    entry, doc_source = documented
    sources = "; ".join(str(x) for x in op_map.get("sources", ()))
    if form is not None:  # the call may say which overload runs
        taken = {op: _taken(op, siblings[op], form) for op in missing}
        if any(t is _UNREGISTERED for t in taken.values()):
            return None  # it takes an overload with no kernel: the ops' own verdict (a fallback) stands
        if all(isinstance(t, str) for t in taken.values()):
            how = "an `out=` argument" if form.out else "a Python number"
            return Verdict(Status.SUPPORTED, f"this call passes {how}, so it takes "
                           f"{', '.join(str(taken[op]) for op in missing)}, which has a kernel ({doc_source} lists "
                           f"`{api}`)", f"{doc_source}; {sources}")
    quoted = clip(str(entry['limitations']), 200) if entry.get("limitations") else ""
    limits = f" (with limits: {quoted})" if quoted else ""
    parts = [f"{op} has no kernel but {', '.join(siblings[op])} does" for op in missing]
    return Verdict(Status.PARTIAL,
                   f"sources disagree: {doc_source} lists `{api}` as supported{limits}; the op registrations "
                   f"({sources}) cover only some overloads: {'; '.join(parts)}. Which overload a call takes depends "
                   "on its argument types (a `.Tensor` overload: tensor arguments where the other takes int lists); "
                   "the uncovered one runs on the host CPU",
                   f"{doc_source}; {sources}",
                   evidence=(item(Grade.NOTE, f"{doc_source}; {sources}",
                                  f"the call's arguments do not show which overload of {', '.join(missing)} it "
                                  "takes; one has no kernel"),), quotes=(quoted,) if quoted else ())


#: ``_taken``'s answer when a call takes the overload that has no kernel.
_UNREGISTERED = object()


def _taken(missing: str, siblings: Sequence[str], form: CallForm):
    """Which overload a call of this form takes instead of ``missing`` (an op with no kernel): a registered
    sibling's name, ``_UNREGISTERED`` when it takes ``missing`` itself, ``None`` when the call cannot say
    (``_ctc_loss.Tensor`` or the int-list ``_ctc_loss``: tensors or lists, the arguments do not show)."""
    def suffix(op: str) -> str:
        return op.split(".", 1)[1] if "." in op else ""

    def is_out(op: str) -> bool:
        return suffix(op) in ("out", "values") or suffix(op).endswith("_out") or suffix(op).startswith("out")

    def is_scalar(op: str) -> bool:
        return "scalar" in suffix(op).lower()

    if suffix(missing) and suffix(missing) in form.keywords:
        return _UNREGISTERED  # round(x, decimals=2): round.decimals
    if form.out:
        chosen = [op for op in siblings if is_out(op)]
        return chosen[0] if chosen else (_UNREGISTERED if is_out(missing) else None)
    if form.scalar:
        chosen = [op for op in siblings if is_scalar(op)]
        return chosen[0] if chosen else (_UNREGISTERED if is_scalar(missing) else None)
    return _UNREGISTERED if not suffix(missing) else None  # a plain call takes the plain overload


def _substitute(target: TargetMap) -> str:
    return "substitute data (Paddle's Kunlun op list): " if target.substitute else ""


def _reason(target: TargetMap, reason: str) -> str:
    return _REASON_TEXT.get(reason, reason).format(target=target.id, line=_ops_line(target))


def _ops_line(target: TargetMap) -> str:
    """The torch line whose op names the target's op map uses (a substitute target's too)."""
    return str(target.op_map().get("torch_line") or target.torch_line)


def _refine(target: TargetMap, api: str, verdict: Verdict, documented) -> Verdict:
    """The vendor's own word on the API: not supported, documented limits, tests that skip dtypes. Limits are
    attached as clauses to settle against the call and the project (``limits.py``), not read as ``partial``."""
    notes: List[str] = []
    sources = [verdict.source]
    found: List[Limit] = []
    if documented is not None:
        entry, source = documented
        if entry.get("documented") == "N":
            limits = f": {entry['limitations']}" if entry.get("limitations") else ""
            said = f"`{api}` is documented as not supported on {target.id}{limits}"
            evidence: Tuple[Evidence, ...] = ()
            if verdict.status == Status.SUPPORTED:  # the target's own kernels say otherwise: try it on the card
                evidence = (item(Grade.NOTE, source, said),
                            item(Grade.NOTE, verdict.source, f"yet {verdict.message}"))
            return Verdict(Status.UNSUPPORTED, f"{said} ({verdict.message})", f"{source}; {verdict.source}",
                           evidence=evidence,
                           quotes=verdict.quotes + ((str(entry["limitations"]),) if limits else ()))
        if entry.get("limitations"):
            found.extend(parse_note(str(entry["limitations"]), api_parameters(api)))
            sources.append(source)
        if entry.get("validated") is False:
            notes.append("the vendor lists it as not validated")
            sources.append(source)
    skips = target.npu_skips(_opinfo_name(api))
    if skips is not None:
        entry, source = skips
        for test in _SKIP_TESTS:
            limit = skip_limit(entry.get(test, ()), test)
            if limit is not None:
                found.append(limit)
                sources.append(source)
    if not notes and not found:
        return verdict
    message = f"{verdict.message}; " + "; ".join(notes) if notes else verdict.message
    return Verdict(verdict.status, message, "; ".join(dict.fromkeys(sources)), limits=tuple(found),
                   quotes=verdict.quotes)


def verdict_from_list(target: TargetMap, api: str, documented, note: str = "") -> Verdict:
    """What the vendor's Python-API list (Ascend docs, Cambricon torch_api.yaml) says of ``api``: supported,
    with its notes as clauses to settle (``limits.py``)."""
    entry, source = documented
    quoted = clip(str(entry['limitations']), 300) if entry.get("limitations") else ""
    limits = f": {quoted}" if quoted else ""
    quotes = (quoted,) if quoted else ()
    if entry.get("documented") == "N":
        return Verdict(Status.UNSUPPORTED, f"`{api}` is documented as not supported on {target.id}{limits}", source,
                       quotes=quotes)
    if entry.get("validated") is False:
        return Verdict(Status.UNKNOWN, f"`{api}` is listed as not validated on {target.id}{limits}", source,
                       evidence=(item(Grade.NOTE, source, f"`{api}`: not validated{limits}"),), quotes=quotes)
    clauses = parse_note(str(entry["limitations"]), api_parameters(api)) if limits else ()
    return Verdict(Status.SUPPORTED, f"`{api}` is documented as supported on {target.id}{note}", source,
                   limits=clauses)


def _opinfo_name(api: str) -> str:
    if api.startswith("torch.Tensor."):
        return api[len("torch.Tensor."):]
    return api[len("torch."):] if api.startswith("torch.") else api


def op_verdict(target: TargetMap, op: str) -> Verdict:
    """One aten overload on one target, as its operator map judges it (``migrator scan --trace``)."""
    op_map = target.op_map()
    reason = op_map["ops"].get(op, "missing")
    status = Status(op_map["reasons"].get(reason, "unknown"))
    prefix = _substitute(target)
    if status == Status.SUPPORTED:
        message = f"{prefix}{op} has a {target.id} kernel or a backend-agnostic implementation"
    elif status == Status.FALLBACK:
        message = f"{prefix}{op} ({_reason(target, reason)}) {_FALLBACK}"
    else:
        message = f"{prefix}{op}: {_reason(target, reason)}"
    return _graded_ops(target, Verdict(status, message, "; ".join(str(s) for s in op_map.get("sources", ()))))
