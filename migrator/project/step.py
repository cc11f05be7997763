"""Which code runs on every training step: what the ``tune`` findings are confined to (``rules/tune/``).

The step is, from each module's ``StepFacts`` and the call graph:

* the body of a **training loop** (a loop that calls ``backward``), and the repository functions it calls
  there (the loop's scope's callees whose name the loop's body calls: ``train_one_epoch``, ``run_step``);
* a **step function** (one that calls ``backward`` outside a loop of its own: detectron2's ``run_step``,
  fairseq's ``train_step``), and Lightning's ``training_step`` / transformers' ``compute_loss``;
* every module's ``forward`` (an ``nn.Module``'s forward runs on each batch it is given) and the
  ``backward`` of a class that also defines ``forward`` (an ``autograd.Function``);
* a caller named as a step around a step function (fairseq's ``Trainer.train_step``);
* and whatever those call, through the call graph's ``calls`` and ``constructs`` edges (not ``imports``:
  a module's top level runs once), and a call joined by a method's name alone only where that name is
  distinctive (a few namesakes, not ``update`` or ``step``).

Not on every step: a body under ``if step % N == 0:`` (once every N), an exception handler, an eval-mode
branch, and what a scope calls only there (``StepFacts.rare_calls``); a constructor the step reaches (a loss
built lazily on the first batch); evaluation, generation, plotting and export (``off_the_step``: by the name
of the function, its class or its module); the methods of a class that is no ``nn.Module``. A step in a script
that puts nothing on an accelerator runs on the host: nothing there waits for a device (``host_roots``).
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ..model import AttributeMethod, Context, FileResult, Finding, Span, StepFacts, TrainingLoop
from ..resolve import module_name_for
from ..sources.outline import CALLS_BY_NAME
from ..contexts import GENERATION, path_context

#: Methods a framework calls once per step, whatever calls them.
_STEP_METHODS = ("training_step", "compute_loss")
#: What a module runs each step once it is built: its forward (and an ``autograd.Function``'s backward).
_MODULE_METHODS = ("forward", "backward") + _STEP_METHODS
#: What a step's code runs through: resolved calls and constructions (not a call joined by a method's name
#: alone, ``x.update()`` to every repository ``update``, except where the loop or step calls that very name).
_STEP_EDGES = ("calls", "constructs")
_NAMED_EDGES = _STEP_EDGES + (CALLS_BY_NAME,)
#: A call on an attribute the graph could not type, joined by the method's name (``_attribute_calls``): an
#: attribute's method is one interface's (``self.optimizer.clip_grad_norm``: every optimizer has one), so more
#: namesakes are taken than for a receiver of unknown type; followed only from a trainer's step (a loop, a
#: step function and what it calls), not from a model's forward, whose attributes are its submodules (the
#: graph types those) or wrapped models (``self._wrapped_model.inference``: any model's).
_BY_ATTRIBUTE = "attribute-by-name"
_ATTRIBUTE_NAMESAKES = 8
#: A call joined by its name alone is followed when few repository methods bear the name and it is not one
#: every other class has (``self.scaler.check_overflow()``, not ``x.update()``).
_FEW_NAMESAKES = 3
_COMMON_NAMES = frozenset({"update", "step", "get", "set", "add", "append", "run", "apply", "reset", "build",
                           "forward", "__call__", "items", "keys", "values", "state_dict", "load_state_dict",
                           "train", "eval", "to", "cuda", "cpu", "float", "half", "zero_grad", "close"})
#: What a training step calls that is not itself the step: evaluation, beam search, plotting, export, an adapter's
#: unmerge (a word of a function's name, ``_``-separated; ``contexts._TOOLING_WORDS`` are first words only there,
#: and here not at all: diffusion's ``_predict_xstart_from_eps`` is on the step), and ``contexts.GENERATION`` ...
_OFF_STEP_WORDS = frozenset({"eval", "evaluate", "evaluation", "validate", "validation", "val", "test",
                             "generation", "beam", "inference", "infer", "plot", "visualize", "visualise", "export",
                             "benchmark", "profile", "unmerge", "unload"})
#: ... or whole names of such work (an adapter's ``merge`` into the base weights, after training)
_OFF_STEP_NAMES = frozenset({"merge"})
#: ... and the methods of a class named as an evaluator, an inference engine or an exporter, and what a module
#: of such a name defines.
_OFF_STEP_CLASSES = ("Validator", "Evaluator", "Predictor", "Exporter", "Tester", "Benchmark", "Visualizer")
_OFF_STEP_MODULES = frozenset({"export", "exporter", "exporters", "evaluation", "evaluator", "inference",
                               "benchmark", "benchmarks", "plotting", "visualization", "visualizer"})
#: Bases that do not make a class an ``nn.Module`` (its ``forward`` then runs where it is called, not per batch).
_PLAIN_BASES = frozenset({"object", "abc.ABC", "ABC", "typing.Generic", "typing.Protocol", "Generic", "Protocol"})


@dataclass(frozen=True)
class TrainingStep:
    """What runs each training step: graph nodes (with why each is in), and each file's loops."""

    #: node -> why it runs each step ("a module's forward", "called by the training loop at train.py:46")
    nodes: Mapping[str, str] = field(default_factory=dict)
    loops: Mapping[str, Tuple[TrainingLoop, ...]] = field(default_factory=dict)  # path -> loops
    periodic: Mapping[str, Tuple[Span, ...]] = field(default_factory=dict)  # path -> ``if step % N`` bodies
    inference: Mapping[str, Tuple[Span, ...]] = field(default_factory=dict)  # path -> eval-mode-only branches
    #: node -> the root it is on the step from (a loop's callee, a step function, a module's ``forward``)
    root_of: Mapping[str, str] = field(default_factory=dict)
    #: nodes on the step through a call the graph could not type (``self.optimizer.clip_grad_norm``): the
    #: graph's reachability cannot see them either
    guessed: FrozenSet[str] = frozenset()
    #: roots of a step that runs on the host only (a training loop in a module that never puts anything on an
    #: accelerator), and the files of such loops: nothing there waits for a device
    host_roots: FrozenSet[str] = frozenset()
    host_paths: FrozenSet[str] = frozenset()

    def run_by_a_trainer(self, node: Optional[str]) -> Optional[str]:
        """The trainer's step ``node`` is reached from through an attribute call the graph could not type, if
        that is how: its reachability is the root's."""
        return self.root_of.get(node or "") if node in self.guessed else None

    def run_by_a_module(self, node: Optional[str]) -> Optional[str]:
        """The module method (``Head.forward``) ``node`` is on the step from, if that is how it is: a module's
        forward runs whenever the module is built, which a call graph often cannot follow (a model built from
        a registry and called through ``self.model(data)``)."""
        root = self.root_of.get(node or "")
        return root if root is not None and root.rpartition(".")[2] in _MODULE_METHODS else None

    def why(self, finding: Finding, node: Optional[str]) -> Optional[str]:
        """Why ``finding`` runs on every step, or ``None`` when it does not (or only every N steps)."""
        if any(_within(finding.span, span) for span in self.periodic.get(finding.path, ())) or \
                any(_within(finding.span, span) for span in self.inference.get(finding.path, ())):
            return None
        for loop in self.loops.get(finding.path, ()):
            if loop.scope == finding.scope and _within(finding.span, loop.span):
                return f"inside the training loop at {_where(finding.path, loop.span)}"
        if node is not None and node in self.nodes:
            return self.nodes[node]
        return None

    def on_the_device(self, finding: Finding, node: Optional[str]) -> Optional[str]:
        """``why``, for a step that runs on an accelerator: ``None`` also where the step is a script's that puts
        nothing on one (what waits for a device there waits for nothing). The porting findings keep ``why``: a
        port moves such a script to the device."""
        why = self.why(finding, node)
        if why is None:
            return None
        in_a_loop = any(loop.scope == finding.scope and _within(finding.span, loop.span)
                        for loop in self.loops.get(finding.path, ()))
        on_host = finding.path in self.host_paths if in_a_loop else self.root_of.get(node or "") in self.host_roots
        return None if on_host else why


