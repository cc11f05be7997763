"""`migrator explain` as a terminal reads it: one bullet per clause, a screen per API at 80 columns, a
misspelt name refused with what it is close to, and every target chosen answered."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.explain import split_clauses


def _explain(*args, columns=80):
    """``columns`` ``None``: as a pipe reads it, one record a line."""
    return CliRunner().invoke(main, ["explain", *args], env={"COLUMNS": str(columns) if columns else None})


@pytest.mark.parametrize("api", [
    pytest.param("torch.nn.functional.scaled_dot_product_attention", id="sdpa-21-vendor-notes"),
    pytest.param("torch.nn.functional.ctc_loss", id="sources-disagree"),
    pytest.param("flash_attn.flash_attn_func", id="cuda-library"),
    pytest.param("torch.cuda.amp.autocast", id="device-rename"),
    pytest.param("torch.utils.data.DataLoader", id="no-rule-vendor-list"),
    pytest.param("torch.optim.AdamW", id="optimizer-path"),
    pytest.param("torch.distributed.init_process_group", id="collective"),
    pytest.param("torch.utils.cpp_extension.load", id="custom-op-build"),
    pytest.param("torch.backends.cudnn.benchmark", id="backend-switch"),
    pytest.param("torch.tile", id="tensor-op"),
])
def test_an_api_fits_forty_lines_of_eighty_columns_with_a_bullet_per_clause(api):
    result = _explain(api)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 80, result.output
    assert sum(1 for line in lines if line.startswith("    - ")) >= 3  # each target says its clauses
    assert not re.search(r"[\u4e00-\u9fff]", result.output)  # the vendors' notes are said by kind


def test_the_vendors_notes_are_counted_by_kind_and_quoted_with_v():
    default = _explain("torch.nn.functional.scaled_dot_product_attention", "--target", "cann", columns=None).output
    assert ("    - 2 vendor notes that cannot bite here (this call leaves `is_causal`, `attn_mask` at the default): "
            "2 x argument limit (`is_causal`, `attn_mask`)\n") in default
    quoted = _explain("torch.nn.functional.scaled_dot_product_attention", "--target", "cann", "-v",
                      columns=None).output
    assert ("    - vendor note that cannot bite here: 在开启`is_causal`计算时，`attn_mask`必须为None (this call leaves "
            "`is_causal`, `attn_mask` at the default)\n") in quoted


def test_a_misspelt_name_is_refused_with_what_it_is_close_to():
    result = _explain("torch.cuda.amp.autocst")
    assert result.exit_code == 2 and "did you mean: torch.cuda.amp.autocast" in result.output
    assert "rewrite" not in result.output and "autocst`" not in result.output  # no verdict invented for it
    document = CliRunner().invoke(main, ["explain", "torch.cuda.amp.autocst", "torch.cuda.synchronize",
                                         "--format", "json"])
    assert document.exit_code == 2
    assert [u["api"] for u in json.loads(document.stdout)["unknown"]] == ["torch.cuda.amp.autocst"]


def test_a_real_name_no_table_holds_is_still_judged_by_its_module():
    """``torch.cuda.is_bf16_supported`` is in torch but in no bundled table: close to nothing, not a typo."""
    result = _explain("torch.cuda.is_bf16_supported", "--format", "json")
    assert result.exit_code == 0 and json.loads(result.output)["verdicts"]["cann"]["status"] == "rewrite"


def test_every_target_is_answered_a_data_gap_said_as_such():
    """No rule reports ``DataLoader`` and the kunlun data has no row for it: it used to be left out silently."""
    result = _explain("torch.utils.data.DataLoader", "--format", "json")
    verdicts = json.loads(result.output)["verdicts"]
    assert list(verdicts) == ["cann", "neuware", "kunlun"]
    assert verdicts["kunlun"]["status"] == "unknown" and verdicts["kunlun"]["gap"] is True
    assert "no data" in verdicts["kunlun"]["message"]
    assert verdicts["neuware"]["notes"][0]["kind"] == "argument"  # generator=..., which the call leaves out
    assert "kunlun@kl3: unknown [data gap]" in _explain("torch.utils.data.DataLoader").output


@pytest.mark.parametrize("message, clauses", [
    pytest.param("use `a; b` (x; y); needs `import torch_npu` before use", ["use `a; b` (x; y)",
                                                                            "needs `import torch_npu` before use"],
                 id="not-inside-quotes-or-parentheses"),
    pytest.param("one", ["one"], id="one-clause"),
])
def test_clauses_split_at_their_own_separators(message, clauses):
    assert split_clauses(message) == clauses
