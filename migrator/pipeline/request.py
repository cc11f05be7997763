"""What a scan is asked to do: one frozen value every stage reads from."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

from ..discover import Discovery, Exclusions, discover
from ..engine.cache import AnalysisCache
from ..engine.collector import Collector
from ..maps.load import TargetMap
from ..model import FileResult, Finding, SourceFile
from ..selection import Selection

#: ``(done, total)`` as the files' results come in.
Progress = Optional[Callable[[int, int], None]]
#: A ``migrator.trace/1`` document and the path it was read from.
Trace = Tuple[Mapping[str, Any], str]
#: ``[tool.migrator] exclude`` for a scan: (patterns, the scanned folder's path below the configuration's folder
#: with a trailing slash, or "" when they are the same)
Exclude = Optional[Tuple[Sequence[str], str]]


@dataclass(frozen=True)
class ScanRequest:
    """A scan of ``root`` (a folder or one file) for ``targets``.

    ``files``: the files to scan, as ``check`` and ``fix`` hand them over (with ``skipped``, those left out and
    why); ``None`` discovers them under ``root`` and leaves out what ``exclude`` names. ``entries`` adds entry
    points (``pkg.mod`` or ``pkg.mod:func``) to the ones found; ``trace`` is a ``migrator.trace/1`` document
    to join. ``call_graph=False`` skips the graph, reachability and the project-wide rules (a few files cannot
    judge them); ``suppress=False`` keeps the findings ``# migrator: ignore`` marks (``check`` reports them as
    suppressed); ``selection`` is ``--select`` / ``--ignore``. ``jobs``, ``cache``, ``progress`` and
    ``collector`` say how the engine runs it, not what it finds.
    """

    root: Path
    targets: Sequence[TargetMap]
    files: Optional[Sequence[SourceFile]] = None
    skipped: Sequence[FileResult] = ()
    entries: Sequence[str] = ()
    trace: Optional[Trace] = None
    exclude: Exclude = None
    selection: Selection = Selection()
    call_graph: bool = True
    suppress: bool = True
    jobs: Optional[int] = None
    cache: Optional[AnalysisCache] = None
    progress: Progress = field(default=None, compare=False)
    collector: Collector = field(default=Collector(), compare=False)
    #: what ``fix`` would hold back, settled before the counts (``fix/settle.settled``; ``None``: every safe
    #: rewrite counts as fixable)
    settle: Optional[Callable[[Path, Sequence[Finding], Sequence[TargetMap]], List[Finding]]] = \
        field(default=None, compare=False)


def discovered(request: ScanRequest) -> Discovery:
    """The files the request scans, and those left out with their reason."""
    if request.files is not None:
        return Discovery(files=tuple(request.files), skipped=tuple(request.skipped))
    return without_excluded(discover(Path(request.root)), request.exclude)


def without_excluded(found: Discovery, exclude: Exclude) -> Discovery:
    """``found`` without the files ``exclude`` names (patterns match paths from the configuration's folder)."""
    if not exclude or not exclude[0]:
        return found
    patterns, base = exclude
    exclusions = Exclusions(patterns)
    return replace(found, files=tuple(f for f in found.files if not exclusions.match(base + f.rel)),
                   skipped=tuple(r for r in found.skipped if not exclusions.match(base + r.file.rel)))
