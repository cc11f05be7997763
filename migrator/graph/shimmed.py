"""Projects that already run on a vendor's runtime patcher: what it covers is not a finding to act on.

An entry point that imports ``torch_npu.contrib.transfer_to_npu`` (or ``torch_mlu.utils.gpu_migration``)
patches torch for the whole process it starts: ``torch.cuda.synchronize()`` runs on the NPU as written, and
fairseq's Ascend port relies on exactly that instead of editing 100 lines. So a finding the shim covers
(``shim.Shim.judge``: ``covered``) on the paths a shimmed entry point reaches reads ``supported`` on that
target, with the shim as its source and the import named in its message (and the other entry points that
reach it without the import, which need it too: ``fix --shim`` adds it); what the shim does not cover (a
comparison with the device type, a CUDA kernel, an environment variable) stays a finding. The shim's tables
are the ones ``fix --shim`` uses: one source for both.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, List, Mapping, Sequence, Set

import networkx as nx

from ..model import EntryKind, FileResult, Finding, Status, Verdict
from ..shim import THROUGH_SHIM, Shim, ShimCover, shims
from .build import ProjectGraph


def through_shims(findings: Sequence[Finding], project: ProjectGraph, nodes: Mapping[str, str],
                  results: Sequence[FileResult]) -> List[Finding]:
    """``findings`` with the verdicts a shimmed entry point's patcher covers made ``supported``."""
    imports = {r.file.rel: set(r.outline.imports) for r in results if r.outline is not None}
    reach: Dict[str, Set[str]] = {}  # per entry point, what it reaches: asked once, whatever the targets

    def reached(entry) -> Set[str]:
        if entry.node not in reach:
            reach[entry.node] = _reached(project, [entry.node])
        return reach[entry.node]

    out = list(findings)
    for target, shim in shims().items():
        modules = _shim_modules(shim)
        shimmed = [e for e in project.entries if imports.get(e.path, set()) & modules]
        if not shimmed:
            continue
        covered = set().union(*(reached(e) for e in shimmed))
        others = [e for e in project.entries
                  if e not in shimmed and e.kind not in (EntryKind.SETUP, EntryKind.PUBLIC_API)]
        where = ", ".join(sorted({e.path for e in shimmed}))
        def entries_reaching(node, others=others):
            return sorted({e.path for e in others if node in reached(e)})

        out = [_through(f, shim, target, where, entries_reaching, nodes[f.id]) if nodes.get(f.id) in covered else f
               for f in out]
    return out


def _through(finding: Finding, shim: Shim, target: str, where: str,
             unpatched_of: Callable[[str], Sequence[str]], node: str) -> Finding:
    judgement = shim.judge(finding)
    if judgement is None or judgement.cover != ShimCover.COVERED:
        return finding
    unpatched = unpatched_of(node)  # the other entry points reaching it: only for what the shim covers
    verdict = finding.verdicts[target]
    also = (f"; {', '.join(unpatched[:3])}{' and more' if len(unpatched) > 3 else ''} also reach it without "
            "importing the patcher: import it there too (`migrator fix --shim`)") if unpatched else ""
    supported = Verdict(Status.SUPPORTED, f"{THROUGH_SHIM} {where} imports "
                        f"(`{'; '.join(shim.imports)}`): {judgement.why}{also}; without it: {verdict.message}",
                        shim.source, quotes=verdict.quotes)
    return replace(finding, verdicts={**finding.verdicts, target: supported})


def _shim_modules(shim: Shim) -> Set[str]:
    """The modules whose import installs the shim, from its lines (``from torch_npu.contrib import
    transfer_to_npu`` -> ``torch_npu.contrib.transfer_to_npu``)."""
    modules: Set[str] = set()
    for line in shim.imports:
        words = line.replace(",", " ").split()
        if words[:1] == ["from"] and "import" in words:
            base = words[1]
            modules.update(f"{base}.{name}" for name in words[words.index("import") + 1:] if name != "as")
        elif words[:1] == ["import"]:
            modules.update(word for word in words[1:] if word != "as")
    return {m for m in modules if m.count(".") >= 1}  # the patcher itself, not `import torch_npu`


def _reached(project: ProjectGraph, entries: Sequence[str]) -> Set[str]:
    graph = project.graph
    found: Set[str] = set()
    for entry in entries:
        if entry in graph and entry not in found:
            found.add(entry)
            found.update(nx.descendants(graph, entry))
    return found
