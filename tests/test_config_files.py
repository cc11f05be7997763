"""Training configuration files (issue 44): DeepSpeed JSON, accelerate's launch config, Hydra / OmegaConf YAML,
Lightning's settings in them, mmengine Python configs and `.deepspeed_env`. A value is a finding at its line only
where something reads its file; each family has its trap (a file nothing names, a `cuda` in a comment, a
`cpu` / `mps` value already right, a config under `tests/`). The reader is safe on hostile YAML, and `fix`
writes a value in place, keeping comments and order."""

import time

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.model import FileStatus, Status
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

HYDRA_LIGHTNING = """\
import hydra
import lightning as L


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    trainer = L.Trainer(accelerator=cfg.trainer.accelerator, precision=cfg.trainer.precision)
    trainer.fit(None)
"""

CONFIG_YAML = """\
# top-level Hydra config
defaults:
  - trainer: gpu
  - _self_

device: cuda   # the model's device; a cuda in a comment is not a value
seed: 42
dist:
  backend: nccl
"""

TRAINER_GPU = "accelerator: gpu\ndevices: 8\nprecision: 16-mixed\nstrategy: ddp\n"

DS_CONFIG = """\
{
  "train_micro_batch_size_per_gpu": "auto",
  "fp16": {"enabled": true},
  "amp": {"enabled": true, "opt_level": "O1"},
  "optimizer": {"type": "OneBitAdam", "params": {"lr": 1e-4, "comm_backend_name": "nccl"}},
  "zero_optimization": {
    "stage": 3,
    "offload_param": {"device": "nvme", "nvme_path": "/local_nvme"},
    "offload_optimizer": {"device": "cpu"}
  }
}
"""

HF_DEEPSPEED = """\
from transformers import Trainer, TrainingArguments


def main(model):
    args = TrainingArguments(output_dir="out", deepspeed="configs/ds_zero3.json")
    Trainer(model=model, args=args).train()
"""

ACCELERATE = """\
compute_environment: LOCAL_MACHINE
distributed_type: MULTI_GPU
gpu_ids: 0,1,2,3
mixed_precision: fp16
deepspeed_config:
  deepspeed_config_file: configs/ds_zero3.json
"""

OMEGACONF = """\
import torch
import torch.distributed as dist
from omegaconf import OmegaConf

cfg = OmegaConf.load("configs/speech.yaml")


def main():
    dist.init_process_group(backend=cfg.dist_backend)
    return torch.nn.Linear(4, 4).to(cfg.device)
"""

SPEECH = "device: cuda:0\ndist_backend: nccl\nfallback_device: cpu\nmac_device: mps\n"


def _found(report, path=None):
    """(path, line, rule) of every finding (in ``path``)."""
    return sorted((f.path, f.span.line, f.rule) for f in report.findings if path is None or f.path == path)


def test_hydra_config_folder_is_read_with_lightnings_settings(scan_tree):
    report = scan_tree({"train.py": HYDRA_LIGHTNING, "conf/config.yaml": CONFIG_YAML,
                        "conf/trainer/gpu.yaml": TRAINER_GPU,
                        "conf/trainer/cpu.yaml": "accelerator: cpu\nprecision: bf16-mixed\n"})
    assert _found(report, "conf/config.yaml") == [("conf/config.yaml", 6, "device-string"),
                                                  ("conf/config.yaml", 9, "collective-backend")]
    assert _found(report, "conf/trainer/gpu.yaml") == [("conf/trainer/gpu.yaml", 1, "config-setting"),
                                                       ("conf/trainer/gpu.yaml", 3, "config-setting")]
    accelerator = next(f for f in report.findings if f.api == "config:accelerator")
    cann = accelerator.verdicts["cann"]
    assert cann.status == Status.REWRITE and "No supported gpu backend found!" in cann.message
    assert "read by train.py:5" in cann.message and "accelerator_connector.py" in cann.source
    assert accelerator.verdicts["kunlun"].status == Status.SUPPORTED
    device = next(f for f in report.findings if f.rule == "device-string")
    assert (device.span.col, device.verdicts["cann"].suggestion) == (8, "device: npu")
    # what Lightning maps per device itself is coverage, with its file
    assert any(f.api == "config:strategy" for f in report.covered)


