"""A model that refuses to train runs only inference (``project/refuses_training.py``): its methods and the
helpers only it calls are tooling; a model that trains, an abstract base and a vague ``forward`` keep theirs."""

from __future__ import annotations

import pytest

from migrator.model import Context

_REGISTRY = """
class Registry:
    def __init__(self):
        self.classes = {}

    def register_module(self):
        def add(cls):
            self.classes[cls.__name__] = cls
            return cls
        return add


MODELS = Registry()
"""

_COLOR_UTILS = """
import torch


def get_box_mask(box, size):
    mask = torch.zeros(size)
    if box.is_cuda:
        mask = mask.cuda()
    return mask
"""

_MODELS = """
import torch
from torch import nn

from pkg.color_utils import get_box_mask
from pkg.registry import MODELS


@MODELS.register_module()
class InstColorization(nn.Module):
    def colorize(self, x, box):
        return x * get_box_mask(box, x.shape).type(torch.cuda.FloatTensor)

    def train_step(self, data, optim_wrapper):
        \"\"\"Train step function.\"\"\"
        raise NotImplementedError({message!r})


@MODELS.register_module()
class Pix2Pix(nn.Module):
    def train_step(self, data, optim_wrapper):
        return torch.ones(1, device="cuda")
"""

_TRAIN = """
import torch
from pkg.registry import MODELS
import pkg.models


def main(name):
    model = MODELS.classes[name]()
    for _ in range(3):
        loss = model.train_step(None, None)
        loss.backward()


if __name__ == "__main__":
    main("Pix2Pix")
"""


def _scan(scan_tree, models):
    # (mmagic's configs name what a model runs: ``colorize`` is referred to, whatever calls it)
    return scan_tree({"pkg/__init__.py": "", "pkg/registry.py": _REGISTRY, "pkg/color_utils.py": _COLOR_UTILS,
                      "pkg/models.py": models, "train.py": _TRAIN,
                      "configs/inst_colorization.yaml": "model:\n  type: InstColorization\n  method: colorize\n"})


def _contexts(report, path, scope=""):
    return {f.context for f in report.judged if f.path == path and scope in f.scope}


@pytest.mark.parametrize("models, refuses", [
    # mmagic's InstColorization: registered like every model, its training step only raises
    (_MODELS.format(message="Instance Colorization has not supported training."), True),
    # an abstract base a user subclasses: not built, not registered, no base in the repository
    (_MODELS.format(message="").replace("@MODELS.register_module()\nclass InstColorization",
                                        "class InstColorization"), False),
    # a subclass in the repository overrides what its base leaves undone
    (_MODELS.format(message="") + "\n\nclass Colorizer(InstColorization):\n"
                                  "    def train_step(self, data, optim_wrapper):\n        return 0\n", False),
], ids=["a-registered-model-that-refuses", "an-abstract-base", "a-base-with-a-subclass"])
def test_what_only_a_model_that_refuses_to_train_runs_is_tooling(scan_tree, models, refuses):
    report = _scan(scan_tree, models)
    expected = {Context.TOOLING if refuses else Context.TRAINING}
    assert _contexts(report, "pkg/models.py", "InstColorization") == expected
    assert _contexts(report, "pkg/color_utils.py") == expected  # the helper only it calls
    assert _contexts(report, "pkg/models.py", "Pix2Pix") == {Context.TRAINING}


@pytest.mark.parametrize("message, refuses", [
    ("GLMASR only supports inference mode", True),  # funasr's inference-only wrapper
    ("use encode() and decode()", False),  # a model may train through another method
], ids=["forward-says-inference-only", "forward-left-to-other-methods"])
def test_a_forward_that_raises_refuses_training_only_where_it_says_so(scan_tree, message, refuses):
    models = _MODELS.format(message="").replace(
        "    def train_step(self, data, optim_wrapper):\n        \"\"\"Train step function.\"\"\"\n"
        "        raise NotImplementedError('')",
        f"    def forward(self, x):\n        raise NotImplementedError({message!r})")
    report = _scan(scan_tree, models)
    assert _contexts(report, "pkg/models.py", "InstColorization") == \
        {Context.TOOLING if refuses else Context.TRAINING}
