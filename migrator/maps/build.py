"""Generate ``operator_maps/`` from the vendors' published data (``shared/upstream``-style folder).

Nothing here is hand-entered coverage: every entry is read from an upstream file and keeps that
file's name and version as its source. The two curated tables under ``operator_maps/curated`` name
replacements, and each of their rows is checked against the upstream file it cites.

The output is deterministic (sorted keys, fixed indentation), so a test can compare the committed
maps with a fresh build byte for byte.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

from .ops_build import OP_RELEASES, build_op_maps
from .upstream import MapsBuildError, parse_yaml, read_json, read_text, source_label

__all__ = ["MapsBuildError", "build_maps", "write_maps"]

MAPS_SCHEMA = "migrator.maps/1"


@dataclass(frozen=True)
class CannRelease:
    version: str  # the id users pick: cann@2.7-9.1
    torch_line: str
    runtime: str
    transfer_file: str
    docs_file: Optional[str]  # Ascend's API docs are for torch 2.7.1 only


CANN_RELEASES = (
    CannRelease(
        version="2.7-9.1",
        torch_line="2.7",
        runtime="torch_npu 2.7.1.post8, CANN 9.1.0",
        transfer_file="cann/transfer_to_npu.torch_npu-v2.7.1-26.1.0.json",
        docs_file="cann/torch_api_support.ascend-docs-pytorch-2.7.1.tsv",
    ),
    CannRelease(
        version="2.1-8.0",
        torch_line="2.1",
        runtime="torch_npu 2.1.0.post10, CANN 8.0.0",
        transfer_file="cann/transfer_to_npu.torch_npu-v2.1.0-6.0.0.json",
        docs_file=None,
    ),
)
NEUWARE_VERSION = "1.25-2.4"
NEUWARE_RUNTIME = "torch_mlu 1.25.0 (r2.4_develop), torch 2.4.1"
NEUWARE_MIGRATION = "neuware/gpu_migration.torch_mlu-r2.4_develop.json"
NEUWARE_API_LIST = "neuware/torch_api.torch_mlu-r2.4_develop.yaml"
NEUWARE_ENV_LIST = "neuware/torch_api.torch_mlu-r2.1_develop.yaml"  # only this branch lists env variables
NATIVE_FUNCTIONS = "pytorch/native_functions.torch-2.7.1.yaml"

#: Cambricon's regex table entries that are whole-token renames, not exact API names.
_NEUWARE_TOKEN_RENAMES = ("cuda", "nccl", "nvtx", "CUDAGraph")


def build_maps(upstream: Path, curated: Path) -> Dict[str, str]:
    """Return {relative output path: file text} for every generated map."""
    upstream = Path(upstream)
    outputs: Dict[str, object] = {}
    devices: Dict[str, str] = {}
    for release in CANN_RELEASES:
        devices[f"cann@{release.torch_line}"] = f"device/cann-torch{release.torch_line}.json"
        outputs[devices[f"cann@{release.torch_line}"]] = _cann_device_table(upstream, release)
    outputs["device/neuware-r2.4.json"] = _neuware_device_table(upstream)
    outputs["device/kunlun-shim.json"] = _kunlun_device_table(curated)
    outputs["api_support/cann-2.7-9.1.json"] = _cann_api_support(upstream, CANN_RELEASES[0], curated)
    outputs[f"api_support/neuware-{NEUWARE_VERSION}.json"] = _neuware_api_support(upstream)
    outputs.update(build_op_maps(upstream, curated))
    targets = []
    runtimes = _runtimes(curated)
    defaults = {row["id"]: row["default_version"] for row in runtimes}
    for release in OP_RELEASES:
        if release.target == "cann":
            device = devices[f"cann@{release.torch_line}"]
        elif release.target == "neuware":
            device = "device/neuware-r2.4.json"  # the only gpu_migration table published
        else:
            device = "device/kunlun-shim.json"
        op_map = f"ops/{release.target}-{release.version}.json"
        sources = sorted(set(outputs[device]["sources"]) | set(outputs[op_map]["sources"]))
        targets.append({
            "id": release.target, "version": release.version, "runtime": release.runtime,
            "torch_line": release.torch_line, "default": defaults[release.target] == release.version,
            "sources": sources, "device_map": device, "op_map": op_map,
            "api_support": release.api_support, "npu_skips": release.npu_skips,
        })
    outputs["third_party.json"] = _third_party_table(upstream, curated)
    outputs["custom_op_families.json"] = _custom_op_families(upstream, curated)
    outputs["cards.json"] = _cards_table(curated)
    outputs["device_tools.json"] = _device_tools_table(curated)
    outputs["tensor_methods.json"] = _tensor_methods(upstream)
    outputs["targets.json"] = {"schema": MAPS_SCHEMA, "targets": targets, "runtimes": runtimes}
    return {path: json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            for path, data in sorted(outputs.items())}


_RUNTIME_FIELDS = ("id", "name", "default_version", "cuda_names", "kernel_language", "kernel_device", "build_hint",
                   "build_change", "dispatch_key", "dispatch_note")


def _runtimes(curated: Path) -> List[dict]:
    """``curated/targets.yaml``: one row per runtime, checked field by field."""
    path = curated / "targets.yaml"
    if not path.is_file():
        raise MapsBuildError(f"missing curated file: {path}")
    rows = (parse_yaml(path.read_text(encoding="utf-8")) or {}).get("runtimes") or []
    for row in rows:
        missing = [f for f in _RUNTIME_FIELDS if f not in row]
        extra = sorted(set(row) - set(_RUNTIME_FIELDS))
        if missing or extra or row["cuda_names"] not in ("renamed", "kept"):
            raise MapsBuildError(f"curated/targets.yaml row {row.get('id')!r}: missing {missing}, unknown {extra}, "
                                 "cuda_names must be renamed or kept")
    return [{f: row[f] for f in _RUNTIME_FIELDS} for row in rows]


def write_maps(upstream: Path, out: Path, curated: Optional[Path] = None) -> List[Path]:
    curated = curated or out / "curated"
    written = []
    for rel, text in build_maps(upstream, curated).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# --------------------------------------------------------------------------------------------- helpers


# ---------------------------------------------------------------------------------------------- CANN


def _cann_device_table(upstream: Path, release: CannRelease) -> dict:
    transfer = read_json(upstream, release.transfer_file)
    tsource = source_label(release.transfer_file, transfer.get("_source"))
    sources = [tsource]
    string_map = dict(transfer["string_replacements_in_device_args"])
    apis: Dict[str, dict] = {}
    for table in transfer["monkey_patch_tables"].values():
        for row in table:
            if _is_cuda_name(row["torch_attr"]):
                apis[row["torch_attr"]] = {"to": row["replaced_by"], "source": tsource}
    for row in transfer["attribute_assignments_in_init"]:
        if row["value_kind"] == "attribute" and _is_cuda_name(row["target"]) and "." in row["value"]:
            apis[row["target"]] = {"to": row["value"], "source": tsource}
    if release.docs_file:
        dsource = source_label(release.docs_file) + " (Ascend/pytorch docs, PyTorch 2.7.1 API list)"
        sources.append(dsource)
        for row in _ascend_docs_rows(read_text(upstream, release.docs_file)):
            api = _full_api_name(row["api"])
            if not _is_cuda_name(api):
                continue
            a2 = row.get("Atlas_A2_训练系列产品", "")
            entry = {"source": dsource, "documented": a2}
            if row.get("npu_name"):
                entry["to"] = row["npu_name"]
            if row.get("limitations"):
                entry["limitations"] = row["limitations"]
            if a2 == "N":
                entry["status"] = "unsupported"
            elif api in apis and "to" not in entry:
                entry["to"] = apis[api]["to"]
            elif a2 == "Y" and "to" not in entry and not api.startswith("torch.cuda."):
                entry["status"] = "supported"  # documented as working as written (a cudnn flag, say)
            apis[api] = entry
    return {
        "schema": MAPS_SCHEMA,
        "target": "cann",
        "version": release.version,
        "torch_line": release.torch_line,
        "runtime": release.runtime,
        "sources": sources,
        "import_first": "import torch_npu",
        "device_string": {"from": "cuda", "to": string_map["cuda"], "source": tsource},
        "backend_string": {"from": "nccl", "to": string_map["nccl"], "source": tsource},
        "device_kwargs": sorted(transfer["module_level_lists"]["device_kwargs_list"]),
        "apis": apis,
    }


def _ascend_docs_rows(text: str) -> Iterable[Dict[str, str]]:
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return csv.DictReader(io.StringIO("\n".join(lines)), delimiter="\t", quoting=csv.QUOTE_NONE)


def _cann_api_support(upstream: Path, release: CannRelease, curated: Path) -> dict:
    """Ascend's Python-API list: documented Y/N on Atlas A2 training hardware, with limitation text; and the
    environment variables from the curated, documentation-cited table."""
    apis = {}
    for row in _ascend_docs_rows(read_text(upstream, release.docs_file)):
        entry = {"documented": row.get("Atlas_A2_训练系列产品", "")}
        if row.get("limitations"):
            entry["limitations"] = row["limitations"]
        apis[_full_api_name(row["api"])] = entry
    return {"schema": MAPS_SCHEMA, "target": "cann", "version": release.version,
            "source": source_label(release.docs_file) + " (Ascend/pytorch docs; absent = not verified by Ascend)",
            "apis": apis, **_curated_environment(curated, "cann")}


def _curated_environment(curated: Path, target: str) -> dict:
    rows = (parse_yaml((curated / "environment.yaml").read_text(encoding="utf-8")) or {}).get(target) or {}
    env = {name: {"to": row["to"], "exact": bool(row.get("exact", True)), "note": row.get("note"),
                  "doc": row["doc"]} for name, row in sorted(rows.items())}
    return {"env": env, "env_source": "operator_maps/curated/environment.yaml (vendor documentation, quoted)"}


# ------------------------------------------------------------------------------------------- Neuware


def _neuware_api_support(upstream: Path) -> dict:
    """Cambricon's Python-API list (validated or not, limitations) and its environment-variable table."""
    apis, env = {}, {}
    for api, item in _cambricon_api_items(read_text(upstream, NEUWARE_API_LIST)):
        entry = {"validated": bool(item.get("supported"))}
        if item.get("limitations"):
            entry["limitations"] = _flatten(item["limitations"])
        apis[api] = entry
    for api, item in _cambricon_api_items(read_text(upstream, NEUWARE_ENV_LIST)):
        if api.isupper() and "." not in api:
            corresponding = str(item.get("corresponding MLU api") or "").strip()
            env[api] = {"to": corresponding if corresponding not in ("", "N/A", "None") else None,
                        "validated": bool(item.get("supported"))}
    return {"schema": MAPS_SCHEMA, "target": "neuware", "version": NEUWARE_VERSION,
            "source": source_label(NEUWARE_API_LIST) + " (Cambricon API list; false = not validated on MLU)",
            "env_source": source_label(NEUWARE_ENV_LIST) + " (environment variables section)",
            "apis": apis, "env": env}



