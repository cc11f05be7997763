"""`migrator fix`: before/after per rewrite family and target, notebooks, idempotence, and the safety rails."""

import json
import os
import stat
import subprocess

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.fix import fix_report, write_fixes
from migrator.maps.load import resolve_targets
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree


def _fixed(tmp_path, code: str, target: str, unsafe: bool = False, name: str = "train.py") -> str:
    write_tree(tmp_path, {name: code})
    chosen = resolve_targets([target])
    report = scan(ScanRequest(tmp_path, chosen, jobs=1))
    result = fix_report(tmp_path, report, chosen[0], unsafe=unsafe)
    changed = {f.path: f.new for f in result.changed}
    return changed.get(name, code)


CASES = [
    pytest.param(
        "import torch\nx = torch.zeros(3, device='cuda')\n",
        {"cann": "import torch\nimport torch_npu\nx = torch.zeros(3, device='npu')\n",
         "neuware": "import torch\nimport torch_mlu\nx = torch.zeros(3, device='mlu')\n"},
        id="device-argument"),
    pytest.param(
        "import torch\n\nbatch = (torch.ones(2)  # inputs\n         .cuda(non_blocking=True))\n",
        {"cann": "import torch\nimport torch_npu\n\nbatch = (torch.ones(2)  # inputs\n         "
                 ".npu(non_blocking=True))\n",
         "neuware": "import torch\nimport torch_mlu\n\nbatch = (torch.ones(2)  # inputs\n         "
                    ".mlu(non_blocking=True))\n"},
        id="method-across-lines-with-comment"),
    pytest.param(
        "import torch\n\n\ndef step():\n    torch.cuda.synchronize()\n",
        {"cann": "import torch\n\n\ndef step():\n    torch.accelerator.synchronize()\n",  # the portable style
         "neuware": "import torch\nimport torch_mlu\n\n\ndef step():\n    torch.mlu.synchronize()\n"},
        id="torch-cuda-call"),
    pytest.param(
        "import torch\nfrom torch.cuda.amp import autocast as ac\n\nwith ac():\n    pass\n",
        {"cann": "import torch\n\nwith torch.autocast((torch.accelerator.current_accelerator() or "  # portable
                 "torch.device(\"cuda\")).type):\n    pass\n",
         "neuware": "import torch\nimport torch_mlu\n\nwith torch.mlu.amp.autocast():\n    pass\n"},
        id="amp-alias-and-its-import-no-longer-used"),
    pytest.param(
        "import torch\nfrom torch.cuda.amp import autocast, GradScaler\n\nwith autocast():\n    s = GradScaler()\n",
        {"cann": "import torch\nimport torch_npu\n\nwith torch_npu.npu.amp.autocast():\n"
                 "    s = torch_npu.npu.amp.GradScaler()\n",
         "neuware": "import torch\nimport torch_mlu\n\nwith torch.mlu.amp.autocast():\n    s = "
                    "torch.mlu.amp.GradScaler()\n"},
        id="imports-of-renamed-names-removed-once-unused"),
    pytest.param(
        "import torch\nscaler = torch.amp.GradScaler()\n",
        {"cann": "import torch\nimport torch_npu\nscaler = torch.amp.GradScaler('npu')\n",
         "neuware": "import torch\nimport torch_mlu\nscaler = torch.amp.GradScaler('mlu')\n"},
        id="grad-scaler-default-device"),
    pytest.param(
        '"""Doc."""\nimport os\n\nimport torch.distributed as dist\n\n'
        'dist.init_process_group(backend="nccl", init_method="env://")\n',
        {"cann": '"""Doc."""\nimport os\n\nimport torch.distributed as dist\nimport torch_npu\n\n'
                 'dist.init_process_group(backend="hccl", init_method="env://")\n',
         "neuware": '"""Doc."""\nimport os\n\nimport torch.distributed as dist\nimport torch_mlu\n\n'
                    'dist.init_process_group(backend="cncl", init_method="env://")\n'},
        id="collective-backend"),
    pytest.param(
        "import torch\n\n\ndef place(x, rank):\n    return x.to(f'cuda:{rank}')\n",
        {"cann": "import torch\nimport torch_npu\n\n\ndef place(x, rank):\n    return x.to(f'npu:{rank}')\n",
         "neuware": "import torch\nimport torch_mlu\n\n\ndef place(x, rank):\n    return x.to(f'mlu:{rank}')\n"},
        id="f-string-device"),
    pytest.param(
        "import torch\nDEVICE = 'cuda'  # one place to change\n\n\ndef f(x):\n    return x.to(DEVICE)\n",
        {"cann": "import torch\nimport torch_npu\nDEVICE = 'npu'  # one place to change\n\n\ndef f(x):\n    return "
                 "x.to(DEVICE)\n",
         "neuware": "import torch\nimport torch_mlu\nDEVICE = 'mlu'  # one place to change\n\n\ndef f(x):\n    return "
                    "x.to(DEVICE)\n"},
        id="constant-changed-once"),
    pytest.param(
        "import torch\ny = torch.ones(2).to('cuda').cuda(torch.device('cuda', 0))\n",
        {"cann": "import torch\nimport torch_npu\ny = torch.ones(2).to('npu').npu(torch.device('npu', 0))\n",
         "neuware": "import torch\nimport torch_mlu\ny = torch.ones(2).to('mlu').mlu(torch.device('mlu', 0))\n"},
        id="nested-edits-compose"),
    pytest.param(
        "import torch\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\n",
        {"cann": "import torch\nimport torch_npu\ndevice = 'npu' if torch_npu.npu.is_available() else 'cpu'\n",
         "neuware": "import torch\nimport torch_mlu\ndevice = 'mlu' if torch.mlu.is_available() else 'cpu'\n"},
        id="conditional-device"),
]


