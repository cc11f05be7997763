"""``migrator scan --trace``: a traced run joined to the static findings.

Only the device's work on the training step is evidence: an op call whose tensors lived on the device, in the
forward, backward or optimizer phase (the trace's per-site ``device`` counts). What ran on the host (a
DataLoader's sampling and collation, a CPU-only script, an optimizer's CPU step counters, dropout on a CPU
tensor) is host work: counted in the summary (``host_ops``, ``host_calls``), never a finding. (A trace
written before the counts existed has every call counted as the device's, as it was read then.)

- A static finding becomes ``confidence: traced`` (and reachable) when the run shows it: one of its own aten
  ops ran on the device at its line, or the run redirected a CUDA use there (``.cuda()``, ``device="cuda"``,
  ``nccl``: the redirect log is the evidence for a rewrite), or, for a finding that names no op, its line ran
  at all. A finding on a line that ran without its ops on the device is reachable, not confirmed.
- An aten op that ran on the device at a line where no static finding names it (dispatch through ``getattr``,
  registries, ``torch.compile``, or a fused kernel the API's traced table did not show, like the flash
  attention ``F.scaled_dot_product_attention`` picks) becomes a ``traced-op`` finding when a target's data
  judges it less than supported; when every target's data runs it or cannot say, it is still a ``traced-op``
  use (counted as running, or a data gap) where a line called it itself (the trace's per-site ``direct``: not
  a module, library, stub or the autograd engine beneath the line) through an API no static finding there
  calls, and no static finding anywhere names it (``act = getattr(torch, "cumsum")``): an op the scan saw
  elsewhere is counted there already.
- float64, complex and fp8 tensors that really ran on the device become ``traced-dtype`` findings.

The trace says that an op runs on the training step, and how often; it never says whether a target runs it.
Each target's verdict on a traced op is that target's own data, with its own evidence (``evidence.py``):
Kunlun's substitute lists stay something to validate, whatever the run showed.

Ops the CPU dispatches in place of a device kernel (``*_for_cpu``) are judged as the device op they stand
for, and a CPU-only kernel (oneDNN's ``mkldnn_rnn_layer`` under ``nn.LSTM``) by the composite it ran for: a
target that registers an overload of it (``aten::lstm.input``) runs its own kernel there. Collectives
(``c10d::``) and profiler records are left to the static rules.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import replace
from typing import AbstractSet, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from ..maps.coverage import op_verdict
from ..maps.load import TargetMap
from ..model import Category, Confidence, Finding, Span, Status, StepMeasure, TraceSummary, Verdict
from ..rules import fingerprint
from ..rules.base import documented_verdict

Line = Tuple[str, int]

#: Torch functions that run the autograd engine: not the composite an op came from.
_AUTOGRAD_ENTRIES = frozenset({"backward", "grad", "step"})

#: dtype that ran -> (the API the vendor lists judge it by, why it matters).
_RISKY_DTYPES = {
    "float64": ("torch.float64", "float64 tensors ran in the traced step; few device kernels take them"),
    "complex64": ("torch.complex64", "complex tensors ran in the traced step; device kernels for them are few"),
    "complex128": ("torch.complex128", "complex128 tensors ran in the traced step; device kernels for them are few"),
    "float8_e4m3fn": ("torch.float8_e4m3fn", "fp8 tensors ran in the traced step; they need fp8 hardware"),
    "float8_e5m2": ("torch.float8_e5m2", "fp8 tensors ran in the traced step; they need fp8 hardware"),
}


def device_op(op: str) -> str:
    """The op a device dispatches where the CPU ran ``op`` (``_scaled_dot_product_flash_attention_for_cpu``)."""
    return op.replace("_for_cpu", "")


def join_trace(findings: Sequence[Finding], trace: Mapping[str, Any], scan_root: str,
               targets: Sequence[TargetMap], trace_path: str = "") -> Tuple[List[Finding], TraceSummary]:
    """The findings with the trace folded in, and what it changed."""
    locate = _locator(trace, scan_root)
    ran_at = _ops_by_line(trace, locate)
    by_line = _ops_by_line(trace, locate, on_device=True)
    redirected = _redirected_lines(trace, locate)
    substituted = trace.get("dtype_substitutions", {})
    joined, confirmed, by_redirect = [], 0, 0
    named_at: Dict[Line, Set[str]] = defaultdict(set)
    called_at: Dict[Line, Set[str]] = defaultdict(set)  # the names of the APIs the static findings there call
    for finding in findings:
        line = (finding.path, finding.span.line or 0)
        if not finding.path.endswith((".py", ".ipynb")):
            joined.append(finding)
            continue
        named_at[line].update(finding.ops)
        called_at[line].add(finding.api.rsplit(".", 1)[-1])
        on_device, ran = by_line.get(line, {}), ran_at.get(line, {})
        own = any(op in on_device for op in finding.ops) or any(device_op(op) in finding.ops for op in on_device)
        if own or line in redirected or (ran and not finding.ops):
            finding = replace(finding, confidence=Confidence.TRACED, reachable=True)
            confirmed += 1
            by_redirect += line in redirected and not own
        elif ran:
            finding = replace(finding, reachable=True)  # the run went through the line, not through its ops
        joined.append(finding)
    apis = {op["op"]: tuple(a for a in op.get("apis", ()) if a not in _AUTOGRAD_ENTRIES) for op in trace.get("ops", ())}
    for op in list(apis):  # a backward op is reached the way its forward op is
        forward = op[:-len("_backward")] if op.endswith("_backward") else None
        if forward in apis and not apis[op]:
            apis[op] = apis[forward]
    runtime_only = _runtime_only(by_line, named_at, targets, apis, _unseen_calls(trace, locate, called_at))
    dtypes = _dtype_findings(trace, locate, targets, substituted)
    host = _host_work(trace, locate)
    summary = TraceSummary(
        path=trace_path, command=tuple(trace.get("command", ())), device=str(trace.get("device")),
        stopped=str(trace.get("stopped", {}).get("detail", "")), steps=int(trace.get("steps", 0)),
        ops=len(trace.get("ops", ())), calls=sum(o["calls"] for o in trace.get("ops", ())), confirmed=confirmed,
        confirmed_by_redirects=by_redirect, runtime_only=len(runtime_only), dtype_findings=len(dtypes),
        not_redirected=tuple(sorted({_extension_text(e) for e in trace.get("extensions", ())})),
        host_ops=tuple(sorted(host)), host_calls=sum(host.values()),
        device_calls=sum(n for ops in by_line.values() for n in ops.values()))
    return joined + runtime_only + dtypes, summary


Locate = Callable[[Optional[str], Optional[int]], Optional[Line]]


def _locator(trace: Mapping[str, Any], scan_root: str) -> Locate:
    """A recorded (path relative to the trace's root, line) as a line of the scan, or None when it lies outside
    the scanned folder; one realpath per recorded file, not per site."""
    trace_root = str(trace.get("root", ""))
    base = scan_root if os.path.isdir(scan_root) else os.path.dirname(scan_root)
    relative: Dict[str, Optional[str]] = {}

    def locate(path: Optional[str], line: Optional[int]) -> Optional[Line]:
        if not path:
            return None
        if path not in relative:
            relative[path] = _relative(os.path.join(trace_root, path), base)
        rel = relative[path]
        return (rel, int(line or 0)) if rel is not None else None
    return locate


def _sites(trace: Mapping[str, Any], locate: Locate,
           on_device: bool = False) -> Iterator[Tuple[Mapping[str, Any], Line, int]]:
    """(op, (scan-relative path, line), calls) for every recorded site under the scanned root; ``on_device``:
    only the calls on the device in the training step, the evidence (``device_calls``)."""
    for op in trace.get("ops", ()):
        for site in op["sites"]:
            line = locate(site["path"], site["line"])
            calls = device_calls(site) if on_device else site["calls"]
            if line is not None and calls:
                yield op, line, calls


def device_calls(row: Mapping[str, Any]) -> int:
    """A site's (or a risky dtype row's) calls on the device in the training step; every call, in a trace written
    before they were counted apart."""
    return int(row.get("device", row["calls"]))


def _unseen_calls(trace: Mapping[str, Any], locate: Locate, called_at: Mapping[Line, Set[str]]) -> Dict[str, Set[Line]]:
    """aten op -> the lines that called it themselves on the device in the training step through a torch function
    no static finding there calls (``getattr(torch, "cumsum")(x)``): not where a module, a library, a stub or the
    autograd engine ran it beneath the line, not a cast autocast added under a call the scan judged
    (``F.cross_entropy``), not an operator written as syntax (``x[:, 1:]``). None in a trace without ``direct``."""
    lines: Dict[str, Set[Line]] = defaultdict(set)
    for op in trace.get("ops", ()):
        for site in op["sites"]:
            line = locate(site["path"], site["line"])
            if line is None or not device_calls(site):
                continue
            unseen = {api for api in site.get("direct", {}) if not api.startswith("__")} - called_at.get(line, set())
            if unseen:
                lines[op["op"]].add(line)
    return lines


def _host_work(trace: Mapping[str, Any], locate: Locate) -> Dict[str, int]:
    """aten op -> its calls under the scanned root that were not the device's on the training step."""
    host: Dict[str, int] = defaultdict(int)
    for op in trace.get("ops", ()):
        for site in op["sites"]:
            if locate(site["path"], site["line"]) is not None and site["calls"] > device_calls(site):
                host[op["op"]] += site["calls"] - device_calls(site)
    return dict(host)


