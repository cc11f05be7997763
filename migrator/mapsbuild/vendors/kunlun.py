"""Baidu Kunlunxin (XPU, torch_xmlir): the readers of its data.

No public torch_xmlir coverage exists, so both maps are substitutes, and say so: the device map of each
generation is the curated shim row (``curated/kunlun.yaml``: torch_xmlir presents itself as ``torch.cuda``)
with what Kunlunxin's own ports change on it (its backend name, ``adaptations``), and the op map is Paddle's
Kunlun XPU kernel list joined through a reviewed aten-to-Paddle name table.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Mapping

from ..aten import AtenOp
from ..upstream import (MAPS_SCHEMA, MapsBuildError, checked_sources, curated_environment, parse_yaml, read_text,
                        source_label)
from .kunlun_bridge import PACONVERT, bridge_rows

if TYPE_CHECKING:
    from ..release import OpRelease


def device_table(upstream: Path, curated: Path, generation: str) -> dict:
    """The shim row of one generation: CUDA names kept, the collective backend its sources use, and what
    Kunlunxin's own adaptations change (``adaptations``), each row's quote checked against its upstream file."""
    data = parse_yaml((curated / "kunlun.yaml").read_text(encoding="utf-8"))
    row = data["generations"][generation]
    cache: Dict[str, str] = {}
    if row.get("backend_evidence"):
        backend_source = checked_sources(upstream, cache, row["backend_evidence"], f"kunlun.yaml: {generation} backend")
    else:
        backend_source = str(row["backend_cited"])
    return {
        "schema": MAPS_SCHEMA,
        "target": "kunlun",
        "version": generation,
        "torch_line": None,
        "runtime": data["runtime"],
        "sources": [data["source"]],
        "import_first": None,
        "substitute": True,
        "device_string": {"from": "cuda", "to": data["device_string"], "source": data["source"]},
        "backend_string": {"from": "nccl", "to": row["backend"], "source": f"{backend_source}: {row['backend_note']}"},
        "device_kwargs": ["device", "device_type", "map_location", "device_id"],
        "apis": {},
        "adaptations": adaptations(upstream, data["adaptations"], generation, cache),
        "dtype_caveats": {dtype: {"note": caveat["note"], "source": checked_sources(
            upstream, cache, caveat["evidence"], f"kunlun.yaml: {generation} {dtype}")}
            for dtype, caveat in sorted((row.get("dtype_caveats") or {}).items())},
    }


def adaptations(upstream: Path, rows: Mapping[str, Mapping], generation: str, cache: Dict[str, str]) -> dict:
    """``curated/kunlun.yaml`` adaptations that apply to ``generation``; ``same_as`` rows share another's."""
    out = {}
    for api, row in sorted(rows.items()):
        row = rows[row["same_as"]] if "same_as" in row else row
        if generation not in row["generations"]:
            continue
        if row["status"] not in ("partial", "rewrite", "unsupported", "unknown"):
            raise MapsBuildError(f"kunlun.yaml: {api}: status must be partial, rewrite, unsupported or unknown")
        if row.get("evidence"):
            source = checked_sources(upstream, cache, row["evidence"], f"kunlun.yaml: {api} for {generation}")
        elif row.get("cited"):
            source = str(row["cited"])
        else:
            raise MapsBuildError(f"kunlun.yaml: {api} cites no evidence")
        out[api] = {"status": row["status"], "to": row.get("to"), "note": row["note"], "source": source,
                    "ran_unchanged": bool(row.get("ran_unchanged")), "kinds": list(row.get("kinds") or ())}
    return out


@lru_cache(maxsize=None)
def xpu_list(upstream: Path, rel: str) -> Mapping[str, List[str]]:
    """Paddle op name -> the dtypes one generation's XPU list registers (read once: the op map and the bridge
    table both join with it)."""
    listed: Dict[str, List[str]] = {}
    for line in read_text(upstream, rel).splitlines():
        if line.startswith("#") or line.startswith("paddle_op\t") or not line.strip():
            continue
        name, _, dtypes = line.partition("\t")
        listed[name] = sorted(set(listed.get(name, [])) | {d for d in dtypes.split(",") if d})
    return listed


