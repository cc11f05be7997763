"""Where CPython's ``ast`` says a libcst node is, without generating any code.

``ast`` records a start and an end for every expression and statement, and it is parsed for every file
anyway. A libcst node is found in the ``ast`` tree by following its chain of parents from the module down,
one field at a time: ``Call.func`` is ``ast.Call.func``, the second positional ``Arg`` of a call is
``ast.Call.args[1]``, the statements of an indented block are the ``ast`` body list (``a = 1; b = 2`` is one
libcst line and two ``ast`` statements); where the two trees are shaped differently the steps say how
(``a and b and c`` is nested in libcst and flat in ``ast``). Where they cannot (the inside of an f-string,
which ``ast`` does not place), or the node is of a kind this does not know, the answer is ``None`` and the
caller generates code for that statement instead.

Each answer is checked before it is trusted: the ``ast`` node must be of the kind the libcst node is, and
the source text at that place must read as that node (a name its own text, a call its closing parenthesis).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst


Offsets = Tuple[int, int]


@dataclasses.dataclass(frozen=True)
class _Block:
    """The ``ast`` statements of an indented block."""

    statements: Sequence[ast.stmt]


@dataclasses.dataclass(frozen=True)
class _Line:
    """The ``ast`` statements of one libcst ``SimpleStatementLine``: ``statements[start:]``."""

    statements: Sequence[ast.stmt]
    start: int


@dataclasses.dataclass(frozen=True)
class _Via:
    """A libcst node ``ast`` has no node for (an ``Arg``, an ``Annotation``): what each field leads to."""

    fields: Dict[str, Any]


@dataclasses.dataclass(frozen=True)
class _Comprehension:
    """A libcst ``CompFor``: the ``index``-th of the ``ast`` comprehension's generators."""

    generators: Sequence[ast.comprehension]
    index: int


@dataclasses.dataclass(frozen=True)
class _NamePlace:
    """A name ``ast`` keeps as a plain string (a function's name, a keyword, an attribute): where it is,
    relative to an ``ast`` node: starting ``at`` its start, ending where it ``ends``, or right ``after`` the
    ``def``/``class`` keyword that starts it."""

    anchor: Optional[Any]  # an ``ast`` node with a position
    where: str  # "at", "ends", "after"


@dataclasses.dataclass(frozen=True)
class _BoolPrefix:
    """The left operand of ``a and b and c`` in libcst (``a and b``), which ``ast`` flattens into one node:
    the operands ``values[:count]`` of the ``ast`` node."""

    node: ast.BoolOp
    count: int


Counterpart = Any  # an ast node, or one of the markers above
_Step = Callable[[cst.CSTNode, str, Optional[int], cst.CSTNode, Counterpart], Optional[Counterpart]]


def _block_of(body: cst.CSTNode, statements: Sequence[ast.stmt]) -> Counterpart:
    return _Block(statements) if isinstance(body, cst.IndentedBlock) else _Line(statements, 0)


def statement_counterparts(statements: Sequence[cst.CSTNode], tree_statements: Sequence[ast.stmt]
                           ) -> Optional[List[Tuple[cst.CSTNode, int]]]:
    """Each libcst statement with the index of the first ``ast`` statement it holds (libcst keeps
    ``a = 1; b = 2`` as one line, ``ast`` as two statements); None when the two lists do not line up."""
    pairs, position = [], 0
    for statement in statements:
        pairs.append((statement, position))
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return pairs if position == len(tree_statements) else None


# ---------------------------------------------------------------------------------------------- steps
# Each step maps one child of a libcst node (its field, and its index in a list field) to the counterpart
# of that child, given the counterpart of the node; ``None`` when the shapes disagree. The statements of a
# module or an indented block are paired all at once instead (``TreeSpans._block_counterparts``).

def _line(node, field, index, child, a):
    if not isinstance(a, _Line) or field != "body" or a.start + index >= len(a.statements):
        return None
    return a.statements[a.start + index]


def _via(node, field, index, child, a):
    return a.fields.get(field) if isinstance(a, _Via) and index is None else None


def _fields(kind, **names):
    """A step for nodes whose children sit in same-named (or renamed) ``ast`` fields."""

    def step(node, field, index, child, a):
        if not isinstance(a, kind) or index is not None:
            return None
        return getattr(a, names.get(field, field), None)
    return step


