"""Reachability: which nodes the entry points reach, along how many paths, and which findings sit on
the training path."""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import networkx as nx

from ..assess import PATHS_CAP
from ..inventory import OpMembership
from ..model import CustomOp, Finding, GraphSummary, NodeReach
from .build import ProjectGraph
from ..model import NodeKind


def reach(project: ProjectGraph) -> Dict[str, NodeReach]:
    """For every node reached from an entry point: how many entry points and call paths reach it, and one path.

    Paths are counted on the graph with its cycles collapsed (networkx condensation), so recursion counts once;
    counts are capped at ``PATHS_CAP``.
    """
    graph = project.graph
    if not project.entries:
        return {}
    entry_nodes = [e.node for e in project.entries]
    dag = nx.condensation(graph)
    member = dag.graph["mapping"]
    entry_bits: Dict[int, int] = defaultdict(int)
    entry_paths: Dict[int, int] = defaultdict(int)
    for index, node in enumerate(entry_nodes):
        entry_bits[member[node]] |= 1 << index
        entry_paths[member[node]] += 1
    bits: Dict[int, int] = {}
    paths: Dict[int, int] = {}
    for component in nx.topological_sort(dag):
        b = entry_bits.get(component, 0)
        p = entry_paths.get(component, 0)
        for pred in dag.predecessors(component):
            if bits.get(pred):
                b |= bits[pred]
                p = min(PATHS_CAP, p + paths[pred])
        if b:
            bits[component], paths[component] = b, p
    parents = _shortest_path_tree(graph, entry_nodes)
    result: Dict[str, NodeReach] = {}
    for node in graph.nodes:
        component = member[node]
        if component in bits:
            result[node] = NodeReach(node=node, entries=bin(bits[component]).count("1"),
                                     paths=paths[component], path=_path_to(node, parents),
                                     kind=graph.nodes[node].get("kind", NodeKind.UNPLACED))
    return result


def _shortest_path_tree(graph: nx.DiGraph, sources: Sequence[str]) -> Dict[str, Optional[str]]:
    parents: Dict[str, Optional[str]] = {s: None for s in sources}
    queue = deque(sources)
    while queue:
        node = queue.popleft()
        for nxt in graph.successors(node):
            if nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return parents


def _path_to(node: str, parents: Mapping[str, Optional[str]]) -> Tuple[str, ...]:
    path = [node]
    while parents.get(path[-1]) is not None and len(path) < 64:
        path.append(parents[path[-1]])  # type: ignore[arg-type]
    return tuple(reversed(path))


def mark_reachable(project: ProjectGraph, reached: Mapping[str, NodeReach], findings: Sequence[Finding],
                   ops: Sequence[CustomOp]) -> Tuple[Tuple[Finding, ...], Dict[str, str]]:
    """Findings with ``reachable`` set, and the node each Python finding sits in.

    Without entry points nothing can be judged: ``reachable`` stays ``None``. Launch-environment files
    (scripts, Dockerfiles, requirements) are on every path. A custom op's kernels, registrations and build
    are reachable when one of its call sites (or its ``setup.py`` build) is.
    """
    if not project.entries:
        return tuple(findings), {}
    nodes: Dict[str, str] = {}
    marked: List[Finding] = []
    for finding in findings:
        node = project.node_of(finding)
        if node is not None:
            nodes[finding.id] = node
        marked.append(replace(finding, reachable=_reachable(finding, node, reached)))
    member = OpMembership(ops)
    op_reached = {member.op_of(f) for f in marked if f.reachable and f.path.endswith((".py", ".ipynb"))}
    final = []
    for finding in marked:
        op = member.op_of(finding) if not finding.path.endswith((".py", ".ipynb")) else None
        if op is not None:  # a kernel or registration: reached when its op's Python side is
            finding = replace(finding, reachable=op in op_reached)
        final.append(finding)
    return tuple(final), nodes


def _reachable(finding: Finding, node: Optional[str], reached: Mapping[str, NodeReach]) -> Optional[bool]:
    if finding.path.endswith((".py", ".ipynb")):
        return node in reached if node is not None else None
    if finding.path.endswith((".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp")):
        return None  # decided by the custom op it belongs to (or unknown when it belongs to none)
    return True  # launch scripts, Dockerfiles, requirements: the environment every run uses


def summarise(project: ProjectGraph, reached: Mapping[str, NodeReach], nodes: Mapping[str, str]) -> GraphSummary:
    held = set(nodes.values())
    return GraphSummary(nodes=project.graph.number_of_nodes(), edges=project.graph.number_of_edges(),
                        entries=project.entries, reached=len(reached),
                        reach={n: reached[n] for n in sorted(held) if n in reached},
                        finding_nodes=dict(sorted(nodes.items())), unresolved_entries=project.unresolved_entries)


def call_paths(project: ProjectGraph, node: str, limit: int = 3, budget: int = 20000) -> Tuple[Tuple[str, ...], ...]:
    """Up to ``limit`` shortest call paths to ``node``, each from a different entry point (entry point first).

    A breadth-first search backwards from ``node``; it stops after ``budget`` visited nodes, so a path
    sample never costs more than a bounded walk on a big graph.
    """
    graph = project.graph
    if node not in graph or not project.entries:
        return ()
    entries = {e.node for e in project.entries}
    toward: Dict[str, Optional[str]] = {node: None}  # node -> the next node on the way to ``node``
    queue = deque([node])
    found: List[str] = []
    while queue and len(found) < limit and len(toward) < budget:
        current = queue.popleft()
        if current in entries:
            found.append(current)
        for caller in graph.predecessors(current):
            if caller not in toward:
                toward[caller] = current
                queue.append(caller)
    paths = []
    for entry in found:
        path = [entry]
        while toward[path[-1]] is not None:
            path.append(toward[path[-1]])  # type: ignore[arg-type]
        paths.append(tuple(path))
    return tuple(paths)
