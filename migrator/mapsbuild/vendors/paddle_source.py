"""Which Paddle kernels each public Paddle API calls, read from a paddlepaddle wheel's Python sources.

    python -m migrator.mapsbuild.vendors.paddle_source paddlepaddle-3.3.1-...whl operator_maps/upstream/kunlun/OUT.json

The Kunlun bridge (``kunlun_bridge.py``) joins PaConvert's torch -> Paddle API table with Paddle's XPU kernel
lists; this is the step between: for every function, and every class's ``forward`` (a layer) or
``_append_optimize_op`` (an optimizer), the kernels it calls in dynamic mode (``_C_ops.<kernel>(...)``;
branches under a test that holds only on a CUDA, ROCm or custom-device build are left out), the
other Paddle functions it calls (absolute names), and a class's Paddle base classes, plus what each module
re-exports. (The legacy op names the XPU lists use come from the same wheel's ``phi_ops_map.py``.) Read with ``ast``;
nothing of the wheel is imported or run.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from ...sources.outline import dotted_name
from ..pysource import imported, top_level

#: a class's methods that say what the class runs: a layer's forward, an optimizer's update
ENTRY_METHODS = ("forward", "_append_optimize_op", "__call__")


def module_name(path: str) -> Optional[str]:
    """``paddle/nn/functional/activation.py`` -> ``paddle.nn.functional.activation``; a package's
    ``__init__.py`` is the package."""
    if not path.startswith("paddle/") or not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if all(p.isidentifier() for p in parts) else None


class _Module:
    """One module's import aliases, definitions and re-exports."""

    def __init__(self, module: str, tree: ast.Module, is_package: bool) -> None:
        self.module = module
        self.aliases: Dict[str, str] = {}  # local name -> absolute dotted name
        self.defs: Dict[str, ast.AST] = {}
        for node in top_level(tree.body):
            self._bind(node, is_package)

    def _bind(self, node: ast.AST, is_package: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for local, target in imported(node, self.module, is_package):
                if local != "*":
                    self.aliases[local] = target
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.defs[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute)):
            aliased = self.dotted(node.value)
            for t in node.targets:
                if isinstance(t, ast.Name) and aliased:
                    self.aliases[t.id] = aliased

    def dotted(self, node: ast.AST) -> Optional[str]:
        """The absolute name an expression like ``F.relu`` or ``_C_ops.add`` stands for, if it is one."""
        return dotted_name(node, lambda name: self.aliases.get(name) or (
            f"{self.module}.{name}" if name in self.defs else None))


#: tests that hold only on another device's build: the branch they guard never runs on a Kunlun XPU build
_OTHER_DEVICE = ("is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_custom_device",
                 "is_compiled_with_ipu", "is_compiled_with_cinn")


def _xpu_nodes(node: ast.AST):
    """Every node of ``node``, leaving out the bodies of ``if`` tests that hold only on another device's
    build (``if ... is_compiled_with_cuda(): ...`` keeps its ``else``)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, ast.If) and _other_device(current.test):
            stack.extend([current.test, *current.orelse])
            continue
        stack.extend(ast.iter_child_nodes(current))


def _other_device(test: ast.AST) -> bool:
    names = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(test)
             if isinstance(n, (ast.Attribute, ast.Name))}
    strings = {n.value.lower() for n in ast.walk(test) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    negated = any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) for n in ast.walk(test))
    return not negated and (bool(names & set(_OTHER_DEVICE)) or bool(strings & {"npu", "gpu", "cuda"}))


def _calls(module: _Module, body: ast.AST) -> Dict[str, List[str]]:
    ops, calls = set(), set()
    for node in _xpu_nodes(body):
        if not isinstance(node, ast.Call):
            continue
        name = module.dotted(node.func)
        if name and (name.startswith("paddle._C_ops.") or name.startswith("paddle._legacy_C_ops.")):
            ops.add(name.rsplit(".", 1)[1])
        elif name and name.startswith("paddle.") and not name.endswith(_NO_KERNEL):
            calls.add(name)
    return {"ops": sorted(ops), "calls": sorted(calls)}


#: calls that check, decorate or build static-graph programs, never run a kernel: left out of ``calls``
_NO_KERNEL = ("LayerHelper", "in_dynamic_mode", "in_pir_mode", "in_dynamic_or_pir_mode", "check_variable_and_dtype",
              "check_type", "check_dtype", "convert_dtype", "param_one_alias", "param_two_alias")


def extract(wheel: Path) -> dict:
    """{"functions": {absolute name: {ops, calls[, bases, entry]}}, "exports": {module: {name: absolute name}},
    "tensor_methods": [...]}; a function that calls no kernel and no other Paddle function is left out."""
    functions: Dict[str, Dict[str, Any]] = {}  # ops, calls, bases: names; entry: a method's name or None
    exports: Dict[str, Dict[str, str]] = {}
    tensor_methods: List[str] = []
    with zipfile.ZipFile(wheel) as archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            module = module_name(info.filename)
            if module is None:
                continue
            try:
                tree = ast.parse(archive.read(info.filename).decode("utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            parsed = _Module(module, tree, info.filename.endswith("__init__.py"))
            for name, node in parsed.defs.items():
                if isinstance(node, ast.ClassDef):
                    methods = {m.name: m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                    entry = next((methods[m] for m in ENTRY_METHODS if m in methods), None)
                    found = _calls(parsed, entry) if entry is not None else {"ops": [], "calls": []}
                    bases = [b for b in (parsed.dotted(base) for base in node.bases) if b and b.startswith("paddle.")]
                    functions[f"{module}.{name}"] = {**found, "bases": bases,
                                                     "entry": entry.name if entry is not None else None}
                else:
                    found = _calls(parsed, node)
                    if found["ops"] or found["calls"]:
                        functions[f"{module}.{name}"] = found
            if module == "paddle.tensor":  # Paddle binds each of these as a Tensor method (math_op_patch.py)
                tensor_methods = _literal_list(tree, "tensor_method_func")
            reexported = {local: target for local, target in parsed.aliases.items()
                          if target.startswith("paddle.") and local not in parsed.defs}
            if reexported:
                exports[module] = dict(sorted(reexported.items()))
    return {"functions": dict(sorted(functions.items())), "exports": dict(sorted(exports.items())),
            "tensor_methods": sorted(set(tensor_methods))}


def _literal_list(tree: ast.Module, name: str) -> List[str]:
    """The strings of a module-level ``name = [...]`` (read as a literal, not run)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return [str(v) for v in ast.literal_eval(node.value)]
            except ValueError:
                return []
    return []


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    wheel, out = Path(argv[0]), Path(argv[1])
    data = extract(wheel)
    data = {"_source": {"wheel": wheel.name, "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
                        "extracted_by": "migrator/mapsbuild/vendors/paddle_source.py (ast, no execution)",
                        "license": "Apache-2.0"}, **data}
    out.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(data['functions'])} functions and classes, {len(data['exports'])} modules with re-exports -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
