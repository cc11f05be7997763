"""Asking git whether a tree has uncommitted changes without running anything the repository configures.

A repository under scan is untrusted, and so is its ``.git``: ``git status`` runs the command in
``core.fsmonitor`` and the clean filter of every driver ``.gitattributes`` names (``filter.<name>.clean``
/ ``.process``), so a cloned repository could make ``migrator fix`` run its code. Every git call here
overrides those on the command line (``-c`` outranks every config file): the fsmonitor is off, hooks point
nowhere, submodules are not entered, and each configured filter driver is blanked. The driver names come
from ``git config --get-regexp``, which only reads configuration. A name git's ``-c`` cannot carry (one
with ``=``) makes the check give up: the caller treats that as "cannot tell" and asks for ``--force``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional, Sequence

#: Overrides for what a status could run, whatever the repository's configuration says.
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "submodule.recurse=false",
         "-c", "core.untrackedCache=false", "-c", "diff.external=", "-c", "core.sshCommand=")
_FILTER_KEY = re.compile(r"^filter\.(?P<name>.+)\.(clean|smudge|process)$")


class GitUnavailable(Exception):
    """git is not there, timed out, or the repository's configuration cannot be neutralised."""


def _git(base: Path, args: Sequence[str], overrides: Sequence[str] = (),
         timeout: int = 60) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *_SAFE, *overrides, *args], cwd=base, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitUnavailable(str(exc)) from exc


def filter_overrides(base: Path) -> List[str]:
    """``-c filter.<name>.clean=`` (and smudge, process, required) for every filter driver configured."""
    listed = _git(base, ["config", "--null", "--name-only", "--get-regexp", r"^filter\..*"], timeout=30)
    names = []
    for key in listed.stdout.split("\0"):
        match = _FILTER_KEY.match(key.strip())
        if match is None:
            continue
        name = match.group("name")
        if "=" in name or "\n" in name:
            raise GitUnavailable(f"a filter driver named {name!r} cannot be switched off on git's command line")
        names.append(name)
    overrides: List[str] = []
    for name in dict.fromkeys(names):
        for part, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")):
            overrides += ["-c", f"filter.{name}.{part}={value}"]
    return overrides


def uncommitted(base: Path, root: Path) -> Optional[List[str]]:
    """Paths with uncommitted changes under ``root`` (``git status --porcelain``), or ``None`` when ``base`` is
    not in a git work tree (or there is no git to ask). Raises ``GitUnavailable`` when git cannot be asked
    safely or in time."""
    if shutil.which("git") is None:
        return None
    inside = _git(base, ["rev-parse", "--is-inside-work-tree"], timeout=30)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return None
    status = _git(base, ["status", "--porcelain", "--ignore-submodules=all", "--", str(root.resolve())],
                  overrides=filter_overrides(base))
    if status.returncode != 0:
        raise GitUnavailable(status.stderr.strip() or f"git status exited {status.returncode}")
    return [line[3:] for line in status.stdout.splitlines() if line.strip()]
