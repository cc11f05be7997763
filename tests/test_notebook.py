import json

import pytest

from migrator.model import FileStatus

from .conftest import by_rule


def _nb(*cells):
    return json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": src, "outputs": []}
                                 for kind, src in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_positions_are_cell_and_line_and_magics_are_handled(scan_tree):
    nb = _nb(("markdown", ["Use `torch.cuda.synchronize()` here\n"]),
             ("code", ["%load_ext autoreload\n", "!nvidia-smi\n", "import torch\n"]),
             ("code", ["x = torch.ones(2)\n", "y = x.cuda()\n", "torch.cuda.synchronize()"]),
             ("code", "%%bash\nexport CUDA_VISIBLE_DEVICES=0\n"))
    report = scan_tree({"nb.ipynb": nb})
    found = {(f.rule, f.span.cell, f.span.line) for f in report.findings if f.rule != "torch-op"}
    assert ("device-move", 2, 2) in found
    assert ("device-call", 2, 3) in found
    assert ("nvidia-tool", 1, 2) in found
    assert ("environment-variable", 3, 2) in found
    assert not [f for f in report.findings if f.span.cell == 0]


def test_a_cell_that_does_not_parse_is_skipped_not_the_notebook(scan_tree):
    nb = _nb(("code", ["import torch\n"]), ("code", ["def broken(:\n"]), ("code", ["torch.cuda.synchronize()\n"]))
    report = scan_tree({"nb.ipynb": nb})
    result = report.files[0]
    assert result.status == FileStatus.OK and "cells 1 skipped" in result.reason
    assert [(f.span.cell, f.api) for f in by_rule(report.findings, "device-call")] == [(2, "torch.cuda.synchronize")]


@pytest.mark.parametrize("line, rule", [
    pytest.param("%env CUDA_VISIBLE_DEVICES=0\n", "environment-variable", id="env-magic-assignment"),
    pytest.param("%set_env NCCL_SOCKET_IFNAME eth0\n", "environment-variable", id="set-env-magic-space"),
    pytest.param("%pip install cupy-cuda12x\n", "cuda-requirement", id="pip-magic-cuda-wheel"),
    pytest.param("%system nvidia-smi -L\n", "nvidia-tool", id="system-magic"),
])
def test_line_magics_that_run_commands_are_read_as_shell(scan_tree, line, rule):
    nb = _nb(("code", ["import torch\n", line, "x = torch.ones(2)\n"]))
    report = scan_tree({"explore.ipynb": nb})
    assert (rule, 0, 2) in {(f.rule, f.span.cell, f.span.line) for f in report.judged}


@pytest.mark.parametrize("line", [
    pytest.param("%env\n", id="env-listing"),
    pytest.param("%env OMP_NUM_THREADS=4\n", id="env-of-another-runtime"),
    pytest.param("%pip install numpy\n", id="pip-of-a-plain-package"),
    pytest.param("%timeit torch.ones(2)\n", id="timing-magic"),
])
def test_line_magics_that_name_nothing_of_cuda_are_left_alone(scan_tree, line):
    nb = _nb(("code", ["import torch\n", line]))
    report = scan_tree({"explore.ipynb": nb})
    assert [f.rule for f in report.judged if f.span.line == 2] == []


def test_a_line_magic_that_runs_code_is_read_as_code(scan_tree):
    """``%time`` / ``%timeit`` run the Python after them: a device call there is a finding (it was blanked with the
    magic, so ``check`` passed a notebook that runs CUDA code)."""
    import json

    source = "import torch\n%time y = torch.zeros(3, device='cuda')\n%timeit -n 10 -r 3 y.cuda()\n%matplotlib inline\n"
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": source}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    report = scan_tree({"timed.ipynb": json.dumps(notebook)})
    found = {(f.span.line, f.span.col) for f in report.findings if f.path == "timed.ipynb"}
    assert found >= {(2, 10), (3, 19)}  # the columns of the cell as written