def test_deepspeed_json_read_by_the_trainer_arguments(scan_tree):
    report = scan_tree({"train.py": HF_DEEPSPEED, "configs/ds_zero3.json": DS_CONFIG})
    by_api = {f.api: f for f in report.findings}
    assert sorted((f.span.line, f.api) for f in by_api.values()) == [
        (4, "config:amp.enabled"), (5, "config:optimizer.params.comm_backend_name"),
        (8, "config:zero_optimization.offload_param.device")]
    amp = by_api["config:amp.enabled"].verdicts
    assert amp["cann"].status == amp["neuware"].status == Status.REWRITE and "apex" in amp["cann"].message
    assert "Ascend's apex build" in amp["cann"].message and amp["kunlun"].status == Status.UNKNOWN
    backend = by_api["config:optimizer.params.comm_backend_name"].verdicts
    assert (backend["cann"].status, backend["cann"].suggestion, backend["cann"].fixable) == (Status.REWRITE, "hccl",
                                                                                             True)
    assert backend["neuware"].status == Status.UNSUPPORTED and "PackbitsBuilder" in backend["neuware"].message
    assert "microsoft/DeepSpeed@38327e07f6cd" in backend["cann"].source
    nvme = by_api["config:zero_optimization.offload_param.device"].verdicts
    assert (nvme["cann"].status, nvme["neuware"].status) == (Status.SUPPORTED, Status.REWRITE)
    # DeepSpeed runs fp16 and a CPU optimizer offload on npu and mlu itself: coverage
    assert {f.api for f in report.covered} >= {"config:fp16.enabled", "config:zero_optimization.offload_optimizer"
                                                                       ".device"}


def test_accelerate_config_named_by_a_launch_script_and_the_deepspeed_file_it_names(scan_tree):
    report = scan_tree({"scripts/launch.sh": "accelerate launch --config_file configs/accelerate.yaml train.py\n",
                        "train.py": "import torch\n", "configs/accelerate.yaml": ACCELERATE,
                        "configs/ds_zero3.json": DS_CONFIG})
    assert [f for f in report.findings if f.path == "configs/accelerate.yaml"] == []  # accelerate maps them itself
    covered = {f.api for f in report.covered if f.path == "configs/accelerate.yaml"}
    assert covered == {"config:distributed_type", "config:mixed_precision"}
    # exported as ASCEND_RT_VISIBLE_DEVICES / MLU_VISIBLE_DEVICES; what Kunlunxin's shim reads is a data gap
    assert "config:gpu_ids" in {f.api for f in report.validate}
    assert {f.path for f in report.findings} >= {"configs/ds_zero3.json"}  # read through the accelerate config
    amp = next(f for f in report.findings if f.api == "config:amp.enabled")
    assert "read by configs/accelerate.yaml:6" in amp.verdicts["cann"].message


def test_omegaconf_load_names_its_file_and_correct_values_stay_silent(scan_tree):
    report = scan_tree({"train.py": OMEGACONF, "configs/speech.yaml": SPEECH})
    assert _found(report, "configs/speech.yaml") == [("configs/speech.yaml", 1, "device-string"),
                                                     ("configs/speech.yaml", 2, "collective-backend")]


@pytest.mark.parametrize("files", [
    pytest.param({"train.py": OMEGACONF, "old/speech.yaml": SPEECH}, id="yaml-nothing-names"),
    pytest.param({"train.py": HYDRA_LIGHTNING, "experiments/trainer.yaml": TRAINER_GPU},
                 id="yaml-outside-the-hydra-folder"),
    pytest.param({"train.py": "import torch\n", "ds_config.json": DS_CONFIG}, id="deepspeed-json-nothing-names"),
    pytest.param({"train.py": "import torch\n# see ds_config.yaml for the old setup\n", "other.yaml": SPEECH},
                 id="a-comment-naming-another-file"),
    pytest.param({"train.py": "import torch\n", ".deepspeed_env": "NCCL_SOCKET_IFNAME=eth0\n"},
                 id="deepspeed-env-without-deepspeed"),
    pytest.param({"train.py": "import torch\ncfg = 'conf.yaml'\n", "conf.yaml": "trainer:\n  accelerator: gpu\n"},
                 id="lightning-key-in-a-project-without-lightning"),
    pytest.param({"train.py": HYDRA_LIGHTNING, "conf/config.yaml": "trainer:\n  accelerator: mps\n"
                                                                   "  precision: 16-mixed\n"},
                 id="lightning-mps-autocasts-itself"),
    pytest.param({"train.py": OMEGACONF, "configs/speech.yaml": "note: run on cuda when you can\n"
                                                                "device: cpu  # was cuda\n"},
                 id="cuda-in-prose-and-comments"),
])
def test_config_traps_are_silent(scan_tree, files):
    report = scan_tree(files)
    assert [f for f in report.findings if not f.path.endswith(".py")] == []


