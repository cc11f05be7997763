"""The dotted name a libcst expression spells (``a.b.c``): shared by the resolver and the fixer."""

from __future__ import annotations

import libcst as cst


def dotted(node: cst.BaseExpression) -> str:
    """``a.b.c`` for a chain of names, ``""`` for anything else (``f().x``, ``a[0].b``)."""
    # ``type(...) is``, not ``isinstance``: libcst's node types are ABCs, and most nodes asked about are neither
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        inner = dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else ""
    return ""
