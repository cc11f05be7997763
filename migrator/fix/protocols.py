"""A guard and every branch it decides change together, or the guard stays (issue 43, class 1).

What it does:
    After ``together`` has settled which edits apply, each edit that *flips* a CUDA question into the
    target's (``torch.cuda.is_available()`` -> ``torch_npu.npu.is_available()``, ``torch.cuda.device_count()``,
    a device string compared with a device: ``device == 'cuda'`` -> ``device == 'npu'``) is followed to the
    code it decides: the branches of the ``if`` / ``while`` / conditional expression whose test holds it, and,
    where its value is bound (``self.cuda = torch.cuda.is_available()``, ``n = torch.cuda.device_count()``),
    every test, loop and comprehension in the binding's scope that reads the name (``if self.cuda:`` in every
    method of the class, ``for i in range(n):``), names bound from it in turn (``use_amp = self.cuda and
    amp``), and the rest of a block after ``if not cuda: return``. An ``assert`` decides the rest of its block
    (and, as the body of an ``if`` with no ``else``, the rest of the ``if``'s block: ``if 'fused' in opt:
    assert has_apex and torch.cuda.is_available()``); a test-skipping decorator (``@unittest.skipIf(not
    torch.cuda.is_available(), ...)``, ``skipUnless``, ``pytest.mark.skipif``) decides what it decorates; a
    guard passed to a function or class of the same file (``AsyncPredictor(cfg, num_gpus=num_gpu)``) decides
    what that parameter decides in its body.

Why:
    Flipped alone, the guard makes dormant CUDA code live::

        self.cuda = torch.cuda.is_available()             # fixed: torch_npu.npu.is_available()
        if self.cuda:
            props = torch.cuda.get_device_properties(0)   # kept (not a safe rename): raises on the NPU
            self.model = self.model.cuda()                # fixed: .npu()

    The trainer ran on the CPU of an NPU machine before the fix, and raises in its constructor after it.

Fix:
    When a branch a flipped guard decides keeps a call that does not run on the target (a finding whose
    verdict there is active and a rewrite this run does not apply, a port or unsupported), the flip and every
    edit inside the branches it decides are held back together, with the calls that would run: the target
    keeps taking the branch CUDA's absence chose before. Otherwise the guard flips with its branches.

    A call of a CUDA-only library's name counts as one too: a name imported from one (``from
    apex.normalization import FusedLayerNorm``) or a class of the file that derives from one, unless the target's
    row for that API says the code runs as written once the package is built for the target (``partial``,
    ``operator_maps/curated/third_party.yaml``). The scan reads such a call under a CUDA guard as skipped on the
    target (and an optional import as never needed); the flip would make it run (fairseq's ``LayerNorm()``
    returns apex's ``FusedLayerNorm`` once ``torch.cuda.is_available()`` is the NPU's question, and apex's
    CUDA extension is not there: ``library_calls``).

    A call in those branches to a function or class of the repository whose own body keeps such a call
    counts as one (``utils.CudaEnvironment()``, whose ``__init__`` calls ``torch.cuda.get_device_properties``
    in another file: fairseq's trainer), found by name (``reaching``) among the top-level functions, classes
    and methods of the files that keep one, closed over the calls those files make.

    A build of CUDA sources counts as one too (``CUDA_BUILDS``: ``CUDAExtension``, which the data calls supported
    as an API, picked where ``torch.cuda.is_available() and CUDA_HOME`` would become the target's question). A
    use through a name (``x.to(device=device)``) whose literal an edit of this run rewrites where it is set does
    not count (``fix.plan``).

What it does not follow: a guard handed to a function of another module or read there, and a function that
returns one (``def use_cuda(): return torch.cuda.is_available()``); those branches are judged by their own
findings only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.metadata import PositionProvider

from ..maps.load import third_party
from ..resolve.dotted import dotted
from ..model import EditKind
from .unknown_reach import Repository

Position = Tuple[int, int]
Region = Tuple[Position, Position]

#: APIs whose rename turns a CUDA question into the target's: a guard that reads them decides what runs there.
FLIPS = frozenset({"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.is_bf16_supported",
                   "torch.cuda.is_initialized", "torch.backends.cudnn.is_available"})

#: what runs as written on the target but builds code for CUDA only: in a branch a flip decides, it would build
#: the CUDA sources (nvcc) where the target's question answers (a ``setup.py`` whose ``torch.cuda.is_available()
#: and CUDA_HOME`` picks ``CUDAExtension``): API -> what it does there
CUDA_BUILDS = {"torch.utils.cpp_extension.CUDAExtension": "builds the CUDA sources with nvcc (a CUDA kernel "
                                                           "build, none for the target)"}

_POSITIVE, _NEGATIVE, _BOTH = 1, -1, 0
#: decorators that skip what they decorate when their condition holds (``skipUnless``: when it does not)
_SKIPS = frozenset({"skipIf", "skipif", "skipUnless"})
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


@dataclass(frozen=True)
class Kept:
    """A call that stays as written and does not run on the target (for the reason in ``why``)."""

    at: Position
    api: str
    why: str


@dataclass(frozen=True)
class Flip:
    """What one edit's guard decides: the regions that run on the target once it flips."""

    index: int  # the edit
    line: int  # where the guard is
    text: str  # the guard as written (``self.cuda``, ``torch.cuda.is_available()``)
    regions: Tuple[Region, ...]