def training_step(results: Sequence[FileResult], graph,
                  main_lines: Optional[Mapping[str, Tuple[int, int]]] = None) -> TrainingStep:
    """The training step of a project: ``graph`` is the call graph (a networkx ``DiGraph`` whose edges carry
    their ``kind``)."""
    found = _StepRoots(graph, main_lines or {})
    for result in results:
        found.read_file(result)
    methods = {node for node, kind in graph.nodes(data="kind") if kind == "method"}
    guessed = _attribute_calls(results, graph, methods)
    found.guessed_step_callers(guessed)
    found.every_batch_methods(methods, _plain_classes(results, graph))
    nodes, root_of, through_guess = _expanded(graph, found.roots, found.skipped, guessed)
    return TrainingStep(nodes=nodes, loops=found.loops, periodic=found.periodic, inference=found.inference,
                        root_of=root_of, guessed=frozenset(through_guess), host_roots=frozenset(found.host_roots),
                        host_paths=frozenset(found.host_paths))


@dataclass
class _StepRoots:
    """What ``training_step`` gathers, file by file, before it expands the roots through the call graph: each
    root of the step with why it is one, and what runs on the host."""

    graph: Any  # the call graph (a networkx ``DiGraph``)
    main_lines: Mapping[str, Tuple[int, int]]
    roots: Dict[str, str] = field(default_factory=dict)
    loops: Dict[str, Tuple[TrainingLoop, ...]] = field(default_factory=dict)
    periodic: Dict[str, Tuple[Span, ...]] = field(default_factory=dict)
    inference: Dict[str, Tuple[Span, ...]] = field(default_factory=dict)
    #: node -> the names it calls only in eval mode or every N calls
    skipped: Dict[str, FrozenSet[str]] = field(default_factory=dict)
    step_functions: Dict[str, str] = field(default_factory=dict)  # last name -> a step function of that name
    host_paths: Set[str] = field(default_factory=set)
    host_roots: Set[str] = field(default_factory=set)
    device_trainers: int = 0

    def read_file(self, result: FileResult) -> None:
        facts = result.step
        path = result.file.rel
        if facts is None or path_context(path) != Context.TRAINING:
            return  # a test's backward is no one's training step
        module = result.outline.module if result.outline is not None else module_name_for(path)
        if any(not off_the_step(loop.scope) for loop in facts.loops):
            self.loops[path] = tuple(loop for loop in facts.loops if not off_the_step(loop.scope))
        if facts.periodic:
            self.periodic[path] = facts.periodic
        if facts.inference:
            self.inference[path] = facts.inference
        self.skipped.update((scope, frozenset(names)) for scope, names in facts.rare_calls)
        # a script (a ``__main__`` block, a notebook's loop) that puts nothing on an accelerator trains on the host;
        # a library's step function leaves that to whoever runs it
        script = module in self.main_lines or any(loop.scope == "<module>" for loop in facts.loops)
        on_host: Set[str] = self.host_roots if script and not facts.on_device else set()
        if facts.loops or facts.steps:
            if on_host is self.host_roots:
                self.host_paths.add(path)
            else:
                self.device_trainers += 1
        self._loop_roots(facts, path, module, on_host)
        self._step_function_roots(facts, on_host)

    def _loop_roots(self, facts: StepFacts, path: str, module: str, on_host: Set[str]) -> None:
        """What each training loop of the file calls."""
        for loop in facts.loops:
            if off_the_step(loop.scope):
                continue  # a benchmark's or a profiler's backward: not the training step
            source = loop_node(self.graph, module, loop, self.main_lines.get(module))
            why = f"called by the training loop at {_where(path, loop.span)}"
            for callee in _callees(self.graph, source, loop.calls):
                self._add(callee, why, on_host)

    def _step_function_roots(self, facts: StepFacts, on_host: Set[str]) -> None:
        """Each step function of the file (it calls backward), what it calls and what runs it."""
        graph = self.graph
        for scope in facts.steps:
            if scope in graph and not off_the_step(scope):
                self.step_functions.setdefault(scope.rpartition(".")[2], scope)
                found = [(scope, f"`{_short(scope)}` is a training step (it calls backward)")]
                found += [(callee, f"`{_short(scope)}`, a training step, calls it")
                          for callee in _callees(graph, scope, _named_calls(graph, scope))]
                found += [(caller, f"`{_short(caller)}` runs the training step `{_short(scope)}`")
                          for caller in _step_callers(graph, scope)]
                for node, why in found:
                    self._add(node, why, on_host)

    def _add(self, node: str, why: str, on_host: Set[str]) -> None:
        if node not in self.roots:
            self.roots[node] = why
            on_host.add(node)

    def guessed_step_callers(self, guessed: Mapping[str, Sequence[str]]) -> None:
        """A method named for a step that calls a step function through an attribute (fairseq's
        ``Trainer.train_step`` calls ``self.task.train_step(...)``)."""
        for caller, callees in guessed.items():
            named = [self.step_functions[c.rpartition(".")[2]] for c in callees
                     if c.rpartition(".")[2] in self.step_functions]
            if named and "step" in caller.rpartition(".")[2] and caller not in self.roots:
                self.roots[caller] = f"`{_short(caller)}` runs the training step `{_short(named[0])}`"
                if named[0] in self.host_roots:
                    self.host_roots.add(caller)

    def every_batch_methods(self, methods: Set[str], plain: Set[str]) -> None:
        """Every ``forward`` (and step method) of a class that is not plain, and a ``backward`` beside a
        ``forward``: they run on every batch."""
        modules_on_host: Set[str] = set() if self.device_trainers or not self.host_paths else self.host_roots
        for node in sorted(methods):
            owner, _, name = node.rpartition(".")
            if owner in plain or off_the_step(node):
                continue  # an inference backend's ``forward``: called where it is used, not on each batch
            if name == "forward" or name in _STEP_METHODS:
                why = f"`{_short(node)}` runs on every batch"
            elif name == "backward" and f"{owner}.forward" in methods:
                why = f"`{_short(node)}` runs on every backward pass"
            else:
                continue
            # on the host only when every training loop of the project runs on the host
            self._add(node, why, modules_on_host)


