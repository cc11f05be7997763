"""Name binding: what each name of a module, class body or function is bound to, and how a dotted
expression resolves to a qualified name through imports, aliases and loader calls."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst
import libcst.matchers as matchers

from .dotted import dotted
from .guards import asks_for_a_missing_library, availability_test, catches, goes_on, names_availability
from .modules import absolute_import, interesting, is_torch
from .strings import string_value
from .vocabulary import Vocabulary

#: Root of pseudo-module names bound by loader calls (see ``Scopes._loaded_module``).
LOADED = "<loaded>"
_MODULE_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError"})


#: The names a module gets through ``from .imports import *`` from one of the project's own (fastai's
#: ``from .torch_imports import *``, nbdev's style), for the conventional aliases of torch's modules: a module
#: that uses ``torch``, ``nn`` or ``F`` without binding them has them from there (or fails with a NameError).
STAR_ALIASES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional"}


@dataclass
class Binding:
    """What a name is bound to in one scope."""

    imports: Dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    guarded: Set[str] = field(default_factory=set)  # names imported under try/except ImportError
    #: the local names those imports bind (kept where the handler binds a fallback: ``triton = None``)
    guarded_locals: Set[str] = field(default_factory=set)
    #: of ``guarded``, those imported under an availability test (``if is_apex_available():``) that no ``else``
    #: binds again: where the library is missing the name is unbound, so a use outside such a test raises there
    test_guarded: Set[str] = field(default_factory=set)
    #: after ``from .imports import *`` from the project's own package: what a name nothing else binds stands for
    star_aliases: Mapping[str, str] = field(default_factory=dict)
    values: Dict[str, List[cst.BaseExpression]] = field(default_factory=dict)
    params: Dict[str, Optional[cst.BaseExpression]] = field(default_factory=dict)
    annotations: Dict[str, cst.BaseExpression] = field(default_factory=dict)  # parameter -> its annotation
    defs: Dict[str, str] = field(default_factory=dict)  # functions and classes defined here -> qualname
    #: of ``imports``, the names bound by an assignment to an API (``get_device = torch.cuda.current_device``) ->
    #: the value bound (of alternatives in branches, the one ``imports`` keeps)
    alias_values: Dict[str, cst.BaseExpression] = field(default_factory=dict)


@dataclass
class Scope:
    kind: str  # module | class | function
    name: str
    binding: Binding
    class_name: Optional[str] = None  # for methods: the enclosing class


@dataclass
class ClassInfo:
    qualname: str
    bases: Tuple[str, ...]
    attrs: Dict[str, List[cst.BaseExpression]] = field(default_factory=dict)  # ``self.x = ...`` values
    #: of ``attrs``' values, the names that are a parameter of the method assigning them -> that parameter's
    #: default (``None``: none), keyed by the name node's id: another method reads them in its own scope
    from_params: Dict[int, Optional[cst.BaseExpression]] = field(default_factory=dict)
    methods: FrozenSet[str] = frozenset()  # the names its body defines with ``def``

    def defines(self, scopes: "Scopes", name: str, depth: int = 0) -> bool:
        """Whether the class, or a base of it this module defines, has its own method ``name``."""
        if name in self.methods:
            return True
        own = scopes.module_name + "."
        return depth < 10 and any(
            base.startswith(own) and base[len(own):] in scopes.classes
            and scopes.classes[base[len(own):]].defines(scopes, name, depth + 1) for base in self.bases)


class Scopes:
    """The stack of scopes open at the visitor's position, and the module's classes."""

    def __init__(self, module_name: str, is_package: bool, vocabulary: Vocabulary) -> None:
        self.module_name = module_name
        self.is_package = is_package
        self.vocabulary = vocabulary
        self.stack: List[Scope] = []
        self.classes: Dict[str, ClassInfo] = {}
        self.guard_depth = 0  # inside how many ``try: ... except ImportError`` blocks

    # ------------------------------------------------------------------------------ entering

    def enter(self, kind: str, name: str, body: Sequence[cst.CSTNode], binding: Optional[Binding] = None,
              class_info: Optional[ClassInfo] = None) -> Scope:
        """Open a scope. A module's names resolve against its own bindings as they are made; a class or
        function body's against the enclosing scopes."""
        binding = binding or Binding()
        enclosing = self.stack[-1] if self.stack else None
        class_name = name if kind == "class" else (
            enclosing.class_name if enclosing is not None and enclosing.kind == "class" else None)
        scope = Scope(kind, name, binding, class_name)
        if kind == "module":
            self.stack.append(scope)
        # ``def is_bnb_4bit_available(): import bitsandbytes``: what a probe imports is there only where installed
        self.collect(body, binding, guarded=kind == "function" and names_availability(name), class_info=class_info)
        if kind != "module":
            self.stack.append(scope)
        return scope

    def leave(self) -> None:
        self.stack.pop()

    @property
    def current(self) -> Scope:
        return self.stack[-1]

    def current_class(self) -> Optional[ClassInfo]:
        name = self.stack[-1].class_name if self.stack else None
        return self.classes.get(name) if name else None

    def qualname(self, name: str) -> str:
        return ".".join([self.module_name, *(s.name for s in self.stack[1:]), name])

    def scope_name(self) -> str:
        names = [s.name for s in self.stack[1:]]
        return ".".join([self.module_name, *names]) if names else "<module>"

    def is_guarded(self, api: str) -> bool:
        """Whether ``api`` comes from an import under ``try: ... except ImportError``."""
        return any(api == g or api.startswith(g + ".") for s in self.stack for g in s.binding.guarded)

    def used_where_imported(self, api: str) -> bool:
        """Whether a use of ``api`` runs only where its optional import worked: an import under ``try`` with a
        way on, or one under an availability test used inside such a test too (``guard_depth``); a name only an
        ``if is_x_available():`` imports, used outside any such test, is unbound where the library is missing."""
        if not self.is_guarded(api):
            return False
        return self.guard_depth > 0 or not any(api == g or api.startswith(g + ".") for s in self.stack
                                               for g in s.binding.test_guarded)

    def from_module(self, node: cst.ImportFrom) -> Optional[str]:
        return absolute_import(self.module_name, self.is_package, len(node.relative),
                               dotted(node.module) if node.module is not None else None)

    # ------------------------------------------------------------------------------ resolution

    def lookup(self, name: str) -> Tuple[Optional[str], Optional[Binding]]:
        """(qualified import or definition, binding that holds a value) for a bare name."""
        for index in range(len(self.stack) - 1, -1, -1):
            scope = self.stack[index]
            if scope.kind == "class" and index != len(self.stack) - 1:
                continue  # class bodies do not enclose their methods
            binding = scope.binding
            if name in binding.imports:
                return binding.imports[name], None
            if name in binding.values or name in binding.params:
                return None, binding
            if name in binding.defs:
                return (f"{self.module_name}.{name}" if scope.kind == "module" else None), None
        if self.stack and name in self.stack[0].binding.star_aliases:  # bound by nothing here: the star import's
            return self.stack[0].binding.star_aliases[name], None
        return None, None

    def alias_value(self, name: str) -> Optional[cst.BaseExpression]:
        """The API value a bare name was bound to by an assignment (``Binding.alias_values``), where ``lookup``
        finds it bound so."""
        for index in range(len(self.stack) - 1, -1, -1):
            scope = self.stack[index]
            if scope.kind == "class" and index != len(self.stack) - 1:
                continue
            binding = scope.binding
            if name in binding.imports:
                return binding.alias_values.get(name)
            if name in binding.values or name in binding.params or name in binding.defs:
                return None
        return None

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        # ``type(...) is``: libcst's node types are ABCs, an ``isinstance`` that fails costs a call in Python
        if type(node) is cst.Name:
            return self.lookup(node.value)[0]
        if type(node) is cst.Attribute:
            base = self.qualify(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    # ------------------------------------------------------------------------------ binding

    def collect(self, body: Sequence[cst.CSTNode], binding: Binding, guarded: bool,
                class_info: Optional[ClassInfo]) -> None:
        """Bind names from a statement list (not descending into nested functions or classes)."""
        for stmt in body:
            if isinstance(stmt, cst.If) and asks_for_a_missing_library(stmt):
                guarded = True  # after ``if not is_bnb_available(): return``, the rest runs where it is installed
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._bind_small(small, binding, guarded, class_info)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                binding.defs[stmt.name.value] = stmt.name.value
                binding.values.pop(stmt.name.value, None)
            else:
                self._collect_compound(stmt, binding, guarded, class_info)

    def _collect_compound(self, stmt: cst.CSTNode, binding: Binding, guarded: bool,
                          class_info: Optional[ClassInfo]) -> None:
        """``collect`` for a compound statement: its blocks bind in the scope they are in."""
        if isinstance(stmt, cst.Try):
            optional = catches_import_error(stmt)
            before = set(binding.guarded)
            self.collect(stmt.body.body, binding, guarded or optional, class_info)
            if optional and not guarded and not any(_binds(handler) for handler in stmt.handlers):
                # ``except ImportError: logging.error("xformers not found!")`` (FastChat's and LLaVA's attention
                # patches): no fallback and no flag, so where the import failed the name is unbound, and a use
                # outside an availability test raises there, as after an ``if is_x_available():`` import
                binding.test_guarded.update(binding.guarded - before)
            for handler in stmt.handlers:
                self.collect(handler.body.body, binding, guarded, class_info)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self.collect(extra.body.body, binding, guarded, class_info)
        elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With)):
            optional = isinstance(stmt, cst.If) and availability_test(stmt.test)  # ``if is_bnb_available():``
            before = set(binding.guarded)
            self.collect(_block(stmt), binding, guarded or optional, class_info)
            by_test = binding.guarded - before if optional and not guarded else set()
            orelse = getattr(stmt, "orelse", None)
            while orelse is not None:
                self.collect(_block(orelse), binding, guarded, class_info)
                orelse = getattr(orelse, "orelse", None)
            if by_test and getattr(stmt, "orelse", None) is None:  # (an ``else`` may bind a fallback)
                binding.test_guarded.update(by_test)
            if isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name):
                binding.values.setdefault(stmt.target.value, [])
            if isinstance(stmt, cst.With):
                for item in stmt.items:
                    if item.asname is not None and isinstance(item.asname.name, cst.Name):
                        binding.values.setdefault(item.asname.name.value, []).append(item.item)

    def _bind_small(self, small: cst.CSTNode, binding: Binding, guarded: bool,
                    class_info: Optional[ClassInfo]) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                full = dotted(alias.name)
                local = alias.asname.name.value if alias.asname is not None and isinstance(
                    alias.asname.name, cst.Name) else full.split(".")[0]
                self._bind_import(binding, local, full if alias.asname is not None else local, guarded, full)
        elif isinstance(small, cst.ImportFrom):
            base = self.from_module(small)
            if base is not None and isinstance(small.names, cst.ImportStar) and self._own_module(base):
                binding.star_aliases = STAR_ALIASES
            if base is None or isinstance(small.names, cst.ImportStar):
                return
            for alias in small.names:
                name = dotted(alias.name)
                local = alias.asname.name.value if alias.asname is not None and isinstance(
                    alias.asname.name, cst.Name) else name
                target = f"{base}.{name}" if base else name
                self._bind_import(binding, local, target, guarded, target)
        elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and small.value is not None:
            self._bind_assignment(small, binding, class_info)

    def _own_module(self, base: str) -> bool:
        """Whether ``base`` is a module of the project's own package (the scanned module's first name)."""
        return base.split(".", 1)[0] == self.module_name.split(".", 1)[0] and not is_torch(base)

    @staticmethod
    def _bind_import(binding: Binding, local: str, target: str, guarded: bool, guarded_name: str) -> None:
        binding.imports[local] = target
        if guarded:
            binding.guarded.add(guarded_name)
            binding.guarded_locals.add(local)
        binding.values.pop(local, None)
        binding.alias_values.pop(local, None)

    def _bind_assignment(self, small, binding: Binding, class_info: Optional[ClassInfo]) -> None:
        value = small.value
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        module = self._loaded_extension(value) or self._loaded_module(value)
        alias = self._alias_of(value, binding)
        augmented = isinstance(small, cst.AugAssign)
        for target in targets:
            if isinstance(target, cst.Name) and module:
                binding.imports[target.value] = module  # a module object returned by a loader call
                binding.values.pop(target.value, None)
            elif isinstance(target, cst.Name) and alias and not augmented:
                binding.imports[target.value] = _preferred_alias(binding.imports.get(target.value), alias)
                binding.values.pop(target.value, None)
                if binding.imports[target.value] == alias:
                    binding.alias_values[target.value] = value
            elif isinstance(target, cst.Name) and not augmented:
                binding.values.setdefault(target.value, []).append(value)
                binding.imports.pop(target.value, None)
            elif (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                  and target.value.value == "self" and class_info is not None):
                class_info.attrs.setdefault(target.attr.value, []).append(value)
                if isinstance(value, cst.Name) and value.value in binding.params \
                        and value.value not in binding.values:
                    class_info.from_params[id(value)] = binding.params[value.value]
            elif isinstance(target, (cst.Tuple, cst.List)):
                known = dict(unpacked_pairs(target, value))
                for element in target.elements:
                    if isinstance(element.value, cst.Name):
                        name = element.value.value
                        if name in known and not augmented:  # ``..., is_cuda = *q.shape, q.is_cuda``
                            binding.values.setdefault(name, []).append(known[name])
                        else:
                            binding.values.setdefault(name, [])

    def _loaded_extension(self, value: cst.BaseExpression) -> Optional[str]:
        """``load(name='fused', ...)`` returns the compiled module ``fused``: bind it like an import."""
        if not isinstance(value, cst.Call) or not self.stack:
            return None
        if self.qualify(value.func) not in self.vocabulary.module_loaders:
            return None
        for index, arg in enumerate(value.args):
            if (arg.keyword is not None and arg.keyword.value == "name") or (arg.keyword is None and index == 0):
                name = string_value(arg.value) if isinstance(arg.value, cst.SimpleString) else None
                if isinstance(name, str):
                    return name
        return None

    def _alias_of(self, value: cst.BaseExpression, binding: Binding) -> Optional[str]:
        """``extension = CUDAExtension``: a name bound to an imported class or function is an alias of it."""
        if not isinstance(value, (cst.Name, cst.Attribute)) or not self.stack:
            return None
        if isinstance(value, cst.Name) and value.value in binding.imports:
            return binding.imports[value.value]
        qual = self.qualify(value)
        return qual if qual is not None and interesting(qual) else None

    def _loaded_module(self, value: cst.BaseExpression) -> Optional[str]:
        """``ext = ext_loader.load_ext('_ext', [...])``: a repo helper that returns a compiled module by name.

        Bound as the pseudo-module ``<loaded>._ext``; the cross-file stage joins it to an extension whose
        name ends in ``_ext``, and anything else it never matches.
        """
        if not isinstance(value, cst.Call) or not value.args or len(self.stack) != 1:
            return None
        callee = self.qualify(value.func)
        if callee is None or is_torch(callee) or not interesting(callee) \
                or callee.split(".")[0] in self.vocabulary.library_roots:
            return None
        first = value.args[0].value
        if value.args[0].keyword is None and isinstance(first, cst.SimpleString):
            name = string_value(first)
            if isinstance(name, str) and _MODULE_NAME.match(name):
                return f"{LOADED}.{name}"
        return None


