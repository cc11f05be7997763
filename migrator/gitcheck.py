"""Asking git whether a tree has uncommitted changes, with git treated as a program the repository configures.

A repository under scan is untrusted, and so is its ``.git``: ``git status`` runs the command in
``core.fsmonitor``, the clean filter of every driver ``.gitattributes`` names, the ``post-index-change`` hook,
and in a partial clone it fetches a missing blob from the promisor remote, which runs
``remote.<name>.uploadpack`` (or an ``ext::`` URL, or ``core.gitProxy``). ``-c`` overrides alone cannot
enumerate what a ``.git/config`` can make git execute (``protocol.file.allow=always`` there beats
``-c protocol.allow=never``), so every call here runs git with:

- an environment of its own (``git_environment``): no ``GIT_*`` variable of the caller's, no system or global
  configuration, lazy fetching off (``GIT_NO_LAZY_FETCH``, and ``--no-lazy-fetch`` where git knows it), no
  transport at all (``GIT_ALLOW_PROTOCOL`` set to an empty list, which outranks every ``protocol.*`` setting),
  no proxy, ssh or askpass command, no terminal prompt, no optional index writes;
- overrides on the command line (``-c`` outranks every config file): the fsmonitor off, hooks in an empty
  temporary folder, submodules not entered, every configured filter driver blanked, every remote's
  ``uploadpack`` / ``receivepack`` back to git's own;
- ``safe.directory`` as the user's own system and global configuration say (read once, from outside any
  repository) and never widened: a repository git finds dubious is an error.

Whether there is a repository at all is decided from the folders, not from git's exit code: when a ``.git``
sits at or above the folder, git must answer, and any failure (git missing, a ``.git`` file pointing nowhere,
dubious ownership, a timeout) is ``GitUnavailable``, which ``fix`` treats as "cannot tell" (``--force`` goes
on). Only when there is no ``.git`` anywhere above is the answer "no repository" (``None``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

#: Overrides for what a status could run, whatever the repository's configuration says (the hooks folder is
#: added per call: an empty temporary folder).
_SAFE = ("-c", "core.fsmonitor=false", "-c", "submodule.recurse=false", "-c", "core.untrackedCache=false",
         "-c", "diff.external=", "-c", "core.sshCommand=false", "-c", "protocol.allow=never",
         "-c", "core.gitProxy=none", "-c", "core.askPass=", "-c", "credential.helper=", "-c", "core.pager=cat")
_FILTER_KEY = re.compile(r"^filter\.(?P<name>.+)\.(clean|smudge|process|required)$", re.DOTALL)
_REMOTE_KEY = re.compile(r"^remote\.(?P<name>.+)\.[a-z]+$", re.DOTALL)


class GitUnavailable(Exception):
    """git is not there, failed, timed out, or the repository's configuration cannot be neutralised."""


def git_environment() -> Dict[str, str]:
    """The environment every git call runs in: the caller's, without its ``GIT_*`` variables, and with
    everything git could fetch, prompt for or run on a repository's behalf switched off."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("GIT_") and key not in ("SSH_ASKPASS", "PAGER")}
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_ALLOW_PROTOCOL": "",  # an empty allow-list: no transport, whatever protocol.*.allow says
        "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "GIT_PROXY_COMMAND": "", "GIT_SSH_COMMAND": "false",
        "GIT_PAGER": "cat", "GIT_EDITOR": "false", "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1",
        "LC_ALL": "C",
    })
    return env


@lru_cache(maxsize=None)
def _git_program() -> Optional[str]:
    return shutil.which("git")


@lru_cache(maxsize=None)
def _leading_options() -> Tuple[str, ...]:
    """``--no-lazy-fetch`` where the installed git knows it (2.44+); older ones have the variable only."""
    git = _git_program()
    if git is None:
        return ()
    try:
        probe = subprocess.run([git, "--no-lazy-fetch", "version"], cwd=tempfile.gettempdir(), capture_output=True,
                               env=git_environment(), stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return ("--no-lazy-fetch",) if probe.returncode == 0 else ()


@lru_cache(maxsize=None)
def _trusted_folders() -> Tuple[str, ...]:
    """``-c safe.directory=...`` for each entry of the user's own system and global configuration, in order:
    the global configuration is not read by the calls on a repository, and the user's trust must still count.
    Read with the user's environment, from outside any repository, with ``--system`` / ``--global`` only."""
    git = _git_program()
    options: List[str] = []
    if git is None:
        return ()
    for scope in ("--system", "--global"):
        try:
            listed = subprocess.run([git, "config", scope, "--null", "--get-all", "safe.directory"],
                                    cwd=tempfile.gettempdir(), capture_output=True, stdin=subprocess.DEVNULL,
                                    timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        for value in listed.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]:
            options += ["-c", f"safe.directory={value}"]
    return tuple(options)


