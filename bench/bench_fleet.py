"""Fleet speed-up on real sources: the same repositories on a LocalCluster of 1 and of 2 workers.

    python bench/bench_fleet.py [--workers 1,2] [--only timm,fairseq]

Downloads pinned sdists into bench/_downloads (once, like bench_scan.py), then runs `migrator fleet` over
all of them with an empty cache for each cluster size (every repository is a cold scan, one process per
repository), and prints the wall time, the speed-up over one worker, and the portfolio's top shared
blockers per target. Each repository's scan uses one process, so the cluster size is the parallelism.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import fetch  # noqa: E402

PROJECTS = {
    "fairseq": "fairseq==0.12.2", "mmdet": "mmdet==3.3.0", "timm": "timm==1.0.31",
    "xformers": "xformers==0.0.35", "accelerate": "accelerate==1.16.0", "lightning": "lightning==2.5.0",
}


def lines_of(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*.py"):
        with path.open("rb") as handle:
            total += sum(1 for _ in handle)
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--only", default=",".join(PROJECTS))
    args = parser.parse_args()
    from migrator.fleet.run import repo_tasks, run_fleet

    folders = [fetch(name, PROJECTS[name]) for name in args.only.split(",")]
    print(f"{len(folders)} repositories, {sum(lines_of(f) for f in folders):,} lines of Python, "
          f"{os.cpu_count()} cores")
    timings = {}
    for workers in (int(w) for w in args.workers.split(",")):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["XDG_CACHE_HOME"] = cache  # every repository cold, for each cluster size
            start = time.perf_counter()
            portfolio = run_fleet(repo_tasks([str(f) for f in folders], "cann,neuware,kunlun", timeout=1800,
                                             html=False, cache=True), workers=workers)
            timings[workers] = time.perf_counter() - start
        slowest = max(portfolio.repos, key=lambda r: r.seconds)
        print(f"{workers} worker(s): {timings[workers]:.1f} s (slowest repository {slowest.name} "
              f"{slowest.seconds:.1f} s); {sum(r.status == 'ok' for r in portfolio.repos)} scanned")
    base = timings.get(1)
    for workers, seconds in timings.items():
        if base and workers != 1:
            print(f"speed-up with {workers} workers: {base / seconds:.2f}x")
    for target in portfolio.targets:
        top = ", ".join(f"{b.title} ({len(b.repos)})" for b in target.blockers[:5])
        print(f"{target.id}: {len(target.free_now)} of {target.scanned} free now; top shared blockers: {top}")


if __name__ == "__main__":
    main()
