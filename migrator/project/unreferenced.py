"""Functions and methods nothing in the project refers to: they run in no run of it.

mmdet's ``AnchorGenerator.sparse_priors(..., device="cuda")``, allennlp's ``move_optimizer_to_cuda``, cornac's
``IndexedAdagradM.share_memory``: a helper whose name no other line of the repository holds (no call, no import,
no registry string in a config, no ``getattr`` by name, not even a comment) is not on any training path of the
project, whatever its device code says; its findings are tooling, as a script's function nothing calls is
(``training_entries.uncalled_in_scripts``).

Only what nothing outside the project can call by its protocol counts: a module-level function, or a method of a
class whose whole family (its bases and its subclasses in the repository) has no base outside the repository, or
none but ``torch.nn.Module``, whose protocol is the methods ``nn.Module`` itself has (rl-games' ``train_on_batch``
is no override of one). A method of a Lightning module, a ``Dataset`` or another framework's hook class may be
called by that framework (``training_step``, ``on_train_start``) and keeps its context; so do dunders, what a
construction runs (``forward``, ``setup``), what a decorator registers (an edge in the graph) and an entry point.
A module that looks names up at run time (``getattr(self, f"_step_{mode}")``, ``globals()[name]``) keeps its
definitions, and so does a script built on a command-line library that exposes its functions by name
(``fire.Fire()``).
"""

from __future__ import annotations

import re
from typing import (TYPE_CHECKING, AbstractSet, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence,
                    Set, Tuple)

from ..model import DefinitionKind, FileKind, FileResult, NamedTarget, NodeKind, Outline
from ..contexts import in_a_config_folder
from ..sources.outline import runs_at_its_top
from .reread import block_end, read_text

if TYPE_CHECKING:
    from ..graph import ProjectGraph

#: bases no framework calls methods through: a class of these alone is the project's own
_NEUTRAL_BASES = frozenset({"object", "abc.ABC", "typing.Generic", "typing.Protocol"})
#: ``torch.nn.Module`` as a family's base outside the repository, and the methods it has (``dir(torch.nn.Module)``
#: on torch 2.13, dunders aside): torch calls an override of these (``forward``, ``_apply``, ``extra_repr``),
#: never another method of a subclass
_TORCH_MODULES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
_MODULE_PROTOCOL = frozenset({
    "T_destination", "_apply", "_call_impl", "_compiled_call_impl", "_get_backward_hooks", "_get_backward_pre_hooks",
    "_get_name", "_load_from_state_dict", "_maybe_warn_non_full_backward_hook", "_named_members",
    "_register_load_state_dict_pre_hook", "_register_state_dict_hook", "_replicate_for_data_parallel",
    "_save_to_state_dict", "_slow_forward", "_version", "_wrapped_call_impl", "add_module", "apply", "bfloat16",
    "buffers", "call_super_init", "children", "compile", "cpu", "cuda", "double", "dump_patches", "eval",
    "extra_repr", "float", "forward", "get_buffer", "get_extra_state", "get_parameter", "get_submodule", "half",
    "ipu", "load_state_dict", "modules", "mtia", "named_buffers", "named_children", "named_modules",
    "named_parameters", "parameters", "register_backward_hook", "register_buffer", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook", "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook", "register_load_state_dict_pre_hook", "register_module",
    "register_parameter", "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_",
    "set_extra_state", "set_submodule", "share_memory", "state_dict", "to", "to_empty", "train", "type", "xpu",
    "zero_grad"})
#: what constructing or calling an instance runs (``graph/build._ON_CONSTRUCT``) and what ``with`` and ``for`` call
_RUN_BY_PROTOCOL = frozenset({"forward", "backward", "setup"})
#: libraries that run a module's functions by their names from the command line
CLI_LIBRARIES = frozenset({"fire", "typer", "click", "jsonargparse"})
#: a module that finds its own functions by a name it builds (``globals()[name]``), and a class its own methods
#: (``getattr(self, "_step_" + mode)``)
_LOOKS_UP_FUNCTIONS = re.compile(r"globals\(\)|vars\(\)|sys\.modules\[__name__\]")
_LOOKS_UP_METHODS = re.compile(r"getattr\(\s*(?:self|cls|type\(self\)|self\.__class__)\s*,"
                               r"\s*(?![\"'][\w.]*[\"']\s*[,)])|__dict__\[")
