"""Generate ``operator_maps/`` from the vendors' published data (``operator_maps/upstream/``, verbatim files).

Nothing here is hand-entered coverage: every entry is read from an upstream file and keeps that
file's name and version as its source. The two curated tables under ``operator_maps/curated`` name
replacements, and each of their rows is checked against the upstream file it cites.

The output is deterministic (sorted keys, fixed indentation), so a test can compare the committed
maps with a fresh build byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .ops_build import build_op_maps, op_releases
from .upstream import (MAPS_SCHEMA, MapsBuildError, checked_evidence, checked_sources, parse_yaml, read_text,
                       unescaped)
from .vendors import READERS
from .vendors.cann import CANN_RELEASES, docs_rows, full_api_name
from .vendors.neuware import NEUWARE_API_LIST, api_items

__all__ = ["MapsBuildError", "build_maps", "write_maps"]


NATIVE_FUNCTIONS = "pytorch/native_functions.torch-2.7.1.yaml"


def build_maps(upstream: Path, curated: Path) -> Dict[str, str]:
    """Return {relative output path: file text} for every generated map."""
    upstream = Path(upstream)
    runtimes = _runtimes(curated)
    # the curated tables first: each row is checked against the file it cites, and a bad row should fail the
    # build before the vendors' lists are read (those take seconds)
    outputs: Dict[str, Any] = {
        "third_party.json": _third_party_table(upstream, curated),
        "custom_op_families.json": _custom_op_families(upstream, curated),
        "cards.json": _cards_table(curated),
        "device_tools.json": _device_tools_table(curated),
        "frameworks.json": _frameworks_table(curated),
        "accelerator.json": _accelerator_table(curated),
        "tuning.json": _tuning_table(curated, [row["id"] for row in runtimes]),
    }
    for reader in READERS.values():
        outputs.update(reader.device_maps(upstream, curated))
        outputs.update(reader.api_support_maps(upstream, curated))
    outputs.update(build_op_maps(upstream, curated))
    targets = []
    defaults = {row["id"]: row["default_version"] for row in runtimes}
    releases = op_releases(upstream)
    for target, version in defaults.items():
        if not any(r.target == target and r.version == version for r in releases):
            raise MapsBuildError(f"curated/targets.yaml: default {target}@{version} is not a release the "
                                 f"upstream folder holds")
    for release in releases:
        device = READERS[release.target].device_map(release)
        op_map = f"ops/{release.target}-{release.version}.json"
        sources = sorted(set(outputs[device]["sources"]) | set(outputs[op_map]["sources"]))
        targets.append({
            "id": release.target, "version": release.version, "runtime": release.runtime,
            # a substitute target's torch line only names the ops its data is joined with (kunlun: torch 2.7's
            # names for Paddle's lists), not a torch its plugin is built for: the target says none
            "torch_line": None if READERS[release.target].SUBSTITUTE else release.torch_line,
            "default": defaults[release.target] == release.version,
            "sources": sources, "device_map": device, "op_map": op_map,
            "api_support": release.api_support, "npu_skips": release.npu_skips,
            **({"bridge": release.bridge} if release.bridge else {}),
        })
    outputs["rename_semantics.json"] = _rename_semantics_table(curated, outputs, targets)
    outputs["shims.json"] = {"schema": "migrator.shims/1", "targets": {
        target: table for target, reader in sorted(READERS.items())
        if (table := reader.shim_table(upstream)) is not None}}
    outputs["tensor_methods.json"] = _tensor_methods(upstream)
    for position, row in enumerate(runtimes, 1):  # a target is a folder: its runtime, releases and pairings
        pairing = READERS[row["id"]].pairing_rows(upstream)
        outputs[f"targets/{row['id']}/target.json"] = {
            "schema": MAPS_SCHEMA, "position": position, "runtime": row,
            "releases": [t for t in targets if t["id"] == row["id"]], **({"pairings": pairing} if pairing else {})}
    return {path: json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            for path, data in sorted(outputs.items())}


_RUNTIME_FIELDS = ("id", "name", "default_version", "cuda_names", "kernel_language", "kernel_device", "build_hint",
                   "build_change", "build_api", "dispatch_key", "dispatch_note")


#: the fields a runtime's row may leave out
_OPTIONAL_FIELDS = ("aliases", "cpu_fallback", "torch_version_cuda")


def _check_version_cuda(row: dict) -> None:
    """A runtime's ``torch_version_cuda``: what ``torch.version.cuda`` reads there, from a torch line on, with the
    source that says so and its words (never a value no source gives: a runtime with none is unknown)."""
    facts = row.get("torch_version_cuda")
    if facts is None:
        return
    if not isinstance(facts, dict) or set(facts) != {"value", "torch_from", "source", "quote"} \
            or facts["value"] is not None or not re.fullmatch(r"\d+\.\d+", str(facts["torch_from"])) \
            or not all(isinstance(facts[k], str) and facts[k].strip() for k in ("source", "quote")):
        raise MapsBuildError(f"curated/targets.yaml row {row['id']!r}: torch_version_cuda needs value (null: the "
                             "CPU torch wheel), torch_from (a torch line), source and quote")


def _check_cpu_fallback(row: dict) -> None:
    """A runtime's ``cpu_fallback``: the source of its dispatcher-wide CPU fallback and its words."""
    facts = row.get("cpu_fallback")
    if facts is None:
        return
    if not isinstance(facts, dict) or set(facts) != {"source", "quote"} \
            or not all(isinstance(facts[k], str) and facts[k].strip() for k in ("source", "quote")):
        raise MapsBuildError(f"curated/targets.yaml row {row['id']!r}: cpu_fallback needs source and quote")