class _Tree(cst.CSTVisitor):
    """One walk: each node's parent, and the nodes the edits were found on."""

    def __init__(self, wanted: Set[int]) -> None:
        self.parent: Dict[int, cst.CSTNode] = {}
        self.stack: List[cst.CSTNode] = []
        self.wanted = wanted
        self.nodes: Dict[int, cst.CSTNode] = {}
        self.reads: List[cst.BaseExpression] = []  # every Name and Attribute (candidates for a guard's uses)
        self.calls: List[cst.Call] = []
        self.root: Optional[cst.CSTNode] = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.parent[id(node)] = self.stack[-1]
        else:
            self.root = node
        self.stack.append(node)
        if id(node) in self.wanted:
            self.nodes[id(node)] = node
        if isinstance(node, (cst.Name, cst.Attribute)):
            self.reads.append(node)
        elif isinstance(node, cst.Call):
            self.calls.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


def hold(wrapper: "cst.MetadataWrapper", found: Mapping[int, Sequence[int]], edits: Sequence[object],
         kept: Sequence[Kept], device: str, reach: Optional[Mapping[str, str]] = None,
         path: str = "", repository: Optional[Repository] = None) -> Dict[int, str]:
    """Edit index -> why it is held back: the flips whose decided branches keep a call from ``kept`` (or call
    a function ``reach`` names, see ``reaching``, or one whose reach ``repository`` cannot complete, see
    ``unknown_reach``), with every edit inside those branches. ``edits[i].edit`` is the ``Edit``; ``device``:
    the target's device spelling; ``path``: the file's (for its methods in ``reach``)."""
    tree = _Tree(set(found))
    wrapper.visit(tree)
    positions = wrapper.resolve(PositionProvider)
    kept = list(kept)
    kept.extend(_unedited_cuda(tree, found, positions))
    if reach:
        kept.extend(_calls_reaching(tree, positions, reach, path))
    kept.extend(_objects_reaching(tree, positions, reach or {}))
    kept.extend(_loads_to_saved_devices(tree, positions))
    held: Dict[int, str] = _strings_in_kept_cuda_calls(tree, found, edits)
    flips = _flips(tree, positions, found, edits)
    if not flips:
        return held
    if repository is not None and path.endswith(".py"):
        kept.extend(_unknown_reach(tree, positions, repository, path, [r for f in flips for r in f.regions]))
    at_node: Dict[int, Position] = {}
    for node_id in found:
        node = tree.nodes.get(node_id)
        if node is not None:
            start = positions[node].start
            at_node[node_id] = (start.line, start.column)
    for flip in flips:
        inside = [k for k in kept if any(_within(k.at, region) for region in flip.regions)]
        if not inside:
            continue
        calls = "; ".join(dict.fromkeys(f"{k.api} (line {k.at[0]}: {k.why})" for k in inside))
        lines = _line_list(flip.regions)
        why = (f"the guard `{flip.text}` (line {flip.line}) decides lines {lines}, which keep calls that do not "
               f"run on '{device}': {calls}; flipped alone it would send '{device}' into them, so the guard and "
               f"the edits in what it decides are left as they are (on the target that code is skipped, as "
               "before): rewrite those calls by hand, then fix again")
        held.setdefault(flip.index, why)
        for node_id, where in at_node.items():
            if any(_within(where, region) for region in flip.regions):
                for index in found[node_id]:
                    held.setdefault(index, why)
    return held


