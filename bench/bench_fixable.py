"""Does a scan's ``fixable`` count equal what ``fix`` applies on the same tree? (issue 43: one source of truth)

For each path and target, one scan; then ``fix`` (safe mode, in memory) on that scan's report. Prints the scan's
fixable findings (verdicts ``fixable`` on the target, over every judged usage), the findings whose edits ``fix``
applied, and how many it held back.

    python bench/bench_fixable.py PATH [PATH ...] [--target cann --target neuware]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from migrator.fix import fix_report  # noqa: E402
from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.fix.settle import settled  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--target", action="append", default=None)
    args = parser.parse_args()
    targets = resolve_targets(args.target or ["cann", "neuware"])
    for path in args.paths:
        started = time.perf_counter()
        report = scan(ScanRequest(path, targets, jobs=2, settle=settled))
        took = time.perf_counter() - started
        for target in targets:
            fixable = {f.id for f in report.judged if (v := f.verdicts.get(target.id)) is not None and v.fixable}
            fixed = fix_report(path, report, target)
            applied = {i for item in fixed.files for i in item.applied}
            held = sum(len(item.skipped) for item in fixed.files)
            print(f"{path.name:28s} {target.id:8s} scan fixable {len(fixable):5d}  fix applied {len(applied):5d}  "
                  f"held {held:4d}  fixable-not-applied {len(fixable - applied):4d}  applied-not-fixable "
                  f"{len(applied - fixable):3d}  (scan {took:.1f} s)")


if __name__ == "__main__":
    main()