def off_the_step(node: str) -> bool:
    """Whether ``node`` evaluates, generates, plots, exports or merges an adapter (by its name, or its class's):
    what a training step may call, but not the step itself (a beam search in a trainer, its validator, peft's
    ``unmerge``)."""
    parts = node.split(".")
    last = parts[-1].lower().strip("_")
    return bool(set(last.split("_")) & _OFF_STEP_WORDS) or last in _OFF_STEP_NAMES or bool(GENERATION.match(last)) \
        or any(part.endswith(_OFF_STEP_CLASSES) for part in parts[-2:]) \
        or any(part in _OFF_STEP_MODULES for part in parts[:-1])


def _plain_classes(results: Sequence[FileResult], graph) -> Set[str]:
    """The repository's classes that are not ``nn.Module``s: no base, or only ``ABC``/``object``/``Generic``
    and other such classes of the repository (an inference backend's ``BaseBackend(ABC)``)."""
    bases: Dict[str, Tuple[str, ...]] = {}
    for result in results:
        outline = result.outline
        for definition in outline.definitions if outline is not None else ():
            if definition.kind == "class":
                bases[f"{outline.module}.{definition.name}"] = definition.bases  # type: ignore[union-attr]
    plain: Dict[str, bool] = {}

    def is_plain(node: str, seen: FrozenSet[str]) -> bool:
        if node not in plain:
            plain[node] = all(base in _PLAIN_BASES or (base in bases and base not in seen
                                                         and is_plain(base, seen | {base}))
                              for base in bases[node])
        return plain[node]

    return {node for node in bases if node in graph and is_plain(node, frozenset({node}))}