class _Required:
    """The names a module refuses to go on without: ``if flash_attn_func is None: raise ImportError(...)``, ``if
    amp_type == APEX and not apex_available: raise RuntimeError(...)``; and per optional ``try``, the flags it
    binds and the imports it makes."""

    def __init__(self) -> None:
        self.required: Set[str] = set()
        self.flags: Dict[str, Set[str]] = {}  # a flag a try/except ImportError binds -> the names it imports
        #: the ``if`` statements inside an optional ``try``'s body: they run only where its imports worked
        self._imported: Set[int] = set()

    def read(self, module: cst.Module) -> None:
        # statements only: an ``if`` or a ``try`` is never inside an expression (a lambda's body is one)
        for stmt in compound_statements(module.body):
            if isinstance(stmt, cst.If):
                self.visit_If(stmt)
            elif isinstance(stmt, cst.Try):
                self.visit_Try(stmt)

    def visit_If(self, node: cst.If) -> None:
        if id(node) in self._imported:
            # xtuner's phi3 dispatch: ``if not _flash_supports_window_size: raise ValueError(...)`` in the ``try``
            # itself raises where flash_attn imported but is too old, never where it is missing
            return
        body = node.body  # ``if x is None:`` then a raise on its own line, or ``if x is None: raise ...``
        last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
        smalls = last.body if isinstance(last, cst.SimpleStatementLine) else \
            body.body if isinstance(body, cst.SimpleStatementSuite) else ()
        if any(isinstance(small, cst.Raise) for small in smalls):
            self.required.update(_missing(node.test))

    def visit_Try(self, node: cst.Try) -> None:
        if not catches_import_error(node):
            return
        self._imported.update(id(n) for n in _ifs_in(node.body))
        imported: Set[str] = set()
        flags: Set[str] = set()
        for stmt in [*node.body.body, *(s for h in node.handlers for s in h.body.body)]:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    imported.update((a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name)
                                     else dotted(a.name).split(".")[0]) for a in small.names)
                elif isinstance(small, cst.Assign):
                    flags.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
        for flag in flags - imported:
            self.flags.setdefault(flag, set()).update(imported)


