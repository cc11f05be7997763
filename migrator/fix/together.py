"""A unit of code's device spellings change together, or the unit is left for a hand edit (issue 25, class 2).

What it does:
    Before ``fix`` edits a file, it splits the file into *units*: each function, and each top-level
    statement. A function joins the top-level statements that bind a name it reads (``dp_factory`` below),
    so a helper and the tables it indexes form one *group*. In a group that gets any edit, every CUDA
    device spelling (``'cuda'``, ``'cuda:0'``, ``"cuda:{}"``, ``f"cuda:{rank}"``) must end up rewritten.

Why:
    mmdet-style helpers map ``'cuda'`` to a wrapper through a comparison *and* a dict key::

        dp_factory = {'cuda': DataParallel, 'cpu': DataParallel}      # no finding: only a dict key

        def build_dp(model, device='cuda'):                           # finding: rewritten
            if device == 'cuda':                                      # finding: rewritten
                model = model.cuda()                                  # finding: rewritten
            return dp_factory[device](model)                          # KeyError: 'npu'

    Rewriting the findings alone leaves the key ``'cuda'`` behind, and the helper breaks on the target.

Fix:
    - a spelling outside a comparison (a dict key, a ``choices`` list, a returned value, a format string
      handed to a renamed call) is rewritten with the rest, also when its own finding alone would wait for
      ``--unsafe`` (a ``'cuda'`` of no known role: in this group, it is the device);
    - a group whose spellings cannot all change is left as it was, and every edit in it is reported for a
      hand edit with the lines that hold it back: a comparison with ``'cuda'`` that is not rewritten in this
      mode (is it a device?), or a group that already spells the target device (a multi-device helper,
      ported or half-ported by hand).
    A spelling a finding judged to stay (the test of an ``if`` whose other branch runs on the target) stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import PositionProvider

#: a CUDA device spelling: ``cuda``, ``cuda:0``, and format templates (``cuda:{}``, ``cuda:%d``); f-strings are
#: matched on their text with ``{}`` where expressions stand
_DEVICE = re.compile(r"(?P<device>[a-z]+)(:\S*)?\Z")

Position = Tuple[int, int]  # (line, column), as ``PositionProvider`` gives a node's start


@dataclass(frozen=True)
class Spelling:
    """One string literal that spells a device."""

    node: cst.CSTNode  # the SimpleString or FormattedString
    at: Position
    device: str  # the device it names: "cuda", or the target's ("npu")
    unit: int  # the unit it belongs to (an index into ``Units.spans``)
    compared: bool  # an operand of a comparison (``device == 'cuda'``, ``x in ('cuda', 'cpu')``)
    in_args_of: FrozenSet[int]  # ids of the callee nodes of the calls whose arguments hold it


@dataclass(frozen=True)
class Decision:
    """What the group check makes of a file's edits."""

    added: Tuple[Tuple[cst.CSTNode, int], ...]  # (literal to rewrite with the group, index of the edit it joins)
    held: Mapping[int, str]  # edit index -> why its group is left for a hand edit


def device_of(node: cst.CSTNode) -> Optional[str]:
    """The device a string literal spells (``"cuda:{}"`` -> ``cuda``), or ``None``."""
    if isinstance(node, cst.SimpleString):
        if "b" in node.prefix.lower():
            return None
        try:
            value = node.evaluated_value
        except Exception:  # an escape libcst cannot evaluate: not a device spelling we would rewrite
            return None
    elif isinstance(node, cst.FormattedString):
        if not node.parts or not isinstance(node.parts[0], cst.FormattedStringText):
            return None
        value = "".join(p.value if isinstance(p, cst.FormattedStringText) else "{}" for p in node.parts)
    else:
        return None
    match = _DEVICE.match(value) if isinstance(value, str) else None
    return match.group("device") if match else None


class _Units(cst.CSTVisitor):
    """One walk: each device spelling with its unit, each unit's names read and bound, and the unit of each
    node an edit was found on."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, devices: Tuple[str, str], edited: Set[int]) -> None:
        self.devices = devices  # ("cuda", the target's device)
        self.edited = edited  # ids of the nodes edits apply to
        self.stack: List[cst.CSTNode] = []
        self.unit_of_node: Dict[int, int] = {}  # id(unit node) -> unit index
        self.first_lines: List[int] = []  # per unit: its first line (for messages)
        self.names: List[Set[str]] = []  # per unit: names read (functions) or bound (top-level statements)
        self.top_level: List[bool] = []
        self.spellings: List[Spelling] = []
        self.edit_units: Dict[int, int] = {}  # id(edited node) -> unit

    def _unit(self) -> int:
        holder: Optional[cst.CSTNode] = next((n for n in reversed(self.stack) if isinstance(n, cst.FunctionDef)),
                                             None)
        if holder is None:
            holder = self.stack[1] if len(self.stack) > 1 else self.stack[0]
        key = id(holder)
        if key not in self.unit_of_node:
            self.unit_of_node[key] = len(self.names)
            position = self.get_metadata(PositionProvider, holder, None)
            self.first_lines.append(position.start.line if position else 0)
            self.names.append(set())
            self.top_level.append(not isinstance(holder, cst.FunctionDef))
        return self.unit_of_node[key]

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if len(self.stack) == 1:
            return True
        if id(node) in self.edited:
            self.edit_units[id(node)] = self._unit()
        if isinstance(node, cst.Name):
            unit = self._unit()
            if not self.top_level[unit] or self._is_bound_here(node):
                self.names[unit].add(node.value)
        device = device_of(node) if isinstance(node, (cst.SimpleString, cst.FormattedString)) else None
        if device in self.devices:
            position = self.get_metadata(PositionProvider, node)
            self.spellings.append(Spelling(node, (position.start.line, position.start.column), device,
                                           self._unit(), self._compared(), self._in_args_of()))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()

    def _is_bound_here(self, node: cst.Name) -> bool:
        """``node`` is an assignment's target at the top level (``dp_factory = {...}``)."""
        parent = self.stack[-2]
        return isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)) and parent.target is node

    def _compared(self) -> bool:
        return any(isinstance(n, cst.Comparison) for n in self.stack)

    def _in_args_of(self) -> FrozenSet[int]:
        holders = set()
        for parent, child in zip(self.stack, self.stack[1:]):
            if isinstance(parent, cst.Call) and isinstance(child, cst.Arg):
                holders.add(id(parent.func))
        return frozenset(holders)


