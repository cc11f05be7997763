"""Cambricon (Neuware, torch_mlu): the readers of its published files.

- ``gpu_migration``'s tables and the torch_mlu API list: the device map (``device/neuware-r2.4.json``)
- the API list (validated or not, limitations) and its environment-variable section: the API-support list
- ``mlu_functions.yaml``: the aten ops with a kernel
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Set, Tuple

from ..aten import AtenOp, classify
from ..upstream import MAPS_SCHEMA, is_cuda_name, parse_yaml, read_json, read_text, source_label

if TYPE_CHECKING:
    from ..release import OpRelease

NEUWARE_VERSION = "1.25-2.4"
NEUWARE_RUNTIME = "torch_mlu 1.25.0 (r2.4_develop), torch 2.4.1"
NEUWARE_MIGRATION = "neuware/gpu_migration.torch_mlu-r2.4_develop.json"
NEUWARE_API_LIST = "neuware/torch_api.torch_mlu-r2.4_develop.yaml"
NEUWARE_ENV_LIST = "neuware/torch_api.torch_mlu-r2.1_develop.yaml"  # only this branch lists env variables

#: Cambricon's regex table entries that are whole-token renames, not exact API names.
_NEUWARE_TOKEN_RENAMES = ("cuda", "nccl", "nvtx", "CUDAGraph")


def api_support(upstream: Path) -> dict:
    """Cambricon's Python-API list (validated or not, limitations) and its environment-variable table."""
    apis, env = {}, {}
    for api, item in api_items(read_text(upstream, NEUWARE_API_LIST)):
        entry: Dict[str, Any] = {"validated": bool(item.get("supported"))}
        if item.get("limitations"):
            entry["limitations"] = _flatten(item["limitations"])
        apis[api] = entry
    for api, item in api_items(read_text(upstream, NEUWARE_ENV_LIST)):
        if api.isupper() and "." not in api:
            corresponding = str(item.get("corresponding MLU api") or "").strip()
            env[api] = {"to": corresponding if corresponding not in ("", "N/A", "None") else None,
                        "validated": bool(item.get("supported"))}
    return {"schema": MAPS_SCHEMA, "target": "neuware", "version": NEUWARE_VERSION,
            "source": source_label(NEUWARE_API_LIST) + " (Cambricon API list; false = not validated on MLU)",
            "env_source": source_label(NEUWARE_ENV_LIST) + " (environment variables section)",
            "apis": apis, "env": env}



def device_table(upstream: Path) -> dict:
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
        if row["value_kind"] != "attribute" or not is_cuda_name(target) or "." not in value:
            continue
        if target.startswith("c10d.") or target.startswith("torch._C."):
            continue
        apis[target] = {"to": value, "source": msource}
    for api, item in api_items(read_text(upstream, NEUWARE_API_LIST)):
        if not is_cuda_name(api):
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


def api_items(text: str) -> Iterable[tuple]:
    for section in parse_yaml(text) or []:
        for _, items in (section or {}).items():
            for item in items or []:
                if isinstance(item, dict) and item.get("api"):
                    yield str(item["api"]), item


def _flatten(value: object) -> str:
    if isinstance(value, list):
        return " / ".join(str(v) for v in value)
    return str(value)


def registered(upstream: Path, release: OpRelease) -> Tuple[Set[str], List[str]]:
    [rel] = release.registrations
    data = parse_yaml(read_text(upstream, rel))
    registered: Set[str] = set()
    for entry in data.get("aten") or []:
        registered.add("aten::" + str(entry["func"]).split("(", 1)[0])
    return registered, [source_label(rel) + " (aten section)"]


def own_autograd(upstream: Path, release: OpRelease) -> Set[str]:
    """The aten ops torch_mlu registers with its own autograd (``custom_autograd: True``: ``ctc_loss.IntList``,
    backed by its warp-ctc kernels): their backward is the vendor's, not the one a CPU trace of torch saw."""
    [rel] = release.registrations
    data = parse_yaml(read_text(upstream, rel))
    return {"aten::" + str(entry["func"]).split("(", 1)[0] for entry in data.get("aten") or []
            if entry.get("custom_autograd") is True}


# ------------------------------------------------------------------------------- the reader interface

#: whether the maps are substitute evidence (another stack's data), as the op maps say
SUBSTITUTE = False

DEVICE_MAP = "device/neuware-r2.4.json"  # the only gpu_migration table published


def pairing_rows(upstream: Path) -> List[Dict[str, str]]:
    """No published table pairs a torch version with a plugin build for this runtime."""
    return []


def device_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    return {DEVICE_MAP: device_table(upstream)}


def device_map(release: "OpRelease") -> str:
    return DEVICE_MAP


def api_support_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    return {f"api_support/neuware-{NEUWARE_VERSION}.json": api_support(upstream)}


def op_map(upstream: Path, curated: Path, release: "OpRelease", universe: Mapping[str, AtenOp]):
    found, sources = registered(upstream, release)
    return {op: classify(info, found) for op, info in universe.items()}, {}, sources


#: The runtime patcher: importing it makes CUDA spellings run on the MLU (``fix --shim`` adds these lines).
SHIM_IMPORTS = ("import torch_mlu", "import torch_mlu.utils.gpu_migration")


def shim_table(upstream: Path) -> dict:
    """What ``torch_mlu.utils.gpu_migration`` does when imported, from its extracted tables: the attributes it
    swaps (``torch.cuda`` is repopulated from ``torch.mlu``), and the callables whose device and backend
    arguments it rewrites."""
    migration = read_json(upstream, NEUWARE_MIGRATION)
    lists = migration["gpu_migration_module_level_data"]
    swapped = {"torch.cuda": "torch.mlu"}  # migration.py's update_dict(torch.cuda, torch.mlu)
    rewrites: List[str] = []
    for row in migration["gpu_migration_attribute_assignments"]:
        value = row["value"]
        if row["value_kind"] == "attribute":
            swapped[row["target"]] = value
        elif value.startswith(("replace_device_args(", "replace_nccl_with_cncl(", "replace_autocast(",
                               "replace_dataloader(")):
            target = row["target"].replace("c10d.", "torch.distributed.", 1) if row["target"].startswith("c10d.") \
                else row["target"]
            rewrites.append(target[: -len(".__init__")] if target.endswith(".__init__") else target)
    for row in migration["gpu_migration_device_argument_rewrites"]:
        if row.get("wrapper") != "replace_device" or row["object"] == "mod":
            continue
        names = lists.get(row["functions_from"], []) if "functions_from" in row else row["functions"]
        rewrites.extend(f"{row['object']}.{name}" if name not in ("__init__", "__new__") else row["object"]
                        for name in names if isinstance(name, str))
    rewrites.extend(lists.get("class_list", []))
    for row in lists.get("other_fn_list", []):
        rewrites.extend(f"{row['mod']}.{name}" for name in row["fn_list"])
    return {"imports": list(SHIM_IMPORTS), "source": source_label(NEUWARE_MIGRATION, migration.get("_source")),
            "runtime": NEUWARE_RUNTIME, "swapped": dict(sorted(swapped.items())),
            "rewrites_arguments_of": sorted(set(rewrites)),
            "strings": [list(pair) for pair in migration["gpu_migration_string_replacements_in_args"]]}
