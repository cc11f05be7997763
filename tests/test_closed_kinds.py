"""Closed types are read by member: no ``usage.kind == "call"`` (nor ``in ("str", "fstr")``, nor a rule's
``kinds = frozenset({"call"})``) where the field is one of the model's closed enums. A member compares equal to
its string, so such a literal works until the member is renamed, and a type checker cannot see it; code run per
usage binds the members it compares once, at module level (``_CALL = UsageKind.CALL``): a class attribute lookup
on an Enum costs several times a literal there (``bench/bench_scan.py``)."""

import ast
from enum import Enum
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

from migrator import model

from .conftest import REPO

PACKAGE = REPO / "migrator"

#: the model's closed sets: every str Enum it defines, by the value each member spells
CLOSED: Dict[str, Set[str]] = {}
for _name, _type in vars(model).items():
    if isinstance(_type, type) and issubclass(_type, Enum) and issubclass(_type, str) and _type is not model.Closed:
        for _member in _type:
            CLOSED.setdefault(_member.value, set()).add(_name)

#: the fields that hold a closed member wherever the package reads them, by attribute name
CLOSED_FIELDS = {"kind": None, "status": "Status", "category": "Category", "context": "Context",
                 "confidence": "Confidence"}

#: reads of a field of that name that is not closed, with why (path relative to ``migrator/``, the comparison)
NOT_CLOSED = {
    ("resolve/scope.py", ""): "Scope.kind: the resolver's own scope word (module, class, function), a str",
    ("resolve/visitor.py", "self.scopes.current.kind"): "Scope.kind, as above",
    ("rules/base.py", "rule.status"): "ApiRule.status: a device map's status override, a string of its JSON",
    ("fleet/summary.py", "kind"): "RepoBlocker.kind: the portfolio's own words (rewrite, unsupported op), a str",
    ("mapsbuild", ""): "the maps build reads and writes the vendors' JSON strings",
    # to go with the step reader's fold into one walk per file (issue 47), which rewrites this module
    ("project/step.py", "kind"): "UsageKind.METHOD, read as 'method'",
    ("project/step.py", "definition.kind"): "DefinitionKind.CLASS, read as 'class'",
}


def _strings(node: ast.AST) -> Optional[List[str]]:
    """The str literals ``node`` is (one, or a tuple/list/set/frozenset of them), else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("frozenset", "set") and len(node.args) == 1:
        return _strings(node.args[0])
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        found = [_strings(e) for e in node.elts]
        return [s for part in found for s in part] if all(p is not None and len(p) == 1 for p in found) else None
    return None


def _field(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute) and node.attr == "value":  # ``verdict.status.value == "rewrite"``
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr in CLOSED_FIELDS:
        return node.attr
    if isinstance(node, ast.Name) and node.id == "kind":
        return "kind"
    return None


def _closed(field: str, values: List[str]) -> bool:
    """Whether every literal is a member's value of the closed type that field holds."""
    wanted = CLOSED_FIELDS[field]
    return all(v in CLOSED and (wanted is None or wanted in CLOSED[v]) for v in values)


def literal_reads(source: str) -> Iterator[Tuple[int, str, str]]:
    """(line, the field's expression, the comparison) of each literal read of a closed field in ``source``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                field, values = _field(side), _strings(other)
                if field and values and _closed(field, values):
                    yield node.lineno, ast.unparse(side), ast.unparse(node)
        elif isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["kinds"]:
            values = _strings(node.value)
            if values and _closed("kind", values):
                yield node.lineno, "kinds", ast.unparse(node)


def _allowed(rel: str, field: str) -> bool:
    return any((rel == path or rel.startswith(path + "/")) and (not expr or expr == field)
               for path, expr in NOT_CLOSED)


def _package_reads() -> List[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for line, field, text in literal_reads(path.read_text(encoding="utf-8")):
            if not _allowed(rel, field):
                found.append(f"migrator/{rel}:{line}: {text}")
    return found


def test_no_closed_field_is_compared_with_a_literal():
    assert _package_reads() == []


@pytest.mark.parametrize("source, found", [
    pytest.param("if usage.kind == 'call':\n    pass\n", ["usage.kind == 'call'"], id="equal"),
    pytest.param("ok = value.kind in ('str', 'fstr')\n", ["value.kind in ('str', 'fstr')"], id="in-tuple"),
    pytest.param("ok = 'import' != u.kind\n", ["'import' != u.kind"], id="literal-first"),
    pytest.param("class R:\n    kinds = frozenset({'method'})\n", ["kinds = frozenset({'method'})"], id="kinds"),
    pytest.param("ok = verdict.status == 'rewrite'\n", ["verdict.status == 'rewrite'"], id="status"),
    pytest.param("ok = f.category.value != 'tune'\n", ["f.category.value != 'tune'"], id="its-value"),
    pytest.param("ok = usage.kind == _CALL\n", [], id="bound-member"),
    pytest.param("ok = value.kind in (ValueKind.STR, ValueKind.FSTR)\n", [], id="members"),
    pytest.param("ok = row.status == 'ok'\n", [], id="not-a-closed-value"),
    pytest.param("ok = finding.category == 'rewrite'\n", [], id="another-types-value"),
])
def test_the_lint_reads_the_spellings_of_a_literal_comparison(source, found):
    assert [text for _, _, text in literal_reads(source)] == found
