"""Per-target aten operator maps, generated from the vendors' registrations.

For one target release and torch line, every aten overload in that line's ``native_functions.yaml`` gets
a status and the reason for it:

==================  ===========  =====================================================================
reason              status       meaning
==================  ===========  =====================================================================
registered          supported    the vendor registers a kernel for it on this torch line
structured          supported    its structured ``out=`` kernel is registered (functional and in-place
                                 variants run through it)
composite-explicit  supported    CompositeExplicitAutograd: one backend-agnostic kernel for all devices
composite-implicit  unknown      CompositeImplicitAutograd: decomposes into other aten ops, judged
                                 through them (a traced API lists the decomposed ops, not this one)
not-registered      fallback     no device kernel: the vendor's CPU fallback runs it on the host
kunlun-listed       supported    (kunlun) the reviewed Paddle equivalent is in the Kunlun XPU op list
kunlun-dtypes       partial      (kunlun) listed for float16/bfloat16 but not float32
kunlun-unlisted     fallback     (kunlun) the Paddle equivalent is not in the list: Paddle runs it on CPU
kunlun-unmapped     unknown      (kunlun) no reviewed aten-to-Paddle row
==================  ===========  =====================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Set, Tuple


from .upstream import MapsBuildError, parse_yaml, read_text, source_label

REASONS = {
    "registered": "supported",
    "structured": "supported",
    "composite-explicit": "supported",
    "composite-implicit": "unknown",
    "not-registered": "fallback",
    "kunlun-listed": "supported",
    "kunlun-dtypes": "partial",
    "kunlun-unlisted": "fallback",
    "kunlun-unmapped": "unknown",
}


@dataclass(frozen=True)
class OpRelease:
    target: str
    version: str
    runtime: str
    torch_line: str  # "2.7"
    native: str  # the aten universe for that line
    registrations: Tuple[str, ...]  # upstream files read
    api_support: Optional[str] = None
    npu_skips: Optional[str] = None


OP_RELEASES = (
    OpRelease("cann", "2.7-9.1", "torch_npu 2.7.1.post8, CANN 9.1.0", "2.7", "pytorch/native_functions.torch-2.7.1.yaml",
              ("cann/op_plugin_functions.op-plugin-26.1.0.yaml",
               "cann/npu_native_functions.torch_npu-v2.7.1-26.1.0.yaml"),
              api_support="api_support/cann-2.7-9.1.json", npu_skips="api_support/cann-npu-skips-26.1.0.json"),
    OpRelease("cann", "2.7-8.5", "torch_npu 2.7.1.post2, CANN 8.5.0", "2.7", "pytorch/native_functions.torch-2.7.1.yaml",
              ("cann/op_plugin_functions.op-plugin-7.3.0.yaml",
               "cann/npu_native_functions.torch_npu-v2.6.0-7.3.0.yaml"),
              api_support="api_support/cann-2.7-9.1.json"),
    OpRelease("cann", "2.1-8.0", "torch_npu 2.1.0.post10, CANN 8.0.0", "2.1", "pytorch/native_functions.torch-2.1.0.yaml",
              ("cann/op_plugin_functions.op-plugin-6.0.0.yaml",
               "cann/npu_native_functions.torch_npu-v2.1.0-6.0.0.yaml")),
    OpRelease("neuware", "1.25-2.4", "torch_mlu 1.25.0 (r2.4_develop), torch 2.4.1", "2.4",
              "pytorch/native_functions.torch-2.4.1.yaml", ("neuware/mlu_functions.torch_mlu-r2.4_develop.yaml",),
              api_support="api_support/neuware-1.25-2.4.json"),
    OpRelease("neuware", "1.22-2.4", "torch_mlu 1.22.2, torch 2.4.0", "2.4", "pytorch/native_functions.torch-2.4.1.yaml",
              ("neuware/mlu_functions.torch_mlu-r1.22_pt2.4.0.yaml",)),
    OpRelease("neuware", "1.22-2.1", "torch_mlu 1.22.2, torch 2.1.0", "2.1", "pytorch/native_functions.torch-2.1.0.yaml",
              ("neuware/mlu_functions.torch_mlu-r1.22_pt2.1.0.yaml",)),
    OpRelease("kunlun", "kl3", "torch_xmlir on Kunlunxin P800 (XPU3); substitute data: Paddle's XPU3 op list",
              "2.7", "pytorch/native_functions.torch-2.7.1.yaml", ("kunlun/xpu3_op_list.paddle-700e9024.tsv",)),
    OpRelease("kunlun", "kl2", "torch_xmlir on Kunlunxin R200 (XPU2); substitute data: Paddle's XPU2 op list",
              "2.7", "pytorch/native_functions.torch-2.7.1.yaml", ("kunlun/xpu2_op_list.paddle-700e9024.tsv",)),
)


@dataclass(frozen=True)
class AtenOp:
    overload: str  # aten::add.Tensor
    kind: str  # implicit | explicit | backend
    structured_delegate: Optional[str]


def aten_universe(text: str) -> Dict[str, AtenOp]:
    ops: Dict[str, AtenOp] = {}
    for entry in parse_yaml(text):
        name = entry["func"].split("(", 1)[0]
        dispatch = entry.get("dispatch") or {}
        keys = {k.strip() for key in dispatch for k in str(key).split(",")}
        delegate = entry.get("structured_delegate")
        if "CompositeImplicitAutograd" in keys or (not keys and not delegate):
            kind = "implicit"
        elif keys & {"CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"}:
            kind = "explicit"  # one generic kernel; other keys (sparse, nested) only specialise it
        else:
            kind = "backend"
        ops[f"aten::{name}"] = AtenOp(f"aten::{name}", kind, f"aten::{delegate}" if delegate else None)
    return ops


def build_op_maps(upstream: Path, curated: Path) -> Dict[str, object]:
    outputs: Dict[str, object] = {}
    universes: Dict[str, Dict[str, AtenOp]] = {}
    for release in OP_RELEASES:
        universe = universes.setdefault(release.native, aten_universe(read_text(upstream, release.native)))
        if release.target == "cann":
            registered, sources = _cann_registered(upstream, release)
            ops = {op: _classify(info, registered) for op, info in universe.items()}
            dtypes = {}
        elif release.target == "neuware":
            registered, sources = _neuware_registered(upstream, release)
            ops = {op: _classify(info, registered) for op, info in universe.items()}
            dtypes = {}
        else:
            ops, dtypes, sources = _kunlun_ops(upstream, curated, release, universe)
        native_meta = source_label(release.native)
        outputs[f"ops/{release.target}-{release.version}.json"] = {
            "schema": "migrator.maps/1", "target": release.target, "version": release.version,
            "runtime": release.runtime, "torch_line": release.torch_line, "aten_source": native_meta,
            "sources": sources, "substitute": release.target == "kunlun",
            "reasons": REASONS, "ops": {op: ops[op] for op in sorted(ops)},
            **({"dtypes": dtypes} if dtypes else {}),
        }
    outputs["api_support/cann-npu-skips-26.1.0.json"] = _npu_skips(upstream)
    return outputs


def _classify(info: AtenOp, registered: Set[str]) -> str:
    if info.overload in registered:
        return "registered"
    if info.structured_delegate and info.structured_delegate in registered:
        return "structured"
    if info.kind == "explicit":
        return "composite-explicit"
    if info.kind == "implicit":
        return "composite-implicit"
    return "not-registered"


# ---------------------------------------------------------------------------------------------- CANN


def _cann_registered(upstream: Path, release: OpRelease) -> Tuple[Set[str], List[str]]:
    plugin_file, native_file = release.registrations
    plugin = parse_yaml(read_text(upstream, plugin_file))
    line = f"v{release.torch_line}"
    all_versions = [str(v) for v in plugin["all_version"]]
    registered: Set[str] = set()
    for section in ("official", "symint", "quant", "autograd"):
        if section == "quant" and line in ("v1.11", "v2.0", "v2.1"):
            continue
        for entry in plugin.get(section) or []:
            if any(_in_spec(entry.get(key), line, all_versions) for key in ("acl_op", "op_api", "sparse")):
                registered.add("aten::" + str(entry["func"]).split("(", 1)[0])
    native = parse_yaml(read_text(upstream, native_file))
    for entry in native.get("supported") or []:
        name = entry["func"] if isinstance(entry, dict) else entry
        registered.add("aten::" + str(name).split("(", 1)[0])
    sources = [source_label(plugin_file) + f" (official/symint/quant/autograd entries for {line})",
               source_label(native_file) + " (supported)"]
    return registered, sources


def _in_spec(spec, line: str, all_versions: List[str]) -> bool:
    """op-plugin version specs: ``all_version``, ``"v2.1, v2.2"``, or a closed range ``[v2.1, newest]``."""
    if spec is None:
        return False
    if spec == "all_version":
        return line in all_versions
    if isinstance(spec, list) and len(spec) == 2:
        order = {v: i for i, v in enumerate(all_versions)}
        low = order.get(str(spec[0]))
        high = len(all_versions) - 1 if str(spec[1]) == "newest" else order.get(str(spec[1]))
        return low is not None and high is not None and line in order and low <= order[line] <= high
    if isinstance(spec, list):
        return line in [str(v) for v in spec]
    return line in [part.strip() for part in str(spec).split(",")]


def _npu_skips(upstream: Path) -> dict:
    rel = "cann/unsupported_ops_info_base.op-plugin-26.1.0.yaml"
    data = parse_yaml(read_text(upstream, rel)) or {}
    skips: Dict[str, Dict[str, List[str]]] = {}
    for name, tests in sorted(data.items(), key=lambda item: str(item[0])):
        if isinstance(tests, dict):
            skips[str(name)] = {str(test): sorted(str(d) for d in (dtypes or [])) for test, dtypes in sorted(tests.items())}
    return {"schema": "migrator.maps/1", "source": source_label(rel) + " (OpInfo tests torch_npu skips on NPU)",
            "skips": skips}


# ------------------------------------------------------------------------------------------- Neuware


def _neuware_registered(upstream: Path, release: OpRelease) -> Tuple[Set[str], List[str]]:
    [rel] = release.registrations
    data = parse_yaml(read_text(upstream, rel))
    registered: Set[str] = set()
    for entry in data.get("aten") or []:
        registered.add("aten::" + str(entry["func"]).split("(", 1)[0])
    return registered, [source_label(rel) + " (aten section)"]


# -------------------------------------------------------------------------------------------- Kunlun


def _kunlun_ops(upstream: Path, curated: Path, release: OpRelease, universe: Mapping[str, AtenOp]):
    [rel] = release.registrations
    listed: Dict[str, List[str]] = {}
    for line in read_text(upstream, rel).splitlines():
        if line.startswith("#") or line.startswith("paddle_op\t") or not line.strip():
            continue
        name, _, dtypes = line.partition("\t")
        listed[name] = sorted(set(listed.get(name, [])) | {d for d in dtypes.split(",") if d})
    table = parse_yaml((curated / "kunlun_aten_to_paddle.yaml").read_text(encoding="utf-8"))
    ops: Dict[str, str] = {}
    dtypes: Dict[str, List[str]] = {}
    for overload, info in universe.items():
        base = overload.split("::", 1)[1].split(".", 1)[0]
        paddle = table.get(base)
        if paddle:
            hit = next((name for name in paddle if name in listed), None)
            if hit is None:
                ops[overload] = "kunlun-unlisted"
            else:
                dtypes[overload] = listed[hit]
                half_only = "FLOAT32" not in listed[hit] and {"FLOAT16", "BFLOAT16"} & set(listed[hit])
                ops[overload] = "kunlun-dtypes" if half_only else "kunlun-listed"
        elif info.kind == "explicit":
            ops[overload] = "composite-explicit"
        elif info.kind == "implicit":
            ops[overload] = "composite-implicit"
        else:
            ops[overload] = "kunlun-unmapped"
    sources = [source_label(rel) + " (substitute: Paddle's Kunlun kernel list)",
               "operator_maps/curated/kunlun_aten_to_paddle.yaml (reviewed aten-to-Paddle names)"]
    return ops, dtypes, sources


def count_statuses(ops: Mapping[str, str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for reason in ops.values():
        status = REASONS[reason]
        counts[status] = counts.get(status, 0) + 1
    return dict(sorted(counts.items()))


__all__ = ["OP_RELEASES", "REASONS", "build_op_maps", "count_statuses", "MapsBuildError"]