def _one_line(facts: dict) -> dict:
    """A folded YAML string's line breaks as the single spaces they stand for."""
    return {k: " ".join(v.split()) if isinstance(v, str) else v for k, v in facts.items()}


def _runtimes(curated: Path) -> List[dict]:
    """``curated/targets.yaml``: one row per runtime, checked field by field."""
    path = curated / "targets.yaml"
    if not path.is_file():
        raise MapsBuildError(f"missing curated file: {path}")
    rows = (parse_yaml(path.read_text(encoding="utf-8")) or {}).get("runtimes") or []
    for row in rows:
        missing = [f for f in _RUNTIME_FIELDS if f not in row]
        extra = sorted(set(row) - set(_RUNTIME_FIELDS) - set(_OPTIONAL_FIELDS))
        if missing or extra or row["cuda_names"] not in ("renamed", "kept"):
            raise MapsBuildError(f"curated/targets.yaml row {row.get('id')!r}: missing {missing}, unknown {extra}, "
                                 "cuda_names must be renamed or kept")
        if row["build_api"] is not None and not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", str(row["build_api"])):
            raise MapsBuildError(f"curated/targets.yaml row {row['id']!r}: build_api must be a dotted name, "
                                 f"not {row['build_api']!r}")
        _check_version_cuda(row)
        _check_cpu_fallback(row)
        aliases = row.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) and re.fullmatch(r"[a-z][a-z0-9_-]*", a)
                                                    for a in aliases):
            raise MapsBuildError(f"curated/targets.yaml row {row['id']!r}: aliases must be a list of lower-case names")
    names = [name for row in rows for name in [row["id"], *row.get("aliases", [])]]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise MapsBuildError(f"curated/targets.yaml: {twice[0]!r} names two targets (an id or an alias)")
    return [{**{f: row[f] for f in _RUNTIME_FIELDS}, **({"aliases": row["aliases"]} if row.get("aliases") else {}),
             **{f: _one_line(row[f]) for f in _OPTIONAL_FIELDS if f != "aliases" and row.get(f)}}
            for row in rows]


def write_maps(upstream: Path, out: Path, curated: Optional[Path] = None) -> List[Path]:
    curated = curated or out / "curated"
    written = []
    for rel, text in build_maps(upstream, curated).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# --------------------------------------------------------------------------------------- third party


def _check_absent(upstream: Path, absent: Sequence[Any], where: str) -> None:
    """A row resting on what a build lacks: no line of the file it names holds any of its words (a kernel file of
    the NPU build named for sparse convolution; an NPU path in the op's Python module). ``absent`` is one
    [file, words] pair or a list of them."""
    for rel, listed in ([absent] if isinstance(absent[0], str) else absent):
        words = [str(w).lower() for w in listed]
        lines = (upstream / rel).read_text(encoding="utf-8").lower().splitlines()
        found = [line for line in lines if not line.startswith("#") and any(w in line for w in words)]
        if found:
            raise MapsBuildError(f"{where}: says {rel} names none of {words}, but it holds {found[0].strip()}")