def _redirected_lines(trace: Mapping[str, Any], locate: Locate) -> Set[Line]:
    """(scan-relative path, line) of every CUDA use the run redirected under the scanned root."""
    return {line for row in trace.get("redirects", ())
            if (line := locate(row.get("path"), row.get("line"))) is not None}


def _ops_by_line(trace: Mapping[str, Any], locate: Locate, on_device: bool = False) -> Dict[Line, Dict[str, int]]:
    """(scan-relative path, line) -> {aten op: calls}, for the sites that lie under the scanned root (``on_device``:
    the device's calls on the training step alone)."""
    lines: Dict[Line, Dict[str, int]] = defaultdict(dict)
    for op, line, calls in _sites(trace, locate, on_device):
        if op["op"].startswith("aten::"):
            lines[line][op["op"]] = calls
    return lines


def _relative(path: str, base: str) -> Optional[str]:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(base))
    return None if rel.startswith("..") else rel.replace(os.sep, "/")


def _runtime_only(by_line: Mapping[Line, Mapping[str, int]], named_at: Mapping[Line, Set[str]],
                  targets: Sequence[TargetMap], apis: Mapping[str, Tuple[str, ...]],
                  called: Mapping[str, AbstractSet[Line]]) -> List[Finding]:
    """One finding per op no static finding names at its lines, at its busiest line: when some target does not
    fully run it, or, when none says it does not, if a line called it itself through an API the scan did not see
    there (``_unseen_calls``) and no static finding names it anywhere (a counted use), at the busiest such line."""
    named_anywhere = {op for ops in named_at.values() for op in ops}
    unnamed: Dict[str, List[Tuple[int, Line]]] = defaultdict(list)
    for line, ops in by_line.items():
        for op, calls in ops.items():
            if device_op(op) not in named_at.get(line, ()) and op not in named_at.get(line, ()):
                unnamed[op].append((calls, line))
    found = []
    for op, sites in sorted(unnamed.items()):
        judged = device_op(op)
        verdicts = {t.id: _verdict(t, judged, apis.get(op, ()), stand_in=_cpu_only(op)) for t in targets}
        if all(v.status in (Status.SUPPORTED, Status.UNKNOWN) for v in verdicts.values()) and (
                judged in named_anywhere or op in named_anywhere or not called.get(op)):
            continue  # runs everywhere the data can judge, and is counted where the scan named it or its caller
        by_caller = [s for s in sites if s[1] in called.get(op, ())] or sites  # where the code called it, if it did
        calls, (path, busiest) = max(by_caller, key=lambda s: (s[0], s[1]))
        note = f" (the CPU ran it as {op})" if judged != op else ""
        verdicts = {t: replace(v, message=f"dispatched at run time ({sum(c for c, _ in sites)} calls at "
                                          f"{len(sites)} line(s){note}) where the static scan did not expect it: "
                                          f"{v.message}") for t, v in verdicts.items()}
        found.append(_finding("traced-op", Category.OP, path, busiest, judged, f"{judged} (traced)", verdicts,
                              (judged,)))
    return found


