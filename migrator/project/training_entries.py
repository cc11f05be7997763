"""Code only entry points that never train reach: an evaluation script, an inference server, a profiler.

f5-tts ships ``train.py`` (its trainer's loop calls ``backward``) beside ``eval/eval_infer_batch.py``,
``socket_server.py`` and ``infer/speech_edit.py``, which load a checkpoint and synthesise. What only those reach
runs after training, on whatever device the user serves from: tooling, like a file in an ``inference/`` folder
(``contexts.py``), not the training run. What a training entry point reaches as well stays training (the
vocoder loader the trainer calls to log samples).

An entry point trains when it reaches a training root, through calls, constructions and imports (not through a
decorator that registers a function: lerobot's ``@parser.wrap()`` on its training script's ``train`` is no call
of it by every script the parser module serves): a loop that calls ``backward``, a step function (it calls
``backward``; the class that defines it only where nothing outside the class calls it, so that a framework runs
it: chainer's updater's ``update_core``, not coqui's ``HubertTokenizer``, whose ``train_step`` a loop calls and
which a synthesiser builds to load a checkpoint), or a call of an outside trainer (``trainer.fit(model)``,
``trainer.train()``: Lightning's, transformers'). Only a project with both kinds of entry point is split: where no
entry point trains (a library, a project trained by a framework the scan cannot see into) or every one does, every
finding keeps its context.

A script's function that nothing calls (``uncalled_in_scripts``) runs in no run at all: tooling too, as a mode
nobody turns on is (``project/opt_in.py``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import (TYPE_CHECKING, AbstractSet, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence,
                    Set, Tuple)

from ..contexts import AFTER_TRAINING_WORDS, context_of, path_context
from ..model import (AttributeMethod, Call, Category, Context, EntryKind, EntryPoint, FileResult, Finding,
                     NamedTarget, NodeKind, SelfMethod, UnknownReceiver)
from ..resolve.modules import module_name_for
from ..sources.outline import CALLS_BY_NAME, MODULE, REGISTERS
from .step import loop_node, off_the_step
from .refuses_training import refusing_training
from .unimportable import unimportable
from .unreferenced import CLI_LIBRARIES, unreferenced, unreferenced_modules
from .vendored import inside

if TYPE_CHECKING:
    from ..graph import ProjectGraph

#: entry points that start no training run of the project's own: a build, a library's exports
_NO_RUNS = frozenset({EntryKind.SETUP, EntryKind.PUBLIC_API})
#: the passes of a module or an autograd Function: what runs them is a model's user, trained or not
_PASSES = frozenset({"forward", "backward"})
#: what an outside trainer is run by (``trainer.fit(model)``, ``trainer.train()``)
_TRAINER_CALLS = frozenset({"fit", "train"})
#: ``nn.Module``'s mode switches: ``self.encoder.train(mode)`` inside them sets a mode, runs no trainer
_MODE_SWITCHES = frozenset({"train", "eval"})


def training_roots(results: Sequence[FileResult], graph,
                   main_lines: Mapping[str, Tuple[int, int]], loops: Optional[AbstractSet[str]] = None
                   ) -> FrozenSet[str]:
    """The nodes where the project trains: its training loops (``loop_roots``, or ``loops`` where the caller has
    them), its step functions and their classes, and the scopes that call an outside trainer."""
    roots: Set[str] = set(loop_roots(results, graph, main_lines) if loops is None else loops)
    by_name = _called_by_name(results, graph)
    step_names: Set[str] = set()
    for result in results:
        outline, facts = result.outline, result.step
        if outline is None or path_context(result.file.rel) != Context.TRAINING:
            continue
        if facts is not None:
            for step in facts.steps:  # not an autograd Function's own ``backward``: every model user reaches it
                if step in graph and not off_the_step(step) and step.rpartition(".")[2] not in _PASSES:
                    roots.add(step)
                    owner, _, name = step.rpartition(".")
                    step_names.add(name)
                    if not _called_outside(step, owner, graph, by_name.get(name, ())):
                        roots.add(owner)  # run by a framework (chainer's ``update`` calls ``update_core``)
        estimators = _fits_estimators(outline.imports)
        switching = _switching_modes(outline.calls)
        for call in outline.calls:  # (not a module's own ``train(mode)``/``eval()`` method switching its
            # submodules'; a module-level ``train()`` that runs a trainer is LLaVA's training function)
            if _runs_a_trainer(call.target, graph, estimators) and not call.scope.startswith("@") \
                    and not ("." in call.scope and call.scope.rpartition(".")[2] in _MODE_SWITCHES) \
                    and call.scope not in switching:
                roots.add(outline.module if call.scope == MODULE else f"{outline.module}.{call.scope}")
    roots.update(_stepping_by_name(step_names, by_name, main_lines))
    return frozenset(node for node in roots if node in graph)


def _stepping_by_name(step_names: AbstractSet[str], by_name: Mapping[str, Set[str]],
                      main_lines: Mapping[str, Tuple[int, int]]) -> Set[str]:
    """A script's main block that calls a step method of the project by its name on a receiver the graph cannot
    type (DomainBed's ``scripts/train.py``: ``algorithm = algorithm_class(...)`` from a lookup by name, then
    ``algorithm.update(minibatches)`` every step, where thirty algorithms define ``update``): it trains there."""
    return {scope for name in step_names for scope in by_name.get(name, ())
            if scope.endswith(".<main>") and scope[:-len(".<main>")] in main_lines}


def loop_roots(results: Sequence[FileResult], graph, main_lines: Mapping[str, Tuple[int, int]]) -> FrozenSet[str]:
    """The nodes of the project's training loops (a loop that calls ``backward``), in training files."""
    roots: Set[str] = set()
    for result in results:
        outline, facts = result.outline, result.step
        if outline is None or facts is None or path_context(result.file.rel) != Context.TRAINING:
            continue
        for loop in facts.loops:
            node = loop_node(graph, outline.module, loop, main_lines.get(outline.module))
            if node is not None and not off_the_step(loop.scope):
                roots.add(node)
    return frozenset(node for node in roots if node in graph)


