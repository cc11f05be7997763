import importlib.util
import os
from pathlib import Path
from typing import Dict, List

import pytest

from migrator.maps.load import resolve_targets
from migrator.model import Finding, Report
from migrator.pipeline import ScanRequest, scan

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO / "operator_maps" / "upstream"  # the vendors' raw files, verbatim (PROVENANCE.md)


@pytest.fixture(autouse=True)
def no_terminal_width(monkeypatch):
    """Text as a pipe gets it (unwrapped), whatever ``$COLUMNS`` the runner sets (pytest-xdist's workers set
    one): a test that wants wrapping sets its own."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session", autouse=True)
def temporary_cache(tmp_path_factory):
    """The analysis cache of every test (and of the commands and subprocesses they start) in a temporary
    folder, and the key its entries are authenticated with in another: the suite never reads or writes the
    user's own ``$XDG_CACHE_HOME/migrator`` (``~/.cache/migrator``) or ``$XDG_CONFIG_HOME/migrator``."""
    from migrator.engine.cache import user_secret

    names = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME")
    before = {name: os.environ.get(name) for name in names}
    folders = {name: tmp_path_factory.mktemp(name.lower()) for name in names}
    os.environ.update({name: str(folder) for name, folder in folders.items()})
    user_secret.cache_clear()
    yield folders["XDG_CACHE_HOME"]
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    user_secret.cache_clear()


def load_module(path: Path, name: str):
    """The Python file at ``path`` imported as a module named ``name`` (a fixed file run in this process)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_tree(root: Path, files: Dict[str, object]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def scan_tree(tmp_path):
    def run(files: Dict[str, object], targets=None) -> Report:
        write_tree(tmp_path, files)
        return scan(ScanRequest(tmp_path, resolve_targets(targets), jobs=1))
    return run


@pytest.fixture
def scan_code(scan_tree):
    """Every judged usage of one Python file called ``mod.py``: its findings and what runs as written."""
    def run(code: str, targets=None) -> List[Finding]:
        return list(scan_tree({"mod.py": code}, targets).judged)
    return run


def by_rule(findings, rule: str) -> List[Finding]:
    return [f for f in findings if f.rule == rule]


@pytest.fixture(scope="module")
def example_report() -> Report:
    """The bundled example's training project, scanned for every target (once per test module)."""
    return scan(ScanRequest(REPO / "examples" / "llm_trainer", resolve_targets(None), jobs=1))