def _third_party_table(upstream: Path, curated: Path) -> dict:
    data = parse_yaml((curated / "third_party.yaml").read_text(encoding="utf-8"))
    cache: Dict[str, str] = {}
    apis: Dict[str, dict] = {}
    for api, per_target in sorted(data["apis"].items()):
        apis[api] = {}
        for target, row in sorted(per_target.items()):
            where = f"third_party.yaml: {api} for {target}"
            if row.get("absent"):
                _check_absent(upstream, row["absent"], where)
            apis[api][target] = {
                "status": row["status"],
                "to": row["to"],
                "note": row["note"],
                "source": checked_sources(upstream, cache, row["evidence"], where),
            }
    pytorch = {api: {"to": row["to"], "note": row["note"]} for api, row in sorted((data.get("pytorch") or {}).items())}
    plain = {library: _plain_library(upstream, cache, library, row, data["libraries"])
             for library, row in sorted((data.get("plain") or {}).items())}
    return {"schema": MAPS_SCHEMA, "libraries": data["libraries"], "apis": apis, "pytorch": pytorch,
            **({"plain": plain} if plain else {}),
            "source": "operator_maps/curated/third_party.yaml (each row checked against its upstream file)"}


def _when(when: Mapping[str, Any]) -> dict:
    """A member's argument condition with its values as the strings a call passes (YAML reads ``sum`` as one)."""
    return {"argument": str(when["argument"]), "position": when["position"],
            "default": None if when["default"] is None else str(when["default"]),
            "values": [str(v) for v in when["values"]]}


_PLAIN_FIELDS = {"package", "version", "license", "archive", "files", "import", "members"}
_MEMBER_FIELDS = {"runs", "evidence", "also", "when"}
_WHEN_FIELDS = {"argument", "position", "default", "values"}


def _plain_library(upstream: Path, cache: Dict[str, str], library: str, row: Mapping[str, Any],
                   libraries: Mapping[str, Any]) -> dict:
    """One library's plain-PyTorch members (``third_party.yaml`` ``plain``): its files checked against their
    sha256, every quote against its file, each row's source naming the file, the release, its sha256 and license."""
    where = f"third_party.yaml: plain {library}"
    if libraries.get(library, {}).get("kind") != "kernels":
        raise MapsBuildError(f"{where}: not a `kind: kernels` library of `libraries`")
    if set(row) != _PLAIN_FIELDS:
        raise MapsBuildError(f"{where}: needs exactly {sorted(_PLAIN_FIELDS)}")
    files: Mapping[str, str] = _checked_files(upstream, row["files"], where)
    release = f"{row['package']} {row['version']} ({row['license']})"

    def cited(evidence: Sequence[Sequence[str]], what: str) -> Dict[str, str]:
        """The files a row quotes (each one of the library's), named with their sha256 and the release, and the
        first quote, the one a verdict shows."""
        unlisted = sorted({rel for rel, _ in evidence} - set(files))
        if unlisted:
            raise MapsBuildError(f"{what}: {unlisted[0]} is not among the library's files")
        checked_sources(upstream, cache, list(evidence), what)
        named = ", ".join(f"{Path(rel).name} (sha256 {files[rel][:12]})"
                          for rel in dict.fromkeys(rel for rel, _ in evidence))
        return {"source": f"{named} of {release}", "quote": unescaped(evidence[0][1])}

    members = {}
    for name, member in sorted(row["members"].items()):
        what = f"{where} {name}"
        if not name.startswith(library + ".") or not set(member) <= _MEMBER_FIELDS or not member.get("runs") \
                or not member.get("evidence"):
            raise MapsBuildError(f"{what}: a member of {library} needs runs and evidence (also, when: optional)")
        when = member.get("when")
        if when is not None and (set(when) != _WHEN_FIELDS or not isinstance(when["position"], int)
                                 or not when["values"]):
            raise MapsBuildError(f"{what}: when needs argument, position, default and values")
        members[name] = {"runs": member["runs"], **cited(member["evidence"], what),
                         **({"also": list(member["also"])} if member.get("also") else {}),
                         **({"when": _when(when)} if when else {})}
    imported = row["import"]
    return {"release": f"{row['package']} {row['version']} ({row['archive']['name']}, sha256 "
                       f"{row['archive']['sha256']}; {row['license']})", "members": members,
            "import": {"note": imported["note"], **cited(imported["evidence"], f"{where} import")}}


def _checked_files(upstream: Path, files: Mapping[str, str], where: str) -> Mapping[str, str]:
    """``files`` ({upstream file: sha256}), each checked against its sha256."""
    for rel, sha in files.items():
        found = hashlib.sha256((upstream / rel).read_bytes()).hexdigest() if (upstream / rel).is_file() else None
        if found != sha:
            raise MapsBuildError(f"{where}: {rel} has sha256 {found}, the row says {sha}")
    return files


