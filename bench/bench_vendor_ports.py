"""How much of a vendor's own port `migrator fix` reproduces (issue 25's measure).

Huawei's ModelZoo holds Ascend ports of public projects, each README naming the upstream commit it started
from (Cambricon's pytorch_modelzoo names the upstream release; the commit is the one whose files the port's
unchanged files equal). For each pair this script takes the upstream files at that commit and the vendor's
files, and looks at every upstream line the vendor changed in a device-related way (CUDA, NCCL, AMP/apex,
NPU and MLU spellings).
Each such line is then:

- reproduced   ``migrator fix`` (safe mode) writes the vendor's line (``torch_npu.npu.x`` counts as ``torch.npu.x``,
               and in the portable style ``torch.accelerator.synchronize()`` as ``torch.npu.synchronize()``: the
               same call on the NPU, ``operator_maps/accelerator.json``);
- unsafe       only ``fix --unsafe`` writes it;
- edited       ``fix`` changes the line, to something else than the vendor wrote;
- suggested    ``fix`` leaves it, but the scan has a finding on it (worklist, validate or data gaps) that is
               not ``supported`` on cann, or that carries a suggestion;
- missed       nothing on that line.

It also prints the safe edits on lines the vendor left alone (to read: each must be harmless), and the
vendor's ``torch_npu.npu_*`` operator substitutions with whether the scan suggests one there.

    python bench/bench_vendor_ports.py --modelzoo DIR --timm DIR --fairseq DIR [--show N] [--style vendor] [--shim]
        [--hunks]
    python bench/bench_vendor_ports.py --pair NAME=UPSTREAM_GIT@COMMIT:VENDOR_GIT@COMMIT:SUBDIR [--pair ...]
        [--target cann|neuware] [--hunks] [--shim]

``--pair`` measures any other pair (repeatable; without ``--modelzoo`` only these): the upstream git directory
at its commit against the vendor's git directory at its commit (``HEAD`` for the stored one), under ``SUBDIR``
of the vendor's repository; ``--target`` is the vendor's (``neuware`` for Cambricon's ports). The pairs measured
so far (docs/vendor-ports.md), with D2, TIMM, MZ and CAMB the git directories of detectron2, timm,
Ascend/ModelZoo-PyTorch and Cambricon/pytorch_modelzoo:

    --pair detectron2=D2@be792b959bca9af0aacfa04799537856c7a92802:MZ@HEAD:$D2_PORT
    --pair timm-mlu=TIMM@878bee1d5e3bbc607424e2ef3284bbf7fd219c97:CAMB@HEAD:$TIMM_PORT --target neuware

    D2_PORT=PyTorch/built-in/cv/detection/Faster_Mask_RCNN_for_PyTorch
    TIMM_PORT=built-in/cv/classification/timm/models

``--shim`` lists the files whose vendor version imports the runtime patcher (``transfer_to_npu``,
``gpu_migration``) against the files ``fix --shim`` adds it to, and why it leaves the others.

``--hunks`` prints every vendor hunk that holds a device change, with the upstream lines, the vendor's, what
``fix`` writes there (safe mode) and the findings on them, for the count by hand per hunk that the numbers
above only approximate (a line equal to the vendor's may work only under the vendor's runtime shim; a line
written otherwise may do the same on the target).

Each DIR is a git directory (``fetch``: Ascend/ModelZoo-PyTorch, huggingface/pytorch-image-models,
facebookresearch/fairseq, facebookresearch/detectron2, Cambricon/pytorch_modelzoo). Nothing is run from the
repositories; only their text is read.
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from migrator.fix import fix_report  # noqa: E402
from migrator.fix.shim import shim_fixes  # noqa: E402
from migrator.maps.load import load_json, resolve_targets  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402

#: a device spelling (``npu`` / ``mlu`` not inside a word: ``Input`` is no NPU)
DEVICE = re.compile(r"cuda|nccl|(?<![a-z])(?:npu|mlu)(?![a-z])|hccl|cncl|apex|\bamp\b|autocast|GradScaler",
                    re.IGNORECASE)
OP_SUBSTITUTION = re.compile(r"\b(?:torch_npu|torch)\.(npu_\w+)")
#: each target's device name, as the vendor's port spells it (``torch.npu.x``, ``torch.mlu.x``)
DEVICE_NAME = {"cann": "npu", "neuware": "mlu"}


@dataclass(frozen=True)
class Pair:
    name: str
    upstream: str  # key of the upstream git directory
    commit: str
    upstream_prefix: str  # folder in the upstream repository ("" for the root)
    vendor: str  # folder in the vendor's repository
    files: Tuple[Tuple[str, str], ...] = ()  # (upstream rel, vendor rel); empty: every .py both have
    vendor_commit: str = "HEAD"


def parse_pair(spec: str) -> Tuple[Pair, Path, Path]:
    """``NAME=UPSTREAM_GIT@COMMIT:VENDOR_GIT@COMMIT:SUBDIR`` -> the pair and its two git directories."""
    name, sep, rest = spec.partition("=")
    parts = rest.split(":")
    if not sep or len(parts) != 3 or "@" not in parts[0] or "@" not in parts[1]:
        raise argparse.ArgumentTypeError(f"--pair {spec!r}: expected NAME=UPSTREAM_GIT@COMMIT:VENDOR_GIT@COMMIT:"
                                         "SUBDIR")
    upstream, commit = parts[0].rsplit("@", 1)
    vendor, vendor_commit = parts[1].rsplit("@", 1)
    return (Pair(f"{name} @{commit[:7]} / {parts[2].rstrip('/').rsplit('/', 1)[-1]}", name, commit, "",
                 parts[2].rstrip("/"), vendor_commit=vendor_commit), Path(upstream), Path(vendor))


PAIRS = (
    Pair("timm @381b279 / Gluon_ResNet50_v1b", "timm", "381b2797858248619fe8007fa1c5f5a5d4ab3919", "",
         "PyTorch/built-in/cv/classification/Gluon_ResNet50_v1b_for_PyTorch"),
    Pair("fairseq @3f6ba43 / Fairseq_Transformer_wmt18", "fairseq", "3f6ba43f07a6e9e2acf957fc24e57251a7a3f55c", "",
         "PyTorch/built-in/nlp/Fairseq_Transformer_wmt18_for_PyTorch"),
)


def tree(git_dir: Path, commit: str, prefix: str) -> Dict[str, str]:
    """The .py files under ``prefix`` at ``commit``: relative path -> text (a snapshot may lack large blobs,
    so each file is read on its own)."""
    git = ["git", "--git-dir", str(git_dir)]
    listing = subprocess.run(git + ["ls-tree", "-r", commit, "--", prefix or "."], capture_output=True, text=True,
                             check=True).stdout
    out = {}
    for row in listing.splitlines():
        meta, path = row.split("\t", 1)
        if not path.endswith(".py") or meta.split()[1] != "blob":
            continue
        blob = subprocess.run(git + ["cat-file", "blob", meta.split()[2]], capture_output=True)
        if blob.returncode == 0:
            out[path[len(prefix) + 1:] if prefix else path] = blob.stdout.decode("utf-8", "replace")
    return out


#: a portable form -> the vendor's name of the same call, ``{device}`` for the target's device name
#: (``torch.accelerator.set_device_index`` -> ``torch.npu.set_device``)
PORTABLE_AS_VENDOR = {row["portable"]: "torch.{device}." + api.rsplit(".", 1)[1]
                      for api, row in load_json("accelerator.json")["apis"].items() if row.get("portable")}


def normal(line: str, device: str = "npu") -> str:
    for portable, vendor in PORTABLE_AS_VENDOR.items():
        line = re.sub(re.escape(portable) + r"\b", vendor.format(device=device), line)
    line = line.replace(f"torch_{device}.{device}.", f"torch.{device}.").replace('"', "'")
    return re.sub(r"\s+", "", line.split("#")[0])


def line_map(old: Sequence[str], new: Sequence[str]) -> Dict[int, str]:
    """old line index -> its new text, for lines ``fix`` replaced one for one."""
    changed = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            changed.update({i1 + k: new[j1 + k] for k in range(i2 - i1)})
    return changed


def measure(pair: Pair, upstream: Path, modelzoo: Path, show: int, verbose: bool = False,
            style: str = "portable", hunks: bool = False, target_id: str = "cann", shim: bool = False) -> Counter:
    device = DEVICE_NAME.get(target_id, target_id)
    before = tree(upstream, pair.commit, pair.upstream_prefix)
    after = tree(modelzoo, pair.vendor_commit, pair.vendor)
    files = pair.files or tuple((rel, rel) for rel in sorted(before) if rel in after)
    counts: Counter = Counter()
    extra: List[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for up, _ in files:
            (root / up).parent.mkdir(parents=True, exist_ok=True)
            (root / up).write_text(before[up], encoding="utf-8")
        target = resolve_targets([target_id])
        report = scan(ScanRequest(root, target, jobs=2))
        fixed = {mode: {f.path: f.new for f in fix_report(root, report, target[0], unsafe=mode, style=style).changed}
                 for mode in (False, True)}
        if shim:
            _print_shim(root, target, {up: after[vendor] for up, vendor in files})
    # a line the scan says something actionable about: not supported on the target, or with a suggestion (the
    # vendor's path beside an optional import's fallback), on the worklist or in the lists kept apart from it
    # (a tune finding, evidence to validate)
    flagged = {(f.path, f.span.line) for f in report.judged if f.verdicts.get(target_id) is not None
               and (f.verdicts[target_id].status.value != "supported" or f.verdicts[target_id].suggestion)}
    said: Dict[Tuple[str, int], List[str]] = {}
    for f in report.judged:
        verdict = f.verdicts.get(target_id)
        if verdict is not None and f.span.line is not None:
            said.setdefault((f.path, f.span.line), []).append(
                f"{f.rule} {f.api}: {verdict.status.value}"
                + (f" -> {verdict.suggestion.replace(chr(10), ' | ')[:90]}" if verdict.suggestion else ""))
    for up, vendor_rel in files:
        old = before[up].splitlines()
        vendor = after[vendor_rel].splitlines()
        safe = line_map(old, (fixed[False].get(up) or before[up]).splitlines())
        unsafe = line_map(old, (fixed[True].get(up) or before[up]).splitlines())
        vendor_changed = set()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, vendor, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            wanted = {normal(v, device) for v in vendor[j1:j2]}
            for op in OP_SUBSTITUTION.findall("\n".join(vendor[j1:j2])):
                near = any((up, n + 1) in flagged for n in range(max(i1 - 2, 0), i2 + 2))
                counts[f"op substitution {'near a finding' if near else 'with nothing there'}"] += 1
                counts[f"op: {op}"] += 1
            if hunks and any(DEVICE.search(line) for line in (*old[i1:i2], *vendor[j1:j2])):
                _print_hunk(up, old, vendor, (i1, i2, j1, j2), safe, said)
            for index in range(i1, i2):
                vendor_changed.add(index)
                if not DEVICE.search(old[index] + "\n" + "\n".join(vendor[j1:j2])):
                    continue
                counts["vendor device changes"] += 1
                if index in safe and normal(safe[index], device) in wanted:
                    kind = "reproduced"
                elif index in unsafe and normal(unsafe[index], device) in wanted:
                    kind = "unsafe"
                elif index in safe:
                    kind = "edited"
                elif (up, index + 1) in flagged:
                    kind = "suggested"
                else:
                    kind = "missed"
                counts[kind] += 1
                if verbose and kind != "reproduced":
                    print(f"  [{kind}] {up}:{index + 1}: {old[index].strip()}\n      vendor: "
                          + " | ".join(v.strip() for v in vendor[j1:j2][:3])
                          + (f"\n      fix:    {safe.get(index, unsafe.get(index, '')).strip()}"
                             if index in safe or index in unsafe else ""))
        for index, text in safe.items():
            if index not in vendor_changed:
                counts["safe edits the vendor did not make"] += 1
                extra.append(f"    {up}:{index + 1}: {old[index].strip()}  ->  {text.strip()}")
    print(f"\n{pair.name}: {len(files)} file pairs")
    for key in ("vendor device changes", "reproduced", "unsafe", "edited", "suggested", "missed",
                "safe edits the vendor did not make"):
        print(f"  {key:38s} {counts[key]}")
    substitutions = sorted(k for k in counts if k.startswith("op substitution"))
    for key in substitutions:
        print(f"  {key:38s} {counts[key]}")
    ops = sorted((k[4:], n) for k, n in counts.items() if k.startswith("op: "))
    if ops:
        print("  ops the vendor substituted: " + ", ".join(f"{op} x{n}" for op, n in ops))
    for line in extra[:show]:
        print(line)
    return counts


#: the vendors' runtime patchers, as their ports import them
PATCHERS = re.compile(r"transfer_to_npu|gpu_migration")


def _print_shim(root: Path, target: Sequence[object], vendor: Dict[str, str]) -> None:
    """The files whose vendor version imports the runtime patcher, against the files ``fix --shim`` adds it to
    (and why it leaves the others: its ``error``)."""
    report = scan(ScanRequest(root, target, jobs=2, call_graph=True))
    shimmed = {f.path: f for f in shim_fixes(root, report, target[0]).files}  # type: ignore[arg-type]
    wanted = sorted(rel for rel, text in vendor.items() if PATCHERS.search(text))
    added = sorted(rel for rel, f in shimmed.items() if f.new is not None)
    print(f"\n  fix --shim: the vendor imports its patcher in {len(wanted)} shared files, fix --shim adds it to "
          f"{len(added)} ({len(set(wanted) & set(added))} of the vendor's)")
    for rel in wanted:
        item = shimmed.get(rel)
        state = "added" if item is not None and item.new is not None else \
            f"left: {item.error}" if item is not None and item.error else "left: not an entry point"
        print(f"    vendor {rel}: {state}")
    for rel in added:
        if rel not in wanted:
            print(f"    only fix {rel}")


def _print_hunk(path: str, old: Sequence[str], vendor: Sequence[str], spans: Tuple[int, int, int, int],
                safe: Dict[int, str], said: Dict[Tuple[str, int], List[str]]) -> None:
    i1, i2, j1, j2 = spans
    print(f"\n## {path}:{i1 + 1}-{max(i2, i1 + 1)}")
    for index in range(max(i1 - 1, 0), min(i2 + 1, len(old))):
        mark = "-" if i1 <= index < i2 else " "
        print(f"  {mark} {index + 1:5d} {old[index].rstrip()}")
        if index in safe:
            print(f"    fix:  {safe[index].strip()}")
        for note in said.get((path, index + 1), ()):
            print(f"    scan: {note}")
    for line in vendor[j1:j2][:12]:
        print(f"  + vendor {line.rstrip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modelzoo", type=Path, help="Ascend/ModelZoo-PyTorch: measure the default pairs (with "
                        "--timm and --fairseq).")
    parser.add_argument("--timm", type=Path)
    parser.add_argument("--fairseq", type=Path)
    parser.add_argument("--pair", type=parse_pair, action="append", default=[],
                        metavar="NAME=UPSTREAM_GIT@COMMIT:VENDOR_GIT@COMMIT:SUBDIR", help="Another pair to measure.")
    parser.add_argument("--target", default="cann", help="The vendor's target (neuware for Cambricon's ports).")
    parser.add_argument("--show", type=int, default=20, help="How many extra safe edits to print per pair.")
    parser.add_argument("--verbose", action="store_true", help="Print every vendor change not reproduced.")
    parser.add_argument("--style", choices=("portable", "vendor"), default="portable", help="fix's rewrite style.")
    parser.add_argument("--shim", action="store_true", help="Also list the files whose vendor version imports the "
                        "runtime patcher, against the files `fix --shim` adds it to.")
    parser.add_argument("--hunks", action="store_true", help="Print each vendor hunk with a device change, to count "
                        "by hand.")
    args = parser.parse_args()
    if args.modelzoo is None and not args.pair:
        parser.error("give --modelzoo with --timm and --fairseq, or --pair")
    if args.modelzoo is not None and (args.timm is None or args.fairseq is None):
        parser.error("--modelzoo needs --timm and --fairseq")
    runs = [(pair, {"timm": args.timm, "fairseq": args.fairseq}[pair.upstream], args.modelzoo)
            for pair in (PAIRS if args.modelzoo is not None else ())] + args.pair
    for pair, upstream, vendor in runs:
        measure(pair, upstream, vendor, args.show, args.verbose, args.style, args.hunks, args.target, args.shim)


if __name__ == "__main__":
    main()
