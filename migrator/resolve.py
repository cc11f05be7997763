"""One libcst pass from a module to the ``Usage`` records every rule works from.

Resolution is by name binding, not text: every import form and alias (``import torch as T``,
``from torch.cuda.amp import autocast as ac``, relative imports inside the repo), module-level
constants and local variables used as devices or backends, parameter defaults, ``self.`` attributes
and argparse defaults. Tensor methods on receivers whose type is unknown are recorded with
``confidence=heuristic``; a method called on an instance of a repo class that is not an
``nn.Module`` is not a tensor and is not recorded.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from .model import Argument, Confidence, PythonFacts, Span, Usage, Value
from .positions import Positions
from .walk import Walker

#: Import roots whose names are recorded as usages (plus anything not in the standard library).
_STDLIB: FrozenSet[str] = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}
#: Common libraries with no CUDA coupling of their own: not recorded, to keep usages small.
_QUIET_ROOTS = frozenset({
    "numpy", "pandas", "scipy", "matplotlib", "sklearn", "PIL", "cv2", "tqdm", "yaml", "requests",
    "pytest", "setuptools", "distutils", "six", "typing_extensions", "attr", "attrs", "click", "rich",
    "omegaconf", "hydra", "wandb", "tensorboard", "tensorboardX", "einops", "safetensors", "huggingface_hub",
    "tokenizers", "regex", "packaging", "absl", "termcolor", "seaborn", "h5py", "jsonargparse", "fire",
})
_TRITON_DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})
_ENV_WRITERS = frozenset({"os.environ.setdefault", "os.putenv", "os.environ.update", "os.environ.get",
                          "os.getenv", "os.environ.pop"})
#: An argument migrator does not model (most of them): one shared object keeps results small to cache.
_OPAQUE = Value("other")
_OPAQUE_POSITIONAL = Argument(None, _OPAQUE)

#: Root of pseudo-module names bound by loader calls (see ``_loaded_module``).
LOADED = "<loaded>"
_MODULE_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
#: Third-party roots whose own calls are never module loaders.
_TRACKED_LIBS = frozenset({"apex", "flash_attn", "xformers", "triton", "deepspeed", "transformers", "timm", "mmengine"})

#: Calls whose unmodelled arguments rules read as text (a backend from the environment, extension sources).
_TEXT_ARGUMENTS = frozenset({
    "torch.distributed.init_process_group", "torch.distributed.new_group",
    "torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension",
    "torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline",
})
_DEVICE_STRING = re.compile(r"^cuda(:(\d+|\{\}))?$")
_BACKEND_STRING = re.compile(r"^(nccl|NCCL)$")
#: Tensor methods that make an integer (or bool) tensor, and the dtype they make.
_INTEGER_CASTS = {"long": "int64", "int": "int32", "short": "int16", "byte": "uint8", "char": "int8", "bool": "bool"}
_INTEGER_DTYPES = {f"torch.{name}": dtype for name, dtype in (
    ("int64", "int64"), ("long", "int64"), ("int32", "int32"), ("int", "int32"), ("int16", "int16"),
    ("short", "int16"), ("int8", "int8"), ("uint8", "uint8"), ("bool", "bool"), ("LongTensor", "int64"),
    ("IntTensor", "int32"), ("ByteTensor", "uint8"), ("BoolTensor", "bool"))}
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError"})


def module_name_for(rel: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg``; notebooks keep their stem."""
    parts = rel.rsplit(".", 1)[0].split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(p.replace("-", "_") for p in parts) or "__main__"


def is_device_string(text: Optional[str]) -> bool:
    return text is not None and bool(_DEVICE_STRING.match(text))


def is_backend_string(text: Optional[str]) -> bool:
    return text is not None and bool(_BACKEND_STRING.match(text))


@dataclass
class _Binding:
    """What a name is bound to in one scope."""

    imports: Dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    guarded: Set[str] = field(default_factory=set)  # names imported under try/except ImportError
    values: Dict[str, List[cst.BaseExpression]] = field(default_factory=dict)
    params: Dict[str, Optional[cst.BaseExpression]] = field(default_factory=dict)
    defs: Dict[str, str] = field(default_factory=dict)  # functions and classes defined here -> qualname


@dataclass
class _Scope:
    kind: str  # module | class | function
    name: str
    binding: _Binding
    class_name: Optional[str] = None  # for methods: the enclosing class


@dataclass
class _ClassInfo:
    qualname: str
    bases: Tuple[str, ...]
    attrs: Dict[str, List[cst.BaseExpression]] = field(default_factory=dict)


