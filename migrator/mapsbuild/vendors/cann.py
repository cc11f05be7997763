"""Huawei Ascend (CANN, torch_npu): the readers of its published files.

- ``transfer_to_npu``'s patch tables and Ascend's API docs: the device map (``device/cann-torch*.json``)
- Ascend's API docs and the curated environment table: the API-support list
- op-plugin's and torch_npu's registrations: the aten ops with a kernel on each torch line
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Set, Tuple

from ..aten import AtenOp, classify
from ..upstream import (MAPS_SCHEMA, MapsBuildError, curated_environment, is_cuda_name, parse_yaml, read_json,
                        read_text, source_label)

if TYPE_CHECKING:
    from ..release import OpRelease


@dataclass(frozen=True)
class CannRelease:
    version: str  # the id users pick: cann@2.7-9.1
    torch_line: str
    runtime: str
    transfer_file: str
    docs_file: Optional[str]  # Ascend's API list for the line (2.7.1, 2.11.0, 2.12.0, 2.13.0), if it has one


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


def device_table(upstream: Path, release: CannRelease) -> dict:
    transfer = read_json(upstream, release.transfer_file)
    tsource = source_label(release.transfer_file, transfer.get("_source"))
    sources = [tsource]
    string_map = dict(transfer["string_replacements_in_device_args"])
    if not {"cuda", "nccl"} <= set(string_map):
        raise MapsBuildError(f"{release.transfer_file}: transfer_to_npu rewrites no 'cuda' and 'nccl' arguments")
    apis: Dict[str, dict] = {}
    for table in transfer["monkey_patch_tables"].values():
        for row in table:
            if is_cuda_name(row["torch_attr"]):
                apis[row["torch_attr"]] = {"to": row["replaced_by"], "source": tsource}
    for row in transfer["attribute_assignments_in_init"]:
        if row["value_kind"] == "attribute" and is_cuda_name(row["target"]) and "." in row["value"]:
            apis[row["target"]] = {"to": row["value"], "source": tsource}
    if release.docs_file:
        version = docs_version(release.docs_file)
        dsource = source_label(release.docs_file) + f" (Ascend/pytorch docs, PyTorch {version} API list)"
        sources.append(dsource)
        for row in docs_rows(upstream, release.docs_file):
            api = full_api_name(row["api"])
            if not is_cuda_name(api):
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


@lru_cache(maxsize=None)
def docs_rows(upstream: Path, rel: str) -> Tuple[Dict[str, str], ...]:
    """The rows of one Ascend docs TSV, read once per build (the device map, the API list and the
    tensor-method list all read it)."""
    lines = [line for line in read_text(upstream, rel).splitlines() if not line.startswith("#")]
    return tuple(csv.DictReader(io.StringIO("\n".join(lines)), delimiter="\t", quoting=csv.QUOTE_NONE))


def api_support(upstream: Path, release: CannRelease, curated: Path) -> dict:
    """Ascend's Python-API list: documented Y/N on Atlas A2 training hardware, with limitation text; and the
    environment variables from the curated, documentation-cited table."""
    assert release.docs_file is not None, "only a release with an API list has its support read"
    apis = {}
    for row in docs_rows(upstream, release.docs_file):
        entry = {"documented": row.get("Atlas_A2_训练系列产品", "")}
        if row.get("limitations"):
            entry["limitations"] = row["limitations"]
        apis[full_api_name(row["api"])] = entry
    return {"schema": MAPS_SCHEMA, "target": "cann", "version": release.version,
            "source": source_label(release.docs_file) + " (Ascend/pytorch docs; absent = not verified by Ascend)",
            "apis": apis, **curated_environment(upstream, curated, "cann")}


def full_api_name(api: str) -> str:
    """Ascend's docs write some methods as ``Tensor.cuda``; everything else is fully qualified."""
    return "torch." + api if api.startswith(("Tensor.", "nn.")) else api


# ------------------------------------------------------------------ torch_npu's published lines (its wheels)

#: Ascend's version-pairing table (``COMPATIBILITY.en.md`` of Ascend/pytorch master), verbatim
COMPATIBILITY_FILE = "cann/COMPATIBILITY.torch_npu-master.en.md"
#: the registration list each torch_npu wheel ships (op-plugin's and torch_npu's entries for its torch line)
WHEEL_REGISTRATIONS = "cann/npu_native_functions_by_codegen.torch_npu-{version}.yaml"
_WHEEL_FILE = re.compile(r"npu_native_functions_by_codegen\.torch_npu-(?P<version>[0-9][0-9a-z.]*)\.yaml")


