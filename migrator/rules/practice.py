"""Practices that change memory or speed on the targets, judged over the whole project, not one call.

``no-mixed-precision``

What it does: finds a training step (an optimizer built and used) in a project that never enables 16-bit
mixed precision (no ``autocast``, no ``GradScaler``, no ``.half()`` / ``.bfloat16()``, no float16/bfloat16
dtype), and that does not hand precision to a framework that sets it from configuration (Lightning,
accelerate, DeepSpeed, transformers' Trainer).
Why: fp32 training holds activations at twice the bytes of bf16/fp16, and the targets' cards have less
memory than the H100 (``migrator memory`` says by how much, from the card data and a measured step).
Example: ``opt = torch.optim.AdamW(model.parameters())`` with no autocast anywhere.
Fix: ``with torch.autocast(device_type=<the target's device>, dtype=torch.bfloat16):`` around the forward
(a manual change: loss scaling and numerics need a look, so ``fix`` never applies it).
Verdict: ``partial`` on every target (it runs, at a cost); the finding names ``torch.autocast`` (what is
missing) at the first optimizer construction.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from ..model import Category, Confidence, FileResult, Finding, Status, Verdict
from ..resolve.vocabulary import Vocabulary
from .base import RuleContext, fingerprint

RULE = "no-mixed-precision"
_MIXED = ("torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
          "torch.amp.GradScaler", "torch.cuda.amp.GradScaler", "torch.Tensor.half", "torch.Tensor.bfloat16",
          "torch.nn.Module.half", "torch.nn.Module.bfloat16", "torch.float16", "torch.half", "torch.bfloat16")
_FRAMEWORKS = ("lightning", "pytorch_lightning", "accelerate", "deepspeed", "transformers.Trainer",
               "transformers.trainer", "colossalai", "mmengine", "mmcv.runner")
#: ``.half()`` is a 16-bit cast whatever the receiver is
VOCABULARY = Vocabulary(methods=frozenset({"half"}))
_NOT_OPTIMIZERS = ("torch.optim.lr_scheduler", "torch.optim.swa_utils", "torch.optim.Optimizer")


def practice_findings(results: Sequence[FileResult], ctx: RuleContext) -> List[Finding]:
    usages = [(r.file.rel, u) for r in results for u in r.usages]
    if any(u.api.startswith(_MIXED) for _, u in usages):
        return []
    if any(u.kind == "import" and u.api.startswith(_FRAMEWORKS) for _, u in usages):
        return []
    step = _first_optimizer(usages)
    if step is None:
        return []
    path, usage = step
    verdict = {t.id: Verdict(
        Status.PARTIAL,
        "the project trains in fp32: no autocast, GradScaler or 16-bit dtype anywhere; bf16/fp16 mixed precision "
        "holds activations in half the bytes, and the targets' cards have less memory than an H100 "
        "(`migrator memory` measures the fit)",
        "migrator practice rules",
        suggestion=f"with torch.autocast(device_type='{t.device_to}', dtype=torch.bfloat16): loss = model(batch)")
        for t in ctx.targets}
    # the finding names what is missing (autocast), at the line that starts training (the optimizer)
    return [Finding(id=fingerprint(RULE, path, "torch.autocast", usage.snippet, 0), rule=RULE, category=Category.AMP,
                    path=path, span=usage.span, api="torch.autocast", snippet=usage.snippet,
                    confidence=Confidence.HEURISTIC, verdicts=verdict, scope=usage.scope)]


def _first_optimizer(usages) -> Optional[tuple]:
    for path, usage in sorted(usages, key=lambda item: (item[0], item[1].span.line or 0)):
        if usage.kind == "call" and usage.api.startswith("torch.optim.") and not usage.api.startswith(_NOT_OPTIMIZERS):
            return path, usage
    return None
