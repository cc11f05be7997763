"""The floors of docs/architecture.md ("Floors"), held by the imports: every module of ``migrator/`` imports only
its own floor and the floors below it (module-level, in a function, or under ``TYPE_CHECKING``: all count), no
two packages import each other, the views take no new import of what computes, and a scan never loads the maps
build (``migrator/mapsbuild/``)."""

import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Set, Tuple

import networkx as nx
import pytest

from .conftest import REPO

PACKAGE = REPO / "migrator"

#: bottom to top; a unit is a top-level module or package of ``migrator`` ("" is ``migrator/__init__.py``)
FLOORS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("foundation", ("", "model", "evidence", "contexts", "devices", "prefixes", "lines", "cells", "data",
                    "safe_write", "gitcheck")),
    ("data and fast paths", ("maps", "engine")),
    ("readers", ("resolve", "sources", "discover")),
    ("rules", ("rules", "shim", "selection")),
    ("project", ("project", "inventory", "graph", "assess", "plan", "op_plans", "vocabulary")),
    ("flow", ("pipeline", "analyze")),
    ("views", ("report",)),
    ("commands", ("gate", "fix", "trace", "memory", "explain", "fleet", "mapsbuild")),
    ("entry", ("cli", "__main__")),
)
FLOOR_OF = {unit: level for level, (_, units) in enumerate(FLOORS) for unit in units}

#: what the views may import: the model and what only says how to show it (``cells``: a notebook's code cells,
#: which the page reads its source context from)
VIEW_READS = frozenset({"", "model", "data", "evidence", "cells", "report"})
#: views that import what computes: none. The plan, the coverage, the counts, the shim summary, the vendor notes'
#: words and the rules' docs are derived once by the flow and carried on ``Report`` (``pipeline/finish.py``);
#: the views render them. A new crossing fails.
VIEW_CROSSINGS: FrozenSet[Tuple[str, str]] = frozenset()


def module_name(path: Path, root: Path) -> Tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def imported(source: str, module: str, is_package: bool, root: Path) -> Iterator[str]:
    """Every ``migrator`` module ``source`` imports, wherever the import stands; ``from a import b`` names
    ``a.b`` too when ``b`` is a module."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "migrator")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: None if is_package else -1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "migrator":
                continue
            yield target
            for alias in node.names:
                sub = root.joinpath(*f"{target}.{alias.name}".split("."))
                if sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file():
                    yield f"{target}.{alias.name}"


def unit(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def import_graph(package: Path) -> Dict[str, Set[str]]:
    graph: Dict[str, Set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        module, is_package = module_name(path, package.parent)
        graph[module] = set(imported(path.read_text(encoding="utf-8"), module, is_package, package.parent))
    return graph


GRAPH = import_graph(PACKAGE)


@pytest.mark.parametrize("module, is_package, source, expected", [
    pytest.param("migrator.rules.base", False, "from ..maps.load import TargetMap\n", {"migrator.maps.load"},
                 id="relative-two-up"),
    pytest.param("migrator.mapsbuild.vendors", True, "from . import cann\n",
                 {"migrator.mapsbuild.vendors", "migrator.mapsbuild.vendors.cann"}, id="package-names-a-module"),
    pytest.param("migrator.cli", False, "def f():\n    from .pipeline import scan\n",
                 {"migrator.pipeline"}, id="in-a-function"),
    pytest.param("migrator.rules.tune", True,
                 "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ...project.step import TrainingStep\n",
                 {"migrator.project.step"}, id="type-checking-only"),
    pytest.param("migrator.fleet.run", False, "import migrator.pipeline.flow as flow\nimport os\n",
                 {"migrator.pipeline.flow"}, id="absolute"),
])
def test_imports_are_read_wherever_they_stand(module, is_package, source, expected):
    assert set(imported(source, module, is_package, REPO)) == expected


def test_every_module_has_a_floor():
    """A new package or top-level module gets its place in FLOORS (and in docs/architecture.md) first."""
    assert sorted({unit(m) for m in GRAPH} - FLOOR_OF.keys()) == []


def test_no_import_runs_up_a_floor():
    up: List[str] = []
    for module, targets in sorted(GRAPH.items()):
        for target in sorted(targets):
            if FLOOR_OF[unit(target)] > FLOOR_OF[unit(module)]:
                up.append(f"{module} ({FLOORS[FLOOR_OF[unit(module)]][0]}) imports {target} "
                          f"({FLOORS[FLOOR_OF[unit(target)]][0]})")
    assert up == []


def test_no_two_packages_import_each_other():
    units = nx.DiGraph((unit(m), unit(t)) for m, targets in GRAPH.items() for t in targets if unit(m) != unit(t))
    assert [sorted(c) for c in nx.strongly_connected_components(units) if len(c) > 1] == []


def test_views_take_no_new_import_of_what_computes():
    crossings = {(m, t) for m, targets in GRAPH.items() if unit(m) == "report"
                 for t in targets if unit(t) not in VIEW_READS}
    assert sorted(crossings - VIEW_CROSSINGS) == []


def test_a_scan_never_loads_the_maps_build():
    """Scanning the bundled example in every format, in a fresh interpreter, loads the maps but none of the
    tooling that builds them."""
    code = ("import sys\nfrom click.testing import CliRunner\nfrom migrator.cli import main\n"
            "for fmt in ('json', 'text', 'sarif'):\n"
            "    done = CliRunner().invoke(main, ['scan', 'examples', '--format', fmt, '--no-cache', '-j', '1'])\n"
            "    assert done.exit_code == 0, done.output\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('migrator'))))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "migrator.maps.load" in loaded and "migrator.pipeline.flow" in loaded
    assert [m for m in loaded if unit(m) == "mapsbuild"] == []
