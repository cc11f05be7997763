"""A module the project imports only where a library is installed is optional as a whole.

peft's ``tuners/lora/bnb.py`` imports ``bitsandbytes`` at its top, unguarded; but the only code that imports
``tuners/lora/bnb.py`` does so under ``if is_bnb_available():``. Where bitsandbytes is missing (on every
target: it is CUDA-only) the module is never loaded and the project takes its other path: its uses of the
library need no port. Tests and tooling do not count as importers (a test imports every module directly). A
module imported unconditionally, but only by such optional modules, is optional with them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..maps.load import TargetMap
from ..model import Context, FileResult, Finding, Status, Verdict
from ..contexts import path_context
from ..rules.base import runs_on_a_note
from .coverage import runs_as_written

#: The rules whose findings a module that is never loaded on the target does not need.
_LIBRARY_RULES = frozenset({"cuda-library"})
_SOURCE = "migrator import analysis"


@dataclass(frozen=True)
class OptionalModule:
    """A repository module that training code imports only optionally: where, and whether some import is made
    only in a CUDA tensor's branch (then the module is missing only where the target's tensors are not CUDA's)."""

    importers: Tuple[str, ...]
    cuda_branch: bool = False
    #: loaded by a name its importers compute (``importlib.import_module(f".{name}", package)``), not imported
    by_name: bool = False


def optional_modules(results: Sequence[FileResult]) -> Dict[str, OptionalModule]:
    """Path of each repository module that training code imports, but only optionally -> where it is imported."""
    modules = {r.outline.module: r.file.rel for r in results if r.outline is not None}
    imported: Dict[str, List[Tuple[str, str]]] = {}
    for result in results:
        outline = result.outline
        if outline is None or path_context(result.file.rel) != Context.TRAINING:
            continue
        optional, cuda = set(outline.optional_imports), set(outline.cuda_branch_imports)
        for name in outline.imports:
            module = _repository_module(name, modules)
            if module is not None and module != outline.module:
                how = _LIBRARY if name in optional else _CUDA_BRANCH if name in cuda else _ALWAYS
                imported.setdefault(module, []).append((result.file.rel, how))
    found: Dict[str, OptionalModule] = {}
    changed = True
    while changed:  # solo-learn's dali_dataloader: imported always, but only by modules imported optionally
        changed = False
        for m, sites in imported.items():
            if modules[m] not in found and sites and all(how != _ALWAYS or path in found for path, how in sites):
                found[modules[m]] = OptionalModule(tuple(sorted({path for path, _ in sites})),
                                                   any(how == _CUDA_BRANCH for _, how in sites))
                changed = True
    return {**found, **_loaded_by_name(results, set(imported))}


def _loaded_by_name(results: Sequence[FileResult], imported: Set[str]) -> Dict[str, OptionalModule]:
    """spikingjelly's neuron providers (``ops/lif/triton.py``): modules of a package that no training code imports,
    where a module of that package loads modules by a computed name under ``try/except ImportError`` with a way on
    (``importlib.import_module(f".{name}", package)``): they are loaded only where they import, and the loader
    goes on without them. A script (a ``__main__`` block) is run, not loaded, and keeps its verdicts."""
    loaders: Dict[str, List[str]] = {}  # package -> the loaders' paths
    for result in results:
        outline = result.outline
        if outline is not None and outline.loads_optionally_by_name and "." in outline.module \
                and path_context(result.file.rel) == Context.TRAINING:
            package = outline.module if result.file.rel.endswith("__init__.py") else outline.module.rsplit(".", 1)[0]
            loaders.setdefault(package, []).append(result.file.rel)
    found: Dict[str, OptionalModule] = {}
    for result in results if loaders else ():
        outline = result.outline
        if outline is None or outline.module in imported or outline.main_lines is not None:
            continue
        within = next((p for p in loaders if outline.module.startswith(p + ".")), None)
        if within is not None and result.file.rel not in loaders[within]:
            found[result.file.rel] = OptionalModule(tuple(sorted(loaders[within])), by_name=True)
    return found


_LIBRARY, _CUDA_BRANCH, _ALWAYS = "library", "cuda-branch", "always"


