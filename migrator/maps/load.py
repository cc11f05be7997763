"""Load the generated maps shipped with migrator, and pick target versions (``cann@2.7-9.1``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..data import data_dir
from ..prefixes import longest


class TargetSpecError(ValueError):
    """A ``--target`` value names no target or version the maps cover."""


def maps_dir() -> Path:
    """``operator_maps/``: inside the wheel (``migrator/_data``), or the source checkout's top level."""
    return data_dir("operator_maps")


@lru_cache(maxsize=None)
def load_json(rel: str) -> dict:
    """A shipped map file, parsed once."""
    return json.loads((maps_dir() / rel).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ApiRule:
    """What a device map says of one API: its replacement, a status override, limits, and the source."""

    api: str
    to: Optional[str]
    status: Optional[str]
    limitations: Optional[str]
    source: str
    exact: bool
    note: Optional[str] = None


@dataclass(frozen=True)
class Runtime:
    """One target runtime as data (``curated/targets.yaml``): names, kernel language, build and dispatch facts."""

    id: str
    name: str
    default_version: str
    cuda_names: str  # "renamed" (npu/hccl, mlu/cncl) or "kept" (the runtime presents itself as CUDA)
    kernel_language: str
    kernel_device: str
    build_hint: str
    build_change: str
    dispatch_key: Optional[str]
    dispatch_note: Optional[str]
    #: the runtime's own extension builder (``torch_npu.utils.cpp_extension.NpuExtension``); a project that
    #: calls it beside CUDAExtension builds its operators for the target itself
    build_api: Optional[str] = None
    #: other names ``--target`` accepts for it (``ascend``, ``npu`` for ``cann``)
    aliases: Tuple[str, ...] = ()
    #: what ``torch.version.cuda`` reads there (``None``: the vendor installs the CPU torch wheel), from which torch
    #: line, and the source; ``None`` where no source says (a test for it is then unknown)
    torch_version_cuda: Optional["VersionCuda"] = None
    #: its dispatcher-wide CPU fallback (``TORCH_LIBRARY_IMPL(_, PrivateUse1, m)``), where a source shows one: an
    #: operator it has no kernel for, of any namespace (torchvision's ``nms``), runs on the host
    cpu_fallback: Optional["Quoted"] = None

    def version_cuda_unset(self, torch_line: Optional[str]) -> Optional["VersionCuda"]:
        """The source that ``torch.version.cuda`` is None on this runtime at ``torch_line``, or ``None`` when
        no source says (another torch line, a runtime with no such row)."""
        facts = self.torch_version_cuda
        if facts is None or torch_line is None:
            return None
        line = tuple(int(p) for p in torch_line.split(".")[:2] if p.isdigit())
        return facts if line >= tuple(int(p) for p in facts.torch_from.split(".")) else None


@dataclass(frozen=True)
class Quoted:
    """A fact about a runtime, with the source that shows it and its words."""

    source: str
    quote: str


@dataclass(frozen=True)
class VersionCuda:
    """``torch.version.cuda`` on a runtime: ``None`` from torch line ``torch_from`` on, as ``source`` says."""

    torch_from: str
    source: str
    quote: str


@lru_cache(maxsize=None)
def target_folders() -> Tuple[Mapping[str, Any], ...]:
    """Every target: ``targets/<id>/target.json`` (its runtime, its releases, its pairings), in the order of
    their ``position`` (a target without one after those with one), then by id. Adding a target is adding a
    folder (``tests/test_new_target.py``)."""
    root = maps_dir()
    found = []
    for path in sorted(root.glob("targets/*/target.json")):
        rel = path.relative_to(root).as_posix()
        try:
            doc = load_json(rel)
            well_formed = doc["runtime"]["id"] == path.parent.name and isinstance(doc["releases"], list)
        except (ValueError, KeyError, TypeError):
            well_formed = False
        if not well_formed:  # a hand-made folder: say which file, not a traceback
            raise TargetSpecError(f"operator_maps/{rel} is not a target: it needs a runtime whose id is its folder's "
                                  "name and a list of releases (schema/target.schema.json)")
        found.append(doc)
    return tuple(sorted(found, key=lambda doc: (doc.get("position") is None, doc.get("position") or 0,
                                                doc["runtime"]["id"])))


@lru_cache(maxsize=None)
def runtimes() -> Mapping[str, Runtime]:
    def row(doc: Mapping[str, Any]) -> Runtime:
        facts = doc["runtime"].get("torch_version_cuda")
        version_cuda = None if facts is None else VersionCuda(facts["torch_from"], facts["source"], facts["quote"])
        fallback = doc["runtime"].get("cpu_fallback")
        return Runtime(**{**doc["runtime"], "aliases": tuple(doc["runtime"].get("aliases", ())),
                          "torch_version_cuda": version_cuda,
                          "cpu_fallback": None if fallback is None else Quoted(fallback["source"], fallback["quote"])})

    return {doc["runtime"]["id"]: row(doc) for doc in target_folders()}


@lru_cache(maxsize=None)
def target_names() -> Mapping[str, str]:
    """Every name a target answers to, lower case -> its id: the ids themselves and their aliases."""
    names = {runtime.id: runtime.id for runtime in runtimes().values()}
    for runtime in runtimes().values():
        names.update({alias: runtime.id for alias in runtime.aliases if alias not in names})
    return names


def _unknown_target(name: str) -> TargetSpecError:
    """An unknown target, with the closest names (ids and aliases) and the list to choose from."""
    import difflib

    names = target_names()
    close = difflib.get_close_matches(name.lower(), list(names), n=2, cutoff=0.6)
    guess = " or ".join(f"{c!r}" + (f" ({names[c]})" if names[c] != c else "") for c in close)
    aliases = "; ".join(f"{', '.join(r.aliases)} = {r.id}" for r in runtimes().values() if r.aliases)
    return TargetSpecError(f"unknown target {name!r}; " + (f"did you mean {guess}? " if guess else "")
                           + f"choose from {', '.join(target_ids())}" + (f" (also: {aliases})" if aliases else ""))


def target_ids() -> Tuple[str, ...]:
    return tuple(runtimes())


def runtime(target_id: str) -> Runtime:
    return runtimes()[target_id]


@dataclass(frozen=True)
class TargetMap:
    """One target at one data version: device/API renames, aten operator coverage, the vendor's API list."""

    id: str
    version: str
    runtime: str
    torch_line: Optional[str]
    sources: Tuple[str, ...]
    device_to: str
    backend_to: str
    device_source: str
    backend_source: str
    import_first: Optional[str]
    substitute: bool
    apis: Mapping[str, Mapping[str, Any]]
    runtime_facts: Runtime  # the runtime's row (``curated/targets.yaml``)
    op_map_file: Optional[str] = None
    api_support_file: Optional[str] = None
    npu_skips_file: Optional[str] = None
    #: API-level substitute verdicts (kunlun: PaConvert's rows joined with the XPU list)
    bridge_file: Optional[str] = None
    #: what the vendor's own ports change where code uses an API (``curated/kunlun.yaml``): API -> row
    adaptations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: 16-bit dtypes the vendor's own ports train without (fp16 / bf16 -> note and source)
    dtype_caveats: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def documented(self, api: str) -> Optional[Tuple[Mapping[str, Any], str]]:
        """The vendor's Python-API list entry for ``api`` and that list's source, if the list has one."""
        if not self.api_support_file:
            return None
        data = load_json(self.api_support_file)
        entry = data["apis"].get(api)
        return (entry, data["source"]) if entry is not None else None

    def environment(self, name: str) -> Optional[Tuple[Mapping[str, Any], str]]:
        if not self.api_support_file:
            return None
        data = load_json(self.api_support_file)
        entry = data.get("env", {}).get(name)
        return (entry, data["env_source"]) if entry is not None else None

    def bridged(self, api: str) -> Optional[Tuple[Mapping[str, Any], Sequence[str]]]:
        """The bridge table's row for ``api`` and the table's sources, if it has one."""
        if not self.bridge_file:
            return None
        data = load_json(self.bridge_file)
        entry = data["apis"].get(api)
        return (entry, data["sources"]) if entry is not None else None

    def op_map(self) -> Mapping[str, Any]:
        return load_json(self.op_map_file) if self.op_map_file else {"ops": {}, "sources": [], "reasons": {}}

    def npu_skips(self, opinfo_name: str) -> Optional[Tuple[Mapping[str, Any], str]]:
        if not self.npu_skips_file:
            return None
        data = load_json(self.npu_skips_file)
        entry = data["skips"].get(opinfo_name)
        return (entry, data["source"]) if entry is not None else None

    @property
    def label(self) -> str:
        return f"{self.id}@{self.version}"

    def lookup(self, api: str) -> Optional[ApiRule]:
        """The entry for ``api``, or the longest dotted prefix with a rename (``torch.cuda`` -> ``torch.npu``)."""
        entry = self.apis.get(api)
        if entry is not None:
            to = entry.get("to")
            inherited = None if to or entry.get("status") else self._renamed_by_prefix(api)
            note = None
            if entry.get("validated") is False:
                note = "the vendor lists it as not validated"
            return ApiRule(api, to or (inherited.to if inherited else None), entry.get("status"),
                           entry.get("limitations"), str(entry["source"]), True, note)
        return self._renamed_by_prefix(api)

    def _renamed_by_prefix(self, api: str) -> Optional[ApiRule]:
        hit = longest(api, lambda prefix: (self.apis.get(prefix) or {}).get("to") and self.apis[prefix], proper=True)
        if hit is None:
            return None
        _, rest, entry = hit
        return ApiRule(api, f"{entry['to']}.{rest}", None, None, str(entry["source"]), False)


@lru_cache(maxsize=None)
def available_targets() -> Tuple[Mapping[str, Any], ...]:
    return tuple(release for doc in target_folders() for release in doc["releases"])


@dataclass(frozen=True)
class Pairing:
    """A plugin build to install beside one torch version (``torch_npu 2.11.0`` for torch 2.11.0, CANN 9.1.0),
    from the vendor's compatibility table or a wheel's own requirement."""

    torch: str
    package: str
    version: str
    runtime: str
    source: str

    @property
    def torch_line(self) -> str:
        return ".".join(self.torch.split(".")[:2])


@lru_cache(maxsize=None)
def pairings(target_id: str) -> Tuple[Pairing, ...]:
    """The target's pairing rows in the vendor's order (newest runtime first for one torch version); empty
    when no published table pairs its plugin with torch versions."""
    rows = next((doc.get("pairings") or () for doc in target_folders() if doc["runtime"]["id"] == target_id), ())
    return tuple(Pairing(**row) for row in rows)


def paired(target_id: str, torch_version: str) -> Optional[Pairing]:
    """The plugin build for exactly ``torch_version`` (``2.11.0``), else the newest one on its line (torch
    2.5.0 -> torch_npu 2.5.1, built for torch 2.5.1); ``None`` when the table has neither."""
    rows = pairings(target_id)
    line = ".".join(torch_version.split(".")[:2])
    return next((p for p in rows if p.torch == torch_version), None) or next(
        (p for p in rows if p.torch_line == line), None)


def torch_lines(target_id: str) -> Tuple[str, ...]:
    """The torch lines the target's releases in the maps run on, newest first."""
    lines = {str(t["torch_line"]) for t in available_targets() if t["id"] == target_id and t.get("torch_line")}
    return tuple(sorted(lines, key=lambda line: tuple(int(n) for n in line.split(".") if n.isdigit()),
                        reverse=True))


def resolve_targets(spec: Optional[Sequence[str]]) -> Tuple[TargetMap, ...]:
    """``["cann", "neuware@1.22-2.4", "cann@2.11"]`` -> maps, in the order given; ``None`` means every target's
    default. A version may name a torch line alone (``cann@2.11``): the newest release on that line."""
    items = list(spec) if spec else list(target_ids())
    chosen: List[TargetMap] = []
    for item in items:
        given, _, version = item.strip().partition("@")
        name = target_names().get(given.strip().lower(), given)  # an alias (ascend, mlu, kunlunxin) is its target
        candidates = [t for t in available_targets() if t["id"] == name]
        if not candidates:
            raise _unknown_target(given)
        if version:
            match = ([t for t in candidates if t["version"] == version]
                     or [t for t in candidates if t.get("torch_line") == version])  # cann@2.11: that torch line
            if not match:
                known = ", ".join(f"{name}@{t['version']}" for t in candidates)
                raise TargetSpecError(f"no data for {name}@{version}; available: {known}")
            entry = match[0]
        else:
            entry = next(t for t in candidates if t["default"])
        if any(c.id == name for c in chosen):
            also = f" ({given!r} is {name!r})" if given != name else ""
            raise TargetSpecError(f"target {name!r} given twice{also}")
        chosen.append(load_target(name, str(entry["version"])))
    return tuple(chosen)


@lru_cache(maxsize=None)
def load_target(target: str, version: str) -> TargetMap:
    entry = next(t for t in available_targets() if t["id"] == target and t["version"] == version)
    data = load_json(str(entry["device_map"]))
    return TargetMap(
        id=target,
        version=version,
        runtime=str(entry["runtime"]),
        torch_line=entry.get("torch_line"),
        sources=tuple(entry["sources"]),
        device_to=data["device_string"]["to"],
        backend_to=data["backend_string"]["to"],
        device_source=data["device_string"]["source"],
        backend_source=data["backend_string"]["source"],
        import_first=data.get("import_first"),
        substitute=bool(data.get("substitute")),
        apis=data["apis"],
        op_map_file=entry.get("op_map"),
        api_support_file=entry.get("api_support"),
        npu_skips_file=entry.get("npu_skips"),
        bridge_file=entry.get("bridge"),
        runtime_facts=runtime(target),
        adaptations=data.get("adaptations", {}),
        dtype_caveats=data.get("dtype_caveats", {}),
    )


@dataclass(frozen=True)
class PlainCondition:
    """The values of one argument for which a member of a CUDA library takes its plain-PyTorch path
    (``torch_scatter.scatter``'s ``reduce``: ``sum``, ``add``, ``mean``): named, or passed at ``position``;
    ``default`` is its value when the call omits it."""

    argument: str
    position: int
    default: Optional[str]
    values: FrozenSet[str]


@dataclass(frozen=True)
class PlainMember:
    """A member of a ``kind: kernels`` library that the library's own source writes in plain PyTorch
    (``third_party.json`` ``plain``): what it computes with (``runs``), the source file, release and license that
    show it (``source``) and the text quoted from it; ``when``: the argument values it does so for (else all)."""

    name: str
    library: str
    runs: str
    source: str
    quote: str
    when: Optional[PlainCondition] = None


@dataclass(frozen=True)
class PlainImport:
    """What importing a library with plain-PyTorch members needs where there is no CUDA, and the source saying so."""

    library: str
    note: str
    source: str
    quote: str


@dataclass(frozen=True)
class ThirdParty:
    libraries: Mapping[str, Mapping[str, str]]
    apis: Mapping[str, Mapping[str, Mapping[str, str]]]
    pytorch: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: per library: its plain-PyTorch members and what its import needs (``third_party.json`` ``plain``)
    plain: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @cached_property
    def roots(self) -> FrozenSet[str]:
        """The top-level packages of the libraries (``deepspeed`` for ``deepspeed.ops``)."""
        return frozenset(name.split(".", 1)[0] for name in self.libraries)

    def library_of(self, qualname: str) -> Optional[str]:
        """The CUDA-bound library a qualified name belongs to (longest match: ``deepspeed.ops``)."""
        if qualname.split(".", 1)[0] not in self.roots:  # asked of every usage; most are torch's own
            return None
        hit = longest(qualname, lambda name: name in self.libraries)
        return hit[0] if hit else None

    def library_named(self, spelling: str) -> Optional[str]:
        """The CUDA-bound library a test's name asks for (``guards.library_asked``): its import name
        (``flash_attn`` for ``is_flash_attn_2_available``: the name, or the name and a suffix) or one of its
        ``aliases`` (``bnb`` for ``HAS_BNB``)."""
        for name, info in self.libraries.items():
            spellings = (name, *info.get("aliases", ()))
            if any(spelling == s or spelling.startswith(s + "_") for s in spellings):
                return name
        return None

    def row_of(self, qualname: str) -> Optional[str]:
        """The name of the row that judges ``qualname`` by its member (a vendor row, a plain-PyTorch path, a plain
        member: the longest prefix one names), or ``None`` where only the library's own verdict does."""
        hit = longest(qualname, lambda name: name in self.apis or name in self.pytorch
                      or self.plain_member(name) is not None)
        return hit[0] if hit else None

    def replacement(self, qualname: str, target: str) -> Optional[Tuple[str, Mapping[str, str]]]:
        hit = longest(qualname, lambda name: self.apis[name] if target in self.apis.get(name, {}) else None)
        return (hit[0], hit[2][target]) if hit else None

    def serves(self, library: str, target: str) -> bool:
        """Whether the target's vendor data names a path for some API of ``library`` (Ascend's apex build and
        ``torch_npu.optim``, ``npu_fusion_attention`` for flash_attn), a plain-PyTorch one aside."""
        return any((api == library or api.startswith(library + ".")) and target in rows
                   for api, rows in self.apis.items())

    def has_replacement(self, library: str, target: str) -> bool:
        """Whether some API of ``library`` has a vendor replacement on ``target`` or a plain-PyTorch path."""
        def inside(api: str) -> bool:
            return api == library or api.startswith(library + ".")

        return any(inside(api) and target in rows for api, rows in self.apis.items()) or \
            any(inside(api) for api in self.pytorch)

    def plain_twin(self, qualname: str) -> Optional[Mapping[str, str]]:
        """The plain-PyTorch row of a class the data names by its own name (GLM's ``from apex.normalization.
        fused_layer_norm import FusedLayerNorm as LayerNorm``: importing the twin in its place is the one swap, which
        every use takes); not of a module a row covers by prefix (``import flash_attn``)."""
        row = self.pytorch.get(qualname)
        return row if row is not None and qualname.rpartition(".")[2][:1].isupper() else None

    def pytorch_path(self, qualname: str) -> Optional[Mapping[str, str]]:
        """The plain-PyTorch replacement for an API of a CUDA-only library, when there is one."""
        hit = longest(qualname, self.pytorch.get)
        return hit[2] if hit else None

    @cached_property
    def _plain_members(self) -> Mapping[str, PlainMember]:
        members: Dict[str, PlainMember] = {}
        for library, table in self.plain.items():
            for name, row in table["members"].items():
                when = row.get("when")
                member = PlainMember(name, library, row["runs"], row["source"], row["quote"], when=PlainCondition(
                    when["argument"], when["position"], when["default"], frozenset(when["values"])) if when else None)
                for spelling in (name, *row.get("also", ())):
                    members[spelling] = member
        return members

    def plain_member(self, qualname: str) -> Optional[PlainMember]:
        """The plain-PyTorch member ``qualname`` names exactly (``torch_scatter.scatter_mean``), if it is one."""
        return self._plain_members.get(qualname)

    def plain_import(self, library: str) -> Optional[PlainImport]:
        """What importing ``library`` needs where there is no CUDA, for a library with plain-PyTorch members."""
        row = self.plain.get(library)
        if row is None:
            return None
        imported = row["import"]
        return PlainImport(library, imported["note"], imported["source"], imported["quote"])


@lru_cache(maxsize=None)
def third_party() -> ThirdParty:
    data = load_json("third_party.json")
    return ThirdParty(libraries=data["libraries"], apis=data["apis"], pytorch=data.get("pytorch", {}),
                      plain=data.get("plain", {}))


@lru_cache(maxsize=None)
def tensor_methods() -> FrozenSet[str]:
    return frozenset(load_json("tensor_methods.json")["methods"])


@lru_cache(maxsize=None)
def _torch_api_document() -> Mapping[str, Any]:
    path = maps_dir() / "torch_api.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def torch_api_version() -> str:
    """The torch the API table was traced with (``2.13.0``)."""
    return str(_torch_api_document().get("torch_version", "?"))


def module_states() -> Mapping[str, Mapping[str, Any]]:
    """``torch.nn`` module class -> what it holds when built with no argument (``holds``) and its constructor's
    tensor arguments (``tensor_args``), from ``operator_maps/torch_api.json``."""
    return _torch_api_document().get("module_states", {})


def torch_api_table() -> Mapping[str, Mapping[str, Any]]:
    """Python API -> aten ops it runs (forward, backward), from ``operator_maps/torch_api.json``."""
    return _torch_api_document().get("apis", {})


def torch_api_aliases() -> Mapping[str, str]:
    """Other spellings of the table's APIs (``torch.nn.modules.loss.MSELoss`` -> ``torch.nn.MSELoss``), found
    by object identity when the table was traced."""
    return _torch_api_document().get("aliases", {})


@dataclass(frozen=True)
class VendorCall:
    to: str
    mapping: str
    differs: str
    source: str


@dataclass(frozen=True)
class OpFamily:
    """A family of custom operators (``curated/custom_op_families.yaml``) and what each target offers for it."""

    name: str
    what: str
    patterns: Tuple[re.Pattern, ...]
    pytorch: Optional[str]
    pytorch_note: Optional[str]
    targets: Mapping[str, VendorCall]
    kernel_hints: Mapping[str, Tuple[str, str]]  # target -> (kernel name, source file)

    def matches(self, name: str) -> bool:
        lowered = name.lower()
        return any(p.search(lowered) for p in self.patterns)


@lru_cache(maxsize=None)
def rename_semantics() -> Mapping[str, Mapping[str, Mapping[str, str]]]:
    """Per target and API: a vendor note judged to describe the CUDA behaviour (``note``, ``same``: why)."""
    return load_json("rename_semantics.json")["targets"]


def same_as_cuda(target: str, api: str, note: Optional[str]) -> Optional[str]:
    """Why ``api``'s rename on ``target`` behaves as the CUDA original despite its vendor ``note``, when a
    curated row judged that very note; else ``None``."""
    row = rename_semantics().get(target, {}).get(api)
    return row["same"] if row is not None and note is not None and row["note"] == note else None


@lru_cache(maxsize=None)
def device_tools() -> Mapping[str, Mapping[str, Any]]:
    """Per target: ``stack`` (its software stack, by name) and ``tools`` (NVIDIA tool -> the vendor's, quoted)."""
    return load_json("device_tools.json")["targets"]


@dataclass(frozen=True)
class FrameworkSetting:
    """A framework's handling of one setting's values (``curated/frameworks.yaml``): per kind of runtime
    (``renamed`` / ``kept``, the target's ``cuda_names``) a status, a message and maybe a suggestion; a target id
    (``targets: {neuware: ...}``) where the framework treats that runtime apart from the others of its kind."""

    id: str
    framework: str
    category: str
    calls: Tuple[str, ...]
    argument: str
    config: Tuple[str, ...]
    values: Tuple[str, ...]
    source: str
    quote: str
    verdicts: Mapping[str, Mapping[str, str]]
    #: the value a call that does not write the argument gets (the framework's default), and where it is declared
    omitted: Optional[str] = None
    omitted_source: str = ""

    def matches(self, text: Optional[str]) -> bool:
        """Whether a value written as ``text`` is one of the row's (``*``: any value but ``all``/none and those the
        row excepts with a ``!``: ``gpus`` set to anything but ``0``)."""
        if text is None:
            return False
        text = text.strip().strip("'\"").lower()
        if "*" in self.values:
            excepted = {v[1:].strip("'\"").lower() for v in self.values if v.startswith("!")}
            return text not in ("", "all", "none", "null") and text not in excepted
        flags = {"true": "true", "1": "true", "yes": "true"}
        return any(flags.get(text, text) == v.lower() for v in self.values)


@lru_cache(maxsize=None)
def framework_settings() -> Tuple[FrameworkSetting, ...]:
    data = load_json("frameworks.json")
    out = []
    for row in data["settings"]:
        framework = data["frameworks"][row["framework"]]
        omitted = row.get("omitted")
        source = f"{framework['repo']}@{framework['commit'][:12]} {row['file']} (operator_maps/curated/frameworks.yaml)"
        out.append(FrameworkSetting(
            id=row["id"], framework=row["framework"], category=row["category"], calls=tuple(row.get("calls") or ()),
            argument=row["argument"], config=tuple(row.get("config") or ()),
            values=tuple(str(v) for v in row["values"]), source=source, quote=row["quote"],
            verdicts={**{kind: row[kind] for kind in ("renamed", "kept")}, **(row.get("targets") or {})},
            omitted=str(omitted["value"]) if omitted else None,
            omitted_source=(f"{framework['repo']}@{framework['commit'][:12]} {', '.join(omitted['files'])}: "
                            f"{omitted['quote']}") if omitted else ""))
    return tuple(out)


@dataclass(frozen=True)
class FirstRelease:
    """The first release of a library whose own code serves a target's device (``curated/frameworks.yaml``
    ``device_support``)."""

    package: str
    version: Tuple[int, ...]
    since: str
    source: str  # the repository, the tag and its commit, the file that shows it


@lru_cache(maxsize=1)
def first_releases() -> Mapping[Tuple[str, str], FirstRelease]:
    """(normalised package name, target id) -> the library's first release that serves the target's device."""
    found: Dict[Tuple[str, str], FirstRelease] = {}
    for row in load_json("frameworks.json").get("device_support") or ():
        for target, first in row["targets"].items():
            what = f"{first['file']}" + (f" ({first['symbol']})" if first.get("symbol") else "")
            source = (f"{row['repo']}@{first['tag']} ({first['commit'][:12]}, {row['license']}): {what} "
                      "(operator_maps/curated/frameworks.yaml)")
            for package in row["packages"]:
                name = normalised_package(package)
                found[(name, target)] = FirstRelease(name, release_tuple(first["since"]), first["since"], source)
    return found


def normalised_package(name: str) -> str:
    """A distribution name as the package index compares it (``Mmcv_Full`` -> ``mmcv-full``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def release_tuple(version: str) -> Tuple[int, ...]:
    """The release numbers of a version (``0.9.3rc1`` -> ``(0, 9, 3)``)."""
    numbers = []
    for part in version.split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        numbers.append(int(digits.group()))
        if digits.end() != len(part):
            break
    return tuple(numbers)


@dataclass(frozen=True)
class Guide:
    """A vendor's (or PyTorch's) performance guide, quoted (``curated/tuning.yaml``)."""

    name: str
    title: str
    url: str
    quote: str


@dataclass(frozen=True)
class TuneAdvice:
    """What one pitfall (or one CUDA switch) costs on one target, and what its guides say to do."""

    status: str  # partial | unknown | supported (a switch whose effect the target already has)
    cost: str
    advice: str
    guides: Tuple[Guide, ...]
    vendor: bool = True  # False: the vendor's documentation does not name it; the guides are PyTorch's
    #: a pitfall the project's training step must have for the row to hold (``dynamic-shape``), else supported
    when: Optional[str] = None


@dataclass(frozen=True)
class Tuning:
    pitfalls: Mapping[str, Mapping[str, TuneAdvice]]  # pitfall -> target -> advice
    switches: Mapping[str, Mapping[str, TuneAdvice]]  # CUDA switch (``torch.backends.cudnn.benchmark``) -> ...
    #: the pitfalls in the order ``curated/tuning.yaml`` lists them
    order: Tuple[str, ...] = ()


@lru_cache(maxsize=None)
def tuning() -> Tuning:
    """The vendors' performance guides per pitfall and target (``rules/tune/``)."""
    data = load_json("tuning.json")
    guides = {name: Guide(name, g["title"], g["url"], g["quote"]) for name, g in data["guides"].items()}

    def table(rows: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> Dict[str, Dict[str, TuneAdvice]]:
        return {key: {target: TuneAdvice(status=str(row["status"]), cost=str(row["cost"]),
                                         advice=str(row.get("advice") or ""),
                                         guides=tuple(guides[g] for g in row.get("guides") or ()),
                                         vendor=bool(row.get("vendor", True)),
                                         when=str(row["when"]) if row.get("when") else None)
                      for target, row in per_target.items()}
                for key, per_target in rows.items()}

    return Tuning(pitfalls=table(data["pitfalls"]), switches=table(data["switches"]),
                  order=tuple(data.get("order") or ()))


@lru_cache(maxsize=None)
def op_families() -> Tuple[OpFamily, ...]:
    data = load_json("custom_op_families.json")
    return tuple(OpFamily(
        name=f["name"], what=f["what"], patterns=tuple(re.compile(p) for p in f["match"]),
        pytorch=f.get("pytorch"), pytorch_note=f.get("pytorch_note"),
        targets={t: VendorCall(**row) for t, row in f["targets"].items()},
        kernel_hints={t: (row["kernel"], row["source"]) for t, row in f["kernel_hint"].items()},
    ) for f in data["families"])


@dataclass(frozen=True)
class FamilyModel:
    """A library model whose training step runs custom-operator families' kernels (torchvision's Faster R-CNN:
    ``nms`` in its region proposals, ``roi_align`` in its box pooler), with the quoted source that says so."""

    runs: Tuple[str, ...]
    source: str
    quote: str
    #: a function that is Python over the kernels (batched_nms over nms), not a model whose training step runs them
    function: bool = False


@lru_cache(maxsize=None)
def family_models() -> Mapping[str, FamilyModel]:
    """Per qualified name a model may be called by (``torchvision.models.detection.fasterrcnn_resnet50_fpn``), the
    families its training step runs (``custom_op_families.yaml`` ``models``)."""
    data = load_json("custom_op_families.json")
    return {name: FamilyModel(tuple(row["runs"]), row["source"], row["quote"], row.get("kind") == "function")
            for name, row in (data.get("models") or {}).items()}