def library_calls(module: cst.Module, target: str, text: str) -> List[Kept]:
    """The calls in ``module`` (parsed from ``text``) of a CUDA-only library's names (``third_party.json``'s
    libraries): names imported from one anywhere in the file (also inside ``try``), and the file's classes
    deriving from one, in turn. A name whose API the target's row calls ``partial`` (the package built for the
    target runs the code as written) is left out."""
    table = third_party()
    if not any(root in text for root in table.roots):  # most files name no such library: no walk
        return []
    names: Dict[str, str] = {}  # local name -> the library API it stands for
    imports = _LibraryNames()
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    wrapper.visit(imports)
    for local, api in imports.imported:
        if table.library_of(api) is not None:
            names[local] = api
    for _ in range(3):  # a class deriving from one, then one deriving from that
        grown = False
        for name, bases in imports.classes:
            if name in names:
                continue
            base = next((names[b.split(".", 1)[0]] for b in bases if b.split(".", 1)[0] in names), None)
            if base is not None:
                names[name] = base
                grown = True
        if not grown:
            break
    out: List[Kept] = []
    if not names:
        return out
    positions = wrapper.resolve(PositionProvider)
    for call in imports.calls:
        written = dotted(call.func)
        root = written.split(".", 1)[0] if written else ""
        if root not in names:
            continue
        api = names[root] + written[len(root):]
        row = table.replacement(api, target)
        if row is not None and row[1].get("status") == "partial":
            continue
        start = positions[call].start
        library = table.library_of(api)
        out.append(Kept((start.line, start.column), f"{written}()",
                        f"{api}, of the CUDA-only library {library}" + (f" (on {target}: {row[1]['to']})"
                                                                          if row is not None else "")))
    return out


class _LibraryNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.imported: List[Tuple[str, str]] = []  # (local name, qualified name)
        self.classes: List[Tuple[str, List[str]]] = []
        self.calls: List[cst.Call] = []

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module)
        for alias in node.names:
            name = dotted(alias.name)
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            if module and name:
                self.imported.append((local, f"{module}.{name}"))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted(alias.name)
            if not name:
                continue
            if alias.asname and isinstance(alias.asname.name, cst.Name):
                self.imported.append((alias.asname.name.value, name))
            else:
                self.imported.append((name.split(".", 1)[0], name.split(".", 1)[0]))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append((node.name.value, [dotted(b.value) for b in node.bases if dotted(b.value)]))

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


#: what a ``torch.load`` without ``map_location`` does on a machine without CUDA
_LOADS_TO_CUDA = ("restores each tensor to the device it was saved from: a checkpoint saved on CUDA raises where "
                  "CUDA is absent (no map_location)")


def _objects_reaching(tree: _Tree, positions: Mapping[cst.CSTNode, object], reach: Mapping[str, str]) -> Iterator[Kept]:
    """``op = ROIAlign(...)`` then ``op.forward(x.cuda())``, or ``ROIAlign(...).forward(x)``: a method called on
    an object of a repository class whose method keeps a call (``reaching``'s ``Class.method``)."""
    if not reach:
        return
    made: Dict[str, str] = {}  # a name -> the class whose call binds it, anywhere in the file
    for call in tree.calls:
        holder = tree.parent.get(id(call))
        if isinstance(call.func, cst.Name) and isinstance(holder, cst.Assign) and len(holder.targets) == 1 \
                and isinstance(holder.targets[0].target, cst.Name) and holder.value is call:
            made[holder.targets[0].target.value] = call.func.value
    for call in tree.calls:
        func = call.func
        if not isinstance(func, cst.Attribute):
            continue
        receiver = func.value
        cls = made.get(receiver.value) if isinstance(receiver, cst.Name) else \
            receiver.func.value if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) else None
        reached = reach.get(f"{cls}.{func.attr.value}") if cls else None
        if reached:
            start = positions[call].start  # type: ignore[attr-defined]
            yield Kept((start.line, start.column), f"{_text(func)}()", f"reaches {reached}")