def _else(child: Any, orelse: Sequence[ast.stmt]) -> Optional[Counterpart]:  # an ``else``, or an ``elif``
    if isinstance(child, cst.If):  # ``elif``
        return orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None
    return _Via({"body": _block_of(child.body, orelse)})


def _compound(kind, **names):
    """Compound statements: ``body`` and ``orelse`` blocks, and the header fields named like ``ast``'s."""
    plain = _fields(kind, **names)

    def step(node, field, index, child, a):
        if not isinstance(a, kind):
            return None
        if field == "body":
            return _block_of(child, a.body)
        if field == "orelse":
            return _else(child, a.orelse)
        return plain(node, field, index, child, a)
    return step


def _function(node, field, index, child, a):
    if not isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if field == "body":
        return _block_of(child, a.body)
    if field == "decorators" and index < len(a.decorator_list):
        return _Via({"decorator": a.decorator_list[index]})
    if field == "returns":
        return _Via({"annotation": a.returns})
    if field == "params":
        return a.args
    return _NamePlace(a, "after") if field == "name" else None


def _class(node, field, index, child, a):
    if not isinstance(a, ast.ClassDef):
        return None
    if field == "body":
        return _block_of(child, a.body)
    if field == "decorators" and index < len(a.decorator_list):
        return _Via({"decorator": a.decorator_list[index]})
    if field == "bases" and index < len(a.bases) and len(node.bases) == len(a.bases):
        return _Via({"value": a.bases[index]})
    if field == "keywords" and index < len(a.keywords) and len(node.keywords) == len(a.keywords):
        return _Via({"value": a.keywords[index].value})
    return _NamePlace(a, "after") if field == "name" else None


def _parameters(node, field, index, child, a):
    """``def f(a, b=1, *args, c=2, **kw)``: ``ast`` keeps the positional defaults in one right-aligned list."""
    if not isinstance(a, ast.arguments) or not isinstance(child, cst.Param):
        return None
    positional = len(a.posonlyargs) + len(a.args)
    if len(node.posonly_params) != len(a.posonlyargs) or len(node.params) != len(a.args) or len(
            node.kwonly_params) != len(a.kwonlyargs):
        return None
    if field in ("posonly_params", "params"):
        at = index if field == "posonly_params" else len(a.posonlyargs) + index
        arg = (a.posonlyargs + a.args)[at]
        default_at = at - (positional - len(a.defaults))
        default = a.defaults[default_at] if default_at >= 0 else None
    elif field == "kwonly_params":
        arg, default = a.kwonlyargs[index], a.kw_defaults[index]
    elif field in ("star_arg", "star_kwarg"):
        arg, default = (a.vararg if field == "star_arg" else a.kwarg), None
    else:
        return None
    if arg is None:
        return None
    return _Via({"default": default, "annotation": _Via({"annotation": arg.annotation}),
                 "name": _NamePlace(arg, "at")})


