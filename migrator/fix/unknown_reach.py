"""Unknown reach is not safe reach: a flipped guard holds when what it decides calls code it cannot follow (issue 43).

What it does:
    ``protocols.hold`` flips a guard only when the branches it decides keep no call that fails on the target.
    It knows the calls it can see: the file's own, and the repository callables that keep one
    (``protocols.reaching``). This module says which other calls in those branches lead where the reading
    stops, so that the flip holds there too, with the reason. A call is followed through the repository, by its
    imports (``from pkg.modeling import build_model`` through each package ``__init__``'s re-exports), into
    functions, methods (``self.helper(...)``) and classes (their ``__init__``, and ``forward`` / ``__call__``,
    which calling the object runs), of this file or another, up to ``DEPTH`` calls deep. Its reach is unknown
    when, on the way, it:

    - calls what is chosen at run time: a callee that is itself a call's result or an item
      (``REGISTRY.get(name)(cfg)``: a model built from a configuration, ``self.poolers[level](x)``), except the
      class of a value that exists already (``type(data)(items)``: a container rebuilt);
    - constructs, in a class's ``__init__``, a repository class of another file that defines ``forward`` or
      ``__call__`` (a submodule, whose kernels run only once the object is called);
    - goes deeper than ``DEPTH`` repository calls.

Why:
    detectron2's ``test_roi_pooler`` hands the flipped device to a helper of its class, which builds
    ``ROIPooler``; the pooler's submodules, made in its constructor, run torchvision's and the extension's
    kernels, which no finding of the test file names. Flipped, the skipped CUDA test ran on the NPU into them.
    Its Caffe2 export test builds a model from a configuration (``build_model(cfg)``: the registry picks the
    class). Neither reach is known, so neither is safe.

What it does not follow: calls on a value of unknown type (``model.train()``, ``x.to(device)``): the findings
judge those where they are written; a function passed in and called (``fn(x)``).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple, Union

from ..discover import read_source
from ..sources.python import decode_source, parse_ast
from ..resolve.modules import absolute_import, module_name_for

#: how many repository calls deep a decided branch's calls are followed before its reach counts as unknown
DEPTH = 4
#: how many calls deep in all (within files too) before the reach counts as unknown
CHAIN = 40

_Callable = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]
#: a name bound in a module: (the repository file it is defined in, its name there), or ``None`` outside it
Found = Optional[Tuple[str, str]]


class _Module:
    """One repository file's top-level definitions and imports."""

    def __init__(self, rel: str, tree: ast.Module) -> None:
        self.rel = rel
        self.defined: Dict[str, _Callable] = {}
        self.names: Dict[str, Tuple[str, Optional[str]]] = {}  # local -> (module, name or None for a module)
        self.stars: List[str] = []
        module = module_name_for(rel)
        package = rel.endswith("/__init__.py") or rel == "__init__.py"
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined[node.name] = node
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.names[alias.asname] = (alias.name, None)
                    else:  # ``import a.b`` binds ``a``
                        self.names.setdefault(alias.name.split(".", 1)[0], (alias.name.split(".", 1)[0], None))
            elif isinstance(node, ast.ImportFrom):
                source = absolute_import(module, package, node.level, node.module)
                if source is None:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        self.stars.append(source)
                    else:
                        self.names[alias.asname or alias.name] = (source, alias.name)


