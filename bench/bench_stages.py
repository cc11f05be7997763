"""CPU seconds per stage of a cold scan, in one process, against a bare libcst parse of the same files.

    python bench/bench_stages.py [PATH] [--repeat N]    (default: the timm sdist bench_scan.py downloads)

Runs ``migrator scan PATH --no-cache --jobs 1`` in this process with each stage, and each step of analysing a
Python file, timed by the CPU time it takes (``time.process_time``: what a shared, busy machine moves least),
then ``libcst.parse_module`` over every ``.py`` file in a fresh interpreter (the floor ``bench_scan.py`` times
on the wall clock).
Steps are timed where the flow calls them, so a nested line is part of the line above it. With --repeat, the
min / median / max of each line over N runs. Nothing is written: the report goes to /dev/null.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

#: (label, module, attribute, depth): each a function looked up where its caller calls it, timed inclusively
STAGES: List[Tuple[str, str, str, int]] = [
    ("analyse (every file)", "migrator.pipeline.flow", "analyze_all", 0),
    ("ast.parse", "migrator.analyze", "_ast_tree", 1),
    ("outline", "migrator.analyze", "outline_of", 1),
    ("step facts", "migrator.analyze", "_step", 1),
    ("outline + step facts (one ast pass)", "migrator.analyze", "ast_facts", 1),
    ("parse_python", "migrator.analyze", "parse_python", 1),
    ("parse budget (ast walk)", "migrator.sources.python", "parse_budget", 2),
    ("libcst parse (unvalidated)", "libcst", "parse_module", 2),
    ("resolve (libcst walk)", "migrator.analyze", "_resolve", 1),
    ("positions", "migrator.engine.positions._CheckedOffsetState", "resolve", 2),
    ("config references", "migrator.analyze", "python_refs", 1),
    ("index", "migrator.pipeline.flow", "indexed", 0),
    ("judge (rules)", "migrator.pipeline.flow", "judge", 0),
    ("project", "migrator.pipeline.flow", "in_project", 0),
    ("custom ops", "migrator.pipeline.flow", "custom_operators", 0),
    ("graph + reach", "migrator.pipeline.flow", "reachable", 0),
    ("tune", "migrator.pipeline.flow", "tune", 0),
    ("assess + report", "migrator.pipeline.flow", "_report", 0),
]


def _timed(spent: Dict[str, float], label: str, function: Callable) -> Callable:
    depth = [0]

    def wrapper(*args, **kwargs):
        if depth[0]:  # a recursive call is inside the outer one's time
            return function(*args, **kwargs)
        depth[0] += 1
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - start
            depth[0] -= 1

    return wrapper


def _owner(name: str):
    """A module, or a class inside one (``package.module.Class``); ``None`` when this version has neither."""
    try:
        return importlib.import_module(name)
    except ImportError:
        module, _, cls = name.rpartition(".")
        try:
            return getattr(importlib.import_module(module), cls, None)
        except ImportError:
            return None


def scan_once(root: Path) -> Dict[str, float]:
    from migrator.cli import main

    spent: Dict[str, float] = defaultdict(float)
    originals = []
    for label, where, attribute, _ in STAGES:
        owner = _owner(where)
        if owner is None or not hasattr(owner, attribute):  # a step this version does not have
            continue
        originals.append((owner, attribute, getattr(owner, attribute)))
        setattr(owner, attribute, _timed(spent, label, getattr(owner, attribute)))
    gc.collect()
    start = time.process_time()
    try:
        main(["scan", str(root), "--no-cache", "--jobs", "1", "--format", "json", "-o", os.devnull],
             standalone_mode=False)
    finally:
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)
    spent["whole scan"] = time.process_time() - start
    return spent


def floor_once(root: Path) -> float:
    """The floor's CPU seconds, in a fresh interpreter: in this one, after a scan, the collector's walks over
    what the scan left would be counted as the parser's."""
    import subprocess

    done = subprocess.run([sys.executable, __file__, str(root), "--floor"], check=True, capture_output=True,
                          text=True)
    return float(done.stdout.split()[-1])


def _floor_here(root: Path) -> float:
    import libcst

    start = time.process_time()
    for path in sorted(root.rglob("*.py")):
        try:
            libcst.parse_module(path.read_text(encoding="utf-8", errors="replace"))
        except Exception:
            pass
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, default=HERE / "_downloads" / "timm-1.0.31")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)  # the child that times the floor
    args = parser.parse_args()
    if args.floor:
        print(_floor_here(args.path))
        return
    if not args.path.is_dir():
        raise SystemExit(f"{args.path}: not a folder (python bench/bench_scan.py --only timm downloads timm)")
    files = sorted(args.path.rglob("*.py"))
    runs = []
    for _ in range(args.repeat):
        spent = scan_once(args.path)
        spent["libcst.parse_module, every .py file (floor)"] = floor_once(args.path)
        runs.append(spent)
    labels = [label for label, *_ in STAGES] + ["whole scan", "libcst.parse_module, every .py file (floor)"]
    depths = {label: depth for label, _, _, depth in STAGES}
    print(f"{args.path.name}: {len(files)} .py files, CPU seconds in one process "
          f"({'min / median / max of ' + str(args.repeat) + ' runs' if args.repeat > 1 else 'one run'})")
    for label in labels:
        values = sorted(run.get(label, 0.0) for run in runs)
        if not any(values):
            continue
        name = "  " * depths.get(label, 0) + label
        cells = f"{values[0]:7.2f} {statistics.median(values):7.2f} {values[-1]:7.2f}" if len(values) > 1 \
            else f"{values[0]:7.2f}"
        print(f"  {name:48s} {cells}")
    ratios = sorted(run["whole scan"] / run["libcst.parse_module, every .py file (floor)"] for run in runs)
    print(f"  {'whole scan / floor (CPU)':48s} {ratios[0]:7.2f} {statistics.median(ratios):7.2f} {ratios[-1]:7.2f}")


if __name__ == "__main__":
    main()
