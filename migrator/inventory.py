"""Cross-file joins: the project index rules read, kernel usages, and the custom-operator inventory.

An extension's name (``CUDAExtension('pkg._C', ...)``, ``load(name='fused')``) is joined to Python
imports and calls of that module; its ``sources=`` are joined to the scanned ``.cu``/``.cpp`` files,
which give kernels and registrations. ``autograd.Function`` subclasses that call it are its wrappers.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import replace
from functools import lru_cache
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from .maps.load import runtimes
from .model import (Category, Confidence, CustomOp, ExtensionBuild, FileResult, Finding, Kernel, Registration,
                    RegistrationKind, Span, Usage, UsageKind, Value, ValueKind)
from .resolve.modules import OPTIONAL_BUILD
from .rules.base import ProjectIndex, usages_across_files
from .rules.custom_op import EXTENSION_BUILDERS

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_IMPORT = UsageKind.IMPORT
_STR = ValueKind.STR
_SUBCLASS = UsageKind.SUBCLASS
_TORCH_LIBRARY = RegistrationKind.TORCH_LIBRARY


def read_by_inventory(usage: Usage) -> bool:
    """Whether ``build_index`` or ``custom_ops`` looks at this usage (the cache keeps those apart)."""
    return _is_extension_build(usage) or _is_autograd_function(usage) or _vendor_build_target(usage) is not None


def _vendor_build_target(usage: Usage) -> Optional[str]:
    """The target whose own extension builder this usage calls or names (mmcv picks it into a variable:
    ``extension = NpuExtension``, then ``extension(name, sources)``); importing it alone is not a build."""
    return None if usage.kind == _IMPORT else _vendor_builders().get(usage.api)


@lru_cache(maxsize=None)
def _vendor_builders() -> Dict[str, str]:
    """Each runtime's own extension builder -> its target id (asked of every usage the pool keeps apart)."""
    return {r.build_api: r.id for r in runtimes().values() if r.build_api}


def _is_extension_build(usage: Usage) -> bool:
    return usage.kind == _CALL and usage.api in EXTENSION_BUILDERS


def _is_autograd_function(usage: Usage) -> bool:
    return usage.kind == _SUBCLASS and usage.api.startswith("torch.autograd.Function")


def build_index(results: Sequence[FileResult]) -> ProjectIndex:
    constants: Dict[str, Value] = {}
    extensions: Dict[str, ExtensionBuild] = {}
    triton: Set[str] = set()
    namespaces: Set[str] = set()
    sources: List[Tuple[str, str]] = []  # a kernel decorated through another module's name, and that name
    optional: Set[str] = set()  # names modules bind by an import under ``try``
    for result in results:
        if result.python is not None:
            for name, value in result.python.constants.items():
                constants[f"{result.python.module}.{name}"] = value
            triton.update(result.python.triton_kernels)
            sources.extend(result.python.kernel_sources)
            optional.update(result.python.optional_imports)
        for usage in usages_across_files(result):
            if _is_extension_build(usage):
                build = _extension_build(usage, result.file.rel)
                if build is not None:
                    extensions.setdefault(build.name, build)
        if result.cuda is not None:
            namespaces.update(r.namespace for r in result.cuda.registrations
                              if r.kind == _TORCH_LIBRARY and r.namespace)
    aliases = {name.rsplit(".", 1)[-1]: name for name in extensions}
    modules = frozenset(r.python.module for r in results if r.python is not None)
    # torchani's ``cell_list()`` in ``neighbors.py``, beside the extension it builds as ``cell_list``
    defined = frozenset(f"{r.outline.module}.{d.name}" for r in results if r.outline is not None
                        for d in r.outline.definitions if "." not in d.name) if aliases else frozenset()
    return ProjectIndex(constants=constants, extensions=extensions, extension_aliases=aliases, modules=modules,
                        defined=defined,
                        library_namespaces=frozenset(namespaces), triton_kernels=frozenset(triton),
                        optional_kernels=frozenset(kernel for kernel, name in sources if name in optional))


def _extension_build(usage: Usage, path: str) -> Optional[ExtensionBuild]:
    name = None
    sources: List[str] = []
    for index, arg in enumerate(usage.args):
        text = arg.value.text if arg.value.kind == _STR else None
        if (arg.keyword == "name" or (arg.keyword is None and index == 0)) and text:
            name = text
        elif arg.keyword in ("sources", "cuda_sources", "cpp_sources") or (arg.keyword is None and index == 1):
            sources.extend(_strings(arg.value))
    if not name:
        return None
    optional = usage.context == OPTIONAL_BUILD and usage.api.rsplit(".", 1)[-1] in _RUN_TIME_BUILDS
    return ExtensionBuild(name=name, api=usage.api, path=path, span=usage.span, sources=tuple(sources),
                          optional=optional)