def library_training(results: Sequence[FileResult], project: "ProjectGraph",
                     reached: AbstractSet[str]) -> Tuple[EntryPoint, ...]:
    """A library's training roots (loops, steps), the callers above them that nothing in the project calls, and the
    modules that define them, as entry points (``library-training``), when the project has training loops and no
    entry point reaches one: flair's ``ModelTrainer.train_custom``, tianshou's
    trainers and LAVIS's tasks run from their users' scripts, which are not in the repository; its own entry
    points (a dataset's ``__main__`` block, ``setup.py``, a demo app whose Grad-CAM calls ``backward`` once) run
    no loop. Without them the loop's AMP, device choice and collectives read off the training path, and
    readiness reads done."""
    loops = loop_roots(results, project.graph, project.main_lines)
    if not loops or any(loop in reached for loop in loops):
        return ()
    graph = project.graph
    # its steps too (flair's ``ModelTrainer.train_custom`` calls ``backward`` through its own ``_backward``)
    roots = frozenset(root for root in training_roots(results, graph, project.main_lines, loops) if root not in reached)

    def callers(node: str) -> Iterable[str]:
        return (caller for caller, _, kind in graph.in_edges(node, data="kind") if kind in _CLIMBS)

    # where its users start: the callers above them that nothing in the project calls (LAVIS's task's
    # ``train_epoch`` above its ``_train_inner_loop``), in training files
    above = _walk(roots, callers)
    tops = {node for node in above if not any(True for _ in callers(node))
            and path_context(graph.nodes[node].get("path", "")) == Context.TRAINING}
    found: Dict[str, EntryPoint] = {}
    for root in sorted(roots | tops):
        data = graph.nodes[root]
        module = module_name_for(data.get("path", ""))
        for node in (module, root):  # the module too: importing it runs what it imports (the device choice)
            if node in graph and node not in found:
                found[node] = EntryPoint(node, EntryKind.LIBRARY_TRAINING, graph.nodes[node].get("path", ""),
                                         graph.nodes[node].get("line", 1))
    return tuple(found.values())


#: the edges a library's loop is climbed from to where its users start: calls (by name too) and constructions
_CLIMBS = frozenset({"calls", CALLS_BY_NAME, "constructs"})


