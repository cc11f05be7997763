"""The call-graph outline of one Python module, read with CPython's ``ast`` (C speed, no libcst).

Every Python file gets an outline, torch or not: a helper module with no CUDA in it can still be the
link between ``train.py`` and the code that blocks a migration. The outline is per file and cacheable;
``graph.py`` joins the outlines of a repository into one call graph.

What is recorded, with names already resolved through this module's imports:

* definitions: functions, classes (with their bases) and methods, by qualified name;
* calls, by the scope they are made from, as tagged targets (``model.CallTarget``): a resolved name,
  ``self.m()`` / ``super().m()`` / ``self.attr.m()`` inside a class, calling an instance, a method on a
  receiver whose type is unknown (joined by name later);
* references: a repo function passed as an argument (``mp.spawn(main_worker, ...)``) or stored in an attribute or
  an item (``LlamaAttention.forward = forward``: a monkey-patch), a bound method of an
  instance the scope made or of a member (``retry_call(model.train)``, ``pool.submit(self.trainer.step)``), or a
  decorator root (``@cli.command()``) counts as called by that scope;
* ``self.attr = Cls(...)`` and ``var = Cls(...)`` types, so ``self.attr(x)`` reaches ``Cls.forward``;
* the ``if __name__ == "__main__":`` block, as the scope ``<main>``.
"""

from __future__ import annotations

import ast
import hashlib
import posixpath
from collections import deque
from dataclasses import replace
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

from ..contexts import in_a_config_folder
from ..devices import ACCELERATORS, swapped_siblings
from ..model import (AttributeMethod, Call, CallTarget, Definition, InstanceCall, ModuleNames, NamedTarget, Outline,
                     SelfMethod,
                     SuperMethod, UnknownReceiver)
from ..resolve.guards import names_availability
from ..resolve.modules import absolute_import
from ..resolve.scope import IMPORT_ERRORS
from ..model import DefinitionKind

MAIN = "<main>"
#: The kind of a call-graph edge from ``x.name(...)`` on a receiver of unknown type to a repository method of
#: that name: a guess reachability takes, and the training step (``project/step.py``) takes only where the
#: name is called.
CALLS_BY_NAME = "calls-by-name"
#: The kind of a call-graph edge from a decorator's root to what it decorates (``@register_model``,
#: ``@MODELS.register_module()``, ``@parser.wrap()``): a registry may call it later, a wrapper returns it; either
#: way the decorator's importers do not run it then (``project/training_entries``: no entry trains through one).
REGISTERS = "registers"
MODULE = "<module>"


def _statements(body: List[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a function's body and of the blocks in it, not of the functions and classes it defines."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _statements(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from _statements(handler.body)


def outline_of(tree: ast.Module, module: str, is_package: bool) -> Outline:
    reader = _OutlineReader(module, is_package)
    for stmt in tree.body:  # functions may call what is defined further down the module
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            reader.names[stmt.name] = f"{module}.{stmt.name}"
    reader.cuda_members = cuda_family_members(
        [s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))])
    reader.bind_aliases(tree.body)  # ``roi_align = _RoIAlign.apply``, wherever the callers are in the file
    reader.read_body(tree.body, scope=MODULE, cls=None)
    bindings = tuple(sorted((k, v) for k, v in reader.names.items() if v != f"{module}.{k}"))
    outline = Outline(module=module, imports=tuple(sorted(set(reader.imports))), bindings=bindings,
                      definitions=tuple(reader.definitions), calls=tuple(dict.fromkeys(reader.calls)),  # an edge once
                      attributes=tuple(sorted(reader.attributes.items())), main_lines=reader.main_lines,
                      optional_imports=tuple(sorted(set(reader.optional_imports) - set(reader.required_imports))),
                      cuda_branch_imports=tuple(sorted(set(reader.cuda_branch_imports) - set(reader.required_imports)
                                                       - set(reader.optional_imports))),
                      loads_optionally_by_name=reader.loads_optionally_by_name,
                      loads_ops_optionally=reader.loads_ops_optionally, loads_ops=reader.loads_ops,
                      loads_submodules=reader.loads_submodules, imports_relatively=reader.imports_relatively,
                      opt_in_lines=tuple(reader.opt_in_lines),
                      dead_end_lines=tuple(reader.dead_end_lines), path_folders=path_folders(tree),
                      names=_module_names(tree, reader))
    return replace(outline, shape=outline_shape(outline))


def path_folders(tree: ast.Module) -> Tuple[str, ...]:
    """The folders a module's top level (or its main block) puts on ``sys.path``, relative to its own folder:
    ``sys.path.append('core')``, ``sys.path.insert(0, '..')``, ``sys.path.append(os.path.join(os.path.dirname(
    __file__), 'lib'))``. A folder the code computes otherwise, or an absolute one, is not read."""
    found: List[str] = []
    for stmt in _statements(tree.body):
        call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
        if call is None or dotted_name(call.func, _as_written) not in ("sys.path.append", "sys.path.insert"):
            continue
        given = call.args[-1] if call.args else None
        folder = _folder_named(given) if given is not None else None
        if folder is not None and not folder.startswith("/") and folder not in found:
            found.append(folder)
    return tuple(found)


