"""How many of a vendor's performance changes in its own port sit on a ``tune`` finding (issue 30's measure).

Huawei's ModelZoo holds Ascend ports of public projects, each README naming the upstream commit it started from.
For each pair this script scans the upstream files at that commit and compares them with the vendor's. Every
hunk of upstream lines the vendor changed that is not a device spelling (CUDA, NCCL, AMP; those are the other
rules' business, ``bench_vendor_ports.py``), a comment, a blank line, an import or a licence header, is a
candidate performance change. Each is then:

- on a finding   one of its upstream lines carries a ``tune`` finding (the rule is counted too);
- in a function  none does, but the function it changes does (the vendor often keeps the old function under
                 another name and writes a static-shape one beside it: the change is an insertion or a renamed
                 ``def`` line, not an edit of the line the finding is on);
- missed         neither.

Insertions count here too, attributed to the function they are inserted in.

It prints the counts, the ``tune`` findings by rule, and the missed hunks to read (``--show N``).

    python bench/bench_tune_ports.py --modelzoo DIR --detectron2 DIR --fairseq DIR [--show N]

Each DIR is a git directory (``fetch``: Ascend/ModelZoo-PyTorch, facebookresearch/detectron2,
facebookresearch/fairseq). Nothing is run from the repositories; only their text is read.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_vendor_ports import DEVICE, Pair, tree  # noqa: E402

from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.model import Category  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402

PAIRS = (
    Pair("detectron2 @be792b9 / Faster_Mask_RCNN", "detectron2", "be792b959bca9af0aacfa04799537856c7a92802", "",
         "PyTorch/built-in/cv/detection/Faster_Mask_RCNN_for_PyTorch"),
    Pair("fairseq @3f6ba43 / Fairseq_Transformer_wmt18", "fairseq", "3f6ba43f07a6e9e2acf957fc24e57251a7a3f55c", "",
         "PyTorch/built-in/nlp/Fairseq_Transformer_wmt18_for_PyTorch"),
)
_NOT_CODE = re.compile(r"^\s*(#.*|import .*|from \S+ import .*|\"\"\".*|'''.*|)$")


def _code(lines: List[str]) -> bool:
    """Whether a run of lines holds code (not only comments, blank lines, imports or docstring quotes)."""
    return any(not _NOT_CODE.match(line) for line in lines)


def _functions(text: str) -> List[Tuple[int, int]]:
    """(first line, last line) of every function in a module, innermost last (empty when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return sorted(((n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), key=lambda span: span[1] - span[0])


def _enclosing(functions: List[Tuple[int, int]], line: int) -> Optional[Tuple[int, int]]:
    """The innermost function around ``line``."""
    return next((span for span in functions if span[0] <= line <= span[1]), None)


def measure(pair: Pair, upstream: Path, modelzoo: Path, show: int) -> Counter:
    before = tree(upstream, pair.commit, pair.upstream_prefix)
    after = tree(modelzoo, "HEAD", pair.vendor)
    files = sorted(rel for rel in before if rel in after and rel.endswith(".py"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel in files:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(before[rel], encoding="utf-8")
        report = scan(ScanRequest(root, resolve_targets(["cann"]), jobs=2))
    tuned: Dict[Tuple[str, int], str] = {}
    for finding in report.findings:
        if finding.category == Category.TUNE and finding.span.cell is None and finding.span.line:
            for line in range(finding.span.line, (finding.span.end_line or finding.span.line) + 1):
                tuned.setdefault((finding.path, line), finding.rule)
    counts: Counter = Counter(f"tune findings: {f.rule}" for f in report.findings if f.category == Category.TUNE)
    missed: List[str] = []
    for rel in files:
        old, new = before[rel].splitlines(), after[rel].splitlines()
        functions = _functions(before[rel])
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            changed = old[i1:i2] if tag != "insert" else []
            text = "\n".join(changed + new[j1:j2])
            if DEVICE.search(text) and "npu_" not in text or not _code(changed or new[j1:j2]) or "Copyright" in text:
                continue
            counts["vendor performance hunks"] += 1
            rules: Set[str] = {tuned[rel, n + 1] for n in range(i1, i2) if (rel, n + 1) in tuned}
            around = _enclosing(functions, i1 + 1 if tag != "insert" else max(i1, 1))
            inside = {tuned[rel, n] for n in range(around[0], around[1] + 1) if (rel, n) in tuned} if around else set()
            if rules:
                counts["on a tune finding"] += 1
                counts.update(f"on {rule}" for rule in rules)
            elif inside:
                counts["in a function with a tune finding"] += 1
                counts.update(f"in a function with {rule}" for rule in inside)
            else:
                counts["missed"] += 1
                first = (changed or new[j1:j2] or [""])[0]
                missed.append(f"    {rel}:{i1 + 1}: {first.strip()[:90]}\n      vendor: "
                              + " | ".join(v.strip() for v in new[j1:j2][:2])[:120])
    print(f"\n{pair.name}: {len(files)} file pairs")
    order = ("vendor", "on a", "in a function with a", "missed", "on ", "in a function with ", "tune")
    for key in sorted(counts, key=lambda k: (next(i for i, p in enumerate(order) if k.startswith(p)), k)):
        print(f"  {key:44s} {counts[key]}")
    for line in missed[:show]:
        print(line)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modelzoo", type=Path, required=True)
    parser.add_argument("--detectron2", type=Path, required=True)
    parser.add_argument("--fairseq", type=Path, required=True)
    parser.add_argument("--show", type=int, default=15, help="How many missed hunks to print per pair.")
    args = parser.parse_args()
    upstreams = {"detectron2": args.detectron2, "fairseq": args.fairseq}
    for pair in PAIRS:
        measure(pair, upstreams[pair.upstream], args.modelzoo, args.show)


if __name__ == "__main__":
    main()
