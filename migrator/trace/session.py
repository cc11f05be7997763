"""The traced process's side: installed by the bootstrap ``sitecustomize`` before the user's code runs.

Reads its configuration from the file named by ``MIGRATOR_TRACE_CONFIG``, records until the process ends
(normally, by an exception, after ``steps`` optimizer steps or at the wall-clock ``limit``), and writes
``trace-<pid>.json`` into the configured folder.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import signal
import sys
import time
import traceback
from collections import Counter
from typing import Any, Dict, Optional

from .document import process_document
from .recorder import OpRecorder, Places, UserFrames
from .redirect import Redirections
from .stubs import StubSpec

CONFIG_ENV = "MIGRATOR_TRACE_CONFIG"


class TraceStop(BaseException):
    """Ends the traced run early (steps reached, time up); a BaseException so ``except Exception`` lets it by."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason, self.detail = reason, detail


class Session:
    def __init__(self, config: Dict[str, Any]) -> None:
        self.config = config
        self.frames = UserFrames(config["root"])
        places = Places(config["device"])
        self.recorder = OpRecorder(self.frames, places)
        self.redirects = Redirections(self.frames, places)
        #: the index ``torch.multiprocessing.spawn`` gave this process, when it is one of its workers
        self.worker: Optional[int] = None
        self.extensions: Counter = Counter()  # (module, function, kind, site) -> calls
        self.steps = 0
        self.started = time.perf_counter()
        self.stopped: Dict[str, Any] = {"reason": "exit", "detail": "the command ended"}
        self.written = False

    def start(self) -> None:
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        from . import redirect, stubs

        device = self.config["device"]
        if device != "cuda":
            specs = [StubSpec(**{**s, "functions": tuple(s["functions"])}) for s in self.config.get("stubs", ())]
            stubs.install(specs, self._extension_called, self._extension_imported)
            redirect.install(device, self.redirects)
        register_optimizer_step_pre_hook(self._before_step)
        register_optimizer_step_post_hook(self._after_step)
        self._watch_data_loading()
        self._watch_spawned_workers()
        self.recorder.meta_reads = device == "meta"
        self.recorder.api_mode().__enter__()
        self.recorder.mode().__enter__()
        limit = self.config.get("limit")
        if limit:
            signal.signal(signal.SIGALRM, self._time_up)
            signal.setitimer(signal.ITIMER_REAL, float(limit))
        previous_hook = sys.excepthook

        def excepthook(kind, value, tb):
            if isinstance(value, TraceStop):
                self.stopped = {"reason": value.reason, "detail": value.detail}
                self.write()
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(0)
            self.stopped = {"reason": "error", "detail": f"{kind.__name__}: {value}", "site": _user_site(self, tb)}
            previous_hook(kind, value, tb)
        sys.excepthook = excepthook
        atexit.register(self.write)

    # ---------------------------------------------------------------------------- events

    def _before_step(self, optimizer, args, kwargs) -> None:
        self.recorder.phase = "optimizer"

    def _after_step(self, optimizer, args, kwargs) -> None:
        self.recorder.phase = "forward"
        self.steps += 1
        wanted = self.config.get("steps")
        if wanted and self.steps >= wanted:
            self._stop("steps", f"stopped after {self.steps} optimizer step{'s' if self.steps > 1 else ''}")

    def _watch_data_loading(self) -> None:
        """A DataLoader's iterators, and its worker processes, run in the ``data`` phase: host work, not the
        training step's (a sampler's ``random_``, a dataset's transforms, the collation)."""
        from torch.utils.data import dataloader
        from torch.utils.data._utils import worker

        recorder = self.recorder

        def in_data_phase(method):
            @functools.wraps(method)
            def loading(*args, **kwargs):
                phase, recorder.phase = recorder.phase, "data"
                try:
                    return method(*args, **kwargs)
                finally:
                    recorder.phase = phase
            return loading

        iterator = dataloader._BaseDataLoaderIter
        iterator.__init__ = in_data_phase(iterator.__init__)
        iterator.__next__ = in_data_phase(iterator.__next__)
        original_loop = worker._worker_loop

        @functools.wraps(original_loop)  # spawn pickles the loop by name: the wrapper keeps it
        def _worker_loop(*args, **kwargs):
            recorder.phase = "data"
            return original_loop(*args, **kwargs)
        worker._worker_loop = _worker_loop

    def _watch_spawned_workers(self) -> None:
        """A ``torch.multiprocessing.spawn`` worker that raises prints its traceback and exits 1 (``_wrap`` catches
        the error for the parent): its document says which worker it was and what failed, where."""
        import torch.multiprocessing  # noqa: F401  - (its ``spawn`` attribute is the function, not the module)

        spawn = sys.modules["torch.multiprocessing.spawn"]
        original = spawn._wrap
        session = self

        @functools.wraps(original)  # pickled by name into the worker, where this session's copy is the one found
        def _wrap(fn, i, *rest, **kwargs):
            return original(session.spawned_worker(fn, i), i, *rest, **kwargs)
        spawn.__dict__["_wrap"] = _wrap

    def spawned_worker(self, fn, index: int):
        """``fn`` run as spawn worker ``index``: an error it raises is this process's ``stopped``."""
        self.worker = index

        def worker(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                self.stopped = {"reason": "error", "detail": f"{type(exc).__name__}: {exc}",
                                "site": _user_site(self, exc.__traceback__), "worker": index}
                raise
        return worker

    def _time_up(self, signum, frame) -> None:
        self._stop("limit", f"stopped at the {self.config['limit']:g} s wall-clock limit "
                            f"after {self.steps} optimizer steps")

    def _stop(self, reason: str, detail: str) -> None:
        """End the run here. The command's own process unwinds (``TraceStop``, caught by the excepthook); a
        worker that ``multiprocessing`` started (``mp.spawn``) would print it as a crash and exit 1 (its
        bootstrap catches every exception), so it writes its document and leaves with 0, which its parent
        reads as a worker that finished."""
        import multiprocessing

        if multiprocessing.parent_process() is None:
            raise TraceStop(reason, detail)
        self.stopped = {"reason": reason, "detail": detail}
        self.write()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    def _extension_imported(self, stub: StubSpec, name: str) -> None:
        self.extensions[(stub.module, "", "import", self.frames.site(2))] += 1

    def _extension_called(self, stub: StubSpec, function: str) -> None:
        self.extensions[(stub.module, function, "call", self.frames.site(3))] += 1

    # ---------------------------------------------------------------------------- output

    def write(self) -> None:
        if self.written:
            return
        self.written = True
        if self.config.get("limit"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        document = process_document(self, time.perf_counter() - self.started)
        out = os.path.join(self.config["out_dir"], f"trace-{os.getpid()}.json")
        with open(out + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(document, handle)
        os.replace(out + ".tmp", out)


def _user_site(session: Session, tb) -> Optional[Dict[str, Any]]:
    """The innermost frame of a traceback in the user's code."""
    found = None
    for frame, line in traceback.walk_tb(tb):
        rel = session.frames.relative(frame.f_code.co_filename)
        if rel is not None:
            found = {"path": rel, "line": line}
    return found


def start_from_environment() -> Optional[Session]:
    path = os.environ.get(CONFIG_ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        session = Session(json.load(handle))
    session.start()
    return session
