"""Every report format of a scan, written to a folder, and compared with another run's folder byte for byte.

    python bench/same_reports.py OUT [--against BEFORE] [PATH ...]

Scans each PATH (default: examples/llm_trainer, /work/repos/open_clip_torch-3.3.0, /work/repos/mmengine, the
timm sdist in /tmp/perf) in a fresh process with an empty cache: the JSON report cold (``--jobs 2``, every
stage runs), then text (``--show all``), SARIF and HTML from the cache the cold scan wrote (the views over the
same report). Writes ``OUT/<name>.<format>``; with --against, prints each file that differs from BEFORE's and
exits 1 when any does. For a change that must leave every report as it was (a speed change, a refactoring).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = [HERE.parent / "examples" / "llm_trainer", Path("/work/repos/open_clip_torch-3.3.0"),
           Path("/work/repos/mmengine"), Path("/tmp/perf/timm-1.0.31")]
#: (format, extra options, file suffix): the first runs cold, the rest read the cache it wrote
FORMATS = [("json", [], "json"), ("text", ["--show", "all", "--color", "never"], "txt"), ("sarif", [], "sarif"),
           ("html", [], "html")]


def reports(path: Path, out: Path) -> float:
    """Writes every format's report of ``path`` into ``out``; the seconds of the cold scan."""
    env = dict(os.environ, PYTHONPATH=str(HERE.parent))
    cold = 0.0
    with tempfile.TemporaryDirectory() as cache:
        env["XDG_CACHE_HOME"] = cache
        for number, (fmt, extra, suffix) in enumerate(FORMATS):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "migrator", "scan", str(path), "--format", fmt, *extra,
                                   "--jobs", "2", "-o", str(out / f"{path.name}.{suffix}")],
                                  env=env, capture_output=True, text=True)
            if done.returncode not in (0, 1):
                raise SystemExit(f"scan {path} --format {fmt} failed: {done.stderr[-2000:]}")
            if not number:
                cold = time.perf_counter() - start
    return cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--against", type=Path, help="A folder an earlier run wrote: compare byte for byte.")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.paths or DEFAULT:
        print(f"{path}: cold JSON scan {reports(path, args.out):.1f} s", flush=True)
    if args.against is None:
        return
    differ = [p.name for p in sorted(args.against.iterdir())
              if not (args.out / p.name).is_file() or (args.out / p.name).read_bytes() != p.read_bytes()]
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(differ)} of {len(list(args.against.iterdir()))} reports differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