def test_unread_config_is_listed_with_why(scan_tree):
    report = scan_tree({"train.py": OMEGACONF, "configs/speech.yaml": SPEECH, "old/speech.yaml": SPEECH})
    entry = next(r for r in report.files if r.file.rel == "old/speech.yaml")
    assert entry.file.kind.value == "training-config" and "not named by any code" in entry.reason


def test_config_under_tests_is_test_context(scan_tree):
    report = scan_tree({"tests/test_cfg.py": "from omegaconf import OmegaConf\n"
                                             "cfg = OmegaConf.load('tests/fixtures/cfg.yaml')\n",
                        "tests/fixtures/cfg.yaml": "device: cuda\n"})
    [finding] = [f for f in report.judged if f.path == "tests/fixtures/cfg.yaml"]
    assert finding.context.value == "test"


@pytest.mark.parametrize("script, config", [
    pytest.param("deepspeed train.py --deepspeed ds.json\n", "ds.json", id="deepspeed-flag"),
    pytest.param("torchrun train.py --deepspeed_config=$ROOT/configs/ds.json\n", "configs/ds.json",
                 id="variable-prefix"),
    pytest.param("python train.py \\\n  --config configs/ds.json\n", "configs/ds.json", id="continued-line"),
])
def test_launch_scripts_name_configs(scan_tree, script, config):
    report = scan_tree({"run.sh": script, "train.py": "import torch\n", config: DS_CONFIG})
    assert {f.path for f in report.findings if f.rule == "config-setting"} == {config}


def test_deepspeed_env_is_read_where_deepspeed_launches(scan_tree):
    report = scan_tree({"run.sh": "deepspeed --hostfile hostfile train.py\n", "train.py": "import torch\n",
                        ".deepspeed_env": "NCCL_SOCKET_IFNAME=eth0\n", "hostfile": "worker-1 slots=8\n"})
    [finding] = [f for f in report.findings if f.path == ".deepspeed_env"]
    assert finding.rule == "environment-variable" and "deepspeed launcher" in finding.verdicts["cann"].message


@pytest.mark.parametrize("config, count, to_validate", [
    # mmcv 1.x's dist_params: its pytorch launcher picks the target's backend, slurm and mpi pass it on
    pytest.param("dist_params = dict(backend='nccl')\ndevice = 'cuda'\n", 1, 1, id="mmcv-nccl-and-cuda"),
    pytest.param("dist_params = dict(backend='gloo')\ndevice = 'cpu'\n", 0, 0, id="mmcv-cpu-is-right"),
])
def test_mmcv_python_configs(scan_tree, config, count, to_validate):
    report = scan_tree({"configs/faster_rcnn.py": config})
    assert len(_found(report, "configs/faster_rcnn.py")) == count
    assert len([f for f in report.validate if f.rule == "collective-backend"]) == to_validate


def test_kunlun_generation_choices_apply_in_configs(scan_tree):
    report = scan_tree({"train.py": OMEGACONF, "configs/speech.yaml": SPEECH}, ["kunlun@kl2"])
    backend = next(f for f in report.judged if f.rule == "collective-backend" and f.path.endswith(".yaml"))
    assert backend.verdicts["kunlun"].status == Status.PARTIAL and "xccl" in backend.verdicts["kunlun"].message


# ---------------------------------------------------------------------------------------- untrusted input


@pytest.mark.parametrize("text, reason", [
    pytest.param("device: [cuda\n", "not valid YAML (line 2)", id="malformed"),
    pytest.param("device: !!python/object/apply:os.mkdir ['MADE']\nbackend: nccl\n", None,
                 id="python-tag-never-built"),
    pytest.param("a: &a [cuda, cuda]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: &d [*c, *c, *c, *c]\n"
                 "e: [*d, *d, *d, *d, *d, *d, *d, *d]\n", None, id="aliases-not-expanded"),
    pytest.param("device: cuda\nx: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply", id="deep-nesting"),
    pytest.param(b"device: cuda\n\x00\x01", "binary file", id="binary"),
])
def test_hostile_yaml_is_a_file_error_or_read_safely(tmp_path, text, reason):
    write_tree(tmp_path, {"train.py": "from omegaconf import OmegaConf\ncfg = OmegaConf.load('cfg.yaml')\n",
                          "cfg.yaml": text})
    started = time.monotonic()
    report = scan(ScanRequest(tmp_path, resolve_targets(None), jobs=1))
    assert time.monotonic() - started < 20
    entry = next(r for r in report.files if r.file.rel == "cfg.yaml")
    assert not (tmp_path / "MADE").exists()
    if reason is None:
        assert entry.status == FileStatus.OK
    else:
        assert entry.status == FileStatus.ERROR and reason in entry.reason


