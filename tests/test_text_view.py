"""The terminal view: a screen per target by default, every finding grouped with --show all, one line each
with -q, colour only when asked or on a terminal without NO_COLOR."""

from __future__ import annotations

import io
import itertools
import json
import re

import click
import pytest
from click.testing import CliRunner

from migrator import cli
from migrator.cli import main

TRAIN = "import torch\n\n\ndef main(model, batches):\n    model.cuda()\n" + "".join(
    f"    x{i} = batches[{i}].cuda()\n" for i in range(8)) + "    torch.cuda.synchronize()\n\n\n" \
    "if __name__ == '__main__':\n    main(None, [])\n"


@pytest.fixture(autouse=True)
def _piped(monkeypatch):
    """As a pipe sees it, whatever terminal runs the tests: no ``$COLUMNS``, no wrapping."""
    monkeypatch.delenv("COLUMNS", raising=False)


def _scan(tmp_path, *options, env=None):
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-cache", "--target", "cann,neuware", *options],
                                env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_default_view_is_readiness_plan_and_blockers_without_the_finding_rows(tmp_path):
    text = _scan(tmp_path)
    # nine moves in a row are one run of the same work (``roots.with_run_roots``): one item with its sites
    assert re.search(r"\n  1\. Apply `migrator fix` +2 +2 ", text) and "train.py\n" not in text
    assert "`--show all` lists them" in text


def test_one_line_per_blocker_from_its_clickable_place_marked_when_fix_applies_it(tmp_path):
    lines = _scan(tmp_path).splitlines()
    blockers = sorted(line for line in lines if line.startswith("train.py:"))
    assert blockers[0].startswith("train.py:14:5: [*] rewrite torch.cuda.synchronize")
    assert blockers[1].startswith("train.py:5:5: [*] rewrite torch.Tensor.cuda (1 entry point): use "
                                  "`torch.Tensor.npu`")
    assert len(blockers) == 2  # the same two block neuware: named there, not repeated
    assert "  as under cann: torch.cuda.synchronize, torch.Tensor.cuda" in lines


def test_vendor_notes_said_by_kind_quoted_with_v_and_kept_in_json(tmp_path):
    quote = "NPU对应接口为`Tensor.npu`，其`memory_format`参数仅支持传入torch.contiguous_format"
    text = _scan(tmp_path)
    assert "vendor notes: argument limit (`memory_format`)" in text
    assert not re.search(r"[\u4e00-\u9fff]", text)
    assert quote in _scan(tmp_path, "-v")
    document = json.loads(_scan(tmp_path, "--format", "json"))
    messages = [f["verdicts"]["cann"]["message"] for f in document["findings"] if f["api"] == "torch.Tensor.cuda"]
    assert messages and all(quote in m for m in messages)


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_text_fits_the_columns_given_and_is_one_record_a_line_when_piped(tmp_path, columns):
    wide = _scan(tmp_path, env={"COLUMNS": str(columns)}).splitlines()
    assert max(len(line) for line in wide) <= columns
    blocker = next(i for i, line in enumerate(wide) if line.startswith("train.py:5:5:"))
    record = [wide[blocker]] + list(itertools.takewhile(lambda line: line.startswith("    "), wide[blocker + 1:]))
    assert len(record) <= 3  # a blocker takes three lines at most, its end cut with "..."
    assert record[-1].endswith("(`memory_format`)") or record[-1].endswith("...")
    piped = _scan(tmp_path).splitlines()
    assert any(line.startswith("train.py:5:5:") and line.endswith("(`memory_format`)") for line in piped)


def test_show_all_groups_one_call_on_many_lines_into_one_row_with_what_to_do(tmp_path):
    text = _scan(tmp_path, "--show", "all")
    rows = [line for line in text.splitlines() if "device-move  torch.Tensor.cuda" in line]
    assert len(rows) == 1, rows  # nine .cuda() calls of the same verdicts: one run, listed at its first line
    assert rows[0].lstrip().startswith("5:5  ") and "8 uses of a cause listed above" in text
    assert "[cann:rewrite neuware:rewrite]" in rows[0]
    after = text.splitlines()[text.splitlines().index(rows[0]) + 1]
    assert after.strip().startswith("cann: ") and ".npu()" in after
    verbose = _scan(tmp_path, "-v")  # --show all, with the vendors' notes as they wrote them
    assert [line for line in verbose.splitlines() if "device-move" in line] == rows


def test_quiet_is_one_line_per_target(tmp_path):
    lines = [line for line in _scan(tmp_path, "-q").splitlines() if line]
    assert len(lines) == 3 and lines[1].startswith("cann@") and lines[2].startswith("neuware@")


