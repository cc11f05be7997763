"""A device default every caller overrides: ``def __init__(self, ..., device="cuda")`` in a class the project
builds only as ``FIDEvaluation(..., device=self.device)`` (denoising_diffusion_pytorch's Trainer).

The default's ``"cuda"`` reaches no run of the project: every call the project makes passes the parameter. It is
still what a caller outside the project gets, so the finding stays, to validate (a library's public default), and
leaves the worklist. Only functions and classes are read (a method's callers hold objects the text does not
type), only where the callers can be seen: the defining module and the modules that import it (or the package
that re-exports it); every mention of
the name there must be a call that passes the parameter (a function handed on as a value, ``partial(f)``, a
``super().__init__(...)`` in a subclass or a call without it keeps the finding; a test's or an exporter's call
reaches no training run and is not read: ultralytics' INT8 export). A parameter left ``None`` and
replaced in the body (``device or torch.device("cuda" if torch.cuda.is_available() else "cpu")``: lerobot's RA-BC
weights) is such a default too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ..contexts import path_context
from ..model import Context, Evidence, FileResult, Finding, Grade, Status
from .reread import parse_text, read_text, type_references

#: the default's device string, and the availability test that chooses it (``"cuda" if
#: torch.cuda.is_available() else "cpu"``: demucs's ``Separator(device=...)``)
_RULES = frozenset({"device-string", "device-call", "device-argument"})
_SOURCE = "migrator call-site analysis"


@dataclass(frozen=True)
class ParameterDefault:
    """A parameter's default: the callable's name as callers write it, the parameter, its position among what
    callers pass positionally (``None``: keyword-only)."""

    callee: str
    parameter: str
    position: Optional[int]
    #: a method's (not ``__init__``): called off an object of any name, anywhere in the project
    method: bool = False
    #: read from ``**kwargs`` (``kwargs.get("device", "cuda")``): a caller passes it only by writing the keyword
    #: (its own ``**kwargs``, a command line's configuration, may well lack it)
    by_keyword_only: bool = False


def with_overridden_defaults(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, a device default every project call overrides to validate instead of work."""
    candidates = [f for f in findings if f.rule in _RULES
                  and any(v.status == Status.REWRITE and not v.evidence for v in f.verdicts.values())]
    if not candidates:
        return list(findings)
    by_rel = {r.file.rel: r for r in results if r.outline is not None}
    texts: Dict[str, Optional[str]] = {}
    mentions: Dict[str, Optional[_Mentions]] = {}
    changed: Dict[str, Finding] = {}
    for path in sorted({f.path for f in candidates}):
        defining = by_rel.get(path)
        text = read_text(defining, texts)
        tree = parse_text(text)
        if defining is None or defining.outline is None or tree is None:
            continue
        defaults = defaults_in(tree)
        module = defining.outline.module
        importers = _importers(results, module)
        for finding in (f for f in candidates if f.path == path):
            default = defaults.get((finding.span.line or 0, finding.span.col or 0))
            if default is None:
                continue
            if path not in mentions:
                mentions[path] = _Mentions(tree)
            files: List[Tuple[str, Optional[_Mentions], bool]] = [(path, mentions[path], False)]
            if default.method:  # mmpose's ``self.prior_generator.grid_priors(..., device=device)``: any module
                files = _method_mentions(default.callee, by_rel.values(), texts, mentions)
                calls = _calls(default, files)
                if calls:
                    changed[finding.id] = _overridden(finding, default, calls)
                continue
            for importer in importers:  # parsed only where the text names the callee
                if path_context(importer.file.rel) != Context.TRAINING:
                    continue  # an exporter's or a test's call reaches no training run (ultralytics' INT8 export)
                text = read_text(importer, texts)
                if text is None or default.callee in text:
                    rel = importer.file.rel
                    if rel not in mentions:
                        parsed = parse_text(text)
                        mentions[rel] = _Mentions(parsed) if parsed is not None else None
                    files.append((rel, mentions[rel], module in (importer.outline.imports if importer.outline else ())))
            calls = _calls(default, files)
            if calls:
                changed[finding.id] = _overridden(finding, default, calls)
    return [changed.get(f.id, f) for f in findings]


