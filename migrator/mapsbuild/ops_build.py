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
kunlun-unmapped     unknown      (kunlun) no reviewed aten-to-Paddle row, and no bridge row for its name
kunlun-bridged      supported    (kunlun) no reviewed row; the bridge row of the torch function of its name
                                 (PaConvert -> Paddle API -> kernels) has every kernel in the XPU list
kunlun-bridged-partial partial   (kunlun) as above, with some of those kernels listed
kunlun-bridged-unlisted fallback (kunlun) as above, with none listed: Paddle runs it on the CPU
later-composite-explicit supported  not in this line's torch; the traced (newer) torch implements it
                                 backend-agnostically, and this line's torch decomposes the API its own way
later-composite-implicit unknown    as above, a composite op of the newer torch (judged through its ops)
==================  ===========  =====================================================================
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

from .aten import AtenOp, aten_universe
from .release import OpRelease
from .upstream import MAPS_SCHEMA, MapsBuildError, read_text, source_label
from .vendors import READERS

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
    "kunlun-bridged": "supported",
    "kunlun-bridged-partial": "partial",
    "kunlun-bridged-unlisted": "fallback",
    "later-composite-explicit": "supported",
    "later-composite-implicit": "unknown",
}


#: the releases read from fixed vendor files; ``op_releases`` adds one per torch_npu wheel in the folder
OP_RELEASES = (
    OpRelease("cann", "2.7-9.1", "torch_npu 2.7.1.post8, CANN 9.1.0", "2.7",
              "pytorch/native_functions.torch-2.7.1.yaml",
              ("cann/op_plugin_functions.op-plugin-26.1.0.yaml",
               "cann/npu_native_functions.torch_npu-v2.7.1-26.1.0.yaml"),
              api_support="api_support/cann-2.7-9.1.json", npu_skips="api_support/cann-npu-skips-26.1.0.json"),
    OpRelease("cann", "2.7-8.5", "torch_npu 2.7.1.post2, CANN 8.5.0", "2.7",
              "pytorch/native_functions.torch-2.7.1.yaml",
              ("cann/op_plugin_functions.op-plugin-7.3.0.yaml",
               "cann/npu_native_functions.torch_npu-v2.6.0-7.3.0.yaml"),
              api_support="api_support/cann-2.7-9.1.json"),
    OpRelease("cann", "2.1-8.0", "torch_npu 2.1.0.post10, CANN 8.0.0", "2.1",
              "pytorch/native_functions.torch-2.1.0.yaml",
              ("cann/op_plugin_functions.op-plugin-6.0.0.yaml",
               "cann/npu_native_functions.torch_npu-v2.1.0-6.0.0.yaml")),
    OpRelease("neuware", "1.25-2.4", "torch_mlu 1.25.0 (r2.4_develop), torch 2.4.1", "2.4",
              "pytorch/native_functions.torch-2.4.1.yaml", ("neuware/mlu_functions.torch_mlu-r2.4_develop.yaml",),
              api_support="api_support/neuware-1.25-2.4.json"),
    OpRelease("neuware", "1.22-2.4", "torch_mlu 1.22.2, torch 2.4.0", "2.4",
              "pytorch/native_functions.torch-2.4.1.yaml", ("neuware/mlu_functions.torch_mlu-r1.22_pt2.4.0.yaml",)),
    OpRelease("neuware", "1.22-2.1", "torch_mlu 1.22.2, torch 2.1.0", "2.1",
              "pytorch/native_functions.torch-2.1.0.yaml", ("neuware/mlu_functions.torch_mlu-r1.22_pt2.1.0.yaml",)),
    OpRelease("kunlun", "kl3", "torch_xmlir on Kunlunxin P800 (XPU3); substitute data: Paddle's XPU3 op list",
              "2.7", "pytorch/native_functions.torch-2.7.1.yaml", ("kunlun/xpu3_op_list.paddle-700e9024.tsv",),
              api_support="api_support/kunlun.json", bridge="api_support/kunlun-bridge-kl3.json"),
    OpRelease("kunlun", "kl2", "torch_xmlir on Kunlunxin R200 (XPU2); substitute data: Paddle's XPU2 op list",
              "2.7", "pytorch/native_functions.torch-2.7.1.yaml", ("kunlun/xpu2_op_list.paddle-700e9024.tsv",),
              api_support="api_support/kunlun.json", bridge="api_support/kunlun-bridge-kl2.json"),
)


def op_releases(upstream: Path) -> Tuple[OpRelease, ...]:
    """Every release the upstream folder holds: the fixed ones, then one per torch_npu wheel whose registration
    list is there (``maps update`` adds them), newest first; a wheel line already given by a fixed release
    is skipped."""
    from .vendors import cann

    releases: List[OpRelease] = []
    taken = {(r.target, r.version) for r in OP_RELEASES}
    for version in cann.wheel_versions(upstream):
        line = cann.wheel_line(upstream, version)
        if ("cann", line.version) in taken:
            continue
        taken.add(("cann", line.version))
        skips = "api_support/cann-npu-skips-26.1.0.json" if str(line.branch).endswith("-26.1.0") else None
        releases.append(OpRelease("cann", line.version, line.runtime, line.torch_line,
                                  native_functions_for(upstream, line.torch_line), (line.registrations,),
                                  api_support=cann.wheel_line_api_list(upstream, line.torch_line), npu_skips=skips))
    return tuple(releases) + OP_RELEASES


