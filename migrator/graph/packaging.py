"""Packaging metadata as data: the console scripts a project installs, from ``pyproject.toml``,
``setup.cfg`` and ``setup.py`` (read as text; ``setup.py`` is never run)."""

from __future__ import annotations

import configparser
import re
import sys
from pathlib import Path
from typing import List, Optional, Tuple

from ..discover import read_source

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


def _text(path: Path) -> Optional[str]:
    """A packaging file's text, read as a source file is (a regular file, under the size cap), or ``None``."""
    try:
        return read_source(str(path)).decode("utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def _from_pyproject(path: Path) -> List[str]:
    """The ``[project.scripts]`` targets; whatever else the file holds (``project = "x"``, a ``scripts`` list,
    arrays nested past the parser's depth) is untrusted input and gives none, never an error."""
    text = _text(path)
    if text is None or tomllib is None:
        return []
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return []
    project = data.get("project") if isinstance(data, dict) else None
    if not isinstance(project, dict):
        return []
    groups = [project.get(group) for group in ("scripts", "gui-scripts")]
    return [value.split("[")[0].strip() for group in groups if isinstance(group, dict)
            for value in group.values() if isinstance(value, str)]


def _from_setup_cfg(path: Path) -> List[str]:
    text = _text(path)
    if text is None:
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
        scripts = parser.get("options.entry_points", "console_scripts", fallback="")
    except (configparser.Error, ValueError, RecursionError):
        return []
    return [line.split("=", 1)[1].split("[")[0].strip() for line in scripts.splitlines() if "=" in line]


def _from_setup_py(path: Path) -> List[str]:
    text = _text(path)
    if text is None or "console_scripts" not in text:
        return []
    return [match.group(1) + (f":{match.group(2)}" if match.group(2) else "")
            for match in _CONSOLE_SCRIPT.finditer(text)]
