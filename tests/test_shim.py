"""`fix --shim` and what the vendors' runtime patchers cover (issue 25: a progressive first step)."""

import json

import pytest
from click.testing import CliRunner

from migrator.assess import counted
from migrator.cli import main
from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan
from migrator.shim import ShimCover, shim_plan, shims

from .conftest import write_tree


@pytest.mark.parametrize("code, cover", [
    pytest.param("torch.cuda.synchronize()", ShimCover.COVERED, id="torch-cuda-namespace"),
    pytest.param("x = torch.ones(2).cuda()", ShimCover.COVERED, id="tensor-cuda-method"),
    pytest.param("x = torch.zeros(3, device='cuda')", ShimCover.COVERED, id="device-argument-of-a-patched-call"),
    pytest.param("torch.distributed.init_process_group('nccl')", ShimCover.COVERED, id="backend-argument"),
    pytest.param("def f(x):\n    if x.device.type == 'cuda':\n        x = x.half()\n    return x",
                 ShimCover.NOT_COVERED,
                 id="compared-with-a-tensors-device"),
    pytest.param("def f():\n    return torch.distributed.get_backend() == 'nccl'", ShimCover.NOT_COVERED,
                 id="compared-with-the-runtime-backend"),
    pytest.param("DEVICE = 'cuda'", ShimCover.IF_PASSED, id="constant-used-later"),
    pytest.param("ok = torch.cuda.is_bf16_supported()", ShimCover.NOT_COVERED,
                 id="renamed-only-by-the-module-swap-no-list-names-it"),
    # the swap gives torch_npu.npu.get_device_capability, None unless an environment variable is set: [0] raises
    pytest.param("major = torch.cuda.get_device_capability(0)[0]", ShimCover.DIFFERS,
                 id="swapped-to-a-twin-that-returns-none"),
    pytest.param("from flash_attn import flash_attn_func\ny = flash_attn_func(q, k, v)", ShimCover.NOT_COVERED,
                 id="cuda-only-library"),
])
def test_what_transfer_to_npu_covers(tmp_path, code, cover):
    write_tree(tmp_path, {"train.py": f"import torch\n{code}\n"})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    judged = {shims()["cann"].judge(f) for f in report.findings} - {None}
    assert judged and {j.cover for j in judged} == {cover}, judged


PROJECT = {
    "train.py": '"""Train."""\nimport torch\nfrom model import Net\n\n\ndef main():\n    net = Net().cuda()\n'
                "    if next(net.parameters()).device.type == 'cuda':\n        net = net.half()\n"
                "\n\nif __name__ == '__main__':\n    main()\n",
    "tools/launch.py": "import torch_npu\nimport torch\n\nif __name__ == '__main__':\n    torch.cuda.synchronize()\n",
    "model.py": "import torch\n\n\nclass Net(torch.nn.Linear):\n    def __init__(self):\n        super().__init__(2, "
                "2)\n",
    "setup.py": "from setuptools import setup\nsetup(name='p')\n",
    "tests/test_train.py": "import torch\n\nif __name__ == '__main__':\n    torch.cuda.synchronize()\n",
}


def test_fix_shim_adds_the_patcher_at_entry_points_once_and_says_what_it_leaves(tmp_path):
    write_tree(tmp_path, PROJECT)
    runner = CliRunner()
    first = runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--shim", "--no-cache", "--force"])
    assert first.exit_code == 0, first.output
    assert (tmp_path / "train.py").read_text().startswith(
        '"""Train."""\nimport torch\nimport torch_npu\nfrom torch_npu.contrib import transfer_to_npu\nfrom model')
    # the one it already had is not added twice; modules, setup.py and tests are not entry points to shim
    assert (tmp_path / "tools/launch.py").read_text().splitlines()[:3] == [
        "import torch_npu", "import torch", "from torch_npu.contrib import transfer_to_npu"]
    for rel in ("model.py", "setup.py", "tests/test_train.py"):
        assert (tmp_path / rel).read_text() == PROJECT[rel]
    assert "not covered (1): a CUDA name compared with what the runtime reports" in first.output
    assert "train.py:8: device-string" in first.output
    again = runner.invoke(main, ["fix", str(tmp_path), "--target", "cann", "--shim", "--no-cache", "--force"])
    assert "to 0 entry point file(s)" in again.output


def test_the_report_plan_says_what_the_shim_covers(tmp_path):
    write_tree(tmp_path, PROJECT)
    run = CliRunner().invoke(main, ["scan", str(tmp_path), "--format", "json", "--no-cache"])
    plans = {p["target"]: p for p in json.loads(run.output)["plan"]}
    assert plans["kunlun"]["shim"] is None  # torch_xmlir keeps CUDA names: nothing to patch
    cann = plans["cann"]["shim"]
    assert cann["imports"] == ["import torch_npu", "from torch_npu.contrib import transfer_to_npu"]
    assert cann["not_covered"] == len(cann["not_covered_findings"]) == 1 and cann["covered"] >= 2
    html = tmp_path / "report.html"
    CliRunner().invoke(main, ["scan", str(tmp_path), "--format", "html", "-o", str(html), "--no-cache"])
    assert (f"shim: {cann['covered']} findings covered at run time, {cann['if_passed']} where the value reaches "
            f"a patched call, 1 not covered") in html.read_text(encoding="utf-8")  # the page agrees with the JSON
    report = scan(ScanRequest(tmp_path, resolve_targets(["neuware"]), jobs=1))
    neuware = shim_plan(counted(report.findings), "neuware")
    assert neuware.imports == ("import torch_mlu", "import torch_mlu.utils.gpu_migration")


