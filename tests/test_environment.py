from migrator.model import Status

from .conftest import by_rule


def test_shell_dockerfile_requirements(scan_tree):
    report = scan_tree({
        "run.sh": ("#!/bin/bash\n# nvidia-smi in a comment is not a call\nnvidia-smi -L\n"
                   "export CUDA_VISIBLE_DEVICES=0,1\nNCCL_DEBUG=INFO torchrun \\\n  --nproc_per_node 2 train.py "
                   "--dist-backend nccl\n"),
        "Dockerfile": "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install flash-attn xformers numpy\n",
        "requirements.txt": "torch==2.3.0+cu121\nnumpy\napex @ git+https://github.com/NVIDIA/apex\nnvidia-ml-py\n",
    })
    found = {(f.path, f.rule, f.span.line) for f in report.findings}
    assert ("run.sh", "nvidia-tool", 3) in found
    assert ("run.sh", "nvidia-tool", 2) not in found
    assert ("run.sh", "environment-variable", 4) in found
    assert ("run.sh", "environment-variable", 5) in found
    assert ("run.sh", "collective-backend", 5) in found
    assert ("Dockerfile", "nvidia-base-image", 1) in found
    assert {f.api for f in report.findings if f.path == "Dockerfile" and f.rule == "cuda-requirement"} == {
        "requirement:flash_attn", "requirement:xformers"}
    assert {f.api for f in report.findings if f.path == "requirements.txt"} == {
        "requirement:torch", "requirement:apex", "requirement:pynvml"}


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
    assert env[1].verdicts["cann"].status == Status.UNKNOWN
