"""Trace overhead and what a trace adds to the static scan.

    python bench/bench_trace.py [--steps 6]

1. Overhead: a nanoGPT-style trainer (6 layers, d=256, batch 8x128, AdamW, bf16 autocast) written for the CPU
   is run as is and under `migrator trace` (CUDA redirection off: it already runs on the CPU); the script
   times its own steps, and the median step after the first is compared.
2. On the bundled example (a CUDA DDP+AMP trainer with a custom RMSNorm extension, traced on the CPU) and
   on the nanoGPT-style trainer: the aten ops and dtypes the trace saw that no static finding names, and
   the findings the trace added or confirmed, with their per-target verdicts and the readiness change.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from gpt_source import GPT_SOURCE  # noqa: E402

NANOGPT = "import json, sys, time\nimport torch.nn.functional as F\n" + GPT_SOURCE + '''

model = GPT(256, 6, 8, vocab=8192, ctx=128)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
times = []
for step in range(int(sys.argv[1])):
    data = torch.randint(0, 8192, (8, 129))
    start = time.perf_counter()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(data[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), data[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    times.append(time.perf_counter() - start)
    print(json.dumps({"step": step, "seconds": times[-1]}), flush=True)
'''


def step_times(output: str):
    return [json.loads(line)["seconds"] for line in output.splitlines() if line.startswith('{"step"')]


def overhead(steps: int) -> None:
    from migrator.trace.run import trace_command

    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "nanogpt.py"
        script.write_text(NANOGPT, encoding="utf-8")
        plain = step_times(subprocess.run([sys.executable, str(script), str(steps)], capture_output=True,
                                          text=True, check=True).stdout)
        log = Path(folder) / "out.txt"  # the traced script's own step times
        run = trace_command(["sh", "-c", f"{sys.executable} {script} {steps} > {log}"], Path(folder),
                            device="cuda", steps=None, limit=1200, stubs=())  # it runs on the CPU already
        traced = step_times(log.read_text())
    base, with_trace = statistics.median(plain[1:]), statistics.median(traced[1:])
    calls = sum(op["calls"] for op in run.document["ops"])
    print(f"nanoGPT-style step (median of {steps - 1} after the first): {base * 1000:.0f} ms untraced, "
          f"{with_trace * 1000:.0f} ms traced: {100 * (with_trace / base - 1):+.1f}% "
          f"({calls / steps:.0f} aten calls per step, {len(run.document['ops'])} distinct ops)")


def compare(name: str, root: Path, command, steps: int = 2) -> None:
    """What the trace of ``command`` adds to the static scan of ``root``."""
    from migrator.maps.load import resolve_targets
    from migrator.pipeline import ScanRequest, scan
    from migrator.trace.run import trace_command

    document = trace_command(command, root, steps=steps, limit=600).document
    targets = resolve_targets(None)
    static = scan(ScanRequest(root, targets, jobs=1))
    traced = scan(ScanRequest(root, targets, jobs=1, trace=(document, "trace.json")))
    named = {op for f in static.findings for op in f.ops}
    ran = {op["op"] for op in document["ops"] if op["op"].startswith("aten::")}
    print(f"{name}: the trace saw {len(ran)} aten ops; {len(ran - named)} of them no static finding names: "
          f"{', '.join(sorted(ran - named)[:12])}{' ...' if len(ran - named) > 12 else ''}")
    dtypes = sorted({d for op in document["ops"] for d in op["dtypes"]})
    print(f"{name}: dtypes that ran: {', '.join(dtypes)} (substituted: {document['dtype_substitutions']})")
    print(f"{name}: {traced.trace.confirmed} static findings confirmed, {traced.trace.runtime_only} added "
          f"(ops at run time), {traced.trace.dtype_findings} dtype findings")
    for finding in traced.findings:
        if finding.rule.startswith("traced-"):
            verdicts = ", ".join(f"{t}: {v.status.value}" for t, v in finding.verdicts.items())
            print(f"  {finding.path}:{finding.span.line} {finding.api}: {verdicts}")
    before = {t.id: t.readiness for t in static.targets}
    after = {t.id: t.readiness for t in traced.targets}
    print(f"{name} readiness static -> with trace: " + ", ".join(f"{t} {before[t]} -> {after[t]}" for t in before))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    overhead(args.steps)
    compare("example", REPO / "examples" / "llm_trainer", [sys.executable, "train.py", "--steps", "3"])
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "nanogpt.py").write_text(NANOGPT, encoding="utf-8")
        compare("nanoGPT-style trainer", Path(folder), [sys.executable, "nanogpt.py", "4"])


if __name__ == "__main__":
    main()
