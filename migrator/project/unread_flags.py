"""A CUDA question bound at a module's top level to a name nothing reads: widedeep's ``use_cuda =
torch.cuda.is_available()`` at the top of ``losses.py``, read nowhere in the file and imported by no other module.

The answer decides nothing a run does: False on the target, it is dropped as it was on a machine without CUDA.
Renaming the question changes nothing either, so the finding goes to validate (a user may read the name later),
off the worklist.

Read from the module's own text and the project's imports: the name must have no load anywhere in the file (in
any function too), must not be listed in ``__all__``, and no module of the project may import it by name, import
everything from the module (``from m import *``), or import the module itself and read an attribute the scan cannot
follow (``import m``; ``m.use_cuda`` is a read of the module's attribute by a name the imports do not show).
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set

from ..model import FileResult, Finding, Status
from ..sources.outline import MODULE
from .overridden_defaults import rewrites_on_a_note
from .reread import parse_text, read_text

#: the questions that answer without CUDA (False, 0) instead of raising
_QUESTIONS = frozenset({"torch.cuda.is_available", "torch.cuda.device_count"})
_SOURCE = "migrator module-name analysis"


def with_unread_flags(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, a CUDA question bound at a module's top level to a name nothing reads to validate."""
    candidates = [f for f in findings if f.rule == "device-call" and f.api in _QUESTIONS and f.scope == MODULE
                  and any(v.status == Status.REWRITE for v in f.verdicts.values())]
    if not candidates:
        return list(findings)
    by_rel = {r.file.rel: r for r in results}
    imported = _imported(results)
    texts: Dict[str, Optional[str]] = {}
    changed: Dict[str, Finding] = {}
    for path in sorted({f.path for f in candidates}):
        result = by_rel.get(path)
        module = result.outline.module if result is not None and result.outline is not None else None
        if module is None or f"{module}.*" in imported or module in imported:
            continue
        text = read_text(result, texts)
        tree = parse_text(text) if text is not None else None
        if tree is None:
            continue
        loaded = _loaded(tree)
        for finding in (f for f in candidates if f.path == path):
            names = _bound_at(tree, finding.span.line or 0)
            if names and not any(name in loaded or f"{module}.{name}" in imported for name in names):
                changed[finding.id] = rewrites_on_a_note(
                    finding, f"its answer is bound to `{', '.join(names)}`, which nothing in the project reads: it "
                    "decides nothing a run does, on the target as on a machine without CUDA", _SOURCE)
    return [changed.get(f.id, f) for f in findings]


def _imported(results: Iterable[FileResult]) -> FrozenSet[str]:
    """Every dotted name a module of the project imports (``pkg.losses.use_cuda``, ``pkg.losses.*``, ``pkg.losses``)."""
    names: Set[str] = set()
    for result in results:
        if result.outline is not None:
            names.update(result.outline.imports)
            names.update(target for _, target in result.outline.bindings)
    return frozenset(names)


def _loaded(tree: ast.Module) -> FrozenSet[str]:
    """The names the module reads anywhere, and those its ``__all__`` lists."""
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names.update(e.value for e in ast.walk(node.value)
                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return frozenset(names)


def _bound_at(tree: ast.Module, line: int) -> List[str]:
    """The plain names a top-level assignment spanning ``line`` binds (``use_cuda = torch.cuda.is_available()``),
    or none where it binds anything else (an attribute, a subscript, a tuple)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if all(isinstance(t, ast.Name) for t in node.targets):
                return [t.id for t in node.targets if isinstance(t, ast.Name)]
            return []
    return []
