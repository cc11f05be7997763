"""On-disk cache of per-file analysis, keyed by content hash + tool version + maps digest.

Lives in ``$XDG_CACHE_HOME/migrator`` (``~/.cache/migrator``). Entries are written to a temporary file and
renamed into place, so two runs sharing the cache never read a half-written entry; a corrupt or
unreadable entry is a miss. Every entry is authenticated: it starts with an HMAC of its key and payload under a
secret kept apart from the cache, in the user's configuration folder (``user_secret``), so an entry planted in
the cache (a restored CI cache, a shared folder) fails as a miss and is computed again: a check cannot be made
to pass by a forged "nothing found here". The cache is pruned, oldest first, when it grows past its size bound
(checked at most every ten minutes: the check walks every entry).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from stat import S_ISREG
from typing import Any, Iterator, Optional, Sequence, Tuple, Type

from .. import __version__
from ..maps.load import maps_dir
from ..model import FileResult, GraphSnapshot, Report, RuleResults, Usage

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
#: What loading a truncated, corrupt or crafted pickle can raise: each makes the entry a miss.
_UNPICKLING_ERRORS = (pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError, ImportError,
                      KeyError, IndexError, MemoryError, RecursionError)
#: The length of an entry's authentication tag (HMAC-SHA256), in front of its payload.
_TAG_BYTES = 32
#: Seconds between two size checks of the cache (``AnalysisCache.prune_if_due``).
PRUNE_EVERY = 600.0
_FORMAT = "4"  # 4: an authentication tag in front of each entry
#: The names ``put`` gives: ``<first two hex digits of the key>/<the other 62>.pkl``; pruning touches nothing else.
_FOLDER_NAME = re.compile(r"[0-9a-f]{2}")
_ENTRY_NAME = re.compile(r"[0-9a-f]{62}\.pkl")


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "migrator"


@lru_cache(maxsize=None)
def user_secret() -> bytes:
    """The key entries are authenticated with: 32 random bytes in ``$XDG_CONFIG_HOME/migrator/cache-key``
    (``~/.config/migrator``), created private on first use, never inside the cache folder. Where that file
    cannot be made or is not a private regular file of 32 bytes, a key for this process only: the cache then
    serves this run and what it starts, not the next one (slower, never wrong)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = os.path.join(base, "migrator", "cache-key")
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(os.urandom(_TAG_BYTES))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            found = os.fstat(handle.fileno())
            secret = handle.read(_TAG_BYTES + 1)
        if S_ISREG(found.st_mode) and found.st_mode & 0o077 == 0 and len(secret) == _TAG_BYTES \
                and found.st_uid == getattr(os, "getuid", lambda: found.st_uid)():
            return secret
    except OSError:
        pass
    return os.urandom(_TAG_BYTES)


def _tag(secret: bytes, key: str, payload: bytes) -> bytes:
    return hmac.new(secret, key.encode("ascii", "replace") + b"\0" + payload, hashlib.sha256).digest()


@lru_cache(maxsize=None)
def maps_digest() -> str:
    """A digest of every shipped map file: analysis reads some of them (Tensor method names)."""
    digest = hashlib.sha256()
    root = maps_dir()
    for path in sorted(root.rglob("*.json")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=None)
