"""``.migrator-baseline.json``: the findings a team has accepted, by fingerprint.

The file is sorted and stable (one entry per line-ish JSON, no positions that change when code moves), so
it reviews well in a diff. ``check`` fails only on findings whose fingerprint is not in it; entries whose
finding disappeared are reported as fixed, and ``--write-baseline`` prunes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Sequence, Tuple

from ..model import Finding
from ..safe_write import REPORT_ERRORS, write_text

SCHEMA = "migrator.baseline/1"


class BaselineError(ValueError):
    pass


@dataclass(frozen=True)
class BaselineEntry:
    id: str
    path: str
    rule: str
    api: str


def load_baseline(path: Path, named: bool = False) -> Dict[str, BaselineEntry]:
    """The accepted findings in ``path``. A missing file is an empty baseline only when nobody named it (the
    default ``.migrator-baseline.json``); a baseline named by ``--baseline`` or ``[tool.migrator] baseline``
    that is not there is an error, never a silent "nothing accepted" (a typo would fail every old finding, a
    moved file would hide that it moved)."""
    if not path.exists() and named:
        raise BaselineError(f"{path}: no such baseline file (named by --baseline or [tool.migrator] baseline); "
                            "`migrator check --write-baseline` creates it")
    if not path.is_file():
        if path.exists():
            raise BaselineError(f"{path}: not a file, so not a migrator baseline")
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, OSError) as exc:
        raise BaselineError(f"{path}: not a migrator baseline: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise BaselineError(f"{path}: not a migrator baseline (schema {SCHEMA} expected)")
    entries = data.get("findings", [])
    fields = ("id", "path", "rule", "api")
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and all(isinstance(e.get(k), str) for k in fields) for e in entries):
        raise BaselineError(f"{path}: not a migrator baseline: `findings` must be a list of objects with string "
                            f"{', '.join(fields)}")
    return {e["id"]: BaselineEntry(e["id"], e["path"], e["rule"], e["api"]) for e in entries}


def write_baseline(path: Path, findings: Sequence[Finding]) -> int:
    entries = sorted({(f.path, f.rule, f.api, f.id) for f in findings})
    data = {"schema": SCHEMA,
            "findings": [{"path": p, "rule": r, "api": a, "id": i} for p, r, a, i in entries]}
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # the configuration's baseline is confined (gate/config)
        write_text(path, text, errors=REPORT_ERRORS)  # atomic, never through a link at ``path``
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write the baseline: {exc.strerror or exc} (the previous one is "
                            "kept)") from exc
    return len(entries)


def split_new(findings: Sequence[Finding], baseline: Mapping[str, BaselineEntry],
              checked_paths=None) -> Tuple[List[Finding], List[BaselineEntry]]:
    """(findings not in the baseline, baseline entries no longer found among the checked paths)."""
    current = {f.id for f in findings}
    new = [f for f in findings if f.id not in baseline]
    fixed = [e for i, e in sorted(baseline.items(), key=lambda kv: (kv[1].path, kv[0]))
             if i not in current and (checked_paths is None or e.path in checked_paths)]
    return new, fixed