def _neuware_device_table(upstream: Path) -> dict:
    migration = read_json(upstream, NEUWARE_MIGRATION)
    msource = source_label(NEUWARE_MIGRATION, migration.get("_source"))
    lsource = source_label(NEUWARE_API_LIST) + " (Cambricon/torch_mlu API support list)"
    regex = migration["torch_gpu2mlu_regex_tables"]["regex_dict"]
    strings = dict(migration["gpu_migration_string_replacements_in_args"])
    apis: Dict[str, dict] = {"torch.cuda": {"to": "torch." + regex["cuda"], "source": msource}}
    for src, dst in regex.items():
        if src not in _NEUWARE_TOKEN_RENAMES and "." in src:
            apis[src] = {"to": dst, "source": msource}
    for row in migration["gpu_migration_attribute_assignments"]:
        target, value = row["target"], row["value"]
        if row["value_kind"] != "attribute" or not _is_cuda_name(target) or "." not in value:
            continue
        if target.startswith("c10d.") or target.startswith("torch._C."):
            continue
        apis[target] = {"to": value, "source": msource}
    for api, item in _cambricon_api_items(read_text(upstream, NEUWARE_API_LIST)):
        if not _is_cuda_name(api):
            continue
        entry = dict(apis.get(api, {}))
        entry["source"] = lsource
        entry["validated"] = bool(item.get("supported"))
        corresponding = item.get("corresponding MLU api")
        if corresponding and str(corresponding).strip() not in ("", "None"):
            entry["to"] = str(corresponding).strip()
        if item.get("limitations"):
            entry["limitations"] = _flatten(item["limitations"])
        if item.get("supported") and "to" not in entry and not api.startswith("torch.cuda."):
            entry["status"] = "supported"
        apis[api] = entry
    return {
        "schema": MAPS_SCHEMA,
        "target": "neuware",
        "version": NEUWARE_VERSION,
        "torch_line": "2.4",
        "runtime": NEUWARE_RUNTIME,
        "sources": [msource, lsource],
        "import_first": "import torch_mlu",
        "device_string": {"from": "cuda", "to": strings["cuda"], "source": msource},
        "backend_string": {"from": "nccl", "to": strings["nccl"], "source": msource},
        "device_kwargs": ["device", "device_type", "map_location", "device_id"],
        "apis": apis,
    }


