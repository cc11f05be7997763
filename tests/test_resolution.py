"""Name resolution: import forms, aliases, relative imports, constants, receivers that are not tensors."""
import pytest

from migrator.model import Confidence, Status

from .conftest import by_rule


@pytest.mark.parametrize("code, api", [
    pytest.param("import torch as T\nT.cuda.synchronize()\n", "torch.cuda.synchronize", id="import-as"),
    pytest.param("from torch import cuda\ncuda.synchronize()\n", "torch.cuda.synchronize", id="from-import-module"),
    pytest.param("from torch.cuda import synchronize as sync\nsync()\n", "torch.cuda.synchronize", id="from-import-as"),
    pytest.param("import torch.cuda\ntorch.cuda.empty_cache()\n", "torch.cuda.empty_cache", id="import-dotted"),
    pytest.param("def f():\n    import torch\n    torch.cuda.empty_cache()\n", "torch.cuda.empty_cache",
                 id="function-local-import"),
    pytest.param("from torch.cuda.amp import autocast as ac\nwith ac():\n    pass\n", "torch.cuda.amp.autocast",
                 id="amp-alias"),
])
def test_import_forms(scan_code, code, api):
    assert api in [f.api for f in scan_code(code)]


def test_shadowed_name_is_not_torch(scan_code):
    code = "import torch\ndef f(torch):\n    torch.cuda.synchronize()\n"
    assert "torch.cuda.synchronize" not in [f.api for f in scan_code(code)]


def test_relative_import_and_constant_across_modules(scan_tree):
    report = scan_tree({
        "pkg/__init__.py": "",
        "pkg/config.py": "DEVICE = 'cuda:0'\n",
        "pkg/train.py": "import torch\nfrom .config import DEVICE\n\ndef step(x):\n    return x.to(DEVICE)\n",
    })
    moves = [f for f in report.findings if f.rule == "device-move"]
    assert [(f.path, f.span.line) for f in moves] == [("pkg/train.py", 5)]
    verdict = moves[0].verdicts["cann"]
    assert verdict.status == Status.REWRITE and "DEVICE" in verdict.message and not verdict.fixable
    assert [(f.path, f.rule) for f in report.findings if f.path == "pkg/config.py"] == [
        ("pkg/config.py", "device-string")]


def test_device_from_conditional_and_torch_device(scan_code):
    code = ("import torch\n"
            "def main(rank):\n"
            "    device = torch.device('cuda', rank) if torch.cuda.is_available() else torch.device('cpu')\n"
            "    model = torch.nn.Linear(2, 2).to(device)\n")
    findings = scan_code(code)
    move = by_rule(findings, "device-move")
    assert len(move) == 1 and move[0].span.line == 4
    assert "line 3" in move[0].verdicts["cann"].message
    assert any(f.api == "torch.cuda.is_available" for f in findings)


def test_not_findings(scan_code):
    code = ('"""Trains on cuda with nccl."""\n'
            "import logging\nimport torch\n"
            "NCCL_TIMEOUT = 30\n"
            "logging.info('moving model to cuda')\n"
            "x = torch.zeros(3, device='cpu')\n"
            "def f(d):\n    '''Put on cuda.'''\n    return torch.ones(2).to(d)\n")
    findings = scan_code(code)
    assert not [f for f in findings if f.category.value in ("device", "distributed")], findings


def test_method_on_repo_class_is_not_a_tensor(scan_code):
    code = ("import torch\n"
            "class Meter:\n    def to(self, unit):\n        return self\n    def cuda(self):\n        return self\n"
            "m = Meter()\nm.to('cuda')\nm.cuda()\n")
    assert not [f for f in scan_code(code) if f.rule.startswith("device")]