@dataclass(frozen=True)
class Pairing:
    """One row of Ascend's compatibility table: a torch_npu package, its branch, torch and CANN versions."""

    torch_npu: str  # 2.11.0, 2.9.0.post6
    branch: str  # v2.11.0-26.1.0
    torch: str  # 2.11.0
    cann: str  # 9.1.0, 8.3.RC1

    @property
    def torch_line(self) -> str:
        return version_line(self.torch)


def version_line(version: str) -> str:
    """``2.11.0+cu126`` / ``2.9.0.post6`` -> ``2.11`` / ``2.9``."""
    return ".".join(re.split(r"[+]", version)[0].split(".")[:2])


def version_key(version: str) -> Tuple[int, ...]:
    """Orders ``2.9.0.post6`` before ``2.10.0`` and ``2.10.0.post4`` after ``2.10.0``; a release candidate
    (``2.10.0rc1``) before its release."""
    numbers = [int(n) for n in re.findall(r"\d+", re.split(r"rc", version)[0])]
    return tuple(numbers + [0] * (5 - len(numbers))) + ((0,) if "rc" in version else (1,))


@lru_cache(maxsize=None)
def pairings(upstream: Path) -> Tuple[Pairing, ...]:
    """The rows of every version table in Ascend's compatibility document (current and historical)."""
    rows = []
    for line in read_text(upstream, COMPATIBILITY_FILE).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"v\d+\.\d+\.\d+-\S+", cells[1]):
            rows.append(Pairing(torch_npu=cells[0].split()[0], branch=cells[1], torch=cells[2],
                                cann=cells[3].replace("CANN", "").strip()))
    if not rows:
        raise MapsBuildError(f"{COMPATIBILITY_FILE}: no version table found")
    return tuple(rows)


def recommended(upstream: Path) -> Optional[str]:
    """The torch_npu version of Ascend's "Recommended Version Combination" (the default cann line)."""
    match = re.search(r"\|\s*TorchNPU\s*\|\s*([0-9][0-9a-z.]*)", read_text(upstream, COMPATIBILITY_FILE))
    return match.group(1) if match else None


def pairing_rows(upstream: Path) -> List[Dict[str, str]]:
    """Which torch_npu to install beside a torch version: Ascend's compatibility rows in the table's order
    (newest CANN first for one torch version), then each wheel line the table does not name, by the torch
    its wheel requires (``cann/wheels.json``)."""
    source = source_label(COMPATIBILITY_FILE) + " (Ascend/pytorch@9e73e708ab93)"
    rows = [{"torch": p.torch, "package": "torch_npu", "version": p.torch_npu, "runtime": f"CANN {p.cann}",
             "source": source} for p in pairings(upstream)]
    named = {p.torch_npu for p in pairings(upstream)}
    for row in sorted(wheel_rows(upstream), key=lambda r: version_key(str(r["version"]))):
        torch = re.search(r"==\s*(\d+\.\d+\.\d+)", str(row.get("requires_torch") or ""))
        if row["version"] not in named and torch:
            rows.insert(0, {"torch": torch.group(1), "package": "torch_npu", "version": str(row["version"]),
                            "runtime": "CANN not in the compatibility table",
                            "source": f"{row['wheel']} (its Requires-Dist: {row['requires_torch']})"})
    return rows


def wheel_versions(upstream: Path) -> List[str]:
    """The torch_npu versions whose registration list is in the upstream folder, newest first."""
    folder = upstream / "cann"
    found = [m.group("version") for p in folder.glob("npu_native_functions_by_codegen.torch_npu-*.yaml")
             if (m := _WHEEL_FILE.fullmatch(p.name))]
    return sorted(found, key=version_key, reverse=True)


@dataclass(frozen=True)
class WheelLine:
    """One torch_npu wheel as a target release: its id (``2.11-9.1``: torch line and CANN, or the line alone
    when Ascend's table does not name the wheel), runtime label, torch line, registration list and branch."""

    version: str
    torch_line: str
    runtime: str
    registrations: str
    branch: Optional[str]


def wheel_line(upstream: Path, version: str) -> WheelLine:
    pairing = next((p for p in pairings(upstream) if p.torch_npu == version), None)
    line = version_line(version)
    registrations = WHEEL_REGISTRATIONS.format(version=version)
    if pairing is None:
        return WheelLine(line, line, f"torch_npu {version} (CANN: not in Ascend's compatibility table bundled)",
                         registrations, None)
    return WheelLine(f"{line}-{'.'.join(pairing.cann.split('.')[:2])}", line,
                     f"torch_npu {version}, CANN {pairing.cann}", registrations, pairing.branch)


