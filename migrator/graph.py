"""The repository's call graph (networkx): entry points, reachability, and how findings are reached.

Nodes are modules (``pkg.mod``), their ``if __name__ == "__main__":`` blocks (``pkg.mod.<main>``), classes and
functions (``pkg.mod.Cls.method``). Edges are calls and imports, resolved across files from the per-file
outlines (``sources/outline.py``):

* a name reached through imports and re-exports (``from .transformer import TinyGPT`` in ``model/__init__.py``);
* ``self.m()`` through the class's repo bases, and the overrides in its repo subclasses;
* ``self.block(x)`` where ``self.block = Block(...)``: ``Block.forward`` (an ``nn.Module``'s ``__call__``);
* constructing a class reaches its ``__init__``, ``forward``, ``__call__`` and ``backward`` (a module that
  is built is called; ``Fn.apply`` runs an ``autograd.Function``'s ``forward`` and ``backward``);
* a method on a receiver of unknown type reaches the repo methods of that name (when few define it);
* importing a module runs its body; a repo function passed as an argument (``mp.spawn(worker)``) or used
  as a decorator root (``@cli.command()``) is called by that scope;
* imports are read the way a script sees them: ``from model import Net`` in ``proj/train.py`` is
  ``proj.model.Net`` when the scan started above ``proj/``.

The resolution over-approximates on purpose: code wrongly marked reachable costs a look, a training path
wrongly marked dead hides a blocker. Entry points: ``__main__`` blocks, scripts named like ``train*.py`` /
``main.py``, notebooks, ``setup.py`` (pip runs it), console scripts in ``pyproject.toml`` / ``setup.cfg`` /
``setup.py``, and ``--entry MODULE[:FUNC]``. Test files are never entry points.
"""

from __future__ import annotations

import configparser
import re
import sys
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

import networkx as nx

from .assess import PATHS_CAP
from .discover import base_dir
from .inventory import OpMembership
from .maps.load import tensor_methods
from .names import longest
from .model import (Call, CustomOp, EntryPoint, FileKind, FileResult, Finding, GraphSummary, NodeReach, Outline)
from .resolve import module_name_for
from .sources.outline import MAIN, MODULE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = None

#: Constructing a class reaches these methods (found through the class's repo bases).
_ON_CONSTRUCT = ("__init__", "__post_init__", "forward", "__call__", "backward", "setup")
#: A method name defined in more repo classes than this is too common to join by name alone.
_MAX_NAME_CANDIDATES = 6
_SCRIPT_NAME = re.compile(r"^(train\w*|\w*_train|pretrain\w*|finetune\w*|main|run_\w+)$")
_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$")
_CONSOLE_SCRIPT = re.compile(r"""["']\s*[\w.-]+\s*=\s*([\w.]+)(?::([\w.]+))?\s*["']""")


@dataclass(frozen=True)
class ProjectGraph:
    """The call graph with its entry points; ``node_of`` tells which node a finding sits in."""

    graph: nx.DiGraph
    entries: Tuple[EntryPoint, ...]
    main_lines: Mapping[str, Tuple[int, int]] = field(default_factory=dict)  # module -> __main__ block lines
    unresolved_entries: Tuple[str, ...] = ()  # --entry specs that name nothing in the scanned code

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


# ------------------------------------------------------------------------------------------ building


def build_graph(root: Path, results: Sequence[FileResult], extra_entries: Sequence[str] = ()) -> ProjectGraph:
    outlines = {r.outline.module: (r, r.outline) for r in results if r.outline is not None}
    outlines = _script_dir_imports(outlines)
    builder = _Builder({name: outline for name, (_, outline) in outlines.items()})
    builder.add_nodes({name: result.file.rel for name, (result, _) in outlines.items()})
    builder.add_edges()
    entries, unresolved = _entry_points(root, outlines, builder, extra_entries)
    main_lines = {name: o.main_lines for name, (_, o) in outlines.items() if o.main_lines}
    return ProjectGraph(graph=builder.graph, entries=entries, main_lines=main_lines, unresolved_entries=unresolved)


