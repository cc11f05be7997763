"""The files migrator writes into a repository itself, which ``fix``'s clean-tree check does not count.

``scan --format html`` writes ``migrator-report.html`` into the current folder, ``scan -o report.json``,
``check --write-baseline`` and ``fix --log CHANGES.md`` wherever they are told: often inside the repository
that ``fix`` is then run on. ``fix`` never writes such a file, so an uncommitted one does not make its own
change harder to review or revert: it is left out of the uncommitted changes that make ``fix`` refuse.

A file is recognised by what it starts with, as migrator writes it (the page's generator tag, a JSON
document whose ``schema`` is one of migrator's, the SARIF driver named ``migrator``, the change log's title),
never by its name alone; a Python file or a notebook (what ``fix`` does write) never is one.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Sequence, Tuple

#: How much of a file is read to recognise it.
_HEAD = 4096
_SIGNATURES = (
    re.compile(r'<meta name="generator" content="migrator[ "]'),  # the report page, a fleet page
    re.compile(r'\A\s*\{\s*"schema"\s*:\s*"migrator\.[a-z]+/\d+"'),  # report, baseline, trace, explain
    re.compile(r'\A\s*\{\s*"\$schema"\s*:\s*"[^"]*sarif[^"]*".{0,200}?"driver"\s*:\s*\{\s*"name"\s*:\s*"migrator"',
               re.S),  # check / scan --format sarif
    re.compile(r"\A# migrator fix: changes for "),  # fix --log
)
#: An untracked folder (``git status`` names it alone) is looked into up to this many files.
_FOLDER_FILES = 64
#: What ``fix`` writes: never one of its own outputs, whatever it starts with.
_REWRITTEN = (".py", ".pyw", ".ipynb")


def own_output(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) that migrator wrote, by its first bytes."""
    if path.name.endswith(_REWRITTEN):
        return False
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            head = handle.read(_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return False
    return any(signature.search(head) for signature in _SIGNATURES)


def _own_folder(folder: Path) -> bool:
    """An untracked folder holding only migrator's outputs (``scan -o reports/page.html`` created it); links are
    not followed, and a folder of more than ``_FOLDER_FILES`` files is not looked through."""
    found = 0
    for place, _folders, files in os.walk(folder):
        for name in files:
            found += 1
            if found > _FOLDER_FILES or not own_output(Path(place) / name):
                return False
    return found > 0


def without_own_outputs(top: Path, dirty: Sequence[str]) -> Tuple[str, ...]:
    """``dirty`` (paths from the repository's top, as ``git status`` gives them; an untracked folder ends in
    ``/``) less migrator's own outputs."""
    return tuple(rel for rel in dirty
                 if not (_own_folder(top / rel) if rel.endswith("/") else own_output(top / rel)))
