"""The ``tune-host-sync`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Status, TuneKind, Usage
from ...resolve.vocabulary import Vocabulary
from ..examples import Invalid, Valid
from . import _SYNC_APIS, TuneRule, _site_findings, _trains, _usage_findings


class HostSync(TuneRule):
    """A host-device synchronisation on every training step.

    ## What it does
    Finds, on the training step only, `.item()`, `.tolist()`, `.numpy()`, `.cpu()` / `.to("cpu")`,
    `torch.cuda.synchronize()`, printing or logging a tensor (`print(f"{loss}")`,
    `writer.add_scalar("loss", loss, step)`), and Python control flow on a tensor's value
    (`if torch.isnan(loss).any():`, `if loss > 10:`). One line gets one finding (`x.cpu().numpy()` is one
    read back). Code under `if step % N == 0:` runs once every N steps and is left alone.

    ## Why is this bad?
    The host stops queueing work until the device has run everything queued before: the device then idles
    until the host catches up. Ascend's guide asks to remove such calls from the step; PyTorch's documents the
    same for any accelerator.

    ## Fix safety
    Never applied: keeping a running sum on the device and reading it every N steps changes what is logged.
    """

    name = "tune-host-sync"
    pitfall = "host-sync"
    summary = "host-device synchronisation on every training step"
    vocabulary = Vocabulary(methods=frozenset({"item", "tolist", "numpy", "cpu", "to"}))
    examples = (
        Invalid(_trains(step="        print(f\"loss {loss.item():.3f}\")"), expect=Status.PARTIAL),
        Invalid(_trains(step="        if torch.isnan(loss).any():\n            break"), expect=Status.PARTIAL),
        Valid(_trains(step="        if step % 100 == 0:\n            print(loss.item())")),
        Valid("import torch\n\n\ndef evaluate(model, x):\n    return model(x).argmax(-1).cpu().tolist()\n\n\n"
              "if __name__ == \"__main__\":\n    evaluate(torch.nn.Linear(2, 2), torch.ones(2))\n"),
    )

    def reads(self, usage: Usage) -> bool:
        return usage.api in _SYNC_APIS or (usage.api == "torch.Tensor.to" and _sync(usage) is not None)

    def findings(self, results, judged, step, node_of, ctx):  # a line's sync usage comes first, then its site
        found = _usage_findings(self, results, _sync, step, node_of, ctx)
        sites = _site_findings(
            self, results, frozenset({TuneKind.TENSOR_PRINT, TuneKind.TENSOR_BRANCH}), step, node_of, ctx,
            lambda site: (f"`{site.snippet}` reads `{site.detail}` back to the host to show it"
                          if site.kind == TuneKind.TENSOR_PRINT else
                          f"`{site.detail}` is read back to the host to decide a branch"),
            lambda site: "torch.Tensor.__format__" if site.kind == TuneKind.TENSOR_PRINT else "torch.Tensor.__bool__")
        return found + sites


def _sync(usage: Usage) -> Optional[str]:
    if usage.api == "torch.Tensor.to":
        first = next((a.value for a in usage.args if a.keyword in (None, "device")), None)
        return "`.to(\"cpu\")` copies the tensor to the host" if first is not None and first.text == "cpu" else None
    return _SYNC_APIS.get(usage.api)
