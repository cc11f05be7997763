"""Scan speed on real sources: the libcst parse floor, migrator's cold and warm scans, and `check` on one file.

    python bench/bench_scan.py [--jobs 2] [--only transformers|timm] [--repeat N]

Downloads pinned sdists from PyPI (checked by sha256) into bench/_downloads (once), then
prints, for each project, on the same files and with the same number of processes:

    parse floor   libcst.parse_module over every .py file (what any libcst-based tool pays)
    cold scan     `migrator scan` with an empty cache
    warm scan     the same scan again (nothing changed: the whole report comes from the cache)
    1 file edited the scan after touching one file (per-file cache hits, then the cross-file work)
    check 1 file  `migrator check FILE` after touching one file, minus bare interpreter start-up
with lines/s and the peak resident memory of the scan process. The floor and the cold scan are also timed by
the user CPU time of all their processes (the workers included): on a machine shared with other work, the wall
clock moves with the load, CPU time much less. With --repeat, every measure runs N times and
the spread of each ratio is printed: this machine's speed moves between runs, the floor's with it. The touched
file is put back as downloaded after each run. migrator runs from bytecode, as an installed package does: the
commands run without PYTHONDONTWRITEBYTECODE, after one import of its modules (with the variable set, every run
would compile migrator's sources again, 0.07 s of a `check`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
DOWNLOADS = HERE / "_downloads"
PROJECTS = {"transformers": "transformers==4.46.3", "timm": "timm==1.0.31"}


def fetch(name: str, spec: str) -> Path:
    """The unpacked sdist of ``name==version``, downloaded once from PyPI's JSON API and checked against the
    sha256 PyPI publishes (not with ``pip download``, which builds the package's metadata: running its
    ``setup.py``, which fails for fairseq without torch and runs code this bench only reads)."""
    DOWNLOADS.mkdir(exist_ok=True)
    version = spec.split("==")[1]
    folder = DOWNLOADS / f"{name}-{version}"
    if folder.is_dir():
        return folder
    archive = DOWNLOADS / f"{name}-{version}.tar.gz"
    if not archive.is_file():
        import hashlib
        import json
        import urllib.request

        import urllib.parse

        index = f"https://pypi.org/pypi/{name}/json"
        with urllib.request.urlopen(index, timeout=60) as response:
            sdist = next(u for u in json.load(response)["releases"][version] if u["packagetype"] == "sdist")
        with urllib.request.urlopen(urllib.parse.urljoin(index, sdist["url"]), timeout=300) as response:
            data = response.read()
        if hashlib.sha256(data).hexdigest() != sdist["digests"]["sha256"]:
            raise SystemExit(f"{sdist['filename']}: sha256 differs from PyPI's")
        archive.write_bytes(data)
    with tarfile.open(archive) as tar:
        tar.extractall(DOWNLOADS, filter="data") if sys.version_info >= (3, 12) else tar.extractall(DOWNLOADS)
    return folder


def _parse(path: str) -> None:
    import libcst

    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        libcst.parse_module(text)
    except Exception:
        pass


def parse_floor(files, jobs: int) -> tuple:
    """(seconds, user CPU seconds of the workers) of parsing every file."""
    start, cpu = time.perf_counter(), _children_cpu()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(_parse, files, chunksize=8))
    return time.perf_counter() - start, _children_cpu() - cpu


def _children_cpu() -> float:
    """User CPU seconds of this process's children that have ended (pool workers once shut down)."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime


#: Runs a command as its own child and prints that child's peak RSS: a fresh process, so earlier commands
#: (pip, the other project's scan) cannot leak into the number the way RUSAGE_CHILDREN of this process would.
_PEAK = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
         "usage = resource.getrusage(resource.RUSAGE_CHILDREN); "
         "sys.stderr.write('peak-kib %d cpu %f\\n' % (usage.ru_maxrss, usage.ru_utime)); sys.exit(code)")


#: Imports every module a scan or a check loads, which writes their bytecode.
_COMPILE = "import migrator.cli, migrator.gate.check, migrator.graph, migrator.resolve.module"