def _expanded(graph, roots: Mapping[str, str], skipped: Mapping[str, FrozenSet[str]],
              guessed: Optional[Mapping[str, Tuple[str, ...]]] = None
              ) -> Tuple[Dict[str, str], Dict[str, str], Set[str]]:
    """The roots and everything they call (but what a node calls only in eval mode or every N calls), each
    with why: the node it was first reached through, and the reason of the root that reached it."""
    nodes = dict(roots)
    root_of = {node: node for node in roots}
    through_guess: Set[str] = set()
    queue = deque(sorted(roots))
    while queue:
        node = queue.popleft()
        rare = skipped.get(node, frozenset())
        edges = list(graph.out_edges(node, data="kind"))
        if graph.nodes[node].get("kind") == "class":  # its body's calls ran once, when the class was defined
            edges = [edge for edge in edges if edge[2] == "constructs"]
        if root_of[node].rpartition(".")[2] not in _MODULE_METHODS:  # a trainer's step, not a model's forward
            edges += [(node, callee, _BY_ATTRIBUTE) for callee in (guessed or {}).get(node, ())]
        by_name = Counter(callee.rpartition(".")[2] for _, callee, kind in edges if kind == CALLS_BY_NAME)
        for _, callee, kind in edges:
            name = callee.rpartition(".")[2]
            distinctive = kind == CALLS_BY_NAME and by_name[name] <= _FEW_NAMESAKES and name not in _COMMON_NAMES
            if (kind in _STEP_EDGES or kind == _BY_ATTRIBUTE or distinctive) and callee not in nodes \
                    and name not in rare and name != "__init__" and not off_the_step(callee):
                root = root_of[callee] = root_of[node]
                if kind == _BY_ATTRIBUTE or node in through_guess:
                    through_guess.add(callee)
                through = "" if node == root else f", on the step from `{_short(root)}`"
                nodes[callee] = f"`{_short(callee)}` is called by `{_short(node)}`{through}; {roots[root]}"
                queue.append(callee)
    return nodes, root_of, through_guess


