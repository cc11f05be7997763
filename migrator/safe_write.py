"""Writing an output file atomically, and never through a link someone put at its place.

Every file migrator writes (``scan -o`` and the default ``migrator-report.html``, ``graph -o``, ``fix --log``,
``check --write-baseline``, ``trace -o``, fleet pages) goes through here. The bytes go to a new temporary file
in the destination's own folder (``mkstemp``: created with ``O_EXCL``, so it is never a link) and are renamed
over the destination with ``os.replace`` only once they are all written and flushed. So:

- a failed write (a full disk, a renderer that raises, an interrupt) leaves the previous file as it was, and
  the temporary is removed;
- a symbolic link at the destination (a ``migrator-report.html`` a repository ships, pointing at
  ``~/.bashrc``) is *replaced* by the new file, not followed: nothing is written where the link points. That
  is the choice made here rather than refusing: the output lands where the user asked, and the link, which
  only a repository could have put there, is gone;
- a destination that is a folder is an error (``IsADirectoryError``), as with ``open``;
- a character device (``-o /dev/null``, ``-o /dev/stdout``, a terminal), itself or at the end of a link, or
  this process's own standard output or error (a pipe), is written into as it is: it is never replaced by a
  file (run as root, replacing ``/dev/null`` broke every program reading it); a FIFO, a socket or a block
  device is an error (writing into one may block, or reach a disk), named as such.

The new file gets the permission bits of the regular file it replaces, or the ones ``open`` would give it
(``0o666`` less the umask). Folders on the way are not created here: a caller that must create them checks
first that they stay where they belong (``gate/config.py`` confines the baseline to the repository).
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator, TextIO, Union, cast

PathLike = Union[str, "os.PathLike[str]"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    """The destination's permission bits when it is a regular file (not a link), else ``open``'s default."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return 0o666 & ~_umask()
    if stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(21, "is a folder", str(path))
    if stat.S_ISREG(found.st_mode):
        return stat.S_IMODE(found.st_mode)
    return 0o666 & ~_umask()


def _own_stream(found: os.stat_result) -> bool:
    """Whether ``found`` is this process's own standard output or error (``-o /dev/stdout`` into a pipe)."""
    for fd in (1, 2):
        try:
            mine = os.fstat(fd)
        except OSError:
            continue
        if (mine.st_dev, mine.st_ino) == (found.st_dev, found.st_ino):
            return True
    return False


def _device(path: Path) -> bool:
    """Whether ``path`` is (or links to) a character device; raises for a FIFO, a socket or a block device."""
    try:
        found = os.stat(path)  # through a link: what would receive the bytes
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return False
    if stat.S_ISCHR(found.st_mode) or _own_stream(found):
        return True
    if stat.S_ISFIFO(found.st_mode) or stat.S_ISSOCK(found.st_mode) or stat.S_ISBLK(found.st_mode):
        raise OSError(22, "not a regular file (a FIFO, socket or block device): not written", str(path))
    return False


@contextmanager
def atomic_binary(path: PathLike) -> Iterator[BinaryIO]:
    """A binary stream whose bytes replace ``path`` when the block ends without an exception (see the module)."""
    target = Path(path)
    if _device(target):  # /dev/null, /dev/stdout, a terminal: written into, never replaced
        with open(target, "wb") as device:
            yield cast(BinaryIO, device)
        return
    mode = _mode_for(target)
    folder = target.parent if str(target.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".migrator-tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            yield cast(BinaryIO, out)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


#: How a report writes a character its encoding cannot hold (a lone surrogate: a file name's byte that is not
#: UTF-8): as its backslash escape.
REPORT_ERRORS = "backslashreplace"


@contextmanager
def atomic_text(path: PathLike, encoding: str = "utf-8", errors: str = "strict") -> Iterator[TextIO]:
    """A text stream (``encoding``, newlines as written) whose text replaces ``path`` when the block ends
    without an exception. A report passes ``errors="backslashreplace"``: a file name that is not UTF-8 (its
    bytes kept as lone surrogates) is written as its escape, ``\\udcff``, which JSON reads back as it was."""
    import io

    with atomic_binary(path) as raw:
        stream = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline="")
        try:
            yield stream
            stream.flush()
        finally:
            stream.detach()


def write_text(path: PathLike, text: str, encoding: str = "utf-8", errors: str = "strict") -> None:
    """``text`` as the new content of ``path``, atomically and never through a link at ``path``."""
    with atomic_text(path, encoding, errors) as out:
        out.write(text)


def write_bytes(path: PathLike, data: bytes) -> None:
    with atomic_binary(path) as out:
        out.write(data)
