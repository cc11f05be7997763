"""Value evaluation: what an argument or a name holds, as far as rules care (a string, a device, a
choice between branches, a reference to another module's constant, an integer tensor), and where it
was set."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ..model import Argument, Value, ValueKind
from .emit import Emitter
from .scope import ClassInfo, Scopes
from .strings import device_prefix, formatted_device, string_value

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_FSTR = ValueKind.FSTR
_OTHER = ValueKind.OTHER
#: the most strings a list's value reads as, item by item
_MOST_LISTED = 512
_STR = ValueKind.STR

#: An argument migrator does not model (most of them): one shared object keeps results small to cache.
_OPAQUE = Value(ValueKind.OTHER)
_OPAQUE_POSITIONAL = Argument(None, _OPAQUE)
_MAX_DEPTH = 8
#: Tensor methods that make an integer (or bool) tensor, and the dtype they make.
#: One object per numeric literal text: they repeat across a repository (``dim=1``, ``0.5``).
_NUMBERS: Dict[Tuple[ValueKind, str], Value] = {}
def _number(node) -> Value:
    key = (ValueKind.INT if isinstance(node, cst.Integer) else ValueKind.FLOAT, node.value)
    found = _NUMBERS.get(key)
    if found is None:
        found = Value(*key)
        if len(_NUMBERS) < 4096:
            _NUMBERS[key] = found
    return found


_INTEGER_CASTS = {"long": "int64", "int": "int32", "short": "int16", "byte": "uint8", "char": "int8", "bool": "bool"}
_INTEGER_DTYPES = {f"torch.{name}": dtype for name, dtype in (
    ("int64", "int64"), ("long", "int64"), ("int32", "int32"), ("int", "int32"), ("int16", "int16"),
    ("short", "int16"), ("int8", "int8"), ("uint8", "uint8"), ("bool", "bool"), ("LongTensor", "int64"),
    ("IntTensor", "int32"), ("ByteTensor", "uint8"), ("BoolTensor", "bool"))}
STRING_NODES = (cst.SimpleString, cst.ConcatenatedString)
LITERAL_NODES = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
#: The same, as sets of types for the resolver's hot paths (``type(node) in ...``): libcst's node types are ABCs,
#: so an ``isinstance`` that fails runs ``ABCMeta.__instancecheck__`` in Python (2.7 million times over timm);
#: each of these types is final (libcst subclasses none of them).
STRING_TYPES = frozenset(STRING_NODES)
LITERAL_TYPES = frozenset(LITERAL_NODES)


class Evaluator:
    def __init__(self, scopes: Scopes, emitter: Emitter, consumed: Set[int]) -> None:
        self.scopes = scopes
        self.emitter = emitter
        self.consumed = consumed  # ids of nodes already part of a usage: the visitor does not report them again
        self.argparse_defaults: Dict[str, cst.BaseExpression] = {}  # ``--device`` -> its default expression
        self._depth = 0
        self._want_text = False

    def arguments(self, args: Sequence[cst.Arg], keep_text: bool = False) -> Tuple[Argument, ...]:
        """The call's arguments as values; ``keep_text`` keeps the source of unmodelled ones for the rules."""
        self._want_text = keep_text
        try:
            out = []
            for arg in args:
                if arg.star == "**" and isinstance(arg.value, cst.Dict):
                    out.extend(self._unpacked(arg.value))  # ``Trainer(**{"accelerator": "auto", **kwargs})``
                    continue
                if arg.star == "**" and isinstance(arg.value, cst.Name):
                    # ``trainer_kwargs = dict(accelerator="gpu", ...)`` then ``Trainer(**trainer_kwargs)``: what it
                    # was built with (and whatever the code adds to it later, unknown)
                    out.extend(self._unpacked_name(arg.value.value))
                if arg.star:  # ``Trainer(**cfg)``, ``f(*args)``: what it passes is not known, only that it passes
                    out.append(Argument(arg.star, _OPAQUE))
                    continue
                keyword = arg.keyword.value if arg.keyword is not None else None
                value = self.value_of(arg.value)
                if value.kind == _OTHER and value.text is None:  # nothing a rule reads: share one object
                    out.append(_OPAQUE_POSITIONAL if keyword is None else Argument(keyword, _OPAQUE))
                else:
                    out.append(Argument(keyword, value))
                if type(arg.value) in LITERAL_TYPES:
                    self.consumed.add(id(arg.value))
            return tuple(out)
        finally:
            self._want_text = False

    def _unpacked_name(self, name: str) -> List[Argument]:
        """The keyword arguments a name bound once in its scope to a ``dict(...)`` call or a display passes."""
        qual, binding = self.scopes.lookup(name)
        exprs = binding.values.get(name) if qual is None and binding is not None else None
        if not exprs or len(exprs) != 1:
            return []
        table = exprs[0]
        if isinstance(table, cst.Dict):  # catalyst's ``process_group_kwargs = {"backend": "nccl", ...}``
            return self._unpacked(table, UNPACKED + name)
        if isinstance(table, cst.Call) and isinstance(table.func, cst.Name) and table.func.value == "dict":
            found = []
            for arg in table.args:
                if arg.keyword is not None:  # (where the value is written: its literal's own finding, if any)
                    value = self.with_origin(self.value_of(arg.value), arg.value, UNPACKED + name)
                    found.append(Argument(arg.keyword.value, value))
            return found
        return []

    def _unpacked(self, table: cst.Dict, via: Optional[str] = None) -> List[Argument]:
        """The keyword arguments a dict display unpacked into a call passes: its string keys with their values
        (a ``**rest`` inside it passes what the code computes, and is left out); a display bound to a name first
        (``via``) gives each value where it is written, as the name's ``dict(...)`` does."""
        found: List[Argument] = []
        for element in table.elements:
            key = element.key if isinstance(element, cst.DictElement) else None
            name = string_value(key) if isinstance(key, cst.SimpleString) else None
            if isinstance(element, cst.DictElement) and isinstance(name, str) and name.isidentifier():
                value = self.value_of(element.value)
                found.append(Argument(name, self.with_origin(value, element.value, via) if via else value))
        return found

    def value_of(self, node: cst.BaseExpression) -> Value:
        if self._depth > _MAX_DEPTH:
            return self._other(node)
        self._depth += 1
        try:
            return self._value_of(node)
        finally:
            self._depth -= 1

    def with_origin(self, value: Value, node: cst.CSTNode, via: str) -> Value:
        if value.origin is not None:
            return value
        return Value(value.kind, value.text, value.options, value.ref, self.emitter.span(node), via)

    # ------------------------------------------------------------------------------ by node type

    def _value_of(self, node: cst.BaseExpression) -> Value:
        kind = type(node)  # compared by identity: see ``STRING_TYPES``
        if kind in STRING_TYPES:
            text = string_value(node)
            return Value(ValueKind.STR, text) if isinstance(text, str) else self._other(node)
        if kind is cst.FormattedString:
            return Value(ValueKind.FSTR, "".join(part.value if isinstance(part, cst.FormattedStringText) else "{}"
                                         for part in node.parts))  # type: ignore[attr-defined]
        if kind is cst.Call:
            assert isinstance(node, cst.Call)
            if self.scopes.qualify(node.func) == "torch.device":
                return self._device_value(node)
            formatted = formatted_device(node)  # ``'cuda:{:d}'.format(rank)``
            if formatted is not None:
                return Value(ValueKind.FSTR, formatted)
            cast = _integer_cast(node, self.scopes)
            return Value(ValueKind.TENSOR, cast) if cast else self._other(node)
        if kind is cst.Name:
            return self._name_value(node.value)  # type: ignore[attr-defined]
        if kind is cst.Attribute:
            assert isinstance(node, cst.Attribute)
            return self._attribute_value(node)
        if kind is cst.Integer or kind is cst.Float:  # which overload a call takes (a Scalar one)
            return _number(node)
        if kind is cst.IfExp:
            assert isinstance(node, cst.IfExp)
            return Value(ValueKind.CHOICE, None, options=(self.value_of(node.body), self.value_of(node.orelse)))
        if isinstance(node, cst.BooleanOperation):
            return Value(ValueKind.CHOICE, None, options=(self.value_of(node.left), self.value_of(node.right)))
        if kind is cst.BinaryOperation:
            joined = self._joined(node)  # type: ignore[arg-type]
            if joined is not None:
                return joined
        return self._other(node)

    def _joined(self, node: cst.BinaryOperation) -> Optional[Value]:
        """``"cuda:" + str(rank)`` (rl-games' multi-GPU device, cellpose's): a string a number is appended to, read
        as the f-string it spells (``"cuda:{}"``); only a string literal ending in ``:`` on the left."""
        formatted = formatted_device(node)  # ``"cuda:%d" % rank``
        if formatted is not None:
            return Value(ValueKind.FSTR, formatted)
        text = device_prefix(node)
        if text is None:
            return None
        right = self.value_of(node.right)
        return Value(ValueKind.FSTR, text + (right.text if right.kind == _STR and right.text is not None else "{}"))

    def _other(self, node: cst.BaseExpression) -> Value:
        """An expression migrator does not model; its source text only where a rule reads it (it costs a codegen).
        A list or tuple of strings reads as every string, not as its clipped source (pointops' fifteen sources
        of one ``CUDAExtension``: the clipped text named four)."""
        if not self._want_text:
            return Value(ValueKind.OTHER, None)
        if isinstance(node, (cst.List, cst.Tuple)) and 0 < len(node.elements) <= _MOST_LISTED:
            items = [string_value(e.value) for e in node.elements if isinstance(e, cst.Element)]
            if len(items) == len(node.elements) and all(isinstance(i, str) for i in items):
                return Value(ValueKind.OTHER, repr(items))
        return Value(ValueKind.OTHER, self.emitter.code(node))

    def _device_value(self, call: cst.Call) -> Value:
        args = [a for a in call.args if a.keyword is None]
        kind = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "type"), None)
        first = kind if kind is not None else (args[0].value if args else None)
        if first is None:
            return Value(ValueKind.DEVICE, None)
        inner = self.value_of(first)
        has_index = len(args) > 1 or any(a.keyword is not None and a.keyword.value == "index" for a in call.args)
        if inner.kind in (_STR, _FSTR) and inner.text is not None:
            text = inner.text + (":{}" if has_index and ":" not in inner.text else "")
            return Value(ValueKind.DEVICE, text, origin=inner.origin, via=inner.via)
        return Value(ValueKind.DEVICE, None, options=(inner,), origin=inner.origin, via=inner.via)

    def _name_value(self, name: str) -> Value:
        qual, binding = self.scopes.lookup(name)
        if qual is not None:
            return Value(ValueKind.REF, name, ref=qual)
        if binding is None:
            return Value(ValueKind.OTHER, name)
        exprs = binding.values.get(name)
        if exprs is None:  # a parameter
            default = binding.params.get(name)
            if default is None:
                return Value(ValueKind.OTHER, name)
            value = self.with_origin(self.value_of(default), default, name)
            return Value(value.kind, value.text, value.options, value.ref, value.origin, value.via, True)
        if not exprs:
            return Value(ValueKind.OTHER, name)
        values = tuple(self.with_origin(self.value_of(e), e, name) for e in exprs)
        if len(values) == 1 or all((v.kind, v.text) == (values[0].kind, values[0].text) and v.kind == _STR
                                   for v in values):
            return values[0]
        return Value(ValueKind.CHOICE, name, options=values, via=name)

    def _attribute_expression(self, info: ClassInfo, expr: cst.BaseExpression, via: str) -> Value:
        """One value ``self.x`` was given; a method's parameter (``self.accelerator = accelerator``) is that
        parameter's default, read where it is written (the reading method's scope does not bind the name)."""
        if id(expr) not in info.from_params:
            return self.with_origin(self.value_of(expr), expr, via)
        default = info.from_params[id(expr)]
        if default is None:
            return Value(ValueKind.OTHER, via)
        value = self.with_origin(self.value_of(default), default, expr.value)  # type: ignore[attr-defined]
        return Value(value.kind, value.text, value.options, value.ref, value.origin, value.via, True)

    def _attribute_value(self, node: cst.Attribute) -> Value:
        receiver = node.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            info = self.scopes.current_class()
            exprs = info.attrs.get(node.attr.value) if info else None
            if exprs and info is not None:
                values = tuple(self._attribute_expression(info, e, f"self.{node.attr.value}") for e in exprs)
                if len(values) == 1:
                    return values[0]
                return Value(ValueKind.CHOICE, self.emitter.code(node), options=values)
        qual = self.scopes.qualify(node)
        if qual is not None:
            return Value(ValueKind.REF, self.emitter.code(node), ref=qual)
        default = self.argparse_defaults.get(node.attr.value)
        if default is not None and isinstance(receiver, cst.Name):
            value = self.with_origin(self.value_of(default), default, argparse_via(node.attr.value))
            return Value(value.kind, value.text, value.options, value.ref, value.origin, value.via)
        return Value(ValueKind.OTHER, self.emitter.code(node))