def _importers(results: Sequence[FileResult], module: str) -> List[FileResult]:
    """The modules that import ``module``, and those that import a package whose ``__init__`` does (mmcls'
    ``from mmcls.utils import wrap_distributed_model``, re-exported from ``mmcls/utils/distribution.py``)."""
    direct = [r for r in results if r.outline is not None and _imports(r, module)]
    packages = [r.outline.module for r in direct if r.outline is not None and r.file.rel.endswith("__init__.py")]
    seen = {id(r) for r in direct}
    again = [r for r in results if id(r) not in seen and r.outline is not None
             and any(_imports(r, package) for package in packages)]
    return direct + again


def _imports(result: FileResult, module: str) -> bool:
    outline = result.outline
    return outline is not None and outline.module != module and any(
        name == module or name.startswith(module + ".") for name in outline.imports)


def defaults_in(tree: ast.Module) -> Dict[Tuple[int, int], ParameterDefault]:
    """(line, column) of each string default of a module-level function (or one nested in a function, called by
    its name there), a class's ``__init__`` or a method."""
    found: Dict[Tuple[int, int], ParameterDefault] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _read_defaults(node, node.name, False, found)
        elif isinstance(node, ast.ClassDef):
            _read_field_defaults(node, found)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    _read_defaults(item, node.name, True, found)
                elif isinstance(item, ast.FunctionDef) and not item.name.startswith("__") \
                        and "property" not in (decorators := _decorators(item)):
                    # a classmethod is called off the class (``ReplayBuffer.from_dataset(...)``), a method off an
                    # object: either way by its name after a dot; a staticmethod's callers write every parameter
                    _read_defaults(item, item.name, "staticmethod" not in decorators, found, method=True)
    for outer in ast.walk(tree):  # ``def get_indices(n, device='cuda')`` inside a method, called there by its name
        if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(outer):
                if inner is not outer and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    _read_defaults(inner, inner.name, False, found)
    return found


#: class decorators that make a constructor of the class's annotated fields (attrs, dataclasses), by last name
_FIELD_CLASSES = frozenset({"s", "attrs", "define", "frozen", "mutable", "dataclass"})
#: what declares one field with its default: ``attr.ib(default=...)``, ``attrs.field(...)``, ``dataclasses.field``
_FIELDS = frozenset({"ib", "attrib", "field"})


def _read_field_defaults(cls: ast.ClassDef, found: Dict[Tuple[int, int], ParameterDefault]) -> None:
    """The defaults of a class's constructor that attrs or dataclasses writes from its fields (glide's CLIP
    encoders: ``device: torch.device = attr.ib(default=torch.device("cuda"))``, built only as ``TextEncoder(...,
    device=device)``): each field is a parameter, by its place among the fields the constructor takes."""
    if not any(_last_name(d.func if isinstance(d, ast.Call) else d) in _FIELD_CLASSES for d in cls.decorator_list):
        return
    position = 0
    for item in cls.body:
        if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
            continue
        value = item.value
        declared = isinstance(value, ast.Call) and _last_name(value.func) in _FIELDS
        keywords = {k.arg: k.value for k in value.keywords} if isinstance(value, ast.Call) and declared else {}
        init = keywords.get("init")
        if isinstance(init, ast.Constant) and init.value is False:
            continue  # ``attr.ib(init=False, default=32)``: no parameter of the constructor
        default = keywords.get("default") if declared else value
        for written in _written(default):
            found[written.lineno, written.col_offset] = ParameterDefault(cls.name, item.target.id, position)
        position += 1


def _last_name(node: ast.expr) -> Optional[str]:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _decorators(function: ast.FunctionDef) -> FrozenSet[str]:
    return frozenset(d.id for d in function.decorator_list if isinstance(d, ast.Name))


def _method_mentions(name: str, results: Iterable[FileResult], texts: Dict[str, Optional[str]],
                     mentions: Dict[str, Optional["_Mentions"]]) -> List[Tuple[str, Optional["_Mentions"], bool]]:
    """Every project module whose text calls or reads ``.name``, with its mentions (method calls by any receiver:
    a method's callers hold the object under names the text does not type)."""
    found: List[Tuple[str, Optional[_Mentions], bool]] = []
    for result in results:
        if path_context(result.file.rel) != Context.TRAINING:
            continue
        text = read_text(result, texts)
        if text is None or f".{name}" not in text:
            continue
        rel = result.file.rel
        if rel not in mentions:
            parsed = parse_text(text)
            mentions[rel] = _Mentions(parsed) if parsed is not None else None
        found.append((rel, mentions[rel], True))
    return found