def _script_dir_imports(outlines: Mapping[str, Tuple[FileResult, Outline]]) -> Dict[str, Tuple[FileResult, Outline]]:
    """Names imported the way a script sees them: ``python llm_trainer/train.py`` puts ``llm_trainer/`` on
    ``sys.path``, so its ``from model import TinyGPT`` means ``llm_trainer.model.TinyGPT`` when the scan started
    above that folder. A name whose head is no top-level module of the scan but is a module next to the
    importer (or next to one of its packages, nearest first) is rewritten to that module."""
    modules = set(outlines)
    top = {m.split(".")[0] for m in modules}
    children: Dict[str, Set[str]] = defaultdict(set)
    for module in modules:
        parts = module.split(".")
        for cut in range(1, len(parts)):
            children[".".join(parts[:cut])].add(parts[cut])
    rebased: Dict[str, Tuple[FileResult, Outline]] = {}
    for module, (result, outline) in outlines.items():
        parts = module.split(".")
        local: Dict[str, str] = {}
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            for head in children.get(prefix, ()):
                if head not in top:
                    local.setdefault(head, f"{prefix}.{head}")
        if not local:
            rebased[module] = (result, outline)
            continue

        def fix(name: str, local=local) -> str:
            if name.startswith("call:"):
                called = name[5:]
                inner = fix(called)
                return name if inner is called else "call:" + inner
            head, dot, tail = name.partition(".")
            return local[head] + dot + tail if head in local else name

        calls = []
        for call in outline.calls:
            target = fix(call.target)
            scope = ("@" + fix(call.scope[1:])) if call.scope.startswith("@") else call.scope
            calls.append(call if target is call.target and scope is call.scope else
                         Call(scope=scope, target=target))
        rebased[module] = (result, replace(
            outline, imports=tuple(fix(i) for i in outline.imports),
            bindings=tuple((k, fix(v)) for k, v in outline.bindings), calls=tuple(calls),
            definitions=tuple(replace(d, bases=tuple(fix(b) for b in d.bases)) if d.bases else d
                              for d in outline.definitions),
            attributes=tuple((k, fix(v)) for k, v in outline.attributes)))
    return rebased


