"""Baidu Kunlunxin (XPU, torch_xmlir): the readers of its data.

No public torch_xmlir coverage exists, so both maps are substitutes, and say so: the device map is the
curated shim row (``curated/kunlun.yaml``: torch_xmlir presents itself as ``torch.cuda``), and the op map
is Paddle's Kunlun XPU kernel list joined through a reviewed aten-to-Paddle name table.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Mapping

from ..aten import AtenOp
from ..upstream import MAPS_SCHEMA, parse_yaml, read_text, source_label

if TYPE_CHECKING:
    from ..ops_build import OpRelease


def device_table(curated: Path) -> dict:
    data = parse_yaml((curated / "kunlun.yaml").read_text(encoding="utf-8"))
    return {
        "schema": MAPS_SCHEMA,
        "target": "kunlun",
        "version": data["version"],
        "torch_line": None,
        "runtime": data["runtime"],
        "sources": [data["source"]],
        "import_first": None,
        "substitute": True,
        "device_string": {"from": "cuda", "to": data["device_string"], "source": data["source"]},
        "backend_string": {"from": "nccl", "to": data["backend"], "source": data["source"]},
        "device_kwargs": ["device", "device_type", "map_location", "device_id"],
        "apis": {},
    }


def ops(upstream: Path, curated: Path, release: OpRelease, universe: Mapping[str, AtenOp]):
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


# ------------------------------------------------------------------------------- the reader interface

#: whether the maps are substitute evidence (another stack's data), as the op maps say
SUBSTITUTE = True

DEVICE_MAP = "device/kunlun-shim.json"


def device_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    return {DEVICE_MAP: device_table(curated)}


def device_map(release: "OpRelease") -> str:
    return DEVICE_MAP


def api_support_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    return {}  # no public API list for torch_xmlir


def op_map(upstream: Path, curated: Path, release: "OpRelease", universe: Mapping[str, AtenOp]):
    return ops(upstream, curated, release, universe)


def shim_table(upstream: Path) -> None:
    """None: torch_xmlir keeps CUDA names, so there is nothing for a shim to rename."""
    return None