def ops(upstream: Path, curated: Path, release: OpRelease, universe: Mapping[str, AtenOp]):
    [rel] = release.registrations
    listed = xpu_list(upstream, rel)
    table = parse_yaml((curated / "kunlun_aten_to_paddle.yaml").read_text(encoding="utf-8"))
    bridged = bridge_table(upstream, rel)["apis"]
    ops: Dict[str, str] = {}
    dtypes: Dict[str, List[str]] = {}
    for overload, info in universe.items():
        base = overload.split("::", 1)[1].split(".", 1)[0]
        # an in-place variant (``sqrt_``) runs its op's computation: its row is the op's, unless it has its own
        paddle = table.get(base) or (table.get(base[:-1]) if base.endswith("_") and not base.endswith("__") else None)
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
            names = (base, base[:-1]) if base.endswith("_") and not base.endswith("__") else (base,)
            row = next((bridged[f"{prefix}{name}"] for name in names for prefix in BRIDGE_PREFIXES
                        if f"{prefix}{name}" in bridged), None)
            ops[overload] = BRIDGE_REASONS[str(row["status"])] if row else "kunlun-unmapped"
    sources = [source_label(rel) + " (substitute: Paddle's Kunlun kernel list)",
               "operator_maps/curated/kunlun_aten_to_paddle.yaml (reviewed aten-to-Paddle names)",
               source_label(PACONVERT) + " (an aten op with no reviewed row: the PaConvert row of the torch "
                                         "function of its name, joined with the same list)"]
    return ops, dtypes, sources


# ------------------------------------------------------------------------------- the reader interface

#: whether the maps are substitute evidence (another stack's data), as the op maps say
SUBSTITUTE = True

GENERATIONS = ("kl2", "kl3")


def pairing_rows(upstream: Path) -> List[Dict[str, str]]:
    """No published table pairs a torch version with a plugin build for this runtime."""
    return []


def device_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    return {f"device/kunlun-{generation}.json": device_table(upstream, curated, generation)
            for generation in GENERATIONS}


def device_map(release: "OpRelease") -> str:
    return f"device/kunlun-{release.version}.json"


API_SUPPORT = "api_support/kunlun.json"


#: each generation's XPU list, which its bridge table joins PaConvert's rows with
XPU_LISTS = {"kl2": "kunlun/xpu2_op_list.paddle-700e9024.tsv", "kl3": "kunlun/xpu3_op_list.paddle-700e9024.tsv"}


#: the torch functions whose name an aten op carries (``aten::erf`` is what ``torch.erf`` dispatches), in the
#: order their bridge rows are asked for an aten op the reviewed table lacks (an in-place ``erf_`` falls back to
#: ``erf``'s rows, as it does in the reviewed table)
BRIDGE_PREFIXES = ("torch.", "torch.Tensor.", "torch.nn.functional.", "torch.special.", "torch.linalg.")
BRIDGE_REASONS = {"supported": "kunlun-bridged", "partial": "kunlun-bridged-partial",
                  "fallback": "kunlun-bridged-unlisted"}


@lru_cache(maxsize=None)
def bridge_table(upstream: Path, rel: str) -> dict:
    """One XPU list's bridge table, built once per ``maps build`` (the op map and the API table both read it)."""
    return bridge_rows(upstream, rel, xpu_list(upstream, rel))


def api_support_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    """No public API list for torch_xmlir: the table holds the launch-environment renames alone; beside it,
    each generation's bridge table (PaConvert's torch -> Paddle rows joined with its XPU list)."""
    tables = {API_SUPPORT: {"schema": MAPS_SCHEMA, "target": "kunlun", "version": "all",
                            "source": "no public torch_xmlir API list", "apis": {},
                            **curated_environment(upstream, curated, "kunlun")}}
    for generation, rel in XPU_LISTS.items():
        tables[f"api_support/kunlun-bridge-{generation}.json"] = bridge_table(upstream, rel)
    return tables


def op_map(upstream: Path, curated: Path, release: "OpRelease", universe: Mapping[str, AtenOp]):
    return ops(upstream, curated, release, universe)


def shim_table(upstream: Path) -> None:
    """None: torch_xmlir keeps CUDA names, so there is nothing for a shim to rename."""
    return None