#: a reference: the name as a word (``x.name`` too), not where a ``def`` defines it
_REFERENCE = r"(?<!def )(?<!\w){}(?!\w)"
#: a candidate: the name a reference would hold, its file, and its own first and last lines there
_Definition = Tuple[str, str, Tuple[int, int]]


def unreferenced(results: Sequence[FileResult], project: "ProjectGraph", nodes: Iterable[Optional[str]],
                 trains: bool, texts: Dict[str, Optional[str]]) -> FrozenSet[str]:
    """Of ``nodes`` (the nodes findings sit in), the functions and methods no line of the project refers to;
    where the project does not train (``trains``: no entry point of its own, a script, a notebook or a command,
    reaches a training loop, a step or a trainer's call), only its private ones: a library's public function is
    its users' to call (gsplat's ``distributed.cli``, which its examples launch training with)."""
    graph = project.graph
    by_module = {r.outline.module: r for r in results if r.outline is not None}
    entries = {e.node for e in project.entries}
    families = _ClassFamilies([r.outline for r in by_module.values() if r.outline is not None])

    def built(cls: str) -> bool:  # constructed, registered or called somewhere in the project
        return cls in graph and _called(graph, cls)

    candidates: Dict[str, _Definition] = {}
    for node in {node for node in nodes if node is not None}:
        if node not in graph or node in entries:
            continue
        kind = graph.nodes[node].get("kind")
        if kind not in (NodeKind.FUNCTION, NodeKind.METHOD) or not (trains or _private(node)):
            continue
        owner, _, name = node.rpartition(".")
        # what constructing or calling an instance runs (``__init__``, ``forward``) runs in no run of a class the
        # project never builds, names or subclasses (stable-diffusion's ``TransformerEmbedder(device="cuda")``,
        # which no config names): judged by the class's name
        # ... as does any method of a framework's class (an mmcv hook a runner builds where a configuration names
        # its ``type``, a callback): judged by the class's name, which such a configuration or a caller holds
        by_class = kind == NodeKind.METHOD and owner in graph and not built(owner) \
            and not families.has_subclasses(owner) and (name.startswith("__") or name in _RUN_BY_PROTOCOL
                                                         or families.runs_by_protocol(owner, name, built))
        if not by_class and (name.startswith("__") or name in _RUN_BY_PROTOCOL or _called(graph, node)):
            continue  # (the class's own edge to what constructing it runs is no call of the project's)
        if kind == NodeKind.METHOD and not by_class and families.runs_by_protocol(owner, name, built):
            continue  # (rl-games' ``CentralValueTrain.train_on_batch``: an nn.Module's, which torch never calls)
        module = _module_of(owner, by_module)
        result = by_module.get(module) if module else None
        text = read_text(result, texts) if result is not None else None
        looks_up = _LOOKS_UP_METHODS if kind == NodeKind.METHOD and not by_class else _LOOKS_UP_FUNCTIONS
        if result is None or text is None or looks_up.search(text) or _exposed_by_a_cli(result.outline):
            continue
        defined = owner if by_class else node
        candidates[node] = (defined.rpartition(".")[2], result.file.rel,
                            _lines_of(text, graph.nodes[defined].get("line") or 0))
    if not candidates:
        return frozenset()
    own = _top_packages(results)
    return frozenset(node for node, definition in candidates.items()
                     if not _mentions(definition, results, texts, own))


