"""Find the files a scan reads: gitignore-aware, symlink-loop safe, with size caps.

Every file considered ends up either as a ``SourceFile`` to analyse or as a ``FileResult`` that says
why it was skipped; nothing is dropped silently except what ``.gitignore`` and the usual
non-source folders (virtualenvs, build output, VCS metadata) exclude.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from .model import FileKind, FileResult, FileStatus, SourceFile
from .sources.cmake import is_cmake_name
from .sources.config import MAX_CONFIG_BYTES, is_config_name

#: Larger files are skipped with a reason: generated code, vendored blobs, data dumps.
MAX_FILE_BYTES = 2 * 1024 * 1024

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
    ".eggs", "node_modules", "site-packages", ".ipynb_checkpoints", ".venv", "venv", "build", "dist",
})

_SUFFIX_KINDS = {
    ".py": FileKind.PYTHON,
    ".pyw": FileKind.PYTHON,
    ".ipynb": FileKind.NOTEBOOK,
    ".cu": FileKind.CUDA,
    ".cuh": FileKind.CUDA,
    ".cpp": FileKind.CPP,
    ".cc": FileKind.CPP,
    ".cxx": FileKind.CPP,
    ".h": FileKind.CPP,
    ".hpp": FileKind.CPP,
    ".sh": FileKind.SHELL,
    ".bash": FileKind.SHELL,
    ".zsh": FileKind.SHELL,
}
_REQUIREMENTS = re.compile(r"^(requirements|constraints)([-_.\w]*)\.(txt|in)$", re.IGNORECASE)
_DOCKERFILE = re.compile(r"^(Dockerfile|Containerfile)([-_.\w]*)$|\.(dockerfile)$", re.IGNORECASE)
_README = re.compile(r"^readme([-_.\w]*)\.(md|markdown)$", re.IGNORECASE)


def kind_of(name: str) -> Optional[FileKind]:
    suffix = os.path.splitext(name)[1].lower()
    if suffix in _SUFFIX_KINDS:
        return _SUFFIX_KINDS[suffix]
    if is_config_name(name):
        return FileKind.TRAINING_CONFIG
    if is_cmake_name(name):
        return FileKind.CMAKE
    if _REQUIREMENTS.match(name):
        return FileKind.REQUIREMENTS
    if _DOCKERFILE.search(name):
        return FileKind.DOCKERFILE
    if _README.match(name):
        return FileKind.MARKDOWN
    return None


@dataclass(frozen=True)
class Discovery:
    files: Tuple[SourceFile, ...]
    skipped: Tuple[FileResult, ...]


def base_dir(root: Path) -> Path:
    """The folder every ``SourceFile.rel`` of a scan of ``root`` is relative to (a file's own folder)."""
    return root if root.is_dir() else root.parent


def discover(root: Path) -> Discovery:
    """Walk ``root`` (a folder or one file) and classify what migrator can read."""
    root = Path(root)
    if root.is_file():
        kind = kind_of(root.name)
        if kind is None:
            return Discovery((), ())
        return classify(root, display_name(root.name), kind)
    files: List[SourceFile] = []
    skipped: List[FileResult] = []
    inside = os.path.realpath(root)
    for path, rel in _walk(root, skipped):
        kind = kind_of(path.name)
        if kind is None:
            continue
        found = classify(path, rel, kind, inside)
        files.extend(found.files)
        skipped.extend(found.skipped)
    skipped.extend(missing_submodules(root))
    files.sort(key=lambda f: f.rel)
    skipped.sort(key=lambda r: r.file.rel)
    return Discovery(tuple(files), tuple(skipped))


#: ``path = croco`` / ``url = https://...`` lines of a ``.gitmodules`` (git's config syntax, read as text)
_SUBMODULE_KEY = re.compile(r"^\s*(path|url)\s*=\s*(.+?)\s*$")
#: the most submodules read from one ``.gitmodules`` (a repository's file is untrusted input)
MAX_SUBMODULES = 200


def missing_submodules(root: Path) -> List[FileResult]:
    """A git submodule the ``.gitmodules`` at ``root`` lists whose folder is absent or empty (dust3r's ``croco``,
    cloned without ``--recursive``): its code is not scanned, and the report says so, with the command that
    fetches it. The file is read as text, never run through git; a path that leaves the folder is ignored."""
    listing = root / ".gitmodules"
    try:
        if not listing.is_file() or listing.is_symlink() or listing.stat().st_size > MAX_CONFIG_BYTES:
            return []
        text = listing.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found: List[FileResult] = []
    entries: List[dict] = []
    for line in text.splitlines():
        if line.strip().startswith("["):
            entries.append({})
        elif entries and (match := _SUBMODULE_KEY.match(line)):
            entries[-1][match.group(1)] = match.group(2)
    for entry in entries[:MAX_SUBMODULES]:
        rel = posixpath.normpath(entry.get("path", "").strip('"'))
        if not rel or rel.startswith(("/", "..")) or rel == ".":
            continue
        folder = root / rel
        try:
            present = folder.is_dir() and not folder.is_symlink() and any(folder.iterdir())
        except OSError:
            present = False
        if not present:
            url, name = display_name(entry.get("url", "").strip('"')[:200]), display_name(rel)
            found.append(FileResult(SourceFile(str(folder), name, FileKind.CONFIG, 0), FileStatus.SKIPPED,
                                    f"a git submodule ({url or 'no url'}) that is not checked out here: its code is "
                                    f"not scanned (`git submodule update --init {name}`)"))
    return found


def display_name(name: str) -> str:
    """A path as text every report format can carry: bytes that are not UTF-8 (a name ``os.fsdecode`` kept as
    surrogates) become ``\\xff`` escapes."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def classify(path: Path, rel: str, kind: FileKind, inside: Optional[str] = None) -> Discovery:
    """``inside``: the real path of the scanned folder; a link that leads out of it is not followed."""
    try:
        info = path.stat()
    except OSError as exc:
        record = SourceFile(str(path), rel, kind, 0)
        return Discovery((), (FileResult(record, FileStatus.ERROR, f"cannot read: {exc.strerror or exc}"),))
    size = info.st_size
    record = SourceFile(str(path), rel, kind, size)
    if not stat.S_ISREG(info.st_mode):
        what = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) \
            else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file"
        reason = f"{what}{' (through a symbolic link)' if path.is_symlink() else ''}: not read"
        return Discovery((), (FileResult(replace(record, size=0), FileStatus.SKIPPED, reason),))
    if inside is not None and path.is_symlink() and not _within(os.path.realpath(path), inside):
        return Discovery((), (FileResult(record, FileStatus.SKIPPED,
                                         "symbolic link to a file outside the scanned folder: not followed"),))
    if kind == FileKind.TRAINING_CONFIG and size > MAX_CONFIG_BYTES:  # data (a vocabulary, annotations)
        return Discovery((), ())
    if size > MAX_FILE_BYTES:
        reason = f"file too large ({size // 1024} KiB > {MAX_FILE_BYTES // 1024} KiB limit), not scanned"
        return Discovery((), (FileResult(record, FileStatus.SKIPPED, reason),))
    return Discovery((record,), ())


def read_source(path: str) -> bytes:
    """A source file's bytes, read as a regular file and no further than the size cap: a file swapped for a
    FIFO or a device after discovery raises ``OSError`` instead of blocking or filling memory."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise OSError(f"{path} grew past the {MAX_FILE_BYTES // 1024} KiB limit while being read")
    return data


def _within(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def _walk(root: Path, skipped: List[FileResult]) -> Iterator[Tuple[Path, str]]:
    """Yield (path, posix path relative to root), honouring .gitignore files at every level. A folder that
    cannot be listed, a link loop and a linked folder outside the root are reported in ``skipped``."""
    import pathspec  # here: `check` on named files never walks a folder, nor pays for the import

    inside = os.path.realpath(root)
    seen_dirs = set()
    stack: List[Tuple[Path, Tuple[Tuple[str, pathspec.PathSpec], ...]]] = [(root, ())]
    while stack:
        folder, specs = stack.pop()
        try:
            real = os.path.realpath(folder)
            if real in seen_dirs:
                rel = folder.relative_to(root).as_posix()
                skipped.append(FileResult(SourceFile(str(folder), rel, FileKind.PYTHON, 0), FileStatus.SKIPPED,
                                          "symbolic link loop or second link to a folder already scanned"))
                continue
            seen_dirs.add(real)
            if folder != root and not _within(real, inside):
                rel = display_name(folder.relative_to(root).as_posix())
                skipped.append(FileResult(SourceFile(str(folder), rel, FileKind.PYTHON, 0), FileStatus.SKIPPED,
                                          "symbolic link to a folder outside the scanned folder: not followed"))
                continue
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            rel = display_name(folder.relative_to(root).as_posix())
            skipped.append(FileResult(SourceFile(str(folder), rel, FileKind.PYTHON, 0), FileStatus.ERROR,
                                      f"cannot list this folder: {exc.strerror or exc}"))
            continue
        ignore = folder / ".gitignore"
        if _is(os.path.isfile, ignore):
            base = folder.relative_to(root).as_posix()
            spec, problem = _gitignore(ignore, display_name(f"{base}/.gitignore" if base != "." else ".gitignore"))
            if spec is not None:
                specs = specs + ((base if base != "." else "", spec),)
            if problem is not None:
                skipped.append(problem)
        subdirs = []
        for entry in entries:
            path = Path(entry.path)
            rel = display_name(path.relative_to(root).as_posix())
            try:
                is_dir = entry.is_dir()
            except OSError:  # a link loop: ``classify`` reports it with the reason
                is_dir = False
            kept = specs
            if _ignored(rel, is_dir, specs):
                if not (is_dir and _package_of_a_package(folder, path)):
                    continue
                # the .gitignore files whose lines matched the folder would match every file in it too; the
                # others still apply inside it
                kept = tuple(spec for spec in specs if not _ignored(rel, True, (spec,)))
                # Open-Sora's ``.gitignore`` line ``datasets`` (for data) matches ``opensora/datasets/``, a package of
                # its package: committed code, which git keeps tracking whatever the line says
                skipped.append(FileResult(SourceFile(str(path), rel, FileKind.CONFIG, 0), FileStatus.OK,
                                          "a .gitignore line matches this folder, but it is a Python package inside "
                                          "the project's package (committed code: git keeps tracking it): scanned"))
            if is_dir:
                if entry.name in SKIP_DIRS or _is_virtualenv(path):
                    continue
                subdirs.append((path, kept))
            else:  # a file, a link (broken or looping: reported by ``classify``), a FIFO, socket or device
                yield path, rel
        stack.extend(reversed(subdirs))


#: A ``.gitignore`` line longer than this, or with more ``**`` than this (each lets a match try every folder of a
#: path again), is left out; the ``*`` within a name are matched in linear time (``_LinearGitIgnorePattern``).
MAX_IGNORE_DOUBLE_STARS = 2
_IGNORE_LINE_CHARS = 1_000


def _gitignore(path: Path, rel: str):
    """A ``.gitignore`` as a spec, and a ``FileResult`` naming the lines left out (unreadable, invalid, or
    patterns that would take too long to match), or ``None`` when every line was used."""
    import pathspec

    record = SourceFile(str(path), rel, FileKind.CONFIG, 0)
    try:
        lines = read_source(str(path)).decode("utf-8", errors="replace").splitlines()
    except OSError as exc:
        return None, FileResult(record, FileStatus.ERROR, f"cannot read: {exc.strerror or exc}: nothing it lists is "
                                                          f"ignored")
    pattern_class = _linear_pattern_class()
    used, left_out = [], []
    for number, line in enumerate(lines, 1):
        if len(line) > _IGNORE_LINE_CHARS:
            left_out.append(f"line {number} (too long to match in time)")
            continue
        try:
            pattern = pattern_class(line)
        except Exception as exc:  # noqa: BLE001 - pathspec raises several types for a malformed pattern
            left_out.append(f"line {number} ({type(exc).__name__}: {str(exc)[:80]})")
            continue
        if pattern.regex is not None and pattern.regex.pattern.count(".+") > MAX_IGNORE_DOUBLE_STARS:
            left_out.append(f"line {number} (too many '**' to match in time)")
            continue
        used.append(pattern)
    problem = None
    if left_out:
        problem = FileResult(record, FileStatus.OK, f"{len(left_out)} line(s) not used: {'; '.join(left_out[:5])}"
                             + (" ..." if len(left_out) > 5 else ""))
    return pathspec.GitIgnoreSpec(used), problem


_LINEAR_PATTERN = None


def _linear_pattern_class():
    """pathspec's ``.gitignore`` pattern with each ``*`` inside a name that another follows matched atomically.

    pathspec turns ``*`` into ``[^/]*``, and a run of them (``*a*a*a*b``) backtracks polynomially: eight took
    minutes on one long file name. ``[^/]*`` followed by fixed-width text and another ``[^/]*`` becomes
    ``(?>[^/]*?text)``: the text's first place in the name, kept (the next ``*`` takes anything a later place would
    have left), which is how a glob matcher runs in linear time; the last ``*`` of a name is left as it is."""
    global _LINEAR_PATTERN
    if _LINEAR_PATTERN is None:
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

        class LinearGitIgnorePattern(GitIgnoreSpecPattern):
            @classmethod
            def pattern_to_regex(cls, pattern):
                regex, include = super().pattern_to_regex(pattern)
                return (_atomic_stars(regex) if isinstance(regex, str) else regex), include

        _LINEAR_PATTERN = LinearGitIgnorePattern
    return _LINEAR_PATTERN


_STAR = "[^/]*"
#: the pieces of pathspec's regular expressions: a name wildcard, a class, an escape, a group, one character
_REGEX_PIECE = re.compile(r"\[\^/\]\*|\[(?:\\.|[^\]\\])+\]|\\.|\((?:[^()]|\([^()]*\))*\)|.", re.DOTALL)


def _atomic_stars(regex: str) -> str:
    pieces = [match.group() for match in _REGEX_PIECE.finditer(regex)]
    out: List[str] = []
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if piece != _STAR:
            out.append(piece)
            index += 1
            continue
        while index + 1 < len(pieces) and pieces[index + 1] == _STAR:  # ``**`` inside a name: one ``*``
            index += 1
        fixed = index + 1
        while fixed < len(pieces) and _fixed_width(pieces[fixed]):
            fixed += 1
        if fixed > index + 1 and fixed < len(pieces) and pieces[fixed] == _STAR:
            out.append("(?>[^/]*?" + "".join(pieces[index + 1:fixed]) + ")")
        else:
            out.extend(pieces[index:fixed])
        index = fixed
    return "".join(out)


def _fixed_width(piece: str) -> bool:
    """One character of a name: a literal, an escape or a class (``/`` and groups end the name)."""
    if piece == _STAR or piece.startswith("(") or piece in ("/", "^", "$", "|", "?", "*", "+", "."):
        return False
    if piece.startswith("["):  # a class that cannot match "/" (a negated one must name it)
        body = piece[1:-1]
        return "/" in body[1:] if body.startswith("^") else "/" not in body
    return True


def _ignored(rel: str, is_dir: bool, specs) -> bool:
    for base, spec in specs:
        sub = rel[len(base) + 1:] if base else rel
        if spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def _package_of_a_package(folder: Path, path: Path) -> bool:
    """Whether ``path`` is a Python package (an ``__init__.py``) inside ``folder``, itself one: the project's own
    code, not data a ``.gitignore`` line is written for."""
    return _is(os.path.isfile, path / "__init__.py") and _is(os.path.isfile, folder / "__init__.py")


def _is_virtualenv(path: Path) -> bool:
    return _is(os.path.isfile, path / "pyvenv.cfg") or _is(os.path.isdir, path / "conda-meta")


def _is(test, path: Path) -> bool:
    """``test(path)`` (``os.path.isfile``...), ``False`` when the path cannot even be asked about (longer than
    the system's path limit: the folder's files then get their own error)."""
    try:
        return bool(test(path))
    except (OSError, ValueError):
        return False


def excluded(rel: str, patterns: Sequence[str]) -> bool:
    """Whether ``rel`` (POSIX, relative to the configuration's folder) matches one of ``[tool.migrator]
    exclude``'s patterns: a glob, or a folder and everything below it. For many paths, build ``Exclusions`` once."""
    return Exclusions(patterns).match(rel)


_GLOB_CHARS = re.compile(r"[*?\[]")


class Exclusions:
    """``[tool.migrator] exclude`` compiled once: a pattern without wildcards is a path (itself and everything
    below it), looked up in a set from each of a path's folders; the globs are grouped by the literal text they
    start with and each group is one regular expression, built and tried only for paths that start with that text.

    ``fnmatch`` on each pattern for each file recompiled every pattern once there were more than its cache holds:
    50,000 patterns took 4 s a file; translating every glob up front took 6 s for 100,000 patterns (what a 1 MiB
    ``pyproject.toml`` holds), so a group is translated only when a path starts with its text."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.paths: Set[str] = set()
        self.folders: Set[str] = set()
        groups: Dict[str, List[str]] = {}
        for pattern in patterns:
            folder = pattern.rstrip("/")
            wildcard = _GLOB_CHARS.search(pattern)
            if wildcard is None:
                self.paths.add(pattern)
                self.folders.add(folder)
                continue
            lead = pattern[:wildcard.start()].split("/", 1)[0]
            groups.setdefault(lead, []).append(pattern)
        self.groups = groups  # each group's patterns, translated when a path first needs the group
        self.compiled: Dict[str, "re.Pattern[str]"] = {}  # a group's expression, built when a path first needs it

    def match(self, rel: str) -> bool:
        if rel in self.paths:
            return True
        folder = rel.find("/")
        while folder >= 0:
            if rel[:folder] in self.folders:
                return True
            folder = rel.find("/", folder + 1)
        first = rel.split("/", 1)[0]
        return any(first[:length] in self.groups and self._group(first[:length]).match(rel) is not None
                   for length in range(len(first) + 1))

    def _group(self, lead: str) -> "re.Pattern[str]":
        if lead not in self.compiled:
            parts = []
            for pattern in self.groups[lead]:
                folder = pattern.rstrip("/")
                parts += [fnmatch.translate(pattern), fnmatch.translate(folder + "/*"), f"(?s:{re.escape(folder)}/)"]
            self.compiled[lead] = re.compile("|".join(parts))
        return self.compiled[lead]