@pytest.mark.parametrize("target", ["cann", "neuware"])
@pytest.mark.parametrize("before, after", CASES)
def test_rewrite(tmp_path, before, after, target):
    assert _fixed(tmp_path, before, target) == after[target]


def test_a_name_the_file_cannot_reach_is_left_alone(tmp_path):
    # torch.mlu.synchronize needs `torch` bound to torch; here only the alias T is
    code = "import torch as T\nT.cuda.synchronize()\n"
    assert _fixed(tmp_path, code, "neuware") == code
    fixed = _fixed(tmp_path / "cann", code, "cann")
    assert fixed == "import torch as T\nimport torch_npu\ntorch_npu.npu.synchronize()\n"


def test_a_rename_the_vendor_has_not_validated_is_not_applied(tmp_path):
    # Cambricon lists torch.nn.Module.mlu as not validated: the rewrite is suggested, not applied
    code = "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n"
    assert _fixed(tmp_path, code, "neuware") == code
    assert ".npu()" in _fixed(tmp_path / "cann", code, "cann")


def test_kunlun_needs_no_mechanical_rewrite(tmp_path):
    write_tree(tmp_path, {"t.py": "import torch\ntorch.cuda.synchronize()\n"})
    result = CliRunner().invoke(main, ["fix", str(tmp_path), "--target", "kunlun", "--no-cache"])
    assert result.exit_code == 0 and "keeps CUDA spellings" in result.output


def test_a_cuda_string_with_no_known_role_waits_for_unsafe(tmp_path):
    code = "import torch\nTIMINGS = {'cuda': 0.0, 'cpu': 0.0}\n"  # a label, maybe: not rewritten by default
    assert _fixed(tmp_path, code, "cann") == code
    assert "{'npu': 0.0" in _fixed(tmp_path / "u", code, "cann", unsafe=True)


def test_unsafe_rewrites_wait_for_the_flag(tmp_path):
    script = "#!/bin/sh\nexport CUDA_VISIBLE_DEVICES=0,1\ntorchrun train.py\n"
    assert _fixed(tmp_path, script, "cann", name="run.sh") == script
    assert _fixed(tmp_path, script, "cann", unsafe=True, name="run.sh") == \
        "#!/bin/sh\nexport ASCEND_RT_VISIBLE_DEVICES=0,1\ntorchrun train.py\n"
    assert _fixed(tmp_path / "n", script, "neuware", name="run.sh") == \
        "#!/bin/sh\nexport MLU_VISIBLE_DEVICES=0,1\ntorchrun train.py\n"


NOTEBOOK = {
    "nbformat": 4, "nbformat_minor": 5, "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Eval on cuda\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
         "source": ["!nvidia-smi\n", "%matplotlib inline\n", "import torch\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [],
         "source": ["x = torch.ones(2).cuda()\n", "%time y = x * 2\n", "print(torch.cuda.max_memory_allocated(0))"]},
    ],
}


def test_notebooks_are_rewritten_cell_by_cell(tmp_path):
    write_tree(tmp_path, {"eval.ipynb": json.dumps(NOTEBOOK, indent=1)})
    chosen = resolve_targets(["cann"])
    result = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0])
    write_fixes(tmp_path, result.changed)
    cells = json.loads((tmp_path / "eval.ipynb").read_text())["cells"]
    assert cells[0] == NOTEBOOK["cells"][0]
    assert cells[1]["source"] == ["!nvidia-smi\n", "%matplotlib inline\n", "import torch\n", "import torch_npu\n"]
    assert cells[2]["source"] == ["x = torch.ones(2).npu()\n", "%time y = x * 2\n",
                                  "print(torch_npu.npu.max_memory_allocated(0))"]
    assert cells[2]["outputs"] == [] and cells[2]["execution_count"] == 2