def test_colour_only_when_asked_or_on_a_terminal_without_no_color(tmp_path, monkeypatch):
    assert "\x1b[" in _scan(tmp_path, "--color", "always")
    assert "\x1b[" not in _scan(tmp_path, "--color", "never") and "\x1b[" not in _scan(tmp_path)

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(click, "get_text_stream", lambda name: Terminal())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli._colour("auto", None) is True
    assert cli._colour("auto", tmp_path / "report.txt") is False  # a file gets no escape codes
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli._colour("auto", None) is False and cli._colour("always", None) is True


def test_long_lists_are_cut_to_a_screen_with_the_largest_first(tmp_path):
    """DeepSpeed has 55 kernel folders: the summary names the three with the most CUDA to port."""
    for i in range(10):
        kernel = "".join(f"__global__ void k{i}_{j}(float* x) {{ x[{j}] = 0; }}\n" for j in range(i + 1))
        (tmp_path / f"op{i}").mkdir()
        (tmp_path / f"op{i}" / "kernel.cu").write_text(kernel, encoding="utf-8")
    text = _scan(tmp_path)
    listed = [line for line in text.splitlines() if line.startswith("  op")]
    assert [line.split(":")[0].strip() for line in listed] == [f"op{i}/" for i in range(9, 6, -1)]
    assert "  ... 7 more (`--format html` or `json` has them all)" in text


def test_check_marks_what_fix_applies_says_notes_by_kind_and_wraps_on_a_terminal(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.migrator]\ntargets = ["cann"]\n', encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    piped = CliRunner().invoke(main, ["check", "--no-cache", "train.py"]).output.splitlines()
    assert piped[0] == ("train.py:5:5: device-move [*] [cann:rewrite] use `torch.Tensor.npu` (documented "
                        "equivalent); needs `import torch_npu` before use; vendor notes: argument limit "
                        "(`memory_format`)")
    quoted = CliRunner().invoke(main, ["check", "--no-cache", "-v", "train.py"]).output
    assert "`memory_format`参数仅支持传入torch.contiguous_format" in quoted
    narrow = CliRunner().invoke(main, ["check", "--no-cache", "train.py"], env={"COLUMNS": "60"}).output.splitlines()
    assert max(len(line) for line in narrow) <= 60 and narrow[0].startswith("train.py:5:5: device-move [*]")
    assert narrow[1].startswith("    ")  # the rest of the record, under it


@pytest.mark.parametrize("line, width, expected", [
    pytest.param("a.py:1:1: rewrite x: " + "word " * 12, 30,
                 ["a.py:1:1: rewrite x: word word", "    word word word word word", "    word word word word word"],
                 id="hanging-indent"),
    pytest.param("  x 你好你好你好你好你好你好你好你好", 20,
                 ["  x", "      你好你好你好你", "      好你好你好你好", "      你好"],
                 id="wide-characters-take-two-columns"),
    pytest.param("\x1b[33mrewrite\x1b[0m torch.x", 15, ["\x1b[33mrewrite\x1b[0m torch.x"], id="colour-takes-none"),
    pytest.param("a/very/long/path/of/a/file.py:1:1: x", 20, ["a/very/long/path/of/a/file.py:1:1:", "    x"],
                 id="the-place-stays-whole"),
    pytest.param("short", None, ["short"], id="piped-unwrapped"),
])
def test_a_line_wraps_at_the_width_as_a_terminal_counts_it(line, width, expected):
    from migrator.report.terminal import wrapped

    assert wrapped(line, width) == expected


@pytest.mark.parametrize("note, said", [
    pytest.param("`input`仅支持fp16，fp32", "dtype limit (no bf16)", id="dtype"),
    pytest.param("NPU对应接口为`Tensor.npu`，其`memory_format`参数仅支持传入torch.contiguous_format",
                 "argument limit (`memory_format`)", id="argument"),
    pytest.param("该接口会回退至CPU执行", "runs on the host CPU", id="cpu-fallback"),
    pytest.param("仅支持推理场景", "inference only", id="inference"),
    pytest.param("`self`仅支持fp32", "the docs' fp32-only placeholder", id="template"),
    pytest.param("针对Ascend 950DT，不支持该接口", "about another card", id="another-card"),
    pytest.param("`input`仅支持fp16，fp32\n在开启`is_causal`计算时，`attn_mask`必须为None",
                 "dtype limit (no bf16), argument limit (`is_causal`, `attn_mask`)", id="two-clauses"),
])
def test_a_vendor_note_is_said_by_what_its_clauses_are(note, said):
    from migrator.maps.limits import note_summary

    assert note_summary(note) == said