def _folder_named(node: ast.expr) -> Optional[str]:
    """``'core'``, or ``os.path.join(os.path.dirname(__file__), 'lib', 'x')`` as ``lib/x``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return posixpath.normpath(node.value)
    if isinstance(node, ast.Call) and dotted_name(node.func, _as_written) == "os.path.join" and node.args \
            and "__file__" in ast.dump(node.args[0]):
        parts = [a.value for a in node.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if len(parts) == len(node.args) - 1:
            return posixpath.normpath(posixpath.join(*parts)) if parts else "."
    return None


def _as_written(name: str) -> str:
    """A chain's first name as the code writes it (``dotted_name``'s ``root_of``, no import followed)."""
    return name


#: what a configuration calls at its top (``model = dict(type='UNet', ...)``): no script's body
_BUILT_INS = frozenset({"dict", "list", "tuple", "set", "range", "len", "int", "float", "str"})


def runs_at_its_top(rel: str, outline: Outline) -> bool:
    """Whether a module is a script's body, run by its path: it calls something at its top level (outside any
    definition), and it is no configuration of ``dict(...)`` calls (mmseg's ``configs/_base_/models/upernet_r50.py``,
    which a loader reads), nor a module of a package that imports relatively (run by its path, Python has no
    package to import from)."""
    if outline.imports_relatively or in_a_config_folder(rel):
        return False
    return any(call.scope == MODULE and not (isinstance(call.target, NamedTarget) and call.target.name in _BUILT_INS)
               for call in outline.calls)


def outline_shape(outline: Outline) -> str:
    """A digest of what the call graph reads from an outline, which is all of it but the line numbers: two
    versions of a file with the same shape give the same nodes and edges (``graph/saved.py``). Taken once, as
    the file is read, and kept with its cached result."""
    shape = (outline.module, outline.imports, outline.bindings,
             tuple((d.name, d.kind, d.bases, bool(d.cuda_answer)) for d in outline.definitions),
             tuple(replace(c, predicate_line=bool(c.predicate_line)) for c in outline.calls), outline.attributes,
             outline.main_lines is not None, outline.loads_submodules, outline.path_folders)
    return hashlib.sha256(repr(shape).encode("utf-8", "surrogateescape")).hexdigest()


class _OutlineReader:
    def __init__(self, module: str, is_package: bool):
        self.module = module
        self.is_package = is_package
        self.names: Dict[str, str] = {}  # module-level name -> absolute dotted name
        self.imports: List[str] = []
        self.optional_imports: List[str] = []  # made only where a library is installed
        self.required_imports: List[str] = []  # made unconditionally (somewhere in the file)
        self._optional = 0  # inside how many optional-import blocks
        self.loads_optionally_by_name = False  # ``importlib.import_module(<computed>)`` in such a block
        self.loads_ops_optionally = self.loads_ops = False  # ``torch.ops.load_library(...)``: in one, or not
        self.loads_submodules = False  # ``importlib.import_module(".%s" % name, __name__)``
        self.imports_relatively = False  # ``from . import upfirdn2d_ext`` outside any definition
        self._package = module if is_package else module.rpartition(".")[0]  # where its relative imports look
        self.cuda_branch_imports: List[str] = []  # made only in a CUDA tensor's branch (``if x.is_cuda:``)
        self._cuda_branch = 0  # inside how many such branches
        self._cuda_test = 0  # the line of the innermost CUDA test whose branch is being read (``Call.cuda_test``)
        self._predicate: Tuple[str, int] = ("", 0)  # the repository predicate whose branch is read (``Call.predicate``)
        self.cuda_members: FrozenSet[str] = frozenset()  # module functions that are CUDA's of a per-device family
        self.definitions: List[Definition] = []
        self.calls: List[Call] = []
        self.attributes: Dict[str, str] = {}  # "Cls.attr" -> absolute constructor name
        self.types: Dict[str, str] = {}  # module-level variable -> absolute constructor name
        self.main_lines: Optional[Tuple[int, int]] = None
        self.opt_in_lines: List[Tuple[int, int]] = []
        self.dead_end_lines: List[Tuple[int, int]] = []
        self.global_names: Set[str] = set()  # the names a function's ``global`` statement binds in the module
        self.makes_names = False  # ``globals()``, ``sys.modules[...] = ``: ``ModuleNames.dynamic``
        self.changes_all = False  # ``__all__.append(...)``

    # ------------------------------------------------------------------------------ aliases

    def bind_aliases(self, body: List[ast.stmt], local: Optional[Dict[str, str]] = None, scope: str = MODULE) -> None:
        """Names bound to a repo function, class or ``Fn.apply`` are followed like the thing itself:
        ``roi_align = _RoIAlign.apply``, ``act = my_gelu``, ``run = functools.partial(train, cfg)``,
        ``Norm = FusedNorm if HAS_APEX else LayerNorm`` (also inside module-level ``if``/``try`` blocks).
        A conditional alias binds its first repo branch; the others are referenced from the module."""
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.Try)):
                for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", []),
                              *(h.body for h in getattr(stmt, "handlers", []))):
                    self.bind_aliases(block, local, scope)
                continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            found = [t for t in (self._resolve(v, local) for v in _alias_values(stmt.value)) if t and not _external(t)]
            if found:
                (self.names if local is None else local)[stmt.targets[0].id] = found[0]
                if local is not None:  # ``if is_cuda: loss_func = rnnt.tdt_loss_gpu``: called later, CUDA's still
                    self._bound_under(local, stmt.targets[0].id, self._cuda_test)
                    if self._cuda_test:  # (and reached from here, whatever the name is bound to after the branch)
                        self.calls.extend(self._call(scope, NamedTarget(name)) for name in found)
                self.calls.extend(self._call(MODULE, NamedTarget(other)) for other in found[1:] if local is None)

    # ------------------------------------------------------------------------------ structure

    def read_body(self, body: List[ast.stmt], scope: str, cls: Optional[str],
                  local: Optional[Dict[str, str]] = None) -> None:
        if len(body) > 1 and _refuses(body[-1]):
            self.dead_end_lines.append((body[0].lineno, body[-2].end_lineno or body[-2].lineno))
        outer = self._cuda_test
        try:
            for stmt in body:
                self.read_stmt(stmt, scope, cls, local)
                if isinstance(stmt, ast.If) and not stmt.orelse and _leaves(stmt.body) \
                        and self._cuda_test_of(stmt.test, local, negated=True):
                    # ``if not torch.cuda.is_available(): return``: the rest is CUDA's
                    self._cuda_test = _test_line(stmt, local)
        finally:
            self._cuda_test = outer

    def read_stmt(self, stmt: ast.stmt, scope: str, cls: Optional[str], local: Optional[Dict[str, str]]) -> None:
        if isinstance(stmt, ast.Global):
            self.global_names.update(stmt.names)
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Subscript) and _is_sys_modules(t.value)
                                                  for t in [*stmt.targets, stmt.value]):
            # transformers' ``sys.modules[__name__] = _LazyModule(...)``; deepxde's backend loader takes ``thismod =
            # sys.modules[__name__]`` and sets each backend function on it
            self.makes_names = True
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self._import(stmt, local)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            cuda = scope == MODULE and stmt.name in self.cuda_members  # ``def dtw_cuda`` beside ``def dtw_cpu``
            self._cuda_branch += cuda
            try:
                self._function(stmt, scope, cls, local)
            finally:
                self._cuda_branch -= cuda
        elif isinstance(stmt, ast.ClassDef):
            self._class(stmt, scope, local)
        elif scope == MODULE and isinstance(stmt, ast.If) and _is_main_guard(stmt):
            self.main_lines = (stmt.lineno, stmt.end_lineno or stmt.lineno)
            self._expressions(stmt.test, MAIN, cls, local)
            self.read_body(stmt.body, MAIN, cls, local)
            self.read_body(stmt.orelse, MODULE, cls, local)
        else:
            if local is not None and isinstance(stmt, ast.Assign):
                self.bind_aliases([stmt], local, scope)
                self._bind_flag(stmt, local)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                self._typed_assignment(stmt, cls, local)
                if any(isinstance(t, (ast.Attribute, ast.Subscript))
                       for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                    # a function stored where others call it: FastChat's ``LlamaAttention.forward = forward`` (a
                    # monkey-patch), ``HANDLERS["npu"] = run_npu``: reached from the scope that stores it
                    self._reference(stmt.value, scope, cls, local)
                if scope == MODULE:  # a module-level variable (``MODELS = Registry('model')``) can root a registry
                    for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                        if isinstance(target, ast.Name):
                            self.names.setdefault(target.id, f"{self.module}.{target.id}")
            self._read_fields(stmt, scope, cls, local)

    def _read_fields(self, stmt: ast.stmt, scope: str, cls: Optional[str], local: Optional[Dict[str, str]]) -> None:
        """A statement that is no import, definition or main guard: its blocks read as bodies (the body of an
        optional-import test or of a CUDA tensor's test counted as such), the rest as expressions."""
        optional = _makes_imports_optional(stmt)  # ``if is_bnb_available():``, ``try/except ImportError``
        cuda = isinstance(stmt, ast.If) and tests_a_cuda_tensor(stmt.test)
        # the branch a CUDA test takes only on CUDA: the body of ``if torch.cuda.is_available():``, the ``else`` of
        # ``if not x.is_cuda:``
        cuda_field = "" if not isinstance(stmt, ast.If) else "body" if self._cuda_test_of(stmt.test, local) \
            else "orelse" if self._cuda_test_of(stmt.test, local, negated=True) else ""
        predicate = self._predicate_of(stmt.test, local) if isinstance(stmt, ast.If) and not cuda_field else ""
        if isinstance(stmt, ast.If) and stmt.body and (_asks_to_profile(stmt.test) or _loads_an_engine(stmt.body)):
            self.opt_in_lines.append((stmt.body[0].lineno, stmt.body[-1].end_lineno or stmt.body[-1].lineno))
        for field, value in ast.iter_fields(stmt):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self._optional += optional and field == "body"
                self._cuda_branch += cuda and field == "body"
                outer, outer_predicate = self._cuda_test, self._predicate
                self._cuda_test = _test_line(stmt, local) if field == cuda_field and isinstance(stmt, ast.If) \
                    else outer
                if predicate and field == "body":
                    self._predicate = (predicate, stmt.lineno)
                try:
                    self.read_body(value, scope, cls, local)
                finally:
                    self._optional -= optional and field == "body"
                    self._cuda_branch -= cuda and field == "body"
                    self._cuda_test, self._predicate = outer, outer_predicate
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _HANDLERS):
                        self.read_body(item.body, scope, cls, local)
                    elif isinstance(item, ast.AST):
                        self._expressions(item, scope, cls, local)
            elif field == "test" and isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And):
                self._and_test(value, stmt.lineno, scope, cls, local)
            elif isinstance(value, ast.AST):
                self._expressions(value, scope, cls, local)

    def _and_test(self, test: ast.BoolOp, line: int, scope: str, cls: Optional[str],
                  local: Optional[Dict[str, str]]) -> None:
        """``if torch.cuda.is_available() and not check_cuda_fp8_capability():``: what the sides after a CUDA test
        call is called only where that test is true."""
        outer = self._cuda_test
        try:
            for side in test.values:
                self._expressions(side, scope, cls, local)
                if self._cuda_test_of(side, local):
                    self._cuda_test = line
        finally:
            self._cuda_test = outer

    def _define(self, node, kind: DefinitionKind, scope: str, local: Optional[Dict[str, str]],
                bases: Tuple[str, ...] = ()) -> str:
        """Record a function or class and bind its name where it is visible; its qualified name in the module."""
        name = self._child(scope, node.name)
        answer = self._cuda_answer(node, local) if kind == DefinitionKind.FUNCTION else 0
        self.definitions.append(Definition(name=name, kind=kind, line=node.lineno, bases=bases, cuda_answer=answer))
        if local is not None:
            local[node.name] = f"{self.module}.{name}"
        elif scope == MODULE:
            self.names[node.name] = f"{self.module}.{name}"
        return name

    def _cuda_answer(self, node: Union[ast.FunctionDef, ast.AsyncFunctionDef], local: Optional[Dict[str, str]]) -> int:
        """``Definition.cuda_answer``: the line of a CUDA test a ``return`` hands back (alone or in an ``and``), or
        of one whose negation returns False before the rest (axolotl's ``fused_available()``,
        ``cutlass_fp4_available()``); 0 for a function that answers something else."""
        for inner in _statements(node.body):  # statements only: an expression holds no return
            if isinstance(inner, ast.Return) and inner.value is not None and self._cuda_test_of(inner.value, local):
                return inner.lineno
            if isinstance(inner, ast.If) and self._cuda_test_of(inner.test, local, negated=True) \
                    and len(inner.body) == 1 and isinstance(inner.body[0], ast.Return) \
                    and isinstance(inner.body[0].value, ast.Constant) and not inner.body[0].value.value:
                return inner.lineno
        return 0

    def _function(self, node: Union[ast.FunctionDef, ast.AsyncFunctionDef], scope: str, cls: Optional[str],
                  local: Optional[Dict[str, str]]) -> None:
        name = self._define(node, DefinitionKind.FUNCTION, scope, local)
        for decorator in node.decorator_list:
            self._decorator(decorator, name, scope, cls, local)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self._expressions(default, scope, cls, local)
        inner: Dict[str, str] = dict(local or {})
        self.read_body(node.body, name, cls, inner)
        self._returned_closures(node, name, inner)

    def _returned_closures(self, node: Union[ast.FunctionDef, ast.AsyncFunctionDef], name: str,
                           inner: Mapping[str, str]) -> None:
        """A function that returns a function it defines (BigGAN's ``GAN_training_function`` builds and returns its
        ``train(x, y)`` step, which the loop calls through the name it was handed): a reference its caller will
        call, so calling the factory reaches the closure."""
        nested = f"{self.module}.{name}."
        for inner_node in _statements(node.body):
            if isinstance(inner_node, ast.Return) and isinstance(inner_node.value, ast.Name):
                closure = inner.get(inner_node.value.id, "")
                if closure.startswith(nested) and "." not in closure[len(nested):]:
                    self.calls.append(Call(scope=name, target=NamedTarget(closure)))

    def _class(self, node: ast.ClassDef, scope: str, local: Optional[Dict[str, str]]) -> None:
        bases = tuple(b for b in (self._resolve(base, local) for base in node.bases) if b)
        name = self._define(node, DefinitionKind.CLASS, scope, local, bases)
        for decorator in node.decorator_list:
            self._decorator(decorator, name, scope, name, local)
        self.read_body(node.body, name, name, local)

    def _child(self, scope: str, name: str) -> str:
        return name if scope in (MODULE, MAIN) else f"{scope}.{name}"

    def _decorator(self, decorator: ast.expr, name: str, scope: str, cls: Optional[str],
                   local: Optional[Dict[str, str]]) -> None:
        """A decorator runs in ``scope``; a repo decorator also registers ``name`` with what it is rooted at.

        ``@cli.command()``, ``@register_model`` and ``@MODELS.register_module()`` make ``name`` reachable from
        ``cli``, ``register_model`` and the ``MODELS`` registry: recorded as a call from ``@<root>``.
        """
        self._expressions(decorator, scope, cls, local)
        root = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not isinstance(decorator, ast.Call):
            target = self._resolve(decorator, local)
            if target and not _external(target):  # ``@register_model`` calls register_model(fn)
                self.calls.append(self._call(scope, NamedTarget(target)))
        group = _command_group(root)
        if group is not None and scope == MODULE and self.names.get(group) == f"{self.module}.{group}":
            # ``@main.command()`` under ``@click.group() def main():`` (EDM's ``fid.py``): running the group runs
            # its commands, so ``main`` calls ``calc`` (a registry's ``register`` is no such call)
            self.calls.append(self._call(group, NamedTarget(f"{self.module}.{name}")))
            return
        while isinstance(root, ast.Attribute):
            root = root.value
        resolved = self._resolve(root, local) if isinstance(root, ast.Name) else None
        if resolved and not _external(resolved):
            self.calls.append(Call(scope=f"@{resolved}", target=NamedTarget(f"{self.module}.{name}")))

    # ------------------------------------------------------------------------------ imports

    def _import(self, node: ast.stmt, local: Optional[Dict[str, str]]) -> None:
        before = len(self.imports)
        try:
            self._import_names(node, local)
        finally:
            made = self.optional_imports if self._optional else \
                self.cuda_branch_imports if self._cuda_branch else self.required_imports
            made.extend(self.imports[before:])

    def _import_names(self, node: ast.stmt, local: Optional[Dict[str, str]]) -> None:
        names = self.names if local is None else local
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.imports.append(alias.name)
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
            return
        assert isinstance(node, ast.ImportFrom)
        if node.level and local is None:
            self.imports_relatively = True
        base = self._from_module(node)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self.imports.append(base)
                continue
            full = f"{base}.{alias.name}" if base else alias.name
            self.imports.append(full)
            names[alias.asname or alias.name] = full

    def _from_module(self, node: ast.ImportFrom) -> Optional[str]:
        return absolute_import(self.module, self.is_package, node.level, node.module)

    # ------------------------------------------------------------------------------ expressions

    def _typed_assignment(self, stmt, cls: Optional[str], local: Optional[Dict[str, str]]) -> None:
        value = stmt.value
        if not isinstance(value, ast.Call):
            return
        constructor = self._resolve(value.func, local)
        if not constructor:
            return
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == "self" and cls):
                self.attributes[f"{cls}.{target.attr}"] = constructor
            elif isinstance(target, ast.Name):
                (self.types if local is None else local)[f"<type>{target.id}"] = constructor

    def _expressions(self, node: ast.AST, scope: str, cls: Optional[str], local: Optional[Dict[str, str]]) -> None:
        containers: List[Any] = []  # dict, list, tuple and set displays
        for sub in _calls_in(node, containers):
            named = str(getattr(sub.func, "id", None) or getattr(sub.func, "attr", ""))
            if named in _NAME_MAKERS or "lazy" in named.lower() \
                    or any(isinstance(a, ast.Subscript) and _is_sys_modules(a.value) for a in sub.args) \
                    or isinstance(sub.func, ast.Attribute) and _is_sys_modules(sub.func.value):
                self.makes_names = True
            elif isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name) \
                    and sub.func.value.id == "__all__":
                self.changes_all = True
            loader = self._resolve(sub.func, local) or getattr(sub.func, "id", None)
            if self._optional and sub.args and not isinstance(sub.args[0], ast.Constant) and loader in _NAME_LOADERS:
                self.loads_optionally_by_name = True
            elif loader in _NAME_LOADERS and (_relative_by_name(sub) or _own_package_by_name(sub, self._package)):
                self.loads_submodules = True
            elif loader == _OPS_LOADER:
                self.loads_ops_optionally |= bool(self._optional)
                self.loads_ops |= not self._optional
            target = self._call_target(sub.func, cls, local)
            if target:
                bound = (local or {}).get(_CUDA_BOUND + sub.func.id, "0") if isinstance(sub.func, ast.Name) else "0"
                self.calls.append(self._call(scope, target, int(bound)))
            for arg in [*sub.args, *(k.value for k in sub.keywords)]:
                self._reference(arg, scope, cls, local)  # a callback: mp.spawn(main_worker), self.apply(self._init)
        for container in containers:  # a table of functions: {'2': _dct_kernel_type_2, '3': _dct_kernel_type_3}
            for item in (container.values if isinstance(container, ast.Dict) else container.elts):
                self._reference(item, scope, cls, local)

    def _reference(self, value: ast.AST, scope: str, cls: Optional[str], local: Optional[Dict[str, str]]) -> None:
        """A function named as a value where it may be called later: reached from ``scope`` (the graph reaches
        more, never less)."""
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self" \
                and cls:
            self.calls.append(self._call(scope, SelfMethod(f"{self.module}.{cls}", value.attr)))
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and self._type_of(value.value.id, local):
            # a bound method of an instance the scope made: stylegan2's ``retry_call(model.train, ...)``
            self.calls.append(self._call(scope, NamedTarget(f"{self._type_of(value.value.id, local)}.{value.attr}")))
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute) \
                and isinstance(value.value.value, ast.Name) and value.value.value.id == "self" and cls:
            # a bound method of a member: ``executor.submit(self.trainer.step)``
            self.calls.append(self._call(scope, AttributeMethod(f"{self.module}.{cls}", value.value.attr, value.attr)))
        elif isinstance(value, (ast.Name, ast.Attribute)):
            ref = self._resolve(value, local)
            if ref and not _external(ref):
                self.calls.append(self._call(scope, NamedTarget(ref)))

    def _call(self, scope: str, target: CallTarget, cuda_test: int = 0) -> Call:
        return Call(scope=scope, target=target, cuda_test=self._cuda_test or cuda_test, predicate=self._predicate[0],
                    predicate_line=self._predicate[1])

    @staticmethod
    def _bound_under(local: Dict[str, str], name: str, test: int) -> None:
        """Keep the line of the CUDA test a local alias is bound under (none: forget it): a call through the alias
        is made in that test's branch wherever it is written."""
        if test:
            local[_CUDA_BOUND + name] = str(test)
        else:
            local.pop(_CUDA_BOUND + name, None)

    def _bind_flag(self, stmt: ast.Assign, local: Dict[str, str]) -> None:
        """``is_cuda = acts.is_cuda`` (a local bound to a CUDA test): ``if is_cuda:`` is that test. Rebound to
        anything else, the name is no flag."""
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                if self._cuda_test_of(stmt.value, local):
                    local[_CUDA_FLAG + target.id] = str(stmt.lineno)
                else:
                    local.pop(_CUDA_FLAG + target.id, None)

    def _predicate_of(self, test: ast.expr, local: Optional[Dict[str, str]]) -> str:
        """The repository function a test calls, alone or as a side of an ``and`` (``if fused_available() and
        p.is_cuda:``, stylegan3's ``if _should_use_custom_op(input):``, whose body returns False off a CUDA
        tensor): what the graph asks whether it answers CUDA."""
        sides = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        for side in sides:
            if isinstance(side, ast.Call):
                name = self._resolve(side.func, local)
                if name and not _external(name):
                    return name
        return ""

    def _cuda_test_of(self, test: ast.expr, local: Optional[Dict[str, str]], negated: bool = False) -> bool:
        """Whether ``test`` is true only on CUDA (a CUDA tensor's test, ``torch.cuda.is_available()``, alone or in
        an ``and``), or with ``negated``, false only there (``not torch.cuda.is_available()``,
        ``x.device.type != "cuda"``, alone or in an ``or``)."""
        if negated:
            if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):  # false only where every side is
                return any(self._cuda_test_of(v, local, negated=True) for v in test.values)
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                return not isinstance(test.operand, ast.BoolOp) and self._cuda_test_of(test.operand, local)
            return isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], (ast.NotEq, ast.NotIn, ast.IsNot)) and _names_cuda_string(test)
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return any(self._cuda_test_of(v, local) for v in test.values)
        if isinstance(test, ast.Call) and not test.args:
            return self._resolve(test.func, local) == _IS_AVAILABLE
        if isinstance(test, ast.Name):
            return _CUDA_FLAG + test.id in (local or {})
        return tests_a_cuda_tensor(test)

    def _call_target(self, func: ast.expr, cls: Optional[str], local: Optional[Dict[str, str]]) -> Optional[CallTarget]:
        if isinstance(func, ast.Name):
            made = self._type_of(func.id, local)
            if made:
                return InstanceCall(made)  # calling an instance: its __call__ / forward
            return _named(self._resolve(func, local))
        if not isinstance(func, ast.Attribute):
            return None
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == "self" and cls:
            return SelfMethod(f"{self.module}.{cls}", func.attr)
        if (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
                and receiver.value.id == "self" and cls):
            return AttributeMethod(f"{self.module}.{cls}", receiver.attr, func.attr)
        made = self._type_of(receiver.id, local) if isinstance(receiver, ast.Name) else None
        if made:
            return NamedTarget(f"{made}.{func.attr}")
        resolved = self._resolve(func, local)
        if resolved:
            return NamedTarget(resolved)
        if (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
                and cls):
            return SuperMethod(f"{self.module}.{cls}", func.attr)
        if isinstance(receiver, ast.Call):
            made = self._resolve(receiver.func, local)
            if made:
                return NamedTarget(f"{made}.{func.attr}")
        return UnknownReceiver(func.attr)

    def _type_of(self, name: str, local: Optional[Dict[str, str]]) -> Optional[str]:
        """What ``name = Ctor(...)`` made, if known. A function's local names and local types share one dict
        (copied per function); a type is keyed ``<type>name``, which no Python name can collide with."""
        key = f"<type>{name}"
        return (local or {}).get(key) or self.types.get(key)

    def _resolve(self, node: ast.expr, local: Optional[Dict[str, str]]) -> Optional[str]:
        """Absolute dotted name of a ``Name``/``Attribute`` chain rooted at an import or a definition."""
        return dotted_name(node, lambda name: (local or {}).get(name) or self.names.get(name))


