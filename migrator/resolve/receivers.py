"""Receiver typing: is ``x`` in ``x.cuda()`` an ``nn.Module``, some other object, or unknown (maybe a
tensor)? Only from what the module itself shows: ``self`` in a class, ``x = Cls(...)``, string literals."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from ..model import Confidence
from .modules import QUIET_ROOTS, STDLIB, is_torch
from .scope import ClassInfo, Scopes

MODULE, OTHER, UNKNOWN = "module", "other", "unknown"
_NOT_OBJECTS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Dict, cst.Set,
                cst.Integer, cst.Float, cst.ListComp, cst.DictComp)
_PLAIN_VALUES = (cst.SimpleString, cst.List, cst.Dict, cst.ListComp, cst.FormattedString, cst.Set, cst.SetComp,
                 cst.DictComp, cst.Tuple)
#: Builtins whose instances share method names with tensors (``set.add``, ``dict.values``, ``list.index``).
_BUILTIN_TYPES = frozenset({"set", "frozenset", "dict", "list", "tuple", "str", "bytes", "bytearray", "int", "float",
                            "bool", "range", "enumerate", "zip", "map", "filter", "sorted", "reversed", "open",
                            "iter", "vars", "globals", "locals", "memoryview", "object"})
#: Methods that return a tensor's storage, whose own methods (``resize_``, ``size``) are no tensor's.
_STORAGE_OF = frozenset({"storage", "untyped_storage", "_typed_storage"})
#: Annotations that say a parameter is a tensor (or a parameter, which is one).
_TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter", "Tensor"})


def method_owner(scopes: Scopes, receiver: cst.BaseExpression) -> Optional[Tuple[str, Confidence]]:
    """Whose method ``receiver.m(...)`` calls: ``torch.nn.Module`` (resolved), ``torch.Tensor`` (a guess, as
    the receiver's type is unknown), or ``None`` for a literal, a display or a repo object that is neither."""
    if isinstance(receiver, _NOT_OBJECTS):
        return None
    kind = receiver_kind(scopes, receiver)
    if kind == OTHER:
        return None
    return ("torch.nn.Module", Confidence.RESOLVED) if kind == MODULE else ("torch.Tensor", Confidence.HEURISTIC)


def instance_class(scopes: Scopes, receiver: cst.BaseExpression) -> Optional[str]:
    """The qualified class of ``receiver`` when it is a name bound once to ``Class(...)`` (``lib`` after
    ``lib = torch.library.Library('ns', 'IMPL')``), else ``None``."""
    exprs = _bound_values(scopes, receiver)
    if exprs and len(exprs) == 1 and isinstance(exprs[0], cst.Call):
        return scopes.qualify(exprs[0].func)
    return None


def _bound_values(scopes: Scopes, receiver: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    if isinstance(receiver, cst.Name):
        qual, binding = scopes.lookup(receiver.value)
        return binding.values.get(receiver.value) if qual is None and binding is not None else None
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
        info = scopes.current_class()
        return info.attrs.get(receiver.attr.value) if info else None
    return None


def receiver_kind(scopes: Scopes, receiver: cst.BaseExpression) -> str:
    """``MODULE`` for an nn.Module, ``OTHER`` for an instance of a repo class that is not one, else ``UNKNOWN``."""
    if isinstance(receiver, cst.Name) and receiver.value == "self":
        info = scopes.current_class()
        if info is not None and not _TENSOR_TYPES.intersection(info.bases):  # a Tensor subclass is a tensor
            return MODULE if _is_module_class(scopes, info) else OTHER
        return UNKNOWN
    if isinstance(receiver, cst.Name):
        qual, binding = scopes.lookup(receiver.value)
        if qual is not None:
            return OTHER if not is_torch(qual) else UNKNOWN
        annotation = binding.annotations.get(receiver.value) if binding is not None else None
        if annotation is not None:
            return _annotated_kind(scopes, annotation)
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) \
            and receiver.func.attr.value in _STORAGE_OF:
        return OTHER  # ``p.data.storage().resize_(0)``: a storage, not a tensor
    exprs = [receiver] if isinstance(receiver, cst.Call) else _bound_values(scopes, receiver)
    if exprs and len(exprs) == 1 and isinstance(exprs[0], cst.Call):
        callee = exprs[0].func
        if isinstance(callee, cst.Name) and callee.value in scopes.classes:
            return MODULE if _is_module_class(scopes, scopes.classes[callee.value]) else OTHER
        if isinstance(callee, cst.Name) and callee.value in _BUILTIN_TYPES \
                and scopes.lookup(callee.value) == (None, None):
            return OTHER
        qual = scopes.qualify(callee)
        if qual and qual.startswith("torch.nn.") and qual.split(".")[-1][:1].isupper() and "Parameter" not in qual:
            return MODULE
        if qual and qual.split(".")[0] in (QUIET_ROOTS | STDLIB):
            return OTHER
        if qual and not is_torch(qual) and qual.rsplit(".", 1)[-1][:1].isupper():
            # ``self.distr = TwoHotDist(logits=out)`` from another module: an object of a class (a module, or
            # not), whose ``mode()`` is its own; a tensor subclass made so is the rare case
            return MODULE
    if exprs and len(exprs) == 1 and isinstance(exprs[0], _PLAIN_VALUES):
        return OTHER
    return UNKNOWN


def of_a_class_defined_elsewhere(scopes: Scopes, receiver: cst.BaseExpression) -> bool:
    """Whether ``receiver`` is a parameter annotated with a class another module defines (``model: Model`` after
    ``from .models import Model``, a library's ``PreTrainedModel``): what the class is, the file cannot see (a
    class this module defines is read as it is written; the standard library's are no modules)."""
    if not isinstance(receiver, cst.Name):
        return False
    qual, binding = scopes.lookup(receiver.value)
    annotation = binding.annotations.get(receiver.value) if qual is None and binding is not None else None
    if annotation is None or isinstance(annotation, cst.SimpleString):
        return False
    named = scopes.qualify(annotation)
    if named is None or is_torch(named) or named.split(".")[0] in (QUIET_ROOTS | STDLIB):
        return False
    return not named.startswith(scopes.module_name + ".") and named.rsplit(".", 1)[-1][:1].isupper()


def _annotated_kind(scopes: Scopes, annotation: cst.BaseExpression) -> str:
    """A parameter's annotation: a tensor type (or one we cannot read) is ``UNKNOWN``, a module ``MODULE``, any
    other class or builtin ``OTHER`` (``boxes: Boxes``, ``cfg: dict``)."""
    if isinstance(annotation, cst.SimpleString):  # "Boxes": a forward reference
        name = annotation.value.strip("'\"")
        if name in _TENSOR_TYPES or not name.isidentifier():
            return UNKNOWN
        info = scopes.classes.get(name)
        return MODULE if info is not None and _is_module_class(scopes, info) else OTHER
    if isinstance(annotation, cst.Name) and annotation.value in _BUILTIN_TYPES:
        return OTHER
    qual = scopes.qualify(annotation)
    if qual is None or qual in _TENSOR_TYPES or qual.startswith("typing."):
        return UNKNOWN  # an Optional[...] or a name we cannot see: maybe a tensor
    if qual.startswith("torch.nn.") and qual.rsplit(".", 1)[-1][:1].isupper() and "Parameter" not in qual:
        return MODULE
    local = qual.rsplit(".", 1)[-1]
    if qual.startswith(scopes.module_name + ".") and local in scopes.classes:
        return MODULE if _is_module_class(scopes, scopes.classes[local]) else OTHER
    return UNKNOWN if is_torch(qual) else OTHER


def _is_module_class(scopes: Scopes, info: ClassInfo, depth: int = 0) -> bool:
    own = scopes.module_name + "."
    for base in info.bases:
        if base.startswith("torch.nn.") or base.startswith("torch.jit."):
            return True
        local = base.rsplit(".", 1)[-1]
        if base.startswith(own) and local in scopes.classes and depth < 10:
            if _is_module_class(scopes, scopes.classes[local], depth + 1):
                return True
        elif not base.startswith(own):
            return True  # an imported base we cannot see: may be a Module, so not "other"
    return False
