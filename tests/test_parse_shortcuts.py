"""Shortcuts of the per-file pass, each held to what it replaces: a string literal's value cut from its text
against ``ast.literal_eval``, libcst's tree built without node validation against the checked one, and the
outline's walk for calls against ``ast.walk``."""
import ast
import threading

import libcst as cst
import pytest

from migrator.resolve.strings import string_value
from migrator.sources.outline import _calls_in
from migrator.engine.trusted_parse import parser_output_trusted
from migrator.sources.python import ParseFailure, parse_python


@pytest.mark.parametrize("literal", [
    pytest.param("'cuda'", id="single-quotes"),
    pytest.param('"nccl"', id="double-quotes"),
    pytest.param("''", id="empty"),
    pytest.param('""""""', id="empty-triple"),
    pytest.param('"""cuda\nnpu"""', id="triple-with-newline"),
    pytest.param("'''a\"b'''", id="triple-holding-the-other-quote"),
    pytest.param('""""a"""', id="triple-opening-with-a-quote"),
    pytest.param("'a\\'b'", id="escaped-quote"),
    pytest.param("'cuda\\x3a0'", id="hex-escape"),
    pytest.param("'\\N{BULLET}'", id="named-escape"),
    pytest.param("r'\\d+'", id="raw-with-backslash"),
    pytest.param("R'cuda'", id="raw-upper"),
    pytest.param("u'cuda'", id="unicode-prefix"),
    pytest.param("b'cuda'", id="bytes"),
    pytest.param("Rb'\\x00'", id="raw-bytes"),
    pytest.param("'cuda' 'npu'", id="concatenated"),
    pytest.param("'cu' r'\\da'", id="concatenated-raw"),
    pytest.param("b'a' b'b'", id="concatenated-bytes"),
    pytest.param('"""a\r\nb"""', id="triple-with-crlf"),
])
def test_a_string_literal_holds_what_literal_eval_reads(literal):
    assert string_value(cst.parse_expression(literal)) == ast.literal_eval(literal)


@pytest.mark.parametrize("expression", [
    pytest.param("f'{x}'", id="f-string"),
    pytest.param("'a' f'{x}'", id="concatenated-f-string"),
    pytest.param("name", id="not-a-string"),
])
def test_what_is_not_one_string_has_no_value(expression):
    assert string_value(cst.parse_expression(expression)) is None


SOURCE = '''import torch as T
from torch.cuda.amp import autocast as ac

@T.jit.script
def step(model, batch: "T.Tensor", *, scale=2 ** -3) -> None:
    with ac(dtype=T.float16), T.no_grad():
        out = model(batch.cuda(non_blocking=True))[..., ::2]
    x = [i async for i in out] if False else {k: v for k, v in zip("ab", (1, 2))}
    lambda *a, **k: (yield)
    return f"{out!r:>10}" + r"\\d" "tail"
'''


def test_a_trusted_parse_builds_the_same_tree_as_a_checked_one():
    trusted = parse_python(SOURCE, valid=True)
    assert not isinstance(trusted, ParseFailure)
    assert trusted.deep_equals(cst.parse_module(SOURCE))
    assert trusted.code == SOURCE


def test_only_an_unvetted_text_has_its_nodes_validated(monkeypatch):
    from libcst._nodes.base import CSTNode

    checked = []
    validate = CSTNode.__post_init__
    monkeypatch.setattr(CSTNode, "__post_init__", lambda node: checked.append(node) or validate(node))
    parse_python(SOURCE, valid=True)
    assert checked == []
    parse_python(SOURCE)
    assert len(checked) > 100


def test_nodes_are_validated_again_after_a_trusted_parse():
    parse_python(SOURCE, valid=True)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_validation_is_back_only_when_the_last_of_several_threads_is_done():
    inside, release = threading.Barrier(3), threading.Event()

    def parse_slowly():
        with parser_output_trusted():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=parse_slowly) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait()
    cst.Name("unchecked while both parse")  # would raise CSTValidationError if validated
    release.set()
    for thread in threads:
        thread.join()
    with pytest.raises(cst.CSTValidationError):
        cst.Name("checked again")


def test_an_unvetted_text_is_still_validated():
    """libcst's grammar takes ``'a' b'b'``; only its node validation rejects it, as CPython does."""
    assert isinstance(parse_python("x = 'a' b'b'\n"), ParseFailure)


def test_an_unvetted_text_is_still_checked_for_deep_nesting():
    deep = "x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    failure = parse_python(deep)
    assert isinstance(failure, ParseFailure) and "nested too deeply" in failure.reason


@pytest.mark.parametrize("expression", [
    pytest.param("f(g(x), h(y)(z))", id="nested-and-chained"),
    pytest.param("[a(i) for i in b(c(1))] + {k: v() for k in d()}", id="comprehensions"),
    pytest.param("lambda q=e(): q(f(), *g(), **h())", id="lambda-defaults-and-stars"),
    pytest.param("x if p() else (y or z(w[i()]))", id="branches-and-subscripts"),
    pytest.param("f'{a()!r:{b()}}' + not_a_call", id="f-string"),
    pytest.param("name", id="no-call"),
])
def test_the_outline_finds_calls_in_ast_walk_order(expression):
    node = ast.parse(expression, mode="eval").body
    assert _calls_in(node) == [sub for sub in ast.walk(node) if isinstance(sub, ast.Call)]
