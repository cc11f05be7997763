"""The ``dtype-limits`` rule."""

from __future__ import annotations

from ...model import Category, Status
from ..base import DocumentedRule
from ..examples import ByRuntime, Invalid, Valid

_BF16_PROJECT = ("import torch\nimport torch.nn as nn\n\nmodel = nn.Linear(64, 64)\n"
                 "with torch.autocast('cpu', dtype=torch.bfloat16):\n    y = model(torch.randn(8, 64))\n")


class DtypeLimits(DocumentedRule):
    """A 16-bit dtype the project chooses, where vendor notes on the ops it runs leave that dtype out.

    ## What it does
    Reports once, at the first place a project says it computes in bf16 or fp16 (an autocast's `dtype=`,
    `.bfloat16()` / `.half()`, `torch.bfloat16` as a `dtype=` argument, an autocast with no dtype (fp16 on
    CUDA), a `GradScaler`, a framework that sets precision from its configuration), the APIs whose vendor
    notes leave that dtype out on a target (the Ascend API lists: "`input`仅支持fp16，fp32"). Each use of
    such an API is a site of this finding (`root`): it keeps its own verdict and note, and is not counted
    again. An argument note the call passes stays that call's own finding. The same place is reported where
    a target's own ports train without that dtype (`kunlun@kl2`: Kunlunxin's R300 ports in FlagPerf switch
    fp16 off), whether or not a listed op bites.

    ## Why is this bad?
    One decision causes them all: `autocast(dtype=torch.bfloat16)` in an evaluation notebook makes five
    `nn.Linear` and a `cross_entropy` in the model code `partial`, and the place to act is the notebook's
    dtype (or a check of those ops in bf16 on the card), not each layer.

    ## Fix safety
    Never applied: choosing fp16 instead of bf16 changes numerics (fp16 needs loss scaling), and keeping the
    listed ops in fp32 costs memory. A decision for the engineer, with the list of ops it bears on.
    """

    name = "dtype-limits"
    category = Category.DTYPE
    summary = "a 16-bit dtype the project chooses that vendor notes on its ops leave out"
    examples = (
        Invalid(_BF16_PROJECT, expect=ByRuntime(Status.SUPPORTED, cann=Status.PARTIAL)),
        Valid(_BF16_PROJECT.replace("torch.bfloat16", "torch.float16")),  # the Linear note lists fp16
        Valid("import torch\nimport torch.nn as nn\n\nmodel = nn.Linear(64, 64)\ny = model(torch.randn(8, 64))\n"),
        # a set of dtypes to test against (timm's optimizers) chooses none
        Valid("import torch\nimport torch.nn as nn\n\n_LOW = (torch.float16, torch.bfloat16)\n"
              "model = nn.Linear(64, 64)\n"
              "\n\ndef step(x):\n    if x.dtype in _LOW:\n        x = x.float()\n    return model(x)\n"),
    )
