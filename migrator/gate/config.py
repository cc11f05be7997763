"""``[tool.migrator]`` in pyproject.toml: found by walking up from the checked files, checked strictly."""

from __future__ import annotations

import difflib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Tuple

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
    root: Path  # the project's folder: paths, exclude patterns and the baseline are written from here
    path: Optional[Path] = None  # the file the settings were read from (None: the defaults)
    targets: Tuple[str, ...] = ()
    fail_on: Tuple[Status, ...] = DEFAULT_FAIL_ON
    exclude: Tuple[str, ...] = ()
    baseline: str = DEFAULT_BASELINE
    cards: Tuple[Tuple[str, Mapping[str, Any]], ...] = ()  # [tool.migrator.cards.<id>]: added or overridden cards
    select: Tuple[str, ...] = ()  # rules or categories reported (empty: all); ``selection.Selection``
    ignore: Tuple[str, ...] = ()
    #: the baseline was named (``[tool.migrator] baseline``, ``--baseline``): a missing file is then an error,
    #: not an empty baseline
    baseline_named: bool = False

    @property
    def baseline_path(self) -> Path:
        return self.root / self.baseline


def find_pyproject(start: Path) -> Optional[Path]:
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate / "pyproject.toml"
    return None


def project_root(start: Path) -> Path:
    """The folder of the project ``start`` (a file or folder) is in: the nearest one above it holding
    pyproject.toml, else the top of its git repository (``.git``), else the current folder when ``start`` is
    inside it, else ``start``'s own folder."""
    start = Path(start).resolve()
    folder = start if start.is_dir() else start.parent
    pyproject = find_pyproject(start)
    if pyproject is not None:
        return pyproject.parent
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    here = Path.cwd().resolve()
    return here if folder == here or here in folder.parents else folder


def load_config(starts: Iterable[Path], config_file: Optional[Path] = None, isolated: bool = False) -> Config:
    """The settings governing ``starts`` (files or folders): ``[tool.migrator]`` of the nearest pyproject.toml
    above the first one, or of ``config_file`` (``--config``); none with ``isolated``. Every problem is a
    ``ConfigError`` naming the file and the key: one policy for every command (exit 2)."""
    starts = [Path(s).resolve() for s in starts] or [Path.cwd()]
    root = project_root(starts[0])
    source = None if isolated else (Path(config_file).resolve() if config_file is not None
                                    else find_pyproject(starts[0]))
    if source is None:
        return Config(root=root)
    section = _section(source)
    unknown = sorted(set(section) - _KEYS)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(_KEYS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(f"{source}: unknown key {unknown[0]!r} in [tool.migrator] ({hint}known: "
                          f"{', '.join(sorted(_KEYS))})")
    return Config(
        root=root,
        path=source,
        targets=_target_names(section, source),
        fail_on=parse_statuses(_strings(section, "fail-on", source), f"{source}: fail-on") or DEFAULT_FAIL_ON,
        exclude=_patterns(section, "exclude", source),
        baseline=_confined(section.get("baseline", DEFAULT_BASELINE), "baseline", source, root),
        cards=_cards(section, source),
        select=_selectors(section, "select", source),
        ignore=_selectors(section, "ignore", source),
        baseline_named="baseline" in section,
    )


def _section(source: Path) -> Mapping[str, Any]:
    """``[tool.migrator]`` of ``source``; a TOML file not named pyproject.toml may also hold the keys at its
    top level (a shared ``migrator.toml`` given with ``--config``)."""
    try:
        if source.stat().st_size > MAX_CONFIG_BYTES:  # a repository's file: read only what a config can be
            raise ConfigError(f"{source}: larger than {MAX_CONFIG_BYTES // 1024} KiB, not read as a configuration")
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{source}: cannot be read: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc
    except RecursionError:  # arrays or tables nested past the parser's depth: no configuration is that deep
        raise ConfigError(f"{source}: nested too deeply to be read as a configuration") from None
    tool = data.get("tool", {})
    if isinstance(tool, dict) and "migrator" in tool:
        section = tool["migrator"]
    elif source.name != "pyproject.toml":
        section = {k: v for k, v in data.items() if k != "tool"}
    else:
        section = {}
    if not isinstance(section, dict):
        raise ConfigError(f"{source}: [tool.migrator] must be a table")
    return section


def _target_names(section: Mapping[str, Any], source: Path) -> Tuple[str, ...]:
    """``targets``, each checked against the maps (an alias is kept as written; ``resolve_targets`` reads it)."""
    from ..maps.load import TargetSpecError, resolve_targets

    values = _strings(section, "targets", source)
    try:
        resolve_targets(values or None)
    except TargetSpecError as exc:
        raise ConfigError(f"{source}: [tool.migrator] targets: {exc}") from exc
    return values


def settings_text(config: Config, targets: Sequence[str] = ()) -> str:
    """``--show-settings``: the settings a command runs with, as the ``[tool.migrator]`` table that gives them
    (``targets``: the resolved target labels, after the command line's)."""
    lines = [f"# project root: {config.root}",
             f"# read from: {config.path or 'nothing (the defaults)'}",
             "[tool.migrator]",
             f"targets = {_toml_list(targets or config.targets)}",
             f"fail-on = {_toml_list(s.value for s in config.fail_on)}",
             f"exclude = {_toml_list(config.exclude)}",
             f"baseline = {json.dumps(config.baseline)}"
             + ("" if config.baseline_named else "  # the default; a missing file is an empty baseline"),
             f"select = {_toml_list(config.select)}",
             f"ignore = {_toml_list(config.ignore)}"]
    for card_id, row in config.cards:
        lines += ["", f"[tool.migrator.cards.{json.dumps(card_id)}]"]
        lines += [f"{json.dumps(key)} = {json.dumps(value, default=str)}" for key, value in row.items()]
    return "\n".join(lines) + "\n"


def _toml_list(values: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def _confined(value: Any, key: str, pyproject: Path, root: Path) -> str:
    """A path ``[tool.migrator]`` names (``baseline``), relative to the project root and, once
    resolved (links followed), still inside it: the repository is untrusted, and ``check --write-baseline``
    would otherwise create the file and its folders wherever it says (``../../x``, ``/etc/x``)."""
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} must be a file name inside {root}")
    folder = root.resolve()
    named = Path(value)
    try:
        where = (folder / named).resolve()
    except (OSError, RuntimeError) as exc:  # a link loop, a name too long
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} = {value!r} cannot be resolved: {exc}") from exc
    try:
        where.relative_to(folder)
    except ValueError:
        raise ConfigError(f"{pyproject}: [tool.migrator] {key} = {value!r} is outside the repository "
                          f"({where}): name a file inside {folder}") from None
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
        raise ConfigError(str(exc)) from exc
    return values


def parse_statuses(values: Iterable[str], where: str) -> Tuple[Status, ...]:
    statuses = []
    for value in values:
        try:
            statuses.append(Status(value))
        except ValueError:
            known = ", ".join(s.value for s in Status)
            raise ConfigError(f"{where}: unknown status {value!r} (known: {known})") from None
    return tuple(statuses)


def _cards(section: Mapping[str, Any], pyproject: Path) -> Tuple[Tuple[str, Mapping[str, Any]], ...]:
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