def test_module_method_is_resolved_and_tensor_method_heuristic(scan_code):
    code = ("import torch.nn as nn\nimport torch\n"
            "class Net(nn.Module):\n    def forward(self, x):\n        return x.cuda()\n"
            "net = Net()\nnet.cuda()\n")
    moves = by_rule(scan_code(code), "device-move")
    confidence = {f.span.line: (f.api, f.confidence) for f in moves}
    assert confidence[5] == ("torch.Tensor.cuda", Confidence.HEURISTIC)
    assert confidence[7] == ("torch.nn.Module.cuda", Confidence.RESOLVED)


def test_backend_spellings(scan_code):
    code = ("import os\nimport torch.distributed as dist\n"
            "BACKEND = 'nccl'\n"
            "def a():\n    dist.init_process_group('nccl')\n"
            "def b():\n    dist.init_process_group(backend=BACKEND)\n"
            "def c():\n    dist.init_process_group(backend=os.environ.get('DIST_BACKEND', 'nccl'))\n"
            "def d(args):\n    return args.backend == 'nccl'\n")
    findings = by_rule(scan_code(code), "collective-backend")
    lines = sorted(f.span.line for f in findings)
    assert lines == [3, 5, 7, 9, 11]
    fixed = [f for f in findings if f.span.line == 5][0].verdicts
    assert fixed["cann"].suggestion == "dist.init_process_group('hccl')" and fixed["cann"].fixable
    assert fixed["neuware"].suggestion == "dist.init_process_group('cncl')"
    assert fixed["kunlun"].status == Status.SUPPORTED


def test_suggestions_come_from_vendor_tables(scan_code):
    findings = scan_code("import torch\ntorch.cuda.synchronize()\nx = torch.ones(2).cuda(non_blocking=True)\n")
    sync = [f for f in findings if f.api == "torch.cuda.synchronize"][0].verdicts
    assert sync["cann"].suggestion == "torch_npu.npu.synchronize()"
    assert "torch_api_support.ascend-docs" in sync["cann"].source
    assert sync["neuware"].suggestion == "torch.mlu.synchronize()"
    move = [f for f in findings if f.rule == "device-move"][0].verdicts
    assert move["cann"].suggestion == "torch.ones(2).npu(non_blocking=True)"
    assert move["neuware"].suggestion == "torch.ones(2).mlu(non_blocking=True)"


def test_unsupported_api_is_reported_from_docs(scan_code):
    findings = scan_code("import torch\nu = torch.cuda.memory_usage()\n")
    assert findings[0].verdicts["cann"].status == Status.UNSUPPORTED


def test_op_use_is_recorded_with_its_qualified_name_and_ops(scan_code):
    findings = by_rule(scan_code("import torch.nn.functional as F\ny = F.gelu(1)\n"), "torch-op")
    assert findings[0].api == "torch.nn.functional.gelu"
    assert findings[0].ops == ("aten::gelu", "aten::gelu_backward")


def test_unknown_torch_api_is_unknown_never_supported(scan_code):
    findings = by_rule(scan_code("import torch\ny = torch.some_future_op(1)\n"), "torch-op")
    assert {v.status for v in findings[0].verdicts.values()} == {Status.UNKNOWN}


def test_data_parallel_flagged_and_ddp_supported(scan_code):
    findings = scan_code("import torch.nn as nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
                         "a = nn.DataParallel(nn.Linear(1, 1))\nb = DDP(nn.Linear(1, 1))\n")
    dp = by_rule(findings, "data-parallel")[0].verdicts
    assert dp["cann"].status == Status.REWRITE and "DistributedDataParallel" in dp["cann"].suggestion
    ddp = by_rule(findings, "distributed-wrapper")[0].verdicts
    assert ddp["cann"].status == Status.SUPPORTED


def test_fingerprint_survives_lines_added_above(scan_tree, tmp_path):
    first = scan_tree({"mod.py": "import torch\ntorch.cuda.synchronize()\n"}).findings
    second = scan_tree({"mod.py": "import torch\n\n\nx = 1\ntorch.cuda.synchronize()\n"}).findings
    assert [f.id for f in first] == [f.id for f in second]