def unreferenced_modules(results: Sequence[FileResult], project: "ProjectGraph", trains: bool,
                         texts: Dict[str, Optional[str]]) -> FrozenSet[str]:
    """The modules of a project that trains (``trains``) that nothing else imports and no line of any other file
    names (LLaVA's ``llava/train/llama_flash_attn_monkey_patch.py``, which its ``train_mem.py`` stopped importing
    for ``attn_implementation="flash_attention_2"``): no run loads them. Imports among such modules do not count:
    a package nothing imports takes the modules only its ``__init__`` imports with it (BasicSR's
    ``basicsr/ops/upfirdn2d/``, whose ``__init__`` alone imports the extension's wrapper: CodeFormer's
    architectures never use it), and a name counts only where a run could read it, not in the candidates' own files,
    a build script or a C/C++/CUDA source (``setup.py``'s ``module='ops.upfirdn2d'`` builds the extension, it loads
    no Python). A script (a ``__main__`` block, an entry point, code at its top) and a module a launcher or a config
    names are not counted out, nor a configuration (in a ``configs/`` folder, or, in a project that loads Python
    files by a path given at run time, a module that defines nothing)."""
    if not trains:
        return frozenset()
    loads_files = any(_loads_files(r.outline) for r in results if r.outline is not None)
    graph = project.graph
    entries = {e.node for e in project.entries}
    candidates: Dict[str, FileResult] = {}
    for result in results:
        outline = result.outline
        if outline is None or outline.main_lines is not None or not result.file.rel.endswith(".py") \
                or outline.module not in graph or outline.module in entries \
                or (not result.file.rel.endswith("__init__.py") and runs_at_its_top(result.file.rel, outline)) \
                or in_a_config_folder(result.file.rel) or (loads_files and not outline.definitions):
            # a script, run by its path; a configuration, which a loader may read by its path (score-sde's
            # ``configs/ve/ffhq.py``, mmcv's ``Config.fromfile``), or where the project loads files so, a module of
            # settings only: not a module of classes elsewhere (ControlNet's ``plms.py`` beside a vendored mmcv)
            continue
        candidates[outline.module] = result
    modules = {r.outline.module: r for r in results if r.outline is not None}
    changed = True
    while changed:  # what a module outside the candidates imports, calls or registers is no candidate
        changed = False
        for module in list(candidates):
            if any(kind != "defined-in" and graph.nodes[source].get("kind") != NodeKind.PUBLIC_API
                   and _module_of(source, modules) not in candidates
                   for source, _, kind in graph.in_edges(module, data="kind")):
                del candidates[module]
                changed = True
    packages = {r.outline.module for r in results if r.outline is not None and r.file.rel.endswith("__init__.py")}
    own = {result.file.rel for result in candidates.values()}
    readers = [r for r in results if r.file.rel not in own and not _builds_only(r)]
    tops = _top_packages(results)
    while readers:  # a name in a file that runs loads what it names, and what that file names in turn
        named = [module for module, result in candidates.items()
                 if any(_mentions(spelling, readers, texts, tops) for spelling in _spellings(result, packages))]
        loaded = set(named)
        while named:  # ... and what a module so loaded imports
            module = named.pop()
            for _, imported, kind in graph.out_edges(module, data="kind"):
                if kind == "imports" and imported in candidates and imported not in loaded:
                    loaded.add(imported)
                    named.append(imported)
        readers = [candidates.pop(module) for module in loaded]
    return frozenset(candidates)


def _spellings(result: FileResult, packages: AbstractSet[str]) -> List[_Definition]:
    """A module as the definitions ``_mentions`` looks for, its whole file each: its name (a package's folder);
    inside a package, with its package's name before it (``dpm_solver.sampler``, ``dpm_solver/sampler``), as a
    config, a launcher or an import from outside names it: a bare ``sampler`` is any other sampler's word."""
    rel = result.file.rel
    parts = rel.split("/")
    stem = parts[-2] if parts[-1] == "__init__.py" and len(parts) > 1 else parts[-1][:-3]
    parent = result.outline.module.rpartition(".")[0] if result.outline is not None else ""
    if not parent or parent not in packages:
        return [(stem, rel, (1, _WHOLE_FILE))]
    folder = parent.rpartition(".")[2]
    return [(f"{folder}.{stem}", rel, (1, _WHOLE_FILE)), (f"{folder}/{stem}", rel, (1, _WHOLE_FILE))]


