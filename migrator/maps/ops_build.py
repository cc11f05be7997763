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
from typing import Dict, Mapping, Optional, Tuple

from .aten import AtenOp, aten_universe
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
              api_support="api_support/kunlun.json"),
    OpRelease("kunlun", "kl2", "torch_xmlir on Kunlunxin R200 (XPU2); substitute data: Paddle's XPU2 op list",
              "2.7", "pytorch/native_functions.torch-2.7.1.yaml", ("kunlun/xpu2_op_list.paddle-700e9024.tsv",),
              api_support="api_support/kunlun.json"),
)


def build_op_maps(upstream: Path, curated: Path) -> Dict[str, object]:
    outputs: Dict[str, object] = {}
    universes: Dict[str, Dict[str, AtenOp]] = {}
    for release in OP_RELEASES:
        universe = universes.setdefault(release.native, aten_universe(read_text(upstream, release.native)))
        reader = READERS[release.target]
        ops, dtypes, sources = reader.op_map(upstream, curated, release, universe)
        outputs[f"ops/{release.target}-{release.version}.json"] = {
            "schema": MAPS_SCHEMA, "target": release.target, "version": release.version,
            "runtime": release.runtime, "torch_line": release.torch_line, "aten_source": source_label(release.native),
            "sources": sources, "substitute": reader.SUBSTITUTE,
            "reasons": REASONS, "ops": {op: ops[op] for op in sorted(ops)},
            **({"dtypes": dtypes} if dtypes else {}),
        }
    return outputs


def count_statuses(ops: Mapping[str, str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for reason in ops.values():
        status = REASONS[reason]
        counts[status] = counts.get(status, 0) + 1
    return dict(sorted(counts.items()))


__all__ = ["OP_RELEASES", "REASONS", "build_op_maps", "count_statuses", "MapsBuildError"]
