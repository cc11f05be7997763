"""Positions agree with libcst's PositionProvider on every node, whichever way they are measured: from
CPython's ``ast`` (``TreeSpans``), by generating code for one statement, or over the whole module."""
import ast

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.analyze import VOCABULARY, tensor_methods
from migrator.lines import line_col, line_starts
from migrator.model import Span
from migrator.resolve import resolve_module
from migrator.engine.positions import Positions
from migrator.engine.tree_spans import TreeSpans
from migrator.resolve.walk import Walker

SOURCE = '''\
# -*- coding: utf-8 -*-
"""Module docstring."""
from torch.cuda.amp import (
    autocast,
    GradScaler,  # trailing comment
)
import torch as T, os.path as osp
from apex.optimizers import (FusedAdam as Adam,
                             FusedLAMB)
DEVICES = ("cuda:0",
           "cuda:1",)
PAIR = (4, 4); EMPTY = ()


@T.no_grad()
# a comment between decorators
@staticmethod
def step(model, x: "T.Tensor", /, y=1, *rest, device="cuda:0", scale: float = 2.0, **extra) -> None:
    """Docstring with cuda in it."""
    with autocast(dtype=T.float16) as ctx, open(osp.join("a", "b")):
        y = (model(x)
             .to(device, non_blocking=True))
    T.cuda.synchronize(); z = [i for i in range(3) if i if not i]
    s = f"{x!r:>10} café" + 'é' + T.version.cuda
    flag = T.cuda.is_available() and x is not None and (y or z) or not s
    return y if y is not None else (lambda: 0)()


class Net(T.nn.Module, metaclass=type):
    scale = {"a": 1, **extra_defaults}

    def forward(self, *args, **kwargs):
        try:
            out = self.body(*args, **kwargs)[0, 1:2, ::3]
        except (RuntimeError, ValueError) as error:  # comment
            raise RuntimeError("failed") from error
        else:
            out = -out
        finally:
            pass
        if out.is_cuda:
            out = out.cpu()
        elif T.cuda.device_count() > 1:
            out = {k: v for k, v in out.items()}
        else:
            out = {*out, 1j, 0x1F, 1_000.5}
        for a, b in zip(out, out):
            out += a @ b
        while not out:
            del out
        return out

    # a footer comment in the class body
async def fetch(url):
    async with session.get(url) as response:
        await response.text()
    return [await t async for t in aiter(url)]'''


def _walked(source: str, tree: bool):
    module = cst.parse_module(source)
    ours = Positions(module, source, ast.parse(source) if tree else None)
    Walker(index=ours.index, skip=frozenset()).walk(module)  # every node, labels too
    return module, ours


def _expected(module):
    found = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    # what migrator reports positions for: expressions, import names, arguments, parameters, statements
    return {node: where for node, where in found.items()
            if isinstance(node, (cst.BaseExpression, cst.ImportAlias, cst.Arg, cst.Param, cst.ImportFrom))}


@pytest.mark.parametrize("source", [
    pytest.param(SOURCE, id="no-trailing-newline"),
    pytest.param(SOURCE + "\n", id="trailing-newline"),
    pytest.param(SOURCE.replace("\n", "\r\n") + "\r\n", id="crlf"),
    pytest.param(SOURCE.replace("\n", "\r") + "\r", id="lone-cr-falls-back"),
    pytest.param(SOURCE.replace("    ", "\t"), id="tabs"),
])
@pytest.mark.parametrize("tree", [True, False], ids=["from-ast", "whole-module"])
def test_positions_match_libcst_provider(source, tree):
    module, ours = _walked(source, tree)
    expected = _expected(module)
    pending = [(node, ours.pending(node)) for node in expected]
    ours.resolve()
    assert len(pending) > 200
    for node, placeholder in pending:
        span, where = ours.span_of(placeholder), expected[node]
        assert (span.line, span.col, span.end_line, span.end_col) == (
            where.start.line, where.start.column, where.end.line, where.end.column), node


