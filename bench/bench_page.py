"""How big the HTML page is, and how long headless Chromium takes to load it, at 10,000+ findings.

    python bench/bench_page.py [PATH] [--findings N]

Scans PATH (default: timm 1.0.31, downloaded like bench_scan.py), then makes the report as large as asked by
repeating its findings under other file names (a repository N / len(findings) times the size; `--findings 0`
keeps the report as scanned: DeepSpeed's own page), renders the page, and loads it in Debian's chromium
(`--dump-dom`, which returns once the page's script has drawn the list): the time printed is that load minus
the load of an empty page (the browser's own start-up), and the page's own clock from the start of
navigation to the end of its script (`data-load-ms`).
Prints the page's size, the share of the embedded findings data, and the times (median of 3).
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_scan import fetch  # noqa: E402

from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.report import html  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def grown(report, findings: int):
    """``report`` with its findings repeated under other paths until there are ``findings`` of them."""
    copies = []
    base = report.findings
    for index in range(max(1, -(-findings // max(1, len(base))))):
        copies.extend(replace(f, id=f"{f.id}-{index}", path=f"copy{index}/{f.path}", root=None) for f in base)
    return replace(report, findings=tuple(copies[:findings]))


def load_seconds(chromium: str, page: Path, profile: Path, in_page: Optional[List[float]] = None) -> float:
    start = time.perf_counter()
    done = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - start
    if page.name != "empty.html" and 'data-ready="1"' not in done.stdout:
        raise SystemExit(f"the page's script did not finish: {done.stderr[-500:]}")
    found = re.search(r'data-load-ms="(\d+)"', done.stdout)
    if in_page is not None and found:
        in_page.append(int(found.group(1)) / 1000)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", nargs="?")
    parser.add_argument("--findings", type=int, default=10_000)
    args = parser.parse_args()
    path = Path(args.path) if args.path else fetch("timm", "timm==1.0.31")
    report = scan(ScanRequest(path, resolve_targets(None), jobs=2))
    if args.findings:
        report = grown(report, args.findings)
    out = io.StringIO()
    html.render(report, out)
    text = out.getvalue()
    start = text.index('id="findings-data">')
    data = text.index("</script>", start) - start
    size = len(text.encode("utf-8"))
    print(f"{path.name}: {len(report.findings)} findings, page {size / 2**20:.2f} MiB "
          f"(findings data {data / 2**20:.2f} MiB, {size / len(report.findings):.0f} bytes a finding)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("chromium not installed: no load time")
        return
    with tempfile.TemporaryDirectory() as tmp:
        page, empty = Path(tmp) / "report.html", Path(tmp) / "empty.html"
        page.write_text(text, encoding="utf-8")
        empty.write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
        profile = Path(tmp) / "profile"
        load_seconds(chromium, empty, profile)  # a first start fills the profile
        base = statistics.median(load_seconds(chromium, empty, profile) for _ in range(3))
        in_page: List[float] = []
        loads = [load_seconds(chromium, page, profile, in_page) for _ in range(3)]
        print(f"load in headless chromium: {statistics.median(loads) - base:.2f} s above an empty page "
              f"({statistics.median(loads):.2f} s in all, empty page {base:.2f} s); the page's own clock to the "
              f"end of its script: {statistics.median(in_page):.2f} s")


if __name__ == "__main__":
    main()
