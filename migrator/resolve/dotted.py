"""The dotted name a libcst expression spells (``a.b.c``): shared by the resolver and the fixer."""

from __future__ import annotations

import libcst as cst


def dotted(node: cst.BaseExpression) -> str:
    """``a.b.c`` for a chain of names, ``""`` for anything else (``f().x``, ``a[0].b``)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else ""
    return ""
