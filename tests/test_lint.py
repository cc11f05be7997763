"""The code is lint-clean as `[tool.ruff]` in pyproject.toml says (pyflakes and pycodestyle) and type-clean as
`[tool.mypy]` says, so the CI's one test command holds it there."""

import shutil
import subprocess

import pytest

from .conftest import REPO


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is in the test extras: pip install '.[test]'")
def test_ruff_finds_nothing():
    done = subprocess.run(["ruff", "check", "--no-cache", "--output-format", "concise", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("mypy") is None, reason="mypy is in the test extras: pip install '.[test]'")
def test_mypy_finds_nothing():
    """``[tool.mypy]`` names the package; zero errors is the bar a change keeps (torch and Dask are optional,
    so they are read as untyped whether installed or not)."""
    done = subprocess.run(["mypy", "--no-incremental"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