def code_digest() -> str:
    """A digest of migrator's own analysis code: a change to a reader or the resolver invalidates the cache
    even when the version number did not move (an editable install, a patched release)."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]  # migrator/, not only this engine/ folder
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_salt() -> str:
    return (f"{_FORMAT}:{__version__}:{maps_digest()}:{code_digest()}:"
            f"{sys.version_info[0]}.{sys.version_info[1]}")


@dataclass(frozen=True)
class AnalysisCache:
    directory: Path
    salt: str
    max_bytes: int = DEFAULT_MAX_BYTES
    #: what entries are authenticated with (``user_secret``); carried to pool workers with the cache
    secret: bytes = field(default_factory=lambda: user_secret(), repr=False)

    def key(self, rel: str, kind: str, data: bytes) -> str:
        digest = hashlib.sha256()
        for part in (self.salt, rel, kind):
            digest.update(part.encode("utf-8", "surrogateescape"))
            digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.pkl"

    def get(self, key: str) -> Optional[FileResult]:
        """One file's result stored by ``put``, or ``None``."""
        return self._load(key, FileResult)

    def get_report(self, key: str) -> Optional[Report]:
        """A whole report stored by ``put`` (``pipeline/memo.report_key``), or ``None``."""
        return self._load(key, Report)

    def get_rule_results(self, key: str) -> Optional[RuleResults]:
        """One file's rule results stored by ``put``, or ``None``."""
        return self._load(key, RuleResults)

    def get_paths(self, key: str) -> Optional[Tuple[str, ...]]:
        """A tuple of file paths stored by ``put`` (``analyze.resolve_mentioning``), or ``None``."""
        return self._load(key, tuple, str)

    def get_graph(self, key: str) -> Optional[GraphSnapshot]:
        """A call graph stored by ``put`` (``graph/saved.py``), or ``None``."""
        return self._load(key, GraphSnapshot)

    def _load(self, key: str, kind: Type[Any], items: Optional[type] = None) -> Any:
        """The entry, when it is a ``kind`` (of ``items``, for a tuple); a miss otherwise, and when it cannot be
        read or loaded."""
        try:
            fd = os.open(self._path(key), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as handle:
                found = os.fstat(handle.fileno())
                if not S_ISREG(found.st_mode) or found.st_size > self.max_bytes:
                    return None  # a folder, a device, or larger than the whole cache may be: not an entry
                data = handle.read()
            tag, payload = data[:_TAG_BYTES], data[_TAG_BYTES:]
            if not hmac.compare_digest(tag, _tag(self.secret, key, payload)):
                return None  # not written by this user's migrator: planted, or from another machine
            value: Any = _ResultUnpickler(io.BytesIO(payload)).load()
        except (OSError, *_UNPICKLING_ERRORS):
            return None
        if not isinstance(value, kind) or (items is not None and not all(isinstance(x, items) for x in value)):
            return None
        return value

    def put(self, key: str, result) -> None:
        path = self._path(key)
        try:
            if path.parent.is_symlink():  # an entry folder is never a link: nothing is written through one
                return
            if not path.parent.is_dir():
                self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: its entries are unpickled
                path.parent.mkdir(mode=0o700, exist_ok=True)
            payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
            handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(_tag(self.secret, key, payload))
                out.write(payload)
            os.replace(temp, path)
        except OSError:
            pass  # a read-only or full cache only costs speed

    def prune_if_due(self) -> int:
        """``prune``, unless it ran less than ``PRUNE_EVERY`` seconds ago (a marker file's age says when):
        every scan and ``check`` ends with it, and walking a big cache costs more than a ``check``'s own work."""
        marker = self.directory / "last-prune"
        try:
            if time.time() - marker.stat().st_mtime < PRUNE_EVERY:
                return 0
        except OSError:
            pass  # never pruned (or unreadable): prune now
        removed = self.prune()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # created or touched where it is: a link named last-prune is not followed (O_NOFOLLOW fails on it)
            os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
            os.utime(marker, follow_symlinks=False)
        except OSError:
            pass
        return removed

    def prune(self) -> int:
        """Delete the oldest entries while the cache is larger than its bound; returns entries removed.

        Only what ``put`` writes is looked at and deleted: a regular file named ``<62 hex digits>.pkl`` in a
        real folder named by two hex digits. Nothing is followed: a link in the cache folder (``ab ->
        ~/project``) or named like an entry is neither counted nor deleted, nor is anything else put there."""
        entries = []
        total = 0
        for folder in self._entry_folders():
            try:
                listing = list(os.scandir(folder))
            except OSError:
                continue
            for entry in listing:
                if not _ENTRY_NAME.fullmatch(entry.name):
                    continue
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not S_ISREG(stat.st_mode):
                    continue
                entries.append((stat.st_mtime, stat.st_size, entry.path))
                total += stat.st_size
        removed = 0
        if total <= self.max_bytes:
            return 0
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 0.8:
                break
            try:
                os.unlink(path)  # the link itself were it one (it is not: lstat said a regular file)
                total -= size
                removed += 1
            except OSError:
                pass
        return removed

    def _entry_folders(self) -> Iterator[str]:
        """The cache's two-hex-digit folders that are real folders, not links to one."""
        try:
            listing = list(os.scandir(self.directory))
        except OSError:
            return
        for entry in listing:
            try:
                if _FOLDER_NAME.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
                    yield entry.path
            except OSError:
                continue


class LazyUsages(Sequence):
    """One file's usages as a cache entry holds them: pickled apart, and unpickled on first use.

    A scan after an edit loads every other file's result from the cache, but only the files whose rules must
    run again need their usages (most are served from the rule cache too); the cross-file stages read the
    few kept in ``FileResult.shared_usages``. Until then this costs one bytes object, and once loaded, none
    (the bytes are dropped). It behaves as the tuple it stands for (length, items, ``+``, equality), and
    pickles as itself. A pool worker sends a new result in this form too (``analyze.analyze_new``): its usages
    are pickled once, for the cache, and loaded in the main process only if its rules must run there.
    """

    __slots__ = ("_blob", "_length", "_items")

    def __init__(self, blob: bytes, length: int) -> None:
        self._blob, self._length = blob, length
        self._items: Optional[Tuple[Usage, ...]] = None

    @classmethod
    def of(cls, usages: Sequence[Usage]) -> "LazyUsages":
        return cls(pickle.dumps(tuple(usages), protocol=pickle.HIGHEST_PROTOCOL), len(usages))

    def _loaded(self) -> Tuple[Usage, ...]:
        if self._items is None:
            try:
                items = _ResultUnpickler(io.BytesIO(self._blob)).load()
            except _UNPICKLING_ERRORS:
                items = None
            # an entry whose outer pickle loaded cannot hold a broken blob unless it was crafted: nothing of
            # it is trusted then
            self._items = items if isinstance(items, tuple) and all(isinstance(u, Usage) for u in items) else ()
            self._blob = b""  # loaded: the bytes would only double what the scan holds
        return self._items

    def __len__(self) -> int:  # known without loading; once loaded, what was loaded
        return self._length if self._items is None else len(self._items)

    def __getitem__(self, index):
        return self._loaded()[index]

    def __iter__(self) -> Iterator[Usage]:
        return iter(self._loaded())

    def __add__(self, other: Sequence[Usage]) -> Tuple[Usage, ...]:
        return self._loaded() + tuple(other)

    def __radd__(self, other: Sequence[Usage]) -> Tuple[Usage, ...]:
        return tuple(other) + self._loaded()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, LazyUsages)) and self._loaded() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._loaded())

    def __repr__(self) -> str:
        return f"LazyUsages({self._length} usages{'' if self._items is None else ', loaded'})"

    def __reduce__(self):
        if self._items is not None:  # loaded (its bytes dropped): pickled again from what it holds
            return LazyUsages, (pickle.dumps(self._items, protocol=pickle.HIGHEST_PROTOCOL), len(self._items))
        return LazyUsages, (self._blob, self._length)