def _cambricon_api_items(text: str) -> Iterable[tuple]:
    for section in parse_yaml(text) or []:
        for _, items in (section or {}).items():
            for item in items or []:
                if isinstance(item, dict) and item.get("api"):
                    yield str(item["api"]), item


def _flatten(value: object) -> str:
    if isinstance(value, list):
        return " / ".join(str(v) for v in value)
    return str(value)


# -------------------------------------------------------------------------------------------- Kunlun


def _kunlun_device_table(curated: Path) -> dict:
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


# --------------------------------------------------------------------------------------- third party


def _checked_evidence(upstream: Path, cache: Dict[str, str], evidence: Sequence[str], what: str) -> str:
    """The upstream file a curated row cites, after checking that it contains the quoted text."""
    rel, needle = evidence
    needle = needle.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
    text = cache.setdefault(rel, read_text(upstream, rel))
    if needle not in text:
        raise MapsBuildError(f"{what}: {rel} does not contain {needle!r}")
    return rel


def _third_party_table(upstream: Path, curated: Path) -> dict:
    data = parse_yaml((curated / "third_party.yaml").read_text(encoding="utf-8"))
    cache: Dict[str, str] = {}
    apis: Dict[str, dict] = {}
    for api, per_target in sorted(data["apis"].items()):
        apis[api] = {}
        for target, row in sorted(per_target.items()):
            rel = _checked_evidence(upstream, cache, row["evidence"], f"third_party.yaml: {api} for {target}")
            apis[api][target] = {
                "status": row["status"],
                "to": row["to"],
                "note": row["note"],
                "source": Path(rel).name,
            }
    pytorch = {api: {"to": row["to"], "note": row["note"]} for api, row in sorted((data.get("pytorch") or {}).items())}
    return {"schema": MAPS_SCHEMA, "libraries": data["libraries"], "apis": apis, "pytorch": pytorch,
            "source": "operator_maps/curated/third_party.yaml (each row checked against its upstream file)"}