def test_ast_places_what_the_resolver_asks_for_without_generating_code(monkeypatch):
    """The fast path is taken: every call, attribute, name and import a scan reports comes from ``ast``."""
    generated = []
    real = Positions._generate
    monkeypatch.setattr(Positions, "_generate",
                        lambda self, node, *a, **k: generated.append(type(node).__name__) or real(self, node, *a, **k))
    source = SOURCE + "\n"
    facts, usages = resolve_module(cst.parse_module(source), "m", False, tensor_methods(), VOCABULARY,
                                   source=source, tree=ast.parse(source))
    assert generated == [] and len(usages) > 10
    assert {u.kind for u in usages} >= {"import", "call", "attribute", "decorator"}
    for usage in usages:  # each span starts where its text is (an import's snippet is its whole statement)
        at = source.splitlines()[usage.span.line - 1][usage.span.col:]
        expected = usage.api.rsplit(".", 1)[-1] if usage.kind == "import" else usage.snippet[:len(at)]
        assert at.startswith(expected), usage


def test_a_node_ast_cannot_place_is_measured_by_its_statement_alone(monkeypatch):
    source = 'import torch\nx = torch.ones(1)\ny = f"{torch.cuda.is_available()}"\nz = torch.zeros(2)\n'
    module, ours = _walked(source, tree=True)
    generated = []
    real = Positions._generate
    monkeypatch.setattr(Positions, "_generate",
                        lambda self, node, *a, **k: generated.append(node) or real(self, node, *a, **k))
    inside_fstring = module.body[2].body[0].value.parts[0].expression  # the call inside the f-string
    ones = module.body[1].body[0].value
    pending = [ours.pending(inside_fstring), ours.pending(ones)]
    ours.resolve()
    assert generated == [module.body[2]]
    assert [ours.text_of(p) for p in pending] == ["torch.cuda.is_available()", "torch.ones(1)"]
    assert ours.span_of(pending[0]) == Span(3, 7, 3, 32)


def test_a_node_outside_the_walk_is_still_measured():
    module = cst.parse_module("import torch\ntorch.cuda.synchronize()\n")
    ours = Positions(module, module.code, ast.parse(module.code))  # no walk: nothing indexed
    call = module.body[1].body[0].value
    span = ours.span(call)
    assert (span.line, span.col, span.end_line, span.end_col) == (2, 0, 2, 24)


@pytest.mark.parametrize("source, expected", [
    pytest.param("def f(a, b=1, *, c=2):\n    pass\n", ["f", "a", "b", "1", "c", "2"], id="parameters"),
    pytest.param("x = a and b and c or d\n",
                 ["x", "a and b and c or d", "a and b and c", "a and b", "a", "b", "c", "d"], id="boolean-chains"),
    pytest.param("t = (\n    1,\n    2,\n)\n", ["t", "1,\n    2,", "1", "2"], id="parenthesized-tuple"),
    pytest.param("g(x, *xs, k=1, **kw)\n", ["g(x, *xs, k=1, **kw)", "g", "x", "xs", "k", "1", "kw"],
                 id="call-arguments"),
])
def test_tree_spans_read_the_source_text_of_each_node(source, expected):
    module, ours = _walked(source, tree=True)
    spans = TreeSpans(ast.parse(source), source, line_starts(source))
    texts = []
    parents = ours.index.parents
    for node in _expected(module):
        if isinstance(node, (cst.Arg, cst.Param)):
            continue
        chain = [node]
        while parents.get(id(chain[-1])) is not None:
            chain.append(parents[id(chain[-1])])
        offsets = spans.offsets(chain[::-1])
        if offsets is not None:
            texts.append(source[offsets[0]:offsets[1]])
    assert sorted(texts) == sorted(expected)


@pytest.mark.parametrize("text, starts", [
    pytest.param("a\nb\n", [0, 2, 4], id="lf"),
    pytest.param("a\r\nb\r\n", [0, 3, 6], id="crlf"),
    pytest.param("a\rb\r", [0, 2, 4], id="lone-cr"),
    pytest.param("a\r\n\rb", [0, 3, 4], id="mixed"),
])
def test_lines_end_where_cpython_ends_them(text, starts):
    assert line_starts(text) == starts
    source = text.replace("a", "x = 1").replace("b", "y = 2")
    second = ast.parse(source).body[1]
    assert line_col(line_starts(source), source.index("y")) == (second.lineno, second.col_offset)