class _Builder:
    def __init__(self, outlines: Mapping[str, Outline]):
        self.outlines = outlines
        self.graph = nx.DiGraph()
        self.bindings: Dict[str, Dict[str, str]] = {m: dict(o.bindings) for m, o in outlines.items()}
        self.bases: Dict[str, List[str]] = {}
        self.subclasses: Dict[str, List[str]] = defaultdict(list)
        self.attributes: Dict[str, str] = {}
        self.methods_named: Dict[str, List[str]] = defaultdict(list)
        self._subclass_cache: Dict[str, List[str]] = {}

    def add_nodes(self, paths: Mapping[str, str]) -> None:
        for module, outline in self.outlines.items():
            self.graph.add_node(module, kind="module", path=paths[module], line=1)
            if outline.main_lines:
                self.graph.add_node(f"{module}.{MAIN}", kind="main", path=paths[module], line=outline.main_lines[0])
                self.graph.add_edge(f"{module}.{MAIN}", module, kind="runs")
            classes = {d.name for d in outline.definitions if d.kind == "class"}
            for definition in outline.definitions:
                node = f"{module}.{definition.name}"
                owner = definition.name.rpartition(".")[0]
                kind = definition.kind if definition.kind == "class" else ("method" if owner in classes else "function")
                self.graph.add_node(node, kind=kind, path=paths[module], line=definition.line)
                if kind == "method":
                    self.methods_named[definition.name.rpartition(".")[2]].append(node)
            for attribute, constructor in outline.attributes:
                self.attributes[f"{module}.{attribute}"] = constructor
        for module, outline in self.outlines.items():
            for definition in outline.definitions:
                if definition.kind == "class":
                    node = f"{module}.{definition.name}"
                    resolved = [b for b in (self.resolve(base) for base in definition.bases) if b]
                    self.bases[node] = [b for b in resolved if self.graph.nodes[b].get("kind") == "class"]
                    for base in self.bases[node]:
                        self.subclasses[base].append(node)

    def add_edges(self) -> None:
        self._add_registries()
        for node, data in list(self.graph.nodes(data=True)):
            if data.get("kind") in ("function", "method", "class", "main"):
                self.graph.add_edge(node, self._module_of(node) or node, kind="defined-in")
            elif data.get("kind") == "module" and "." in node:
                parent = self._module_of(node.rpartition(".")[0])
                if parent:  # importing a.b.c runs a/__init__.py and a/b/__init__.py first
                    self.graph.add_edge(node, parent, kind="imports")
        for module, outline in self.outlines.items():
            for imported in outline.imports:
                target = self._module_of(imported)
                if target and target != module:
                    self.graph.add_edge(module, target, kind="imports")
            for call in outline.calls:
                source = self._source(module, call.scope)
                if source is None:
                    continue
                for target in self.targets(call.target):
                    if target != source:
                        self.graph.add_edge(source, target, kind="calls")
        for node, data in list(self.graph.nodes(data=True)):
            if data.get("kind") == "class":
                for name in _ON_CONSTRUCT:
                    for method in self.methods(node, name):
                        self.graph.add_edge(node, method, kind="constructs")

    def _add_registries(self) -> None:
        """``@MODELS.register_module()`` roots at a module-level variable: it becomes a ``registry`` node that
        any ``MODELS.build(...)``/``MODELS.get(...)`` call reaches, and that reaches what was registered."""
        for module, outline in self.outlines.items():
            for call in outline.calls:
                if not call.scope.startswith("@") or self.resolve(call.scope[1:]) is not None:
                    continue
                owner, _, name = call.scope[1:].rpartition(".")
                if owner in self.outlines and name and name not in self.bindings.get(owner, {}):
                    self.graph.add_node(call.scope[1:], kind="registry", path=self.graph.nodes[owner]["path"], line=1)
                    self.graph.add_edge(call.scope[1:], owner, kind="defined-in")

    def _source(self, module: str, scope: str) -> Optional[str]:
        if scope.startswith("@"):
            return self.resolve(scope[1:])
        source = module if scope == MODULE else f"{module}.{scope}"
        return source if source in self.graph else None

    # ------------------------------------------------------------------------------ resolution

    def resolve(self, name: str, depth: int = 0) -> Optional[str]:
        """The graph node an absolute dotted name stands for, following re-exports and class members."""
        if name in self.graph:
            return name
        if depth > 8:
            return None
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head, rest = ".".join(parts[:cut]), parts[cut:]
            if head not in self.graph:
                continue
            kind = self.graph.nodes[head].get("kind")
            if kind == "registry":
                return head  # MODELS.build(cfg), MODELS.get(name): whatever was registered may run
            if kind == "module" and rest[0] in self.bindings.get(head, {}):
                return self.resolve(".".join([self.bindings[head][rest[0]], *rest[1:]]), depth + 1)
            if kind == "class" and len(rest) == 1:
                found = self.methods(head, rest[0])
                return found[0] if found else None
            return None
        return None

    def methods(self, cls: str, name: str) -> List[str]:
        """``cls.name`` through the repo bases (first definition wins)."""
        seen: Set[str] = set()
        queue = deque([cls])
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            if f"{current}.{name}" in self.graph:
                return [f"{current}.{name}"]
            queue.extend(self.bases.get(current, ()))
        return []

    def targets(self, target: str) -> List[str]:
        kind, colon, rest = target.partition(":")
        if not colon:
            kind, rest = "", target
        if kind == "super":
            cls, _, name = rest.rpartition(".")
            return [m for base in self.bases.get(cls, ()) for m in self.methods(base, name)][:1]
        if kind == "self":
            cls, _, name = rest.rpartition(".")
            return self._dispatch(cls, name) or self._call_attribute(f"{cls}.{name}")
        if kind == "attr":
            owner, _, name = rest.rpartition(".")
            constructor = self.attributes.get(owner)
            node = self.resolve(constructor) if constructor else None
            return self.methods(node, name) if node and self.graph.nodes[node].get("kind") == "class" else []
        if kind == "call":
            node = self.resolve(rest)
            return self._instance_call(node)
        if target.startswith("?."):
            name = target[2:]
            if name.startswith("__") or name in tensor_methods():
                return []  # a dunder, or most likely a Tensor method (``loss.backward()``), not repo code
            candidates = self.methods_named.get(name, [])
            return candidates if len(candidates) <= _MAX_NAME_CANDIDATES else []
        node = self.resolve(target)
        if node is None:  # an alias imported from where it is bound: ``from ops import roi_align``
            target = self._dealias(target)
            node = self.resolve(target)
        if node is None and target.endswith(".apply"):  # autograd.Function.apply runs forward, then backward
            cls = self.resolve(target[:-len(".apply")])
            if cls and self.graph.nodes[cls].get("kind") == "class":
                return [cls] + self.methods(cls, "forward") + self.methods(cls, "backward")
        return [node] if node else []

    def _dealias(self, name: str) -> str:
        """``pkg.mod.alias.rest`` with ``alias`` replaced by what ``pkg.mod`` binds it to (one step)."""
        hit = longest(name, lambda head: self.bindings.get(head, {}).get(name[len(head) + 1:].split(".")[0]),
                      proper=True)
        if hit is None:
            return name
        _, rest, bound = hit
        return ".".join([bound, *rest.split(".")[1:]])

    def _dispatch(self, cls: str, name: str) -> List[str]:
        if cls not in self.graph:
            return []
        found = self.methods(cls, name)
        overrides = [f"{sub}.{name}" for sub in self._all_subclasses(cls) if f"{sub}.{name}" in self.graph]
        return found + overrides

    def _call_attribute(self, owner: str) -> List[str]:
        constructor = self.attributes.get(owner)
        return self._instance_call(self.resolve(constructor)) if constructor else []

    def _instance_call(self, node: Optional[str]) -> List[str]:
        if node is None or self.graph.nodes[node].get("kind") != "class":
            return []
        return self.methods(node, "forward") or self.methods(node, "__call__")

    def _all_subclasses(self, cls: str) -> List[str]:
        cached = self._subclass_cache.get(cls)
        if cached is not None:
            return cached
        found: Dict[str, None] = {}
        queue = deque(self.subclasses.get(cls, ()))
        while queue:
            sub = queue.popleft()
            if sub not in found:
                found[sub] = None
                queue.extend(self.subclasses.get(sub, ()))
        self._subclass_cache[cls] = list(found)
        return self._subclass_cache[cls]

    def _module_of(self, name: str) -> Optional[str]:
        hit = longest(name, lambda head: head in self.graph and self.graph.nodes[head].get("kind") == "module")
        return hit[0] if hit else None


