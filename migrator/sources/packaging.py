"""Packaging metadata as data: the console scripts a project installs, from ``pyproject.toml``,
``setup.cfg`` and ``setup.py`` (read as text; ``setup.py`` is never run)."""

from __future__ import annotations

import configparser
import re
import sys
from pathlib import Path
from typing import List, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = None

_CONSOLE_SCRIPT = re.compile(r"""["']\s*[\w.-]+\s*=\s*([\w.]+)(?::([\w.]+))?\s*["']""")


#: The files console scripts are read from, in the project's base folder.
PACKAGING_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


def console_scripts(base: Path) -> Tuple[str, ...]:
    """``module:function`` of every console script declared in the project at ``base`` (``PACKAGING_FILES``)."""
    pyproject, setup_cfg, setup_py = (base / name for name in PACKAGING_FILES)
    return tuple(dict.fromkeys([*_from_pyproject(pyproject), *_from_setup_cfg(setup_cfg), *_from_setup_py(setup_py)]))


def _from_pyproject(path: Path) -> List[str]:
    if not path.is_file() or tomllib is None:
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (tomllib.TOMLDecodeError, OSError):
        return []
    project = data.get("project", {}) if isinstance(data, dict) else {}
    return [value.split("[")[0].strip() for group in ("scripts", "gui-scripts")
            for value in (project.get(group) or {}).values() if isinstance(value, str)]


def _from_setup_cfg(path: Path) -> List[str]:
    if not path.is_file():
        return []
    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
        text = parser.get("options.entry_points", "console_scripts", fallback="")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return []
    return [line.split("=", 1)[1].split("[")[0].strip() for line in text.splitlines() if "=" in line]


def _from_setup_py(path: Path) -> List[str]:
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if "console_scripts" not in text:
        return []
    return [match.group(1) + (f":{match.group(2)}" if match.group(2) else "")
            for match in _CONSOLE_SCRIPT.finditer(text)]
