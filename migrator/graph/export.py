"""The graph as data and pictures: the subgraph around findings (HTML), the whole graph as JSON
(``migrator graph --format json``) and Graphviz text."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping, Sequence, Tuple

from ..model import NodeReach
from .build import ProjectGraph


def subgraph_around(project: ProjectGraph, reached: Mapping[str, NodeReach], paths: Iterable[Sequence[str]],
                    limit: int = 60) -> Tuple[Tuple[Tuple[str, str, int, bool], ...], Tuple[Tuple[str, str], ...]]:
    """The call paths from an entry point to the top blockers, as one picture: the nodes on them and the
    calls along them only (DeepSpeed's picture of every caller of every finding's node was 250 boxes and a
    web of edges no one could follow).

    Returns ``(nodes, edges)``: each node as ``(id, kind, depth, reached)``; at most ``limit`` nodes (the
    first paths win).
    """
    graph = project.graph
    keep: Dict[str, None] = {}
    edges: Dict[Tuple[str, str], None] = {}
    for path in paths:
        steps = [step for step in path if step in graph]
        if len(keep) + len([s for s in steps if s not in keep]) > limit:
            continue
        keep.update(dict.fromkeys(steps))
        edges.update(dict.fromkeys(zip(steps, steps[1:])))
    depth = {n: (len(reached[n].path) - 1 if n in reached else 0) for n in keep}
    nodes = tuple((n, graph.nodes[n].get("kind", "?"), depth[n], n in reached) for n in keep)
    return nodes, tuple(sorted(edges))


def graph_document(project: ProjectGraph, reached: Mapping[str, NodeReach],
                   findings_by_node: Mapping[str, Mapping[str, int]]) -> Dict[str, Any]:
    """The whole graph as data (``migrator graph --format json``): nodes, edges, entry points."""
    entry_kinds = {e.node: e.kind for e in project.entries}
    nodes = []
    for node in sorted(project.graph.nodes):
        data = project.graph.nodes[node]
        item = {"id": node, "kind": data.get("kind"), "path": data.get("path"), "line": data.get("line"),
                "entry": entry_kinds.get(node), "reachable": (node in reached) if project.entries else None,
                "findings": dict(findings_by_node.get(node, {}))}
        if node in reached:
            item["entries_reaching"] = reached[node].entries
            item["paths"] = reached[node].paths
        nodes.append(item)
    edges = [{"source": a, "target": b, "kind": d.get("kind")} for a, b, d in sorted(project.graph.edges(data=True))]
    return {"schema": "migrator.graph/1", "entries": [e.node for e in project.entries], "nodes": nodes,
            "edges": edges}


def to_dot(document: Mapping[str, Any]) -> str:
    """Graphviz text: entry points as double octagons, nodes with blocking findings in red, unreached in grey."""
    lines = ["digraph migrator {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica", fontsize=10];']
    for node in document["nodes"]:
        attrs = [f'label="{_dot_escape(node["id"])}"']
        if node["entry"]:
            attrs.append("shape=doubleoctagon")
        if node["reachable"] is False:
            attrs += ['color="grey70"', 'fontcolor="grey50"']
        elif any(status in node["findings"] for status in ("port", "unsupported", "rewrite")):
            attrs += ['color="red3"', 'penwidth=2']
        lines.append(f'  "{_dot_escape(node["id"])}" [{", ".join(attrs)}];')
    for edge in document["edges"]:
        style = ', style="dashed"' if edge["kind"] == "imports" else ""
        lines.append(f'  "{_dot_escape(edge["source"])}" -> "{_dot_escape(edge["target"])}" '
                     f'[label="{edge["kind"]}"{style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