def registered(upstream: Path, release: OpRelease) -> Tuple[Set[str], List[str]]:
    if len(release.registrations) == 1:
        return wheel_registered(upstream, release.registrations[0])
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


def own_autograd(upstream: Path, release: OpRelease) -> Set[str]:
    """The aten ops torch_npu registers with its own autograd (op-plugin's, or a wheel list's, ``autograd``
    section): their backward is the vendor's, not the one a CPU trace of torch saw."""
    if len(release.registrations) == 1:
        data = parse_yaml(read_text(upstream, release.registrations[0])) or {}
        entries = data.get("autograd") or []
    else:
        plugin = parse_yaml(read_text(upstream, release.registrations[0]))
        line, versions = f"v{release.torch_line}", [str(v) for v in plugin["all_version"]]
        entries = [e for e in plugin.get("autograd") or []
                   if any(_in_spec(e.get(key), line, versions) for key in ("acl_op", "op_api", "sparse"))]
    return {"aten::" + str(e["func"] if isinstance(e, dict) else e).split("(", 1)[0] for e in entries}


def wheel_registered(upstream: Path, rel: str) -> Tuple[Set[str], List[str]]:
    """A wheel's ``npu_native_functions_by_codegen.yaml``: torch_npu's code generator writes there the entries
    of op-plugin and torch_npu that exist for the wheel's torch line, so every aten name in ``supported``,
    ``symint``, ``quant`` and ``autograd`` has a kernel (for torch_npu 2.9-2.12 the set equals op-plugin
    26.1.0's entries for that line plus torch_npu's own, name for name: ``tests/test_cann_lines.py``)."""
    data = parse_yaml(read_text(upstream, rel)) or {}
    found: Set[str] = set()
    for section in ("supported", "symint", "quant", "autograd"):
        for entry in data.get(section) or []:
            name = entry["func"] if isinstance(entry, dict) else entry
            found.add("aten::" + str(name).split("(", 1)[0])
    return found, [source_label(rel) + f" (the registration list {wheel_label(upstream, rel)} ships)"]


WHEELS = "cann/wheels.json"


def wheel_rows(upstream: Path) -> Tuple[Mapping[str, Any], ...]:
    """The provenance rows of the wheels the lists came from (``cann/wheels.json``), read once per version of
    the file (``maps update`` rewrites it before it rebuilds)."""
    path = upstream / WHEELS
    return _wheel_rows(upstream, path.stat().st_mtime_ns if path.is_file() else 0)


@lru_cache(maxsize=8)
def _wheel_rows(upstream: Path, stamp: int) -> Tuple[Mapping[str, Any], ...]:
    return tuple(read_json(upstream, WHEELS).get("wheels", [])) if stamp else ()


def wheel_label(upstream: Path, rel: str) -> str:
    """``torch_npu-2.12.0-cp311-...whl, sha256 1c83a892cf18``: the wheel a list was read from, by its
    provenance row in ``cann/wheels.json``."""
    row = next((r for r in wheel_rows(upstream) if r.get("file") == Path(rel).name), None)
    if row is None:
        raise MapsBuildError(f"{rel}: no provenance row in cann/wheels.json")
    return f"{row['wheel']} (sha256 {str(row['wheel_sha256'])[:12]})"


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


def npu_skips(upstream: Path) -> dict:
    rel = "cann/unsupported_ops_info_base.op-plugin-26.1.0.yaml"
    data = parse_yaml(read_text(upstream, rel)) or {}
    skips: Dict[str, Dict[str, List[str]]] = {}
    for name, tests in sorted(data.items(), key=lambda item: str(item[0])):
        if isinstance(tests, dict):
            skips[str(name)] = {str(test): sorted(str(d) for d in (dtypes or []))
                                for test, dtypes in sorted(tests.items())}
    return {"schema": "migrator.maps/1", "source": source_label(rel) + " (OpInfo tests torch_npu skips on NPU)",
            "skips": skips}


# ------------------------------------------------------------------------------- the reader interface

#: whether the maps are substitute evidence (another stack's data), as the op maps say
SUBSTITUTE = False


def docs_version(rel: str) -> str:
    return rel.rsplit("pytorch-", 1)[1][: -len(".tsv")]


