"""An import of a CUDA library whose every use in its file runs as written: a plain-PyTorch member of it
(``from torch_scatter import scatter`` before ``scatter(src, index, dim=0)``, whose default reduce is "sum";
``import bitsandbytes as bnb`` before ``bnb.nn.StableEmbedding(...)`` alone), a type check, or code that runs
only on an object of the library a caller hands in (``elif isinstance(edge_index, SparseTensor):``, PyG's
``message_and_aggregate(self, adj_t: SparseTensor, x)``: ``OBJECT_OF``); or whose names the file writes only in
annotations (torch-geometric-temporal's ``_cached_adj_t: Optional[SparseTensor]``). Such an import needs the
package installed, none of its kernels: no work. Where every use is a plain member the library's import data
says what that needs (``rules/third_party/plain``); otherwise the import is a note to validate (does the package
install for the target's torch?). One use that does not run as written (a ``reduce="max"``, a
``SparseTensor.from_dense`` the code makes), or a file that names the import nowhere (a re-export), leaves the
import the library's finding, unless the data judges every use by its member (a vendor row, a plain-PyTorch
path, a plain member: swav's ``import apex`` before ``apex.amp.initialize``, ``apex.parallel.convert_syncbn_model``
and ``LARC``): then the work is at those uses, each with its own path, and the bare import is no port of its own
(an import that is itself a swap, ``from apex.normalization import FusedLayerNorm as LayerNorm``, keeps its
verdict, and so does a module-level import of a package the data does not say imports without CUDA: TinyLlama's
``from flash_attn import flash_attn_func`` fails before any use is reached)."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..maps.load import third_party
from ..model import FileResult, Finding, Status, Usage, UsageKind
from ..rules.base import runs_on_a_note, usages_across_files
from ..rules.third_party import HANDLES_ONLY
from ..rules.third_party.plain import import_verdict
from .coverage import runs_as_written
from .reread import parse_text, read_text, type_references

_IMPORT = UsageKind.IMPORT
_RULE = "cuda-library"

#: an import's place in its file: path, cell, line, column
_Place = Tuple[str, Optional[int], Optional[int], Optional[int]]


def reads(usage: Usage) -> bool:
    """Whether ``with_plain_imports`` looks at this usage (the cache keeps those apart for it): an import of a
    CUDA library."""
    return usage.kind == _IMPORT and third_party().library_of(usage.api) is not None


def with_plain_imports(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, each import finding of a CUDA library made no work in a file where every use of that library
    runs as written, or where the file writes its names only in annotations."""
    table = third_party()
    paths = {f.path for f in findings if f.rule == _RULE and _library(f) is not None and not runs_as_written(f)}
    if not paths:
        return list(findings)
    by_rel = {r.file.rel: r for r in results if r.file.rel in paths}
    imports: Dict[_Place, Usage] = {}
    for result in by_rel.values():
        imports.update(((result.file.rel, u.span.cell, u.span.line, u.span.col), u)
                       for u in usages_across_files(result) if reads(u))
    groups: Dict[Tuple[str, str], Tuple[List[Finding], List[Finding]]] = {}
    for finding in findings:
        library = _library(finding) if finding.rule == _RULE and finding.path in paths else None
        if library is not None:
            imported, used = groups.setdefault((finding.path, library), ([], []))
            (imported if _place(finding) in imports else used).append(finding)
    texts: Dict[str, Optional[str]] = {}
    changed: Dict[str, Finding] = {}
    for (path, library), (imported, used) in groups.items():
        pending = [f for f in imported if not runs_as_written(f)]
        if not pending:
            continue
        if used and not all(runs_as_written(f) for f in used):
            if any(table.plain_twin(f.api) is not None for f in pending) \
                    or not all(_judged_by_a_member(f, table) for f in used) \
                    or (table.plain_import(library) is None and any(f.scope == "<module>" for f in pending)):
                # an import that is itself a swap; a use only the library's own verdict judges; or a module-level
                # import of a package the data does not say imports without CUDA (flash-attn builds only with
                # it): the import fails on the target before any use is reached, whatever the uses become
                continue
            for finding in pending:
                changed[finding.id] = _at_its_uses(finding, library, used)
            continue
        if used:
            members = [table.plain_member(f.api) for f in used]
            if not all(m is not None or _handles_only(f) for m, f in zip(members, used)):
                continue  # a use that needs a kernel, or the package itself (``triton.__version__``)
            needs = table.plain_import(library)
            names = [m.name for m in members if m is not None]
            plain = needs is not None and all(m is not None for m in members)
            why = ("the file runs none of {library}'s CUDA code here: its uses are plain-PyTorch members, type "
                   "checks, or code run only on a {library} object a caller hands in")
        else:
            bound = [imports[_place(f)] for f in pending]
            if not _only_annotated(by_rel.get(path), bound, texts):
                continue
            plain, needs, names = False, None, []
            why = "the file writes the {library} names it imports only in annotations and type checks"
        for finding in pending:
            changed[finding.id] = replace(finding, verdicts={
                t: v if v.status == Status.SUPPORTED
                else import_verdict(t, needs, names) if plain and needs is not None
                else runs_on_a_note(f"{why.format(library=library)}: the import needs the package installed (built "
                                    f"for {t}'s torch), none of its kernels; check that it installs there",
                                    _SOURCE)
                for t, v in finding.verdicts.items()})
    return [changed.get(f.id, f) for f in findings]