#: the module name ``torch.utils.cpp_extension`` defines for the sources it builds (``-DTORCH_EXTENSION_NAME=<name>``):
#: ``PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)`` in a file below a ``setup.py`` whose globbed sources the static
#: reader cannot follow (yolact's DCNv2: ``[os.path.join(extensions_dir, s) for s in sources]``) binds that build
_EXTENSION_NAME_MACRO = "TORCH_EXTENSION_NAME"
#: the builders that compile at run time, where a ``try`` around them can go on without the extension
_RUN_TIME_BUILDS = frozenset({"load", "load_inline"})


def _strings(value: Value) -> List[str]:
    """Source paths and globs in a sources expression: ``['a.cu', 'b.cpp']``, ``glob('csrc/*.cu') + ...``,
    or a variable assigned one of those in several branches."""
    if value.kind == _STR and value.text:
        return [value.text]
    # (a glob of every extension counts: torch-cluster's CMake ``file(GLOB ... csrc/*.*)``)
    found = re.findall(r"""['"]([^'"]+\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp|\*))['"]""", value.text or "")
    for option in value.options:
        found.extend(_strings(option))
    return found


def kernel_usages(result: FileResult) -> Tuple[Usage, ...]:
    if result.cuda is None:
        return ()
    return tuple(
        Usage(api=f"{result.file.rel}::{k.name}", kind=UsageKind.KERNEL, span=Span(k.line),
              confidence=Confidence.RESOLVED,
              snippet=f"__global__ {k.name}(...)", context=f"{k.lines} lines in {result.file.rel}")
        for k in result.cuda.kernels)


def custom_ops(results: Sequence[FileResult], index: ProjectIndex, findings: Sequence[Finding]) -> Tuple[CustomOp, ...]:
    by_path = {r.file.rel: r for r in results}
    cuda_files = [r for r in results if r.cuda is not None]
    claimed = set()
    wrappers_of = _autograd_classes(results)
    ops: List[CustomOp] = []
    # the deepest build first: a glob a repository's own setup.py spells (detectron2's ``**/*.cpp``) does not
    # take the sources of a project's extension below it (``projects/TensorMask/setup.py``)
    for name, build in sorted(index.extensions.items(), key=lambda item: (-item[1].path.count("/"), item[0])):
        base = posixpath.dirname(build.path)
        free = [r for r in cuda_files if r.file.rel not in claimed]
        files = sorted({r.file.rel for r in free for pattern in build.sources if _matches(r.file.rel, pattern, base)})
        if files and any(ch in pattern for pattern in build.sources for ch in "*?["):
            files = _extension_folders(files, free, by_path) or files
        if not files:  # sources we could not read statically: fall back to a pybind module of that name
            files = sorted(r.file.rel for r in free
                           if r.cuda is not None and r.cuda.pybind_module in (name, name.rsplit(".", 1)[-1]))
        if not files and base:  # ... or to the one the build names by its macro, under the build's folder
            files = _extension_folders(sorted(r.file.rel for r in free if r.file.rel.startswith(base + "/")
                                              and r.cuda is not None
                                              and r.cuda.pybind_module == _EXTENSION_NAME_MACRO), free, by_path)
        files = _with_includes(files, by_path)
        claimed.update(files)
        calls = [f for f in findings if (f.rule == "extension-call" and index.extension_of(f.api) == name)
                 or _calls_a_registered_op(f, files, by_path)]
        op = _op(name, build, files, by_path, calls, wrappers_of)
        ops.append(replace(op, vendor_builds=_vendor_builds(by_path.get(build.path))))
    ops.sort(key=lambda op: op.name)
    orphans: Dict[str, List[str]] = {}
    for result in cuda_files:
        if result.file.rel in claimed or result.cuda is None or not (result.cuda.kernels or result.cuda.registrations):
            continue
        orphans.setdefault(posixpath.dirname(result.file.rel) or ".", []).append(result.file.rel)
    for folder, files in sorted(orphans.items()):  # kernels no build names: one entry per folder
        ops.append(_op(folder + "/", None, _with_includes(sorted(files), by_path), by_path, [], wrappers_of))
    return tuple(ops)


def _calls_a_registered_op(finding: Finding, files: Sequence[str], by_path: Mapping[str, FileResult]) -> bool:
    """Whether ``finding`` calls ``torch.ops.<namespace>.<op>`` for a namespace ``files`` register."""
    parts = finding.api.split(".")
    if finding.rule != "torch-ops-call" or len(parts) < 3:
        return False
    return any(r.kind == _TORCH_LIBRARY and r.namespace == parts[2]
               for rel in files if rel in by_path for r in _registrations(by_path[rel]))


def _vendor_builds(result: Optional[FileResult]) -> Tuple[Tuple[str, int], ...]:
    """Where the build file calls a target runtime's own extension builder: (target, line), first per target."""
    found: Dict[str, int] = {}
    for usage in usages_across_files(result) if result is not None else ():
        target = _vendor_build_target(usage)
        if target is not None:
            found.setdefault(target, usage.span.line or 0)
    return tuple(sorted(found.items()))