def _called_by_name(results: Sequence[FileResult], graph) -> Mapping[str, Set[str]]:
    """Per method name, the scopes that call it where the graph could not follow the receiver (``m.train_step(x)``
    after ``m = Tokenizer.load_from_checkpoint(path)``, or on an untyped value): a call the graph may join to no
    method."""
    found: Dict[str, Set[str]] = {}
    for result in results:
        outline = result.outline
        if outline is None:
            continue
        for call in outline.calls:
            target = call.target
            if isinstance(target, (UnknownReceiver, AttributeMethod)):
                name = target.name
            elif isinstance(target, NamedTarget) and target.name not in graph:
                name = target.name.rpartition(".")[2]
            else:
                continue
            found.setdefault(name, set()).add(f"{outline.module}.{call.scope}")
    return found


def _called_outside(step: str, owner: str, graph, named: Iterable[str]) -> bool:
    """Whether project code outside the step's class calls it: in the graph, or by its name on an untyped
    receiver (coqui's ``auto_train`` steps its ``HubertTokenizer``); else a framework runs the class (chainer's
    trainer calls its updater's ``update``, which calls ``update_core``)."""
    inside = owner + "."
    return any(kind != REGISTERS and not caller.startswith(inside)
               for caller, _, kind in graph.in_edges(step, data="kind")) \
        or any(not caller.startswith(inside) for caller in named)


def _trained_tests(findings: Sequence[Finding], project: "ProjectGraph", placed: Mapping[str, str],
                   reach: Optional[EntryReach], training: FrozenSet[str]) -> FrozenSet[str]:
    """The findings filed as tests only for their file's name, or for their function's in a training file (the
    vq-vae scripts' ``test()``, which the training loop runs after every epoch: pytest collects nothing from
    ``vae.py``), that a training entry point reaches."""
    candidates = [f for f in findings if f.context == Context.TEST
                  and (path_context(f.path) == Context.TRAINING or _a_test_by_its_file_name_alone(f))]
    if not candidates or not training:
        return frozenset()
    trained = reach.trained if reach is not None else _walk(training, _callees(project.graph))
    return frozenset(f.id for f in candidates if (placed.get(f.id) or project.node_of(f)) in trained)


def _a_test_by_its_file_name_alone(finding: Finding) -> bool:
    """A finding filed as a test only for its file's name (deep-text-recognition-benchmark's ``test.py``, whose
    ``validation()`` its ``train.py`` imports and runs every few hundred steps), not for a tests folder or a
    test's own name (``contexts.context_of`` of the same place in a file named otherwise): what a training entry
    point calls there runs in training."""
    folder, _, _ = finding.path.rpartition("/")
    elsewhere = f"{folder}/module.py" if folder else "module.py"
    own, neutral = finding.path.rpartition(".")[0].replace("/", "."), elsewhere[:-3].replace("/", ".")
    scope = neutral + finding.scope[len(own):] if finding.scope.startswith(own + ".") else finding.scope
    return context_of(elsewhere, finding.category, scope) == Context.TRAINING


def _switching_modes(calls: Iterable[Call]) -> FrozenSet[str]:
    """The scopes that call some object's ``eval()`` method: their ``x.train()`` switches a module back to training
    mode, it runs no trainer (yolact's validation ends ``yolact_net.eval() ... yolact_net.train()``, its
    ``freeze_bn`` does ``module.train() if enable else module.eval()``)."""
    return frozenset(call.scope for call in calls
                     if isinstance(call.target, (UnknownReceiver, AttributeMethod, SelfMethod))
                     and call.target.name == "eval")


def _runs_a_trainer(target, graph, estimators: bool = False) -> bool:
    """Whether a call runs an outside trainer: ``fit`` or ``train`` of something the project does not define
    (``estimators``: in a module whose ``fit`` is a scikit-learn estimator's, only ``train``)."""
    calls = _TRAINER_CALLS - {"fit"} if estimators else _TRAINER_CALLS
    if isinstance(target, (UnknownReceiver, AttributeMethod)):
        return target.name in calls
    return isinstance(target, NamedTarget) and target.name.rpartition(".")[2] in calls \
        and target.name not in graph