def docs_files(upstream: Path) -> Dict[str, str]:
    """torch line -> Ascend's API list for it (``ascend_docs.py`` extracts them from Ascend's docs)."""
    found = {}
    for path in sorted((upstream / "cann").glob("torch_api_support.ascend-docs-pytorch-*.tsv")):
        rel = f"cann/{path.name}"
        found[version_line(docs_version(rel))] = rel
    return found


TRANSFER_TABLES = "cann/transfer_to_npu.torch_npu-{version}.json"


def line_releases(upstream: Path) -> List[CannRelease]:
    """The fixed releases, then one device-map release per wheel line (2.8 ... 2.13): the ``transfer_to_npu``
    tables of that wheel (``transfer_tables.py``; torch_npu 2.7.1-26.1.0's when the folder has none for it)
    and Ascend's API list of that line (2.7.1's when Ascend publishes none for it); their sources name both."""
    fixed = {r.torch_line for r in CANN_RELEASES}
    newest, docs, extra = CANN_RELEASES[0], docs_files(upstream), {}
    for version in wheel_versions(upstream):
        line = version_line(version)
        if line in fixed or line in extra:
            continue
        transfer = TRANSFER_TABLES.format(version=version)
        extra[line] = CannRelease(
            version=line, torch_line=line, runtime=f"torch_npu {version}",
            transfer_file=transfer if (upstream / transfer).is_file() else newest.transfer_file,
            docs_file=docs.get(line, newest.docs_file))
    return [*CANN_RELEASES, *extra.values()]


def device_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    return {device_map_path(release.torch_line): device_table(upstream, release)
            for release in line_releases(upstream)}


def device_map(release: "OpRelease") -> str:
    """Every release's torch line has its device map (``line_releases``)."""
    return device_map_path(release.torch_line)


def wheel_line_api_list(upstream: Path, line: str) -> str:
    """The API list of a wheel line: its own line's where Ascend publishes one, else the newest fixed
    release's (torch_npu 2.7.1-26.1.0's; its sources name it)."""
    return api_support_path(line if line in docs_files(upstream) else CANN_RELEASES[0].torch_line)


def api_support_path(line: str) -> str:
    newest = CANN_RELEASES[0]
    return f"api_support/cann-{newest.version if line == newest.torch_line else line}.json"


def device_map_path(torch_line: str) -> str:
    return f"device/cann-torch{torch_line}.json"


def api_support_maps(upstream: Path, curated: Path) -> Dict[str, dict]:
    lists = docs_files(upstream)
    return {**{api_support_path(r.torch_line): api_support(upstream, r, curated)
               for r in line_releases(upstream) if r.docs_file and lists.get(r.torch_line) == r.docs_file},
            "api_support/cann-npu-skips-26.1.0.json": npu_skips(upstream)}


def op_map(upstream: Path, curated: Path, release: "OpRelease", universe: Mapping[str, AtenOp]):
    found, sources = registered(upstream, release)
    return {op: classify(info, found) for op, info in universe.items()}, {}, sources


#: The runtime patcher: importing it makes CUDA spellings run on the NPU (``fix --shim`` adds these lines).
SHIM_IMPORTS = ("import torch_npu", "from torch_npu.contrib import transfer_to_npu")


def shim_table(upstream: Path) -> dict:
    """What ``transfer_to_npu`` does when imported, from its extracted tables (newest torch_npu line): the
    modules and attributes it swaps, and the callables whose device and backend arguments it rewrites."""
    release = CANN_RELEASES[0]
    transfer = read_json(upstream, release.transfer_file)
    swapped = {row["torch_attr"]: row["replaced_by"] for table in transfer["monkey_patch_tables"].values()
               for row in table}
    rewrites: List[str] = []
    for row in transfer["attribute_assignments_in_init"]:
        target = row["target"]
        if row["value_kind"] == "attribute":
            swapped[target] = row["value"]
        elif row["value_kind"] == "call" and row["value"].startswith("_"):  # _wrapper_cuda(...), _compose_...
            rewrites.append(target.rsplit(".", 1)[0] if target.endswith((".__init__", ".__new__")) else target)
    for row in transfer["device_argument_rewrites"]:
        rewrites.extend(f"{row['object']}.{name}" if name not in ("__init__", "__new__") else row["object"]
                        for name in row["functions"])
    return {"imports": list(SHIM_IMPORTS), "source": source_label(release.transfer_file, transfer.get("_source")),
            "runtime": release.runtime, "swapped": dict(sorted(swapped.items())),
            "rewrites_arguments_of": sorted(set(rewrites)),
            "strings": [list(pair) for pair in transfer["string_replacements_in_device_args"]]}
