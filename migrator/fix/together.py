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
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.metadata import PositionProvider

from ..resolve.dotted import dotted
from ..resolve.strings import part_of_a_name

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
    compared_with: FrozenSet[str] = frozenset()  # the variables it is compared with (``_Units.key``)
    lone_branch: Optional[int] = None  # the line of the ``if`` without ``else`` whose test holds it


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

    def __init__(self, renames: Mapping[str, str], edited: Set[int]) -> None:
        self.renames = renames  # CUDA's spelling -> the target's: {"cuda": "npu", "nccl": "hccl"}
        self.olds = frozenset(renames)
        self.spelled = frozenset(renames) | frozenset(renames.values())
        self.edited = edited  # ids of the nodes edits apply to
        self.stack: List[cst.CSTNode] = []
        self.unit_of_node: Dict[int, int] = {}  # id(unit node) -> unit index
        self.first_lines: List[int] = []  # per unit: its first line (for messages)
        self.names: List[Set[str]] = []  # per unit: names read (functions) or bound (top-level statements)
        self.top_level: List[bool] = []
        self.spellings: List[Spelling] = []
        self.edit_units: Dict[int, int] = {}  # id(edited node) -> unit
        # device variables: a parameter whose default spells a device, a name or ``self.x`` assigned one, or
        # assigned from one (``self.device = device``); key -> positions of the spellings that feed it
        self.feeders: Dict[str, List[Position]] = {}
        self.flows: List[Tuple[str, FrozenSet[str]]] = []  # (key assigned, keys its value reads)
        self.attributes: Dict[int, Set[str]] = {}  # unit -> the ``self.x`` keys it mentions
        self.classes: Dict[int, int] = {}  # unit -> id of the class it is a method of

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
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            key = self.key(node)
            if key is not None:
                unit = self._unit()
                self.attributes.setdefault(unit, set()).add(key)
                holder = self._class()
                if holder is not None:
                    self.classes[unit] = id(holder)
        elif isinstance(node, cst.Param) and node.default is not None and device_of(node.default) in self.olds:
            position = self.get_metadata(PositionProvider, node.default)
            self.feeders.setdefault(f"{self._unit()}:{node.name.value}", []).append(
                (position.start.line, position.start.column))
        elif isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            self._flow(node)
        device = device_of(node) if isinstance(node, (cst.SimpleString, cst.FormattedString)) \
            and not (len(self.stack) > 1 and part_of_a_name(self.stack[-2], node)) else None
        if device in self.spelled:
            position = self.get_metadata(PositionProvider, node)
            compared = self._compared()
            self.spellings.append(Spelling(node, (position.start.line, position.start.column), device,
                                           self._unit(), compared, self._in_args_of(),
                                           self._compared_with(node) if compared else frozenset(),
                                           self._lone_branch()))
        return True

    def key(self, node: cst.CSTNode) -> Optional[str]:
        """The variable an expression reads, as a key: ``self.device`` (per class), ``device`` (per unit);
        ``str(x)``, ``x.type`` and ``torch.device(x)`` read ``x``."""
        while True:
            if isinstance(node, cst.Call) and len(node.args) == 1 and (
                    (isinstance(node.func, cst.Name) and node.func.value == "str")
                    or dotted(node.func) == "torch.device"):
                node = node.args[0].value
            elif isinstance(node, cst.Attribute) and node.attr.value == "type":
                node = node.value
            else:
                break
        if isinstance(node, cst.Name):
            return f"{self._unit()}:{node.value}"
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            holder = self._class()
            return f"class{id(holder)}:self.{node.attr.value}" if holder is not None else None
        return None

    def _class(self) -> Optional[cst.ClassDef]:
        return next((n for n in reversed(self.stack) if isinstance(n, cst.ClassDef)), None)

    def _flow(self, node: Union[cst.Assign, cst.AnnAssign]) -> None:
        """``target = value``: the target is a device variable when the value spells the device or reads one."""
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        keys = [k for k in (self.key(t) for t in targets) if k is not None]
        if not keys or node.value is None:
            return
        spelled, read = [], set()
        pending: List[cst.CSTNode] = [node.value]
        while pending:  # the expressions the value may be: ``a if c else b``, ``a or b``, ``torch.device(a)``
            current = pending.pop()
            if isinstance(current, cst.IfExp):
                pending.extend((current.body, current.orelse))
            elif isinstance(current, cst.BooleanOperation):
                pending.extend((current.left, current.right))
            elif isinstance(current, cst.Call) and dotted(current.func) == "torch.device" and current.args:
                pending.append(current.args[0].value)
            elif device_of(current) in self.olds:
                position = self.get_metadata(PositionProvider, current, None)
                if position is not None:
                    spelled.append((position.start.line, position.start.column))
            else:
                key = self.key(current)
                if key is not None:
                    read.add(key)
        for key in keys:
            if spelled:
                self.feeders.setdefault(key, []).extend(spelled)
            self.flows.append((key, frozenset(read)))

    def _lone_branch(self) -> Optional[int]:
        for holder, child in zip(self.stack, self.stack[1:]):
            if isinstance(holder, cst.If) and child is holder.test and holder.orelse is None:
                position = self.get_metadata(PositionProvider, holder, None)
                return position.start.line if position else 0
        return None

    def _compared_with(self, spelling: cst.CSTNode) -> FrozenSet[str]:
        comparison = next(n for n in reversed(self.stack) if isinstance(n, cst.Comparison))
        sides = [comparison.left, *(c.comparator for c in comparison.comparisons)]
        holding = {id(n) for n in self.stack}
        keys = {self.key(side) for side in sides if id(side) not in holding}
        return frozenset(k for k in keys if k is not None)

    def fed(self, settled: Set[Position]) -> Set[str]:
        """The device variables fed by a spelling that is not judged to stay, closed over the assignments."""
        keys = {key for key, spots in self.feeders.items() if any(spot not in settled for spot in spots)}
        grown = True
        while grown:
            grown = False
            for key, read in self.flows:
                if key not in keys and read & keys:
                    keys.add(key)
                    grown = True
        return keys

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
           pending: Set[Position], guards: Optional[Mapping[Position, str]] = None,
           backends: Optional[Tuple[str, str]] = None) -> Decision:
    """Group the file's units and decide, per group that gets an edit, whether its spellings change together.

    ``found``: id(node) -> indices of the edits applied there; ``renames``: ids of the nodes a ``name`` edit
    renames (a call to one of them has its device-string arguments rewritten with it); ``kinds``: edit index
    -> edit kind; ``settled``: positions of spellings a finding judged to stay; ``pending``: positions of
    spellings a finding wants changed by an edit this run does not apply; ``guards``: positions of spellings
    a guard holds back (``protocols``), with why; ``backends``: (``"nccl"``, the target's backend), whose
    spellings (a default, a comparison, a key) change together in the same way."""
    spellings_to = {old: new for old, new in (devices, backends or devices) if old != new}
    units = _Units(spellings_to, set(found))
    wrapper_module.visit(units)
    fed = units.fed(settled)
    groups = _groups(units, fed)
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
            if id(spelling.node) in changing and spelling.device in spellings_to:
                continue  # a string edit changes it already
            joins_it, blocker = _fate(spelling, spellings_to, guards or {}, settled, pending, fed, renames)
            if joins_it:
                joins.append(spelling.node)
            elif blocker is not None:
                blockers.append(blocker)
        if blockers:
            first = min(units.first_lines[u] for u, g in groups.items() if g == group)
            why = (f"the code from line {first} spells the device in places that cannot all change together "
                   f"({'; '.join(dict.fromkeys(blockers))}): rewriting part of it would leave CUDA's spellings "
                   f"beside the target's ({', '.join(f'{o} -> {n}' for o, n in spellings_to.items())}), so none of "
                   "it is rewritten; edit it by hand")
            held.update({index: why for index in indices})
        else:
            added.extend((node, indices[0]) for node in joins)
    return Decision(tuple(added), held)