def _family_models(upstream: Path, cache: Dict[str, str], models: Mapping[str, Any], families: Sequence[str]) -> dict:
    """``custom_op_families.yaml`` ``models``: per qualified name (and each of its ``also``), the families whose
    kernels the model's training step runs, and the quoted source that says so (its files checked against their
    sha256, every quote against its file)."""
    out: Dict[str, dict] = {}
    for library, row in sorted(models.items()):
        where = f"custom_op_families.yaml: models {library}"
        files = _checked_files(upstream, row["files"], where)
        release = f"{row['package']} {row['version']} ({row['archive']['name']}; {row['license']})"
        for name, member in sorted(row["members"].items()):
            what = f"{where} {name}"
            unknown = sorted(set(member["runs"]) - set(families))
            unlisted = sorted({rel for rel, _ in member["evidence"]} - set(files))
            if not name.startswith(library + "."):
                raise MapsBuildError(f"{what}: not a member of {library}")
            if unknown:
                raise MapsBuildError(f"{what}: `runs` names no family of the file: {unknown}")
            if unlisted:
                raise MapsBuildError(f"{what}: quotes {unlisted[0]}, which is not among the library's files")
            checked_sources(upstream, cache, list(member["evidence"]), what)
            named = ", ".join(f"{Path(rel).name} (sha256 {files[rel][:12]})"
                              for rel in dict.fromkeys(rel for rel, _ in member["evidence"]))
            entry = {"runs": list(member["runs"]), "source": f"{named} of {release}",
                     "quote": unescaped(member["evidence"][0][1]).strip()}
            if member.get("kind", "model") not in ("model", "function"):
                raise MapsBuildError(f"{what}: `kind` is model or function, not {member['kind']}")
            if member.get("kind") == "function":
                entry["kind"] = "function"
            for spelled in (name, *member.get("also", ())):
                out[spelled] = entry
    return out


def _device_tools_table(curated: Path) -> dict:
    """Per target: its software stack's name and the tools standing in for NVIDIA's, each row quoting its page."""
    data = parse_yaml((curated / "device_tools.yaml").read_text(encoding="utf-8")) or {}
    for target, row in data.items():
        entries = dict(row.get("tools") or {})
        if row.get("env_setup"):
            entries["env_setup"] = row["env_setup"]
        for tool, entry in entries.items():
            if not entry.get("to") or not entry.get("doc") or not entry.get("quote"):
                raise MapsBuildError(f"device_tools.yaml: {target} {tool} needs to, doc and quote")
    return {"schema": "migrator.device-tools/1", "targets": data,
            "source": "operator_maps/curated/device_tools.yaml (vendor documentation, quoted)"}


_FRAMEWORK_STATUSES = ("supported", "partial", "rewrite", "unsupported", "unknown")


def _frameworks_table(curated: Path) -> dict:
    """What a training framework does with a device, backend or precision setting per kind of runtime, each row
    citing the framework's file at a pinned commit and quoting it (``curated/frameworks.yaml``)."""
    data = parse_yaml((curated / "frameworks.yaml").read_text(encoding="utf-8")) or {}
    frameworks = data.get("frameworks") or {}
    seen = set()
    for row in data.get("settings") or ():
        where = f"frameworks.yaml: {row.get('id')}"
        if row.get("id") in seen or not row.get("id"):
            raise MapsBuildError(f"{where}: every row needs an id of its own")
        seen.add(row["id"])
        if row.get("framework") not in frameworks:
            raise MapsBuildError(f"{where}: framework {row.get('framework')!r} is not in `frameworks`")
        if not row.get("argument") or not row.get("values") or not row.get("file") or not row.get("quote"):
            raise MapsBuildError(f"{where}: needs argument, values, file and quote")
        if row.get("category") not in ("device", "distributed", "amp"):
            raise MapsBuildError(f"{where}: category must be device, distributed or amp")
        omitted = row.get("omitted")
        if omitted is not None and not (omitted.get("value") and omitted.get("files") and omitted.get("quote")):
            raise MapsBuildError(f"{where}: `omitted` needs value, files and quote")
        for kind in ("renamed", "kept", *(row.get("targets") or {})):
            verdict = row.get(kind) or (row.get("targets") or {}).get(kind) or {}
            if verdict.get("status") not in _FRAMEWORK_STATUSES or not verdict.get("says"):
                raise MapsBuildError(f"{where}: `{kind}` needs a status ({', '.join(_FRAMEWORK_STATUSES)}) and says")
    for row in data.get("device_support") or ():
        where = f"frameworks.yaml: device_support {row.get('packages')}"
        if not row.get("packages") or not row.get("repo") or not row.get("license") or not row.get("targets"):
            raise MapsBuildError(f"{where}: needs packages, repo, license and targets")
        for target, first in row["targets"].items():
            if not all(first.get(key) for key in ("since", "tag", "commit", "file")) or len(str(first["commit"])) != 40:
                raise MapsBuildError(f"{where}: {target} needs since, tag, a full commit and file")
            first["since"] = str(first["since"])
    return {"schema": "migrator.frameworks/1", "frameworks": frameworks, "settings": data.get("settings") or [],
            "device_support": data.get("device_support") or [],
            "source": "operator_maps/curated/frameworks.yaml (each framework's own code, quoted)"}


