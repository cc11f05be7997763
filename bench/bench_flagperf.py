"""How well the kunlun findings point at what Kunlunxin's own engineers change (issue 32's measure).

FlagOpen/FlagPerf keeps shared model code in ``training/benchmarks/<model>/pytorch/`` and each vendor's
adaptation in ``training/<vendor>/<model>-pytorch/``: ``extern/*.py`` functions the driver swaps in for the
shared function of the same name, and ``config/config_*.py`` values that override ``config/_base.py``. For
every PyTorch model Kunlunxin adapted, this script lists the *places* of the shared code the adaptation
replaces or reconfigures:

- an ``extern`` function whose body differs from the shared function of the same name (the place is the
  shared function), classed by what the vendor's version does (amp, fused optimizer, apex, sync, ...);
- a config key the vendor sets to another value than ``_base.py`` does, when the key is about the device
  (the collective backend, AMP/fp16, apex, fused kernels; batch sizes and learning rates are not); the place
  is the ``_base.py`` line and every line of the model's shared code or the driver that reads the key.

A place is *found* when the scan (``--target kunlun@kl2``: FlagPerf runs R300 cards, Kunlunxin's 2nd
generation) has a kunlun finding there that is not ``supported``. The script prints the recall per kind, the
places missed, and the ``rewrite``/``port`` findings in the 12 models Kunlunxin runs unchanged that sit on no
place (each contradicts what the vendor kept).

    python bench/bench_flagperf.py --flagperf DIR [--target kunlun@kl2] [--show N] [--places]

``--places`` lists every place with the findings on its lines, for the count by hand (docs/vendor-ports.md).

DIR is a FlagPerf checkout or the git directory ``fetch`` gives (``FlagOpen/FlagPerf``); its text is read,
nothing in it is run.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.model import Status  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402

#: config keys about the device, by the kind of change; other overrides (batch sizes, rates) are tuning
CONFIG_KINDS = {
    "dist_backend": "backend",
    "fp16": "amp", "amp": "amp", "bf16": "amp", "grad_scaler": "amp", "opt_level": "amp", "bypass_amp": "amp",
    "allreduce_post_accumulation_fp16": "amp",
    "ddp_type": "apex", "distributed_lamb": "apex", "disable_apex_softmax": "apex",
    "fused_mha": "fused kernel", "fused_gelu_bias": "fused kernel", "unpad_fmha": "fused kernel",
    "unpad": "fused kernel", "use_cuda_graph": "fused kernel", "fused_dropout_add": "fused kernel",
}

#: what an extern function's body does, first match wins
EXTERN_KINDS = (
    ("fused optimizer", ("torch_xmlir.optimizer", "Fused")),
    ("apex", ("apex",)),
    ("syncbn", ("SyncBatchNorm",)),
    ("sync", ("synchronize", "empty_cache")),
    ("amp", ("fp16", "half", "autocast", "GradScaler", "bfloat16", "float16", "amp")),
    ("ddp", ("DDP", "DistributedDataParallel")),
)


@dataclass(frozen=True)
class Place:
    model: str
    kind: str
    what: str  # "extern train_step" / "config dist_backend"
    lines: Tuple[Tuple[str, int, int], ...]  # (path relative to training/benchmarks, first, last)


def checkout(source: Path, into: Path) -> Path:
    """A work tree of FlagPerf's ``training`` folder: ``source`` itself, or extracted from a git directory."""
    if (source / "training").is_dir():
        return source / "training"
    archive = subprocess.run(["git", f"--git-dir={source}", "archive", "HEAD", "training"], capture_output=True,
                             check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "training"


@lru_cache(maxsize=None)
def parsed(path: Path) -> Tuple[str, Optional[ast.Module]]:
    """A file's text and tree, read once (config keys ask of the same files again); no tree for bad syntax."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return text, ast.parse(text)
    except SyntaxError:
        return text, None


def functions(path: Path) -> Iterator[Tuple[str, ast.AST]]:
    tree = parsed(path)[1]
    if tree is None:
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node


def body(node: ast.AST) -> str:
    return ast.dump(ast.Module(body=node.body, type_ignores=[]))  # type: ignore[attr-defined]


def config_values(path: Path) -> Dict[str, Tuple[object, int]]:
    """Top-level ``name = literal`` (or ``name: T = literal``) of a config file, with its line."""
    tree = parsed(path)[1] if path.is_file() else None
    values: Dict[str, Tuple[object, int]] = {}
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and value is not None:
            try:
                values[target.id] = (ast.literal_eval(value), node.lineno)
            except ValueError:
                values[target.id] = (ast.unparse(value), node.lineno)
    return values


def readers(files: Sequence[Path], key: str, base: Path) -> Iterator[Tuple[str, int, int]]:
    """Lines that read ``<something>.key`` or ``'key'`` in these files."""
    for path in files:
        tree = parsed(path)[1]
        if tree is None:
            continue
        rel = str(path.relative_to(base))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr == key) or (
                    isinstance(node, ast.Constant) and node.value == key):
                yield rel, node.lineno, node.lineno


def extern_kind(shared: str, vendor: str) -> str:
    """What the vendor's version changes: the kind whose words are in one version's lines and not the other's."""
    changed = "\n".join(set(shared.splitlines()) ^ set(vendor.splitlines()))
    return next((kind for kind, words in EXTERN_KINDS if any(w in changed for w in words)), "other")


def places(training: Path) -> Tuple[List[Place], Set[str]]:
    """Every place of the shared code Kunlunxin's adaptations change, and the models it runs unchanged."""
    benchmarks = training / "benchmarks"
    shared_dirs = {p.name.lower(): p / "pytorch" for p in benchmarks.iterdir() if (p / "pytorch").is_dir()}
    driver = sorted((benchmarks / "driver").rglob("*.py"))
    found: List[Place] = []
    unchanged: Set[str] = set()
    for vendor in sorted((training / "kunlunxin").glob("*-pytorch")):
        model = vendor.name[: -len("-pytorch")]
        shared = shared_dirs.get(model.lower())
        if shared is None:
            continue
        shared_files = sorted(shared.rglob("*.py"))
        own = {name: (path, node) for path in shared_files for name, node in functions(path)}
        externs = sorted((vendor / "extern").rglob("*.py"))
        changed = False
        for path in externs:
            source = parsed(path)[0]
            for name, node in functions(path):
                if name not in own or getattr(node, "col_offset", 0):
                    continue
                shared_path, shared_node = own[name]
                if body(shared_node) == body(node):
                    continue
                changed = True
                shared_text = ast.get_source_segment(parsed(shared_path)[0], shared_node) or ""
                place = Place(model, extern_kind(shared_text, ast.get_source_segment(source, node) or ""),
                              f"extern {name}", ((str(shared_path.relative_to(benchmarks)), shared_node.lineno,
                                                  shared_node.end_lineno or shared_node.lineno),))
                if place not in found:  # two extern files may override the same function
                    found.append(place)
        defaults = config_values(shared / "config" / "_base.py")
        overrides: Dict[str, object] = {}
        for path in sorted((vendor / "config").glob("config_*.py")):
            overrides.update({k: v for k, (v, _) in config_values(path).items()})
        for key, value in sorted(overrides.items()):
            kind = CONFIG_KINDS.get(key)
            if kind is None or key not in defaults or defaults[key][0] == value:
                continue
            lines = [(str((shared / "config" / "_base.py").relative_to(benchmarks)), defaults[key][1],
                      defaults[key][1])]
            lines += readers([f for f in shared_files if f.name != "_base.py"] + driver, key, benchmarks)
            found.append(Place(model, kind, f"config {key} = {value!r} (was {defaults[key][0]!r})", tuple(lines)))
        if not externs or not changed:
            unchanged.add(str(shared.relative_to(benchmarks)))
    return found, unchanged


def flagged(report, target: str) -> Dict[str, List[Tuple[int, int, str]]]:
    """Per file, the (first, last, status) of every kunlun finding that is not ``supported``."""
    out: Dict[str, List[Tuple[int, int, str]]] = defaultdict(list)
    for finding in report.findings:
        verdict = finding.verdicts.get(target)
        if verdict is not None and verdict.status is not Status.SUPPORTED:
            out[finding.path].append((finding.span.line, finding.span.end_line, verdict.status.value))
    return out


def hit(place: Place, flags: Dict[str, List[Tuple[int, int, str]]]) -> bool:
    return any(first <= end and line <= last for path, first, last in place.lines
               for line, end, _ in flags.get(path, ()))


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flagperf", type=Path, required=True)
    parser.add_argument("--target", default="kunlun@kl2")
    parser.add_argument("--show", type=int, default=10, help="missed places and contradictions to list")
    parser.add_argument("--places", action="store_true",
                        help="list every place with the findings on its lines that are not supported, to judge by hand")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        training = checkout(args.flagperf, Path(tmp))
        where, unchanged = places(training)
        [target] = resolve_targets([args.target])
        report = scan(ScanRequest(training / "benchmarks", [target], jobs=2))
    flags = flagged(report, target.id)
    if args.places:  # every usage judged there (the validate list's unknowns too), as the count by hand reads them
        for number, place in enumerate(where):
            print(f"#{number} {place.model} | {place.kind} | {place.what}")
            for finding in report.judged:
                verdict = finding.verdicts.get(target.id)
                if verdict is None or verdict.status is Status.SUPPORTED:
                    continue
                if any(path == finding.path and first <= finding.span.end_line and finding.span.line <= last
                       for path, first, last in place.lines):
                    print(f"    {finding.path}:{finding.span.line} {verdict.status.value}: {verdict.message[:300]}")
    total, found = Counter(), Counter()
    missed: List[Place] = []
    for place in where:
        total[place.kind] += 1
        if hit(place, flags):
            found[place.kind] += 1
        else:
            missed.append(place)
    print(f"{len(where)} places in {len({p.model for p in where})} models that Kunlunxin's FlagPerf adaptations "
          f"change; findings on {args.target} that are not supported:")
    for kind in sorted(total, key=lambda k: -total[k]):
        print(f"  {kind:16} {found[kind]:3} / {total[kind]:3}")
    print(f"  {'all':16} {sum(found.values()):3} / {sum(total.values()):3} "
          f"({100 * sum(found.values()) / max(1, sum(total.values())):.0f} %)")
    for place in missed[: args.show]:
        path, line, _ = place.lines[0]
        print(f"    missed: {place.model}: {place.what} ({path}:{line})")
    on_place = {(path, line) for place in where for path, first, last in place.lines for line in range(first, last + 1)}
    against = [(path, line, status) for path, items in sorted(flags.items())
               if any(path.startswith(prefix + "/") for prefix in unchanged)
               for line, _, status in items if status in ("rewrite", "port") and (path, line) not in on_place]
    print(f"{len(unchanged)} models run the shared code unchanged; rewrite/port findings there on no place: "
          f"{len(against)}")
    for path, line, status in against[: args.show]:
        print(f"    {status}: {path}:{line}")
    statuses = Counter(s for items in flags.values() for _, _, s in items)
    print("all findings on the shared code, not supported:", dict(sorted(statuses.items())))


if __name__ == "__main__":
    main()