def _repository_module(name: str, modules: Dict[str, str]) -> Optional[str]:
    """The repository module an import names: itself, or the module a ``from m import name`` reads from."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def with_optional_modules(findings: Sequence[Finding], results: Sequence[FileResult],
                          targets: Sequence[TargetMap] = ()) -> List[Finding]:
    """``findings``, with a CUDA library's uses in an optional module ``supported`` wherever the library is
    missing: the module is not loaded there. One imported in CUDA tensors' branches is loaded on a target whose
    runtime presents its tensors as CUDA's (Kunlunxin): there it keeps its verdicts."""
    optional = optional_modules(results)
    if not optional:
        return list(findings)
    kept = {t.id for t in targets if t.runtime_facts.cuda_names != "renamed"}
    out = []
    for finding in findings:
        where = optional.get(finding.path)
        if where is None or finding.rule not in _LIBRARY_RULES:
            out.append(finding)
            continue
        verdicts = {t: v if where.cuda_branch and t in kept else _not_loaded(v, t, where)
                    for t, v in finding.verdicts.items()}
        out.append(replace(finding, verdicts=verdicts))
    return out


def _not_loaded(verdict: Verdict, target: str, where: OptionalModule) -> Verdict:
    if verdict.status == Status.SUPPORTED:
        return verdict
    importers: Set[str] = set(where.importers)
    how = ("under `try/except ImportError`, an `is_*_available()` test or a CUDA tensor's branch (`if x.is_cuda:`)"
           if where.cuda_branch else "by a name computed at run time, under `try/except ImportError` with a way on"
           if where.by_name else "under `try/except ImportError` or an `is_*_available()` test")
    what = "a library is installed or a tensor is CUDA's" if where.cuda_branch else "a library is installed"
    named = f"{', '.join(sorted(importers)[:3])}{' ...' if len(importers) > 3 else ''}"
    return Verdict(Status.SUPPORTED, f"this module is imported only where {what} ({named}: {how}): on {target} it "
                   "is not loaded, and the code that imports it goes on without it", _SOURCE)


#: the findings of the project's own compiled operators: their builds, kernels and ``torch.ops.<ns>`` calls
_OPERATOR_RULES = frozenset({"extension-build", "cuda-kernel", "torch-ops-call"})


def with_optional_op_libraries(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, with the project's compiled operators runs-as-written on a note where the project loads their
    libraries only where they were built: torchani's ``csrc/__init__.py`` calls ``torch.ops.load_library`` under
    ``try`` with a handler that sets ``CUAEV_IS_INSTALLED = False`` and goes on, its ``setup.py`` builds the
    extensions only when asked (``ext``, ``TORCHANI_BUILD_EXT``), and its models take their pure-PyTorch way
    without them; or where every import of its compiled extension in training code sits under such a ``try``
    (torchopt's ``from torchopt._C import adam_op``, its pure-PyTorch ``_src`` in the handler). Porting the kernels
    is then a speed-up to weigh (validate), not work. A library loaded unconditionally anywhere in training code,
    or an extension the code imports or calls outside such a ``try``, keeps every verdict."""
    loads = [r.outline for r in results if r.outline is not None and path_context(r.file.rel) == Context.TRAINING]
    calls = [f for f in findings if f.rule == "extension-call" and f.context == Context.TRAINING]
    if any(o.loads_ops for o in loads):
        return list(findings)
    # a module that wraps the extension, itself imported only under such a ``try`` (Swin's
    # ``kernels/window_process/window_process.py``, imported by its model with ``WindowProcess = None`` in the
    # handler): it is loaded only where the extension was built, and its importer goes on without it
    wrappers: Dict[str, OptionalModule] = optional_modules(results) if calls else {}
    if calls and all(runs_as_written(f) or f.path in wrappers for f in calls):
        # torchopt: ``try: from torchopt._C import adam_op``
        places = sorted({f"{f.path}:{f.span.line}" for f in calls if f.path not in wrappers}
                        | {f"{path} (imported by {', '.join(wrappers[path].importers[:2])})"
                           for path in {f.path for f in calls} if path in wrappers})
        how = "imports its compiled extension only under `try` with a handler that goes on"
    elif any(o.loads_ops_optionally for o in loads) and not calls:
        places = sorted(r.file.rel for r in results if r.outline is not None and r.outline.loads_ops_optionally)
        how = "loads its compiled operators only where they were built (`torch.ops.load_library` under `try` " \
              "with a handler that goes on)"
    else:
        return list(findings)
    said = (f"the project {how} ({', '.join(places[:3])}), and goes on without them: on "
            "{target}, where they are not built, check that its callers take their other way; porting the kernels "
            "is then for speed, to weigh, not to train")
    return [replace(f, verdicts={t: v if v.status == Status.SUPPORTED else runs_on_a_note(said.format(target=t),
                                                                                            _SOURCE)
                                 for t, v in f.verdicts.items()})
            if f.rule in _OPERATOR_RULES or (f.rule == "extension-call" and f.path in wrappers) else f
            for f in findings]