def native_functions_for(upstream: Path, line: str) -> str:
    """``pytorch/native_functions.torch-<line>.<patch>.yaml`` of the torch line (its newest patch release); a
    line with none bundled uses the newest older line's, which the op map names as its ``aten_source``."""
    found = {}
    for path in (upstream / "pytorch").glob("native_functions.torch-*.yaml"):
        match = re.fullmatch(r"native_functions\.torch-(\d+)\.(\d+)\.(\d+)\.yaml", path.name)
        if match:
            found[tuple(int(n) for n in match.groups())] = f"pytorch/{path.name}"
    want = tuple(int(n) for n in line.split("."))
    older = [v for v in found if v[:2] <= want]
    if not older:
        raise MapsBuildError(f"no native_functions.yaml at or below torch {line} under {upstream / 'pytorch'}")
    return found[max(older)]


#: the torch the API table is traced with (``operator_maps/torch_api.json``): the ops a trace names
TRACED_NATIVE = "pytorch/native_functions.torch-2.13.0.yaml"


def later_composites(universe: Mapping[str, AtenOp], newest: Mapping[str, AtenOp]) -> Dict[str, str]:
    """Ops the traced torch has and this line's torch does not, where the traced torch implements them
    backend-agnostically (``_safe_softmax``, 2.5+, in the trace of ``F.scaled_dot_product_attention``): on
    this line the API decomposes its own way (not traced), so such an op does not decide the verdict; the
    reason says so. Ops the newer torch gives backend kernels stay out (the verdict says "not in aten")."""
    return {op: f"later-{'composite-explicit' if info.kind == 'explicit' else 'composite-implicit'}"
            for op, info in newest.items() if op not in universe and info.kind in ("explicit", "implicit")}


def absent_apis(upstream: Path, native: str) -> Dict[str, Any]:
    """The table's APIs that the release's torch does not have (``pytorch/absent_apis.torch-<version>.json``,
    read from its wheel by ``mapsbuild/torch_names.py``), when that file is bundled. A substitute target's torch
    line is not known, so it gets none."""
    version = re.sub(r"^native_functions\.torch-|\.yaml$", "", Path(native).name)
    rel = f"pytorch/absent_apis.torch-{version}.json"
    if not (upstream / rel).is_file():
        return {}
    data = json.loads(read_text(upstream, rel))
    return {"torch_version": version, "absent_apis": data["absent"],
            "absent_source": f"{Path(rel).name} ({data['_source']['wheel']}, sha256 "
                             f"{data['_source']['wheel_sha256'][:12]}, against {data['_source']['against']})"}


def build_op_maps(upstream: Path, curated: Path) -> Dict[str, Any]:
    outputs: Dict[str, Any] = {}
    universes: Dict[str, Dict[str, AtenOp]] = {}
    for release in op_releases(upstream):
        universe = universes.setdefault(release.native, aten_universe(read_text(upstream, release.native)))
        reader = READERS[release.target]
        ops, dtypes, sources = reader.op_map(upstream, curated, release, universe)
        newest = universes.setdefault(TRACED_NATIVE, aten_universe(read_text(upstream, TRACED_NATIVE)))
        ops.update(later_composites(universe, newest))
        autograd = getattr(reader, "own_autograd", None)
        autograd_ops = sorted(autograd(upstream, release) & set(ops)) if autograd is not None else []
        # ops torch decomposes before any backend sees them (CompositeImplicitAutograd) that the vendor registers
        # itself: its kernel runs instead of what a CPU trace of torch records
        composites = sorted(op for op, info in universe.items()
                            if info.kind == "implicit" and ops.get(op) == "registered")
        outputs[f"ops/{release.target}-{release.version}.json"] = {
            "schema": MAPS_SCHEMA, "target": release.target, "version": release.version,
            "runtime": release.runtime, "torch_line": release.torch_line, "aten_source": source_label(release.native),
            "sources": sources, "substitute": reader.SUBSTITUTE,
            "reasons": REASONS, "ops": {op: ops[op] for op in sorted(ops)},
            **({"dtypes": dtypes} if dtypes else {}),
            **({"own_autograd": autograd_ops} if autograd_ops else {}),
            **({"registered_composites": composites} if composites else {}),
            **({} if reader.SUBSTITUTE else absent_apis(upstream, release.native)),
        }
    return outputs


def count_statuses(ops: Mapping[str, str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for reason in ops.values():
        status = REASONS[reason]
        counts[status] = counts.get(status, 0) + 1
    return dict(sorted(counts.items()))


__all__ = ["OP_RELEASES", "op_releases", "native_functions_for", "REASONS", "build_op_maps", "count_statuses",
           "MapsBuildError"]
