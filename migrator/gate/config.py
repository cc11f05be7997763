"""``[tool.migrator]`` in pyproject.toml: found by walking up from the checked files, checked strictly."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Tuple

from ..model import Status

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

DEFAULT_FAIL_ON = (Status.REWRITE, Status.PORT, Status.UNSUPPORTED)
DEFAULT_BASELINE = ".migrator-baseline.json"
_KEYS = {"targets", "fail-on", "exclude", "baseline", "cards", "select", "ignore"}


#: pyproject.toml files larger than this are not read (the scanned repository's own file is untrusted input)
MAX_CONFIG_BYTES = 1 << 20


class ConfigError(ValueError):
    """The configuration names an unknown key or holds a value of the wrong kind."""


@dataclass(frozen=True)
class Config:
    root: Path  # the folder holding pyproject.toml (or the start folder when there is none)
    path: Optional[Path] = None
    targets: Tuple[str, ...] = ()
    fail_on: Tuple[Status, ...] = DEFAULT_FAIL_ON
    exclude: Tuple[str, ...] = ()
    baseline: str = DEFAULT_BASELINE
    cards: Tuple[Tuple[str, Mapping[str, Any]], ...] = ()  # [tool.migrator.cards.<id>]: added or overridden cards
    select: Tuple[str, ...] = ()  # rules or categories reported (empty: all); ``selection.Selection``
    ignore: Tuple[str, ...] = ()

    @property
    def baseline_path(self) -> Path:
        return self.root / self.baseline


def find_pyproject(start: Path) -> Optional[Path]:
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate / "pyproject.toml"
    return None


def load_config(starts: Iterable[Path]) -> Config:
    """The config governing ``starts`` (files or folders): the nearest pyproject.toml above the first one."""
    starts = [Path(s).resolve() for s in starts] or [Path.cwd()]
    pyproject = find_pyproject(starts[0])
    if pyproject is None:
        return Config(root=starts[0] if starts[0].is_dir() else starts[0].parent)
    if pyproject.stat().st_size > MAX_CONFIG_BYTES:  # a repository's file: read only what a config can be
        raise ConfigError(f"{pyproject}: larger than {MAX_CONFIG_BYTES // 1024} KiB, not read as a configuration")
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}")
    section = data.get("tool", {}).get("migrator", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{pyproject}: [tool.migrator] must be a table")
    unknown = sorted(set(section) - _KEYS)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown key {unknown[0]!r} in [tool.migrator] "
                          f"(known: {', '.join(sorted(_KEYS))})")
    return Config(
        root=pyproject.parent,
        path=pyproject,
        targets=_strings(section, "targets", pyproject),
        fail_on=parse_statuses(_strings(section, "fail-on", pyproject), f"{pyproject}: fail-on") or DEFAULT_FAIL_ON,
        exclude=_patterns(section, "exclude", pyproject),
        baseline=_confined(section.get("baseline", DEFAULT_BASELINE), "baseline", pyproject),
        cards=_cards(section, pyproject),
        select=_selectors(section, "select", pyproject),
        ignore=_selectors(section, "ignore", pyproject),
    )


def _confined(value: Any, key: str, pyproject: Path) -> str:
    """A path ``[tool.migrator]`` names (``baseline``), relative to the configuration's folder and, once
    resolved (links followed), still inside it: the repository is untrusted, and ``check --write-baseline``
    would otherwise create the file and its folders wherever it says (``../../x``, ``/etc/x``)."""
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} must be a file name inside {pyproject.parent}")
    folder = pyproject.parent.resolve()
    named = Path(value)
    try:
        where = (folder / named).resolve()
    except (OSError, RuntimeError) as exc:  # a link loop, a name too long
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} = {value!r} cannot be resolved: {exc}")
    try:
        where.relative_to(folder)
    except ValueError:
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} = {value!r} is outside the repository "
                          f"({where}): name a file inside {folder}")
    if named.is_absolute() or where == folder:
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} = {value!r} must be a file name relative to "
                          f"{folder}")
    return value


def _patterns(section: Mapping[str, Any], key: str, pyproject: Path) -> Tuple[str, ...]:
    """``exclude``: patterns matched against paths from the configuration's folder; one that is absolute or
    climbs out of the folder (``..``) could only ever name something outside the repository, and is refused."""
    values = _strings(section, key, pyproject)
    for value in values:
        if value.startswith(("/", "\\")) or ".." in value.replace("\\", "/").split("/") or "\0" in value:
            raise ConfigError(f"{pyproject}: [tool.migrator] {key} pattern {value!r} leaves the repository: "
                              "patterns are relative to the folder of pyproject.toml")
    return values


def _selectors(section: Mapping[str, Any], key: str, pyproject: Path) -> Tuple[str, ...]:
    """``select`` / ``ignore``: rule names or categories, each checked (``selection.Selection.parse``)."""
    from ..selection import Selection, SelectionError

    values = _strings(section, key, pyproject)
    try:
        Selection.parse(values if key == "select" else (), values if key == "ignore" else (),
                        (f"{pyproject}: select", f"{pyproject}: ignore"))
    except SelectionError as exc:
        raise ConfigError(str(exc))
    return values


def parse_statuses(values: Iterable[str], where: str) -> Tuple[Status, ...]:
    statuses = []
    for value in values:
        try:
            statuses.append(Status(value))
        except ValueError:
            raise ConfigError(f"{where}: unknown status {value!r} (known: {', '.join(s.value for s in Status)})")
    return tuple(statuses)


def _cards(section: dict, pyproject: Path) -> Tuple[Tuple[str, Mapping[str, Any]], ...]:
    cards = section.get("cards", {})
    if not isinstance(cards, dict) or not all(isinstance(v, dict) for v in cards.values()):
        raise ConfigError(f"{pyproject}: [tool.migrator.cards] must hold one table per card "
                          "([tool.migrator.cards.my-card] memory_gb = 64)")
    return tuple((card_id, dict(row)) for card_id, row in cards.items())


def _strings(section: Mapping[str, Any], key: str, pyproject: Path) -> Tuple[str, ...]:
    value = section.get(key, [])
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} must be a string or a list of strings")
    return tuple(value)