def test_the_change_log_has_one_row_per_changed_line_in_cambricons_form(tmp_path):
    write_tree(tmp_path, {
        "train.py": "import torch\n\n\ndef step(x):\n    torch.cuda.synchronize()\n    return x.cuda() | 1\n",
        "eval.ipynb": json.dumps(NOTEBOOK, indent=1),
    })
    log = tmp_path / "changes.md"
    run = CliRunner().invoke(main, ["fix", str(tmp_path), "--target", "cann", "--no-cache", "--force",
                                    "--log", str(log)])
    assert run.exit_code == 0, run.output
    assert "train.py:5: device-call: torch.cuda.synchronize() -> torch_npu.npu.synchronize()" in run.output
    assert "eval.ipynb:cell 2:1: device-move: x = torch.ones(2).cuda() -> x = torch.ones(2).npu()" in run.output
    changes = log.read_text(encoding="utf-8").split("\n## ")[0]  # then each file's style
    rows = [line for line in changes.splitlines() if line.startswith("| ") and "No." not in line]
    assert rows[0] == '| 1 | eval.ipynb:cell 1:4 | plugin-import | add "import torch_npu" |'
    assert '| train.py:6 | device-move | change "return x.cuda() \\| 1" to "return x.npu() \\| 1" |' in rows[-1]
    assert len(rows) == 6 and "Written to the files." in log.read_text(encoding="utf-8")


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def test_cli_diff_write_idempotence_and_rails(tmp_path):
    repo = write_tree(tmp_path / "repo", {
        "src/train.py": "import torch\nx = torch.ones(2).cuda()\n",
        "other/keep.py": "import torch\ny = torch.ones(2).cuda()\n",
    })
    os.chmod(repo / "src" / "train.py", 0o750)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    runner = CliRunner()
    diff = runner.invoke(main, ["fix", str(repo / "src"), "--target", "cann", "--diff", "--no-cache"])
    assert diff.exit_code == 0
    assert "-x = torch.ones(2).cuda()\n+import torch_npu\n+x = torch.ones(2).npu()\n" in diff.output
    # --diff writes nothing
    assert (repo / "src" / "train.py").read_text() == "import torch\nx = torch.ones(2).cuda()\n"

    (repo / "other" / "keep.py").write_text("import torch\ny = torch.ones(3).cuda()\n")  # dirty, outside src/
    assert runner.invoke(main, ["fix", str(repo / "src"), "--target", "cann", "--no-cache"]).exit_code == 0
    (repo / "src" / "notes.txt").write_text("wip\n")
    refused = runner.invoke(main, ["fix", str(repo / "src"), "--target", "cann", "--no-cache"])
    assert refused.exit_code == 2 and "uncommitted" in refused.output
    (repo / "src" / "notes.txt").unlink()

    fixed = (repo / "src" / "train.py").read_text()
    assert fixed == "import torch\nimport torch_npu\nx = torch.ones(2).npu()\n"
    assert stat.S_IMODE((repo / "src" / "train.py").stat().st_mode) == 0o750
    assert (repo / "other" / "keep.py").read_text() == "import torch\ny = torch.ones(3).cuda()\n"  # outside PATH
    assert not list(repo.rglob("*.migrator-tmp"))
    again = runner.invoke(main, ["fix", str(repo / "src"), "--target", "cann", "--no-cache", "--force"])
    assert again.exit_code == 0 and "applied 0 rewrite(s) in 0 file(s)" in again.output
    assert (repo / "src" / "train.py").read_text() == fixed


def test_fix_runs_nothing_a_cloned_repository_configures(tmp_path):
    """A repository's `.git/config` may name an fsmonitor command and a clean filter that `git status` would
    run: the dirty check runs neither, and still sees the uncommitted change."""
    import shutil
    import subprocess

    from click.testing import CliRunner

    from migrator.cli import main

    if shutil.which("git") is None:
        pytest.skip("git is needed")
    repo, marker = tmp_path / "repo", tmp_path / "ran"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": os.environ["PATH"]}

    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)

    (repo / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    (repo / ".gitattributes").write_text("*.py filter=trap\n")
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "init")
    git("config", "filter.trap.clean", f"touch {marker}-clean; cat")
    git("config", "filter.trap.process", f"touch {marker}-process")
    git("config", "core.fsmonitor", f"touch {marker}-fsmonitor; echo")
    os.utime(repo / "train.py", (1_000_000_000, 1_000_000_000))  # stale stat info: git would re-hash it
    clean = CliRunner().invoke(main, ["fix", str(repo), "--target", "cann", "--no-cache"])
    assert clean.exit_code == 0, clean.output
    assert not list(tmp_path.glob("ran*")), "git ran a command the repository configured"
    (repo / "train.py").write_text("import torch\ny = torch.zeros(2).cuda()\n")
    refused = CliRunner().invoke(main, ["fix", str(repo), "--target", "cann", "--no-cache"])
    assert refused.exit_code == 2 and "uncommitted" in refused.output
    assert not list(tmp_path.glob("ran*")), "git ran a command the repository configured"


