"""How much of the torch API the data cannot judge, per target and line.

    python bench/bench_unknown.py [--top 500]

Two API sets:
  paconvert  every torch API key of PaConvert's api_mapping.json (the bundled copy): what a migration tool
             is expected to know; "paconvert ops" are those of them the op rule judges (the others are
             device calls, collectives, data loading, module plumbing: other rules' findings, or none)
  corpus     the --top most used torch APIs (calls, Tensor methods, modules, optimizers the op rule judged)
             in the six bench repositories (bench_fleet.PROJECTS; sdists fetched once into bench/_downloads)
For each target release the maps hold, it prints the share whose verdict is `unknown` (or that no table
knows): of the distinct APIs, and for the corpus also of their uses; for each default target, the most used
APIs still unknown. With --before REVISION, the same measure with that revision's code and maps (a git
worktree), row by row.

    python bench/bench_unknown.py --before 4bf0a2c
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_fleet import PROJECTS  # noqa: E402
from bench_scan import fetch  # noqa: E402

PACONVERT = HERE.parent / "operator_maps" / "upstream" / "kunlun" / "api_mapping.paconvert-73e14f0a.json"


def corpus_uses(top: int) -> Counter:
    from migrator.engine.cache import open_cache
    from migrator.maps.load import resolve_targets
    from migrator.pipeline import ScanRequest, scan

    used: Counter = Counter()
    targets = resolve_targets(None)
    for name, spec in PROJECTS.items():
        report = scan(ScanRequest(fetch(name, spec), targets, cache=open_cache()))
        used.update(f.api for f in report.judged if f.rule == "torch-op")  # findings and covered uses alike
    return Counter(dict(used.most_common(top)))


def unknown(target, apis) -> list:
    from migrator.maps.coverage import api_coverage

    out = []
    for api in apis:
        found = api_coverage(target, api)
        if found is None or found.verdict.status.value == "unknown":
            out.append(api)
    return out


def shares(uses: Counter) -> dict:
    """{target label: {"default", "paconvert", "corpus", "uses", "worst"}} with the maps this checkout holds."""
    from migrator.maps.load import available_targets, load_target

    paconvert = sorted(k for k in json.loads(PACONVERT.read_text(encoding="utf-8")) if k.startswith("torch."))
    try:  # the APIs the op rule judges (others are device calls, collectives, data loading: other rules' or none)
        from migrator.rules.op.torch_op import _NOT_OPS
    except ImportError:
        _NOT_OPS = ()
    judged = [k for k in paconvert if not k.startswith(_NOT_OPS)]
    rows = {}
    for entry in available_targets():
        target = load_target(str(entry["id"]), str(entry["version"]))
        on_corpus = unknown(target, list(uses))
        rows[target.label] = {
            "default": bool(entry["default"]),
            "paconvert": [len(unknown(target, paconvert)), len(paconvert)],
            "ops": [len(unknown(target, judged)), len(judged)],
            "corpus": [len(on_corpus), len(uses)],
            "uses": [sum(uses[a] for a in on_corpus), sum(uses.values())],
            "worst": [f"{a} ({uses[a]})" for a in sorted(on_corpus, key=lambda a: -uses[a])[:8]],
        }
    return rows


def shares_at(revision: str, uses: Counter) -> dict:
    """``shares`` with the maps and code of another revision (a temporary git worktree), on the same API sets
    (this checkout's PaConvert copy and corpus counts)."""
    import subprocess
    import tempfile

    root = HERE.parent
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        corpus = Path(tmp) / "corpus.json"
        corpus.write_text(json.dumps(uses))
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            out = subprocess.run([sys.executable, str(HERE / "bench_unknown.py"), "--corpus", str(corpus), "--json"],
                                 env={**os.environ, "PYTHONPATH": str(tree)}, check=True, capture_output=True,
                                 text=True).stdout
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], check=False)
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=500)
    parser.add_argument("--before", metavar="REVISION", help="also measure the maps of this git revision")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)  # counts measured once, by --before's caller
    args = parser.parse_args()
    uses = Counter(json.loads(args.corpus.read_text())) if args.corpus else corpus_uses(args.top)
    after = shares(uses)
    if args.json:
        print(json.dumps(after))
        return
    before = shares_at(args.before, uses) if args.before else {}
    (label, first), = [(k, v) for k, v in after.items()][:1]
    print(f"paconvert: {first['paconvert'][1]} torch APIs; corpus: the {first['corpus'][1]} most used torch APIs of "
          f"{len(PROJECTS)} repositories ({first['uses'][1]:,} uses); unknown share"
          + (f", before = {args.before}" if before else ""))
    print(f"{'target':<20} {'':<7} {'paconvert':>16} {'paconvert ops':>16} {'corpus APIs':>16} {'corpus uses':>16}")
    for label, row in after.items():
        for when, data in (("before", before.get(label)), ("after" if before else "", row)):
            if data is None:
                continue
            ops = _share(*data["ops"]) if "ops" in data else "-"
            print(f"{label:<20} {when:<7} {_share(*data['paconvert']):>16} {ops:>16} {_share(*data['corpus']):>16} "
                  f"{_share(*data['uses']):>16}")
        if row["default"]:
            print(f"{'':<28}most used unknown: {', '.join(row['worst'])}")


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} {100 * part / max(whole, 1):.0f}%"


if __name__ == "__main__":
    main()
