"""Shortcuts of the per-file pass, each held to what it replaces: a string literal's value cut from its text
against ``ast.literal_eval``."""
import ast

import libcst as cst
import pytest

from migrator.resolve.strings import string_value


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