#: libraries whose estimators are fitted with ``.fit(X, y)``: momentfm's datasets fit a ``StandardScaler``, its
#: SVM baseline an ``SVC``, and neither trains a network
_ESTIMATOR_LIBRARIES = frozenset({"sklearn", "xgboost", "lightgbm", "catboost", "umap", "hdbscan", "statsmodels"})
#: the training frameworks whose ``fit`` runs a network's training (skorch's and pytorch-tabnet's estimators too)
_TRAINING_FRAMEWORKS = frozenset({"lightning", "pytorch_lightning", "lightning_fabric", "transformers", "skorch",
                                  "keras", "tensorflow", "pytorch_tabnet", "catalyst", "ignite", "accelerate",
                                  "composer", "trl", "fastai", "poutyne", "torchbearer", "pytorch_tabular"})


def _fits_estimators(imports) -> bool:
    """Whether a module's ``.fit(...)`` calls are an estimator library's: it imports one, and no training framework."""
    tops = {name.split(".")[0] for name in imports}
    return bool(tops & _ESTIMATOR_LIBRARIES) and not tops & _TRAINING_FRAMEWORKS


@dataclass(frozen=True)
class EntryReach:
    """What the entry points that train reach, and what the others reach, along calls, constructions and imports
    (and what a registry node holds): a node reached only through a decorator's ``registers`` edge (pl_bolts'
    ``@under_review()`` on every class) is in neither."""

    trained: FrozenSet[str]
    untrained: FrozenSet[str]


def entry_reach(project: "ProjectGraph", roots: FrozenSet[str],
                above: Optional[FrozenSet[str]] = None, vendored: FrozenSet[str] = frozenset()) -> Optional[EntryReach]:
    """What each kind of entry point reaches, or ``None`` when the entry points cannot be told apart (none trains,
    or every one does). An entry point in a copy of another project (``vendored``: its folders) trains that
    project, not this one, where this one has a training entry point of its own."""
    graph = project.graph
    entries = {e.node for e in project.entries if e.node in graph}
    training = training_entries(project, roots, above)
    own = training - {e.node for e in project.entries if inside(e.path, vendored) or e.kind in _NO_RUNS}
    training = (training - {e.node for e in project.entries if inside(e.path, vendored)}) if own else training
    runs = {e.node for e in project.entries if e.kind != EntryKind.PUBLIC_API}
    apis: Set[str] = set()
    if training & runs:
        # the project's own runs show which of its code trains (fastchat's ``train/`` scripts beside its MT-bench
        # answer generation and its model server): a library's public API, which exports every module, reaches
        # all of it and so tells no function apart; it keeps what only it reaches, and decides nothing
        apis = entries - runs
        entries, training = entries & runs, training & runs
    if not training or training == entries:
        return None
    nodes = graph.nodes
    callees = _callees(graph)
    trained = _walk(training, callees)
    # ... but a module's own top (its imports, its constants) runs wherever the package is imported: a framework's
    # training loads its models by a configuration's names (mmseg's ``tools/train.py`` through mmengine's registry),
    # which the graph cannot follow, while its analysis tools import the same modules by name
    loaded = frozenset(node for node in _walk(apis, callees) if nodes[node].get("kind") == NodeKind.MODULE)
    return EntryReach(trained | loaded, _walk(entries - training, callees))


def _callees(graph) -> Callable[[str], Iterable[str]]:
    """What a node reaches in one step: what a registry holds, training may build from it (``MODELS.build(cfg)``);
    what a decorator function or a module's name registers, a script reaches only by calling it."""
    nodes = graph.nodes
    return lambda node: (callee for _, callee, kind in graph.out_edges(node, data="kind")
                         if kind != REGISTERS or nodes[node].get("kind") == NodeKind.REGISTRY)


def training_entries(project: "ProjectGraph", roots: FrozenSet[str],
                     above: Optional[FrozenSet[str]] = None) -> FrozenSet[str]:
    """The entry points that reach a training root, through calls, constructions and imports (``above``: the
    roots' ``above_training``, where the caller has it)."""
    ancestors = above_training(project, roots) if above is None else above
    return frozenset(e.node for e in project.entries if e.node in ancestors)


