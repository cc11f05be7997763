"""The ``device-string`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ...resolve.vocabulary import LiteralRole, Vocabulary
from ...resolve.modules import DECIDES_A_MESSAGE, PLACED_BY
from ..base import (DEVICE_STRING, Claim, Rule, RuleContext, Verdicts, device_string_verdict, literal_verdict,
                    per_target, placed_by, runs_on_a_note, with_role)
from ..examples import ByRuntime, Invalid, Valid


class DeviceString(Rule):
    """A CUDA device string in code, outside a call's device argument.

    ## What it does
    Finds `"cuda"` and `"cuda:N"` written as a constant (`DEVICE = "cuda"`), a default (an argparse
    `default=`, a parameter default), or compared with a device (`x.device.type == "cuda"`). Only exact
    device strings count: `"cuda"` inside a log message, a docstring or a name like `NCCL_TIMEOUT` is not
    a device.

    ## Why is this bad?
    The constant becomes a device later, and fails there on Ascend and Cambricon. A comparison fails
    silently: `x.device.type == "cuda"` is False on an `npu` tensor, so the CUDA branch is skipped and
    the code takes its CPU path without an error.

    ## Fix safety
    Safe where the string has a known role (an assignment, a default, a comparison): `cuda` becomes the
    target's device. A bare `"cuda"` with no known role (a dict key, a list item) may be looked up
    elsewhere by that spelling, so `fix` rewrites it only with `--unsafe`.
    """

    name = "device-string"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.LITERAL})
    category = Category.DEVICE
    summary = "a CUDA device string in code"
    vocabulary = Vocabulary(literals=(LiteralRole("torch.device", DEVICE_STRING),))
    examples = (
        Invalid("import torch\nDEVICE = 'cuda'\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nDEVICE = 'npu'\n",
                           neuware="import torch\nimport torch_mlu\nDEVICE = 'mlu'\n")),
        Invalid("import torch\ndef f(x):\n    if x.device.type == 'cuda':\n        return 1\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\ndef f(x):\n    if x.device.type == 'npu':\n"
                                "        return 1\n",
                           neuware="import torch\nimport torch_mlu\ndef f(x):\n    if x.device.type == 'mlu':\n"
                                   "        return 1\n")),
        Invalid("import argparse\np = argparse.ArgumentParser()\np.add_argument('--device', default='cuda:0')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch_npu\nimport argparse\np = argparse.ArgumentParser()\n"
                                "p.add_argument('--device', default='npu:0')\n",
                           neuware="import torch_mlu\nimport argparse\np = argparse.ArgumentParser()\n"
                                   "p.add_argument('--device', default='mlu:0')\n")),
        Invalid("import torch\nDEVICES = ['cpu', 'cuda']\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Valid("import torch\n'''Runs on cuda when available.'''\nx = 1\n"),
        Valid("import logging\nlogging.info('moving the model to cuda')\n"),
        Valid("NCCL_TIMEOUT = 30\n"),
        # alibi-detect's SVM: the test decides only whether a warning is shown
        Invalid("import warnings\nimport torch\ndef f(device):\n"
                "    if (isinstance(device, str) and device in ('gpu', 'cuda')) or \\\n"
                "            (isinstance(device, torch.device) and device.type == 'cuda'):\n"
                "        warnings.warn('with SGD only the Nystroem part runs on the GPU')\n",
                expect=Status.SUPPORTED),
        # ... but one that raises where the device is not CUDA stops the target's run
        Invalid("def f(device):\n    if device not in ('cpu', 'cuda'):\n        raise ValueError(device)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api != "torch.device":
            return None
        value = usage.args[0].value
        if (usage.context or "").startswith(PLACED_BY):
            return per_target(ctx, lambda t: placed_by(t, usage, device_string_verdict(t, value, usage.snippet)))
        verdicts = with_role(per_target(ctx, literal_verdict(
            usage, lambda t: device_string_verdict(t, value, usage.snippet))), usage)
        if usage.context == DECIDES_A_MESSAGE:
            return {k: runs_on_a_note(f"this test decides only whether a message is shown (its `if` has no other "
                                      f"way and only says something): on {k} the message is not shown and the run "
                                      f"is the same; to show it there too: {v.message}", v.source)
                    if v.status == Status.REWRITE else v for k, v in verdicts.items()}
        if usage.context in (None, "expression"):
            # a bare "cuda" with no known role (a dict key, a list item): rewriting it could change what code
            # elsewhere looks up, so `fix` applies it only with --unsafe
            verdicts = {k: v.held_back() for k, v in verdicts.items()}
        return verdicts
