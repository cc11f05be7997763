"""Which Python APIs a torch release has, read from its wheel's sources and stubs (``ast``; nothing imported).

    python -m migrator.mapsbuild.torch_names NEWEST_WHEEL OLDER_WHEEL OUT.json API_TABLE.json

A target runs one torch line (torch_mlu r2.4 runs torch 2.4): an API added after it does not exist there. For
every API of the table (and its other spellings), this resolves the dotted name in each wheel the way Python
would: a module's definitions, a class's members (and its bases'), the names a module imports or re-exports,
and the functions ``torch/__init__.py`` copies from ``torch._C._VariableFunctions`` (its ``.pyi`` stub). An
API that resolves in the newest wheel and not in the older one is absent from the older line; one that does
not resolve in the newest either is left out (the reader cannot see it, so it says nothing of it).
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

from ..sources.outline import dotted_name
from .pysource import imported, top_level

#: modules whose every public name another module takes over at import time (``torch/__init__.py`` loops
#: over ``dir(_C._VariableFunctions)``; ``torch.nn.functional`` over its stub's names)
COPIED_INTO = {"torch": ("torch._C._VariableFunctions",), "torch.Tensor": ("torch._C.TensorBase",)}
HOPS = 12


class _Index:
    """Module -> its top-level names (definitions, imports, classes with their members and bases)."""

    def __init__(self) -> None:
        self.names: Dict[str, Dict[str, str]] = {}  # module -> name -> "def" | "import:<absolute>"
        self.stars: Dict[str, List[str]] = {}
        self.members: Dict[str, Set[str]] = {}  # class (absolute) -> member names
        self.bases: Dict[str, List[str]] = {}

    def add(self, module: str, tree: ast.Module, is_package: bool) -> None:
        names = self.names.setdefault(module, {})
        for node in top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names[node.name] = "def"
            elif isinstance(node, ast.ClassDef):
                names[node.name] = "def"
                qual = f"{module}.{node.name}"
                self.members.setdefault(qual, set()).update(_members(node))
                self.bases[qual] = [b for b in (_dotted(base) for base in node.bases) if b]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for local, target in imported(node, module, is_package):
                    if local == "*":
                        self.stars.setdefault(module, []).append(target)
                    else:
                        names[local] = f"import:{target}"
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for assigned in targets:
                    for name in ast.walk(assigned):
                        if isinstance(name, ast.Name):
                            names.setdefault(name.id, "def")

    def resolves(self, dotted: str) -> bool:
        return self._resolve(dotted.split("."), HOPS)

    def _resolve(self, parts: List[str], hops: int) -> bool:
        if hops <= 0:
            return False
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in self.names:
                return self._in_module(module, parts[cut:], hops)
        return False

    def _in_module(self, module: str, rest: List[str], hops: int) -> bool:
        if not rest:
            return True
        entry = self.names[module].get(rest[0])
        if entry is None:
            sources = [*self.stars.get(module, ()), *COPIED_INTO.get(module, ())]
            return any(self._resolve(s.split(".") + rest, hops - 1) for s in sources)
        if entry.startswith("import:"):
            return self._resolve(entry[len("import:"):].split(".") + rest[1:], hops - 1)
        return len(rest) == 1 or self._member(f"{module}.{rest[0]}", rest[1:], hops)

    def _member(self, cls: str, rest: List[str], hops: int) -> bool:
        if len(rest) != 1 or hops <= 0:
            return False
        if rest[0] in self.members.get(cls, ()):
            return True
        copied = COPIED_INTO.get(cls.replace("torch._tensor.Tensor", "torch.Tensor"), ())
        module = cls.rsplit(".", 1)[0]
        bases = [self._absolute_base(module, b) for b in self.bases.get(cls, ())]
        return any(self._member(b, rest, hops - 1) for b in [*bases, *copied] if b)

    def _absolute_base(self, module: str, base: str) -> Optional[str]:
        head, _, tail = base.partition(".")
        entry = self.names.get(module, {}).get(head)
        if entry is None:
            return f"{module}.{base}"
        if entry.startswith("import:"):
            return entry[len("import:"):] + (f".{tail}" if tail else "")
        return f"{module}.{base}"


def _members(node: ast.ClassDef) -> Set[str]:
    found = set()
    for child in top_level(node.body):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(child.name)
        elif isinstance(child, (ast.Assign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` as written (no import resolved)."""
    return dotted_name(node, lambda name: name)


def index_wheel(wheel: Path) -> _Index:
    index = _Index()
    with zipfile.ZipFile(wheel) as archive:
        for name in sorted(archive.namelist()):
            if not name.startswith("torch/") or not name.endswith((".py", ".pyi")):
                continue
            parts = name[: name.rindex(".")].split("/")
            is_package = parts[-1] == "__init__"
            module = ".".join(parts[:-1] if is_package else parts)
            try:
                tree = ast.parse(archive.read(name).decode("utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            index.add(module, tree, is_package)
    return index


def absent(newest: Path, older: Path, apis: Iterable[str]) -> List[str]:
    """The APIs that resolve in the newest wheel and not in the older one. Tensor methods are left out: a
    scan names ``x.index(...)`` a Tensor method by the type it infers for ``x``, and a method a later torch
    added (``Tensor.index``, 2.13) is just where a list or a string taken for a tensor would land."""
    new, old = index_wheel(newest), index_wheel(older)
    return sorted(api for api in set(apis)
                  if not api.startswith("torch.Tensor.") and new.resolves(api) and not old.resolves(api))


def main(argv: List[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    newest, older, out, table = Path(argv[0]), Path(argv[1]), Path(argv[2]), Path(argv[3])
    data = json.loads(table.read_text(encoding="utf-8"))
    apis = set(data["apis"]) | set(data.get("aliases", {}))
    found = absent(newest, older, apis)
    document = {"_source": {
        "wheel": older.name, "wheel_sha256": hashlib.sha256(older.read_bytes()).hexdigest(),
        "against": newest.name, "against_sha256": hashlib.sha256(newest.read_bytes()).hexdigest(),
        "extracted_by": "migrator/mapsbuild/torch_names.py (ast over torch/**/*.py and .pyi; nothing imported)",
        "license": "BSD-3-Clause"}, "absent": found}
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"{len(found)} of {len(apis)} APIs absent from {older.name} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
