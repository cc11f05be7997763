"""Fuzzed input never escapes as an exception: generated Python modules (hypothesmith, from CPython's grammar)
and damaged copies of real source (bytes flipped, cut, spliced) each end as a file result, ``ok`` or ``error``
with a reason. Deterministic (derandomised) so that CI sees the same cases every run; about 20 s."""
import random

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from migrator.analyze import analyze_file  # noqa: E402
from migrator.discover import discover  # noqa: E402
from migrator.model import FileResult, FileStatus  # noqa: E402

from .conftest import REPO  # noqa: E402

_SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                     suppress_health_check=list(HealthCheck))


def _analysed(tmp_path, name: str, data: bytes) -> FileResult:
    path = tmp_path / name
    path.write_bytes(data)
    (source,) = discover(path).files
    return analyze_file(source, look_up=False)


@_SETTINGS
@given(source=hypothesmith.from_grammar(auto_target=False))
def test_generated_modules_end_as_a_file_result(tmp_path_factory, source):
    result = _analysed(tmp_path_factory.mktemp("gen"), "generated.py", ("import torch\n" + source).encode("utf-8",
                                                                                                      "surrogatepass"))
    assert result.status in (FileStatus.OK, FileStatus.ERROR)
    assert result.status == FileStatus.OK or result.reason


def _damaged(data: bytes, rng: random.Random) -> bytes:
    how = rng.choice(("flip", "cut", "splice", "insert"))
    at = rng.randrange(len(data))
    if how == "flip":
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    if how == "cut":
        return data[:at]
    if how == "splice":
        other = rng.randrange(len(data))
        return data[:min(at, other)] + data[max(at, other):]
    return data[:at] + rng.choice((b"(", b"[", b"'", b'"""', b"\\\\", b"\\x00", b"\\t", b"lambda", b":")) + data[at:]


REAL = sorted(p for p in (REPO / "migrator").rglob("*.py") if p.stat().st_size > 2000)[:40] + \
    sorted((REPO / "examples").rglob("*.py"))


@pytest.mark.parametrize("seed", range(8))
def test_damaged_real_files_end_as_a_file_result(tmp_path, seed):
    rng = random.Random(seed)
    for path in REAL:
        data = path.read_bytes()
        for _ in range(3):
            data = _damaged(data, rng) or b"x"
        suffix = rng.choice((".py", ".ipynb"))
        result = _analysed(tmp_path, f"damaged_{path.stem}{suffix}", data)
        assert result.status in (FileStatus.OK, FileStatus.ERROR)
        assert result.status == FileStatus.OK or result.reason, path
        assert "Python 2" not in (result.reason or ""), (path, result.reason)  # damaged Python 3 is not Python 2