class Repository:
    """The repository's Python files read on demand (text only, never run), and what each callable reaches."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._modules: Dict[str, Optional[_Module]] = {}
        self._unknown: Dict[Tuple[str, str], Optional[str]] = {}
        self._open = 0  # the calls being followed now
        #: whether the answer being worked out met a depth cut-off: such an answer depends on how deep the
        #: callable was reached, and is not kept for a shallower caller
        self._cut = False

    # ---------------------------------------------------------------- reading

    def module(self, rel: str) -> Optional[_Module]:
        if rel not in self._modules:
            self._modules[rel] = None
            path = self.base / rel
            try:
                if path.resolve().is_relative_to(self.base.resolve()) and path.is_file():
                    text = decode_source(read_source(str(path)))  # a BOM, a coding line: as Python reads it
                    tree = parse_ast(text) if isinstance(text, str) else None
                    if tree is not None:
                        self._modules[rel] = _Module(rel, tree)
            except (OSError, RuntimeError):
                pass
        return self._modules[rel]

    def _file_of(self, module: str, near: str) -> Optional[str]:
        """The repository file of a dotted module name: from the base, or beside the importing file ``near``
        (a script's ``from model import Net``)."""
        parts = module.split(".")
        folder = near.rsplit("/", 1)[0] + "/" if "/" in near else ""
        for prefix in dict.fromkeys(("", "src/", folder)):
            stem = prefix + "/".join(parts)
            for rel in (f"{stem}.py", f"{stem}/__init__.py"):
                if self.module(rel) is not None:
                    return rel
        return None

    def resolve(self, rel: str, name: str, hops: int = 0) -> Found:
        """Where the name ``name`` of the module ``rel`` is defined in the repository (following re-exports)."""
        here = self.module(rel)
        if here is None or hops > 8:
            return None
        if name in here.defined:
            return rel, name
        imported = here.names.get(name)
        if imported is not None:
            source, original = imported
            if original is None:
                return None  # a module bound to a name: not a callable
            other = self._file_of(source, rel)
            return self.resolve(other, original, hops + 1) if other is not None else None
        for source in here.stars:
            other = self._file_of(source, rel)
            found = self.resolve(other, name, hops + 1) if other is not None else None
            if found is not None:
                return found
        return None

    def module_bound(self, rel: str, name: str) -> Optional[str]:
        """The repository file a name of ``rel`` stands for when it is a module (``from pkg import model_zoo``,
        ``import pkg.utils as utils``)."""
        here = self.module(rel)
        imported = here.names.get(name) if here is not None else None
        if imported is None:
            return None
        source, original = imported
        return self._file_of(source if original is None else f"{source}.{original}", rel)

    # ---------------------------------------------------------------- reach

    def unknown(self, rel: str, name: str, depth: int = 0) -> Optional[str]:
        """Why the reach of the callable ``name`` (``f``, ``Class``, ``Class.method``) of ``rel`` is unknown, or
        ``None`` when every call on its way is followed."""
        key = (rel, name)
        if key in self._unknown:
            return self._unknown[key]
        if self._open >= CHAIN:  # a chain of calls within files, however long the repository makes it
            self._cut = True
            return f"`{name}` ({rel}) is more than {CHAIN} calls deep: not followed"
        self._unknown[key] = None  # a cycle is followed once
        self._open += 1
        outer_cut, self._cut = self._cut, False
        try:
            here = self.module(rel)
            node = _lookup(here, name) if here is not None else None
            why: Optional[str] = None
            if isinstance(node, ast.ClassDef):
                why = self._class(rel, node, depth)
            elif node is not None:
                owner = name.split(".", 1)[0] if "." in name else None
                why = self._body(rel, node, owner, depth)
        finally:
            self._open -= 1
        if self._cut:
            del self._unknown[key]  # reached at another depth, the answer may differ
        else:
            self._unknown[key] = why
        self._cut = self._cut or outer_cut
        return why

    def _class(self, rel: str, cls: ast.ClassDef, depth: int) -> Optional[str]:
        """Constructing ``cls`` runs its ``__init__`` (or its repository base's); calling the object, its
        ``forward`` / ``__call__``."""
        init = _method(cls, "__init__")
        if init is None:
            for base in cls.bases:
                if isinstance(base, ast.Name):
                    found = self.resolve(rel, base.id)
                    if found is not None and found != (rel, cls.name):
                        return self._followed(found, base.id, depth)
        else:
            for call in _calls(init):
                if not isinstance(call.func, ast.Name):
                    continue
                found = self.resolve(rel, call.func.id)
                if found is None or found[0] == rel:
                    continue
                built = _lookup(self.module(found[0]), found[1])
                if isinstance(built, ast.ClassDef) and (_method(built, "forward") or _method(built, "__call__")):
                    return (f"`{cls.name}` builds `{call.func.id}` ({found[0]}), a module of another file, in its "
                            f"constructor ({rel}:{call.lineno}): what it runs once called is not followed")
            why = self._body(rel, init, cls.name, depth)
            if why is not None:
                return why
        for name in ("forward", "__call__"):
            method = _method(cls, name)
            if method is not None:
                why = self._body(rel, method, cls.name, depth)
                if why is not None:
                    return why
        return None

    def _body(self, rel: str, function: ast.AST, owner: Optional[str], depth: int) -> Optional[str]:
        for call in _calls(function):
            func = call.func
            found: Found = None
            written = ""
            if _same_type(func):
                continue  # ``type(data)(...)``: another value of a class the code already built, rebuilt
            if isinstance(func, (ast.Call, ast.Subscript)):
                made = func.func if isinstance(func, ast.Call) else None
                resolved = self.resolve(rel, made.id) if isinstance(made, ast.Name) else None
                if isinstance(made, ast.Name) and resolved is not None and \
                        isinstance(_lookup(self.module(resolved[0]), resolved[1]), ast.ClassDef):
                    found, written = resolved, made.id  # ``Pooler(device)(x)``: the class, built and called
                elif not self._library(rel, made):
                    return (f"`{_short(func)}(...)` ({rel}:{call.lineno}) calls what is chosen at run time (a "
                            "registry, a table, a configuration)")
            elif isinstance(func, ast.Name):
                found, written = self.resolve(rel, func.id), func.id
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                if func.value.id == "self" and owner is not None:
                    method = f"{owner}.{func.attr}"
                    if _lookup(self.module(rel), method) is not None:
                        found, written = (rel, method), f"self.{func.attr}"
                else:
                    module = self.module_bound(rel, func.value.id)
                    if module is not None:
                        found, written = self.resolve(module, func.attr), f"{func.value.id}.{func.attr}"
            if found is not None and found != (rel, owner):
                why = self._followed(found, written, depth + (found[0] != rel))
                if why is not None:
                    return why
        return None

    def _library(self, rel: str, func: Optional[ast.expr]) -> bool:
        """``func`` is a name imported from a library outside the repository (``torch.nn.Linear(2, 2)(x)``: the
        findings judge it where it is written)."""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        here = self.module(rel)
        imported = here.names.get(root.id) if here is not None and isinstance(root, ast.Name) else None
        if imported is None:
            return False
        source, name = imported
        return self._file_of(source, rel) is None and (name is None or self._file_of(f"{source}.{name}", rel) is None)

    def _followed(self, found: Tuple[str, str], written: str, depth: int) -> Optional[str]:
        if depth > DEPTH:
            self._cut = True
            return f"`{written}()` ({found[0]}) is more than {DEPTH} repository calls deep: not followed"
        why = self.unknown(found[0], found[1], depth)
        return None if why is None else f"`{written}()` -> {why}" if not why.startswith(f"`{written}") else why

    def call_in(self, rel: str, func_text: Tuple[str, ...], owner: Optional[str]) -> Optional[str]:
        """Why a call written in ``rel`` has unknown reach: ``func_text`` is its callee as a dotted name split
        (``("build_model",)``, ``("self", "_test_model")``, ``("model_zoo", "get")``); ``owner``: the class the
        call is written in."""
        if not func_text:
            return None
        found: Found = None
        if len(func_text) == 1:
            found = self.resolve(rel, func_text[0])
        elif len(func_text) == 2 and func_text[0] == "self" and owner is not None:
            method = f"{owner}.{func_text[1]}"
            found = (rel, method) if _lookup(self.module(rel), method) is not None else None
        elif len(func_text) == 2:
            module = self.module_bound(rel, func_text[0])
            found = self.resolve(module, func_text[1]) if module is not None else None
        if found is None:
            return None
        return self._followed(found, ".".join(func_text), 1 if found[0] != rel else 0)


def _lookup(module: Optional[_Module], name: str) -> Optional[_Callable]:
    if module is None:
        return None
    head, _, method = name.partition(".")
    node = module.defined.get(head)
    if not method:
        return node
    return _method(node, method) if isinstance(node, ast.ClassDef) else None


def _method(cls: ast.ClassDef, name: str) -> Optional[Union[ast.FunctionDef, ast.AsyncFunctionDef]]:
    return next((n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name),
                None)


def _same_type(func: ast.expr) -> bool:
    """``type(data)`` or ``data.__class__``: the class of a value that exists already (a container rebuilt with
    its items converted), whose constructor ran, and was judged, where that value was made."""
    if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type" \
            and len(func.args) == 1 and not func.keywords:
        return True
    return isinstance(func, ast.Attribute) and func.attr == "__class__"


def _calls(function: ast.AST) -> Iterator[ast.Call]:
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            yield node


def _short(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - a node ast cannot print
        return type(node).__name__
    return text if len(text) <= 50 else text[:47] + "..."
