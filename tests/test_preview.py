"""The preview the page's diffs and SARIF's fixes share (``report/preview.py``) is what ``migrator fix`` writes."""
import json
from collections import Counter
from pathlib import Path
from typing import Optional

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.model import Auto, Category, Confidence, Edit, Finding, Manual, Span, Status, Unsafe, Verdict
from migrator.report.preview import line_rewrite

from .conftest import REPO

LINE = "    torch.cuda.synchronize()  # wait"
SNIPPET = "torch.cuda.synchronize()"


def _finding(fix, span=Span(3, 4, 3, 28)) -> Finding:
    verdict = Verdict(Status.REWRITE, "use torch_npu.npu.synchronize", "docs", fix=fix)
    return Finding(id="f", rule="device-call", category=Category.DEVICE, path="train.py", span=span,
                   api="torch.cuda.synchronize", snippet=SNIPPET, confidence=Confidence.RESOLVED,
                   verdicts={"cann": verdict})


RENAME = Edit("name", "torch.cuda.synchronize", "torch_npu.npu.synchronize")


@pytest.mark.parametrize("fix, span, expected", [
    pytest.param(Auto("torch_npu.npu.synchronize()", RENAME), Span(3, 4, 3, 28),
                 "    torch_npu.npu.synchronize()  # wait", id="auto"),
    pytest.param(Unsafe("torch_npu.npu.synchronize()", RENAME), Span(3, 4, 3, 28),
                 "    torch_npu.npu.synchronize()  # wait", id="unsafe"),
    pytest.param(Manual("torch_npu.npu.synchronize()"), Span(3, 4, 3, 28), None, id="manual"),
    pytest.param(Auto("torch_npu.npu.synchronize()", Edit("string", "cuda", "npu", at=Span(1, 9, 1, 15))),
                 Span(3, 4, 3, 28), None, id="edit-at-the-constant"),
    pytest.param(Auto("torch_npu.npu.synchronize()", RENAME), Span(3, 4, 4, 2), None, id="two-lines"),
    pytest.param(Auto("torch_npu.npu.synchronize()", RENAME), Span(3, 4, 3, 20), None, id="not-the-snippet-width"),
    pytest.param(Auto("torch_npu.npu.synchronize()", Edit("text", "cuda", "npu")), Span(3, 4, 3, 28), None,
                 id="a-script-line"),
])
def test_a_line_rewrite_is_the_suggestion_where_the_snippet_is(fix, span, expected):
    rewrite = line_rewrite(_finding(fix, span), "cann")
    assert (rewrite.applied_to(LINE) if rewrite is not None else None) == expected
    if rewrite is not None:
        assert rewrite.fix is fix and rewrite.applied_to(LINE.replace("cuda", "mlu")) is None  # the line changed


@pytest.mark.parametrize("target", ["cann", "neuware"])
def test_the_preview_is_the_line_fix_writes(example_report, target):
    """Every line of the bundled example that one applied rewrite changes reads, after ``fix --unsafe``, as the
    preview says."""
    root = REPO / "examples" / "llm_trainer"
    chosen = next(t for t in resolve_targets(None) if t.id == target)
    fixed = fix_report(root, example_report, chosen, unsafe=True)
    after = {(f.path, c.cell, c.before): c.after for f in fixed.files for c in f.changes}
    applied = {finding_id for f in fixed.files for finding_id in f.applied}
    edited = Counter((f.path, f.span.cell, f.span.line) for f in example_report.findings
                     if f.verdicts.get(target) is not None and f.verdicts[target].edit is not None)
    checked = 0
    for finding in example_report.findings:
        rewrite = line_rewrite(finding, target)
        if rewrite is None or finding.id not in applied or edited[(rewrite.path, rewrite.cell, rewrite.line)] != 1:
            continue  # held back (its reason is in the fix's output), or composed with another edit on its line
        line = _line(root / rewrite.path, rewrite.cell, rewrite.line)
        new = rewrite.applied_to(line)
        assert new is not None and after[(rewrite.path, rewrite.cell, line.strip())] == new.strip(), finding.snippet
        checked += 1
    assert checked >= 11


def _line(path: Path, cell: Optional[int], number: int) -> str:
    """A file's line as the scan read it (a notebook's: in its cell)."""
    if cell is None:
        return path.read_text(encoding="utf-8").splitlines()[number - 1]
    source = json.loads(path.read_text(encoding="utf-8"))["cells"][cell]["source"]
    return ("".join(source) if isinstance(source, list) else source).splitlines()[number - 1]