def compound_statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.BaseCompoundStatement]:
    """Every compound statement of a block and of the blocks inside it (functions' and classes' too), each before
    those it holds, in source order: what libcst's ``Module.visit`` reaches when it skips expressions, without
    rebuilding the tree as it goes."""
    stack: List[cst.CSTNode] = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if not isinstance(stmt, cst.BaseCompoundStatement):
            continue
        yield stmt
        clauses: List[cst.CSTNode] = [stmt.body] if hasattr(stmt, "body") else []
        clauses += getattr(stmt, "handlers", ())
        clauses += [c.body for c in getattr(stmt, "cases", ())]
        for extra in (getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)):
            if extra is not None:
                clauses.append(extra)
        inner: List[cst.CSTNode] = []
        for clause in clauses:
            if isinstance(clause, cst.If):  # an ``elif``
                inner.append(clause)
            else:
                block = clause.body if isinstance(clause, (cst.ExceptHandler, cst.ExceptStarHandler, cst.Else,
                                                            cst.Finally)) else clause
                inner.extend(block.body if isinstance(block, cst.IndentedBlock) else ())
        stack.extend(reversed(inner))


def _ifs_in(body: cst.BaseSuite) -> List[cst.If]:
    """The ``if`` statements of a block, those nested in its compound statements too (not in functions)."""
    found: List[cst.If] = []
    stack: List[cst.CSTNode] = list(body.body) if isinstance(body, cst.IndentedBlock) else []
    while stack:
        node = stack.pop()
        if isinstance(node, cst.If):
            found.append(node)
            if node.orelse is not None:  # an ``elif`` (an ``If``) or an ``else``
                stack.append(node.orelse)
        if isinstance(node, (cst.If, cst.Else, cst.For, cst.While, cst.With, cst.Try)) \
                and isinstance(node.body, cst.IndentedBlock):
            stack.extend(node.body.body)
    return found


