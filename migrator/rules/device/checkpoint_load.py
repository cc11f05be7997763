"""The ``checkpoint-load`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.load import TargetMap
from ...model import Category, Evidence, Grade, Manual, Status, Usage, UsageKind, Verdict
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid

_LOADS = frozenset({"torch.load", "torch.serialization.load"})
_SOURCE = "serialization.torch-2.13.0.py (torch/serialization.py of the torch 2.13.0 wheel, BSD-3-Clause)"
_QUOTE = ('f"Attempting to deserialize object on a {backend_name.upper()} " / '
          'f"device but torch.{backend_name}.is_available() is False. "')
#: what may pass ``map_location`` the call cannot show: ``torch.load(f, *args)``, ``torch.load(f, **kwargs)``
_UNPACKED = ("*", "**")


class CheckpointLoad(Rule):
    """`torch.load` without `map_location`.

    ## What it does
    Finds `torch.load(path)` calls that name no `map_location`. Such a call puts every tensor back on the device
    it was saved from; a checkpoint saved from a CUDA model (most released weights and every resumed run) holds
    CUDA tensors, and torch raises `Attempting to deserialize object on a CUDA device but
    torch.cuda.is_available() is False` where there is no CUDA (torch 2.13's `torch/serialization.py`). The
    vendors' plugins replace `torch.load` (torch_npu) or leave it (torch_mlu) without remapping a CUDA location.

    ## Why is this bad?
    Whether the file holds CUDA tensors is the checkpoint's to say, not the code's: a note to validate with the
    project's own weights, never work by itself. A runtime that presents itself as CUDA (Kunlunxin) restores them
    as written.

    ## Fix safety
    A suggestion: `map_location='cpu'` (then the model's `.to(device)` moves the weights), or the target's device.
    """

    name = "checkpoint-load"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL})
    category = Category.DEVICE
    call_stays = True
    summary = "torch.load without map_location: a checkpoint saved on CUDA raises where there is none"
    examples = (
        # facexlib's alignment model: released weights saved from CUDA, loaded as written
        Invalid("import torch\nstate = torch.load('alignment_WFLW_4HG.pth')\n",
                expect=ByRuntime(renamed=Status.PARTIAL, kept=Status.SUPPORTED)),
        Valid("import torch\nstate = torch.load('model.pth', map_location='cpu')\n"),
        Valid("import torch\n\n\ndef load(path, **kwargs):\n    return torch.load(path, **kwargs)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in _LOADS:
            return None
        if len([a for a in usage.args if a.keyword is None]) > 1 or \
                any(a.keyword == "map_location" or a.keyword in _UNPACKED for a in usage.args):
            return None  # ``torch.load(f, 'cpu')``, ``map_location=...``, or what the call unpacks may name one
        return per_target(ctx, _verdict)


def _verdict(target: TargetMap) -> Verdict:
    """A CUDA location's fate on ``target``: restored as written where the runtime keeps CUDA's names, a note to
    validate (partial, on the vendor's note) where it renames them."""
    if target.runtime_facts.cuda_names != "renamed":
        return Verdict(Status.SUPPORTED, f"a CUDA location restores as written on {target.id}, whose runtime presents "
                       "itself as torch.cuda (substitute evidence, not validated per API)", _SOURCE)
    device = target.runtime_facts.kernel_device
    return Verdict(Status.PARTIAL, f"no `map_location`: each tensor goes back to the device it was saved from, so a "
                   f"checkpoint saved from a CUDA model raises on {target.id} (torch.cuda.is_available() is False "
                   f"there); pass `map_location='cpu'` or '{device}' where the file may hold CUDA tensors",
                   _SOURCE, fix=Manual("torch.load(..., map_location='cpu')"),
                   evidence=(Evidence(Grade.NOTE, _SOURCE, _QUOTE),))
