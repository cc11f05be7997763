"""Where the shipped data lives: ``operator_maps/`` and ``reports/``, inside the wheel or in a source checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_dir(name: str) -> Path:
    """``name`` inside the wheel (``migrator/_data/<name>``), else the source checkout's top-level folder."""
    packaged = resources.files("migrator") / "_data" / name
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[1] / name
