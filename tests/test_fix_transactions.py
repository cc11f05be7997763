"""``fix`` writes as a transaction (issue 42): an editor save between staging and rename is never overwritten,
a rename that fails half-way and SIGINT/SIGTERM put back the files already replaced, and no temporary or kept
original is left behind."""

import os
import signal
import stat

import pytest

import migrator.fix as fix_module
from migrator.fix import fix_report, write_fixes
from migrator.maps.load import resolve_targets
from migrator.pipeline import ScanRequest, scan

CODE = "import torch\nx = torch.ones(2).cuda()\n"
NAMES = ("a.py", "b.py", "c.py")


@pytest.fixture
def planned(tmp_path):
    """Three files with a rewrite each, and their fixes (made on the bytes now on disk)."""
    for name in NAMES:
        (tmp_path / name).write_text(CODE)
    os.chmod(tmp_path / "a.py", 0o750)
    chosen = resolve_targets(["cann"])
    changed = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0]).changed
    assert [f.path for f in changed] == list(NAMES)
    return tmp_path, changed


def _untouched(root, names=NAMES):
    assert all((root / n).read_text() == CODE for n in names)
    assert stat.S_IMODE((root / "a.py").stat().st_mode) == 0o750
    assert sorted(p.name for p in root.iterdir()) == sorted(NAMES), "a temporary or kept original is left"


def _replace_calling(monkeypatch, at, action):
    """``_replace`` that runs ``action`` when it is called the ``at``-th time (before renaming that file)."""
    real_replace, calls = fix_module._replace, []

    def replace(temporary, real):
        calls.append(real)
        if len(calls) == at:
            action(real)
        return real_replace(temporary, real)

    monkeypatch.setattr(fix_module, "_replace", replace)
    return calls


def test_an_editor_save_between_staging_and_rename_is_not_overwritten(planned, monkeypatch):
    root, changed = planned
    saved = "import torch\nx = 1  # saved by an editor while fix renamed a.py\n"
    _replace_calling(monkeypatch, 1, lambda real: (root / "b.py").write_text(saved))
    outcome = write_fixes(root, changed)
    assert (root / "b.py").read_text() == saved
    assert outcome.left == ("b.py",) and outcome.written == ("a.py", "c.py") and not outcome.failed
    assert outcome.problems == ("b.py: changed while migrator worked on it: not written (run again)",)
    assert all(".npu()" in (root / n).read_text() for n in ("a.py", "c.py"))
    assert stat.S_IMODE((root / "a.py").stat().st_mode) == 0o750
    assert sorted(p.name for p in root.iterdir()) == sorted(NAMES)


@pytest.mark.parametrize("hard_links", [True, False])
def test_a_rename_failing_half_way_puts_back_the_files_already_replaced(planned, monkeypatch, hard_links):
    root, changed = planned
    if not hard_links:  # a file system without hard links: the originals are kept as copies
        def no_link(*args, **kwargs):
            raise OSError(1, "Operation not permitted")
        monkeypatch.setattr(fix_module.os, "link", no_link)

    def fail(real):
        raise OSError(28, "No space left on device")

    calls = _replace_calling(monkeypatch, 3, fail)
    outcome = write_fixes(root, changed)
    assert len(calls) == 3  # a.py and b.py were replaced before c.py failed
    assert outcome.failed and outcome.written == ()
    assert outcome.problems[-1] == ("c.py: cannot replace: No space left on device; the files already replaced "
                                    "were restored: no file was changed")
    _untouched(root)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_staging_removes_the_temporaries(planned, monkeypatch, signum):
    root, changed = planned
    real_stage, calls = fix_module._stage, []

    def stage(real, text):
        calls.append(real)
        staged = real_stage(real, text)
        if len(calls) == 2:
            os.kill(os.getpid(), signum)
        return staged

    monkeypatch.setattr(fix_module, "_stage", stage)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        write_fixes(root, changed)
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back
    _untouched(root)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_renaming_rolls_back(planned, monkeypatch, signum):
    root, changed = planned
    _replace_calling(monkeypatch, 3, lambda real: os.kill(os.getpid(), signum))
    with pytest.raises(KeyboardInterrupt):
        write_fixes(root, changed)
    _untouched(root)


def test_a_fix_without_trouble_leaves_nothing_beside_the_files(planned):
    root, changed = planned
    outcome = write_fixes(root, changed)
    assert outcome.written == NAMES and not outcome.problems
    assert sorted(p.name for p in root.iterdir()) == sorted(NAMES)
    assert stat.S_IMODE((root / "a.py").stat().st_mode) == 0o750


