"""The ``migrator.trace/1`` document: one per traced command, merged from its processes' documents.

Schema: ``reports/schema/trace.schema.json``. Ops are spelled as the operator maps spell them
(``aten::addmm``, ``aten::sum.dim_IntList``); paths are relative to ``root``.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .. import __version__

SCHEMA = "migrator.trace/1"
#: The op a value read back to the host dispatches (``.item()``, ``float(t)``, ``if t:``).
READ_BACK = "aten::_local_scalar_dense"


class TraceError(ValueError):
    """A trace file that cannot be read or is not ``migrator.trace/1``."""


def process_document(session, seconds: float) -> Dict[str, Any]:
    """One process's record (a ``session.Session``), in the merged document's shapes."""
    import torch

    ops = [{"op": name, "calls": s.calls, "dtypes": sorted(s.dtypes), "shape": s.shape, "phases": dict(s.phases),
            "where": dict(s.where), "apis": sorted(s.apis),
            "sites": [{"path": p, "line": line, "calls": n, "shapes": len(s.shapes.get((p, line), ())),
                       "device": s.device_sites.get((p, line), 0), "direct": dict(s.direct_sites.get((p, line), {})),
                       "phases": s.site_phases.get((p, line), {})}
                      for (p, line), n in s.sites.items()]}
           for name, s in session.recorder.ops.items()]
    redirects = [{"api": api, "became": became, **_site(site), "calls": n}
                 for (api, became, site), n in session.redirects.calls.items()]
    specs = {s["module"]: s for s in session.config.get("stubs", ())}
    extensions = [{"module": module, "function": function or None, "kind": kind, **_site(site), "calls": n,
                   "fallback": _fallback_of(specs.get(module, {})), "source": specs.get(module, {}).get("source")}
                  for (module, function, kind, site), n in session.extensions.items()]
    recorder = session.recorder
    risky = [{"dtype": dtype, **_site(site), "calls": sum(ran.values()), "ops": sorted(ran),
              "device": recorder.risky_on_device.get((dtype, site), 0)}
             for (dtype, site), ran in recorder.risky.items()]
    reads = [{"op": READ_BACK, **_site(site), "calls": n} for site, n in recorder.data_dependent.items()]
    return {"pid": os.getpid(), "worker": session.worker, "torch": torch.__version__, "stopped": session.stopped,
            "steps": session.steps, "seconds": round(seconds, 3), "ops": ops, "redirects": redirects,
            "extensions": extensions, "dtype_substitutions": dict(session.redirects.dtypes), "risky_dtypes": risky,
            "data_dependent": reads}


def _fallback_of(spec: Mapping[str, Any]) -> Optional[str]:
    """The op family whose PyTorch code stood in for an extension, when the stub had code to run."""
    return spec.get("family") if spec.get("code") else None


def _site(site) -> Dict[str, Any]:
    return {"path": site[0], "line": site[1]} if site else {"path": None, "line": None}


def merge(processes: Sequence[Mapping[str, Any]], command: Sequence[str], root: str, device: str,
          returncode: int) -> Dict[str, Any]:
    """The command's document: ops summed over its processes; ``stopped`` is the busiest process's, unless a
    process failed: then the first that did, named (a spawn worker that failed, rather than the parent that
    raised for it)."""
    main = max(processes, key=lambda p: sum(o["calls"] for o in p["ops"]), default=None)
    return {
        "schema": SCHEMA,
        "tool": {"name": "migrator", "version": __version__},
        "command": list(command), "root": root, "device": device, "returncode": returncode,
        "torch": main["torch"] if main else None,
        "stopped": _stopped(processes, main),
        "steps": main["steps"] if main else 0,
        "processes": [{"pid": p["pid"], "worker": p.get("worker"), "stopped": p["stopped"], "steps": p["steps"],
                       "seconds": p["seconds"]} for p in processes],
        "ops": _merge_ops(p["ops"] for p in processes),
        "dtype_substitutions": {ran: asked for p in processes for ran, asked in p["dtype_substitutions"].items()},
        "redirects": _merge_rows((p["redirects"] for p in processes), ("api", "became", "path", "line")),
        "extensions": _merge_rows((p["extensions"] for p in processes),
                                  ("module", "function", "kind", "path", "line", "fallback", "source")),
        "risky_dtypes": _merge_risky(p.get("risky_dtypes", ()) for p in processes),
        "data_dependent": _merge_rows((p.get("data_dependent", ()) for p in processes), ("op", "path", "line")),
    }


def _stopped(processes: Sequence[Mapping[str, Any]], main: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    if main is None:
        return {"reason": "no-trace", "detail": "no Python process of the command imported the tracer"}
    failed = [p for p in processes if p["stopped"]["reason"] == "error"]
    if not failed:
        return dict(main["stopped"])
    # a worker's own error is the cause; its parent's (``ProcessRaisedException``) only reports it
    process = min(failed, key=lambda p: (p.get("worker") is None, p.get("worker") or 0, p["pid"]))
    stopped = dict(process["stopped"])
    if process.get("worker") is not None:
        stopped["detail"] = f"spawn worker {process['worker']} (pid {process['pid']}) failed: {stopped['detail']}"
    elif len(processes) > 1:
        stopped["detail"] = f"process {process['pid']} failed: {stopped['detail']}"
    stopped["pid"] = process["pid"]
    return stopped


def _merge_ops(groups) -> List[Dict[str, Any]]:
    merged: Dict[str, Dict[str, Any]] = {}
    sites: Dict[str, Counter] = defaultdict(Counter)
    shapes: Dict[str, Counter] = defaultdict(Counter)  # the most distinct shapes one process saw at a site
    on_device: Dict[str, Counter] = defaultdict(Counter)  # calls on the device in the training step, per site
    phases: Dict[tuple, Counter] = defaultdict(Counter)  # (op, site) -> calls per phase
    direct: Dict[tuple, Counter] = defaultdict(Counter)  # (op, site) -> calls per torch function the line called
    for ops in groups:
        for op in ops:
            into = merged.setdefault(op["op"], {"op": op["op"], "calls": 0, "dtypes": [], "shape": op["shape"],
                                                "phases": {}, "where": {}, "apis": [], "sites": []})
            into["calls"] += op["calls"]
            into["apis"] = sorted(set(into["apis"]) | set(op.get("apis", ())))
            into["dtypes"] = sorted(set(into["dtypes"]) | set(op["dtypes"]))
            for phase, n in op["phases"].items():
                into["phases"][phase] = into["phases"].get(phase, 0) + n
            for where, n in op.get("where", {}).items():
                into["where"][where] = into["where"].get(where, 0) + n
            for site in op["sites"]:
                key = (site["path"], site["line"])
                sites[op["op"]][key] += site["calls"]
                on_device[op["op"]][key] += site.get("device", 0)
                for api, n in site.get("direct", {}).items():
                    direct[(op["op"], key)][api] += n
                for phase, n in site.get("phases", {}).items():
                    phases[(op["op"], key)][phase] += n
                shapes[op["op"]][key] = max(shapes[op["op"]][key], site.get("shapes", 0))
    for name, op in merged.items():
        op["sites"] = [{"path": p, "line": line, "calls": n, "shapes": shapes[name][(p, line)],
                        "device": on_device[name][(p, line)], "direct": dict(direct[(name, (p, line))]),
                        "phases": dict(phases[(name, (p, line))])}
                       for (p, line), n in sites[name].most_common()]
    return sorted(merged.values(), key=lambda o: (-o["calls"], o["op"]))


def _merge_risky(groups) -> List[Dict[str, Any]]:
    """Where float64, complex or fp8 tensors ran, per dtype and user line, with the ops that ran them."""
    calls: Counter = Counter()
    on_device: Counter = Counter()
    ops: Dict[tuple, set] = defaultdict(set)
    for rows in groups:
        for row in rows:
            key = (row["dtype"], row["path"], row["line"])
            calls[key] += row["calls"]
            on_device[key] += row.get("device", 0)
            ops[key].update(row["ops"])
    return [{"dtype": d, "path": p, "line": line, "calls": n, "ops": sorted(ops[(d, p, line)]),
             "device": on_device[(d, p, line)]} for (d, p, line), n in calls.most_common()]


def _merge_rows(groups, keys: Sequence[str]) -> List[Dict[str, Any]]:
    counts: Counter = Counter()
    for rows in groups:
        for row in rows:
            counts[tuple(row[k] for k in keys)] += row["calls"]
    return [{**dict(zip(keys, key)), "calls": n} for key, n in counts.most_common()]


def load_trace(path: Path) -> Dict[str, Any]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TraceError(f"{path}: cannot read the trace: {exc}") from exc
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise TraceError(f"{path}: not a {SCHEMA} document (migrator trace writes one)")
    return document
