"""A copy of another project kept inside the repository: Depth-Anything's ``torchhub/facebookresearch_dinov2_main``
(DINOv2 whole, with its own training, evaluation and ``setup.py``, loaded only for its ViT backbone), ControlNet's
``annotator/uniformer`` (mmcv and mmseg for one segmentation demo). Such a folder carries the licence of the project
it was copied from: a licence file below the root marks it. Its own entry points are that project's runs, not this
one's: they do not make what they reach training (``training_entries.entry_reach``); what this project's own
training reaches inside the copy stays training."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import FrozenSet, Iterable

#: the names a licence file goes by
LICENCE_FILES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENSE.rst", "LICENCE", "COPYING")


def vendored_folders(base: Path, rels: Iterable[str]) -> FrozenSet[str]:
    """The folders (relative, POSIX) above the scanned files ``rels`` that hold a licence file of their own; the
    root's is the project's. Only looked at, never read."""
    folders = set()
    for rel in rels:
        folder = posixpath.dirname(rel)
        while folder and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    return frozenset(f for f in folders if any((base / f / name).is_file() for name in LICENCE_FILES))


def inside(path: str, folders: FrozenSet[str]) -> bool:
    """Whether ``path`` lies in one of ``folders``."""
    return any(path.startswith(folder + "/") for folder in folders)