def _try(node, field, index, child, a):
    if not isinstance(a, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        return None
    if field == "body":
        return _block_of(child, a.body)
    if field == "handlers" and index < len(a.handlers):
        return a.handlers[index]
    if field == "orelse":
        return _Via({"body": _block_of(child.body, a.orelse)})
    if field == "finalbody":
        return _Via({"body": _block_of(child.body, a.finalbody)})
    return None


def _handler(node, field, index, child, a):
    if not isinstance(a, ast.ExceptHandler):
        return None
    if field == "body":
        return _block_of(child, a.body)
    return a.type if field == "type" else None


def _with(node, field, index, child, a):
    if not isinstance(a, (ast.With, ast.AsyncWith)):
        return None
    if field == "body":
        return _block_of(child, a.body)
    if field == "items" and index < len(a.items) and len(node.items) == len(a.items):
        item = a.items[index]
        return _Via({"item": item.context_expr, "asname": _Via({"name": item.optional_vars})})
    return None


def _assign(node, field, index, child, a):
    if not isinstance(a, ast.Assign):
        return None
    if field == "targets":
        return _Via({"target": a.targets[index]}) if index < len(a.targets) else None
    return a.value if field == "value" else None


def _ann_assign(node, field, index, child, a):
    if not isinstance(a, ast.AnnAssign):
        return None
    if field == "annotation":
        return _Via({"annotation": a.annotation})
    return getattr(a, field, None) if field in ("target", "value") else None


def _raise(node, field, index, child, a):
    if not isinstance(a, ast.Raise):
        return None
    return a.exc if field == "exc" else _Via({"item": a.cause}) if field == "cause" else None


def _imports(node, field, index, child, a):
    if not isinstance(a, (ast.Import, ast.ImportFrom)) or field != "names" or isinstance(node.names, cst.ImportStar):
        return None
    return a.names[index] if len(node.names) == len(a.names) else None


def _call(node, field, index, child, a):
    if not isinstance(a, ast.Call):
        return None
    if field == "func":
        return a.func
    if field != "args":
        return None
    keyword = [arg.keyword is not None or arg.star == "**" for arg in node.args]
    if keyword.count(True) != len(a.keywords) or keyword.count(False) != len(a.args):
        return None
    at = keyword[:index].count(keyword[index])
    if keyword[index]:
        found = a.keywords[at]
        return _Via({"value": found.value, "keyword": _NamePlace(found, "at") if found.arg else None})
    value = a.args[at]
    if child.star == "*":
        return _Via({"value": value.value}) if isinstance(value, ast.Starred) else None
    return _Via({"value": value})


def _attribute(node, field, index, child, a):
    if not isinstance(a, ast.Attribute):
        return None
    return a.value if field == "value" else _NamePlace(a, "ends") if field == "attr" else None


def _boolean(node, field, index, child, a):
    """``a and b and c``: libcst nests to the left, ``ast`` keeps one node with three operands."""
    if isinstance(a, ast.BoolOp):
        a = _BoolPrefix(a, len(a.values))
    if not isinstance(a, _BoolPrefix) or a.count < 2:
        return None
    if field == "right":
        return a.node.values[a.count - 1]
    if field != "left":
        return None
    if a.count == 2:
        return a.node.values[0]
    return _BoolPrefix(a.node, a.count - 1) if isinstance(child, cst.BooleanOperation) and not child.lpar else None


def _subscript(node, field, index, child, a):
    if not isinstance(a, ast.Subscript):
        return None
    if field == "value":
        return a.value
    if field != "slice":
        return None
    if len(node.slice) == 1 and node.slice[0].comma is cst.MaybeSentinel.DEFAULT:
        return _Via({"slice": a.slice})
    if isinstance(a.slice, ast.Tuple) and len(a.slice.elts) == len(node.slice):
        return _Via({"slice": a.slice.elts[index]})
    return None


def _index(node, field, index, child, a):
    if field != "value" or isinstance(a, (ast.Slice, _Via, _Block, _Line, _Comprehension)):
        return None
    if getattr(node, "star", None) is not None:  # ``x[*a]`` (PEP 646)
        return a.value if isinstance(a, ast.Starred) else None
    return a


def _sequence(kind):
    def step(node, field, index, child, a):
        if not isinstance(a, kind) or field != "elements" or len(a.elts) != len(node.elements):
            return None
        value = a.elts[index]
        if isinstance(child, cst.StarredElement):
            return value if isinstance(value, ast.Starred) else None
        return _Via({"value": value})
    return step


def _dict(node, field, index, child, a):
    if not isinstance(a, ast.Dict) or field != "elements" or len(a.keys) != len(node.elements):
        return None
    if isinstance(child, cst.StarredDictElement):
        return _Via({"value": a.values[index]}) if a.keys[index] is None else None
    return _Via({"key": a.keys[index], "value": a.values[index]})


def _comparison(node, field, index, child, a):
    if not isinstance(a, ast.Compare):
        return None
    if field == "left":
        return a.left
    if field == "comparisons" and len(a.comparators) == len(node.comparisons):
        return _Via({"comparator": a.comparators[index]})
    return None


def _comprehension(kind, *names):
    def step(node, field, index, child, a):
        if not isinstance(a, kind):
            return None
        if field == "for_in":
            return _Comprehension(a.generators, 0)
        return getattr(a, field) if field in names else None
    return step


def _comp_for(node, field, index, child, a):
    if not isinstance(a, _Comprehension) or a.index >= len(a.generators):
        return None
    generator = a.generators[a.index]
    if field in ("target", "iter"):
        return getattr(generator, field)
    if field == "ifs" and len(generator.ifs) == len(node.ifs):
        return _Via({"test": generator.ifs[index]})
    if field == "inner_for_in":
        return _Comprehension(a.generators, a.index + 1)
    return None


_STEPS: Dict[type, _Step] = {
    cst.SimpleStatementLine: _line, cst.SimpleStatementSuite: _line,
    cst.FunctionDef: _function, cst.ClassDef: _class, cst.Parameters: _parameters,
    cst.If: _compound(ast.If), cst.While: _compound(ast.While),
    cst.For: _compound((ast.For, ast.AsyncFor)), cst.Try: _try, cst.ExceptHandler: _handler, cst.With: _with,
    cst.Expr: _fields(ast.Expr), cst.Assign: _assign, cst.AnnAssign: _ann_assign,
    cst.AugAssign: _fields(ast.AugAssign), cst.Return: _fields(ast.Return), cst.Raise: _raise,
    cst.Assert: _fields(ast.Assert), cst.Import: _imports, cst.ImportFrom: _imports,
    cst.Call: _call, cst.Attribute: _attribute, cst.Subscript: _subscript, cst.BooleanOperation: _boolean,
    cst.Index: _index, cst.Slice: _fields(ast.Slice),
    cst.BinaryOperation: _fields(ast.BinOp), cst.UnaryOperation: _fields(ast.UnaryOp, expression="operand"),
    cst.Comparison: _comparison, cst.IfExp: _fields(ast.IfExp), cst.Await: _fields(ast.Await, expression="value"),
    cst.Lambda: _fields(ast.Lambda), cst.NamedExpr: _fields(ast.NamedExpr),
    cst.List: _sequence(ast.List), cst.Tuple: _sequence(ast.Tuple), cst.Set: _sequence(ast.Set),
    cst.StarredElement: _fields(ast.Starred), cst.Dict: _dict,
    cst.ListComp: _comprehension(ast.ListComp, "elt"), cst.SetComp: _comprehension(ast.SetComp, "elt"),
    cst.GeneratorExp: _comprehension(ast.GeneratorExp, "elt"),
    cst.DictComp: _comprehension(ast.DictComp, "key", "value"), cst.CompFor: _comp_for,
}
if hasattr(cst, "TryStar") and hasattr(ast, "TryStar"):
    _STEPS[cst.TryStar] = _try
# the nodes ``ast`` has no node for, and ``Else``/``Finally``, whose only child leads where ``_Via`` says
for _kind in (cst.Arg, cst.AssignTarget, cst.Annotation, cst.Decorator, cst.Element, cst.DictElement,
              cst.StarredDictElement, cst.ComparisonTarget, cst.CompIf, cst.WithItem, cst.AsName, cst.From,
              cst.SubscriptElement, cst.Param, cst.Else, cst.Finally):
    _STEPS[_kind] = _via


def _first_name(name: cst.BaseExpression) -> str:
    """``a`` of an import's ``a.b.c`` (a ``Name`` or a chain of ``Attribute`` over one)."""
    while isinstance(name, cst.Attribute):
        name = name.value
    return name.value if isinstance(name, cst.Name) else ""


#: What the ``ast`` node found for a wanted libcst node must be, and how its source text must read.
_EXPECTED: Dict[type, Tuple[tuple, Callable[[Any, str], bool]]] = {  # each takes its own kind of node
    # ``True``, ``False`` and ``None`` are names to libcst and constants to ``ast``
    cst.Name: ((ast.Name, ast.Constant, _NamePlace), lambda node, text: text == node.value),
    cst.Attribute: ((ast.Attribute,), lambda node, text: text.endswith(node.attr.value)),
    cst.Call: ((ast.Call,), lambda node, text: text.endswith(")")),
    cst.Subscript: ((ast.Subscript,), lambda node, text: text.endswith("]")),
    cst.Integer: ((ast.Constant,), lambda node, text: text == node.value),
    cst.Float: ((ast.Constant,), lambda node, text: text == node.value),
    cst.Imaginary: ((ast.Constant,), lambda node, text: text == node.value),
    cst.SimpleString: ((ast.Constant,), lambda node, text: text == node.value),
    cst.ImportAlias: ((ast.alias,), lambda node, text: text.startswith(_first_name(node.name))),
    cst.Import: ((ast.Import,), lambda node, text: text.startswith("import")),
    cst.ImportFrom: ((ast.ImportFrom,), lambda node, text: text.startswith("from")),
    cst.List: ((ast.List,), lambda node, text: text[:1] == "[" and text[-1:] == "]"),
    cst.ListComp: ((ast.ListComp,), lambda node, text: text[:1] == "[" and text[-1:] == "]"),
    cst.Dict: ((ast.Dict,), lambda node, text: text[:1] == "{" and text[-1:] == "}"),
    cst.DictComp: ((ast.DictComp,), lambda node, text: text[:1] == "{" and text[-1:] == "}"),
    cst.Set: ((ast.Set,), lambda node, text: text[:1] == "{" and text[-1:] == "}"),
    cst.SetComp: ((ast.SetComp,), lambda node, text: text[:1] == "{" and text[-1:] == "}"),
    cst.Tuple: ((ast.Tuple,), lambda node, text: bool(text) or not node.elements),
    cst.BinaryOperation: ((ast.BinOp,), lambda node, text: bool(text)),
    cst.UnaryOperation: ((ast.UnaryOp,), lambda node, text: bool(text)),
    cst.BooleanOperation: ((ast.BoolOp, _BoolPrefix), lambda node, text: bool(text)),
    cst.Comparison: ((ast.Compare,), lambda node, text: bool(text)),
    cst.IfExp: ((ast.IfExp,), lambda node, text: bool(text)),
    cst.Lambda: ((ast.Lambda,), lambda node, text: text.startswith("lambda")),
    cst.Await: ((ast.Await,), lambda node, text: text.startswith("await")),
    cst.ConcatenatedString: ((ast.Constant, ast.JoinedStr), lambda node, text: bool(text)),
    cst.FormattedString: ((ast.JoinedStr,), lambda node, text: text.endswith(node.end)),
}


_FIELD_NAMES: Dict[type, Tuple[str, ...]] = {}
#: The blocks whose statements ``_block_counterparts`` pairs with ``ast``'s (compared by type: libcst's node
#: classes are ABCs, and a failed ``isinstance`` on one goes through ``ABCMeta.__instancecheck__``).
_BLOCKS = frozenset({cst.Module, cst.IndentedBlock})
_DEF_OR_CLASS = re.compile(r"(?:async\s+)?(?:def|class)\s+")


def field_names(kind: type) -> Tuple[str, ...]:
    """The dataclass fields of a libcst node type (looked up once per type)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def _place_in(parent: cst.CSTNode, child: cst.CSTNode) -> Optional[Tuple[str, Optional[int]]]:
    """The field of ``parent`` that holds ``child``, and its index when the field is a list."""
    for name in field_names(type(parent)):
        value = getattr(parent, name)
        if value is child:
            return name, None
        if isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                if item is child:
                    return name, index
    return None


class TreeSpans:
    """Character offsets of libcst nodes, read from the ``ast`` tree of the same source text."""

    def __init__(self, tree: ast.Module, source: str, line_starts: List[int]) -> None:
        self._tree = tree
        self._source = source
        self._line_starts = line_starts
        self._counterparts: Dict[int, Optional[Counterpart]] = {}
        self._ascii: Dict[int, bool] = {}

    def offsets(self, chain: Sequence[cst.CSTNode]) -> Optional[Offsets]:
        """Where ``chain[-1]`` is, given its chain of parents from the module (``chain[0]``) down."""
        node: Any = chain[-1]  # of any node type ``_EXPECTED`` names
        expected = _EXPECTED.get(type(node))
        if expected is None:
            return None
        found = self._counterpart(chain, len(chain) - 1)
        if not isinstance(found, expected[0]):
            return None
        if isinstance(found, _NamePlace):
            offsets = self._name_offsets(node, found)
        elif type(node) is cst.Tuple:
            offsets = self._tuple_offsets(node, found)
        elif isinstance(found, _BoolPrefix):  # from the whole chain's start to the last operand it holds
            whole, last = self._node_offsets(found.node), self._node_offsets(found.node.values[found.count - 1])
            offsets = None if whole is None or last is None or node.right.rpar else (whole[0], last[1])
        else:
            offsets = self._node_offsets(found)
        if offsets is None:
            return None
        return offsets if expected[1](node, self._source[offsets[0]:offsets[1]]) else None

    def _tuple_offsets(self, node: cst.Tuple, found: ast.Tuple) -> Optional[Offsets]:
        """A tuple's span in libcst runs from its first element to its last (and a trailing comma), inside
        any parentheses and the space within them; ``ast`` counts the innermost parentheses."""
        if not node.elements:  # ``()``: libcst's span is empty, just inside the parentheses
            whole = self._node_offsets(found)
            return (whole[0] + 1, whole[0] + 1) if whole and self._source[whole[0]:whole[1]] == "()" else None
        if len(found.elts) != len(node.elements):
            return None
        first, last = node.elements[0], node.elements[-1]
        ends = (first, first.value, last, last.value)
        if any(getattr(part, "lpar", None) or getattr(part, "rpar", None) for part in ends):
            return None  # a parenthesized element: ``ast`` leaves its parentheses out
        start, end = self._node_offsets(found.elts[0]), self._node_offsets(found.elts[-1])
        if start is None or end is None:
            return None
        stop = end[1]
        if isinstance(last.comma, cst.Comma):
            space = last.comma.whitespace_before
            if not isinstance(space, cst.SimpleWhitespace):
                return None
            stop += len(space.value) + 1
            if self._source[stop - 1:stop] != ",":
                return None
        return start[0], stop

    def _node_offsets(self, found: Any) -> Optional[Offsets]:  # an ``ast`` node with a position
        if getattr(found, "end_lineno", None) is None:
            return None
        start = self._offset(found.lineno, found.col_offset)
        end = self._offset(found.end_lineno, found.end_col_offset)
        return None if start is None or end is None else (start, end)

    def _name_offsets(self, node: cst.CSTNode, place: _NamePlace) -> Optional[Offsets]:
        if not isinstance(node, cst.Name) or place.anchor is None:
            return None
        if place.where == "ends":
            end = self._offset(place.anchor.end_lineno, place.anchor.end_col_offset)
            return None if end is None else (end - len(node.value), end)
        start = self._offset(place.anchor.lineno, place.anchor.col_offset)
        if start is not None and place.where == "after":
            keyword = _DEF_OR_CLASS.match(self._source, start)
            start = keyword.end() if keyword else None
        return None if start is None else (start, start + len(node.value))

    def _counterpart(self, chain: Sequence[cst.CSTNode], at: int) -> Optional[Counterpart]:
        node = chain[at]
        key = id(node)
        if key in self._counterparts:
            return self._counterparts[key]
        if at == 0:
            found = self._tree if type(node) is cst.Module else None
        elif type(chain[at - 1]) in _BLOCKS:
            self._block_counterparts(chain[at - 1], self._counterpart(chain, at - 1))
            return self._counterparts.get(key)
        else:
            parent = chain[at - 1]
            above = self._counterpart(chain, at - 1)
            step = _STEPS.get(type(parent))
            place = _place_in(parent, node) if step is not None and above is not None else None
            found = step(parent, place[0], place[1], node, above) if step is not None and place is not None else None
        self._counterparts[key] = found
        return found

    def _block_counterparts(self, block: Any, above: Optional[Counterpart]) -> None:  # a module or a block
        """Fill in the counterparts of a module's or an indented block's statements, all at once."""
        tree_statements = (above.body if isinstance(above, ast.Module) else
                           above.statements if isinstance(above, _Block) else None)
        pairs = statement_counterparts(block.body, tree_statements) if tree_statements is not None else None
        for statement, position in pairs or ((s, -1) for s in block.body):
            found: Optional[Counterpart]
            if position < 0 or tree_statements is None:
                found = None
            elif isinstance(statement, cst.SimpleStatementLine):
                found = _Line(tree_statements, position)
            else:
                found = tree_statements[position]
            self._counterparts[id(statement)] = found

    def _offset(self, line: int, byte_column: int) -> Optional[int]:
        """A character offset from ``ast``'s line and UTF-8 byte column."""
        if not 1 <= line <= len(self._line_starts):
            return None
        start = self._line_starts[line - 1]
        ascii_line = self._ascii.get(line)
        if ascii_line is None:
            end = self._line_starts[line] if line < len(self._line_starts) else len(self._source)
            ascii_line = self._ascii[line] = self._source[start:end].isascii()
        if ascii_line:
            return start + byte_column
        end = self._line_starts[line] if line < len(self._line_starts) else len(self._source)
        return start + len(self._source[start:end].encode("utf-8")[:byte_column].decode("utf-8", "replace"))