def _unknown_reach(tree: _Tree, positions: Mapping[cst.CSTNode, object], repository: Repository, path: str,
                   regions: Sequence[Region]) -> Iterator[Kept]:
    """The calls in ``regions`` whose reach the repository's text cannot complete (``unknown_reach``)."""
    for call in tree.calls:
        start = positions[call].start  # type: ignore[attr-defined]
        if not any(_within((start.line, start.column), region) for region in regions):
            continue
        written = dotted(call.func)
        if not written or written.count(".") > 1:
            continue
        owner = tree.parent.get(id(call))
        while owner is not None and not isinstance(owner, cst.ClassDef):
            owner = tree.parent.get(id(owner))
        why = repository.call_in(path, tuple(written.split(".")), owner.name.value if owner is not None else None)
        if why is not None:
            yield Kept((start.line, start.column), f"{_text(call.func)}()", f"its reach is unknown: {why}")


def _loads_to_saved_devices(tree: _Tree, positions: Mapping[cst.CSTNode, object]) -> Iterator[Kept]:
    """``torch.load(path)`` with no ``map_location``: code written for CUDA only where CUDA answers the guard
    (``if torch.cuda.is_available(): torch.load(p) else: torch.load(p, map_location="cpu")``)."""
    for call in tree.calls:
        if dotted(call.func) not in ("torch.load", "torch.serialization.load"):
            continue
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) >= 2 or any(a.star for a in call.args) or any(
                a.keyword is not None and a.keyword.value == "map_location" for a in call.args):
            continue
        start = positions[call].start  # type: ignore[attr-defined]
        yield Kept((start.line, start.column), f"{_text(call.func)}()", _LOADS_TO_CUDA)


def _strings_in_kept_cuda_calls(tree: _Tree, found: Mapping[int, Sequence[int]],
                                edits: Sequence[object]) -> Dict[int, str]:
    """Device strings passed to a ``torch.cuda`` function this run does not rename: CUDA's own function takes
    a CUDA device only (``torch.cuda.get_device_properties("npu:0")`` raises everywhere), so the string stays
    with its call (edit index -> why)."""
    held: Dict[int, str] = {}
    for node_id, indices in found.items():
        node = tree.nodes.get(node_id)
        if node is None or not any(getattr(getattr(edits[i], "edit", None), "kind", None) in ("string", "fstring")
                                   for i in indices):
            continue
        child, parent = node, tree.parent.get(node_id)
        while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
            if isinstance(parent, cst.Call) and child is not parent.func:
                name = dotted(parent.func)
                renamed = any(getattr(getattr(edits[i], "edit", None), "kind", None) == "name"
                              for i in found.get(id(parent.func), ()))
                if name.startswith("torch.cuda.") and not renamed:
                    why = (f"the device string is passed to `{name}`, which stays as written (its rewrite is not a "
                           "safe one here): CUDA's own function takes a CUDA device only; rewrite the call by hand")
                    for index in indices:
                        if getattr(getattr(edits[index], "edit", None), "kind", None) in ("string", "fstring"):
                            held.setdefault(index, why)
                    break
            child, parent = parent, tree.parent.get(id(parent))
    return held


def _unedited_cuda(tree: _Tree, found: Mapping[int, Sequence[int]],
                   positions: Mapping[cst.CSTNode, object]) -> Iterator[Kept]:
    """The CUDA calls written in the file that no edit of this run changes (``torch.cuda.x``, ``x.cuda()``): a
    finding may call them runnable where a guard skips them (a measuring branch, a device-type test's CUDA
    side), which holds only while that guard stays."""
    for node in tree.reads:
        if not isinstance(node, cst.Attribute) or id(node) in found \
                or isinstance(tree.parent.get(id(node)), cst.Attribute):
            continue
        name = dotted(node)
        if name.startswith("torch.cuda."):
            start = positions[node].start  # type: ignore[attr-defined]
            yield Kept((start.line, start.column), name, "stays as written")
    for call in tree.calls:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "cuda" and id(call) not in found:
            start = positions[call].start  # type: ignore[attr-defined]
            yield Kept((start.line, start.column), f"{_text(call.func)}()", "stays as written")


