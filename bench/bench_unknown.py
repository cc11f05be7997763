"""How many of the most used torch APIs the data cannot judge, per target.

    python bench/bench_unknown.py [--top 500]

Scans the bench sdists (bench/_downloads, fetched by bench_scan.py / bench_fleet.py; the analysis cache
makes a second run fast), counts every `torch.*` API the op rule judged (calls, Tensor methods, modules,
optimizers) over all of them, and for the `--top` most used prints how many read `unknown` on each
target, and the most used of those.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_fleet import PROJECTS  # noqa: E402
from bench_scan import fetch  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=500)
    args = parser.parse_args()
    from migrator.cache import open_cache
    from migrator.maps.coverage import api_coverage
    from migrator.maps.load import resolve_targets
    from migrator.scan import scan

    targets = resolve_targets(None)
    used: Counter = Counter()
    for name, spec in PROJECTS.items():
        report = scan(fetch(name, spec), targets, cache=open_cache())
        used.update(f.api for f in report.findings if f.rule == "torch-op")
    top = [api for api, _ in used.most_common(args.top)]
    print(f"{len(used)} distinct torch APIs in {len(PROJECTS)} repositories; the {len(top)} most used:")
    for target in targets:
        unknown = [api for api in top if (api_coverage(target, api) is None
                                          or api_coverage(target, api).verdict.status.value == "unknown")]
        print(f"  {target.id}@{target.version}: {len(unknown)} unknown "
              f"({', '.join(unknown[:8])}{' ...' if len(unknown) > 8 else ''})")


if __name__ == "__main__":
    main()