def dotted_name(node: ast.AST, root_of: Callable[[str], Optional[str]]) -> Optional[str]:
    """``a.b.c`` with ``a`` replaced by ``root_of('a')`` (an import's absolute name, a definition's), or ``None``
    when the chain does not start at a plain name ``root_of`` knows."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    root = root_of(node.id)
    return ".".join([root, *reversed(parts)]) if root else None


#: Nodes that hold no call: the walk in ``_calls_in`` does not queue them (most of an expression's nodes).
_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


_CONTAINERS = (ast.Dict, ast.List, ast.Tuple, ast.Set)


def _calls_in(node: ast.AST, containers: Optional[List[ast.AST]] = None) -> List[ast.Call]:
    """The calls in ``node`` and below, in ``ast.walk``'s breadth-first order (the order calls are recorded in),
    at half its cost: no generator per node, and leaves are never queued. ``containers`` collects the dict,
    list, tuple and set displays met on the way (a table of functions is a reference to each)."""
    found: List[Any] = []  # the calls (a kind compared by ``type``, which mypy does not narrow on)
    todo = deque((node,))
    pop, push, extend = todo.popleft, todo.append, todo.extend
    while todo:
        sub = pop()
        kind = type(sub)
        if kind is ast.Call:
            found.append(sub)
        elif containers is not None and kind in _CONTAINERS:
            containers.append(sub)
        for name in kind._fields:
            value = getattr(sub, name, None)
            if type(value) is list:
                extend(item for item in value if isinstance(item, ast.AST) and not isinstance(item, _LEAVES))
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
                push(value)
    return found


def _named(name: Optional[str]) -> Optional[NamedTarget]:
    return NamedTarget(name) if name else None


def _alias_values(value: ast.expr) -> List[ast.expr]:
    """The names an alias may stand for: the value itself, ``partial``'s function, both sides of ``a if c else b``."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return [value]
    if isinstance(value, ast.IfExp):
        return _alias_values(value.body) + _alias_values(value.orelse)
    if isinstance(value, ast.Call) and value.args:
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "partial":
            return _alias_values(value.args[0])
    return []