# ------------------------------------------------------------------------------------------ entry points


def _entry_points(root: Path, outlines: Mapping[str, Tuple[FileResult, Outline]], builder: _Builder,
                  extra: Sequence[str]) -> Tuple[Tuple[EntryPoint, ...], Tuple[str, ...]]:
    """The entry points, and the ``--entry`` specs that name nothing in the scanned code."""
    found: Dict[str, EntryPoint] = {}

    def add(node: Optional[str], kind: str, path: str, line: int) -> None:
        if node and node in builder.graph and node not in found:
            found[node] = EntryPoint(node=node, kind=kind, path=path, line=line)

    for module, (result, outline) in sorted(outlines.items()):
        rel = result.file.rel
        if _TEST_PATH.search(rel):
            continue
        stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if result.file.kind == FileKind.NOTEBOOK:
            add(module, "notebook", rel, 1)
        elif stem == "setup":
            add(module, "setup", rel, 1)
        elif outline.main_lines:
            add(f"{module}.{MAIN}", "main-block", rel, outline.main_lines[0])
        elif _SCRIPT_NAME.match(stem):
            add(module, "script-name", rel, 1)
    def add_spec(spec: str, kind: str) -> bool:
        """``pkg.mod:func`` (a console script, ``--entry``): added when it names a node."""
        node = builder.resolve(spec.replace(":", "."))
        if node:
            data = builder.graph.nodes[node]
            add(node, kind, data.get("path", ""), data.get("line", 1))
        return node is not None

    for spec in _console_scripts(root):
        add_spec(spec, "console-script")
    unresolved = tuple(spec for spec in extra if not add_spec(spec, "cli"))
    return tuple(sorted(found.values(), key=lambda e: e.node)), unresolved


