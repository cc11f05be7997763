"""The fleet on Dask distributed: one task per repository, a ``LocalCluster`` unless a scheduler is given."""

from __future__ import annotations

import hashlib
import re
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

from .. import DISTRIBUTION
from .model import Portfolio, RepoRow
from .portfolio import build_portfolio
from ..safe_write import REPORT_ERRORS, write_text
from .task import RepoTask, TaskResult, run_repo_task

INSTALL_HINT = f"migrator fleet needs Dask distributed: pip install '{DISTRIBUTION}[fleet]'"

#: Called with (rows done, rows in all, the row just done).
Progress = Optional[Callable[[int, int, RepoRow], None]]


#: Seconds the fleet waits for a worker to join a scheduler that has none (at the start, or after losing its last).
NO_WORKER_WAIT = 60.0


class DaskMissing(RuntimeError):
    """``dask.distributed`` is not installed."""


class NoWorkers(RuntimeError):
    """The scheduler had no worker at the start and none joined within the wait: nothing was scanned."""


def repo_tasks(paths: Sequence[str], targets: str, timeout: float, html: bool, cache: bool,
               jobs: int = 1) -> List[RepoTask]:
    """One task per path; a repository is named by its folder, made unique with ``-2``, ``-3``..."""
    tasks, seen = [], set()
    for path in paths:
        base = Path(path).resolve().name or "repo"
        name, n = base, 1
        while name in seen:
            n += 1
            name = f"{base}-{n}"
        seen.add(name)
        tasks.append(RepoTask(name=name, path=str(Path(path).resolve()), targets=targets, timeout=timeout,
                              html=html, cache=cache, jobs=jobs))
    return tasks


def run_fleet(tasks: Sequence[RepoTask], scheduler: Optional[str] = None, workers: Optional[int] = None,
              reports_dir: Optional[Path] = None, link_base: Optional[Path] = None,
              progress: Progress = None, no_worker_timeout: Optional[float] = None) -> Portfolio:
    """Scan every task's repository on the cluster and join the rows, in the order the tasks were given.

    With ``reports_dir`` each repository's own page is written there and its row links to it (relative to
    ``link_base``, the folder of the portfolio page). A scheduler with no worker gets ``no_worker_timeout``
    seconds (default ``NO_WORKER_WAIT``) for one to join, else ``NoWorkers``; when the cluster has had no live
    worker for as long later, the run ends: every repository not done by then is a row that says so, instead
    of a wait with no end.
    """
    started = time.perf_counter()
    patience = NO_WORKER_WAIT if no_worker_timeout is None else no_worker_timeout
    with _client(scheduler, workers) as (client, label, count):
        if not count:
            count = _first_workers(client, label, patience)
        futures = client.map(run_repo_task, tasks, key=[f"migrator-repo-{i}-{t.name}" for i, t in enumerate(tasks)],
                             pure=False)
        position = {future.key: index for index, future in enumerate(futures)}
        rows: List[Optional[RepoRow]] = [None] * len(tasks)
        done = 0
        for future in _as_completed_while_workers(client, futures, patience):
            index = position[future.key]
            finished = rows[index] = _row(tasks[index], future, reports_dir, link_base)
            done += 1
            if progress:
                progress(done, len(tasks), finished)
        for index, row in enumerate(rows):
            if row is None:  # the cluster lost its last worker and none came back
                futures[index].cancel()
                lost = RepoRow(name=tasks[index].name, path=tasks[index].path, status="failed",
                               reason=f"not scanned: the cluster had no live worker for {patience:g} s")
                rows[index] = lost
                done += 1
                if progress:
                    progress(done, len(tasks), lost)
    return build_portfolio([r for r in rows if r is not None], scheduler=label, workers=count,
                           seconds=time.perf_counter() - started)


#: How often the client looks for finished tasks and live workers, in seconds.
_POLL = 1.0


def _as_completed_while_workers(client, futures: Sequence, patience: float) -> Iterator:
    """The futures as they finish, until all have, or until the scheduler has had no worker for ``patience``
    seconds (a killed last worker: Dask would hold its tasks for a worker that never comes)."""
    from distributed import wait

    pending = set(futures)
    alone_since: Optional[float] = None
    while pending:
        try:
            finished, pending = wait(pending, timeout=_POLL, return_when="FIRST_COMPLETED")
        except TimeoutError:
            finished = set()
        yield from sorted(finished, key=lambda f: str(f.key))
        if finished or not pending:
            alone_since = None
            continue
        if client.scheduler_info().get("workers"):
            alone_since = None
        elif alone_since is None:
            alone_since = time.monotonic()
        elif time.monotonic() - alone_since >= patience:
            return


def _first_workers(client, label: str, patience: float) -> int:
    """How many workers the scheduler has once the first joined; ``NoWorkers`` when none did in ``patience`` s."""
    try:
        client.wait_for_workers(1, timeout=patience)
    except (TimeoutError, OSError) as exc:
        raise NoWorkers(f"no worker joined the scheduler {label} within {patience:g} s: start one "
                        f"(`dask worker {label}`) or wait longer (--no-worker-wait)") from exc
    return len(client.scheduler_info().get("workers", {}))


def _row(task: RepoTask, future, reports_dir: Optional[Path], link_base: Optional[Path]) -> RepoRow:
    try:
        result: TaskResult = future.result()
    except Exception as exc:  # a worker lost, a result that cannot travel: the row says so, the fleet goes on
        return RepoRow(name=task.name, path=task.path, status="failed", reason=f"{type(exc).__name__}: {exc}")
    if reports_dir is None or result.html is None:
        return result.row
    reports_dir.mkdir(parents=True, exist_ok=True)
    page = reports_dir / f"{_slug(task.name)}.html"
    write_text(page, result.html, errors=REPORT_ERRORS)  # atomic, never through a link at the page's place
    return replace(result.row, report=_link(page, link_base))


@contextmanager
def _client(scheduler: Optional[str], workers: Optional[int]) -> Iterator[Tuple[Any, str, int]]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise DaskMissing(INSTALL_HINT) from exc
    if scheduler:
        with Client(scheduler) as client:
            count = len(client.scheduler_info().get("workers", {}))
            yield client, scheduler, count
        return
    # Each task's work runs in its own child process, so one thread per worker process is enough;
    # no dashboard: nothing listens on a port the user did not ask for.
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        count = len(cluster.workers)
        yield client, f"LocalCluster ({count} worker{'s' if count != 1 else ''})", count


def _slug(name: str) -> str:
    """A page name for the repository named ``name``: its safe characters, and when any were replaced, or it has
    capitals or is long (``a b`` and ``a?b``, or ``Repo`` and ``repo`` on a case-blind file system, would share a
    page), a digest of the whole name, so that two repositories never write one page."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip(".") or "repo"
    if safe == name and name == name.lower() and len(name) <= 100:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{safe[:100]}-{digest}"


def _link(page: Path, base: Optional[Path]) -> str:
    """Relative to the portfolio page's folder when the page lies under it, else a file URI."""
    if base is not None:
        try:
            return page.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
    return page.resolve().as_uri()