def _accelerator_table(curated: Path) -> dict:
    """The portable style's table (``curated/accelerator.yaml``): CUDA API -> its ``torch.accelerator`` form, the
    first torch release that has it (a release the ``sources`` cite) and what each does on a CPU-only build."""
    data = parse_yaml((curated / "accelerator.yaml").read_text(encoding="utf-8")) or {}
    sources = data.get("sources") or {}
    for api, row in (data.get("apis") or {}).items():
        where = f"accelerator.yaml: {api}"
        if not str(api).startswith("torch.cuda."):
            raise MapsBuildError(f"{where}: a row is a torch.cuda API")
        if row.get("portable") is None:
            if not row.get("why"):
                raise MapsBuildError(f"{where}: a row without a portable form says why")
            continue
        if not str(row["portable"]).startswith("torch.accelerator."):
            raise MapsBuildError(f"{where}: the portable form is a torch.accelerator API")
        if str(row.get("since")) not in sources:
            raise MapsBuildError(f"{where}: since {row.get('since')!r} is not a release the sources cite")
        if row.get("cpu") not in ("same", "differs") or (row["cpu"] == "differs" and not row.get("why")):
            raise MapsBuildError(f"{where}: cpu is same or differs (with why)")
    values, device_sources = data.get("values") or {}, data.get("device_sources") or {}
    forms = data.get("device_forms") or {}
    for api, row in forms.items():
        where = f"accelerator.yaml: device_forms: {api}"
        if "same_as" in row:
            if row["same_as"] not in forms or "same_as" in forms[row["same_as"]]:
                raise MapsBuildError(f"{where}: same_as names a row of its own")
            continue
        if row.get("value") not in values or str(row.get("since")) not in device_sources:
            raise MapsBuildError(f"{where}: value is one of values, since a release device_sources cites")
        if not row.get("needs") or row.get("cpu") not in ("same", "runs"):
            raise MapsBuildError(f"{where}: needs the APIs it runs, and cpu is same or runs")
    return {"schema": "migrator.accelerator/1", "apis": data.get("apis") or {}, "sources": sources,
            "values": values, "device_sources": device_sources,
            "device_forms": {api: forms[row["same_as"]] if "same_as" in row else row for api, row in forms.items()},
            "source": "operator_maps/curated/accelerator.yaml (PyTorch's docs per release; the CPU column measured)"}


def _tuning_table(curated: Path, runtimes: Sequence[str]) -> dict:
    """``curated/tuning.yaml``: the vendors' performance guides (each quoted) and, per pitfall and per CUDA
    switch, each target's status, cost and advice; every target has a row, every guide named exists."""
    data = parse_yaml((curated / "tuning.yaml").read_text(encoding="utf-8")) or {}
    guides = data.get("guides") or {}
    for name, guide in guides.items():
        if not all(guide.get(key) for key in ("title", "url", "quote")):
            raise MapsBuildError(f"tuning.yaml: guide {name} needs title, url and quote")
    for table in ("pitfalls", "switches"):
        for key, rows in (data.get(table) or {}).items():
            if sorted(rows) != sorted(runtimes):
                raise MapsBuildError(f"tuning.yaml: {table}.{key} needs a row for each of {sorted(runtimes)}")
            statuses = ("partial", "unknown", "supported") if table == "switches" else ("partial", "unknown")
            for target, row in rows.items():
                where = f"tuning.yaml: {table}.{key}.{target}"
                if row.get("status") not in statuses or not row.get("cost"):
                    raise MapsBuildError(f"{where}: status must be one of {statuses}, and cost given")
                if row.get("when") not in (None, *(data.get("pitfalls") or {})):
                    raise MapsBuildError(f"{where}: `when` names no pitfall: {row.get('when')!r}")
                unknown = [g for g in row.get("guides") or () if g not in guides]
                if unknown:
                    raise MapsBuildError(f"{where}: no guide named {unknown}")
    pitfalls = data.get("pitfalls") or {}
    return {"schema": "migrator.tuning/1", "guides": guides, "pitfalls": pitfalls,
            "order": list(pitfalls),  # the tune rules run, and their findings are listed, in this order
            "switches": data.get("switches") or {},
            "source": "operator_maps/curated/tuning.yaml (vendor performance guides, quoted)"}


