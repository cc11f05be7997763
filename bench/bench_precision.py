"""How many findings a migration engineer must act on, per repository: the precision numbers of issue 24.

    python bench/bench_precision.py [PATH ...]

Scans each PATH (default: the bundled example and the pinned sdists below, downloaded once into
bench/_downloads like bench_scan.py) with `--no-cache` and prints, per repository:

    findings    every finding of the report (what is not supported on every target, and the causes of others)
    covered     usages every target runs as written (the report's `coverage`: counted in readiness, not listed;
                before 0.2 these were findings)
    training    findings in training code at their cause (context "training", no root): issue 24's "active"
    act-on      of those, the ones not supported on every target (a cause that is supported everywhere stays a
                finding for its sites' sake)
    apis        distinct APIs among the act-on findings
    kunlun?     act-on findings whose only open verdict is kunlun `unknown` (the aten-to-Paddle table's gap)
    partial     act-on findings that are cann `partial`
and each target's readiness. Other repositories of issue 24 (nanoGPT, pytorch/examples, detectron2) are
given as paths: they publish no sdist.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_scan import fetch  # noqa: E402 - the same downloads folder and pins

PROJECTS = {"timm": "timm==1.0.31", "megatron_core": "megatron-core==0.12.1"}


def measure(path: Path) -> Dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        subprocess.run([sys.executable, "-m", "migrator", "scan", str(path), "--format", "json", "--output", str(out),
                        "--no-cache"], check=True, capture_output=True)
        report = json.loads(out.read_text(encoding="utf-8"))
    findings = report["findings"]
    training = [f for f in findings if f.get("context", "training") == "training" and not f.get("root")]
    act_on = [f for f in training if any(v["status"] != "supported" for v in f["verdicts"].values())]

    def open_targets(f) -> List[str]:
        return [t for t, v in f["verdicts"].items() if v["status"] != "supported"]

    return {
        "findings": len(findings), "covered": report.get("coverage", {}).get("usages", 0),
        "training": len(training), "act-on": len(act_on),
        "apis": len({f["api"] for f in act_on}),
        "kunlun?": sum(1 for f in act_on if open_targets(f) == ["kunlun"]
                       and f["verdicts"]["kunlun"]["status"] == "unknown"),
        "partial": sum(1 for f in act_on if f["verdicts"].get("cann", {}).get("status") == "partial"),
        "readiness": " ".join(f"{t['id']}={t['readiness']}" for t in report["targets"]),
    }


def main(argv: List[str]) -> None:
    paths = [Path(p) for p in argv] or [HERE.parent / "examples",
                                        *(fetch(name, spec) for name, spec in PROJECTS.items())]
    columns = ("findings", "covered", "training", "act-on", "apis", "kunlun?", "partial")
    print(f"{'repository':<28}" + "".join(f"{c:>10}" for c in columns) + "  readiness")
    for path in paths:
        row = measure(path)
        print(f"{path.name[:27]:<28}" + "".join(f"{row[c]:>10}" for c in columns) + f"  {row['readiness']}")


if __name__ == "__main__":
    main(sys.argv[1:])