def test_a_notebook_edit_changes_only_the_edited_cells_source(tmp_path):
    """Only the edited cell's ``source`` is rewritten in the file's text: the other cells, outputs and metadata
    keep their bytes (U+2028 raw and escaped, ``1.0``, ``1e3``, ``\\u00e9``), and so do the cell's own
    unchanged lines."""
    import json

    text = ('{\n "cells": [\n  {\n   "cell_type": "markdown",\n   "metadata": {},\n'
            '   "source": ["a line\u2028separator\\n", "and an escaped one \\u2028 \\u00e9"]\n  },\n'
            '  {\n   "cell_type": "code",\n   "execution_count": 1.0,\n   "metadata": {"scale": 1e3},\n'
            '   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["caf\\u00e9\\n"]}],\n'
            '   "source": [\n    "import torch\\n",\n    "x = torch.ones(2).cuda()  # caf\\u00e9\\n",\n'
            '    "y = 1"\n   ]\n  },\n'
            '  {\n   "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],\n'
            '   "source": "s = \'\u2028\'\\n"\n  }\n ],\n'
            ' "metadata": {"kernelspec": {"name": "python3"}, "version": 1.0, "big": 1E+3},\n'
            ' "nbformat": 4,\n "nbformat_minor": 5\n}\n')
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    chosen = resolve_targets(["cann"])
    result = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0])
    [fixed] = result.changed
    new = fixed.new
    old_cell = ('"source": [\n    "import torch\\n",\n    "x = torch.ones(2).cuda()  # caf\\u00e9\\n",\n'
                '    "y = 1"\n   ]')
    new_cell = ('"source": [\n    "import torch\\n",\n    "import torch_npu\\n",\n'
                '    "x = torch.ones(2).npu()  # café\\n",\n    "y = 1"\n   ]')
    assert new == text.replace(old_cell, new_cell)  # nothing else moved by one byte
    cells = json.loads(new)["cells"]
    assert "".join(cells[1]["source"]) == "import torch\nimport torch_npu\nx = torch.ones(2).npu()  # café\ny = 1"
    assert json.loads(new)["metadata"] == json.loads(text)["metadata"]


@pytest.mark.parametrize("cells, edited, held", [
    pytest.param(["import torch\n!echo '\ud800'\nx = torch.zeros(3, device='cuda')\n"], None, "U+D800",
                 id="in-a-shell-line"),
    pytest.param([["import torch\n", "%ls \udcff\n", "x = torch.zeros(3, device='cuda')\n"]], None, "U+DCFF",
                 id="in-a-magic-of-a-line-list"),
    pytest.param(["%%bash\necho \ud800\n", "import torch\nx = torch.zeros(3, device='cuda')\n"], 1, None,
                 id="in-another-cell"),
])
def test_a_cell_with_a_lone_surrogate_is_skipped_with_its_reason(tmp_path, cells, edited, held):
    """A lone surrogate (``\\ud800`` in the JSON) in a line the parse blanks leaves the cell readable: its edits
    are held with the reason and the cell is not rewritten; another cell of the notebook is still fixed."""
    import json

    document = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                           "source": source} for source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(document)
    (tmp_path / "nb.ipynb").write_text(text)
    chosen = resolve_targets(["cann"])
    [fixed] = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0]).files
    if edited is None:
        assert fixed.new is None and not fixed.applied
        assert [s.reason for s in fixed.skipped] == [f"cell 0 holds a lone surrogate ({held}), which is not text: the "
                                                     "cell is left as it is"]
    else:
        new = json.loads(fixed.new)["cells"]
        assert new[0]["source"] == cells[0]  # the cell with the surrogate keeps its bytes, the import goes elsewhere
        assert new[edited]["source"] == "import torch\nimport torch_npu\nx = torch.zeros(3, device='npu')\n"


@pytest.mark.parametrize("ending", [
    pytest.param("\n \n", id="a-whitespace-line"),
    pytest.param("\n  # a note, indented\n", id="an-indented-comment"),
    pytest.param("\n\t\t ", id="whitespace-without-newline"),
    pytest.param("\r\n\x0c\n", id="a-form-feed-line"),
])
def test_the_end_of_a_file_libcst_leaves_off_is_kept(tmp_path, ending):
    """libcst 1.0 writes a module back without the whitespace-only lines or indented comment that end it: ``fix``
    wrote such files without them (the fuzz run's generated modules; an editor's line appended there was lost)."""
    text = CODE + ending
    (tmp_path / "a.py").write_text(text, newline="")
    chosen = resolve_targets(["cann"])
    [fixed] = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0]).changed
    assert fixed.new == "import torch\nimport torch_npu\nx = torch.ones(2).npu()\n" + ending