#: files that build or compile code and run none of the project's Python: a name there loads no module
_NATIVE_SOURCES = frozenset({FileKind.CUDA, FileKind.CPP, FileKind.CMAKE})


def _builds_only(result: FileResult) -> bool:
    return result.file.kind in _NATIVE_SOURCES or result.file.rel.rsplit("/", 1)[-1] == "setup.py"


def _top_packages(results: Sequence[FileResult]) -> FrozenSet[str]:
    """The first names of the project's modules: what an import binds from inside the project."""
    return frozenset(r.outline.module.split(".")[0] for r in results if r.outline is not None)


#: a last line past any file's: ``_mentions`` then leaves the definition's whole file out
_WHOLE_FILE = 1 << 30
#: calls that load a Python file by a path given at run time (score-sde's ``--config configs/ve/ffhq.py`` through
#: ml_collections, mmcv's ``Config.fromfile``, ``runpy.run_path``): a module nothing imports may be one so loaded
_FILE_LOADERS = frozenset({"config_flags.DEFINE_config_file", "Config.fromfile", "util.spec_from_file_location",
                           "runpy.run_path", "imp.load_source", "machinery.SourceFileLoader"})


def _loads_files(outline: Outline) -> bool:
    return any(isinstance(call.target, NamedTarget)
               and ".".join(call.target.name.rsplit(".", 2)[-2:]) in _FILE_LOADERS for call in outline.calls)


def _private(node: str) -> bool:
    return any(part.startswith("_") and not part.endswith("__") for part in node.split("."))


def _called(graph, node: str) -> bool:
    """Whether an edge reaches ``node`` from anything but the library's public surface (a call, a construction,
    a registration, a call by the method's name on an untyped receiver)."""
    return any(graph.nodes[source].get("kind") != NodeKind.PUBLIC_API
               for source, _, kind in graph.in_edges(node, data="kind") if kind != "defined-in")


def _module_of(dotted: str, by_module: Mapping[str, FileResult]) -> Optional[str]:
    while dotted and dotted not in by_module:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _exposed_by_a_cli(outline: Optional[Outline]) -> bool:
    return outline is None or any(name.split(".")[0] in CLI_LIBRARIES for name in outline.imports)


def _mentions(definition: _Definition, results: Sequence[FileResult], texts: Dict[str, Optional[str]],
              own: AbstractSet[str]) -> bool:
    """Whether any line of the project's files outside the definition's own refers to its name (a ``def`` of it
    is none: siblings of one protocol may each define it; its own docstring's example or a recursive call is
    none either, nor a Python comment: NAFNet's ``# flops = get_model_flops(...)``, a call commented out); a source
    that cannot be read may hold one."""
    name, rel, (first, last) = definition
    word = re.compile(_REFERENCE.format(re.escape(name)))
    for result in results:
        text = read_text(result, texts)
        if text is None:
            if result.file.rel.endswith((".py", ".ipynb")):
                return True
            continue
        if name not in text:
            continue
        python = result.file.rel.endswith(".py")
        outside = _outside_names(result.outline, own) if python else frozenset()
        for match in word.finditer(text):
            if (result.file.rel != rel or not first <= text.count("\n", 0, match.start()) + 1 <= last) \
                    and not (python and (_commented(text, match.start()) or _off(text, match.start(), outside))):
                return True
    return False


def _outside_names(outline: Optional[Outline], own: AbstractSet[str]) -> FrozenSet[str]:
    """The names a module binds to what its imports bring from outside the project (``torch``, ``dist`` for
    ``torch.distributed``): what is read off them (``torch.distributed.init_process_group``) is theirs."""
    if outline is None:
        return frozenset()
    return frozenset(alias for alias, target in outline.bindings if target.split(".")[0] not in own)


