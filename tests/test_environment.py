import pytest

from migrator.model import Context, Status

from .conftest import by_rule


def test_shell_dockerfile_requirements(scan_tree):
    report = scan_tree({
        "run.sh": ("#!/bin/bash\n# nvidia-smi in a comment is not a call\nnvidia-smi -L\n"
                   "export CUDA_VISIBLE_DEVICES=0,1\nNCCL_DEBUG=INFO torchrun \\\n  --nproc_per_node 2 train.py "
                   "--dist-backend nccl\n"),
        "Dockerfile": "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install flash-attn xformers numpy\n",
        "requirements.txt": "torch==2.3.0+cu121\nnumpy\napex @ git+https://github.com/NVIDIA/apex\nnvidia-ml-py\n",
    })
    found = {(f.path, f.rule, f.span.line) for f in report.judged}
    assert ("run.sh", "nvidia-tool", 3) in found
    assert ("run.sh", "nvidia-tool", 2) not in found
    assert ("run.sh", "environment-variable", 4) in found
    assert ("run.sh", "environment-variable", 5) in found
    assert ("run.sh", "collective-backend", 5) in found
    assert ("Dockerfile", "nvidia-base-image", 1) in found
    assert {f.api for f in report.findings if f.path == "Dockerfile" and f.rule == "cuda-requirement"} == {
        "requirement:flash_attn", "requirement:xformers"}
    assert {f.api for f in report.findings if f.path == "requirements.txt"} == {
        "requirement:torch", "requirement:apex"}
    # NVML's bindings install anywhere, and no code here calls them (``project/unused_requirements.py``)
    (nvml,) = [f for f in report.judged if f.api == "requirement:pynvml"]
    assert {v.status for v in nvml.verdicts.values()} == {Status.SUPPORTED}


def test_environment_from_python_and_vendor_names(scan_code):
    findings = scan_code("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
                         "os.environ.setdefault('NCCL_BLOCKING_WAIT', '1')\nn = os.environ['LOCAL_RANK']\n")
    env = by_rule(findings, "environment-variable")
    assert [f.span.line for f in env] == [2, 3]
    neuware = env[0].verdicts["neuware"]
    assert neuware.status == Status.REWRITE and "MLU_VISIBLE_DEVICES" in neuware.message
    assert "torch_api.torch_mlu-r2.1_develop.yaml" in neuware.source
    assert env[1].verdicts["neuware"].suggestion.count("CNCL_BLOCKING_WAIT") == 1
    cann = env[0].verdicts["cann"]  # documented by CANN, but ordering differs: a rewrite `fix` applies only --unsafe
    assert cann.status == Status.REWRITE and "ASCEND_RT_VISIBLE_DEVICES" in cann.message and not cann.fixable
    assert "environment.yaml" in cann.source and "hiascend.com" in cann.message
    # torch_npu documents the HCCL switch (and still reads its old name): an exact rename
    blocking = env[1].verdicts["cann"]
    assert blocking.status == Status.REWRITE and blocking.fixable and "HCCL_BLOCKING_WAIT" in blocking.suggestion
    assert "gitcode.com/Ascend/pytorch" in blocking.message
    nccl_debug = scan_code("import os\nos.environ.setdefault('NCCL_DEBUG', 'INFO')\n")
    assert by_rule(nccl_debug, "environment-variable")[0].verdicts["cann"].status == Status.UNKNOWN


def test_environment_findings_are_named_by_what_the_line_is(scan_tree):
    report = scan_tree({
        "Dockerfile": "FROM nvcr.io/nvidia/pytorch:24.08-py3\nENV NCCL_P2P_DISABLE=1\nARG CUDA_HOME=/usr/local/cuda\n",
        "launch.sh": "export NCCL_DEBUG=INFO\nCUDA_VISIBLE_DEVICES=0 python train.py\n",
    })
    names = {(f.path, f.api) for f in by_rule(report.judged, "environment-variable")}
    assert names == {("Dockerfile", "ENV NCCL_P2P_DISABLE"), ("Dockerfile", "ARG CUDA_HOME"),
                     ("launch.sh", "export NCCL_DEBUG"), ("launch.sh", "CUDA_VISIBLE_DEVICES=")}


def test_messages_name_the_vendor_tool_and_stack_not_a_runtime_label(scan_tree):
    from migrator.maps.load import device_tools, resolve_targets

    report = scan_tree({"run.sh": "nvidia-smi -L\n", "Dockerfile": "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\n"})
    (tool,) = by_rule(report.findings, "nvidia-tool")
    (image,) = by_rule(report.findings, "nvidia-base-image")
    for target in resolve_targets(None):
        expected = device_tools()[target.id]["tools"]["nvidia-smi"]["to"]
        assert tool.verdicts[target.id].suggestion == expected and f"`{expected}`" in tool.verdicts[target.id].message
        assert device_tools()[target.id]["tools"]["nvidia-smi"]["doc"] in tool.verdicts[target.id].source
        for verdict in (tool.verdicts[target.id], image.verdicts[target.id]):
            assert target.runtime not in verdict.message and "substitute data" not in verdict.message
    assert {tool.verdicts[t].suggestion for t in ("cann", "neuware", "kunlun")} == {"npu-smi info", "cnmon", "xpu-smi"}


@pytest.mark.parametrize("script, context", [
    # BigGAN's scripts/: one launcher per run, named for what it runs
    ("sample.py", Context.TOOLING),
    ("train.py", Context.TRAINING),
], ids=["launches-a-sampler", "launches-training"])
def test_a_launcher_is_what_it_launches(scan_tree, script, context):
    launcher = f"#!/bin/bash\nCUDA_VISIBLE_DEVICES=0,1 python {script} \\\n--batch_size 50 --parallel\n"
    report = scan_tree({"scripts/run_cifar.sh": launcher, "sample.py": "import torch\nx = torch.ones(2).cuda()\n",
                        "train.py": "import torch\nx = torch.ones(2).cuda()\n"})
    found = [f for f in report.judged if f.path == "scripts/run_cifar.sh"]
    assert found and {f.context for f in found} == {context}
