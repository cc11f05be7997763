"""The index stage: the cross-file facts the rules read (``ProjectIndex``: constants, extensions, modules,
kernels), and the files that reach one of the repository's extensions by a name the per-file filter could not
know, resolved again."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..analyze import resolve_mentioning
from ..engine.cache import AnalysisCache
from ..inventory import build_index
from ..model import FileResult
from ..rules import ProjectIndex


def indexed(results: List[FileResult], cache: Optional[AnalysisCache],
            keys: Dict[str, Optional[str]]) -> Tuple[List[FileResult], ProjectIndex]:
    """Every file's result (some resolved again) and the project index built from them."""
    index = build_index(results)
    mentioned = resolve_mentioning(results, {part for name in index.extensions for part in name.split(".")},
                                   cache, keys)
    if mentioned is results:
        return results, index
    return mentioned, build_index(mentioned)