#: a value's ``via`` when a call receives it unpacked from a name's ``dict(...)`` (``**trainer_kwargs``)
UNPACKED = "**"


def argparse_via(option: str) -> str:
    """A value's ``via`` when it is a command-line option's default (``args.device`` -> ``--device default``)."""
    return f"--{option} default"


def from_argparse_default(value: Value) -> bool:
    via = value.via or ""
    return via.startswith("--") and via.endswith(" default")


def _integer_cast(call: cst.Call, scopes: Scopes) -> Optional[str]:
    """``x.long()``, ``x.int()``, ``x.to(torch.int64)``, ``x.to(dtype=torch.uint8)``: the integer dtype made."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    if func.attr.value in _INTEGER_CASTS and not call.args:
        return _INTEGER_CASTS[func.attr.value]
    if func.attr.value in ("to", "type") and call.args:
        arg = next((a for a in call.args if a.keyword is None or a.keyword.value == "dtype"), None)
        dtype = scopes.qualify(arg.value) if arg is not None else None
        return _INTEGER_DTYPES.get(dtype or "")
    return None


def argparse_option(call: cst.Call) -> Optional[Tuple[str, cst.BaseExpression]]:
    """``add_argument('--device', default='cuda')`` -> (``device``, its default), so ``args.device`` has a value."""
    keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    default, dest = keyword.get("default"), keyword.get("dest")
    if default is None:
        return None
    key = string_value(dest) if isinstance(dest, cst.SimpleString) else None
    if key is None:
        positional = (a.value for a in call.args if a.keyword is None and isinstance(a.value, cst.SimpleString))
        for name in map(string_value, positional):
            if isinstance(name, str):
                key = name.lstrip("-").replace("-", "_")
                if name.startswith("--"):
                    break
    return (key, default) if isinstance(key, str) else None