def _registrations(result: FileResult) -> Tuple[Registration, ...]:
    return result.cuda.registrations if result.cuda is not None else ()


def _with_includes(files: List[str], by_path) -> List[str]:
    """The files plus every project header they include, transitively (kernels often live in .cuh files)."""
    by_name: Dict[str, List[str]] = {}
    for rel, result in by_path.items():
        if result.cuda is not None:
            by_name.setdefault(posixpath.basename(rel), []).append(rel)
    seen = list(files)
    queue = list(files)
    while queue:
        facts = by_path[queue.pop()].cuda
        for include in facts.includes if facts else ():
            for candidate in by_name.get(posixpath.basename(include), ()):
                if candidate.endswith(include.lstrip("./")) and candidate not in seen:
                    seen.append(candidate)
                    queue.append(candidate)
    return sorted(seen)


def _op(name, build, files, by_path, calls: Iterable[Finding], wrappers_of) -> CustomOp:
    kernels: List[Kernel] = []
    registrations: List[Registration] = []
    for rel in files:
        facts = by_path[rel].cuda
        kernels.extend(facts.kernels)
        registrations.extend(facts.registrations)
    calls = list(calls)
    wrappers = sorted({cls for f in calls for cls in wrappers_of if f.scope.startswith(cls + ".")})
    return CustomOp(name=name, build=build, files=tuple(files), kernels=tuple(kernels),
                    registrations=tuple(registrations), wrappers=tuple(wrappers),
                    call_sites=tuple(sorted({(f.path, f.span.line or 0) for f in calls})),
                    kernel_lines=sum(k.lines for k in kernels), cuda_code=_has_cuda_code(files, by_path))


def _has_cuda_code(files: Sequence[str], by_path) -> bool:
    """Whether an extension's files hold CUDA code; sources that could not be found count as CUDA (unknown)."""
    if not files:
        return True
    for rel in files:
        facts = by_path[rel].cuda
        if rel.endswith((".cu", ".cuh")) or (facts is not None
                                              and (facts.kernels or facts.launches or facts.cuda_includes)):
            return True
    return False


def _autograd_classes(results: Sequence[FileResult]) -> List[str]:
    classes = []
    for result in results:
        for usage in usages_across_files(result):
            if _is_autograd_function(usage) and result.python:
                classes.append(usage.context or "")  # the resolver puts the class's qualified name here
    return [c for c in classes if c]


def _matches(rel: str, pattern: str, base: str) -> bool:
    """Whether a source pattern of a build in folder ``base`` names ``rel``. A glob is read under ``base``
    only (its folder part was a variable the static reader could not follow: ``path.join(ext_dir, "**",
    "*.cpp")`` reads as ``*.cpp``)."""
    candidate = posixpath.normpath(posixpath.join(base, pattern)) if base else posixpath.normpath(pattern)
    candidate = candidate.lstrip("./")
    if any(ch in pattern for ch in "*?["):
        inside = not base or rel.startswith(base + "/")
        return inside and (fnmatch.fnmatch(rel, candidate) or fnmatch.fnmatch(rel, "*/" + pattern.lstrip("./")))
    return rel == candidate or rel.endswith("/" + pattern.lstrip("./"))


def _extension_folders(files: Sequence[str], free: Sequence[FileResult], by_path) -> List[str]:
    """A globbed extension's sources: every C++/CUDA file under the folders of the files that bind it to
    Python (``PYBIND11_MODULE``, ``TORCH_LIBRARY``). Globs come with variables the static reader cannot
    follow (``sources += source_cuda``: the ``.cu`` half of detectron2's ``_C``), and a repository-wide
    ``*.cpp`` also matches a deployment example's ``.cpp``; the binding files say where the extension is."""
    binding = {posixpath.dirname(rel) for rel in files
               if by_path[rel].cuda.pybind_module or by_path[rel].cuda.registrations}
    if not binding:
        return []
    return sorted(r.file.rel for r in free
                  if any(folder == "" or r.file.rel.startswith(folder + "/") for folder in binding))


class OpMembership:
    """Which custom op a finding belongs to: by the extension module its API names, else by where it is
    (a call site, the build line, or one of the op's C++/CUDA files)."""

    def __init__(self, ops: Sequence[CustomOp]):
        self.names = sorted((op.name for op in ops), key=len, reverse=True)
        self.places: Dict[Tuple[str, int], str] = {}
        for op in ops:
            for path in op.files:
                self.places[(path, 0)] = op.name
            for site in op.call_sites:
                self.places.setdefault(site, op.name)
            if op.build is not None:
                self.places[(op.build.path, op.build.span.line or 0)] = op.name

    def op_of(self, finding: Finding) -> Optional[str]:
        if finding.category != Category.CUSTOM_OP:
            return None
        for name in self.names:
            if finding.api == name or finding.api.startswith(name + "."):
                return name
        return self.places.get((finding.path, finding.span.line or 0)) or self.places.get((finding.path, 0))
