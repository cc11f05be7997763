"""Scan speed on real sources: the libcst parse floor, migrator's cold and warm scans, and `check` on one file.

    python bench/bench_scan.py [--jobs 2] [--only transformers|timm]

Downloads pinned sdists with `pip download --no-deps --no-binary :all:` into bench/_downloads (once), then
prints, for each project, on the same files and with the same number of processes:

    parse floor   libcst.parse_module over every .py file (what any libcst-based tool pays)
    cold scan     `migrator scan` with an empty cache
    warm scan     the same scan again (every file a cache hit; the cross-file work runs again)
    1 file edited the scan after touching one file (per-file cache hits, then the cross-file work)
    check 1 file  `migrator check FILE` after touching one file, minus bare interpreter start-up
with lines/s and the peak resident memory of the scan process. migrator runs from bytecode, as an installed
package does: the commands run without PYTHONDONTWRITEBYTECODE, after one import of its modules (with the
variable set, every run would compile migrator's sources again, 0.07 s of a `check`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOWNLOADS = HERE / "_downloads"
PROJECTS = {"transformers": "transformers==4.46.3", "timm": "timm==1.0.31"}


def fetch(name: str, spec: str) -> Path:
    DOWNLOADS.mkdir(exist_ok=True)
    version = spec.split("==")[1]
    folder = DOWNLOADS / f"{name}-{version}"
    if folder.is_dir():
        return folder
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", spec,
                    "-d", str(DOWNLOADS), "-q"], check=True)
    archive = next(DOWNLOADS.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(DOWNLOADS, filter="data") if sys.version_info >= (3, 12) else tar.extractall(DOWNLOADS)
    return folder


def _parse(path: str) -> int:
    import libcst

    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        libcst.parse_module(text)
    except Exception:
        pass
    return text.count("\n")


def parse_floor(files, jobs: int) -> tuple:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        lines = sum(pool.map(_parse, files, chunksize=8))
    return time.perf_counter() - start, lines


#: Runs a command as its own child and prints that child's peak RSS: a fresh process, so earlier commands
#: (pip, the other project's scan) cannot leak into the number the way RUSAGE_CHILDREN of this process would.
_PEAK = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
         "sys.stderr.write('peak-kib %d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")


#: Imports every module a scan or a check loads, which writes their bytecode.
_COMPILE = "import migrator.cli, migrator.gate.check, migrator.graph, migrator.resolve.module"


def timed(cmd, env) -> tuple:
    """(seconds, peak RSS MiB of the largest process of the command) for one command."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *cmd], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr[-2000:]}")
    peak = next((int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak-kib ")), 0)
    return seconds, peak / 1024


def bench(name: str, root: Path, jobs: int) -> None:
    files = [str(p) for p in root.rglob("*.py")]
    floor, lines = parse_floor(files, jobs)
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["XDG_CACHE_HOME"] = cache
        subprocess.run([sys.executable, "-c", _COMPILE], env=env, check=True)
        scan = [sys.executable, "-m", "migrator", "scan", str(root), "--format", "json", "-o", os.devnull,
                "--jobs", str(jobs)]
        cold, peak = timed(scan, env)
        warm, _ = timed(scan, env)
        target = next(p for p in sorted(root.rglob("*.py")) if p.stat().st_size > 2000)
        target.write_text(target.read_text(encoding="utf-8") + "\n# touched\n", encoding="utf-8")
        check, _ = timed([sys.executable, "-m", "migrator", "check", "--jobs", "1", str(target)], env)
        touched, _ = timed(scan, env)
        bare, _ = timed([sys.executable, "-c", "pass"], env)
    print(f"{name}: {len(files)} files, {lines} lines, {jobs} processes")
    print(f"  parse floor   {floor:7.2f} s   {lines / floor:9.0f} lines/s")
    print(f"  cold scan     {cold:7.2f} s   {lines / cold:9.0f} lines/s   {cold / floor:4.2f}x floor   "
          f"peak {peak:.0f} MiB")
    print(f"  warm scan     {warm:7.2f} s   {warm / cold:4.0%} of cold (every file a cache hit)")
    print(f"  1 file edited {touched:7.2f} s   {touched / cold:4.0%} of cold (per-file cache + cross-file work)")
    print(f"  check 1 file  {check - bare:7.2f} s above interpreter start-up ({bare:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", choices=sorted(PROJECTS))
    args = parser.parse_args()
    for name, spec in PROJECTS.items():
        if args.only and name != args.only:
            continue
        bench(name, fetch(name, spec), args.jobs)


if __name__ == "__main__":
    main()
