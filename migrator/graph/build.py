"""Building the call graph from the per-file outlines: nodes for modules, ``__main__`` blocks, classes
and functions; edges for imports, calls, definitions and constructions (see ``graph/__init__.py``)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Tuple

import networkx as nx

from ..model import (CallTarget, EntryPoint, FileResult, Finding, InstanceCall, NamedTarget, Outline,
                     UnknownReceiver)
from ..resolve import module_name_for
from ..resolve.modules import script_dir_heads
from ..sources.outline import CALLS_BY_NAME, MAIN, MODULE, REGISTERS
from .entries import entry_points
from .index import GraphIndex
from ..model import DefinitionKind, NodeKind

#: Constructing a class reaches these methods (found through the class's repo bases).
_ON_CONSTRUCT = ("__init__", "__post_init__", "forward", "__call__", "backward", "setup")


@dataclass(frozen=True)
class ProjectGraph:
    """The call graph with its entry points; ``node_of`` tells which node a finding sits in."""

    graph: nx.DiGraph
    entries: Tuple[EntryPoint, ...]
    main_lines: Mapping[str, Tuple[int, int]] = field(default_factory=dict)  # module -> __main__ block lines
    unresolved_entries: Tuple[str, ...] = ()  # --entry specs that name nothing in the scanned code
    #: the functions that answer CUDA for their callers (``Definition.cuda_answer``: ``fused_available()``)
    predicates: FrozenSet[str] = frozenset()
    #: (sources, targets) of the edges in the order the build first added them: networkx keeps each node's
    #: successors and predecessors in that order, which call paths and pictures follow, so a saved graph
    #: replays it
    added: Tuple[Tuple[str, ...], Tuple[str, ...]] = ((), ())

    def release(self) -> None:
        """Free the graph now, for a caller done with it. networkx keeps views of a graph on the graph (a
        cycle), so a dropped one waits for the cyclic collector, which a scan runs rarely and never while it
        writes the report (``FewerCollections.keeping``): on transformers that is 100 MB held through the writing."""
        self.graph.clear()

    def node_of(self, finding: Finding) -> Optional[str]:
        if not finding.path.endswith((".py", ".ipynb")):
            return None
        module = module_name_for(finding.path)
        if finding.scope != MODULE and finding.scope in self.graph:
            return finding.scope
        lines = self.main_lines.get(module)
        if lines and finding.span.line and lines[0] <= finding.span.line <= lines[1] and finding.span.cell is None:
            return f"{module}.{MAIN}"
        return module if module in self.graph else None


def build_graph(root: Path, results: Sequence[FileResult], extra_entries: Sequence[str] = ()) -> ProjectGraph:
    outlines = {r.outline.module: (r, r.outline) for r in results if r.outline is not None}
    outlines = _script_dir_imports(outlines)
    plain = {name: outline for name, (_, outline) in outlines.items()}
    index = GraphIndex(plain)
    _add_nodes(index, plain, {name: result.file.rel for name, (result, _) in outlines.items()})
    predicates = frozenset(f"{module}.{d.name}" for module, outline in plain.items()
                           for d in outline.definitions if d.cuda_answer)
    _add_edges(index, plain, predicates)
    entries, unresolved = entry_points(root, outlines, index, extra_entries)
    main_lines = {name: o.main_lines for name, (_, o) in outlines.items() if o.main_lines}
    return ProjectGraph(graph=index.graph, entries=entries, main_lines=main_lines, unresolved_entries=unresolved,
                        predicates=predicates, added=(tuple(index.added_sources), tuple(index.added_targets)))


def path_folder_heads(rel: str, folders: Sequence[str], outlines: Mapping[str, object]) -> Dict[str, str]:
    """The import heads a module's ``sys.path`` additions make visible (``Outline.path_folders``): RAFT's
    ``train.py`` appends ``core``, so its ``from raft import RAFT`` means ``core.raft``. {head: absolute module}."""
    heads: Dict[str, str] = {}
    for folder in folders:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), folder))
        if target in (".", "") or target.startswith(".."):
            continue  # the scan's own top, whose modules every import sees already, or a folder above it
        prefix = target.replace("/", ".") + "."
        for name in outlines:
            head = name[len(prefix):] if name.startswith(prefix) else ""
            if head and "." not in head:
                heads.setdefault(head, name)
    return heads


def _script_dir_imports(outlines: Mapping[str, Tuple[FileResult, Outline]]) -> Dict[str, Tuple[FileResult, Outline]]:
    """Names imported the way a script sees them: ``python llm_trainer/train.py`` puts ``llm_trainer/`` on
    ``sys.path``, so its ``from model import TinyGPT`` means ``llm_trainer.model.TinyGPT`` when the scan started
    above that folder. A name whose head is no top-level module of the scan but is a module next to the
    importer (or next to one of its packages, nearest first) is rewritten to that module."""
    locals_of = script_dir_heads(outlines)
    rebased: Dict[str, Tuple[FileResult, Outline]] = {}
    for module, (result, outline) in outlines.items():
        local = {**path_folder_heads(result.file.rel, outline.path_folders, outlines), **locals_of.get(module, {})}
        if not local:
            rebased[module] = (result, outline)
            continue

        def fix(name: str, local=local) -> str:
            head, dot, tail = name.partition(".")
            return local[head] + dot + tail if head in local else name

        calls = []
        for call in outline.calls:
            target = _rebased(call.target, fix)
            scope = ("@" + fix(call.scope[1:])) if call.scope.startswith("@") else call.scope
            predicate = fix(call.predicate) if call.predicate else call.predicate
            calls.append(call if target is call.target and scope is call.scope and predicate is call.predicate else
                         replace(call, scope=scope, target=target, predicate=predicate))
        rebased[module] = (result, replace(
            outline, imports=tuple(fix(i) for i in outline.imports),
            bindings=tuple((k, fix(v)) for k, v in outline.bindings), calls=tuple(calls),
            definitions=tuple(replace(d, bases=tuple(fix(b) for b in d.bases)) if d.bases else d
                              for d in outline.definitions),
            attributes=tuple((k, fix(v)) for k, v in outline.attributes), shape=""))  # its digest no longer holds
    return rebased


def _rebased(target: CallTarget, fix: Callable[[str], str]) -> CallTarget:
    """The target with its absolute names seen from the script's folder; the class-relative kinds carry the
    module's own (already absolute) class name and stay as they are."""
    if isinstance(target, NamedTarget):
        name = fix(target.name)
        return target if name is target.name else NamedTarget(name)
    if isinstance(target, InstanceCall):
        constructor = fix(target.constructor)
        return target if constructor is target.constructor else InstanceCall(constructor)
    return target


