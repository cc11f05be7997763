"""``migrator check``: the pre-commit / CI gate. Fails only on new findings at the configured statuses,
after suppressions and the baseline."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..discover import MAX_FILE_BYTES, Exclusions, classify, discover, display_name, kind_of
from ..engine.cache import AnalysisCache
from ..engine.collector import DEFAULT as DEFAULT_COLLECTOR, Collector
from ..evidence import active
from ..maps.load import TargetMap
from ..model import FileResult, FileStatus, Finding, Report, SourceFile, Status
from ..pipeline import ScanRequest, scan
from ..selection import Selection
from ..sources.python import LEFT_OUT
from .baseline import BaselineEntry, load_baseline, split_new, write_baseline
from .config import Config
from ..pipeline.suppress import Suppression, apply_suppressions, suppressions_in


@dataclass(frozen=True)
class CheckResult:
    report: Report  # every finding, before filtering
    failing: List[Finding]  # new findings at a failing status: these make the exit code 1
    baselined: List[Finding] = field(default_factory=list)
    suppressed: List[Finding] = field(default_factory=list)
    fixed: List[BaselineEntry] = field(default_factory=list)
    unused_suppressions: List[Tuple[str, Suppression]] = field(default_factory=list)
    errors: List[FileResult] = field(default_factory=list)
    baseline_written: Optional[int] = None

    @property
    def exit_code(self) -> int:
        """1 on a new finding at a failing status, and on a file that could not be checked (a syntax error,
        an encoding it cannot read, a size past the cap): a gate that passed what it could not read would fail
        open."""
        return 1 if self.failing or self.errors else 0


def run_check(config: Config, targets: Sequence[TargetMap], paths: Sequence[Path], fail_on: Sequence[Status],
              jobs: Optional[int] = None, cache: Optional[AnalysisCache] = None,
              write: bool = False, collector: Collector = DEFAULT_COLLECTOR) -> CheckResult:
    root = config.root
    baseline = load_baseline(config.baseline_path, named=config.baseline_named and not write)  # before the scan
    files, skipped = _select(root, paths, config.exclude)
    report = scan(ScanRequest(root, targets, files=files, skipped=skipped, call_graph=False, suppress=False,
                              selection=Selection.parse(config.select, config.ignore), jobs=jobs, cache=cache,
                              collector=collector))
    at_status = [f for f in report.findings if any(v.status in fail_on and active(v) for v in f.verdicts.values())]
    suppressions = suppressions_in(root, {f.path for f in report.findings} | {s.rel for s in files})
    outcome = apply_suppressions(at_status, suppressions)
    checked = {s.rel for s in files} if paths else None
    new, fixed = split_new(outcome.kept, baseline, checked)
    result = CheckResult(report=report, failing=new, baselined=[f for f in outcome.kept if f.id in baseline],
                         suppressed=outcome.suppressed, fixed=fixed, unused_suppressions=outcome.unused,
                         errors=[r for r in report.files if r.status == FileStatus.ERROR or _unread(r)])
    if write:
        keep = outcome.kept
        if paths:  # only some files were checked: keep the other files' entries as they are
            keep = keep + [_stub(e) for e in baseline.values() if e.path not in (checked or set())]
        result = replace(result, baseline_written=write_baseline(config.baseline_path, keep), failing=[], fixed=fixed)
    return result


def _unread(result: FileResult) -> bool:
    """A file skipped for its size, or one with a statement left out as nested too deeply: the gate could not
    read it (all of it), so it cannot pass it (exclude it in ``[tool.migrator] exclude`` when it is data, not
    code). The fuzz run's ``x = torch`` + ``.cuda`` x 20,000 passed."""
    return ((result.status == FileStatus.SKIPPED and result.file.size > MAX_FILE_BYTES)
            or (result.status == FileStatus.OK and LEFT_OUT in (result.reason or "")))


def _select(root: Path, paths: Sequence[Path], exclude: Sequence[str]) -> Tuple[List[SourceFile], List[FileResult]]:
    if not paths:
        found = discover(root)
        exclusions = Exclusions(exclude)
        return [f for f in found.files if not exclusions.match(f.rel)], list(found.skipped)
    files: List[SourceFile] = []
    skipped: List[FileResult] = []
    exclusions = Exclusions(exclude)
    for path in paths:
        path = Path(path).resolve()
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            rel = path.name
        kind = kind_of(path.name)
        if kind is None or exclusions.match(rel) or not path.exists():
            continue
        found = classify(path, display_name(rel), kind)  # the size cap and special files, as a scan has them
        files.extend(found.files)
        skipped.extend(found.skipped)
    return sorted(files, key=lambda f: f.rel), skipped


def _stub(entry: BaselineEntry) -> Finding:
    """A baseline entry kept as it was (its file was not checked this time)."""
    from ..model import Category, Confidence, Span

    return Finding(id=entry.id, rule=entry.rule, category=Category.OP, path=entry.path, span=Span(None),
                   api=entry.api, snippet="", confidence=Confidence.RESOLVED, verdicts={})