def above_training(project: "ProjectGraph", roots: FrozenSet[str]) -> FrozenSet[str]:
    """The training roots and every node that reaches one, through calls, constructions and imports."""
    graph = project.graph
    return _walk(roots, lambda node: (caller for caller, _, kind in graph.in_edges(node, data="kind")
                                      if kind != REGISTERS))


def _walk(start: Iterable[str], step: Callable[[str], Iterable[str]]) -> FrozenSet[str]:
    seen = set(start)
    queue = deque(seen)
    while queue:
        for other in step(queue.popleft()):
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return frozenset(seen)


def uncalled_in_scripts(results: Sequence[FileResult], project: "ProjectGraph") -> FrozenSet[str]:
    """The module-level functions of scripts (a module with a ``__main__`` block) that nothing in the project
    calls or names: e3nn's ``examples/tetris.py`` defines ``profile()`` after its ``__main__`` block and never
    calls it. A script's functions are no library's API; one that a command-line library may expose by its name
    (``fire.Fire()``, Typer, Click, jsonargparse) is not counted out."""
    graph = project.graph
    out: Set[str] = set()
    for result in results:
        outline = result.outline
        if outline is None or outline.main_lines is None \
                or any(name.split(".")[0] in CLI_LIBRARIES for name in outline.imports):
            continue
        for definition in outline.definitions:
            node = f"{outline.module}.{definition.name}"
            if "." not in definition.name and node in graph and graph.nodes[node].get("kind") == NodeKind.FUNCTION \
                    and not graph.pred[node]:
                out.add(node)
    return frozenset(out)


def untrained_scripts(results: Sequence[FileResult], project: "ProjectGraph", roots: FrozenSet[str],
                      above: FrozenSet[str]) -> FrozenSet[str]:
    """The modules that are scripts run as they are and that never train: code at their top level (a call), no
    ``__main__`` block, no entry point, nothing in the project imports or calls them, and no training root is
    theirs or below them (``above``: ``above_training``; torchani's ``examples/dispersion_potential.py`` computes
    one molecule's energy). Their
    top-level code is a demo's, as a ``__main__`` block that never trains is (``EntryReach.untrained``). Only in
    a project that trains somewhere (``roots``): a snippet scanned alone, or a project whose training the scan
    cannot see, keeps its context."""
    if not roots:
        return frozenset()
    graph = project.graph
    entries = {e.node for e in project.entries}
    return frozenset(
        outline.module for result in results for outline in (result.outline,)
        if outline is not None and outline.main_lines is None and outline.module in graph
        and outline.module not in entries and outline.module not in above and not graph.pred[outline.module]
        and path_context(result.file.rel) == Context.TRAINING and any(call.scope == MODULE for call in outline.calls))


#: the words of a function's name that say it prepares a model for inference or export, after training (torchani's
#: ``to_infer_model``, an ``export_onnx``): a tooling function's words (``contexts``); not evaluation, which a
#: training run does between epochs
_AFTER_TRAINING = AFTER_TRAINING_WORDS
#: the edges along which one node runs another
_RUNS = frozenset({"calls", CALLS_BY_NAME, "constructs"})


def inference_only(project: "ProjectGraph") -> FrozenSet[str]:
    """The classes the project builds only in functions named for inference or export (torchani's ``BmmEnsemble``
    and ``MNPNetworks``, built only by ``to_infer_model()``), their methods, and what only those run (the
    ``PythonMNP`` autograd function ``MNPNetworks.forward`` applies): code for a model after training. A class
    also built elsewhere, or never built in the project (its users build it), is not one."""
    graph = project.graph
    nodes = graph.nodes
    off: Set[str] = set()
    for node, kind in nodes(data="kind"):
        if kind != NodeKind.CLASS:
            continue
        makers = [source for source, _, how in graph.in_edges(node, data="kind") if how in _RUNS]
        if makers and all(_after_training(maker) for maker in makers):
            off.add(node)
    if not off:
        return frozenset()
    queue = deque(off)
    while queue:
        node = queue.popleft()
        for _, callee, how in graph.out_edges(node, data="kind"):
            if how not in _RUNS or callee in off:
                continue
            callers = [source for source, _, kind in graph.in_edges(callee, data="kind") if kind in _RUNS]
            # a class's methods belong to it (joined by name, every ``forward`` has callers everywhere)
            if callee.rpartition(".")[0] in off or all(source in off for source in callers):
                off.add(callee)
                queue.append(callee)
    return frozenset(off)