def _is_flip(node: cst.CSTNode, edit: object, tree: _Tree) -> bool:
    kind = getattr(edit, "kind", None)
    if kind == EditKind.NAME:
        return getattr(edit, "old", "") in FLIPS
    # a device spelling compared with a device, or a prefix it is tested for
    if kind in (EditKind.STRING, EditKind.FSTRING):
        child, parent = node, tree.parent.get(id(node))
        while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
            if isinstance(parent, cst.Comparison):
                return True
            if isinstance(parent, cst.Call) and isinstance(parent.func, cst.Attribute) \
                    and parent.func.attr.value in ("startswith", "endswith") and child is not parent.func:
                return True
            child, parent = parent, tree.parent.get(id(parent))
    return False


class _Decided:
    """The regions a flipped node decides, followed through the names its value is bound to."""

    def __init__(self, tree: _Tree, positions: Mapping[cst.CSTNode, object]) -> None:
        self.tree = tree
        self.positions = positions
        self.regions: List[Region] = []
        self.seen: Set[str] = set()

    def of(self, node: cst.CSTNode) -> Tuple[List[Region], str]:
        guard = self._follow(node, _POSITIVE, 0)
        shown = node
        if isinstance(node, (cst.SimpleString, cst.FormattedString)):  # a device string: show its comparison
            holder = self.tree.parent.get(id(node))
            while holder is not None and not isinstance(holder, (cst.Comparison, cst.Call, cst.BaseStatement)):
                holder = self.tree.parent.get(id(holder))
            shown = holder if isinstance(holder, (cst.Comparison, cst.Call)) else node
        return self.regions, guard or _text(shown)

    def _span(self, node: cst.CSTNode) -> Region:
        position = self.positions[node]
        return ((position.start.line, position.start.column),  # type: ignore[attr-defined]
                (position.end.line, position.end.column))  # type: ignore[attr-defined]

    def _follow(self, node: cst.CSTNode, polarity: int, depth: int) -> Optional[str]:
        """Climb from ``node`` to what decides on its value; returns the name it is bound to, if any."""
        child: cst.CSTNode = node
        parent = self.tree.parent.get(id(node))
        bound: Optional[str] = None
        while parent is not None:
            decided, bound = self._decision(parent, child, polarity, depth, bound)
            if decided:
                return bound
            polarity = self._through(parent, child, polarity)
            child, parent = parent, self.tree.parent.get(id(parent))
        return bound

    def _decision(self, parent: cst.CSTNode, child: cst.CSTNode, polarity: int, depth: int,
                  bound: Optional[str]) -> Tuple[bool, Optional[str]]:
        """Whether ``parent`` decides on ``child``'s value (a test, a loop, an assert, a call's argument followed
        into its parameter, an assignment, or the end of the statement), the regions it decides noted; and the
        name the value is bound to so far."""
        if isinstance(parent, (cst.If, cst.While)) and child is parent.test:
            self._branches(parent, polarity)
            return True, bound
        if isinstance(parent, cst.IfExp) and child is parent.test:
            if polarity != _NEGATIVE:
                self.regions.append(self._span(parent.body))
            if polarity != _POSITIVE:
                self.regions.append(self._span(parent.orelse))
            return True, bound
        if isinstance(parent, cst.For) and child is parent.iter:
            self.regions.append(self._span(parent.body))
            return True, bound
        if isinstance(parent, cst.CompFor) and child is parent.iter:
            self._comprehension(parent)
            return True, bound
        if isinstance(parent, cst.Assert) and child is parent.test:
            if polarity != _NEGATIVE:  # what follows the assert runs only where it holds
                self.regions.extend(self._after_assert(parent))
            return True, bound
        if isinstance(parent, cst.Arg) and child is parent.value:
            call = self.tree.parent.get(id(parent))
            if isinstance(call, cst.Call) and self._into_call(call, parent, polarity, depth):
                return True, bound
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and child is parent.value:
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            for target in targets:
                name = _carrier(target)
                if name is not None:
                    bound = bound or name
                    self._uses(target, name, polarity, depth)
            return True, bound
        return isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement, cst.Lambda, cst.Return)), bound

    def _comprehension(self, loop: cst.CompFor) -> None:
        holder = self.tree.parent.get(id(loop))
        while holder is not None and not isinstance(holder, (cst.ListComp, cst.SetComp, cst.GeneratorExp,
                                                             cst.DictComp)):
            holder = self.tree.parent.get(id(holder))
        if holder is not None:
            self.regions.append(self._span(holder))

    def _through(self, parent: cst.CSTNode, child: cst.CSTNode, polarity: int) -> int:
        """The polarity past an expression around the value: the right of an ``and``/``or`` it decides is a
        region; ``not`` and a ``!=`` flip it; a count compared (``n > 1``) may be either branch's."""
        if isinstance(parent, cst.BooleanOperation) and child is parent.left:
            # ``self.cuda and torch.cuda.get_device_capability(0)[0] >= 7``: the right runs when the left is true
            runs_right = _NEGATIVE if isinstance(parent.operator, cst.Or) else _POSITIVE
            if polarity in (runs_right, _BOTH):
                self.regions.append(self._span(parent.right))
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return -polarity
        if isinstance(parent, cst.Comparison) and child is not parent.left and len(parent.comparisons) == 1 \
                and isinstance(parent.comparisons[0].operator, (cst.NotEqual, cst.NotIn, cst.IsNot)):
            return -polarity
        if isinstance(parent, cst.Comparison):
            ops = [c.operator for c in parent.comparisons]
            if not all(isinstance(op, (cst.Equal, cst.In, cst.Is, cst.NotEqual, cst.NotIn, cst.IsNot)) for op in ops):
                return _BOTH  # a count compared (``n > 1``, ``n == 0``): either branch may be the device's
            if any(isinstance(op, (cst.NotEqual, cst.NotIn, cst.IsNot)) for op in ops):
                return -polarity
        return polarity

    def _branches(self, statement: Union[cst.If, cst.While], polarity: int) -> None:
        if polarity != _NEGATIVE:
            self.regions.append(self._span(statement.body))
        if polarity != _POSITIVE and statement.orelse is not None:
            self.regions.append(self._span(statement.orelse))
        if polarity != _POSITIVE and isinstance(statement, cst.If) and _exits(statement.body):
            rest = self._rest_of_block(statement)  # ``if not cuda: return`` -> what follows runs on the device
            if rest is not None:
                self.regions.append(rest)

    def _after_assert(self, assertion: cst.Assert) -> List[Region]:
        """The rest of the assert's block; where that block is the body of an ``if`` with no ``else`` (``if
        'fused' in opt: assert has_apex and torch.cuda.is_available()``), the rest of the ``if``'s block too."""
        line = self.tree.parent.get(id(assertion))
        if line is None:
            return []
        regions = [r for r in (self._rest_of_block(line),) if r is not None]
        block = self.tree.parent.get(id(line))
        statement = self.tree.parent.get(id(block)) if block is not None else None
        if isinstance(statement, cst.If) and block is statement.body and statement.orelse is None:
            rest = self._rest_of_block(statement)
            if rest is not None:
                regions.append(rest)
        return regions

    def _into_call(self, call: cst.Call, arg: cst.Arg, polarity: int, depth: int) -> bool:
        """A guard passed as an argument: to a test-skipping decorator (``@unittest.skipIf(not
        torch.cuda.is_available(), ...)``, ``skipUnless``, ``pytest.mark.skipif``), what it decorates; to a
        function or class of this file (``AsyncPredictor(cfg, num_gpus=n)``), that parameter's reads in its
        body, each followed as a guard. Whether it was followed."""
        name = dotted(call.func)
        last = name.rsplit(".", 1)[-1] if name else ""
        first = next((a for a in call.args if a.keyword is None and not a.star), None)
        if last in _SKIPS and (arg is first or (arg.keyword is not None and arg.keyword.value == "condition")):
            decorated = self.tree.parent.get(id(self.tree.parent.get(id(call))))
            if isinstance(self.tree.parent.get(id(call)), cst.Decorator) and \
                    isinstance(decorated, (cst.FunctionDef, cst.ClassDef)):
                runs = polarity if last == "skipUnless" else -polarity
                if runs != _NEGATIVE:
                    self.regions.append(self._span(decorated.body))
                return True
            return False
        function, method = self._callee(call)
        if function is None:
            return False
        params = [*function.params.posonly_params, *function.params.params][1 if method else 0:]
        if arg.keyword is not None:
            every = (*params, *function.params.kwonly_params)
            param = next((p for p in every if p.name.value == arg.keyword.value), None)
        else:
            index = [a for a in call.args if a.keyword is None].index(arg)
            param = params[index] if index < len(params) and not any(a.star for a in call.args[:index + 1]) \
                else None
        if param is None:
            return False
        self._uses(param.name, param.name.value, polarity, depth)
        return True

    def _callee(self, call: cst.Call) -> Tuple[Optional[cst.FunctionDef], bool]:
        """The function ``call`` runs, when this file defines it at its top level (a class: its ``__init__``),
        or it is ``self.method(...)`` of the enclosing class; and whether it is a method (its first parameter
        is the instance, not passed)."""
        func = call.func
        if isinstance(func, cst.Name) and isinstance(self.tree.root, cst.Module):
            for statement in self.tree.root.body:
                if isinstance(statement, cst.FunctionDef) and statement.name.value == func.value:
                    return statement, False
                if isinstance(statement, cst.ClassDef) and statement.name.value == func.value:
                    return _method(statement, "__init__"), True
            return None, False
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            holder = self.tree.parent.get(id(call))
            while holder is not None and not isinstance(holder, cst.ClassDef):
                holder = self.tree.parent.get(id(holder))
            if isinstance(holder, cst.ClassDef):
                return _method(holder, func.attr.value), True
        return None, False

    def _rest_of_block(self, statement: cst.CSTNode) -> Optional[Region]:
        block = self.tree.parent.get(id(statement))
        body = getattr(block, "body", None)
        if not isinstance(body, (list, tuple)) or statement not in body:
            return None
        following = body[list(body).index(statement) + 1:]
        if not following:
            return None
        return self._span(following[0])[0], self._span(following[-1])[1]

    def _uses(self, target: cst.CSTNode, name: str, polarity: int, depth: int) -> None:
        """The reads of ``name`` in the binding's scope, each followed as a guard in turn."""
        key = f"{name}@{polarity}"
        if key in self.seen or depth > 4:
            return
        self.seen.add(key)
        scope = self._scope(target, name)
        first, last = self._span(scope) if scope is not None else ((0, 0), (1 << 30, 0))
        for read in self.tree.reads:
            if read is target or _carrier(read) != name:
                continue
            parent = self.tree.parent.get(id(read))
            if isinstance(parent, cst.Attribute) and parent.value is read:
                continue  # ``self.cuda`` read as part of ``self.cuda.x``: not this name's value
            if isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)) and \
                    getattr(parent, "target", None) is read:
                continue
            if not _within(self._span(read)[0], (first, last)):
                continue
            self._follow(read, polarity, depth + 1)

    def _scope(self, target: cst.CSTNode, name: str) -> Optional[cst.CSTNode]:
        """A local's function, ``self.x``'s class, else the module (``None``)."""
        wanted = cst.ClassDef if name.startswith("self.") else cst.FunctionDef if "." not in name else None
        if wanted is None:
            return None
        holder = self.tree.parent.get(id(target))
        while holder is not None and not isinstance(holder, wanted):
            if wanted is cst.FunctionDef and isinstance(holder, cst.ClassDef):
                return holder  # a class attribute's name
            holder = self.tree.parent.get(id(holder))
        return holder


