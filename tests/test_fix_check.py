"""``migrator fix --check``: the changed modules are imported before and after the write, under the fake
``torch_npu`` here (``npu_stub``), and what the fix broke is reported (exit 1). Code that would run at import is
not imported."""

import os

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.fix.check import importable

from .conftest import write_tree
from .npu_stub import write_stub

pytest.importorskip("torch")

# a module-level capability probe, as detectron2's and timm's helpers have: renamed with --unsafe, it reads
# ``torch_npu.npu.get_device_capability()``, which is None unless TORCH_NPU_DEVICE_CAPABILITY is set (a CPU torch
# raises an AssertionError for CUDA's, which the probe catches)
PROBE = '''\
import torch


def _major():
    try:
        return torch.cuda.get_device_capability()[0]
    except (AssertionError, RuntimeError):
        return 0


MAJOR = _major()


def use_tf32():
    return MAJOR >= 8
'''

PLACE = '''\
import torch


def place(model):
    return model.cuda()
'''

SCRIPT = '''\
import torch

model = torch.nn.Linear(2, 2).cuda()
for step in range(10):
    model(torch.ones(1, 2).cuda()).sum().backward()
'''


def _run(tmp_path, files, *extra):
    project = write_tree(tmp_path / "project", files)
    stub = write_stub(tmp_path / "stub")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(stub), os.environ.get("PYTHONPATH")]))}
    return CliRunner().invoke(main, ["fix", str(project), "--target", "cann", "--no-cache", "--force", "--check",
                                     *extra], env=env)


@pytest.mark.parametrize("files, extra, code, says", [
    pytest.param({"pkg/__init__.py": "", "pkg/place.py": PLACE}, (), 0,
                 "check: 1 of 1 changed module(s) import after the fix; 0 broken by it", id="a-safe-fix-imports"),
    pytest.param({"probe.py": PROBE}, ("--unsafe",), 1,
                 "check: probe.py: imports before the fix, fails after: TypeError", id="an-unsafe-rename-breaks-it"),
    pytest.param({"train.py": SCRIPT}, (), 0, "check: train.py: its top level runs code at line 5",
                 id="a-script-is-not-run"),
])
def test_check_imports_the_changed_modules_and_reports_what_the_fix_broke(tmp_path, files, extra, code, says):
    result = _run(tmp_path, files, *extra)
    assert result.exit_code == code, result.output
    assert says in result.output


def test_check_cannot_go_with_diff(tmp_path):
    write_tree(tmp_path, {"place.py": PLACE})
    result = CliRunner().invoke(main, ["fix", str(tmp_path), "--target", "cann", "--diff", "--check"])
    assert result.exit_code == 2 and "--check" in result.output


@pytest.mark.parametrize("rel, files, module", [
    pytest.param("a/b/c.py", {"a/b/__init__.py": "", "a/b/c.py": "x = 1\n"}, "b.c", id="package-module"),
    pytest.param("tools/run.py", {"tools/run.py": "def f():\n    pass\n"}, "run", id="plain-folder"),
    pytest.param("a/b/__init__.py", {"a/b/__init__.py": "import os\n"}, "b", id="package-init"),
])
def test_a_module_is_imported_by_its_package_name(tmp_path, rel, files, module):
    write_tree(tmp_path, files)
    where, why = importable(tmp_path, rel)
    assert why is None and where is not None and where[1] == module
