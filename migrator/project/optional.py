"""A module the project imports only where a library is installed is optional as a whole.

peft's ``tuners/lora/bnb.py`` imports ``bitsandbytes`` at its top, unguarded; but the only code that imports
``tuners/lora/bnb.py`` does so under ``if is_bnb_available():``. Where bitsandbytes is missing (on every
target: it is CUDA-only) the module is never loaded and the project takes its other path: its uses of the
library need no port. Tests and tooling do not count as importers (a test imports every module directly).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..model import Context, FileResult, Finding, Status, Verdict
from ..contexts import path_context

#: The rules whose findings a module that is never loaded on the target does not need.
_LIBRARY_RULES = frozenset({"cuda-library"})
_SOURCE = "migrator import analysis"


def optional_modules(results: Sequence[FileResult]) -> Dict[str, Tuple[str, ...]]:
    """Path of each repository module that training code imports, but only optionally -> where it is imported."""
    modules = {r.outline.module: r.file.rel for r in results if r.outline is not None}
    imported: Dict[str, List[Tuple[str, bool]]] = {}
    for result in results:
        outline = result.outline
        if outline is None or path_context(result.file.rel) != Context.TRAINING:
            continue
        optional = set(outline.optional_imports)
        for name in outline.imports:
            module = _repository_module(name, modules)
            if module is not None and module != outline.module:
                imported.setdefault(module, []).append((result.file.rel, name in optional))
    return {modules[m]: tuple(sorted({path for path, _ in sites})) for m, sites in imported.items()
            if sites and all(optional for _, optional in sites)}


def _repository_module(name: str, modules: Dict[str, str]) -> Optional[str]:
    """The repository module an import names: itself, or the module a ``from m import name`` reads from."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def with_optional_modules(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, with a CUDA library's uses in an optional module ``supported`` wherever the library is
    missing: the module is not loaded there."""
    optional = optional_modules(results)
    if not optional:
        return list(findings)
    out = []
    for finding in findings:
        where = optional.get(finding.path)
        if where is None or finding.rule not in _LIBRARY_RULES:
            out.append(finding)
            continue
        out.append(replace(finding, verdicts={t: _not_loaded(v, t, where) for t, v in finding.verdicts.items()}))
    return out


def _not_loaded(verdict: Verdict, target: str, where: Tuple[str, ...]) -> Verdict:
    if verdict.status == Status.SUPPORTED:
        return verdict
    importers: Set[str] = set(where)
    return Verdict(Status.SUPPORTED, f"this module is imported only where a library is installed "
                   f"({', '.join(sorted(importers)[:3])}{' ...' if len(importers) > 3 else ''}: under "
                   f"`try/except ImportError` or an `is_*_available()` test): on {target} it is not loaded, and "
                   "the code that imports it goes on without it", _SOURCE)