def test_large_json_is_data_not_configuration(scan_tree):
    report = scan_tree({"train.py": "import torch\nvocab = 'vocab.json'\n",
                        "vocab.json": '{"cuda": 1, ' + ", ".join(f'"w{i}": {i}' for i in range(40000)) + "}"})
    assert "vocab.json" not in {r.file.rel for r in report.files}


# ---------------------------------------------------------------------------------------- fix


def _fix(tmp_path, files, target):
    write_tree(tmp_path, files)
    chosen = resolve_targets([target])
    result = fix_report(tmp_path, scan(ScanRequest(tmp_path, chosen, jobs=1)), chosen[0])
    return {f.path: f.new for f in result.changed}


def test_fix_rewrites_yaml_values_in_place_keeping_comments_and_order(tmp_path):
    yaml_text = ("# speech recipe\ncuda_device: cuda  # the card (cuda)\ndist_backend: nccl\n"
                 "fallback_device: cpu\n")
    changed = _fix(tmp_path, {"train.py": OMEGACONF, "configs/speech.yaml": yaml_text}, "cann")
    assert changed["configs/speech.yaml"] == ("# speech recipe\ncuda_device: npu  # the card (cuda)\n"
                                              "dist_backend: hccl\nfallback_device: cpu\n")


@pytest.mark.parametrize("target, line", [
    pytest.param("cann", '"optimizer": {"type": "OneBitAdam", "params": {"lr": 1e-4, "comm_backend_name": "hccl"}},',
                 id="cann-hccl-one-bit-backend"),
    pytest.param("neuware", '"offload_param": {"device": "cpu", "nvme_path": "/local_nvme"},',
                 id="neuware-offload-to-cpu"),
])
def test_fix_writes_the_value_deepspeeds_code_names(tmp_path, target, line):
    changed = _fix(tmp_path, {"train.py": HF_DEEPSPEED, "configs/ds_zero3.json": DS_CONFIG}, target)
    new = changed["configs/ds_zero3.json"]
    assert line in new and new.count("\n") == DS_CONFIG.count("\n")
    assert '"amp": {"enabled": true, "opt_level": "O1"}' in new  # a suggestion only: left for a hand


LIGHTNING_CLI = "from lightning.pytorch.cli import LightningCLI\n\nLightningCLI()\n"
HF_ARGS = ("from transformers import HfArgumentParser, TrainingArguments\n\n"
           "args = HfArgumentParser(TrainingArguments).parse_yaml_file('recipes/sft.yaml')\n")


@pytest.mark.parametrize("files, config, api, rule, cann", [
    pytest.param({"main.py": LIGHTNING_CLI, "run.sh": "python main.py fit --config configs/default.yaml\n"},
                 "trainer:\n  accelerator: cuda\n", "config:trainer.accelerator", "config-setting", Status.REWRITE,
                 id="lightning-cli-accelerator-cuda-is-lightnings-not-a-device-string"),
    pytest.param({"sft.py": HF_ARGS}, "output_dir: out\ntf32: true\n", "config:tf32", "config-setting",
                 Status.REWRITE, id="hf-arguments-yaml-tf32"),
    pytest.param({"sft.py": HF_ARGS}, "output_dir: out\nddp_backend: nccl\n", "config:ddp_backend", "config-setting",
                 Status.SUPPORTED, id="hf-ddp-backend-accelerate-overrides"),
])
def test_a_frameworks_key_is_judged_as_the_framework_reads_it(scan_tree, files, config, api, rule, cann):
    path = "configs/default.yaml" if "main.py" in files else "recipes/sft.yaml"
    report = scan_tree({**files, path: config})
    [finding] = [f for f in report.judged if f.path == path]
    assert (finding.api, finding.rule, finding.verdicts["cann"].status) == (api, rule, cann)
