"""The call graph and its reach, kept in the cache between scans.

Building the graph is the largest part of a scan after an edit (2 s of 7 on transformers), and most edits do
not change it: the graph is a function of each file's imports, definitions, calls and bases, not of the
lines they sit on. ``graph_digest`` digests exactly that (with the entry points and console scripts); a scan
whose digest is in the cache takes the graph from there and only sets each node's line from the files as
they are now (``restored``). An edit that adds a call or an import misses, and the graph is built again.

The snapshot is plain columns (``GraphSnapshot``): nodes with their kind, path and line, and edges with their
kind, in the order the build added them (``ProjectGraph.added``), which gives every node its successors and
predecessors in the order networkx had them: call paths and pictures walk them. Every node a build makes has
a kind, a path and a line, and every edge a kind and a CUDA test's line (``build.node_rows``,
``GraphIndex.add_edge``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import networkx as nx

from ..discover import base_dir
from ..model import EntryPoint, FileResult, GraphSnapshot, NodeReach
from ..sources.outline import outline_shape
from .packaging import console_scripts
from .build import ProjectGraph, node_rows


def graph_digest(root: Path, results: Sequence[FileResult], entries: Sequence[str]) -> bytes:
    """What the graph depends on: the root, the ``--entry`` specs, the console scripts, every outline
    without its line numbers, and the scopes of the training loops and steps (``library_training``)."""
    digest = hashlib.sha256()
    for part in (str(root), repr(list(entries)), repr(console_scripts(base_dir(root)))):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    for result in results:  # in order: the build's order of nodes and edges follows it
        outline = result.outline
        if outline is None:
            continue
        steps = result.step  # the training loops and steps: a library's entries where nothing else trains
        trains = repr((sorted({loop.scope for loop in steps.loops}), sorted(steps.steps))) if steps else ""
        for part in (result.file.rel, result.file.kind.value, outline.shape or outline_shape(outline), trains):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.digest()


def snapshot_of(project: ProjectGraph, reached: Dict[str, NodeReach]) -> Optional[GraphSnapshot]:
    """The graph as plain columns; ``None`` for a graph that does not know the order its edges came in."""
    graph = project.graph
    sources, targets = project.added
    if len(sources) != graph.number_of_edges():
        return None
    data = graph.nodes
    adjacency = graph.adj
    return GraphSnapshot(
        nodes=tuple(data), node_kinds=tuple(d["kind"] for d in data.values()),
        node_paths=tuple(d["path"] for d in data.values()), node_lines=tuple(d["line"] for d in data.values()),
        sources=sources, targets=targets,
        edge_kinds=tuple(adjacency[a][b]["kind"] for a, b in zip(sources, targets)),
        edge_cuda_tests=tuple(adjacency[a][b].get("cuda_test", 0) for a, b in zip(sources, targets)),
        entries=project.entries, unresolved_entries=project.unresolved_entries, predicates=tuple(project.predicates),
        reached=tuple((r.node, r.entries, r.paths, r.path, r.kind) for r in reached.values()))


def restored(snapshot: GraphSnapshot, results: Sequence[FileResult]) -> Tuple[ProjectGraph, Dict[str, NodeReach]]:
    """The saved graph with the lines of ``results`` (nodes, entry points, ``__main__`` blocks)."""
    graph = nx.DiGraph()
    graph.add_nodes_from((node, {"kind": kind, "path": path, "line": line}) for node, kind, path, line
                         in zip(snapshot.nodes, snapshot.node_kinds, snapshot.node_paths, snapshot.node_lines))
    cuda_tests = snapshot.edge_cuda_tests or (0,) * len(snapshot.sources)
    graph.add_edges_from((a, b, {"kind": kind, "cuda_test": test} if test else {"kind": kind}) for a, b, kind, test
                         in zip(snapshot.sources, snapshot.targets, snapshot.edge_kinds, cuda_tests))
    outlines = {r.outline.module: (r.file.rel, r.outline) for r in results if r.outline is not None}  # as built
    for path, outline in outlines.values():
        for node, data in node_rows(outline, path):
            if node in graph:
                graph.nodes[node]["line"] = data["line"]
    entries = tuple(EntryPoint(e.node, e.kind, e.path, graph.nodes[e.node].get("line", e.line))
                    for e in snapshot.entries)
    main_lines = {module: outline.main_lines for module, (_, outline) in outlines.items() if outline.main_lines}
    project = ProjectGraph(graph=graph, entries=entries, main_lines=main_lines,
                           unresolved_entries=snapshot.unresolved_entries, predicates=frozenset(snapshot.predicates),
                           added=(snapshot.sources, snapshot.targets))
    return project, {row[0]: NodeReach(*row) for row in snapshot.reached}