def timed(cmd, env) -> tuple:
    """(seconds, peak RSS MiB of the largest process of the command, user CPU seconds of all its processes)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *cmd], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr[-2000:]}")
    words = next((line.split() for line in done.stderr.splitlines() if line.startswith("peak-kib ")), None)
    peak, cpu = (int(words[1]), float(words[3])) if words else (0, 0.0)
    return seconds, peak / 1024, cpu


@dataclass(frozen=True)
class Run:
    """One run of every measure on one project (seconds, MiB)."""

    floor: float
    cold: float
    warm: float
    touched: float
    check: float
    peak: float
    floor_cpu: float  # user CPU seconds, every process of the measure
    cold_cpu: float

    @property
    def measures(self) -> Dict[str, float]:
        return {"cold / floor": self.cold / self.floor, "cold / floor CPU": self.cold_cpu / self.floor_cpu,
                "warm / cold": self.warm / self.cold,
                "edited / cold": self.touched / self.cold, "check (s)": self.check, "peak (MiB)": self.peak}


def bench(root: Path, jobs: int, files: List[str]) -> Run:
    floor, floor_cpu = parse_floor(files, jobs)
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["XDG_CACHE_HOME"] = cache
        subprocess.run([sys.executable, "-c", _COMPILE], env=env, check=True)
        scan = [sys.executable, "-m", "migrator", "scan", str(root), "--format", "json", "-o", os.devnull,
                "--jobs", str(jobs)]
        cold, peak, cold_cpu = timed(scan, env)
        warm, _, _ = timed(scan, env)
        target = next(p for p in sorted(root.rglob("*.py")) if p.stat().st_size > 2000)
        original = target.read_bytes()
        try:
            target.write_bytes(original + b"\n# touched\n")
            check, _, _ = timed([sys.executable, "-m", "migrator", "check", "--jobs", "1", str(target)], env)
            touched, _, _ = timed(scan, env)
        finally:
            target.write_bytes(original)  # the next run (and the next bench) reads the sources as downloaded
        bare, _, _ = timed([sys.executable, "-c", "pass"], env)
    return Run(floor=floor, cold=cold, warm=warm, touched=touched, check=check - bare, peak=peak,
               floor_cpu=floor_cpu, cold_cpu=cold_cpu)


def show(name: str, files: int, lines: int, jobs: int, runs: List[Run]) -> None:
    print(f"{name}: {files} files, {lines} lines, {jobs} processes")
    for number, run in enumerate(runs, 1):
        label = f" (run {number} of {len(runs)})" if len(runs) > 1 else ""
        print(f"  parse floor   {run.floor:7.2f} s   {lines / run.floor:9.0f} lines/s   "
              f"user CPU {run.floor_cpu:6.2f} s{label}")
        print(f"  cold scan     {run.cold:7.2f} s   {lines / run.cold:9.0f} lines/s   "
              f"{run.cold / run.floor:4.2f}x floor   user CPU {run.cold_cpu:6.2f} s, "
              f"{run.cold_cpu / run.floor_cpu:4.2f}x floor's   peak {run.peak:.0f} MiB")
        print(f"  warm scan     {run.warm:7.2f} s   {run.warm / run.cold:4.0%} of cold (every file a cache hit)")
        print(f"  1 file edited {run.touched:7.2f} s   {run.touched / run.cold:4.0%} of cold "
              "(per-file cache + cross-file work)")
        print(f"  check 1 file  {run.check:7.2f} s above interpreter start-up")
    if len(runs) > 1:  # the machine's speed moves between runs: the spread says how far to trust one number
        print(f"  spread over {len(runs)} runs (min / median / max):")
        for measure in runs[0].measures:
            values = sorted(run.measures[measure] for run in runs)
            print(f"    {measure:14s} {values[0]:7.2f} {statistics.median(values):7.2f} {values[-1]:7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", choices=sorted(PROJECTS))
    parser.add_argument("--repeat", type=int, default=1, help="Runs of every measure per project (prints the spread).")
    args = parser.parse_args()
    for name, spec in PROJECTS.items():
        if args.only and name != args.only:
            continue
        root = fetch(name, spec)
        files = [str(p) for p in root.rglob("*.py")]
        lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
        show(name, len(files), lines, args.jobs, [bench(root, args.jobs, files) for _ in range(args.repeat)])


if __name__ == "__main__":
    main()