def _read_defaults(function: ast.FunctionDef | ast.AsyncFunctionDef, callee: str, bound: bool,
                   found: Dict[Tuple[int, int], ParameterDefault], method: bool = False) -> None:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    skip = 1 if bound else 0  # ``self`` is not written by callers
    none_defaults: Dict[str, Optional[int]] = {}  # ``device=None``: the parameters a fallback may stand in for
    for index, (arg, default) in enumerate(zip(positional[len(positional) - len(args.defaults):], args.defaults)):
        position = len(positional) - len(args.defaults) + index - skip
        for written in _written(default):
            found[written.lineno, written.col_offset] = ParameterDefault(callee, arg.arg, position, method)
        if isinstance(default, ast.Constant) and default.value is None:
            none_defaults[arg.arg] = position
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
        for written in _written(kw_default):
            found[written.lineno, written.col_offset] = ParameterDefault(callee, arg.arg, None, method)
        if isinstance(kw_default, ast.Constant) and kw_default.value is None:
            none_defaults[arg.arg] = None
    for parameter, fallback in _fallbacks(function, none_defaults):
        for written in _written(fallback):
            found.setdefault((written.lineno, written.col_offset),
                             ParameterDefault(callee, parameter, none_defaults[parameter], method))
    for parameter, fallback in _keyword_fallbacks(function):
        for written in _written(fallback):
            found.setdefault((written.lineno, written.col_offset),
                             ParameterDefault(callee, parameter, None, method, by_keyword_only=True))


