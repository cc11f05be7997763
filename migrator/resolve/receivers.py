"""Receiver typing: is ``x`` in ``x.cuda()`` an ``nn.Module``, some other object, or unknown (maybe a
tensor)? Only from what the module itself shows: ``self`` in a class, ``x = Cls(...)``, string literals."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from ..model import Confidence
from .names import QUIET_ROOTS, STDLIB, is_torch
from .scope import ClassInfo, Scopes

MODULE, OTHER, UNKNOWN = "module", "other", "unknown"
_NOT_OBJECTS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Dict, cst.Set,
                cst.Integer, cst.Float, cst.ListComp, cst.DictComp)
_PLAIN_VALUES = (cst.SimpleString, cst.List, cst.Dict, cst.ListComp, cst.FormattedString)


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
        if info is not None:
            return MODULE if _is_module_class(scopes, info) else OTHER
        return UNKNOWN
    if isinstance(receiver, cst.Name):
        qual, _ = scopes.lookup(receiver.value)
        if qual is not None:
            return OTHER if not is_torch(qual) else UNKNOWN
    exprs = [receiver] if isinstance(receiver, cst.Call) else _bound_values(scopes, receiver)
    if exprs and len(exprs) == 1 and isinstance(exprs[0], cst.Call):
        callee = exprs[0].func
        if isinstance(callee, cst.Name) and callee.value in scopes.classes:
            return MODULE if _is_module_class(scopes, scopes.classes[callee.value]) else OTHER
        qual = scopes.qualify(callee)
        if qual and qual.startswith("torch.nn.") and qual.split(".")[-1][:1].isupper():
            return MODULE
        if qual and qual.split(".")[0] in (QUIET_ROOTS | STDLIB):
            return OTHER
    if exprs and len(exprs) == 1 and isinstance(exprs[0], _PLAIN_VALUES):
        return OTHER
    return UNKNOWN


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