def decide(wrapper_module: "cst.MetadataWrapper", found: Mapping[int, Sequence[int]], renames: Set[int],
           kinds: Mapping[int, str], devices: Tuple[str, str], settled: Set[Position],
           pending: Set[Position], guards: Optional[Mapping[Position, str]] = None) -> Decision:
    """Group the file's units and decide, per group that gets an edit, whether its spellings change together.

    ``found``: id(node) -> indices of the edits applied there; ``renames``: ids of the nodes a ``name`` edit
    renames (a call to one of them has its device-string arguments rewritten with it); ``kinds``: edit index
    -> edit kind; ``settled``: positions of spellings a finding judged to stay; ``pending``: positions of
    spellings a finding wants changed by an edit this run does not apply; ``guards``: positions of spellings
    a guard holds back (``protocols``), with why."""
    units = _Units(devices, set(found))
    wrapper_module.visit(units)
    groups = _groups(units)
    cuda, target = devices
    changing: Dict[int, Tuple[int, ...]] = {}  # id(literal) -> the edits that change it (string edits)
    for node_id, indices in found.items():
        if any(kinds[i] in ("string", "fstring") for i in indices):
            changing[node_id] = tuple(indices)
    edits_by_group: Dict[int, List[int]] = {}
    for node_id, indices in found.items():
        group = groups[units.edit_units[node_id]] if node_id in units.edit_units else None
        if group is not None:
            edits_by_group.setdefault(group, []).extend(indices)
    added: List[Tuple[cst.CSTNode, int]] = []
    held: Dict[int, str] = {}
    for group, indices in edits_by_group.items():
        members = [s for s in units.spellings if groups[s.unit] == group]
        blockers: List[str] = []
        joins: List[cst.CSTNode] = []
        for spelling in members:
            line = spelling.at[0]
            if spelling.device == target:
                blockers.append(f"line {line} already spells '{target}' (a multi-device helper)")
            elif id(spelling.node) in changing or spelling.at in settled:
                continue
            elif spelling.in_args_of & renames or not spelling.compared:
                joins.append(spelling.node)  # a key, a default, a choice, an argument of a renamed call
            elif guards and spelling.at in guards:
                blockers.append(f"line {line} compares with '{cuda}' in a guard that stays: {guards[spelling.at]}")
            elif spelling.at in pending:
                blockers.append(f"line {line} compares with '{cuda}', a rewrite this mode does not apply")
            else:
                blockers.append(f"line {line} compares with '{cuda}' and no finding says it is a device")
        if blockers:
            first = min(units.first_lines[u] for u, g in groups.items() if g == group)
            why = (f"the code from line {first} spells the device in places that cannot all change together "
                   f"({'; '.join(dict.fromkeys(blockers))}): rewriting part of it would leave '{cuda}' "
                   "and '{target}' mixed, so none of it is rewritten; edit it by hand").replace("{target}", target)
            held.update({index: why for index in indices})
        else:
            added.extend((node, indices[0]) for node in joins)
    return Decision(tuple(added), held)


def _groups(units: _Units) -> Dict[int, int]:
    """unit -> group: a function joins the top-level statements that spell a device and bind a name it reads."""
    parent = list(range(len(units.names)))

    def find(unit: int) -> int:
        while parent[unit] != unit:
            parent[unit] = parent[parent[unit]]
            unit = parent[unit]
        return unit

    spelled = {spelling.unit for spelling in units.spellings}  # a ``logger = ...`` joins nothing
    binders: Dict[str, List[int]] = {}
    for unit, names in enumerate(units.names):
        if units.top_level[unit] and unit in spelled:
            for name in names:
                binders.setdefault(name, []).append(unit)
    for unit, names in enumerate(units.names):
        if units.top_level[unit]:
            continue
        for name in names:
            for binder in binders.get(name, ()):
                parent[find(binder)] = find(unit)
    return {unit: find(unit) for unit in range(len(units.names))}