def _keyword_fallbacks(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterable[Tuple[str, ast.expr]]:
    """What a function taking ``**kwargs`` reads for a keyword its caller leaves out: funasr's trainers'
    ``self.device = kwargs.get("device", "cuda")``, a default as a parameter's is (keyword-only)."""
    keywords = function.args.kwarg.arg if function.args.kwarg is not None else None
    if keywords is None:
        return
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == keywords \
                and len(node.args) == 2 and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            yield node.args[0].value, node.args[1]


def _fallbacks(function: ast.FunctionDef | ast.AsyncFunctionDef,
               parameters: Mapping[str, Optional[int]]) -> Iterable[Tuple[str, ast.expr]]:
    """What a function's body uses in place of a parameter left ``None``: lerobot's ``device or
    torch.device("cuda" if torch.cuda.is_available() else "cpu")``, ``device if device else ...``, ``... if device
    is None else device``; the default that a caller passing the parameter never reaches."""
    if not parameters:
        return
    for node in ast.walk(function):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 \
                and isinstance(node.values[0], ast.Name) and node.values[0].id in parameters:
            yield node.values[0].id, node.values[1]
        elif isinstance(node, ast.IfExp) and isinstance(node.body, ast.Name) and isinstance(node.test, ast.Name) \
                and node.body.id == node.test.id and node.test.id in parameters:
            yield node.test.id, node.orelse
        elif isinstance(node, ast.If) and _left_none(node.test, parameters) is not None:
            # alibi-detect's ``if device is None: device = torch.device('cuda' if ... else 'cpu')``
            parameter = _left_none(node.test, parameters)
            for statement in node.body:
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                        and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == parameter:
                    yield parameter, statement.value
        elif isinstance(node, ast.IfExp) and isinstance(node.orelse, ast.Name) and node.orelse.id in parameters \
                and isinstance(node.test, ast.Compare) and isinstance(node.test.left, ast.Name) \
                and node.test.left.id == node.orelse.id and isinstance(node.test.ops[0], ast.Is) \
                and isinstance(node.test.comparators[0], ast.Constant) and node.test.comparators[0].value is None:
            yield node.orelse.id, node.body


def _left_none(test: ast.expr, parameters: Mapping[str, Optional[int]]) -> Optional[str]:
    """The parameter a test finds left ``None`` (``device is None``, ``not device``), if it is one of
    ``parameters``."""
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1 \
            and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        name = test.left.id
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        name = test.operand.id
    else:
        return None
    return name if name in parameters else None


def _written(default: Optional[ast.expr]) -> List[ast.expr]:
    """The strings and calls a default is written with: itself, or ``"cuda"``, ``"cpu"`` and
    ``torch.cuda.is_available()`` of ``"cuda" if torch.cuda.is_available() else "cpu"``."""
    if default is None:
        return []
    return [n for n in ast.walk(default) if isinstance(n, ast.Call)
            or (isinstance(n, ast.Constant) and isinstance(n.value, str))]


def _calls(default: ParameterDefault, files: Iterable[Tuple[str, Optional["_Mentions"], bool]]) -> List[str]:
    """``path:line`` of every call of the callee in ``files`` (path, its mentions, whether it imports the
    defining module whole, so that ``mod.callee(...)`` names it), when every mention of its name is a call passing
    the parameter; else ``[]`` (another mention, or a file that cannot be read)."""
    found: List[str] = []
    files = list(files)
    # a method's name the project also sets as an attribute (mmdet's ``pred_instances.valid_flags = flags``): an
    # attribute read by that name is that data, not the method handed on
    data = default.method and any(m is not None and default.callee in m.stored for _, m, _ in files)
    for rel, mentions, whole in files:
        if mentions is None:
            return []
        for call in mentions.of_method(default.callee) if default.method else mentions.of(default.callee, whole):
            if call is None and data:
                continue
            if call is None or not _passes(call, default, mentions.left_none.get(id(call), frozenset())):
                return []  # handed on as a value (a callback, ``partial``), or called without the parameter
            found.append(f"{rel}:{call.lineno}")
    return found


class _Mentions:
    """One file's mentions of names, read in two walks: each ``Name`` read (and ``x.name`` off a plain name) with
    the call it is the callee of (``None``: not called there), leaving out types (annotations, ``isinstance``)."""

    def __init__(self, tree: ast.Module) -> None:
        typed = type_references(tree) | _class_attributes_read(tree) | _super_arguments(tree)
        callee_of = {id(n.func): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
        callee_of.update(_partials(tree))
        #: per call in a function, that function's parameters left ``None`` by default: passed on, they pass nothing
        self.left_none: Dict[int, FrozenSet[str]] = _left_none_around(tree)
        self._names: Dict[str, List[Optional[ast.Call]]] = {}
        self._attributes: Dict[str, List[Optional[ast.Call]]] = {}
        self._methods: Dict[str, List[Optional[ast.Call]]] = {}  # ``<object>.name``, ``self.name`` among them
        #: attribute names the file sets (``pred_instances.valid_flags = flags``): data of that name, not a method
        self.stored: Set[str] = set()
        # what an import binds that is no class (``torch``, ``from torch import nn``): ``torch.zeros(...)`` is no
        # method; ``ReplayBuffer.from_dataset(...)`` after ``from .buffer import ReplayBuffer`` is a classmethod's call
        modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                   if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names
                   if isinstance(node, ast.Import) or not alias.name[:1].isupper()}
        for node in ast.walk(tree):
            if id(node) in typed:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self._names.setdefault(node.id, []).append(callee_of.get(id(node)))
            if isinstance(node, ast.ClassDef):  # ``cls(...)`` in its classmethods builds the class itself
                for built in _built_by_cls(node):
                    self._names.setdefault(node.name, []).append(built)
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                self.stored.add(node.attr)
            elif isinstance(node, ast.Attribute):
                if _root_name(node) not in modules:  # ``torch.zeros(..., device=d)`` is no method ``zeros``
                    self._methods.setdefault(node.attr, []).append(callee_of.get(id(node)))
                if isinstance(node.value, ast.Name) and node.value.id != "self":
                    self._attributes.setdefault(node.attr, []).append(callee_of.get(id(node)))

    def of(self, name: str, whole: bool) -> List[Optional[ast.Call]]:
        return self._names.get(name, []) + (self._attributes.get(name, []) if whole else [])

    def of_method(self, name: str) -> List[Optional[ast.Call]]:
        return self._methods.get(name, [])


def _partials(tree: ast.Module) -> Dict[int, ast.Call]:
    """``partial(batch_compute_kernel_matrix, device=self.device, batch_size=n)`` (alibi-detect's learned
    kernel): the callee handed to ``functools.partial`` with what it binds, read as a call of it; the calls of the
    partial pass the rest."""
    found: Dict[int, ast.Call] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and not isinstance(node.args[0], ast.Starred) \
                and ((isinstance(node.func, ast.Name) and node.func.id == "partial")
                     or (isinstance(node.func, ast.Attribute) and node.func.attr == "partial")):
            bound = ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords)
            found[id(node.args[0])] = ast.copy_location(bound, node)
    return found


