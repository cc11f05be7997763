"""Keys a function sets before it reads them with a default: the default never applies.

funasr's ``train.py`` chooses the device, writes it into its keyword dict, and reads it back further down::

    kwargs["device"] = device
    ...
    model = model.to(device=kwargs.get("device", "cuda"))

The ``"cuda"`` there is no device anything runs on: the key is set. A key set in the function's own block (not
in a branch that may not run), with the dict not bound again and the key not taken out (``del d["k"]``,
``d.pop("k")``) before the read, makes the read's default dead. Read as the walk goes, in the order the function
runs: a key set by the statement that reads it (``d["k"] = d.get("k", "cuda")``) is set after the read.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from .strings import string_value


class KeysSet:
    """Per function the walk is in: the keys of each name its own block has set so far."""

    def __init__(self) -> None:
        self._frames: List[Tuple[int, Dict[str, Set[str]]]] = []  # (the function body's id, name -> keys)

    def enter(self, body: cst.BaseSuite) -> None:
        self._frames.append((id(body), {}))

    def leave(self) -> None:
        self._frames.pop()

    def bound(self, target: cst.BaseExpression) -> None:
        """``target`` is bound again (an assignment, a ``for``, a ``with ... as``): the keys it had are gone."""
        if not self._frames:
            return
        if isinstance(target, cst.Name):
            self._frames[-1][1].pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bound(element.value)

    def assigned(self, node: cst.Assign, block: Optional[cst.BaseSuite]) -> None:
        """After ``node`` ran: a ``d["k"] = ...`` in the function's own block (``block``) sets the key."""
        if not self._frames or block is None or id(block) != self._frames[-1][0]:
            return
        for target in node.targets:
            found = subscript_key(target.target)
            if found is not None:
                self._frames[-1][1].setdefault(found[0], set()).add(found[1])

    def deleted(self, target: cst.BaseExpression) -> None:
        found = subscript_key(target)
        if found is not None and self._frames:
            self._frames[-1][1].get(found[0], set()).discard(found[1])

    def read(self, call: cst.Call, consumed: Set[int]) -> None:
        """``d.get("k", default)`` with ``d["k"]`` set: its default is no value anything reads (``consumed``)."""
        default = self._dead_default(call)
        if default is not None:
            consumed.add(id(default))

    def _dead_default(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The default of ``d.get("k", default)`` when ``d["k"]`` is set; a ``d.pop("k")`` takes the key out."""
        func = call.func
        if not self._frames or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return None
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        key = string_value(positional[0]) if positional else None
        keys = self._frames[-1][1].get(func.value.value)
        if key is None or keys is None:
            return None
        if func.attr.value == "pop":
            keys.discard(key)
        elif func.attr.value == "get" and len(positional) == 2 and key in keys:
            return positional[1]
        return None


def subscript_key(node: cst.BaseExpression) -> Optional[Tuple[str, str]]:
    """``d["key"]``: ("d", "key")."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1 \
            and isinstance(node.slice[0].slice, cst.Index):
        key = string_value(node.slice[0].slice.value)
        return (node.value.value, key) if isinstance(key, str) else None
    return None