#: What holds a block of statements in a list field: ``except`` handlers, and ``case`` blocks (Python 3.10+).
_HANDLERS: Tuple[Any, ...] = tuple(getattr(ast, name) for name in ("ExceptHandler", "match_case") if hasattr(ast, name))


#: a command-line group's decorators that add a command to it (click's and Typer's ``@group.command()``)
_GROUP_DECORATORS = frozenset({"command", "group"})


def _command_group(root: ast.expr) -> Optional[str]:
    """The module-level name in ``@name.command(...)`` / ``@name.group(...)``: a command group's, or ``None``."""
    if isinstance(root, ast.Attribute) and root.attr in _GROUP_DECORATORS and isinstance(root.value, ast.Name):
        return root.value.id
    return None


def _is_main_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    test = stmt.test
    sides = [test.left, *test.comparators]
    return (len(sides) == 2 and any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


#: Roots whose names are never repo code; a reference to them is not a call-graph edge.
_EXTERNAL_ROOTS = frozenset({"torch", "numpy", "np", "os", "sys", "math", "functools", "itertools", "typing",
                             "collections", "logging", "json", "re", "time", "random", "argparse"})


def _external(name: str) -> bool:
    return name.split(".")[0] in _EXTERNAL_ROOTS




#: what a per-device family's other members are named for: another accelerator, or the host
_FAMILY_DEVICES = ACCELERATORS | {"cpu"}


def cuda_family_members(names: Sequence[str]) -> FrozenSet[str]:
    """The functions named for CUDA that have a sibling named for another device or the CPU (``dtw_cuda`` beside
    ``dtw_cpu``): CUDA's implementation among per-device ones, run only where tensors are CUDA's."""
    present = set(names)
    return frozenset(name for name in names if swapped_siblings(name, ("cuda",), _FAMILY_DEVICES, present.__contains__))


def _test_line(stmt: ast.If, local: Optional[Dict[str, str]]) -> int:
    """The line a CUDA test is written on: the binding of the flag it reads (``is_cuda = acts.is_cuda`` before ``if
    is_cuda:``, where the test's finding is), else its ``if``."""
    test = stmt.test.operand if isinstance(stmt.test, ast.UnaryOp) else stmt.test
    bound = (local or {}).get(_CUDA_FLAG + test.id) if isinstance(test, ast.Name) else None
    return int(bound) if bound else stmt.lineno


def tests_a_cuda_tensor(test: ast.expr) -> bool:
    """``x.is_cuda``, ``x.device.type == "cuda"``, ``"cuda" in str(x.device)`` (alone or in an ``and``): true only
    where the tensor is CUDA's, as ``resolve/guards.cuda_test`` reads a device-type test."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(tests_a_cuda_tensor(v) for v in test.values)
    if isinstance(test, ast.Attribute):
        return test.attr == "is_cuda"
    if isinstance(test, ast.Compare) and all(isinstance(op, (ast.Eq, ast.In, ast.Is)) for op in test.ops):
        return _names_cuda_string(test)
    return False


_IS_AVAILABLE = "torch.cuda.is_available"
#: keys of a function's local names (``<type>x`` holds what ``x`` was built from): ``<cuda>f``, the line of the CUDA
#: test the alias ``f`` is bound under; ``<flag>x``, ``x`` is bound to a CUDA test
_CUDA_BOUND, _CUDA_FLAG = "<cuda>", "<flag>"


def _names_cuda_string(test: ast.Compare) -> bool:
    return any(isinstance(side, ast.Constant) and isinstance(side.value, str)
               and (side.value == "cuda" or side.value.startswith("cuda:")) for side in (test.left, *test.comparators))


def _leaves(body: List[ast.stmt]) -> bool:
    """Whether a block always leaves where it ends (``return``, ``raise``, ``continue``, ``break``)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


#: what loads a module by a name computed at run time
_NAME_LOADERS = frozenset({"importlib.import_module", "__import__"})
#: what loads a compiled library of ``torch.ops`` operators
_OPS_LOADER = "torch.ops.load_library"


def _relative_by_name(call: ast.Call) -> bool:
    """``importlib.import_module(".%s" % name, __name__)``, ``import_module(f".{name}", package=__package__)``: a
    module of the caller's own package, by a name computed at run time."""
    if not call.args or isinstance(call.args[0], ast.Constant):
        return False
    package = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "package"),
                                                          None)
    return isinstance(package, ast.Name) and package.id in ("__name__", "__package__")


