"""Training defined by frameworks and launched commands (issue 44): what each framework's own code does with a
device, backend or precision argument decides the verdict; spellings that choose a device or a backend
elsewhere than `device=`; commands launched from Python."""
import shutil

import pytest

from migrator.mapsbuild.build import MapsBuildError, build_maps
from migrator.model import Status

from .conftest import REPO, UPSTREAM

LIGHTNING = """\
import hydra
import lightning as L


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    trainer = L.Trainer(accelerator="gpu", devices=8, precision="16-mixed", strategy="ddp",
                        max_epochs=cfg.trainer.max_epochs)
    trainer.fit(None)
"""

HF = """\
from transformers import Trainer, TrainingArguments


def main(model):
    args = TrainingArguments(output_dir="out", fp16=True, tf32=True, ddp_backend="nccl")
    Trainer(model=model, args=args).train()
"""


def _one(report, rule):
    found = [f for f in report.judged if f.rule == rule]
    assert len(found) == 1, [(f.rule, f.snippet) for f in report.judged]
    return found[0]


def test_lightning_trainer_names_each_setting_and_its_source(scan_tree):
    finding = _one(scan_tree({"train.py": LIGHTNING}), "framework-argument")
    cann = finding.verdicts["cann"]
    assert cann.status == Status.REWRITE
    assert "No supported gpu backend found!" in cann.message  # the accelerator: Lightning raises
    assert "MixedPrecision(<precision>, 'npu')" in cann.message  # the precision flag autocasts on cuda
    assert "hccl" in cann.message and "strategy=ddp" in cann.message  # the strategy: what Lightning does
    assert "accelerator_connector.py" in cann.source and "Lightning-AI/pytorch-lightning@" in cann.source
    assert [e.grade.value for e in cann.evidence] == ["proof", "proof"]  # the strategy adds no work
    assert finding.verdicts["kunlun"].status == Status.SUPPORTED


def test_training_arguments_work_is_tf32_alone(scan_tree):
    finding = _one(scan_tree({"train.py": HF}), "framework-argument")
    for target in ("cann", "neuware"):
        verdict = finding.verdicts[target]
        assert verdict.status == Status.REWRITE and verdict.suggestion == "tf32=None"
        assert [e.quote for e in verdict.evidence if "tf32" in e.quote] and len(verdict.evidence) == 1
    assert finding.verdicts["kunlun"].status == Status.UNKNOWN  # what the shim reports is not in the data


@pytest.mark.parametrize("code", [
    pytest.param("import lightning as L\nt = L.Trainer(accelerator='cpu', precision='16-mixed')\n",
                 id="lightning-cpu-autocasts-on-cpu"),
    pytest.param("import lightning as L\nt = L.Trainer(accelerator='mps', precision='bf16-mixed')\n",
                 id="lightning-mps-fallback-is-already-correct"),
    pytest.param("import lightning as L\ndef f(cfg):\n    return L.Trainer(accelerator=cfg.accelerator)\n",
                 id="value-from-a-config"),
    pytest.param("from transformers import TrainingArguments\na = TrainingArguments('o', tf32=False)\n",
                 id="tf32-off"),
    pytest.param("import argparse\np = argparse.ArgumentParser()\n"
                 "p.add_argument('--accelerator', help='gpu or cuda for Lightning')\n", id="argparse-help-text"),
])
def test_framework_traps_are_not_work(scan_tree, code):
    report = scan_tree({"train.py": code})
    assert [f.snippet for f in report.findings if f.rule == "framework-argument"] == []


@pytest.mark.parametrize("code", [
    pytest.param("from transformers import TrainingArguments\na = TrainingArguments('o', ddp_backend='nccl')\n",
                 id="ddp-backend-accelerate-overrides"),
    pytest.param("from accelerate import Accelerator\nacc = Accelerator(mixed_precision='fp16')\n",
                 id="accelerate-fp16-on-npu-and-mlu"),
    # the accelerator written through a name (judged where it is set), so that the call tests the strategy alone
    pytest.param("import lightning as L\ndef make(accel):\n    return L.Trainer(accelerator=accel, strategy='ddp')\n",
                 id="lightning-ddp-backend-per-device"),
])
def test_what_the_framework_maps_itself_is_coverage_with_its_file(scan_tree, code):
    report = scan_tree({"train.py": code})
    assert [f for f in report.findings if f.rule == "framework-argument"] == []
    covered = next(f for f in report.covered if f.rule == "framework-argument")
    assert all("frameworks.yaml" in v.source and v.status == Status.SUPPORTED for v in covered.verdicts.values())


def test_a_framework_row_without_its_quote_fails_the_build(tmp_path):
    curated = tmp_path / "curated"
    shutil.copytree(REPO / "operator_maps" / "curated", curated)
    text = (curated / "frameworks.yaml").read_text(encoding="utf-8")
    (curated / "frameworks.yaml").write_text(text.replace("    quote: 'if is_torch_tf32_available()", "    q: '"),
                                             encoding="utf-8")
    with pytest.raises(MapsBuildError, match="transformers-tf32"):
        build_maps(UPSTREAM, curated)