def _device_tools_table(curated: Path) -> dict:
    """Per target: its software stack's name and the tools standing in for NVIDIA's, each row quoting its page."""
    data = parse_yaml((curated / "device_tools.yaml").read_text(encoding="utf-8")) or {}
    for target, row in data.items():
        for tool, entry in (row.get("tools") or {}).items():
            if not entry.get("to") or not entry.get("doc") or not entry.get("quote"):
                raise MapsBuildError(f"device_tools.yaml: {target} {tool} needs to, doc and quote")
    return {"schema": "migrator.device-tools/1", "targets": data,
            "source": "operator_maps/curated/device_tools.yaml (vendor documentation, quoted)"}




def _cards_table(curated: Path) -> dict:
    """Accelerator cards for ``migrator memory``: every row must cite its source; unknowns stay null."""
    from ..memory.cards import CARD_FIELDS

    cards = (parse_yaml((curated / "cards.yaml").read_text(encoding="utf-8")) or {}).get("cards") or {}
    for card_id, row in cards.items():
        unknown = set(row) - CARD_FIELDS
        if unknown or not row.get("source") or not isinstance(row.get("memory_gb"), (int, float)):
            raise MapsBuildError(f"cards.yaml: {card_id} needs name, memory_gb and a source "
                                 f"(unknown fields: {sorted(unknown)})")
    return {"schema": "migrator.cards/1", "cards": cards,
            "source": "operator_maps/curated/cards.yaml (each row cites where its numbers come from)"}