def _verdict(target: TargetMap, op: str, apis: Sequence[str], stand_in: bool = False) -> Verdict:
    """The op's verdict, unless the target registers the composite every call of it came from: then the
    vendor's kernel for that composite runs and the op beneath it is never reached there.

    ``stand_in``: the CPU ran its own variant of ``op`` (``*_for_cpu``), a choice a composite above it made
    for the CPU; without a kernel for ``op`` the target's composite may choose another path, which the
    trace cannot show, so a would-be ``fallback`` reads ``unknown``.
    """
    # the composites are recorded by name (``lstm``): the device runs one of their overloads (``lstm.input``)
    registered = [_registered_overloads(target, api) for api in apis if f"aten::{api}" != op]
    if registered and all(registered):
        names = ", ".join(o for found in registered for o in found)
        return Verdict(Status.SUPPORTED, f"{target.id} registers {names} itself: the call runs the vendor's kernel "
                       f"and never reaches {op}", op_verdict(target, registered[0][0]).source)
    verdict = op_verdict(target, op)
    if stand_in and verdict.status == Status.FALLBACK:
        return Verdict(Status.UNKNOWN, f"{verdict.message}; but the CPU ran its own variant of it, and which op "
                       f"{target.id} dispatches in its place is not in the trace", verdict.source,
                       quotes=verdict.quotes)
    return verdict


def _registered_overloads(target: TargetMap, api: str) -> Tuple[str, ...]:
    """The overloads of composite ``api`` (``aten::lstm``, ``aten::lstm.input``, ...) the target registers."""
    ops = target.op_map()["ops"]
    return tuple(sorted(o for o, reason in ops.items()
                        if (o == f"aten::{api}" or o.startswith(f"aten::{api}.")) and reason == "registered"))