class _ResultUnpickler(pickle.Unpickler):
    """Loads only migrator's own result types: a cache entry can name no other global, so a tampered or
    crafted file cannot call ``os.system`` (or anything else) while it loads; it fails as a cache miss.

    The approach the ``pickle`` documentation gives for untrusted data ("Restricting Globals"): every class
    or function a pickle refers to goes through ``find_class``. The allowed classes are frozen dataclasses
    and enums of ``migrator.model``, which unpickling builds with ``__new__`` and a ``__dict__`` update (or,
    for an enum, a lookup by value): no code of the file's choosing runs.
    """

    def find_class(self, module: str, name: str):
        if module == "migrator.model" and name in _ALLOWED:
            return _ALLOWED[name]
        if (module, name) == (__name__, "LazyUsages"):  # its constructor only keeps the bytes and a length
            return LazyUsages
        raise pickle.UnpicklingError(f"cache entry refers to {module}.{name}, which a result never holds")


def _allowed_classes() -> dict:
    import dataclasses
    import enum

    from .. import model

    return {name: value for name, value in vars(model).items()
            if isinstance(value, type) and value.__module__ == model.__name__
            and (dataclasses.is_dataclass(value) or issubclass(value, enum.Enum))}


_ALLOWED = _allowed_classes()


def open_cache(directory: Optional[Path] = None) -> AnalysisCache:
    return AnalysisCache(Path(directory) if directory else default_cache_dir(), cache_salt())