def _root_name(node: ast.Attribute) -> Optional[str]:
    """``torch`` of ``torch.nn.functional.pad``; ``None`` when the chain starts at a call or a subscript."""
    value: ast.expr = node
    while isinstance(value, ast.Attribute):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


def _super_arguments(tree: ast.Module) -> Set[int]:
    """The class named in ``super(AnomalyAttention, self).__init__()``, the Python 2 spelling of a class's own
    base call (deepod's models): the class is not built there."""
    return {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name) and node.func.id == "super" and node.args}


def _class_attributes_read(tree: ast.Module) -> Set[int]:
    """The class names read only for an attribute (``ReplayBuffer.from_dataset``, ``Config.KEYS``): the class is
    not handed on to be called there (what the attribute's call builds, ``cls(...)``, is read apart)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id[:1].isupper() and not node.attr.startswith("__")}


def _built_by_cls(node: ast.ClassDef) -> List[ast.Call]:
    """The ``cls(...)`` calls of a class's classmethods: its own alternative constructors."""
    return [call for item in node.body if isinstance(item, ast.FunctionDef) and "classmethod" in _decorators(item)
            and item.args.args for call in ast.walk(item) if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name) and call.func.id == item.args.args[0].arg]


def _passes(call: ast.Call, default: ParameterDefault, left_none: FrozenSet[str] = frozenset()) -> bool:
    """Whether a call passes the parameter: by keyword, at its position, or in a ``*``/``**`` that may (a keyword
    read from ``**kwargs``: by its keyword alone); a value that is the caller's own parameter left ``None``
    (``left_none``: yolox's ``yolox_s(device=None)`` handing ``device`` on) passes ``None``, nothing."""
    def passed(value: ast.expr) -> bool:
        return not _none(value) and not (isinstance(value, ast.Name) and value.id in left_none)

    if default.by_keyword_only:
        return any(k.arg == default.parameter and passed(k.value) for k in call.keywords)
    if any(k.arg is None or (k.arg == default.parameter and passed(k.value)) for k in call.keywords):
        return True
    if any(isinstance(a, ast.Starred) for a in call.args):
        return default.position is not None
    return default.position is not None and len(call.args) > default.position \
        and passed(call.args[default.position])


def _left_none_around(tree: ast.Module) -> Dict[int, FrozenSet[str]]:
    """Each call inside a function, with the function's parameters whose default is ``None``."""
    found: Dict[int, FrozenSet[str]] = {}
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = function.args
        positional = [*args.posonlyargs, *args.args]
        names = {a.arg for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults) if _none(d)}
        names |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None and _none(d)}
        # ``if device is None: device = torch.device(...)`` (glide's ``create_clip_model``): the function passes on
        # its own value, not its caller's ``None``
        names -= {target.id for node in ast.walk(function) if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(target, ast.Name)}
        if names:
            found.update((id(node), frozenset(names)) for node in ast.walk(function) if isinstance(node, ast.Call))
    return found


def _none(value: ast.expr) -> bool:
    """``device=None`` hands the callee its default (or its fallback for ``None``): no override."""
    return isinstance(value, ast.Constant) and value.value is None


def _overridden(finding: Finding, default: ParameterDefault, calls: Sequence[str]) -> Finding:
    where = ", ".join(calls[:3]) + (f" and {len(calls) - 3} more" if len(calls) > 3 else "")
    return rewrites_on_a_note(finding, f"every call of `{default.callee}` in the project passes "
                              f"`{default.parameter}` ({where}): this default reaches no run of the project, only a "
                              "caller outside it", _SOURCE)


def rewrites_on_a_note(finding: Finding, why: str, source: str, held: Optional[str] = None) -> Finding:
    """``finding`` with each ``rewrite`` verdict resting on a note that says ``why`` (to validate, off the
    worklist); ``held``: ``fix`` holds the rename back, for that reason."""
    verdicts = dict(finding.verdicts)
    for target, verdict in finding.verdicts.items():
        if verdict.status == Status.REWRITE:
            quote = f"{why}; {verdict.message}"
            noted = replace(verdict, message=quote, source=source, evidence=(Evidence(Grade.NOTE, source, quote),))
            verdicts[target] = noted.held_back(held) if held else noted
    return replace(finding, verdicts=verdicts)