def _cpu_only(op: str) -> bool:
    """A kernel only the CPU has (``*_for_cpu``, oneDNN's ``mkldnn_*``): a device dispatches another op there."""
    name = op.split("::", 1)[-1]
    return device_op(op) != op or name.startswith(("mkldnn_", "_mkldnn"))


def _dtype_findings(trace: Mapping[str, Any], locate: Locate, targets: Sequence[TargetMap],
                    substituted: Mapping[str, str]) -> List[Finding]:
    sites: Dict[str, Dict[Line, int]] = defaultdict(lambda: defaultdict(int))
    if "risky_dtypes" in trace:  # where each dtype ran, per line (torch's own transient float64 left out)
        for row in trace["risky_dtypes"]:
            dtype = substituted.get(row["dtype"], row["dtype"])
            line = locate(row.get("path"), row.get("line"))
            if dtype in _RISKY_DTYPES and line is not None and device_calls(row):
                sites[dtype][line] += device_calls(row)
    else:  # a trace written before: dtypes per op, pinned to the op's lines
        for op, line, calls in _sites(trace, locate):
            for dtype in op["dtypes"]:
                dtype = substituted.get(dtype, dtype)  # what the script asked for (float16 ran as bfloat16)
                if dtype in _RISKY_DTYPES:
                    sites[dtype][line] += calls
    found = []
    for dtype, lines in sorted(sites.items()):
        api, why = _RISKY_DTYPES[dtype]
        (path, busiest), _ = max(lines.items(), key=lambda item: item[1])
        verdicts = {t.id: documented_verdict(t, api, why) for t in targets}
        found.append(_finding("traced-dtype", Category.DTYPE, path, busiest, api, f"{dtype} tensors (traced)",
                              verdicts, ()))
    return found


def _finding(rule: str, category: Category, path: str, line: int, api: str, snippet: str,
             verdicts: Mapping[str, Verdict], ops: Tuple[str, ...]) -> Finding:
    return Finding(id=fingerprint(rule, path, api, snippet, 0), rule=rule, category=category, path=path,
                   span=Span(line), api=api, snippet=snippet, confidence=Confidence.TRACED, verdicts=dict(verdicts),
                   ops=ops, reachable=True)


def _extension_text(row: Mapping[str, Any]) -> str:
    stood_in = f"the {row['fallback']} PyTorch fallback ({row['source']})" if row.get("fallback") else "nothing"
    return f"{row['module']}: compiled CUDA extension, not run; {stood_in} ran in its place"


#: Ops whose result the host reads: a scalar read back, or an output whose size only the device knows. (A copy,
#: ``aten::_to_copy``, is left out: a traced run on the CPU cannot tell ``.cpu()`` from ``.float()``.)
_HOST_READS = frozenset({"aten::_local_scalar_dense", "aten::nonzero", "aten::masked_select",
                         "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive",
                         "aten::repeat_interleave.Tensor", "aten::argwhere"})
#: Lines of a finding's span read for its ops (a parameter loop's body, a multi-line call), at most.
_SPAN_LINES = 64


def measure_step(findings: Sequence[Finding], trace: Mapping[str, Any], scan_root: str) -> List[Finding]:
    """``tune`` findings with what the traced run showed on their lines (``StepMeasure``): the ones the run
    went through on the device are confirmed (``Confidence.TRACED``). Host work measures nothing: a CPU-only
    script's ``.item()`` stalls no device."""
    locate = _locator(trace, scan_root)
    calls: Dict[Line, Dict[str, int]] = defaultdict(dict)
    shapes: Dict[Line, int] = defaultdict(int)
    for op, line, n in _sites(trace, locate, on_device=True):
        calls[line][op["op"]] = calls[line].get(op["op"], 0) + n
    for op in trace.get("ops", ()):
        for site in op["sites"]:
            at = locate(site["path"], site["line"])
            if at is not None and at in calls:
                shapes[at] = max(shapes[at], int(site.get("shapes", 0)))
    steps = max(int(trace.get("steps", 0) or 0), 1)
    measured = []
    for finding in findings:
        first = finding.span.line or 0
        last = min(finding.span.end_line or first, first + _SPAN_LINES)
        lines = [(finding.path, n) for n in range(first, last + 1)] if finding.span.cell is None else []
        ran = {op: n for line in lines for op, n in calls.get(line, {}).items()}
        if not ran:
            measured.append(finding)
            continue
        measure = StepMeasure(calls_per_step=round(sum(ran.values()) / steps, 2),
                              shapes=max(shapes.get(line, 0) for line in lines),
                              host_transfers=sum(n for op, n in ran.items() if op in _HOST_READS))
        measured.append(replace(finding, measured=measure, confidence=Confidence.TRACED, reachable=True))
    return measured
