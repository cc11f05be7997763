"""The code is lint-clean as `[tool.ruff]` in pyproject.toml says (pyflakes and pycodestyle), so the CI's one
test command holds it there."""

import shutil
import subprocess

import pytest

from .conftest import REPO


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is in the test extras: pip install '.[test]'")
def test_ruff_finds_nothing():
    done = subprocess.run(["ruff", "check", "--no-cache", "--output-format", "concise", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