class _Resolver(cst.CSTVisitor):
    def __init__(self, module: cst.Module, module_name: str, is_package: bool, tensor_methods: FrozenSet[str],
                 position_map=None, source: Optional[str] = None) -> None:
        super().__init__()
        self.module = module
        self.positions = Positions(module, source)
        self.module_name = module_name
        self.is_package = is_package
        self.tensor_methods = tensor_methods
        self.position_map = position_map
        self.usages: List[Usage] = []
        self.snippets: List[Tuple[Span, cst.CSTNode]] = []  # per usage: where its snippet text is, measured at the end
        self.constants: Dict[str, Value] = {}
        self.triton_kernels: List[str] = []
        self.classes: Dict[str, _ClassInfo] = {}
        self.argparse_defaults: Dict[str, cst.BaseExpression] = {}
        self.consumed: Set[int] = set()
        self.literal_context: Dict[int, Tuple[Union[str, Callable[[], str]], Confidence]] = {}
        self.scopes: List[_Scope] = []
        self.guard_depth = 0
        self.imports_torch = False
        self._value_depth = 0
        self._want_text = False

    # ------------------------------------------------------------------------------ scopes

    def leave_Module(self, original_node: cst.Module) -> None:
        """Module-level constants other modules may import (positions are only available during the visit)."""
        self.scopes = self.scopes[:1]
        for name, exprs in self.scopes[0].binding.values.items():
            if len(exprs) == 1:
                value = self._with_origin(self.value_of(exprs[0]), exprs[0], name)
                if value.kind in ("str", "fstr", "device", "choice", "ref"):
                    self.constants[name] = value

    def visit_Module(self, node: cst.Module) -> None:
        binding = _Binding()
        self.scopes.append(_Scope("module", self.module_name, binding))
        self._collect(node.body, binding, guarded=False, class_info=None)
        self.imports_torch = any(q == "torch" or q.startswith("torch.") for q in binding.imports.values())

    def visit_ClassDef(self, node: cst.ClassDef) -> Optional[bool]:
        qual = self._qualname(node.name.value)
        bases = []
        for arg in node.bases:
            base = self.qualify(arg.value)
            if base:
                bases.append(base)
                if _interesting_base(base):
                    self._emit(base, "subclass", arg.value, node_for_snippet=arg.value, context=qual)
            self.consumed.add(id(arg.value))
        info = self.classes.setdefault(node.name.value, _ClassInfo(qual, tuple(bases)))
        binding = _Binding()
        self._collect(node.body.body if isinstance(node.body, cst.IndentedBlock) else (), binding, False, info)
        self.scopes.append(_Scope("class", node.name.value, binding, class_name=node.name.value))
        for decorator in node.decorators:
            self._decorator(decorator)
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        for decorator in node.decorators:
            qual = self._decorator(decorator)
            if qual in _TRITON_DECORATORS:
                self.triton_kernels.append(self._qualname(node.name.value))
        binding = _Binding()
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            binding.params[param.name.value] = param.default
            if param.default is not None:
                self._note_literal(param.default, f"default of parameter {param.name.value}")
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                binding.params[star.name.value] = None
        enclosing = self.scopes[-1]
        class_info = self.classes.get(enclosing.class_name) if enclosing.kind == "class" else None
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        self._collect(body, binding, guarded=False, class_info=class_info)
        self.scopes.append(_Scope("function", node.name.value, binding,
                                  class_name=enclosing.class_name if enclosing.kind == "class" else None))
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Try(self, node: cst.Try) -> None:
        if _catches_import_error(node):
            self.guard_depth += 1

    def leave_Try(self, original_node: cst.Try) -> None:
        if _catches_import_error(original_node):
            self.guard_depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        for param in node.params.params:
            if param.default is not None:
                self.consumed.add(id(param.default))

    def _collect(self, body: Sequence[cst.CSTNode], binding: _Binding, guarded: bool,
                 class_info: Optional[_ClassInfo]) -> None:
        """Bind names from a statement list (not descending into nested functions or classes)."""
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._bind_small(small, binding, guarded, class_info)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                binding.defs[stmt.name.value] = stmt.name.value
                binding.values.pop(stmt.name.value, None)
            elif isinstance(stmt, cst.Try):
                guard = guarded or _catches_import_error(stmt)
                self._collect(stmt.body.body, binding, guard, class_info)
                for handler in stmt.handlers:
                    self._collect(handler.body.body, binding, guarded, class_info)
                for extra in (stmt.orelse, stmt.finalbody):
                    if extra is not None:
                        self._collect(extra.body.body, binding, guarded, class_info)
            elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With)):
                self._collect(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else (), binding,
                              guarded, class_info)
                orelse = getattr(stmt, "orelse", None)
                while orelse is not None:
                    self._collect(orelse.body.body if isinstance(orelse.body, cst.IndentedBlock) else (),
                                  binding, guarded, class_info)
                    orelse = getattr(orelse, "orelse", None)
                if isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name):
                    binding.values.setdefault(stmt.target.value, [])
                if isinstance(stmt, cst.With):
                    for item in stmt.items:
                        if item.asname is not None and isinstance(item.asname.name, cst.Name):
                            binding.values.setdefault(item.asname.name.value, []).append(item.item)

    def _bind_small(self, small: cst.CSTNode, binding: _Binding, guarded: bool,
                    class_info: Optional[_ClassInfo]) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                full = _dotted(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local, target = alias.asname.name.value, full
                else:
                    local = target = full.split(".")[0]
                binding.imports[local] = target
                if guarded:
                    binding.guarded.add(full)
                binding.values.pop(local, None)
        elif isinstance(small, cst.ImportFrom):
            base = self._from_module(small)
            if base is None or isinstance(small.names, cst.ImportStar):
                return
            for alias in small.names:
                name = _dotted(alias.name)
                local = alias.asname.name.value if alias.asname is not None and isinstance(
                    alias.asname.name, cst.Name) else name
                binding.imports[local] = f"{base}.{name}" if base else name
                if guarded:
                    binding.guarded.add(binding.imports[local])
                binding.values.pop(local, None)
        elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            value = small.value
            if value is None:
                return
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            module = self._loaded_extension(value) or self._loaded_module(value)
            alias = self._alias_of(value, binding)
            for target in targets:
                if isinstance(target, cst.Name) and module:
                    binding.imports[target.value] = module  # a module object returned by a loader call
                    binding.values.pop(target.value, None)
                elif isinstance(target, cst.Name) and alias and not isinstance(small, cst.AugAssign):
                    previous = binding.imports.get(target.value)
                    binding.imports[target.value] = _preferred_alias(previous, alias)
                    binding.values.pop(target.value, None)
                elif isinstance(target, cst.Name) and not isinstance(small, cst.AugAssign):
                    binding.values.setdefault(target.value, []).append(value)
                    binding.imports.pop(target.value, None)
                elif (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                      and target.value.value == "self" and class_info is not None):
                    class_info.attrs.setdefault(target.attr.value, []).append(value)
                elif isinstance(target, (cst.Tuple, cst.List)):
                    for element in target.elements:
                        if isinstance(element.value, cst.Name):
                            binding.values.setdefault(element.value.value, [])

    def _loaded_extension(self, value: cst.BaseExpression) -> Optional[str]:
        """``load(name='fused', ...)`` returns the compiled module ``fused``: bind it like an import."""
        if not isinstance(value, cst.Call) or not self.scopes:
            return None
        if self.qualify(value.func) not in ("torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"):
            return None
        for index, arg in enumerate(value.args):
            if (arg.keyword is not None and arg.keyword.value == "name") or (arg.keyword is None and index == 0):
                if isinstance(arg.value, cst.SimpleString) and isinstance(arg.value.evaluated_value, str):
                    return arg.value.evaluated_value
        return None

    def _alias_of(self, value: cst.BaseExpression, binding: _Binding) -> Optional[str]:
        """``extension = CUDAExtension``: a name bound to an imported class or function is an alias of it."""
        if not isinstance(value, (cst.Name, cst.Attribute)) or not self.scopes:
            return None
        if isinstance(value, cst.Name) and value.value in binding.imports:
            return binding.imports[value.value]
        qual = self.qualify(value)
        return qual if qual is not None and _interesting(qual) else None

    def _loaded_module(self, value: cst.BaseExpression) -> Optional[str]:
        """``ext = ext_loader.load_ext('_ext', [...])``: a repo helper that returns a compiled module by name.

        Bound as the pseudo-module ``<loaded>._ext``; the cross-file stage joins it to an extension whose
        name ends in ``_ext``, and anything else it never matches.
        """
        if not isinstance(value, cst.Call) or not value.args or not self.scopes or len(self.scopes) > 1:
            return None
        callee = self.qualify(value.func)
        if callee is None or _is_torch(callee) or not _interesting(callee) or callee.split(".")[0] in _TRACKED_LIBS:
            return None
        first = value.args[0].value
        if value.args[0].keyword is None and isinstance(first, cst.SimpleString):
            name = first.evaluated_value
            if isinstance(name, str) and _MODULE_NAME.match(name):
                return f"{LOADED}.{name}"
        return None

    def _from_module(self, node: cst.ImportFrom) -> Optional[str]:
        dots = len(node.relative)
        module = _dotted(node.module) if node.module is not None else ""
        if not dots:
            return module
        package = self.module_name.split(".")
        if not self.is_package:
            package = package[:-1]
        if dots - 1 > len(package):
            return module or None
        base = package[: len(package) - (dots - 1)]
        return ".".join([*base, module] if module else base)

    def _qualname(self, name: str) -> str:
        inner = [s.name for s in self.scopes[1:]] if self.scopes else []
        return ".".join([self.module_name, *inner, name])

    # --------------------------------------------------------------------------- resolution

    def lookup(self, name: str) -> Tuple[Optional[str], Optional[_Binding]]:
        """(qualified import or definition, binding that holds a value) for a bare name."""
        for index in range(len(self.scopes) - 1, -1, -1):
            scope = self.scopes[index]
            if scope.kind == "class" and index != len(self.scopes) - 1:
                continue  # class bodies do not enclose their methods
            binding = scope.binding
            if name in binding.imports:
                return binding.imports[name], None
            if name in binding.values or name in binding.params:
                return None, binding
            if name in binding.defs:
                return (f"{self.module_name}.{name}" if scope.kind == "module" else None), None
        return None, None

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        if isinstance(node, cst.Name):
            return self.lookup(node.value)[0]
        if isinstance(node, cst.Attribute):
            base = self.qualify(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    def value_of(self, node: cst.BaseExpression) -> Value:
        if self._value_depth > 8:
            return Value("other", self._code(node) if self._want_text else None)
        self._value_depth += 1
        try:
            return self._value_of(node)
        finally:
            self._value_depth -= 1

    def _value_of(self, node: cst.BaseExpression) -> Value:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            try:
                text = node.evaluated_value
            except Exception:
                text = None
            if isinstance(text, str):
                return Value("str", text)
            return self._other(node)
        if isinstance(node, cst.FormattedString):
            parts = []
            for part in node.parts:
                parts.append(part.value if isinstance(part, cst.FormattedStringText) else "{}")
            return Value("fstr", "".join(parts))
        if isinstance(node, cst.Call):
            callee = self.qualify(node.func)
            if callee == "torch.device":
                return self._device_value(node)
            cast = self._integer_cast(node)
            return Value("tensor", cast) if cast else self._other(node)
        if isinstance(node, cst.Name):
            return self._name_value(node.value)
        if isinstance(node, cst.Attribute):
            return self._attribute_value(node)
        if isinstance(node, cst.IfExp):
            return Value("choice", None, options=(self.value_of(node.body), self.value_of(node.orelse)))
        if isinstance(node, cst.BooleanOperation):
            return Value("choice", None, options=(self.value_of(node.left), self.value_of(node.right)))
        return self._other(node)

    def _integer_cast(self, call: cst.Call) -> Optional[str]:
        """``x.long()``, ``x.int()``, ``x.to(torch.int64)``, ``x.to(dtype=torch.uint8)``: the integer dtype made."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if func.attr.value in _INTEGER_CASTS and not call.args:
            return _INTEGER_CASTS[func.attr.value]
        if func.attr.value in ("to", "type") and call.args:
            arg = next((a for a in call.args if a.keyword is None or a.keyword.value == "dtype"), None)
            dtype = self.qualify(arg.value) if arg is not None else None
            return _INTEGER_DTYPES.get(dtype or "")
        return None

    def _other(self, node: cst.BaseExpression) -> Value:
        """An expression migrator does not model; its source text only where a rule reads it (it costs a codegen)."""
        return Value("other", self._code(node) if self._want_text else None)

    def _device_value(self, call: cst.Call) -> Value:
        args = [a for a in call.args if a.keyword is None]
        kind = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "type"), None)
        first = kind if kind is not None else (args[0].value if args else None)
        if first is None:
            return Value("device", None)
        inner = self.value_of(first)
        has_index = len(args) > 1 or any(a.keyword is not None and a.keyword.value == "index" for a in call.args)
        if inner.kind in ("str", "fstr") and inner.text is not None:
            text = inner.text + (":{}" if has_index and ":" not in inner.text else "")
            return Value("device", text, origin=inner.origin, via=inner.via)
        return Value("device", None, options=(inner,), origin=inner.origin, via=inner.via)

    def _name_value(self, name: str) -> Value:
        qual, binding = self.lookup(name)
        if qual is not None:
            return Value("ref", name, ref=qual)
        if binding is None:
            return Value("other", name)
        exprs = binding.values.get(name)
        if exprs is None:  # a parameter
            default = binding.params.get(name)
            if default is None:
                return Value("other", name)
            value = self._with_origin(self.value_of(default), default, name)
            return Value(value.kind, value.text, value.options, value.ref, value.origin, value.via, True)
        if not exprs:
            return Value("other", name)
        values = tuple(self._with_origin(self.value_of(e), e, name) for e in exprs)
        if len(values) == 1 or all((v.kind, v.text) == (values[0].kind, values[0].text) and v.kind == "str"
                                   for v in values):
            return values[0]
        return Value("choice", name, options=values, via=name)

    def _attribute_value(self, node: cst.Attribute) -> Value:
        receiver = node.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            scope = self.scopes[-1]
            info = self.classes.get(scope.class_name) if scope.class_name else None
            exprs = info.attrs.get(node.attr.value) if info else None
            if exprs:
                values = tuple(self._with_origin(self.value_of(e), e, f"self.{node.attr.value}") for e in exprs)
                return values[0] if len(values) == 1 else Value("choice", self._code(node), options=values)
        qual = self.qualify(node)
        if qual is not None:
            return Value("ref", self._code(node), ref=qual)
        default = self.argparse_defaults.get(node.attr.value)
        if default is not None and isinstance(receiver, cst.Name):
            value = self._with_origin(self.value_of(default), default, f"--{node.attr.value} default")
            return Value(value.kind, value.text, value.options, value.ref, value.origin, value.via)
        return Value("other", self._code(node))

    def _with_origin(self, value: Value, node: cst.CSTNode, via: str) -> Value:
        if value.origin is not None:
            return value
        return Value(value.kind, value.text, value.options, value.ref, self._span(node), via)

    # -------------------------------------------------------------------------------- emitting

    def _span(self, node: cst.CSTNode) -> Span:
        """A placeholder now; ``resolve_module`` measures every such node in one pass at the end."""
        return self.positions.pending(node)

    def finished_usages(self) -> Tuple[Usage, ...]:
        self.positions.resolve()
        return tuple(self._finish(u, snippet) for u, snippet in zip(self.usages, self.snippets))

    def _finish(self, usage: Usage, snippet: Tuple[Span, cst.CSTNode]) -> Usage:
        args = tuple(Argument(a.keyword, self._finish_value(a.value)) for a in usage.args)
        text = self.positions.text_of(snippet[0])
        if text is None:
            text = self._code(snippet[1])
        elif len(text) > 200:
            text = text[:197] + "..."
        return replace(usage, span=self._real_span(usage.span), args=args, snippet=_one_line(text))

    def _finish_value(self, value: Value) -> Value:
        if value.origin is None and not value.options:
            return value
        return replace(value, origin=self._real_span(value.origin) if value.origin is not None else None,
                       options=tuple(self._finish_value(o) for o in value.options))

    def _real_span(self, span: Span) -> Span:
        span = self.positions.span_of(span)
        return self.position_map(span) if self.position_map and span.line is not None else span

    def _code(self, node: cst.CSTNode) -> str:
        try:
            text = self.module.code_for_node(node)
        except Exception:
            return "<expr>"
        return text if len(text) <= 200 else text[:197] + "..."

    def _scope_name(self) -> str:
        names = [s.name for s in self.scopes[1:]]
        return ".".join([self.module_name, *names]) if names else "<module>"

    def _emit(self, api: str, kind: str, node: cst.CSTNode, args: Tuple[Argument, ...] = (),
              confidence: Confidence = Confidence.RESOLVED, context: Optional[str] = None,
              node_for_snippet: Optional[cst.CSTNode] = None) -> None:
        if kind == "import":
            guarded = self.guard_depth > 0
        else:
            guarded = any(api == g or api.startswith(g + ".") for s in self.scopes for g in s.binding.guarded)
        # interned: a module repeats the same few names thousands of times, and pickling (cache, process
        # pool) stores an interned string once
        snippet_node = node_for_snippet or node
        self.usages.append(Usage(
            api=sys.intern(api), kind=kind, span=self._span(node), snippet="", confidence=confidence, args=args,
            context=context, scope=sys.intern(self._scope_name()), guarded=guarded,
        ))
        self.snippets.append((self.positions.pending(snippet_node), snippet_node))

    def _decorator(self, decorator: cst.Decorator) -> Optional[str]:
        expr = decorator.decorator
        target = expr.func if isinstance(expr, cst.Call) else expr
        qual = self.qualify(target)
        if qual and _interesting(qual):
            args = self._arguments(expr.args) if isinstance(expr, cst.Call) else ()
            self._emit(qual, "decorator", expr, args)
            self.consumed.add(id(target))
            if isinstance(expr, cst.Call):
                self.consumed.add(id(expr))
        return qual

    def _arguments(self, args: Sequence[cst.Arg], keep_text: bool = False) -> Tuple[Argument, ...]:
        self._want_text = keep_text
        try:
            return self._argument_values(args)
        finally:
            self._want_text = False

    def _argument_values(self, args: Sequence[cst.Arg]) -> Tuple[Argument, ...]:
        out = []
        for arg in args:
            if arg.star:
                continue
            keyword = arg.keyword.value if arg.keyword is not None else None
            value = self.value_of(arg.value)
            if value.kind == "other" and value.text is None:  # nothing a rule reads: share one object
                out.append(_OPAQUE_POSITIONAL if keyword is None else Argument(keyword, _OPAQUE))
            else:
                out.append(Argument(keyword, value))
            if isinstance(arg.value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                self.consumed.add(id(arg.value))
        return tuple(out)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = _dotted(alias.name)
            if _interesting(full) and not _is_torch(full):
                self._emit(full, "import", alias, node_for_snippet=node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        base = self._from_module(node)
        if base is None or isinstance(node.names, cst.ImportStar):
            if base and _interesting(base) and not _is_torch(base):
                self._emit(base, "import", node)
            return False
        for alias in node.names:
            full = f"{base}.{_dotted(alias.name)}" if base else _dotted(alias.name)
            if _interesting(full) and not _is_torch(full):
                self._emit(full, "import", alias, node_for_snippet=node)
        return False

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        if id(node) in self.consumed:
            return True
        func = node.func
        qual = self.qualify(func)
        for index, arg in enumerate(a for a in node.args if a.keyword is None and not a.star):
            self._note_literal(arg.value, lambda i=index: f"argument {i + 1} of {qual or self._code(func)}")
        if qual is not None and qual.startswith(LOADED + ".") and isinstance(func, cst.Attribute):
            self._emit(qual, "call", node, self._arguments(node.args))
            qual = None  # the receiver is only maybe a loaded module: still check it as a tensor method
        if qual is not None:
            if qual.endswith("add_argument"):
                pass
            elif _interesting(qual):
                self.consumed.add(id(func))
                self._emit(qual, "call", node, self._arguments(node.args, keep_text=qual in _TEXT_ARGUMENTS))
                return True
            elif qual in _ENV_WRITERS:
                self._env_call(node, qual)
                return True
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name == "add_argument":
                self._argparse(node)
                return True
            if qual is None and self._record_method(node, func):
                self.consumed.add(id(func.attr))
        elif isinstance(func, cst.Subscript) and isinstance(func.value, (cst.Name, cst.Attribute)):
            kernel = self.qualify(func.value) or (
                self._qualname(func.value.value) if isinstance(func.value, cst.Name) else None)
            if kernel:
                self._emit(kernel, "launch", node, self._arguments(node.args))
        return True

    def _record_method(self, node: cst.Call, func: cst.Attribute) -> bool:
        name = func.attr.value
        if not self.imports_torch or name not in self.tensor_methods and name not in ("cuda", "to", "half"):
            return False
        receiver = func.value
        if isinstance(receiver, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List,
                                 cst.Dict, cst.Set, cst.Integer, cst.Float, cst.ListComp, cst.DictComp)):
            return False
        owner = self._receiver_class(receiver)
        if owner == "other":
            for arg in node.args:  # 'cuda' passed to a method of a non-tensor object is not a device
                if isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString)):
                    self.consumed.add(id(arg.value))
            return False
        api_owner = "torch.nn.Module" if owner == "module" else "torch.Tensor"
        confidence = Confidence.RESOLVED if owner == "module" else Confidence.HEURISTIC
        self._emit(f"{api_owner}.{name}", "method", node, self._arguments(node.args), confidence=confidence)
        return True

    def _receiver_class(self, receiver: cst.BaseExpression) -> str:
        """'module' for an nn.Module, 'other' for an instance of a repo class that is not one, else 'unknown'."""
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            scope = self.scopes[-1]
            info = self.classes.get(scope.class_name) if scope.class_name else None
            if info is not None:
                return "module" if self._is_module_class(info) else "other"
            return "unknown"
        exprs: Optional[List[cst.BaseExpression]] = None
        if isinstance(receiver, cst.Name):
            qual, binding = self.lookup(receiver.value)
            if qual is not None:
                return "other" if not _is_torch(qual) else "unknown"
            if binding is not None:
                exprs = binding.values.get(receiver.value)
        elif isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) \
                and receiver.value.value == "self":
            scope = self.scopes[-1]
            info = self.classes.get(scope.class_name) if scope.class_name else None
            exprs = info.attrs.get(receiver.attr.value) if info else None
        elif isinstance(receiver, cst.Call):
            exprs = [receiver]
        if exprs and len(exprs) == 1 and isinstance(exprs[0], cst.Call):
            callee = exprs[0].func
            if isinstance(callee, cst.Name) and callee.value in self.classes:
                return "module" if self._is_module_class(self.classes[callee.value]) else "other"
            qual = self.qualify(callee)
            if qual and qual.startswith("torch.nn.") and qual.split(".")[-1][:1].isupper():
                return "module"
            if qual and qual.split(".")[0] in (_QUIET_ROOTS | _STDLIB):
                return "other"
        if exprs and len(exprs) == 1 and isinstance(exprs[0], (cst.SimpleString, cst.List, cst.Dict,
                                                                cst.ListComp, cst.FormattedString)):
            return "other"
        return "unknown"

    def _is_module_class(self, info: _ClassInfo, depth: int = 0) -> bool:
        for base in info.bases:
            if base.startswith("torch.nn.") or base.startswith("torch.jit."):
                return True
            local = base.rsplit(".", 1)[-1]
            if base.startswith(self.module_name + ".") and local in self.classes and depth < 10:
                if self._is_module_class(self.classes[local], depth + 1):
                    return True
            elif not base.startswith(self.module_name + "."):
                return True  # an imported base we cannot see: may be a Module, so not "other"
        return False

    def _env_call(self, node: cst.Call, qual: str) -> None:
        args = self._arguments(node.args)
        key = args[0].value.text if args and args[0].value.kind == "str" else None
        if key and _env_var_of_interest(key):
            kind = "env-read" if qual in ("os.environ.get", "os.getenv", "os.environ.pop") else "env"
            self._emit("os.environ", kind, node, args, context=key)

    def _argparse(self, node: cst.Call) -> None:
        names = [a.value for a in node.args if a.keyword is None]
        default = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "default"), None)
        dest = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "dest"), None)
        if default is None:
            return
        key = None
        if isinstance(dest, cst.SimpleString):
            key = dest.evaluated_value
        else:
            for name in names:
                if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
                    key = name.evaluated_value.lstrip("-").replace("-", "_")
                    if name.evaluated_value.startswith("--"):
                        break
        if isinstance(key, str):
            self.argparse_defaults[key] = default
            self._note_literal(default, f"default of command-line option --{key}", Confidence.RESOLVED)

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if id(node) in self.consumed:
            return False
        qual = self.qualify(node)
        if qual is not None and _interesting(qual):
            self._emit(qual, "attribute", node)
            return False
        if qual is None and node.attr.value == "is_cuda" and self.imports_torch \
                and self._receiver_class(node.value) != "other":
            self._emit("torch.Tensor.is_cuda", "attribute", node, confidence=Confidence.HEURISTIC)
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.consumed:
            return
        qual, _ = self.lookup(node.value)
        if qual is not None and _interesting(qual) and "." in qual:
            self._emit(qual, "attribute", node)

    def visit_Assign(self, node: cst.Assign) -> Optional[bool]:
        for target in node.targets:
            self._assignment_target(target.target, node.value)
        self._note_literal(node.value, lambda: "assigned to " + ", ".join(self._code(t.target) for t in node.targets))
        return True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> Optional[bool]:
        if node.value is not None:
            self._assignment_target(node.target, node.value)
            self._note_literal(node.value, lambda: "assigned to " + self._code(node.target))
        return True

    def _assignment_target(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Attribute):
            qual = self.qualify(target)
            if qual is not None and _interesting(qual):
                self.consumed.add(id(target))
                self._emit(qual, "assign", target, (Argument(None, self.value_of(value)),),
                           node_for_snippet=target)
                if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                    self.consumed.add(id(value))
        elif isinstance(target, cst.Subscript) and self.qualify(target.value) == "os.environ":
            key_node = target.slice[0].slice if target.slice else None
            key = self.value_of(key_node.value) if isinstance(key_node, cst.Index) else None
            if key is not None and key.kind == "str" and _env_var_of_interest(key.text or ""):
                self.consumed.add(id(target))
                self._emit("os.environ", "env", target, (Argument(None, self.value_of(value)),),
                           context=key.text)
                if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                    self.consumed.add(id(value))
        elif isinstance(target, cst.Name):
            self.consumed.add(id(target))

    def visit_Subscript(self, node: cst.Subscript) -> Optional[bool]:
        if self.qualify(node.value) == "os.environ" and node.slice and isinstance(node.slice[0].slice, cst.Index):
            key = self.value_of(node.slice[0].slice.value)
            if key.kind == "str" and _env_var_of_interest(key.text or "") and id(node) not in self.consumed:
                self._emit("os.environ", "env-read", node, context=key.text)
        return True

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            self._note_literal(target.comparator, lambda: f"compared with {self._code(node.left)}",
                               Confidence.RESOLVED)
        if node.comparisons:
            self._note_literal(node.left, lambda: f"compared with {self._code(node.comparisons[0].comparator)}",
                               Confidence.RESOLVED)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._note_literal(node.value, "returned")

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._note_literal(node.value, f"argument {node.keyword.value}=", Confidence.RESOLVED
                               if node.keyword.value in ("device", "device_type", "map_location", "backend")
                               else Confidence.HEURISTIC)

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            self.consumed.add(id(node.value))  # docstrings and bare strings are not code

    def _note_literal(self, node: cst.BaseExpression, context: Union[str, Callable[[], str]],
                      confidence: Confidence = Confidence.HEURISTIC) -> None:
        """Remember where a string literal sits, for the message if it turns out to be a device or backend.

        Both branches of a conditional share its place: ``device = "cuda" if ok else "cpu"`` assigns either."""
        if isinstance(node, cst.IfExp):
            self._note_literal(node.body, context, confidence)
            self._note_literal(node.orelse, context, confidence)
        elif isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) \
                and id(node) not in self.literal_context:
            self.literal_context[id(node)] = (context, confidence)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> Optional[bool]:
        self._literal(node)
        return True

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> Optional[bool]:
        self._literal(node)
        return False

    def _literal(self, node: cst.BaseExpression) -> None:
        if id(node) in self.consumed:
            return
        value = self.value_of(node)
        if value.kind not in ("str", "fstr"):
            return
        if is_device_string(value.text):
            api = "torch.device"
        elif is_backend_string(value.text) and value.kind == "str":
            api = "torch.distributed.Backend"
        else:
            return
        context, confidence = self.literal_context.get(id(node), ("expression", Confidence.HEURISTIC))
        if callable(context):
            context = context()
        self._emit(api, "literal", node, (Argument(None, value),), confidence=confidence, context=context)


def resolve_module(module: cst.Module, module_name: str, is_package: bool, tensor_methods: FrozenSet[str],
                   position_map=None, source: Optional[str] = None) -> Tuple[PythonFacts, Tuple[Usage, ...]]:
    """``source`` is the text ``module`` was parsed from, when the caller has it (saves generating it again)."""
    resolver = _Resolver(module, module_name, is_package, tensor_methods, position_map, source)
    Walker(resolver).walk(module)
    usages = resolver.finished_usages()
    constants = {name: resolver._finish_value(value) for name, value in resolver.constants.items()}
    facts = PythonFacts(module=module_name, constants=constants, triton_kernels=tuple(resolver.triton_kernels),
                        imports_torch=resolver.imports_torch)
    return facts, usages


# -------------------------------------------------------------------------------------- helpers


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _is_torch(qual: str) -> bool:
    return qual == "torch" or qual.startswith("torch.")


def _interesting(qual: str) -> bool:
    root = qual.split(".", 1)[0]
    return bool(root) and root not in _STDLIB and root not in _QUIET_ROOTS


def _interesting_base(qual: str) -> bool:
    return qual.startswith("torch.autograd.Function") or (not _is_torch(qual) and _interesting(qual))


def _preferred_alias(previous: Optional[str], new: str) -> str:
    """Of alternatives bound to one name in different branches, keep the CUDA one: that is the path to migrate."""
    if previous is None or "CUDA" in new or "cuda" in new.split("."):
        return new
    return previous


def _catches_import_error(node: cst.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        for element in types:
            expr = element.value if isinstance(element, cst.Element) else element
            if isinstance(expr, (cst.Name, cst.Attribute)) and _dotted(expr).split(".")[-1] in _IMPORT_ERRORS:
                return True
    return False


def _env_var_of_interest(name: str) -> bool:
    return name.startswith(("CUDA_", "NCCL_", "CUDNN_", "NVIDIA_", "PYTORCH_CUDA_", "TORCH_CUDA_", "CUBLAS_"))


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= 160 else first[:157] + "..."
