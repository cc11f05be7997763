"""Name resolution across the repository: which graph node an absolute dotted name, or a tagged call
target from an outline, stands for (re-exports, class members, bases and overrides, registries)."""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any, Callable, Dict, List, Mapping, Optional, Set

import networkx as nx

from ..maps.load import tensor_methods
from ..model import (AttributeMethod, CallTarget, InstanceCall, NamedTarget, NodeKind, Outline, SelfMethod, SuperMethod,
                     UnknownReceiver)
from ..prefixes import longest

#: A method name defined in more repo classes than this is too common to join by name alone.
_MAX_NAME_CANDIDATES = 6


class GraphIndex:
    """The graph under construction and what resolving names in it needs: each module's bindings, class
    bases and subclasses, ``self.attr`` constructors, methods by name."""

    def __init__(self, outlines: Mapping[str, Outline]):
        self.graph = nx.DiGraph()
        self.bindings: Dict[str, Dict[str, str]] = {m: dict(o.bindings) for m, o in outlines.items()}
        self.bases: Dict[str, List[str]] = {}
        self.subclasses: Dict[str, List[str]] = defaultdict(list)
        self.attributes: Dict[str, str] = {}  # "pkg.mod.Cls.attr" -> constructor
        self.methods_named: Dict[str, List[str]] = defaultdict(list)
        self._subclass_cache: Dict[str, List[str]] = {}
        # the edges in the order first added (what a saved graph replays): two columns, not a tuple an edge
        self.added_sources: List[str] = []
        self.added_targets: List[str] = []
        # answers remembered once asked: they read only the nodes, and every node is in before the first edge
        self._targets: Dict[CallTarget, List[str]] = {}
        self._modules: Dict[str, Optional[str]] = {}

    def add_edge(self, source: str, target: str, kind: str, cuda_test: int = 0) -> None:
        """An edge of ``kind``; ``cuda_test``: the line of the CUDA test in ``source`` whose branch makes the call
        (``Call.cuda_test``), kept while every call between the two is made in such a branch."""
        graph = self.graph
        if not graph.has_edge(source, target):
            self.added_sources.append(source)
            self.added_targets.append(target)
            graph.add_edge(source, target, kind=kind)
            if cuda_test:  # the key only where it is set: an edge's attributes are a dict each
                graph.adj[source][target]["cuda_test"] = cuda_test
            return
        data = graph.adj[source][target]
        data["kind"] = kind
        if not cuda_test:
            data.pop("cuda_test", None)

    def kind(self, node: str) -> Optional[str]:
        return self.graph.nodes[node].get("kind")

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
            kind = self.kind(head)
            if kind == NodeKind.REGISTRY:
                return head  # MODELS.build(cfg), MODELS.get(name): whatever was registered may run
            if kind == NodeKind.MODULE and rest[0] in self.bindings.get(head, {}):
                return self.resolve(".".join([self.bindings[head][rest[0]], *rest[1:]]), depth + 1)
            if kind == NodeKind.CLASS and len(rest) == 1:
                found = self.methods(head, rest[0])
                return found[0] if found else None
            return None
        return None

    def targets(self, target: CallTarget) -> List[str]:
        """The nodes a call target may run (a repository calls the same targets from many places)."""
        found = self._targets.get(target)
        if found is None:
            found = self._targets[target] = _BY_KIND[type(target)](self, target)
        return found

    def on_returned(self, target: CallTarget) -> Optional[UnknownReceiver]:
        """``model = build_model(opt)`` then ``model.optimize_parameters(it)`` (BasicSR's training loop): a method of
        what a function of the repository returns, a class the outline cannot know (a registry's pick): joined by
        the method's name, as a call on any untyped receiver is. ``None`` for anything else."""
        if not isinstance(target, NamedTarget):
            return None
        head, _, method = target.name.rpartition(".")
        node = self.resolve(head) if head else None
        if node is None and head:
            node = self.resolve(self._dealias(head))
        if node is None or self.kind(node) not in (NodeKind.FUNCTION, NodeKind.METHOD):
            return None
        return UnknownReceiver(method)

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

    def module_of(self, name: str) -> Optional[str]:
        if name not in self._modules:
            hit = longest(name, lambda head: head in self.graph and self.kind(head) == "module")
            self._modules[name] = hit[0] if hit else None
        return self._modules[name]

    # ------------------------------------------------------------------------------ by target kind

    def _named(self, target: NamedTarget) -> List[str]:
        name = target.name
        node = self.resolve(name)
        if node is None:  # an alias imported from where it is bound: ``from ops import roi_align``
            name = self._dealias(name)
            node = self.resolve(name)
        if node is None and name.endswith(".apply"):  # autograd.Function.apply runs forward, then backward
            cls = self.resolve(name[:-len(".apply")])
            if cls and self.kind(cls) == "class":
                return [cls] + self.methods(cls, "forward") + self.methods(cls, "backward")
        return [node] if node else []

    def _self_method(self, target: SelfMethod) -> List[str]:
        if target.cls in self.graph:
            found = self.methods(target.cls, target.name) + [
                f"{sub}.{target.name}" for sub in self._all_subclasses(target.cls)
                if f"{sub}.{target.name}" in self.graph]
            if found:
                return found
        constructor = self.attributes.get(f"{target.cls}.{target.name}")  # self.block(x): the block's forward
        return self._instance_call(self.resolve(constructor)) if constructor else []

    def _super_method(self, target: SuperMethod) -> List[str]:
        return [m for base in self.bases.get(target.cls, ()) for m in self.methods(base, target.name)][:1]

    def _attribute_method(self, target: AttributeMethod) -> List[str]:
        constructor = self.attributes.get(f"{target.cls}.{target.attr}")
        node = self.resolve(constructor) if constructor else None
        return self.methods(node, target.name) if node and self.kind(node) == "class" else []

    def _unknown_receiver(self, target: UnknownReceiver) -> List[str]:
        if target.name.startswith("__") or target.name in tensor_methods():
            return []  # a dunder, or most likely a Tensor method (``loss.backward()``), not repo code
        candidates = self.methods_named.get(target.name, [])
        return candidates if len(candidates) <= _MAX_NAME_CANDIDATES else []

    def _constructed(self, target: InstanceCall) -> List[str]:
        return self._instance_call(self.resolve(target.constructor))

    def _instance_call(self, node: Optional[str]) -> List[str]:
        if node is None or self.kind(node) != "class":
            return []
        return self.methods(node, "forward") or self.methods(node, "__call__")

    def _dealias(self, name: str) -> str:
        """``pkg.mod.alias.rest`` with ``alias`` replaced by what ``pkg.mod`` binds it to (one step)."""
        hit = longest(name, lambda head: self.bindings.get(head, {}).get(name[len(head) + 1:].split(".")[0]),
                      proper=True)
        if hit is None:
            return name
        _, rest, bound = hit
        return ".".join([bound, *rest.split(".")[1:]])

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


#: How each kind of call target is resolved: plain functions of the index, not bound methods kept on it (a
#: cycle, which would keep every index, with its caches, alive until the collector ran).
_BY_KIND: Dict[type, Callable[[GraphIndex, Any], List[str]]] = {  # each takes its own kind of ``CallTarget``
    NamedTarget: GraphIndex._named, InstanceCall: GraphIndex._constructed, SelfMethod: GraphIndex._self_method,
    SuperMethod: GraphIndex._super_method, AttributeMethod: GraphIndex._attribute_method,
    UnknownReceiver: GraphIndex._unknown_receiver,
}
