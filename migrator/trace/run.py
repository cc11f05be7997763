"""The parent of a traced command: prepare the stubs from a static scan, run the command with the
bootstrap on ``PYTHONPATH``, enforce the hard time limit, merge the processes' documents."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .document import merge
from .session import CONFIG_ENV

INSTALL_HINT = "migrator trace needs torch: pip install torch==2.13.0 (the CPU build is enough)"
DEVICES = ("cpu", "meta", "cuda")
#: Seconds past the wall-clock limit before the command is killed (the session stops itself at the limit).
_GRACE = 30.0
#: Seconds the command's processes get to end after a forwarded SIGINT/SIGTERM before they are killed.
_SIGNAL_GRACE = 10.0
#: How often the parent looks at its command while it waits, in seconds.
_POLL = 0.2


class TorchMissing(RuntimeError):
    """torch cannot be imported by this interpreter."""


class Interrupted(Exception):
    """``migrator trace`` got SIGINT or SIGTERM: forwarded to the command's processes, which have ended; the
    temporary folder is removed and no trace is written."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass(frozen=True)
class TraceRun:
    document: Dict[str, Any]
    returncode: int
    killed: bool = False


def require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise TorchMissing(INSTALL_HINT) from exc


def trace_command(command: Sequence[str], root: Path, device: str = "cpu", steps: Optional[int] = None,
                  limit: Optional[float] = 600.0, stubs: Optional[Sequence[Any]] = None,
                  env: Optional[Dict[str, str]] = None) -> TraceRun:
    """Run ``command`` (the user's own) in ``root`` under the tracer; the document of the run.

    ``stubs`` defaults to the compiled extensions a static scan of ``root`` finds, with their fallbacks.
    """
    require_torch()
    root = Path(root).resolve()
    if stubs is None:
        stubs = static_stubs(root) if device != "cuda" else ()
    bootstrap = Path(__file__).resolve().parent / "_bootstrap"
    with tempfile.TemporaryDirectory(prefix="migrator-trace-") as out:
        config = {"root": str(root), "device": device, "steps": steps, "limit": limit, "out_dir": out,
                  "stubs": [asdict(s) for s in stubs]}
        config_path = Path(out) / "config.json"
        config_path.write_text(json.dumps(config), encoding="utf-8")
        child_env = dict(os.environ if env is None else env)
        child_env[CONFIG_ENV] = str(config_path)
        child_env["MIGRATOR_TRACE_HOME"] = str(Path(__file__).resolve().parents[2])
        child_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(bootstrap), child_env.get("PYTHONPATH")) if p)
        returncode, killed = run_in_own_group(command, child_env, root, None if not limit else limit + _GRACE)
        processes = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(Path(out).glob("trace-*.json"))]
    document = merge(processes, command, str(root), device, returncode)
    if killed:
        document["stopped"] = {"reason": "killed", "detail": f"killed {_GRACE:g} s past the wall-clock limit "
                                                             "(ops of processes that ended before it are kept)"}
    return TraceRun(document, returncode, killed)


def run_in_own_group(command: Sequence[str], env: Dict[str, str], cwd: Path,
                     timeout: Optional[float]) -> Tuple[int, bool]:
    """Run ``command`` as the leader of a process group of its own; its return code, and whether it was killed
    at ``timeout``. SIGINT and SIGTERM sent to this process are forwarded to the whole group (a Ctrl-C reaches
    the command's workers too), which gets ``_SIGNAL_GRACE`` seconds before it is killed; then ``Interrupted``.
    Whatever of the group outlives its leader (a spawn worker of a crashed parent) is killed: nothing is left
    behind."""
    received: List[int] = []
    child: Optional[subprocess.Popen] = None

    def forward(signum, frame) -> None:
        received.append(signum)
        if child is not None:
            _signal_group(child.pid, signum)

    handled = (signal.SIGINT, signal.SIGTERM)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = {s: signal.signal(s, forward) for s in handled} if main_thread else {}
    try:
        child = subprocess.Popen(list(command), env=env, cwd=str(cwd), start_new_session=True)
        if received:  # a signal came before the command had a group to forward it to
            _signal_group(child.pid, received[0])
        deadline = None if timeout is None else time.monotonic() + timeout
        signalled: Optional[float] = None
        killed = False
        while True:
            try:
                returncode = child.wait(timeout=_POLL)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if received and signalled is None:
                signalled = now
            late = (deadline is not None and now >= deadline) or (signalled is not None
                                                                  and now - signalled >= _SIGNAL_GRACE)
            if late and not killed:
                killed = True
                _signal_group(child.pid, signal.SIGKILL)
        _signal_group(child.pid, signal.SIGKILL)  # what outlived the leader
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if received:
        raise Interrupted(received[0])
    return (-9 if killed else returncode), killed


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def static_stubs(root: Path):
    """The custom ops of a static scan of ``root`` (no code runs) as stub specs."""
    from ..discover import discover
    from ..engine.cache import open_cache
    from ..maps.load import resolve_targets
    from ..pipeline import ScanRequest, scan
    from .stubs import stub_specs

    found = discover(root)
    report = scan(ScanRequest(root, resolve_targets(None), files=found.files, call_graph=False, cache=open_cache()))
    return stub_specs(report.custom_ops, report.op_plans)


def python_command(argv: Sequence[str]) -> Sequence[str]:
    """``python`` / ``python3`` as the command's first word means this interpreter (the one with torch)."""
    if argv and argv[0] in ("python", "python3"):
        return [sys.executable, *argv[1:]]
    return list(argv)