def _method(cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _carrier(node: cst.CSTNode) -> Optional[str]:
    """The name a guard's value is bound to: ``cuda``, ``self.cuda``, ``args.cuda`` (a dotted name)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        name = dotted(node)
        return name if name and all(name.split(".")) else None
    return None


def _exits(body: cst.BaseSuite) -> bool:
    statements = list(_statements(body))
    return bool(statements) and isinstance(statements[-1], _EXITS)


def _statements(body: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    if isinstance(body, cst.SimpleStatementSuite):
        yield from body.body
        return
    for statement in getattr(body, "body", ()):
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        else:
            yield statement


def _within(at: Position, region: Region) -> bool:
    return region[0] <= at <= region[1]


def _line_list(regions: Sequence[Region]) -> str:
    """``9-11, 17``: the lines the regions cover, merged, at most eight ranges."""
    ranges: List[List[int]] = []
    for first, last in sorted((r[0][0], r[1][0]) for r in regions):
        if ranges and first <= ranges[-1][1] + 1:
            ranges[-1][1] = max(ranges[-1][1], last)
        else:
            ranges.append([first, last])
    text = [str(a) if a == b else f"{a}-{b}" for a, b in ranges]
    return ", ".join(text[:8]) + (f" and {len(text) - 8} more" if len(text) > 8 else "")


def _text(node: cst.CSTNode) -> str:
    try:
        text = cst.Module(body=[]).code_for_node(node)
    except Exception:  # pragma: no cover - a node libcst cannot print alone
        return type(node).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _calls_reaching(tree: "_Tree", positions, reach: Mapping[str, str], path: str) -> List[Kept]:
    """The calls of a function ``reach`` names (``self.method()`` by this file's ``path::method``): each keeps
    what the function keeps."""
    found: List[Kept] = []
    for call in tree.calls:
        func = call.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) \
            else None
        if name is None:
            continue
        own = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
        reached = (reach.get(f"{path}::{name}") if own else None) or reach.get(name)
        if reached:
            start = positions[call].start
            found.append(Kept((start.line, start.column), f"{_text(func)}()", f"reaches {reached}"))
    return found


def _flips(tree: "_Tree", positions, found: Mapping[int, Sequence[int]], edits: Sequence[object]) -> List[Flip]:
    """The edits that flip a guard, each with the regions its test decides."""
    flips: List[Flip] = []
    for node_id, indices in found.items():
        node = tree.nodes.get(node_id)
        if node is None:
            continue
        for index in indices:
            edit = edits[index].edit  # type: ignore[attr-defined]
            if _is_flip(node, edit, tree):
                regions, guard = _Decided(tree, positions).of(node)
                if regions:
                    flips.append(Flip(index, positions[node].start.line, guard, tuple(regions)))
    return flips


def reaching(root: Path, kept: Mapping[str, Iterable[Tuple[int, str]]]) -> Dict[str, str]:
    """The repository's callables that run a kept call: name -> which call, where. ``kept``: per file (POSIX
    path under ``root``), the lines of its kept calls with their API. Each top-level function, class (its
    ``__init__``, which constructing it runs) and, as ``path::name``, method whose body holds one is named;
    then, to a fixed point, each one of those files that calls a named one by its name. A method is also named
    ``Class.method``, for the calls on an object of the class (``_objects_reaching``), and a module-level alias
    of a class's method (``roi_align = _ROIAlign.apply``, which runs its ``forward``) reaches what it does."""
    bodies: List[Tuple[str, str, Set[str], int, int]] = []  # (key, path, names it calls, first, last line)
    reach: Dict[str, str] = {}
    for rel, calls in kept.items():
        lines = sorted(calls)
        if not lines or not rel.endswith(".py"):
            continue
        try:
            tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
            continue
        own = _bodies(tree, rel)
        bodies.extend(own)
        for key, _, _, first, last in own:
            if key not in reach:
                inside = [(line, api) for line, api in lines if first <= line <= last]
                if inside:
                    reach[key] = f"{inside[0][1]} at {rel}:{inside[0][0]}"
    for _ in range(4):  # callers of callers, within the files that keep a call
        grown = False
        for key, path, called, _, _ in bodies:
            if key in reach:
                continue
            via = next((name for name in sorted(called) if name in reach or f"{path}::{name}" in reach), None)
            if via is not None:
                reach[key] = reach.get(f"{path}::{via}") or reach[via]
                grown = True
        if not grown:
            break
    return reach


def _bodies(tree: ast.Module, rel: str) -> List[Tuple[str, str, Set[str], int, int]]:
    """(key, path, names it calls, first, last line) of each callable of a module ``reaching`` names: functions,
    methods (as ``path::name`` and ``Class.name``), classes (their ``__init__``) and module-level aliases of a
    class's method (``roi_align = _ROIAlign.apply``: its ``forward`` runs)."""
    bodies: List[Tuple[str, str, Set[str], int, int]] = []
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name) \
                and node.value.value.id in classes:
            method = "forward" if node.value.attr == "apply" else node.value.attr
            bodies.append((node.targets[0].id, rel, {f"{node.value.value.id}.{method}"}, node.lineno, node.lineno))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bodies.append((node.name, rel, _called(node), node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    span = (item.lineno, item.end_lineno or item.lineno)
                    bodies.append((f"{rel}::{item.name}", rel, _called(item), *span))
                    bodies.append((f"{node.name}.{item.name}", rel, _called(item), *span))
                    if item.name == "__init__":
                        bodies.append((node.name, rel, _called(item), *span))
    return bodies


def _called(function: ast.AST) -> Set[str]:
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
    return names