def _attribute_calls(results: Sequence[FileResult], graph, methods: Set[str]) -> Dict[str, Tuple[str, ...]]:
    """``self.scaler.check_overflow(...)`` where the call graph could not type ``self.scaler`` (it has no edge
    for it): the repository methods of that name, when there are few and the name is not one every class has
    (``update``, ``step``). For the step only: reachability, and so readiness, stays the graph's."""
    by_name: Dict[str, List[str]] = {}
    for method in methods:
        by_name.setdefault(method.rpartition(".")[2], []).append(method)
    guessed: Dict[str, Tuple[str, ...]] = {}
    for result in results:
        outline = result.outline
        if outline is None:
            continue
        for call in outline.calls:
            target = call.target
            if not isinstance(target, AttributeMethod) or target.name.startswith("__") \
                    or target.name in _COMMON_NAMES:
                continue
            candidates = by_name.get(target.name, ())
            source = f"{outline.module}.{call.scope}"
            if 0 < len(candidates) <= _ATTRIBUTE_NAMESAKES and source in graph \
                    and not any(graph.has_edge(source, c) for c in candidates):
                guessed[source] = tuple(sorted(set(guessed.get(source, ())) | set(candidates)))
    return guessed


def loop_node(graph, module: str, loop: TrainingLoop, main: Optional[Tuple[int, int]]) -> Optional[str]:
    if loop.scope != "<module>":
        return loop.scope if loop.scope in graph else None
    if main and loop.span.line and main[0] <= loop.span.line <= main[1] and f"{module}.<main>" in graph:
        return f"{module}.<main>"
    return module if module in graph else None


def _callees(graph, source: Optional[str], names: Iterable[str]) -> Iterable[str]:
    """The callees of ``source`` whose last name is one the loop calls."""
    if source is None:
        return ()
    wanted = set(names)
    return sorted(callee for _, callee, kind in graph.out_edges(source, data="kind")
                  if kind in _NAMED_EDGES and callee.rpartition(".")[2] in wanted and not off_the_step(callee)
                  and not (kind == CALLS_BY_NAME and callee.rpartition(".")[2] in _COMMON_NAMES))


def _step_callers(graph, step: str) -> Iterable[str]:
    """What calls a step function and is itself named as a step (fairseq's ``Trainer.train_step`` around its
    task's ``train_step``): it runs once per step too, with what it does before and after (the gradient clip,
    the overflow check)."""
    return sorted(caller for caller, _, kind in graph.in_edges(step, data="kind")
                  if kind in _NAMED_EDGES and "step" in caller.rpartition(".")[2])


def _named_calls(graph, scope: str) -> Tuple[str, ...]:
    """The last names of what a step function calls by a method's name (``self.optimizer.step()``)."""
    return tuple(callee.rpartition(".")[2] for _, callee, kind in graph.out_edges(scope, data="kind")
                 if kind == CALLS_BY_NAME)


def evaluation_only(facts: Optional[StepFacts], span: Span) -> bool:
    """Whether ``span`` lies in what a module runs only outside training (``if not self.training:``, the ``else``
    of ``if self.training:``, the rest after ``if self.training: return ...``, a TorchScript-only branch: the step
    reader's ``inference`` spans): tooling, not the training run."""
    return facts is not None and any(_within(span, branch) for branch in facts.inference)


def _within(span: Span, outer: Span) -> bool:
    if span.line is None or outer.line is None or span.cell != outer.cell:
        return False
    return outer.line <= span.line <= (outer.end_line or outer.line)


def _where(path: str, span: Span) -> str:
    cell = f" cell {span.cell}" if span.cell is not None else ""
    return f"{path}{cell}:{span.line}"


def _short(node: str) -> str:
    """``Pooler.forward`` from ``pkg.heads.Pooler.forward``: the last two parts."""
    return ".".join(node.split(".")[-2:])