def node_rows(outline: Outline, path: str) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """The nodes one module's outline gives, with their attributes (a name defined twice: the last wins)."""
    module = outline.module
    yield module, {"kind": NodeKind.MODULE, "path": path, "line": 1}
    if outline.main_lines:
        yield f"{module}.{MAIN}", {"kind": NodeKind.MAIN, "path": path, "line": outline.main_lines[0]}
    classes = {d.name for d in outline.definitions if d.kind == DefinitionKind.CLASS}
    for definition in outline.definitions:
        owner = definition.name.rpartition(".")[0]
        kind = (NodeKind.CLASS if definition.kind == DefinitionKind.CLASS
                else NodeKind.METHOD if owner in classes else NodeKind.FUNCTION)
        yield f"{module}.{definition.name}", {"kind": kind, "path": path, "line": definition.line}


def _add_nodes(index: GraphIndex, outlines: Mapping[str, Outline], paths: Mapping[str, str]) -> None:
    graph = index.graph
    for module, outline in outlines.items():
        for node, data in node_rows(outline, paths[module]):
            graph.add_node(node, **data)
            if data["kind"] == "main":
                index.add_edge(node, module, kind="runs")
            elif data["kind"] == "method":
                index.methods_named[node.rpartition(".")[2]].append(node)
        for attribute, constructor in outline.attributes:
            index.attributes[f"{module}.{attribute}"] = constructor
    for module, outline in outlines.items():
        for definition in outline.definitions:
            if definition.kind == DefinitionKind.CLASS:
                node = f"{module}.{definition.name}"
                resolved = [b for b in (index.resolve(base) for base in definition.bases) if b]
                index.bases[node] = [b for b in resolved if index.kind(b) == "class"]
                for base in index.bases[node]:
                    index.subclasses[base].append(node)


