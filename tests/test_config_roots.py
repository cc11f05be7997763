"""The code's use of a configuration value points at the configuration line (`root`): one choice, one item."""
from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

TRAIN = '''import argparse
import torch
import torch.distributed as dist
import yaml
from omegaconf import OmegaConf


def setup(cfg, rank):
    dist.init_process_group(backend=cfg.dist.backend)
    if cfg.device == "cuda":
        torch.cuda.set_device(rank)
        return torch.device(cfg.device, rank)
    return torch.device("cpu")


def parse():
    parser = argparse.ArgumentParser(description="device: cuda or cpu")
    parser.add_argument("--log-backend", default="nccl")
    with open("configs/defaults.yaml") as f:
        parser.set_defaults(**yaml.safe_load(f))
    return parser.parse_args()


def to_device(x, cfg):
    if x.device.type == "cuda":
        torch.cuda.synchronize()
    return x.to(cfg.get("eval_device", "cuda"))


cfg = OmegaConf.load("configs/train.yaml")
device = setup(cfg, 0)


class Timer:
    def __init__(self, device="cpu"):
        self.device = device

    def stop(self):
        if self.device == "cuda":
            torch.cuda.synchronize()
        else:
            pass
'''


def test_the_code_uses_are_sites_of_the_configuration_line(tmp_path):
    write_tree(tmp_path, {
        "train.py": TRAIN,
        "configs/train.yaml": "device: cuda\ndist:\n  backend: nccl\n",
        "configs/defaults.yaml": "log_backend: nccl\n",
        "configs/old.yaml": "eval_device: cuda\n",  # the trap: nothing reads it, so nothing points at it
    })
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann", "kunlun"]), jobs=1))
    at = {(f.path, f.span.line): f for f in report.judged}
    device_line, backend_line = at["configs/train.yaml", 1], at["configs/train.yaml", 3]
    # the comparison beside an `else` was 'supported' alone: once the file says npu it must change with it
    assert at["train.py", 10].root == device_line.id and at["train.py", 10].verdicts["cann"].status == Status.REWRITE
    assert at["train.py", 11].root == device_line.id and at["train.py", 11].verdicts["cann"].status == Status.REWRITE
    assert "configs/train.yaml:1" in at["train.py", 10].verdicts["cann"].message
    assert at["train.py", 10].verdicts["kunlun"].status == Status.SUPPORTED  # cuda stays cuda there
    assert at["train.py", 18].root == at["configs/defaults.yaml", 1].id  # an argparse default the YAML sets
    assert device_line.root is None and backend_line.root is None
    # a tensor's device test is no configuration key; a default of a key no read file sets stays its own item
    assert at["train.py", 25].root is None and at["train.py", 27].root is None
    assert ("configs/old.yaml", 1) not in at
    # an object's own attribute is set in its code, not read from the file: no root, still skipped off CUDA
    for line in (39, 40):
        assert at["train.py", line].root is None and at["train.py", line].verdicts["cann"].status == Status.SUPPORTED