def _fate(spelling: Spelling, spellings_to: Mapping[str, str], guards: Mapping[Position, str], settled: Set[Position],
          pending: Set[Position], fed: Set[str], renames: Set[int]) -> Tuple[bool, Optional[str]]:
    """(whether a device spelling of a group no edit changes joins the group's rewrite, why it blocks it
    instead, if it does). Neither: it stays, and that is no obstacle."""
    line, old = spelling.at[0], spelling.device
    if old not in spellings_to:
        return False, f"line {line} already spells '{old}' (a multi-device helper)"
    if guards and spelling.at in guards:
        return False, f"line {line} spells '{old}' where it stays: {guards[spelling.at]}"
    if spelling.at in settled:
        # ``if 'cuda' in self.device:`` where this code's own default feeds ``self.device``: once the default is
        # renamed the test must be too, or its branch never runs again (timm's benchmark timing without a sync);
        # ``protocols`` then checks that the branch runs on the target
        return bool(spelling.compared_with & fed), None
    if spelling.in_args_of & renames or not spelling.compared:
        return True, None  # a key, a default, a choice, an argument of a renamed call
    if spelling.compared_with & fed:
        return True, None  # compared with a variable the group's own device spelling feeds
    if spelling.at in pending:
        return False, f"line {line} compares with '{old}', a rewrite this mode does not apply"
    return False, f"line {line} compares with '{old}' and no finding says it is a device"


def _groups(units: _Units, fed: Set[str]) -> Dict[int, int]:
    """unit -> group: a function joins the top-level statements that spell a device and bind a name it reads,
    and the methods of its class that mention a ``self.x`` a device spelling feeds (``self.device``)."""
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
    first_of: Dict[str, int] = {}  # a device attribute -> the first method that mentions it
    for unit, keys in sorted(units.attributes.items()):
        for key in keys & fed:
            if key in first_of:
                parent[find(unit)] = find(first_of[key])
            else:
                first_of[key] = unit
    return {unit: find(unit) for unit in range(len(units.names))}
