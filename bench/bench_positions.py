"""Positions from CPython's ``ast`` against positions from libcst's code generation, on real sources.

    python bench/bench_positions.py [PATH ...]      (default: the timm sdist bench_scan.py downloads)

For every node of every file that ``TreeSpans`` knows how to place, prints how many it placed, how many it
left to code generation, and how many disagree with the code-generation offsets (which must be 0); then
the time of the resolver's position pass both ways, over the nodes a scan really asks for.
"""

from __future__ import annotations

import ast
import collections
import sys
import time
from pathlib import Path

import libcst as cst

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from migrator.analyze import VOCABULARY, tensor_methods  # noqa: E402
from migrator.resolve import resolve_module  # noqa: E402
from migrator.lines import line_starts  # noqa: E402
from migrator.engine.positions import Positions  # noqa: E402
from migrator.engine.tree_spans import _EXPECTED, TreeSpans, field_names  # noqa: E402
from migrator.resolve.walk import Walker  # noqa: E402


def _sources(paths):
    for root in paths:
        for path in sorted(Path(root).rglob("*.py")) if Path(root).is_dir() else [Path(root)]:
            try:
                text = path.read_text(encoding="utf-8")
                yield path, text, cst.parse_module(text), ast.parse(text)
            except Exception:  # not UTF-8, or not Python 3 this interpreter reads: not a position question
                continue


def _every_node(module):
    stack = [module]
    while stack:
        node = stack.pop()
        yield node
        for name in field_names(type(node)):
            value = getattr(node, name)
            stack.extend(c for c in (value if isinstance(value, (list, tuple)) else (value,))
                         if isinstance(c, cst.CSTNode))


def agreement(sources) -> None:
    placed, left, wrong = collections.Counter(), collections.Counter(), collections.Counter()
    for path, text, module, tree in sources:
        positions = Positions(module, text)  # no tree: the whole-module code generation is the reference
        Walker(index=positions.index, skip=frozenset()).walk(module)  # every node, labels too
        parents = positions.index.parents
        nodes = [n for n in _every_node(module) if type(n) in _EXPECTED and id(n) in parents]
        pending = [(node, positions.pending(node)) for node in nodes]
        positions.resolve()
        spans = TreeSpans(tree, text, line_starts(text))
        for node, placeholder in pending:
            chain = [node]
            while parents.get(id(chain[-1])) is not None:
                chain.append(parents[id(chain[-1])])
            found = spans.offsets(chain[::-1])
            kind = type(node).__name__
            if found is None:
                left[kind] += 1
            elif found != positions._spans.get(placeholder.key):
                wrong[kind] += 1
                print(f"  DISAGREE {path}: {kind} {text[found[0]:found[1]][:60]!r}")
            else:
                placed[kind] += 1
    total = sum(placed.values()) + sum(left.values()) + sum(wrong.values())
    print(f"nodes {total}: placed from ast {sum(placed.values())}, left to code generation "
          f"{sum(left.values())}, disagreeing {sum(wrong.values())}")
    print("  left, by kind:", ", ".join(f"{k} {v}" for k, v in left.most_common(8)))


def speed(sources) -> None:
    items = [(module, tree, text) for _, text, module, tree in sources]
    for label, with_tree in (("from ast", True), ("whole-module codegen", False)):
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for module, tree, text in items:
                resolve_module(module, "m", False, tensor_methods(), VOCABULARY, source=text,
                               tree=tree if with_tree else None)
            best = min(best, time.perf_counter() - start)
        print(f"resolver, positions {label:<22} {best:6.2f} s ({len(items)} files, best of 3)")


def main() -> None:
    paths = sys.argv[1:] or [str(next(iter(sorted((HERE / "_downloads").glob("timm-*/")))))]
    sources = list(_sources(paths))
    print(f"{len(sources)} files under {', '.join(paths)}")
    agreement(sources)
    speed(sources)


if __name__ == "__main__":
    main()
