"""libcst's native parser only gets input within its budgets (``sources/python.parse_budget``): an ``and`` chain of
10,000 terms aborted the process inside it, 3,000 nested subscripts took minutes and 2 MB of statements needed
gigabytes. Each is a per-file error in ``scan`` and in ``fix`` (which parses in its own process, no pool); the runs
are in a child process so that a regression fails the test instead of killing the suite."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import migrator
from migrator.sources.python import MAX_PARSE_DEPTH, parse_python

from .conftest import write_tree

AND_CHAIN = "ok = " + " and ".join(["a"] * 10_000) + "\n"
GOOD = "import torch\nx = torch.zeros(3, device='cuda')\n"


def _run(*args, cwd):
    """The command in a child process, importing this very package (not whichever one is installed)."""
    package_root = str(Path(migrator.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("text, words", [
    pytest.param(AND_CHAIN, "nested too deeply", id="and-chain-10000"),
    pytest.param("x = (" + " or ".join(["b"] * (MAX_PARSE_DEPTH + 5)) + ")\n", "nested too deeply", id="or-chain"),
    pytest.param("x = a" + "[0]" * 2_000 + "\n", "nested too deeply", id="subscript-chain"),
    pytest.param("x = " + "(" * 3_000 + "1" + ")" * 3_000 + "\n", "nested too deeply", id="nested-parentheses"),
    pytest.param("x = 1\n" * 40_000, "too large to analyse", id="statements-past-the-node-budget"),
    pytest.param("W = [" + ",".join(f"'w{i}'" for i in range(160_000)) + "]\n", "too large to analyse",
                 id="a-list-of-160000-strings-20-s-to-scan"),
])
def test_input_past_the_budget_is_refused_before_libcst(text, words):
    failure = parse_python(text)
    assert words in getattr(failure, "reason", "")


def test_scan_and_fix_survive_an_and_chain(tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in (GOOD, AND_CHAIN)]
    write_tree(tmp_path, {"train.py": GOOD, "chain.py": "import torch\n" + AND_CHAIN, "nb.ipynb": json.dumps(
        {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})})
    scanned = _run("scan", str(tmp_path), "--format", "json", "--no-cache", "-o", str(tmp_path / "r.json"),
                   cwd=tmp_path)
    assert scanned.returncode in (0, 1), scanned.stderr[-2000:]
    report = json.loads((tmp_path / "r.json").read_text())
    files = {f["path"]: f for f in report["files"]}
    assert "line 2 nested too deeply" in files["chain.py"]["reason"]  # the statement left out, the rest scanned
    fixed = _run("fix", str(tmp_path), "--target", "cann", "--no-cache", "--force", cwd=tmp_path)
    assert fixed.returncode in (0, 1), fixed.stderr[-2000:]
    assert "device='npu'" in (tmp_path / "train.py").read_text()
    assert "device='npu'" in (tmp_path / "nb.ipynb").read_text()


def _budget_by_iter_child_nodes(tree):
    """The budget as first written, on ``ast.iter_child_nodes``: the reference the faster walk must agree with."""
    import ast

    from migrator.sources.python import MAX_PARSE_NODES

    stack, nodes = [(tree, 0)], 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_PARSE_NODES:
            return f"too large to analyse (more than {MAX_PARSE_NODES:,} syntax nodes)"
        if isinstance(node, ast.BoolOp):
            depth += len(node.values) - 1
        if depth > MAX_PARSE_DEPTH:
            return f"expression nested too deeply to analyse (deeper than {MAX_PARSE_DEPTH} levels)"
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None


@pytest.mark.parametrize("text, nodes", [
    pytest.param(Path(migrator.__file__).with_name("analyze.py").read_text(encoding="utf-8"), None, id="real-module"),
    pytest.param("x = (" + " or ".join(["b"] * (MAX_PARSE_DEPTH - 3)) + ")\n", None, id="or-chain-at-the-depth"),
    pytest.param("x = (" + " or ".join(["b"] * (MAX_PARSE_DEPTH - 1)) + ")\n", None, id="or-chain-one-past"),
    pytest.param("x = a" + "[0]" * 497 + "\n", None, id="subscripts-at-the-depth"),
    pytest.param("x = a" + "[0]" * 498 + "\n", None, id="subscripts-one-past"),
    # a node budget of 1,000 (the real one needs 75,000 statements): 249 assignments of 4 nodes, the module, passes
    pytest.param("x = 1\n" * 249 + "pass\n" * 3, 1_000, id="statements-at-the-node-budget"),
    pytest.param("x = 1\n" * 249 + "pass\n" * 4, 1_000, id="statements-one-past"),
])
def test_the_budget_walk_agrees_with_iter_child_nodes(text, nodes, monkeypatch):
    import ast

    from migrator.sources import python
    from migrator.sources.python import parse_budget

    if nodes is not None:
        monkeypatch.setattr(python, "MAX_PARSE_NODES", nodes)
    tree = ast.parse(text)
    assert parse_budget(tree) == _budget_by_iter_child_nodes(tree)
    if nodes is not None:  # the two cases sit on either side of the budget
        assert (parse_budget(tree) is None) is (text.count("pass") == 3)
