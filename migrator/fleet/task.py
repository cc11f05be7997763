"""One repository, one fleet task: scan it in a child process and reduce its report to a ``RepoRow``.

The child process gives each repository its own time limit (it is killed when it runs over, with the scan's
own worker processes: it leads its process group) and its own failure (a crash, a ``MemoryError``, a
repository that is not there): the task turns all of them into a row with its reason instead of losing the
worker. A worker killed outright cannot clean up, so the child watches it: when its parent is gone it removes
its output folder (the task's temporary directory) and ends its process group, leaving no orphan behind.

The child writes the full ``migrator.report/1`` document, and the HTML page when asked; the task reads them
back, so rows and pages reach the client through Dask and the workers need no filesystem in common with it
beyond the repositories themselves.

Run as ``python -m migrator.fleet.task REPO OUT_DIR [--parent PID] --target SPEC [--html] [--no-cache] [--jobs N]``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ..safe_write import REPORT_ERRORS, atomic_text
from .model import RepoRow
from .summary import summarise_report

#: Lines of a failed child's stderr kept as the row's reason.
_REASON_LINES = 3


@dataclass(frozen=True)
class RepoTask:
    """What a worker needs to scan one repository (plain data: it travels to the worker)."""

    name: str
    path: str
    targets: str = ""  # none: every target folder of the maps
    timeout: float = 1800.0
    html: bool = False
    cache: bool = True
    jobs: int = 1


@dataclass(frozen=True)
class TaskResult:
    row: RepoRow
    html: Optional[str] = None  # the repository's own report page, when the task was asked for it


def run_repo_task(task: RepoTask) -> TaskResult:
    """Never raises: a repository that cannot be scanned is a ``failed`` or ``timeout`` row."""
    started = time.perf_counter()
    if not Path(task.path).exists():
        return TaskResult(RepoRow(name=task.name, path=task.path, status="failed", reason="no such path"))
    with tempfile.TemporaryDirectory(prefix="migrator-fleet-") as out:
        command = [sys.executable, "-m", "migrator.fleet.task", task.path, out, "--parent", str(os.getpid()),
                   "--target", task.targets,
                   "--jobs", str(task.jobs), *(["--html"] if task.html else []),
                   *([] if task.cache else ["--no-cache"])]
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)
        try:
            _, stderr = child.communicate(timeout=task.timeout)
        except subprocess.TimeoutExpired:
            _end_group(child)
            return TaskResult(RepoRow(name=task.name, path=task.path, status="timeout",
                                      reason=f"no report after {task.timeout:g} s",
                                      seconds=round(time.perf_counter() - started, 2)))
        finally:
            if child.poll() is None:  # this task was interrupted: its scan goes with it
                _end_group(child)
        seconds = time.perf_counter() - started
        report = Path(out) / "report.json"
        if child.returncode != 0 or not report.is_file():
            tail = [line for line in stderr.strip().splitlines() if line.strip()][-_REASON_LINES:]
            reason = " | ".join(tail) or f"the scan exited with status {child.returncode}"
            return TaskResult(RepoRow(name=task.name, path=task.path, status="failed", reason=reason,
                                      seconds=round(seconds, 2)))
        with report.open(encoding="utf-8") as handle:
            row = summarise_report(json.load(handle), task.name, task.path, seconds)
        page = Path(out) / "report.html"
        html = page.read_text(encoding="utf-8") if task.html and page.is_file() else None
    return TaskResult(row, html)


def _end_group(child: subprocess.Popen) -> None:
    """Kill the scan and the worker processes it started (its process group), and reap it."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(child.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups to signal
            child.kill()
    except ProcessLookupError:
        pass
    child.wait()


def _watch_parent(out: Path, parent: int, interval: float = 0.5) -> None:
    """In the child: when the task that started it (process ``parent``) is gone, its worker killed, remove the
    output folder and end this process group, so a lost worker leaves neither a running scan nor a temporary
    folder. Checked from the child's first moments: a worker may die before the scan has even started."""

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                shutil.rmtree(out, ignore_errors=True)
                if hasattr(os, "killpg"):
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                os._exit(1)
            time.sleep(interval)

    threading.Thread(target=watch, name="migrator-fleet-parent-watch", daemon=True).start()


def _main(argv: Sequence[str]) -> int:
    """The child: scan, write report.json (and report.html)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m migrator.fleet.task")
    parser.add_argument("repo")
    parser.add_argument("out")
    parser.add_argument("--parent", type=int, help="the task's process: when it is gone, clean up and stop")
    parser.add_argument("--target", default="")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--html", action="store_true")
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args(argv)
    if args.parent is not None:
        _watch_parent(Path(args.out), args.parent)

    from ..engine.cache import open_cache
    from ..engine.collector import FEWER_COLLECTIONS
    from ..maps.load import resolve_targets
    from ..pipeline import ScanRequest, scan
    from ..report import FORMATTERS

    targets = resolve_targets([t for t in args.target.split(",") if t.strip()] or None)
    report = scan(ScanRequest(Path(args.repo), targets, jobs=args.jobs, cache=None if args.no_cache else open_cache(),
                              collector=FEWER_COLLECTIONS))
    out = Path(args.out)
    formats = ("json", "html") if args.html else ("json",)
    for fmt in formats:
        with atomic_text(out / f"report.{fmt}", errors=REPORT_ERRORS) as handle:
            FORMATTERS[fmt](report, handle)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
