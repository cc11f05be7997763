"""What ``torch_npu.contrib.transfer_to_npu`` patches, read from its source with ``ast`` (never imported).

    python -m migrator.mapsbuild.vendors.transfer_tables WHEEL OUT.json

The cann device map of a torch_npu line is built from these tables (``cann.device_table``): the white lists at
module level (the functions whose device arguments it rewrites), the string replacements it applies to them
(``'cuda' -> 'npu'``, ``'nccl' -> 'hccl'``), the modules ``_patch_*`` swaps (``torch.cuda`` ->
``torch_npu.npu``), the ``target = value`` statements of ``_init`` (``torch.Tensor.cuda = torch.Tensor.npu``)
and its ``_device_wrapper(object, names)`` calls. Statements inside a nested block (an ``if``, a nested
function) come after those of the block around it, in source order.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
import zipfile
from collections import deque
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ...sources.outline import dotted_name

MEMBER = "torch_npu/contrib/transfer_to_npu.py"
NOTE = ("Data extracted mechanically (Python ast, no execution) from the source file above; lists/mappings only. "
        "Entries in attribute_assignments_in_init are 'target = value' statements executed on "
        "'import torch_npu.contrib.transfer_to_npu'.")


def _dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` as written (no import resolved)."""
    return dotted_name(node, lambda name: name)


def _strings(node: ast.AST) -> Optional[List[str]]:
    if isinstance(node, ast.List) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                          for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _statements(body: List[ast.stmt]) -> List[ast.stmt]:
    """A function's statements, the nested blocks' after the block around them (breadth first)."""
    out: List[ast.stmt] = []
    queue = deque([body])
    while queue:
        block = queue.popleft()
        for stmt in block:
            out.append(stmt)
            if isinstance(stmt, ast.If):
                queue.extend([stmt.body, stmt.orelse])
            elif isinstance(stmt, (ast.FunctionDef, ast.With, ast.Try)):
                queue.append(stmt.body)
    return out


def extract(text: str) -> Dict[str, Any]:
    tree = ast.parse(text)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    lists = {t.id: values for n in tree.body if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name) and (values := _strings(n.value)) is not None}
    replacements: List[Tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace" \
                and len(node.args) == 2 and all(isinstance(a, ast.Constant) for a in node.args):
            pair = (str(node.args[0].value), str(node.args[1].value))  # type: ignore[attr-defined]
            if pair not in replacements:
                replacements.append(pair)
    patches: Dict[str, List[Dict[str, str]]] = {}
    for name, function in functions.items():
        if not name.startswith("_patch_"):
            continue
        for stmt in function.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.List):
                rows: List[Any] = [row.elts for row in stmt.value.elts if isinstance(row, ast.List)
                                   and len(row.elts) == 2 and isinstance(row.elts[0], ast.Constant)]
                if rows:
                    patches[name] = [{"torch_attr": f"torch.{a.value}", "replaced_by": _dotted(b) or ast.unparse(b)}
                                     for a, b in rows]
    assignments, rewrites = [], []
    for stmt in _statements(functions["_init"].body) if "_init" in functions else []:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute):
            kind = ("call" if isinstance(stmt.value, ast.Call) else
                    "Constant" if isinstance(stmt.value, ast.Constant) else "attribute")
            assignments.append({"target": _dotted(stmt.targets[0]), "value": ast.unparse(stmt.value),
                                "value_kind": kind})
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and _dotted(stmt.value.func) == "_device_wrapper" and len(stmt.value.args) == 2:
            target, names = stmt.value.args
            row: Dict[str, Any] = {"object": _dotted(target)}
            if isinstance(names, ast.Name):
                row["functions_from"] = names.id
                row["functions"] = lists.get(names.id, [])
            else:
                row["functions"] = _strings(names) or []
            rewrites.append(row)
    return {"module_level_lists": lists, "string_replacements_in_device_args": [list(p) for p in replacements],
            "monkey_patch_tables": patches, "attribute_assignments_in_init": assignments,
            "device_argument_rewrites": rewrites}


def from_wheel(wheel: Path) -> Dict[str, Any]:
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(MEMBER).decode("utf-8")
        version_py = archive.read("torch_npu/version.py").decode("utf-8", "replace")
    git = re.search(r"git_version\s*=\s*['\"](\w+)['\"]", version_py)
    source = {"repo": "Ascend/pytorch", "path": MEMBER, "commit": git.group(1) if git else None,
              "wheel": wheel.name, "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
              "license": "BSD-3-Clause"}
    return {"_source": source, "_note": NOTE, **extract(text)}


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    data = from_wheel(Path(argv[0]))
    Path(argv[1]).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(data['attribute_assignments_in_init'])} assignments, "
          f"{len(data['device_argument_rewrites'])} device rewrites -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