def _judged_by_a_member(finding: Finding, table) -> bool:
    """Whether the data judges this use by the member it names, on every target (a vendor row, a plain-PyTorch
    path, a plain member whose plain path it takes), or it only handles the library's objects; not by the
    library's own fallback."""
    return _handles_only(finding) or (table.plain_member(finding.api) is not None and runs_as_written(finding)) or all(
        table.replacement(finding.api, t) is not None or table.pytorch_path(finding.api) is not None
        for t in finding.verdicts)


def _at_its_uses(finding: Finding, library: str, used: Sequence[Finding]) -> Finding:
    """An import whose every use the data judges by its member (swav's ``import apex`` before ``apex.amp`` and
    ``apex.parallel.convert_syncbn_model``): the work is at those uses, each with its own path; the import is no
    cause of its own (once each use is replaced it goes; one kept as written needs the package installed)."""
    names = ", ".join(f"`{api}`" for api in sorted({f.api for f in used})[:4])
    why = (f"the file uses {library} only through members the data judges where they are used ({names}): the work "
           "is at those uses; once each is replaced the import goes, and one kept as written needs the package "
           "installed for the target")
    return replace(finding, verdicts={t: v if v.status == Status.SUPPORTED else runs_on_a_note(why, _SOURCE)
                                      for t, v in finding.verdicts.items()})


def _handles_only(finding: Finding) -> bool:
    """A use that only handles the library's objects: a type check, code run only on one a caller hands in."""
    return all(v.source == HANDLES_ONLY for v in finding.verdicts.values())


#: the source of a verdict this module makes from the file's own code
_SOURCE = "migrator import analysis"


def _only_annotated(result: Optional[FileResult], imports: Sequence[Usage],
                    texts: Dict[str, Optional[str]]) -> bool:
    """Whether the names ``imports`` bind (the outline's bindings: ``ST`` of ``... import SparseTensor as ST``)
    are read in the file, and only in annotations (a type's name for the checker: ``Optional[SparseTensor]``)."""
    tree = parse_text(read_text(result, texts))
    if result is None or result.outline is None or tree is None:
        return False
    apis = {u.api for u in imports}
    names = {name for name, target in result.outline.bindings if target in apis} \
        | {api.rsplit(".", 1)[-1] for api in apis}  # (a name bound as itself is no binding the outline lists)
    annotated = type_references(tree)
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names]
    return bool(reads) and all(id(n) in annotated for n in reads)


def _library(finding: Finding) -> Optional[str]:
    return third_party().library_of(finding.api)


def _place(finding: Finding) -> _Place:
    return (finding.path, finding.span.cell, finding.span.line, finding.span.col)