def _after_training(node: str) -> bool:
    return bool(set(node.rpartition(".")[2].lower().strip("_").split("_")) & _AFTER_TRAINING)


def _in_modules(project: "ProjectGraph", modules: Iterable[str]) -> FrozenSet[str]:
    """The graph's nodes of ``modules``: each module's own, and those of what it defines."""
    wanted = set(modules)
    if not wanted:
        return frozenset()
    found = set()
    for node in project.graph:
        prefix = node
        while prefix:
            if prefix in wanted:
                found.add(node)
                break
            prefix = prefix.rpartition(".")[0]
    return frozenset(found)


def with_untrained_as_tooling(findings: Sequence[Finding], results: Sequence[FileResult],
                              project: "ProjectGraph", placed: Mapping[str, str],
                              step_nodes: AbstractSet[str] = frozenset(),
                              vendored: FrozenSet[str] = frozenset()) -> List[Finding]:
    """``findings``, a training one that entry points that never train reach, and none that trains, as tooling
    (``EntryReach``: what only a decorator reaches is neither's), and so one in a script's function nothing calls
    (``uncalled_in_scripts``), one at the top of a script that never trains (``untrained_scripts``), one in a
    class built only for inference (``inference_only``), one nothing in the project refers to
    (``unreferenced``), one only a model that refuses to train runs (``refuses_training``) and one in a module
    no run can import (``unimportable``) or nothing imports or names (``unreferenced_modules``). What runs each
    training step (``step_nodes``: a module's ``forward``, and the class that defines it) stays training,
    whatever reaches it: vit_pytorch's model modules end in a ``__main__`` demo that never trains, and are models
    all the same. An entry point in a copy of another project (``vendored``) trains that project, not this one
    (``project/vendored``)."""
    roots = training_roots(results, project.graph, project.main_lines)
    above = above_training(project, roots)  # (walked once for the three readers below)
    reach = entry_reach(project, roots, above, vendored) if project.entries else None
    paths = {f.path for f in findings if f.context == Context.TRAINING}
    texts: Dict[str, Optional[str]] = {}  # the project's files read once for both readers of their text
    trained = training_entries(project, roots, above)
    trains = any(e.kind != EntryKind.PUBLIC_API and e.node in trained for e in project.entries)
    uncalled = uncalled_in_scripts(results, project) | refusing_training(results, project, paths, texts) \
        | unreferenced(results, project, (placed.get(f.id) or project.node_of(f) for f in findings
                                          if f.context == Context.TRAINING),
                       trains=trains, texts=texts)
    uncalled |= untrained_scripts(results, project, roots, above) | inference_only(project)
    uncalled |= _in_modules(project, {*unimportable(results), *unreferenced_modules(results, project, trains, texts)})
    trained_tests = _trained_tests(findings, project, placed, reach, trained)
    if reach is None and not uncalled and not trained_tests and not vendored:
        return list(findings)
    on_step = set(step_nodes) | {node.rpartition(".")[0] for node in step_nodes}  # a step method's class
    out = []
    for finding in findings:
        node = placed.get(finding.id) or project.node_of(finding)
        # a custom operator's build is what training calls, wherever it is written (``contexts.context_of``),
        # unless nothing calls it at all
        if finding.context == Context.TRAINING and node is not None and (node in uncalled or (
                finding.category != Category.CUSTOM_OP and reach is not None and node in reach.untrained
                and node not in reach.trained and node not in on_step)):
            finding = replace(finding, context=Context.TOOLING)
        elif finding.id in trained_tests:
            finding = replace(finding, context=Context.TRAINING)
        elif finding.context == Context.TRAINING and finding.category == Category.ENVIRONMENT and node is None \
                and inside(finding.path, vendored):  # the copied project's own requirements, images, launchers
            finding = replace(finding, context=Context.TOOLING)
        out.append(finding)
    return out