def _off(text: str, at: int, outside: AbstractSet[str]) -> bool:
    """Whether the name at ``at`` is read off a name bound to something outside the project (TimeSformer's own
    ``du.init_process_group``, which nothing calls, beside ``torch.distributed.init_process_group(...)``)."""
    if not outside or at == 0 or text[at - 1] != ".":
        return False
    start = at - 1
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._"):
        start -= 1
    return text[start:at - 1].split(".")[0] in outside


def _commented(text: str, at: int) -> bool:
    """Whether position ``at`` of a Python source lies in a comment: after a ``#`` on its line that no string holds
    (an even number of each quote before it)."""
    start = text.rfind("\n", 0, at) + 1
    before = text[start:at]
    for index, char in enumerate(before):
        if char == "#" and before.count("'", 0, index) % 2 == 0 and before.count('"', 0, index) % 2 == 0:
            return True
    return False


def _lines_of(text: str, line: int) -> Tuple[int, int]:
    """The lines of the definition that starts at ``line`` (its ``def``; decorators above it are not read)."""
    rows = text.splitlines()
    while 0 < line < len(rows) and rows[line - 1].lstrip().startswith("@"):
        line += 1
    return (line, block_end(rows, line)) if 0 < line <= len(rows) else (line, line)


class _ClassFamilies:
    """Which classes of the project belong to a family (bases and subclasses, in the repository) that no class
    outside it is a base of: no framework runs their methods by a protocol of its own."""

    def __init__(self, outlines: Sequence[Outline]) -> None:
        self._bases: Dict[str, tuple] = {}
        for outline in outlines:
            for definition in outline.definitions:
                if definition.kind == DefinitionKind.CLASS:
                    self._bases[f"{outline.module}.{definition.name}"] = definition.bases
        self._subclasses: Dict[str, Set[str]] = {}
        for cls, bases in self._bases.items():
            for base in bases:
                self._subclasses.setdefault(base, set()).add(cls)
        self._families: Dict[str, FrozenSet[str]] = {}  # each class's family, found once for all its members
        self._outsides: Dict[FrozenSet[str], FrozenSet[str]] = {}  # each family's bases outside the repository

    def has_subclasses(self, cls: str) -> bool:
        """Whether a class of the repository derives from ``cls`` (its construction runs ``cls.__init__``)."""
        return bool(self._subclasses.get(cls))

    def runs_by_protocol(self, cls: str, name: str, built: Callable[[str], bool]) -> bool:
        """Whether something outside the project may call method ``name`` of ``cls``: nothing for a family of the
        project's own; for a family whose only base outside the repository is ``torch.nn.Module``, torch the
        methods ``nn.Module`` itself has (``forward``, ``extra_repr``, ``_load_from_state_dict``...), and a user's
        subclass any method of a class the project never builds (``built``: an abstract base); any method for
        another framework's."""
        outside = self._outside(cls)
        if outside is None:
            return True
        if not outside:
            return False
        return not outside <= _TORCH_MODULES or name in _MODULE_PROTOCOL \
            or not any(built(member) for member in self._family(cls) or ())

    def _outside(self, cls: str) -> Optional[FrozenSet[str]]:
        """The bases of ``cls``'s family outside the repository (neutral ones left out); ``None`` when ``cls`` is
        not the repository's."""
        family = self._family(cls)
        if family is None:
            return None
        if family not in self._outsides:
            self._outsides[family] = frozenset(base for member in family for base in self._bases[member]
                                               if base not in self._bases and base not in _NEUTRAL_BASES)
        return self._outsides[family]

    def _family(self, cls: str) -> Optional[FrozenSet[str]]:
        """``cls`` with its bases and subclasses in the repository, theirs in turn; ``None`` when ``cls`` is not
        the repository's. A family is found once: every member's is the same."""
        if cls not in self._bases:
            return None
        if cls not in self._families:
            seen, stack = {cls}, [cls]
            while stack:
                member = stack.pop()
                for other in (*self._bases.get(member, ()), *self._subclasses.get(member, ())):
                    if other in self._bases and other not in seen:
                        seen.add(other)
                        stack.append(other)
            family = frozenset(seen)
            self._families.update((member, family) for member in family)
        return self._families[cls]