def _own_package_by_name(call: ast.Call, package: str) -> bool:
    """``importlib.import_module(f'basicsr.models.{file_name}')`` in ``basicsr/models/__init__.py`` (BasicSR's
    registries import every ``*_model.py`` so): a module of the caller's own package, spelled absolutely, or as
    a script beside its top package spells it (Depth-Anything's ``metric_depth/zoedepth/trainers/builder.py``
    imports ``f"zoedepth.trainers.{config.trainer}_trainer"``, run from ``metric_depth/``)."""
    if not call.args or not package:
        return False
    name = call.args[0]
    if isinstance(name, ast.JoinedStr) and len(name.values) > 1:
        head: Optional[ast.expr] = name.values[0]
    elif isinstance(name, ast.BinOp) and isinstance(name.op, (ast.Add, ast.Mod)):
        head = name.left
    else:
        return False
    if not (isinstance(head, ast.Constant) and isinstance(head.value, str)):
        return False
    spelled, dot, _ = head.value.rpartition(".")
    return bool(dot and spelled) and (package == spelled or package.endswith("." + spelled))


def _makes_imports_optional(stmt: ast.stmt) -> bool:
    """An ``if`` that tests whether a library is installed, or a ``try`` whose ``except ImportError`` goes on:
    the imports in its body are made only where they work."""
    if isinstance(stmt, ast.If):
        return _availability(stmt.test)
    if isinstance(stmt, ast.Try):
        for handler in stmt.handlers:
            types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            caught = handler.type is None or any(
                isinstance(t, (ast.Name, ast.Attribute)) and (t.id if isinstance(t, ast.Name) else t.attr)
                in IMPORT_ERRORS for t in types)
            raises = any(isinstance(s, ast.Raise) for s in handler.body)
            if caught and not raises:
                return True
    return False