@pytest.mark.parametrize("code, suggestion", [
    pytest.param("import torch.distributed as dist\ndist.init_process_group('cpu:gloo,cuda:nccl')\n",
                 "dist.init_process_group('cpu:gloo,npu:hccl')", id="per-device-backend"),
    pytest.param("import torch.distributed as dist\ndist.init_process_group(backend='cuda:nccl,cpu:gloo')\n",
                 "dist.init_process_group(backend='npu:hccl,cpu:gloo')", id="per-device-backend-cuda-first"),
    pytest.param("from torch.distributed.device_mesh import init_device_mesh\nm = init_device_mesh('cuda', (8,))\n",
                 "init_device_mesh('npu', (8,))", id="positional-mesh-device"),
    pytest.param("import torch\ng = torch.Generator('cuda')\n", "torch.Generator('npu')", id="positional-generator"),
])
def test_spellings_that_choose_a_device_or_backend(scan_tree, code, suggestion):
    report = scan_tree({"train.py": code})
    assert [f.verdicts["cann"].suggestion for f in report.findings] == [suggestion]


@pytest.mark.parametrize("code, found", [
    pytest.param("import subprocess\nsubprocess.check_output(['nvidia-smi', '-L'])\n", True, id="argument-list"),
    pytest.param("import subprocess\nsubprocess.run('nvidia-smi -L | wc -l', shell=True)\n", True, id="shell-string"),
    pytest.param("import subprocess\nsubprocess.run(['bash', '-c', 'nvidia-smi'])\n", True, id="bash-c"),
    pytest.param("import os\nos.popen('/usr/bin/nvidia-smi -q').read()\n", True, id="popen-full-path"),
    pytest.param("import subprocess\nsubprocess.run(['grep', 'nvidia-smi', 'log.txt'])\n", False,
                 id="tool-name-as-an-argument"),
    pytest.param("import subprocess\nsubprocess.run(['npu-smi', 'info'])\n", False, id="the-vendors-own-tool"),
])
def test_nvidia_tools_launched_from_python(scan_tree, code, found):
    report = scan_tree({"tools.py": code})
    assert bool([f for f in report.findings if f.rule == "nvidia-tool"]) is found


@pytest.mark.parametrize("code", [
    pytest.param("import lightning as L\nt = L.Trainer(accelerator='auto', max_epochs=3)\n", id="written"),
    pytest.param("import argparse\nimport lightning as L\np = argparse.ArgumentParser()\n"
                 "p.add_argument('--accelerator', default='auto')\nargs = p.parse_args()\n"
                 "t = L.Trainer(accelerator=args.accelerator)\n", id="a-command-line-default"),
])
def test_lightnings_auto_accelerator_falls_back_to_the_cpu_on_a_renamed_target(scan_tree, code):
    report = scan_tree({"train.py": code})
    (found,) = [f for f in report.findings if f.rule == "framework-argument"]
    cann = found.verdicts["cann"]
    assert cann.status == Status.REWRITE and "silently runs on the CPU" in cann.message
    assert found.verdicts["kunlun"].status == Status.SUPPORTED


ALPACA_TRAIN = """\
import transformers


def train():
    parser = transformers.HfArgumentParser((transformers.TrainingArguments,))
    (training_args,) = parser.parse_args_into_dataclasses()
    transformers.Trainer(model=None, args=training_args).train()
"""
_LAUNCH = ("torchrun --nproc_per_node=4 --master_port=12345 train.py \\\n    --bf16 True \\\n"
           "    --per_device_train_batch_size 4 \\\n    --gradient_accumulation_steps 8 \\\n    --tf32 True\n")


@pytest.mark.parametrize("readme, lines", [
    # Alpaca: no launch script; its README's shell blocks are how it trains
    pytest.param("# Alpaca\n\nTo fine-tune:\n\n```bash\n" + _LAUNCH + "```\n", [10], id="a-fenced-launch"),
    pytest.param("# Alpaca\n\n```\n$ " + _LAUNCH + "```\n", [8], id="an-unnamed-block-with-a-prompt"),
    pytest.param("# Alpaca\n\nWe train with --tf32 True and --per_device_train_batch_size 4 "
                 "--gradient_accumulation_steps 8.\n", [], id="prose-is-no-launch"),
    pytest.param("# Alpaca\n\n```python\nargs = parse('--per_device_train_batch_size 4 --gradient_accumulation_steps 8 "
                 "--tf32 True')\n```\n", [], id="a-python-block-is-no-launch"),
])
def test_a_readmes_documented_launch_of_a_training_arguments_script_is_read(scan_tree, readme, lines):
    report = scan_tree({"README.md": readme, "train.py": ALPACA_TRAIN}, ["cann"])
    found = [f for f in report.judged if f.path == "README.md"]
    assert sorted(f.span.line for f in found) == lines
    assert all(f.rule == "framework-argument" and f.verdicts["cann"].status == Status.REWRITE for f in found)
