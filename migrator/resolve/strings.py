"""What a string literal holds: libcst's ``evaluated_value``, without a compile for the plain ones.

libcst evaluates every ``SimpleString`` with ``ast.literal_eval``, which compiles the literal: 27k compiles on
timm, a twentieth of the resolver. A literal with no escapes to decode (no backslash, no carriage return, no
bytes prefix) holds exactly the text between its quotes, so that text is cut out instead; anything else is
left to ``ast.literal_eval`` as before.
"""

from __future__ import annotations

import re

from typing import Optional, Union

import libcst as cst

#: Prefixes whose literal text is the value itself when it has no backslash (``u`` changes nothing).
_PLAIN_PREFIXES = frozenset({"", "r", "u"})


def string_value(node: cst.BaseExpression) -> Union[str, bytes, None]:
    """The value of a ``SimpleString`` or ``ConcatenatedString``; ``None`` for anything else, for an f-string
    part, for str mixed with bytes, and for a literal that does not evaluate."""
    if isinstance(node, cst.SimpleString):
        return _simple(node.value)
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_value(node.left), string_value(node.right)
        if isinstance(left, str) and isinstance(right, str) or isinstance(left, bytes) and isinstance(right, bytes):
            return left + right  # type: ignore[operator]
    return None


def _simple(literal: str) -> Union[str, bytes, None]:
    start = _opening_quote(literal)
    if start is not None and literal[:start].lower() in _PLAIN_PREFIXES and "\\" not in literal \
            and "\r" not in literal:
        width = 3 if literal.startswith(literal[start] * 3, start) and len(literal) - start >= 6 else 1
        return literal[start + width:len(literal) - width]
    try:
        from ast import literal_eval

        value = literal_eval(literal)
    except Exception:  # not a literal CPython reads (libcst accepts a few it does not)
        return None
    return value if isinstance(value, (str, bytes)) else None


def _opening_quote(literal: str) -> Optional[int]:
    for index, char in enumerate(literal[:3]):
        if char in "'\"":
            return index
    return None


def part_of_a_name(operation: cst.CSTNode, string: cst.CSTNode) -> bool:
    """Whether ``string`` is a part of a name the expression ``operation`` builds, not a device or a backend:
    ``"cuda" + suffix`` (the start of a kernel's name), ``root / "nccl"`` (a folder). ``"cuda:" + str(rank)``,
    a string ending in ``:`` on the left of a ``+``, spells a device and is none."""
    if not isinstance(operation, cst.BinaryOperation) or not isinstance(operation.operator, (cst.Add, cst.Divide)):
        return False
    if isinstance(operation.operator, cst.Divide):
        return True
    return not (operation.left is string and device_prefix(operation) is not None)


def device_prefix(operation: cst.BinaryOperation) -> Optional[str]:
    """``"cuda:"`` of ``"cuda:" + str(rank)``: a string literal ending in ``:`` on the left of a ``+``, the start of
    a device the expression spells (rl-games' multi-GPU device, cellpose's)."""
    if not isinstance(operation.operator, cst.Add):
        return None
    text = string_value(operation.left)
    return text if isinstance(text, str) and text.endswith(":") else None


#: a placeholder of ``str.format`` (``{}``, ``{:d}``, ``{0}``) and of ``%``-formatting (``%d``, ``%s``)
_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")
_PERCENT_FIELD = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[sdir]")
#: a device with its index left to the formatting: ``cuda:{}`` once the placeholders read ``{}``
_INDEXED_DEVICE = re.compile(r"^[a-z]+:\{\}$")


def formatted_device(node: cst.BaseExpression) -> Optional[str]:
    """``"cuda:{}"`` of ``'cuda:{:d}'.format(rank)`` (HiFi-GAN's training device) and of ``"cuda:%d" % rank``: a
    device string whose index the formatting fills, read as the f-string it spells; ``None`` for anything else."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        text = string_value(node.func.value)
        spelled = _FORMAT_FIELD.sub("{}", text) if isinstance(text, str) else None
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        text = string_value(node.left)
        spelled = _PERCENT_FIELD.sub("{}", text) if isinstance(text, str) else None
    else:
        return None
    return spelled if spelled is not None and _INDEXED_DEVICE.match(spelled) else None