def _availability(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_availability(v) for v in test.values)
    node = test.func if isinstance(test, ast.Call) else test
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return names_availability(name)  # ``is_bnb_available()``, ``HAS_APEX``: as the libcst reader reads them


#: the words of a switch that turns profiling on: the block it decides times or annotates the run, by choice
_PROFILING_WORDS = frozenset({"prof", "profile", "profiling", "profiler", "nvtx"})


#: inference engines an exported model runs on (NVIDIA's TensorRT and its torch bridges, ONNX Runtime, OpenVINO,
#: Triton Inference Server's client): a block that loads one serves an exported model, not the training run
_ENGINES = frozenset({"tensorrt", "torch2trt", "torch_tensorrt", "onnxruntime", "openvino", "tritonclient"})


#: calls that make a module's names at run time (``globals()[name] = cls``, ``exec(code)``)
_NAME_MAKERS = frozenset({"globals", "locals", "vars", "exec"})


def _is_sys_modules(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name) \
        and node.value.id == "sys"


def _module_names(tree: ast.Module, reader: "_OutlineReader") -> ModuleNames:
    """``Outline.names``: what the module binds at its top level (in any block there, or by ``global``), its
    ``__all__``, its star imports and its unguarded top-level imports."""
    bound: Set[str] = set(reader.global_names)
    exports: Optional[Tuple[str, ...]] = None
    changes_all = reader.changes_all  # ``__all__.append(...)``, ``__all__ += [...]``: more than it is written as
    stars: List[str] = []
    imports: List[Tuple[str, Tuple[str, ...]]] = []
    dynamic = reader.makes_names
    stack: List[Tuple[ast.stmt, bool]] = [(stmt, True) for stmt in tree.body]  # (statement, at the very top)
    while stack:
        node, top = stack.pop()
        bound.update(_names_bound_by(node))
        dynamic |= isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getattr__"
        base = reader._from_module(node) if isinstance(node, ast.ImportFrom) else None
        if base is not None and node.names[0].name == "*":  # type: ignore[attr-defined]
            stars.append(base)
        elif top and base is not None and node.module != "__future__":  # type: ignore[attr-defined]
            imports.append((base, tuple(a.name for a in node.names)))  # type: ignore[attr-defined]
        elif top and isinstance(node, ast.Import):
            imports.extend((a.name, ()) for a in node.names)
        if isinstance(node, ast.Assign) and exports is None and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exports = _literal_strings(node.value)
        changes_all |= isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
            and node.target.id == "__all__"
        stack.extend((inner, False) for inner in _inner_statements(node, bound))
    return ModuleNames(bound=tuple(sorted(bound)), exports=None if changes_all else exports, stars=tuple(stars),
                       imports=tuple(imports), dynamic=dynamic or "__path__" in bound)