SHIMMED = {
    "train.py": ("import torch\nimport torch_npu\nfrom torch_npu.contrib import transfer_to_npu\n\nfrom model import "
                 "Net\n"
                 "\n\ndef main():\n    model = Net().cuda()\n    x = torch.randn(4, 8, device='cuda')\n"
                 "    torch.cuda.synchronize()\n    if x.device.type == 'cuda':\n        x = x.half()\n"
                 "    return model(x)\n\n\nif __name__ == '__main__':\n    main()\n"),
    "model.py": ("import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.fc = torch.nn.Linear(8, 8)\n\n    def forward(self, x):\n"
                 "        torch.cuda.current_device()\n        return self.fc(x)\n"),
}


def test_an_entry_point_that_imports_the_shim_runs_what_it_covers(scan_tree):
    """fairseq's Ascend port imports transfer_to_npu instead of editing its device calls: those calls are
    not findings on cann any more (the shim is their source), a comparison with the device type the
    runtime reports still is, and neuware, whose patcher is not imported, is judged as before."""
    report = scan_tree(SHIMMED, ["cann", "neuware"])
    judged = {(f.path, f.api): f for f in report.judged}
    synchronize = judged[("train.py", "torch.cuda.synchronize")].verdicts
    assert synchronize["cann"].status == Status.SUPPORTED and "transfer_to_npu" in synchronize["cann"].source
    assert "train.py imports" in synchronize["cann"].message
    assert synchronize["neuware"].status == Status.REWRITE
    assert judged[("model.py", "torch.cuda.current_device")].verdicts["cann"].status == Status.SUPPORTED
    compared = [f for f in report.findings if "compared with x.device.type" in f.verdicts["cann"].message]
    assert compared and compared[0].verdicts["cann"].status == Status.REWRITE
    from migrator.shim import through_shim

    assert through_shim(report.judged, "cann") >= 3 and through_shim(report.judged, "neuware") == 0
    # counted once by the flow (the tally), which the text says
    shimmed = through_shim(report.judged, "cann")
    assert {t.id: t.through_shim for t in report.tally.targets} == {"cann": shimmed, "neuware": 0}
    import io

    from migrator.report import text

    out = io.StringIO()
    text.render(report, out)
    assert out.getvalue().count(f"{shimmed} uses need no change while it is imported") == 1


def test_a_second_entry_point_without_the_shim_is_named_where_it_reaches_shimmed_code(scan_tree):
    """fairseq's port imports the shim in fairseq_cli/train.py only; its generate and eval scripts reach the
    same modules. The training path runs through the shim; the message names the scripts that need the
    import too, and code only they reach is judged as before."""
    files = dict(SHIMMED)
    files["evaluate.py"] = ("import torch\nfrom model import Net\n\n\ndef run():\n    torch.cuda.ipc_collect()\n"
                            "    return Net()(torch.ones(4, 8))\n\n\nif __name__ == '__main__':\n    run()\n")
    report = scan_tree(files, ["cann"])
    judged = {(f.path, f.api): f for f in report.judged}
    shared = judged[("model.py", "torch.cuda.current_device")].verdicts["cann"]
    assert shared.status == Status.SUPPORTED and "evaluate.py also reach it without importing" in shared.message
    assert judged[("evaluate.py", "torch.cuda.ipc_collect")].verdicts["cann"].status != Status.SUPPORTED


def test_the_shim_goes_below_a_shebang_and_only_into_programs(tmp_path):
    """A script whose first lines are a shebang and an encoding declaration keeps them first (they work only
    there); a package's module named like a script (``pkg/train.py``) is a library other code imports: the
    patcher is not added to it, unless the packaging metadata declares it a console script (fairseq's
    ``fairseq-train = fairseq_cli.train:cli_main`` in ``setup.py``, read as text: the program pip installs)."""
    from migrator.fix.shim import shim_fixes

    header = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"
    program = "import os\n\nif __name__ == '__main__':\n    import torch\n    torch.cuda.synchronize()\n"
    cli = ("import torch\n\n\ndef cli_main():\n    torch.cuda.synchronize()\n\n\n"
           "if __name__ == '__main__':\n    cli_main()\n")
    setup = ("from setuptools import setup\n\nsetup(name='pkg', entry_points={'console_scripts': [\n"
             "    'pkg-train = pkg.cli_train:cli_main',\n]})\n")
    write_tree(tmp_path, {"run.py": header + program, "pkg/__init__.py": "", "pkg/train.py": program,
                          "pkg/cli_train.py": cli, "setup.py": setup})
    chosen = resolve_targets(["cann"])
    fixed = {f.path: f for f in shim_fixes(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1, call_graph=True)),
                                           chosen[0]).files}
    assert fixed["run.py"].new.startswith(header + "import torch_npu\nfrom torch_npu.contrib import transfer_to_npu\n")
    assert fixed["pkg/train.py"].new is None and "a module of a package" in fixed["pkg/train.py"].error
    shimmed = "import torch\nimport torch_npu\nfrom torch_npu.contrib import transfer_to_npu\n"
    assert fixed["pkg/cli_train.py"].new == shimmed + cli[len("import torch\n"):]
    assert "setup.py" not in fixed
