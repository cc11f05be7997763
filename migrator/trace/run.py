"""The parent of a traced command: prepare the stubs from a static scan, run the command with the
bootstrap on ``PYTHONPATH``, enforce the hard time limit, merge the processes' documents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from .document import merge
from .session import CONFIG_ENV

INSTALL_HINT = "migrator trace needs torch: pip install torch==2.13.0 (the CPU build is enough)"
DEVICES = ("cpu", "meta", "cuda")
#: Seconds past the wall-clock limit before the command is killed (the session stops itself at the limit).
_GRACE = 30.0


class TorchMissing(RuntimeError):
    """torch cannot be imported by this interpreter."""


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
        killed = False
        try:
            returncode = subprocess.run(list(command), env=child_env, cwd=str(root),
                                        timeout=None if not limit else limit + _GRACE).returncode
        except subprocess.TimeoutExpired:
            killed, returncode = True, -9
        processes = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(Path(out).glob("trace-*.json"))]
    document = merge(processes, command, str(root), device, returncode)
    if killed:
        document["stopped"] = {"reason": "killed", "detail": f"killed {_GRACE:g} s past the wall-clock limit "
                                                             "(ops of processes that ended before it are kept)"}
    return TraceRun(document, returncode, killed)


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