def _names_bound_by(node: ast.stmt) -> Set[str]:
    """The names a statement binds in the scope it sits in (not in the blocks it holds)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
    targets: List[ast.expr] = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)) else [
        i.optional_vars for i in node.items if i.optional_vars is not None] if isinstance(
        node, (ast.With, ast.AsyncWith)) else []
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


def _inner_statements(node: ast.stmt, bound: Set[str]) -> List[ast.stmt]:
    """The statements of the blocks a module-level statement holds (not a definition's body); an ``except``'s
    ``as`` name and a ``case``'s capture are added to ``bound`` on the way."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    found: List[ast.stmt] = []
    for block in ("body", "orelse", "finalbody", "handlers", "cases"):
        for inner in getattr(node, block, ()):
            if isinstance(inner, ast.ExceptHandler):
                bound.update([inner.name] if inner.name else [])
                found.extend(inner.body)
            elif isinstance(inner, ast.match_case):
                bound.update(n.name for n in ast.walk(inner.pattern) if isinstance(n, ast.MatchAs) and n.name)
                found.extend(inner.body)
            elif isinstance(inner, ast.stmt):
                found.append(inner)
    return found


def _literal_strings(value: ast.expr) -> Optional[Tuple[str, ...]]:
    """A list or tuple display of string constants, else ``None``."""
    if isinstance(value, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                        for e in value.elts):
        return tuple(e.value for e in value.elts)  # type: ignore[attr-defined]
    return None


def _refuses(stmt: ast.stmt) -> bool:
    """``raise NotImplementedError`` / ``raise NotImplementedError("...")``: the block says it is no way to run."""
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    raised = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def _loads_an_engine(body: Sequence[ast.stmt]) -> bool:
    """Whether a block imports an inference engine (``from torch2trt import TRTModule``) at its top level."""
    for stmt in body:
        names = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else \
            [stmt.module] if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level else []
        if any(name.split(".", 1)[0] in _ENGINES for name in names):
            return True
    return False


def _asks_to_profile(test: ast.expr) -> bool:
    """Whether a test reads a profiling switch (``args.prof >= 0``, ``self.profiler is not None``, ``use_nvtx``,
    a key of a configuration: ``args.get('profile', False)``, ``cfg['use_profiler']``)."""
    for node in ast.walk(test):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) \
            else node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
            and node.value.isidentifier() else None
        if name is not None and _PROFILING_WORDS & set(name.lower().split("_")):
            return True
    return False
