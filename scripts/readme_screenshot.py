"""Regenerate the README's screenshot (docs/images/report.png) from the page of the bundled example.

    python scripts/readme_screenshot.py [--out docs/images/report.png] [--width 1400] [--height 1100]

Scans examples/ as the README does, renders the page, and has headless Chromium (Debian's `chromium`)
photograph its top: the manager's answer, the readiness chart and the target cards. Without Chromium it says
so and exits 2; nothing is written.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402
from migrator.report import html  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images" / "report.png")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1100)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("chromium is not installed (Debian: apt-get install chromium): no screenshot taken", file=sys.stderr)
        return 2
    os.chdir(REPO)  # the page shows the root as given: `examples`, as the README's command gives it
    report = scan(ScanRequest(Path("examples"), resolve_targets(None), jobs=1, cache=None))
    out = io.StringIO()
    html.render(report, out)
    with tempfile.TemporaryDirectory() as tmp:
        page, shot = Path(tmp) / "report.html", Path(tmp) / "report.png"
        page.write_text(out.getvalue(), encoding="utf-8")
        done = subprocess.run([chromium, *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}",
                               f"--window-size={args.width},{args.height}", f"--screenshot={shot}", page.as_uri()],
                              capture_output=True, text=True, timeout=120)
        if not shot.exists():
            print(f"chromium took no screenshot: {done.stderr[-800:]}", file=sys.stderr)
            return 1
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB) from the page of {report.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