def _git(base: Path, args: Sequence[str], hooks: str, overrides: Sequence[str] = (),
         timeout: int = 60) -> subprocess.CompletedProcess:
    git = _git_program()
    if git is None:
        raise GitUnavailable("git is not installed, and the folder is in a git repository")
    command = [git, *_leading_options(), *_SAFE, "-c", f"core.hooksPath={hooks}", *_trusted_folders(),
               *overrides, *args]
    try:
        return subprocess.run(command, cwd=base, capture_output=True, env=git_environment(), timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitUnavailable(str(exc)) from exc


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def repository_marker(base: Path) -> Optional[Path]:
    """The ``.git`` (folder, file or link, even a dangling one) at or above ``base``, or ``None``."""
    folder = Path(os.path.abspath(base))
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate / ".git"
    return None


def config_overrides(base: Path, hooks: str) -> List[str]:
    """``-c`` blanking every filter driver configured (clean, smudge, process; required off) and putting each
    remote's upload/receive programs back to git's own. The keys come from ``git config --list``, which only
    reads configuration. A name git's ``-c`` cannot carry (one with ``=``) makes the check give up."""
    listed = _git(base, ["config", "--null", "--name-only", "--list"], hooks, timeout=30)
    if listed.returncode != 0:
        raise GitUnavailable(_text(listed.stderr).strip() or f"git config exited {listed.returncode}")
    filters: List[str] = []
    remotes: List[str] = []
    for key in _text(listed.stdout).split("\0"):
        key = key.strip()
        for pattern, names in ((_FILTER_KEY, filters), (_REMOTE_KEY, remotes)):
            match = pattern.match(key)
            if match is None:
                continue
            name = match.group("name")
            if "=" in name or "\n" in name:
                raise GitUnavailable(f"a configuration name {key!r} cannot be overridden on git's command line")
            names.append(name)
            break
    overrides: List[str] = []
    for name in dict.fromkeys(filters):
        for part, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")):
            overrides += ["-c", f"filter.{name}.{part}={value}"]
    for name in dict.fromkeys(remotes):
        overrides += ["-c", f"remote.{name}.uploadpack=git-upload-pack",
                      "-c", f"remote.{name}.receivepack=git-receive-pack", "-c", f"remote.{name}.proxy="]
    return overrides


def uncommitted(base: Path, root: Path) -> Optional[List[str]]:
    """Paths with uncommitted changes (untracked files included) under ``root`` per ``git status``, or
    ``None`` when there is no ``.git`` at or above ``base``. Raises ``GitUnavailable`` when there is one and git
    cannot be asked, safely and in time."""
    if repository_marker(base) is None:
        return None
    with tempfile.TemporaryDirectory(prefix="migrator-no-hooks-") as hooks:
        inside = _git(base, ["rev-parse", "--is-inside-work-tree"], hooks, timeout=30)
        if inside.returncode != 0 or _text(inside.stdout).strip() != "true":
            raise GitUnavailable(_text(inside.stderr).strip() or "not inside a git work tree")
        status = _git(base, ["status", "--porcelain", "-z", "--untracked-files=normal", "--ignored=no",
                             "--ignore-submodules=all", "--", str(root.resolve())],
                      hooks, overrides=config_overrides(base, hooks))
    if status.returncode != 0:
        raise GitUnavailable(_text(status.stderr).strip() or f"git status exited {status.returncode}")
    return _porcelain_paths(_text(status.stdout))


def _porcelain_paths(output: str) -> List[str]:
    """The paths of ``git status --porcelain -z``: ``XY path``, and for a rename or copy the old path after it."""
    paths: List[str] = []
    entries = output.split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC":
            index += 1  # the path it came from
    return paths