def _fix_in_place(root):
    from click.testing import CliRunner

    from migrator.cli import main

    return CliRunner().invoke(main, ["fix", str(root), "--target", "cann", "--no-cache", "--force"])


@pytest.mark.parametrize("raw, expected", [
    pytest.param(b"import torch\r\nx = torch.ones(2).cuda()\r\n",
                 b"import torch\r\nimport torch_npu\r\nx = torch.ones(2).npu()\r\n", id="crlf-kept"),
    pytest.param(b"\xef\xbb\xbfimport torch\nx = torch.ones(2).cuda()\n",
                 b"\xef\xbb\xbfimport torch\nimport torch_npu\nx = torch.ones(2).npu()\n", id="bom-kept"),
])
def test_fix_keeps_line_endings_and_the_byte_order_mark(tmp_path, raw, expected):
    (tmp_path / "train.py").write_bytes(raw)
    result = _fix_in_place(tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "train.py").read_bytes() == expected


def test_fix_writes_through_a_symbolic_link_and_keeps_it(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    os.symlink(tmp_path / "real" / "train.py", tmp_path / "train.py")
    assert _fix_in_place(tmp_path).exit_code == 0
    assert (tmp_path / "train.py").is_symlink()
    assert "npu()" in (tmp_path / "real" / "train.py").read_text()


def test_a_file_changed_between_the_scan_and_the_edit_is_left_alone(tmp_path):
    """The report's positions belong to the text the scan read: a file that changed since (an editor save, a
    `git pull`, another fix) is not edited at those positions."""
    from migrator.fix import file_digests
    from migrator.discover import discover

    chosen = resolve_targets(["cann"])
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    found = discover(tmp_path)
    scanned = file_digests(tmp_path, found.files)
    report = scan(ScanRequest(tmp_path, chosen, jobs=1))
    (tmp_path / "train.py").write_text("import torch\nstate = {}\n\n\nx = state['a']\n")  # changed under it
    result = fix_report(tmp_path, report, chosen[0], scanned=scanned)
    assert [f.error for f in result.files] == ["changed since the scan read it: not fixed (run again)"]
    assert write_fixes(tmp_path, result.changed).problems == ()
    assert (tmp_path / "train.py").read_text() == "import torch\nstate = {}\n\n\nx = state['a']\n"


def test_a_file_changed_after_the_edit_was_made_is_not_overwritten(tmp_path):
    chosen = resolve_targets(["cann"])
    (tmp_path / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    result = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0])
    (tmp_path / "train.py").write_text("import torch\nx = 1\n")  # saved by an editor meanwhile
    outcome = write_fixes(tmp_path, result.changed)
    assert outcome.problems == ("train.py: changed while migrator worked on it: not written (run again)",)
    assert outcome.left == ("train.py",) and outcome.written == () and not outcome.failed
    assert (tmp_path / "train.py").read_text() == "import torch\nx = 1\n"


def test_no_file_changes_when_one_cannot_be_written(tmp_path, monkeypatch):
    """All or nothing: the second file's write fails (a full disk), so the first keeps its old text and no
    temporary file is left behind."""
    import migrator.fix as fix_module

    chosen = resolve_targets(["cann"])
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("import torch\nx = torch.ones(2).cuda()\n")
    result = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0])
    real_stage, calls = fix_module._stage, []

    def failing_stage(real, text):
        calls.append(real)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_stage(real, text)

    monkeypatch.setattr(fix_module, "_stage", failing_stage)
    outcome = write_fixes(tmp_path, result.changed)
    assert outcome.failed and outcome.problems[-1].endswith("no file was changed")
    assert all("cuda()" in (tmp_path / n).read_text() for n in ("a.py", "b.py"))
    assert not list(tmp_path.glob(".*migrator-tmp"))


def test_a_timed_device_call_in_a_notebook_is_fixed_with_its_magic_kept(tmp_path):
    source = ["import torch\n", "%time y = torch.zeros(3, device='cuda')\n", "%timeit -n 2 y.cuda()"]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
                           "source": source}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write_tree(tmp_path, {"timed.ipynb": json.dumps(notebook, indent=1)})
    chosen = resolve_targets(["cann"])
    write_fixes(tmp_path, fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0]).changed)
    cells = json.loads((tmp_path / "timed.ipynb").read_text())["cells"]
    assert cells[0]["source"][-2:] == ["%time y = torch.zeros(3, device='npu')\n", "%timeit -n 2 y.npu()"]