def _add_edges(index: GraphIndex, outlines: Mapping[str, Outline], predicates: FrozenSet[str]) -> None:
    _add_registries(index, outlines)
    _add_placement_edges(index)
    for module, outline in outlines.items():
        _add_module_edges(index, module, outline, outlines, predicates)
    _add_construct_edges(index)


#: the nodes defined in a module (the module's own ``defined-in`` edge goes to it)
_DEFINED = frozenset({NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS, NodeKind.MAIN})


def _add_placement_edges(index: GraphIndex) -> None:
    """Each definition to its module, and each package module to its parent (importing a.b.c runs
    a/__init__.py and a/b/__init__.py first)."""
    for node, data in list(index.graph.nodes(data=True)):
        if data.get("kind") in _DEFINED:
            index.add_edge(node, index.module_of(node) or node, kind="defined-in")
        elif data.get("kind") == NodeKind.MODULE and "." in node:
            parent = index.module_of(node.rpartition(".")[0])
            if parent:
                index.add_edge(node, parent, kind="imports")


def _add_module_edges(index: GraphIndex, module: str, outline: Outline, outlines: Mapping[str, Outline],
                      predicates: FrozenSet[str] = frozenset()) -> None:
    """One module's imports and calls; a call in the branch of a repository predicate that answers CUDA
    (``predicates``: ``if fused_available():`` in another module) is made in a CUDA test's branch, as one under
    ``if torch.cuda.is_available():`` is."""
    for imported in outline.imports:
        target = index.module_of(imported)
        if target and target != module:
            index.add_edge(module, target, kind="imports")
    for loaded in _submodules(index, module, outlines) if outline.loads_submodules else ():
        index.add_edge(module, loaded, kind="imports")  # any of them, by the name computed at run time
    for call in outline.calls:
        source = _source(index, module, call.scope)
        if source is None:
            continue
        targets = index.targets(call.target)
        returned = index.on_returned(call.target) if not targets else None
        if returned is not None:  # a method of what a function returns: by its name
            targets = index.targets(returned)
        by_name = isinstance(call.target, UnknownReceiver) or returned is not None  # joined by the name alone
        kind = REGISTERS if call.scope.startswith("@") else CALLS_BY_NAME if by_name else "calls"
        test = call.cuda_test or (call.predicate_line if call.predicate and index.resolve(call.predicate)
                                  in predicates else 0)
        for target in targets:
            if target != source and not (by_name and index.graph.has_edge(source, target)):
                index.add_edge(source, target, kind=kind, cuda_test=test)


def _submodules(index: GraphIndex, module: str, outlines: Mapping[str, Outline]) -> List[str]:
    """The modules of ``module``'s package one level down: its own where it is a package, else its parent's."""
    for package in (module, module.rpartition(".")[0]):
        found = [m for m in outlines if m.rpartition(".")[0] == package and m != module]
        if found:
            return found
    return []


def _add_construct_edges(index: GraphIndex) -> None:
    """A class to the methods that run once it is built or called (``_ON_CONSTRUCT``)."""
    for node, data in list(index.graph.nodes(data=True)):
        if data.get("kind") == NodeKind.CLASS:
            for name in _ON_CONSTRUCT:
                for method in index.methods(node, name):
                    index.add_edge(node, method, kind="constructs")


def _add_registries(index: GraphIndex, outlines: Mapping[str, Outline]) -> None:
    """``@MODELS.register_module()`` roots at a module-level variable: it becomes a ``registry`` node that
    any ``MODELS.build(...)``/``MODELS.get(...)`` call reaches, and that reaches what was registered."""
    for outline in outlines.values():
        for call in outline.calls:
            if not call.scope.startswith("@") or index.resolve(call.scope[1:]) is not None:
                continue
            owner, _, name = call.scope[1:].rpartition(".")
            if owner in outlines and name and name not in index.bindings.get(owner, {}):
                index.graph.add_node(call.scope[1:], kind=NodeKind.REGISTRY, path=index.graph.nodes[owner]["path"],
                                     line=1)
                index.add_edge(call.scope[1:], owner, kind="defined-in")


def _source(index: GraphIndex, module: str, scope: str) -> Optional[str]:
    if scope.startswith("@"):
        return index.resolve(scope[1:])
    source = module if scope == MODULE else f"{module}.{scope}"
    return source if source in index.graph else None
