"""A device default a subclass hands on to its base, one decision: nnU-Net's hundred trainer variants each write
``device: torch.device = torch.device('cuda')`` in their ``__init__`` and pass it on with
``super().__init__(plans, configuration, fold, dataset_json, device)``.

Each such default is the base's default written again: whatever the project decides for the base's default it
decides for every variant's, so each is a site of the base class's finding on the same parameter (the base's own
base's, where that one forwards too), one item with many sites, not a hundred items. A default the subclass keeps
for itself (not passed to ``super().__init__``) stays its own finding, as does one whose base the scan cannot find
among the project's classes, whose base has no default of that parameter, or whose base's default is no work.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..evidence import Bucket, bucket, finding_bucket
from ..model import FileResult, Finding
from .overridden_defaults import ParameterDefault, defaults_in
from .reread import parse_text, read_text

#: the rules whose findings are a default's device string, or the availability test that chooses it
_RULES = frozenset({"device-string", "device-call", "device-argument"})

#: a place in a file: (path, line, column)
_Place = Tuple[str, int, int]
#: a file read once: its tree, and its parameters' defaults by place (``overridden_defaults.defaults_in``)
_Read = Tuple[ast.Module, Dict[Tuple[int, int], ParameterDefault]]


def with_forwarded_defaults(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, each default a subclass passes to ``super().__init__`` a site of its base's finding."""
    candidates = [f for f in findings if f.rule in _RULES and f.root is None and f.scope.endswith(".__init__")]
    if not candidates:
        return list(findings)
    by_rel = {r.file.rel: r for r in results if r.outline is not None}
    by_module = {r.outline.module: r for r in by_rel.values() if r.outline is not None}
    texts: Dict[str, Optional[str]] = {}
    read: Dict[str, Optional[_Read]] = {}

    def read_of(rel: str) -> Optional[_Read]:  # each file parsed and its defaults listed once
        if rel not in read:
            tree = parse_text(read_text(by_rel.get(rel), texts)) if rel in by_rel else None
            read[rel] = (tree, defaults_in(tree)) if tree is not None else None
        return read[rel]

    at = {(f.path, f.span.line or 0, f.span.col or 0, f.rule): f for f in findings}
    base_of: Dict[str, str] = {}  # finding id -> the base's finding id
    for finding in candidates:
        place = _forwarded_to(finding, by_rel[finding.path], by_rel, by_module, read_of) \
            if finding.path in by_rel else None
        base = at.get((*place, finding.rule)) if place is not None else None
        # a base default that is no work (every call of the base passes it) is no item to join: each variant's
        # default is then its own question
        if base is not None and base.id != finding.id and finding_bucket(base) == Bucket.WORK:
            base_of[finding.id] = base.id

    def head(found: str, seen: int = 0) -> str:  # a variant of a variant: the first base's
        return head(base_of[found], seen + 1) if found in base_of and seen < 32 else found

    sites: Dict[str, List[Finding]] = {}
    for finding in findings:
        if finding.id in base_of:
            sites.setdefault(head(finding.id), []).append(finding)
    return [replace(f, root=head(f.id)) if f.id in base_of
            else _naming_its_variants(f, sites[f.id]) if f.id in sites else f for f in findings]


def _naming_its_variants(base: Finding, variants: Sequence[Finding]) -> Finding:
    """The base's finding saying where its default is written again: where every variant hands its own on, the
    base's line alone changes no run (deepod's ``BaseDeepAD(device='cuda')`` and its 25 estimators)."""
    places = [f"{path}:{line}" for path, line in sorted((f.path, f.span.line or 0) for f in variants)]
    where = ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    said = (f"; the same default is written again in {len(places)} subclass{'es' if len(places) > 1 else ''} "
            f"that pass{'' if len(places) > 1 else 'es'} {'their' if len(places) > 1 else 'its'} own on ({where}): "
            "change them with it, one item")
    verdicts = {target: replace(verdict, message=verdict.message + said) if bucket(verdict) == Bucket.WORK else verdict
                for target, verdict in base.verdicts.items()}
    return replace(base, verdicts=verdicts)


def _forwarded_to(finding: Finding, result: FileResult, by_rel: Dict[str, FileResult],
                  by_module: Dict[str, FileResult], read_of: Callable[[str], Optional[_Read]]) -> Optional[_Place]:
    """Where the base's default of the parameter ``finding`` is the default of sits, when the subclass's
    ``__init__`` passes that parameter to ``super().__init__``: the nearest base up the chain with an
    ``__init__`` of its own (one that inherits its ``__init__`` hands it on as it is)."""
    own = read_of(finding.path)
    default = own[1].get((finding.span.line or 0, finding.span.col or 0)) if own is not None else None
    if own is None or default is None:
        return None
    tree = own[0]
    owner = _class(tree, default.callee)
    init = _init(owner)
    if owner is None or init is None or not _hands_on(init, default.parameter):
        return None
    for _ in range(_DEPTH):
        name = _first_base(owner)
        rel = _defined_in(name, result, by_module) if name is not None else None
        base = read_of(rel) if rel is not None else None
        owner = _class(base[0], name) if base is not None and name is not None else None
        if owner is None or rel is None or base is None:
            return None
        if _init(owner) is not None:
            return next(((rel, line, col) for (line, col), found in base[1].items()
                         if found.callee == name and found.parameter == default.parameter and not found.method), None)
        result = by_rel.get(rel, result)
    return None


#: how far up a class chain a default is followed
_DEPTH = 8


def _class(tree: ast.Module, name: str) -> Optional[ast.ClassDef]:
    return next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name), None)


def _init(owner: Optional[ast.ClassDef]) -> Optional[ast.FunctionDef]:
    return next((item for item in owner.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"),
                None) if owner is not None else None


def _first_base(owner: ast.ClassDef) -> Optional[str]:
    base = owner.bases[0] if owner.bases else None
    return base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None


def _hands_on(init: ast.FunctionDef, parameter: str) -> bool:
    """Whether ``__init__`` passes ``parameter`` as it came to ``super().__init__(...)``."""
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" \
                and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name) \
                and node.func.value.func.id == "super":
            values = [*node.args, *(k.value for k in node.keywords)]
            return any(isinstance(v, ast.Name) and v.id == parameter for v in values)
    return False


def _defined_in(name: str, result: FileResult, by_module: Dict[str, FileResult]) -> Optional[str]:
    """The project file that defines class ``name`` as ``result``'s module sees it: its own, or the module an
    import binds the name from."""
    outline = result.outline
    if outline is None:
        return None
    if any(d.name == name for d in outline.definitions):
        return result.file.rel
    qualified = dict(outline.bindings).get(name)
    module = by_module.get(qualified.rsplit(".", 1)[0]) if qualified else None
    if module is not None and module.outline is not None and any(d.name == name for d in module.outline.definitions):
        return module.file.rel
    return None