def _rename_semantics_table(curated: Path, outputs: Mapping[str, Any], targets: Sequence[Mapping[str, Any]]
                            ) -> dict:
    """Renames whose vendor note is judged to describe the CUDA behaviour: each row's ``note`` must be, word for
    word, the note of that API in the target's device maps (of every version that has it)."""
    data = parse_yaml((curated / "rename_semantics.yaml").read_text(encoding="utf-8")) or {}
    for target, rows in data.items():
        maps = [outputs[str(t["device_map"])] for t in targets if t["id"] == target]
        if not maps:
            raise MapsBuildError(f"rename_semantics.yaml: no target {target!r}")
        for api, row in rows.items():
            if not row.get("note") or not row.get("same"):
                raise MapsBuildError(f"rename_semantics.yaml: {target} {api} needs note and same")
            notes = {(m["apis"].get(api) or {}).get("limitations") for m in maps}
            if row["note"] not in notes:
                raise MapsBuildError(f"rename_semantics.yaml: {target} {api}: the device maps' note is not the one "
                                     f"judged here ({sorted(n or '' for n in notes)})")
    return {"schema": "migrator.rename-semantics/1", "targets": data,
            "source": "operator_maps/curated/rename_semantics.yaml (each note checked against the device maps)"}


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
            source = checked_sources(upstream, cache, row["evidence"], f"custom_op_families.yaml: {name} for {target}")
            targets[target] = {"to": row["to"], "mapping": row["mapping"], "differs": row["differs"],
                               "source": source}
        hints = {}
        for target, row in sorted((family.get("kernel_hint") or {}).items()):
            rel = checked_evidence(upstream, cache, row["evidence"], f"custom_op_families.yaml: {name} hint for "
                                                                     f"{target}")
            hints[target] = {"kernel": row["kernel"], "source": Path(rel).name}
        families.append({"name": name, "what": family["what"], "match": list(family["match"]),
                         "pytorch": family.get("pytorch"), "pytorch_note": family.get("pytorch_note"),
                         "targets": targets, "kernel_hint": hints})
    models = _family_models(upstream, cache, data.get("models") or {}, [f["name"] for f in families])
    return {"schema": MAPS_SCHEMA, "families": families, "models": models,
            "source": "operator_maps/curated/custom_op_families.yaml (each vendor row checked against its upstream "
                      "file)"}


# ------------------------------------------------------------------------------------ tensor methods


def _tensor_methods(upstream: Path) -> dict:
    """Names that are Tensor methods: native_functions.yaml method variants plus the vendors' API lists."""
    names = set()
    for entry in parse_yaml(read_text(upstream, NATIVE_FUNCTIONS)):
        variants = str(entry.get("variants", "function"))
        if "method" in variants:
            names.add(entry["func"].split("(", 1)[0].split(".", 1)[0])
    docs = CANN_RELEASES[0].docs_file
    if docs is not None and (upstream / docs).is_file():
        for row in docs_rows(upstream, docs):
            api = full_api_name(row["api"])
            if api.startswith("torch.Tensor."):
                names.add(api.split(".")[2])
    for api, _ in api_items(read_text(upstream, NEUWARE_API_LIST)):
        if api.startswith("torch.Tensor."):
            names.add(api.split(".")[2])
    names = {n for n in names if n.isidentifier() and not n.startswith("__")}
    return {"schema": MAPS_SCHEMA, "sources": [Path(NATIVE_FUNCTIONS).name, Path(NEUWARE_API_LIST).name,
                                               "torch_api_support.ascend-docs-pytorch-2.7.1.tsv"],
            "methods": sorted(names)}