def _custom_op_families(upstream: Path, curated: Path) -> dict:
    data = parse_yaml((curated / "custom_op_families.yaml").read_text(encoding="utf-8"))
    cache: Dict[str, str] = {}
    families = []
    for name, family in data["families"].items():
        for pattern in family["match"]:
            re.compile(pattern)  # a bad pattern fails the build, not a scan
        targets = {}
        for target, row in sorted((family.get("targets") or {}).items()):
            rel = _checked_evidence(upstream, cache, row["evidence"], f"custom_op_families.yaml: {name} for {target}")
            targets[target] = {"to": row["to"], "mapping": row["mapping"], "differs": row["differs"],
                               "source": Path(rel).name}
        hints = {}
        for target, row in sorted((family.get("kernel_hint") or {}).items()):
            rel = _checked_evidence(upstream, cache, row["evidence"], f"custom_op_families.yaml: {name} hint for {target}")
            hints[target] = {"kernel": row["kernel"], "source": Path(rel).name}
        families.append({"name": name, "what": family["what"], "match": list(family["match"]),
                         "pytorch": family.get("pytorch"), "pytorch_note": family.get("pytorch_note"),
                         "targets": targets, "kernel_hint": hints})
    return {"schema": MAPS_SCHEMA, "families": families,
            "source": "operator_maps/curated/custom_op_families.yaml (each vendor row checked against its upstream file)"}


# ------------------------------------------------------------------------------------ tensor methods


def _tensor_methods(upstream: Path) -> dict:
    """Names that are Tensor methods: native_functions.yaml method variants plus the vendors' API lists."""
    names = set()
    for entry in parse_yaml(read_text(upstream, NATIVE_FUNCTIONS)):
        variants = str(entry.get("variants", "function"))
        if "method" in variants:
            names.add(entry["func"].split("(", 1)[0].split(".", 1)[0])
    docs = upstream / "cann/torch_api_support.ascend-docs-pytorch-2.7.1.tsv"
    if docs.is_file():
        for row in _ascend_docs_rows(docs.read_text(encoding="utf-8")):
            api = _full_api_name(row["api"])
            if api.startswith("torch.Tensor."):
                names.add(api.split(".")[2])
    for api, _ in _cambricon_api_items(read_text(upstream, NEUWARE_API_LIST)):
        if api.startswith("torch.Tensor."):
            names.add(api.split(".")[2])
    names = {n for n in names if n.isidentifier() and not n.startswith("__")}
    return {"schema": MAPS_SCHEMA, "sources": [Path(NATIVE_FUNCTIONS).name, Path(NEUWARE_API_LIST).name,
                                               "torch_api_support.ascend-docs-pytorch-2.7.1.tsv"],
            "methods": sorted(names)}


def _full_api_name(api: str) -> str:
    """Ascend's docs write some methods as ``Tensor.cuda``; everything else is fully qualified."""
    return "torch." + api if api.startswith(("Tensor.", "nn.")) else api


def _is_cuda_name(name: str) -> bool:
    parts = name.split(".")
    return any(p in ("cuda", "cudnn") or "CUDA" in p or "NCCL" in p or "nccl" in p or "nvtx" in p
               for p in parts)

