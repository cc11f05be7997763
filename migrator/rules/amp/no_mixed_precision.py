"""The ``no-mixed-precision`` rule."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from ...contexts import path_context
from ...model import (Category, Confidence, Context, Evidence, FileResult, Finding, Grade, Status, Usage, UsageKind,
                      Verdict, fix_of)
from ...resolve.vocabulary import Vocabulary
from ..base import ProjectRule, RuleContext, fingerprint, usages_across_files
from ..examples import Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_IMPORT = UsageKind.IMPORT
_METHOD = UsageKind.METHOD

_MIXED = ("torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
          "torch.amp.GradScaler", "torch.cuda.amp.GradScaler", "torch.Tensor.half", "torch.Tensor.bfloat16",
          "torch.nn.Module.half", "torch.nn.Module.bfloat16", "torch.float16", "torch.half", "torch.bfloat16")


#: Frameworks that set precision from their configuration, where no code shows it (``project/dtypes`` too).
FRAMEWORKS = ("lightning", "pytorch_lightning", "accelerate", "deepspeed", "transformers.Trainer",
              "transformers.trainer", "colossalai", "mmengine", "mmcv.runner")


_NOT_OPTIMIZERS = ("torch.optim.lr_scheduler", "torch.optim.swa_utils", "torch.optim.Optimizer")


_TRAINS = ("import torch\nmodel = torch.nn.Linear(4, 4)\nopt = torch.optim.AdamW(model.parameters())\n"
           "loss = model(torch.ones(4)).sum()\nloss.backward()\nopt.step()\n")


class NoMixedPrecision(ProjectRule):
    """A project that trains in fp32.

    ## What it does
    Finds a training step (an optimizer built) in a project that never enables 16-bit mixed precision: no
    `autocast`, no `GradScaler`, no `.half()` / `.bfloat16()`, no float16 or bfloat16 dtype anywhere, and
    no framework that sets precision from its configuration (Lightning, accelerate, DeepSpeed,
    transformers' Trainer, mmengine). The finding names `torch.autocast`, what is missing, at the first
    optimizer construction; each `backward` of a training file is a site of it (counted once, at the
    optimizer), where the engineer turns mixed precision on, with the portable step to write there:
    `torch.amp.GradScaler(<device>)` scaling the loss, the forward under `torch.autocast(<device>)`. It is
    a judgement over the whole project, so `check` (which sees a few files) does not make it.

    ## Why is this bad?
    fp32 training holds activations at twice the bytes of bf16/fp16, and the targets' cards have less
    memory than an H100 (`migrator memory` says by how much, from the card data and a measured step).
    The code runs, at a cost: the verdict is `partial` on every target, on a note (to validate with
    `migrator memory`, not work: fp32 breaks nothing).

    ## Fix safety
    Never applied by `fix`: wrapping the forward in `torch.autocast(device_type=<the target's device>,
    dtype=torch.bfloat16)` changes numerics, and fp16 needs loss scaling, so it is a suggestion to review.
    """

    name = "no-mixed-precision"
    category = Category.AMP
    summary = "training in fp32 with no mixed precision anywhere"
    #: ``.half()`` is a 16-bit cast whatever the receiver is
    vocabulary = Vocabulary(methods=frozenset({"half"}))
    examples = (
        Invalid(_TRAINS, expect=Status.PARTIAL),
        Valid(_TRAINS.replace("loss = model", "with torch.autocast('cpu', dtype=torch.bfloat16):\n    loss = model")),
        Valid(_TRAINS.replace("model = torch.nn.Linear(4, 4)", "model = torch.nn.Linear(4, 4).half()")),
        Valid("import lightning\n" + _TRAINS),
        Valid("import torch\nmodel = torch.nn.Linear(4, 4)\ny = model(torch.ones(4))\n"),
    )

    def reads(self, usage: Usage) -> bool:
        return (usage.api.startswith(_MIXED) or (usage.kind == _IMPORT and usage.api.startswith(FRAMEWORKS))
                or _is_optimizer(usage) or _is_backward(usage))

    def findings(self, results: Sequence[FileResult], ctx: RuleContext) -> List[Finding]:
        usages = [(r.file.rel, u) for r in results for u in usages_across_files(r)]
        if any(u.api.startswith(_MIXED) for _, u in usages):
            return []
        if any(u.kind == _IMPORT and u.api.startswith(FRAMEWORKS) for _, u in usages):
            return []
        step = _first_optimizer(usages)
        if step is None:
            return []
        path, usage = step
        # advice, not a break: fp32 runs on every target; whether it fits is `migrator memory`'s to measure
        verdict = {t.id: Verdict(
            Status.PARTIAL, _ADVICE, _SOURCE, evidence=(Evidence(Grade.NOTE, _SOURCE, _ADVICE),),
            fix=fix_of(f"with torch.autocast(device_type='{t.device_to}', dtype=torch.bfloat16): loss = model(batch)"))
            for t in ctx.targets}
        # the finding names what is missing (autocast), at the line that starts training (the optimizer)
        cause = Finding(id=fingerprint(self.name, path, "torch.autocast", usage.snippet, 0), rule=self.name,
                        category=self.category, path=path, span=usage.span, api="torch.autocast",
                        snippet=usage.snippet, confidence=Confidence.HEURISTIC, verdicts=verdict, scope=usage.scope)
        return [cause, *self._backward_sites(cause, usages, ctx)]

    def _backward_sites(self, cause: Finding, usages, ctx: RuleContext) -> List[Finding]:
        """Where an engineer turns mixed precision on: each training step's ``backward`` (a site of the cause,
        ``Finding.root``: counted once, at the optimizer), with the portable form to write there: the loss scaled
        by ``torch.amp.GradScaler(<device>)`` and the forward under ``torch.autocast(<device>)``, the vendors'
        own AMP (apex ``amp.scale_loss`` in Ascend's detectron2 port) in torch's generic names."""
        sites: List[Finding] = []
        seen: Dict[Tuple[str, str], int] = {}
        for path, usage in sorted(usages, key=lambda item: (item[0], item[1].span.line or 0)):
            if not _is_backward(usage) or usage.no_grad or path_context(path) != Context.TRAINING:
                continue
            loss = _receiver(usage.snippet)
            if loss is None:
                continue
            occurrence = seen[path, usage.snippet] = seen.get((path, usage.snippet), -1) + 1
            verdicts = {t.id: Verdict(Status.PARTIAL, _STEP_ADVICE, _SOURCE,
                                      evidence=(Evidence(Grade.NOTE, _SOURCE, _STEP_ADVICE),),
                                      fix=fix_of(_step_form(loss, t.device_to))) for t in ctx.targets}
            sites.append(Finding(id=fingerprint(self.name, path, "torch.amp.GradScaler", usage.snippet, occurrence),
                                 rule=self.name, category=self.category, path=path, span=usage.span,
                                 api="torch.amp.GradScaler", snippet=usage.snippet, confidence=Confidence.HEURISTIC,
                                 verdicts=verdicts, scope=usage.scope, root=cause.id))
        return sites


_SOURCE = "migrator practice rules"
_ADVICE = ("the project trains in fp32: no autocast, GradScaler or 16-bit dtype anywhere; it runs so on every target, "
           "and bf16/fp16 mixed precision holds activations in half the bytes where the card's memory is short "
           "(`migrator memory` measures the fit)")


_STEP_ADVICE = ("the training step's backward, in fp32: with mixed precision the loss is scaled here (fp16 needs it; "
                "bf16 runs without), the forward runs under autocast and the scaler steps the optimizer")


def _step_form(loss: str, device: str) -> str:
    """The portable mixed-precision step at a ``backward``, for a target's device."""
    return (f"scaler = torch.amp.GradScaler('{device}')  # once, beside the optimizer\n"
            f"with torch.autocast(device_type='{device}', dtype=torch.float16):  # the forward and the loss\n"
            f"    ...\n"
            f"scaler.scale({loss}).backward()\n"
            f"scaler.step(optimizer)  # for optimizer.step()\n"
            f"scaler.update()")


#: ``losses.backward()``, ``self.loss.backward(retain_graph=True)``: the receiver, a plain (dotted) name
_BACKWARD = re.compile(r"^\s*([A-Za-z_][\w.]*)\.backward\(")


def _receiver(snippet: str) -> Optional[str]:
    match = _BACKWARD.match(snippet)
    return match.group(1) if match else None


def _is_backward(usage: Usage) -> bool:
    return usage.api == "torch.Tensor.backward" and usage.kind in (_CALL, _METHOD)


def _first_optimizer(usages) -> Optional[tuple]:
    for path, usage in sorted(usages, key=lambda item: (item[0], item[1].span.line or 0)):
        if _is_optimizer(usage):
            return path, usage
    return None


def _is_optimizer(usage: Usage) -> bool:
    return usage.kind == _CALL and usage.api.startswith("torch.optim.") and not usage.api.startswith(_NOT_OPTIMIZERS)