def _missing(test: cst.BaseExpression) -> List[str]:
    """The names a test is true for when they are missing: ``X is None``, ``not X``, alone or in an ``and``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_missing(test.left), *_missing(test.right)]
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression,
                                                                                                  cst.Name):
        return [test.expression.value]
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1 \
            and isinstance(test.comparisons[0].operator, cst.Is) \
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None":
        return [test.left.value]
    return []


def required_imports(module: cst.Module, binding: Binding) -> None:
    """Take out of ``binding.guarded`` the optional imports the module raises without (fla's attention layers:
    ``flash_attn_func = None`` in the handler, ``raise ImportError`` where it is needed): where the library is
    missing the code stops, as an unguarded import does; there is no fallback to run."""
    reader = _Required()
    reader.read(module)
    names = set(reader.required)
    for flag in reader.required & set(reader.flags):
        names.update(reader.flags[flag])
    # the guarded import a name stands for (the handler's ``flash_attn_func = None`` rebinds the name itself), and
    # what the same package's import bound beside it
    tops = {g.split(".")[0] for g in binding.guarded for name in names if g == name or g.endswith("." + name)}
    binding.guarded.difference_update({g for g in binding.guarded if g.split(".")[0] in tops})


def catches_import_error(node: cst.Try) -> bool:
    """Whether ``node`` makes its imports optional: a handler catches ImportError and goes on (a fallback), not
    one that only raises again (``except ImportError: raise ImportError("install apex")``)."""
    for handler in node.handlers:
        if handler.type is None or catches(handler, IMPORT_ERRORS):
            return goes_on(handler)
    return False


#: what a launch raises where its program is missing or fails (``subprocess.run(["nvcc"])`` on a machine without
#: it: FileNotFoundError, an OSError; ``check=True``: CalledProcessError)
_PROGRAM_ERRORS = frozenset({"OSError", "FileNotFoundError", "EnvironmentError", "IOError", "CalledProcessError",
                             "SubprocessError", "Exception", "BaseException"})


def probes_a_program(node: cst.Try) -> bool:
    """Whether a program launched in ``node``'s body may be missing: a handler catches what the launch raises
    then and goes on (a probe: ``except FileNotFoundError: return False``), not one that raises again."""
    return any((handler.type is None or catches(handler, _PROGRAM_ERRORS)) and goes_on(handler)
               for handler in node.handlers)


def leaves_undefined(node: cst.Try) -> bool:
    """Whether a function or class the ``try`` body defines is bound by none of its handlers: where the body
    fails, what imports that name fails with it (no fallback for it)."""
    defined = {s.name.value for s in _block(node) if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    if not defined:
        return False
    bound: Set[str] = set()
    for handler in node.handlers:
        for stmt in _block(handler):
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                bound.add(stmt.name.value)
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                for target in small.targets if isinstance(small, cst.Assign) else ():
                    if isinstance(target.target, cst.Name):
                        bound.add(target.target.value)
    return not defined <= bound


#: a statement that binds a name where it stands: an assignment, an import, a ``global``, a definition
_BINDS = matchers.OneOf(matchers.Assign(), matchers.AnnAssign(), matchers.AugAssign(), matchers.Import(),
                        matchers.ImportFrom(), matchers.Global(), matchers.FunctionDef(), matchers.ClassDef())


def _binds(handler: cst.ExceptHandler) -> bool:
    """Whether an ``except`` block binds a name, at its top or in a block it opens: a fallback (``amp = None``,
    ``from .fallback import f``, a ``def``), or a flag the code tests later (``HAS_APEX = False``)."""
    return bool(matchers.findall(handler.body, _BINDS))


def _block(stmt: Any) -> Sequence[cst.CSTNode]:  # a compound statement (``if``, ``with``, ``for``...)
    return stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()


def _preferred_alias(previous: Optional[str], new: str) -> str:
    """Of alternatives bound to one name in different branches, keep the CUDA one: that is the path to migrate."""
    if previous is None or "CUDA" in new or "cuda" in new.split("."):
        return new
    return previous


def unpacked_pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> List[Tuple[str, cst.BaseExpression]]:
    """The plain names a tuple unpacked from a tuple binds, each with its value, paired from the right up to a
    starred element (``a, b = *shape, flag``: ``b`` is ``flag``, ``a`` is not known)."""
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
        return []
    pairs: List[Tuple[str, cst.BaseExpression]] = []
    for left, right in zip(reversed(target.elements), reversed(value.elements)):
        if isinstance(left, cst.StarredElement) or isinstance(right, cst.StarredElement):
            break
        if isinstance(left.value, cst.Name):
            pairs.append((left.value.value, right.value))
    return pairs