def _console_scripts(root: Path) -> List[str]:
    """``module:function`` of every console script in pyproject.toml, setup.cfg and setup.py."""
    base = base_dir(root)
    found: List[str] = []
    pyproject = base / "pyproject.toml"
    if pyproject.is_file() and tomllib is not None:
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
        except (tomllib.TOMLDecodeError, OSError):
            data = {}
        project = data.get("project", {}) if isinstance(data, dict) else {}
        for group in ("scripts", "gui-scripts"):
            for value in (project.get(group) or {}).values():
                if isinstance(value, str):
                    found.append(value.split("[")[0].strip())
    setup_cfg = base / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser()
        try:
            parser.read(setup_cfg, encoding="utf-8")
            text = parser.get("options.entry_points", "console_scripts", fallback="")
        except (configparser.Error, OSError, UnicodeDecodeError):
            text = ""
        for line in text.splitlines():
            if "=" in line:
                found.append(line.split("=", 1)[1].split("[")[0].strip())
    setup_py = base / "setup.py"
    if setup_py.is_file():
        try:
            text = setup_py.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if "console_scripts" in text:
            for match in _CONSOLE_SCRIPT.finditer(text):
                found.append(match.group(1) + (f":{match.group(2)}" if match.group(2) else ""))
    return found


# ------------------------------------------------------------------------------------------ reachability


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
                                     kind=graph.nodes[node].get("kind", ""))
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


def subgraph_around(project: ProjectGraph, reached: Mapping[str, NodeReach], focus: Iterable[str],
                    limit: int = 250) -> Tuple[Tuple[Tuple[str, str, int, bool], ...], Tuple[Tuple[str, str], ...]]:
    """The nodes on the shortest paths to ``focus`` (plus their unreached callers), for a picture.

    Returns ``(nodes, edges)``: each node as ``(id, kind, depth, reached)``; at most ``limit`` nodes.
    """
    graph = project.graph
    keep: Dict[str, None] = {}
    for node in focus:
        if node not in graph:
            continue
        for step in (reached[node].path if node in reached else (node,)):
            keep.setdefault(step)
        for caller in list(graph.predecessors(node))[:5]:
            keep.setdefault(caller)
        if len(keep) >= limit:
            break
    chosen = list(keep)[:limit]
    depth = {n: (len(reached[n].path) - 1 if n in reached else 0) for n in chosen}
    nodes = tuple((n, graph.nodes[n].get("kind", "?"), depth[n], n in reached) for n in chosen)
    members = set(chosen)
    edges = tuple(sorted((a, b) for a, b in graph.subgraph(members).edges))
    return nodes, edges


# ------------------------------------------------------------------------------------------ export


def graph_document(project: ProjectGraph, reached: Mapping[str, NodeReach],
                   findings_by_node: Mapping[str, Mapping[str, int]]) -> Dict[str, object]:
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


def to_dot(document: Mapping[str, object]) -> str:
    """Graphviz text: entry points as double octagons, nodes with blocking findings in red, unreached in grey."""
    lines = ["digraph migrator {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica", fontsize=10];']
    for node in document["nodes"]:  # type: ignore[union-attr]
        attrs = [f'label="{_dot_escape(node["id"])}"']
        if node["entry"]:
            attrs.append("shape=doubleoctagon")
        if node["reachable"] is False:
            attrs += ['color="grey70"', 'fontcolor="grey50"']
        elif any(status in node["findings"] for status in ("port", "unsupported", "rewrite")):
            attrs += ['color="red3"', 'penwidth=2']
        lines.append(f'  "{_dot_escape(node["id"])}" [{", ".join(attrs)}];')
    for edge in document["edges"]:  # type: ignore[union-attr]
        style = ', style="dashed"' if edge["kind"] == "imports" else ""
        lines.append(f'  "{_dot_escape(edge["source"])}" -> "{_dot_escape(edge["target"])}" [label="{edge["kind"]}"{style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


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
