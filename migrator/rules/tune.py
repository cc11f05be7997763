"""What runs on the target but stalls it: the ``tune`` findings, on the training step only.

Each rule here judges the project after the call graph is built (``scan`` runs them through
``tune_findings``): a finding needs to know it sits on the training step (``project/step.py``), which no
single file can say. Every verdict cites the vendor's performance guide it comes from
(``operator_maps/curated/tuning.yaml``); a target whose vendor does not document the pitfall says so.
``tune`` findings never count in readiness, effort or blockers (``assess.counted``): the code runs.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import replace
from functools import partial
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar, Union

from ..discover import read_source
from ..maps.limits import clip
from ..maps.load import TargetMap, TuneAdvice, tuning
from ..model import (Category, Confidence, Context, FileResult, Finding, NamedTarget, Span, Status, TuneKind, TuneSite,
                     Usage, Verdict)
from ..project.contexts import path_context
from ..project.step import TrainingStep
from ..resolve.vocabulary import Vocabulary
from ..sources.python import decode_source
from ..sources.step import calls_of
from .base import DocumentedRule, RuleContext, findings_or_error, fingerprint, usages_across_files
from .examples import Invalid, Valid

#: What a draft finding carries to where its verdicts are made (the site it came from, what happens there).
Extra = TypeVar("Extra")
#: Where a finding sits in the call graph (``ProjectGraph.node_of``).
NodeOf = Callable[[Finding], Optional[str]]
#: A target's own verdict on a tune finding, or its own words for what happens there (``None``: the row's).
PerTarget = Callable[[TargetMap], Union[Verdict, str, None]]

_MODEL = "class Pooler(torch.nn.Module):\n    def forward(self, boxes, scores):\n        {forward}\n\n\n"
_LOOP = ("def train(model, loader, optimizer):\n    for step, (x, y) in enumerate(loader):\n"
         "        loss = model(x, y).sum()\n        optimizer.zero_grad()\n        loss.backward()\n"
         "        optimizer.step()\n{step}\n\nif __name__ == \"__main__\":\n"
         "    train(Pooler(), [], torch.optim.SGD(Pooler().parameters(), lr=0.1))\n")


def _trains(forward: str = "return boxes * scores", step: str = "", before: str = "") -> str:
    """An example project in one file: a module whose ``forward`` is ``forward``, a training loop that runs it
    with ``step`` added to its body, and an entry point that reaches both; ``before`` is a function defined
    first, which nothing on the step calls."""
    return ("import torch\n\n\n" + (before + "\n\n" if before else "") + _MODEL.format(forward=forward)
            + _LOOP.format(step=step + "\n" if step else ""))


class TuneRule(DocumentedRule):
    """A rule over the training step: ``findings`` sees every file's usages and syntax sites, the findings the
    other rules made, and what the step is."""

    category = Category.TUNE
    #: the row of ``curated/tuning.yaml`` its verdicts come from
    pitfall: str = ""

    def reads(self, usage: Usage) -> bool:
        """Whether ``findings`` looks at this usage (the cache keeps those apart from the rest)."""
        return False

    def findings(self, results: Sequence[FileResult], judged: Sequence[Finding], step: TrainingStep,
                 node_of: NodeOf, ctx: RuleContext) -> List[Finding]:
        raise NotImplementedError

    # ----------------------------------------------------------------------------------------- shared

    def verdicts(self, ctx: RuleContext, what: str, why: str, advice_key: Optional[str] = None,
                 status_of: Optional[PerTarget] = None) -> Dict[str, Verdict]:
        """Each target's verdict from the pitfall's row (or ``advice_key``'s switch row): ``what`` happens,
        its cost there, ``why`` it is on the step, the guides it comes from. ``status_of`` may give a target
        its own verdict, or its own words for what happens there."""
        table = tuning().switches if advice_key else tuning().pitfalls
        rows = table.get(advice_key or self.pitfall, {})
        verdicts = {}
        for target in ctx.targets:
            own = status_of(target) if status_of is not None else None
            verdicts[target.id] = (own if isinstance(own, Verdict)
                                   else _verdict(rows.get(target.id), own or what, why))
        return verdicts

    def finding(self, path: str, span: Span, api: str, snippet: str, scope: str, verdicts: Dict[str, Verdict],
                occurrences: Counter, confidence: Confidence = Confidence.HEURISTIC) -> Finding:
        key = (path, api, snippet)
        occurrence = occurrences[key]
        occurrences[key] += 1
        return Finding(id=fingerprint(self.name, path, api, snippet, occurrence), rule=self.name,
                       category=self.category, path=path, span=span, api=api, snippet=snippet,
                       confidence=confidence, verdicts=verdicts, scope=scope)


def _verdict(row: Optional[TuneAdvice], what: str, why: str) -> Verdict:
    if row is None:
        return Verdict(Status.UNKNOWN, f"{what}; no performance guide for this target is bundled",
                       "operator_maps/curated/tuning.yaml")
    said = "" if row.vendor else " (the vendor's documentation does not name this pitfall; PyTorch's guide does, " \
                                 "for any accelerator)"
    message = f"{what}, {why}: {row.cost}{said}"
    return Verdict(Status(row.status), message, _cited(row), suggestion=row.advice or None)


def _cited(row: TuneAdvice) -> str:
    """A verdict's source: the row's guides, ``title <url>`` each."""
    return "; ".join(f"{g.title} <{g.url}>" for g in row.guides) or "operator_maps/curated/tuning.yaml"


# --------------------------------------------------------------------------------------------- sites


def _on_step(candidates: Iterable[Tuple[Finding, Extra]], step: TrainingStep,
             node_of: NodeOf) -> Iterator[Tuple[Finding, Extra, str]]:
    """The drafts in training code that sit on the step, with why."""
    for finding, extra in candidates:
        if not _training(finding):
            continue
        why = step.why(finding, node_of(finding))
        if why is not None:
            yield finding, extra, why


def _site_findings(rule: TuneRule, results: Sequence[FileResult], kinds: FrozenSet[TuneKind],
                   step: TrainingStep, node_of: NodeOf, ctx: RuleContext,
                   what: Callable[[TuneSite], str], api: Callable[[TuneSite], str]) -> List[Finding]:
    occurrences: Counter = Counter()
    candidates: List[Tuple[Finding, TuneSite]] = []
    for result in results:
        for site in result.step.sites if result.step is not None else ():
            if site.kind in kinds:
                draft = rule.finding(result.file.rel, site.span, api(site), site.snippet, site.scope, {},
                                     occurrences)
                candidates.append((draft, site))
    found = []
    for draft, site, why in _on_step(candidates, step, node_of):
        found.append(replace(draft, verdicts=rule.verdicts(ctx, what(site), why)))
    return found


def _usage_findings(rule: TuneRule, results: Sequence[FileResult], picks: Callable[[Usage], Optional[str]],
                    step: TrainingStep, node_of: NodeOf, ctx: RuleContext) -> List[Finding]:
    """A finding per usage ``picks`` describes (``picks`` returns what happens there), on the step, in line and
    column order (``tune_findings`` keeps the first on a line: ``x.cpu().numpy()`` is one read back)."""
    occurrences: Counter = Counter()
    candidates: List[Tuple[Finding, str]] = []
    for result in results:
        for usage in usages_across_files(result):
            what = picks(usage) if rule.reads(usage) else None
            if what is not None:
                draft = rule.finding(result.file.rel, usage.span, usage.api, usage.snippet, usage.scope, {},
                                     occurrences, usage.confidence)
                candidates.append((draft, what))
    return [replace(draft, verdicts=rule.verdicts(ctx, what, why))
            for draft, what, why in sorted(_on_step(candidates, step, node_of),
                                           key=lambda c: (c[0].path, c[0].span.cell or 0, c[0].span.line or 0,
                                                          c[0].span.col or 0))]


# ---------------------------------------------------------------------------------------------- rules


_SHAPE_APIS = {
    "torch.nonzero": "`nonzero` returns as many rows as there are nonzero elements",
    "torch.Tensor.nonzero": "`nonzero` returns as many rows as there are nonzero elements",
    "torch.argwhere": "`argwhere` returns as many rows as there are nonzero elements",
    "torch.Tensor.argwhere": "`argwhere` returns as many rows as there are nonzero elements",
    "torch.masked_select": "`masked_select` returns as many elements as the mask selects",
    "torch.Tensor.masked_select": "`masked_select` returns as many elements as the mask selects",
    "torch.unique": "`unique` returns as many elements as there are distinct values",
    "torch.Tensor.unique": "`unique` returns as many elements as there are distinct values",
    "torch.unique_consecutive": "`unique_consecutive` returns as many elements as there are runs",
    "torch.Tensor.unique_consecutive": "`unique_consecutive` returns as many elements as there are runs",
}


class DataDependentShape(TuneRule):
    """An operator on the training step whose output shape depends on the values of its input.

    ## What it does
    Finds, on the training step only (``project/step.py``: inside a training loop, or in what a step runs, a
    module's `forward` above all), `nonzero` / `argwhere`, `masked_select`, `unique`, one-argument
    `torch.where`, `repeat_interleave` with tensor repeats, and a tensor read with a boolean mask
    (`boxes[scores > t]`, or `boxes[keep]` where `keep` is such a mask). A mask written to (`x[mask] = 0`)
    keeps the shape and is left alone.

    ## Why is this bad?
    The output's size is known only once the device has computed it: the host waits for the device to read
    it back (PyTorch's tuning guide), and on Ascend each new shape makes the operators after it compile
    again. Detection models that filter proposals by score pay this every step; Ascend's ports of them
    rewrite these lines first.

    ## Fix safety
    Never applied: the static-shape rewrite (a mask that keeps the size, padding to a bucket, precomputed
    indices) changes what the following code sees.
    """

    name = "tune-dynamic-shape"
    pitfall = "dynamic-shape"
    summary = "data-dependent output shapes on the training step"
    vocabulary = Vocabulary(methods=frozenset({"nonzero", "argwhere", "masked_select", "unique",
                                               "unique_consecutive", "repeat_interleave"}))
    examples = (
        Invalid(_trains("keep = scores > 0.5\n        return boxes[keep]"), expect=Status.PARTIAL),
        Invalid(_trains(step="        seen = torch.nonzero(y)"), expect=Status.PARTIAL),
        Valid(_trains("keep = scores > 0.5\n        boxes[~keep] = 0\n        return boxes")),
        Valid(_trains(step="        if step % 100 == 0:\n            print(torch.nonzero(y).shape)")),
    )

    def reads(self, usage: Usage) -> bool:
        return usage.api in _SHAPE_APIS or usage.api in ("torch.where", "torch.repeat_interleave",
                                                         "torch.Tensor.repeat_interleave")

    def findings(self, results, judged, step, node_of, ctx):
        found = _usage_findings(self, results, _shape_change, step, node_of, ctx)
        found += _site_findings(self, results, frozenset({TuneKind.MASK_INDEX}), step, node_of, ctx,
                                lambda site: f"`{site.snippet}` reads as many elements as the mask `{site.detail}` "
                                             f"selects", lambda site: "torch.Tensor.__getitem__")
        return found + self._helper_calls(results, step, node_of, ctx)

    def _helper_calls(self, results, step, node_of, ctx) -> List[Finding]:
        """Calls, on the step, of the project's own functions that return a data-dependent shape (detectron2's
        ``nonzero_tuple``): the call site is where a port makes the shape static. Only the files whose outline
        calls one are read again."""
        helpers = {h for r in results if r.step is not None for h in r.step.shape_helpers}
        if not helpers:
            return []
        by_name: Dict[str, str] = {}
        for helper in sorted(helpers):
            by_name.setdefault(helper.rpartition(".")[2], helper)
        packages = {h.split(".")[0] for h in helpers}
        occurrences: Counter = Counter()
        found = []
        for result in results:
            calls = result.outline.calls if result.outline is not None and result.file.rel.endswith(".py") else ()
            if not any(isinstance(c.target, NamedTarget) and c.target.name.rpartition(".")[2] in by_name
                       and c.target.name.split(".")[0] in packages for c in calls):
                continue
            for name, scope, span, snippet in _calls_in_file(result, set(by_name)):
                helper = by_name[name]
                if scope == helper:
                    continue
                draft = self.finding(result.file.rel, span, helper, snippet, scope, {}, occurrences)
                why = step.why(draft, node_of(draft)) if _training(draft) else None
                if why is not None:
                    what = f"`{snippet}` returns a data-dependent shape (`{helper.rpartition('.')[2]}` does)"
                    found.append(replace(draft, verdicts=self.verdicts(ctx, what, why)))
        return found


def _calls_in_file(result: FileResult, names: Set[str]) -> List[Tuple[str, str, Span, str]]:
    """The calls named ``names`` in a file read again (it may have changed or gone since: then none)."""
    try:
        text = decode_source(read_source(result.file.path))
        tree = ast.parse(text) if isinstance(text, str) else None
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if tree is None or result.outline is None:
        return []
    return calls_of(tree, result.outline.module, names)


def _shape_change(usage: Usage) -> Optional[str]:
    if usage.api in _SHAPE_APIS:
        return _SHAPE_APIS[usage.api]
    positional = [a for a in usage.args if a.keyword is None]
    if usage.api == "torch.where":
        return ("one-argument `torch.where` returns as many indices as the condition holds"
                if len(usage.args) == 1 and len(positional) == 1 else None)
    # repeat_interleave(repeats) on a tensor / torch.repeat_interleave(input, repeats): repeats a tensor?
    repeats = [a for a in usage.args if a.keyword == "repeats"] or \
        positional[(0 if usage.api == "torch.Tensor.repeat_interleave" else 1):][:1]
    if repeats and _tensor_like(repeats[0].value):
        return "`repeat_interleave` with tensor repeats returns as many rows as the repeats add up to"
    return None


def _tensor_like(value) -> bool:
    """Whether an argument looks like a tensor of counts: not a number, not a bare name that reads as one
    (``block_size``, ``n``); a call, an attribute, a subscript or a plural name (``counts``, ``lengths``)."""
    if value.kind in ("int", "float", "str", "fstr", "device"):
        return False
    text = (value.text or "").strip()
    if text.isidentifier():
        return text.endswith("s") and not text.endswith(("size", "sizes", "_dims", "times"))
    return bool(text) and not text.replace(".", "").isdigit()


_SYNC_APIS = {
    "torch.Tensor.item": "`.item()` reads a value back to the host",
    "torch.Tensor.tolist": "`.tolist()` reads the tensor back to the host",
    "torch.Tensor.numpy": "`.numpy()` reads the tensor back to the host",
    "torch.Tensor.cpu": "`.cpu()` copies the tensor to the host",
    "torch.cuda.synchronize": "`synchronize()` waits for the device",
    "torch.npu.synchronize": "`synchronize()` waits for the device",
}


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


class StepFallback(TuneRule):
    """An operator that falls back to the host CPU, on the training step.

    ## What it does
    Takes each finding of another rule whose verdict is `fallback` on a target (an aten operator the
    target's plugin does not register), and reports it again here when it sits on the training step: there
    it runs on the CPU every iteration. Each target's verdict follows its own op verdict (`partial` where it
    falls back, `supported` where the device runs it). With `scan --trace`, the finding carries how often
    its operators ran per step.

    ## Why is this bad?
    A fallback is correct but slow: its inputs go to the host and its outputs back, every step. Outside the
    step (a metric at the end of an epoch) it costs little; inside, it can bound the step time.

    ## Fix safety
    Never applied: the rewrite (another dtype, an equivalent operator) is a numerical choice.
    """

    name = "tune-cpu-fallback"
    pitfall = "cpu-fallback"
    summary = "host-CPU fallbacks on the training step"
    examples = (
        Invalid(_trains("return torch.special.zeta(boxes, scores)"),
                expect={"cann": Status.PARTIAL, "neuware": Status.PARTIAL, "kunlun": Status.UNKNOWN}),
        Valid(_trains(before="def report(a, b):\n    return torch.special.zeta(a, b)\n")),
    )

    def findings(self, results, judged, step, node_of, ctx):
        return _again(self, judged, step, node_of, ctx, self._falls)

    @staticmethod
    def _falls(original: Finding) -> Optional[Tuple[str, PerTarget]]:
        """What a finding whose op falls back on some target says here, and the targets it does not fall on."""
        falls = {t for t, v in original.verdicts.items() if v.status == Status.FALLBACK}
        if not falls or original.reachable is False:
            return None

        def own(target: TargetMap) -> Union[Verdict, str, None]:
            theirs = original.verdicts.get(target.id)
            if target.id in falls and theirs is not None:  # what falls back there, in the op data's own words
                return f"`{original.api}` falls back to the host CPU on {target.id} ({clip(theirs.message, 160)})"
            if theirs is not None and theirs.status == Status.SUPPORTED:
                return Verdict(Status.SUPPORTED, f"`{original.api}` runs on the device on {target.id}", theirs.source)
            status = theirs.status.value if theirs else "no verdict"
            return Verdict(Status.UNKNOWN, f"`{original.api}` does not fall back on {target.id} ({status}: its own "
                           "finding says more)", theirs.source if theirs else "operator_maps")

        return f"`{original.api}` falls back to the host CPU", own


def _again(rule: TuneRule, judged: Sequence[Finding], step: TrainingStep, node_of: NodeOf, ctx: RuleContext,
           says: Callable[[Finding], Optional[Tuple[str, Optional[PerTarget]]]]) -> List[Finding]:
    """Another rule's findings in training code that sit on the step, reported again as ``rule``'s: ``says``
    gives what happens there (and a target's own verdict, where it differs from the pitfall's row), or
    ``None`` for a finding this rule leaves alone."""
    occurrences: Counter = Counter()
    found = []
    for original in judged:
        if original.category == Category.TUNE or original.context != Context.TRAINING:
            continue
        said = says(original)
        why = step.why(original, node_of(original)) if said is not None else None
        if said is None or why is None:
            continue
        what, status_of = said
        verdicts = rule.verdicts(ctx, what, why, status_of=status_of)
        found.append(replace(rule.finding(original.path, original.span, original.api, original.snippet,
                                          original.scope, verdicts, occurrences, original.confidence),
                             ops=original.ops))
    return found


_FLOAT64 = frozenset({"torch.float64", "torch.double", "torch.Tensor.double"})


class StepFloat64(TuneRule):
    """float64 on the training step.

    ## What it does
    Takes each `risky-dtype` finding on float64 (`torch.float64`, `torch.double`, `.double()`; the ones that
    rule leaves alone, a comparison or a host-side factory, stay alone) and reports it again here when it
    sits on the training step.

    ## Why is this bad?
    Ascend runs double-precision operators on its AI CPU rather than its AI Core (its profiling advisor's
    advice: convert double to float). Cambricon and Kunlunxin document nothing on float64's speed: `unknown`
    there.

    ## Fix safety
    Never applied: float32 is usually enough, but the numerics need a look.
    """

    name = "tune-float64"
    pitfall = "float64"
    summary = "float64 on the training step"
    examples = (
        Invalid(_trains("return boxes.double().sum()"),
                expect={"cann": Status.PARTIAL, "neuware": Status.UNKNOWN, "kunlun": Status.UNKNOWN}),
        Valid(_trains(before="def table(n):\n    return torch.arange(n).double()\n")),
    )

    def findings(self, results, judged, step, node_of, ctx):
        return _again(self, judged, step, node_of, ctx, lambda original: (
            (f"`{original.snippet}` computes in float64", None)
            if original.rule == "risky-dtype" and original.api in _FLOAT64 else None))


class ParameterLoop(TuneRule):
    """A Python loop over the parameters that updates each one in place, on the training step.

    ## What it does
    Finds `for p in model.parameters():` / `for p in group["params"]:` / `for e, p in zip(ema.parameters(),
    model.parameters()):` whose body does in-place tensor math (`p.mul_(d)`, `p.data.add_(...)`), where it
    runs each step: a hand-written optimizer's `step`, an EMA update called from the loop.

    ## Why is this bad?
    Each parameter costs a few small operators per step; on an NPU those run fast and launching them
    becomes the bottleneck (Ascend's guide on its fused optimizers). Ascend and Cambricon ship fused
    optimizers; `torch._foreach_*` launches one operator per group of tensors on any device.

    ## Fix safety
    Never applied: a fused optimizer's arithmetic is the same algorithm, but its state layout differs
    (checkpoints), so it is a suggestion.
    """

    name = "tune-parameter-loop"
    pitfall = "parameter-loop"
    summary = "per-parameter Python loops on the training step"
    examples = (
        Invalid(_trains(step="        for shadow, p in zip(shadows, model.parameters()):\n"
                             "            shadow.mul_(0.999).add_(p.detach(), alpha=0.001)")
                .replace("    for step, (x, y)", "    shadows = [p.detach().clone() for p in model.parameters()]\n"
                                                  "    for step, (x, y)"),
                expect={"cann": Status.PARTIAL, "neuware": Status.PARTIAL, "kunlun": Status.UNKNOWN}),
        Valid(_trains(before="def freeze(model):\n    for p in model.parameters():\n"
                             "        p.requires_grad_(False)\n")),
    )

    def findings(self, results, judged, step, node_of, ctx):
        return _site_findings(self, results, frozenset({TuneKind.PARAMETER_LOOP}), step, node_of, ctx,
                              lambda site: f"`{site.snippet}` updates the parameters one by one",
                              lambda site: ("torch.optim.Optimizer.param_groups" if "params" in site.detail
                                            else "torch.nn.Module.parameters"))


class CudaSwitch(TuneRule):
    """A switch of CUDA's libraries that does not reach the target's.

    ## What it does
    Finds `torch.backends.cudnn.benchmark = True`, `torch.backends.cudnn.allow_tf32 = True` and
    `torch.backends.cuda.matmul.allow_tf32 = True` in training code, and names the target's own switch where
    its vendor documents one: Ascend's operator compile mode and HF32 switches, Cambricon's CNNL and MLU
    matmul switches. It is set once, not per step, so it is reported wherever training code sets it.

    ## Why is this bad?
    The CUDA switch is read by cuDNN and cuBLAS only: on the target the speed it bought is lost unless the
    target's own switch is set.

    ## Fix safety
    Never applied: HF32 and TF32 are reduced precisions, each a numerical choice.
    """

    name = "tune-cuda-switch"
    summary = "CUDA library switches and the targets' own"
    examples = (
        Invalid("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
                expect={"cann": Status.PARTIAL, "neuware": Status.SUPPORTED, "kunlun": Status.UNKNOWN},
                fixed={"neuware": "import torch\nimport torch_mlu\ntorch.backends.mlu.matmul.allow_tf32 = True\n"}),
        Invalid(_trains("keep = scores > 0.5\n        return boxes[keep]",
                        before="torch.backends.cudnn.benchmark = True\n"),
                expect={"cann": Status.PARTIAL, "neuware": Status.UNKNOWN, "kunlun": Status.UNKNOWN}),
        Valid(_trains(before="torch.backends.cudnn.benchmark = True\n")),  # static shapes: nothing to set
        Valid("import torch\ntorch.backends.cudnn.allow_tf32 = True\n"),  # Ascend's convolutions: HF32 already
        Valid("import torch\ntorch.backends.cudnn.benchmark = False\n"),
    )

    def reads(self, usage: Usage) -> bool:
        return usage.kind == "assign" and usage.api in tuning().switches

    def findings(self, results, judged, step, node_of, ctx):
        rewritten = {(f.path, f.span.line, f.api): f for f in judged if f.category != Category.TUNE}
        tuned = {f.rule for f in judged if f.category == Category.TUNE}
        present = {rule.pitfall for rule in TUNE_RULES if rule.name in tuned}
        occurrences: Counter = Counter()
        found = []
        for result in results:
            for usage in usages_across_files(result):
                if not self.reads(usage) or not usage.args or usage.args[0].value.text != "True":
                    continue
                draft = self.finding(result.file.rel, usage.span, usage.api, usage.snippet, usage.scope, {},
                                     occurrences, usage.confidence)
                if not _training(draft):
                    continue
                other = rewritten.get((draft.path, usage.span.line, usage.api))
                verdicts = self.verdicts(ctx, f"`{usage.api}` is CUDA's switch", "set for the training run",
                                         advice_key=usage.api,
                                         status_of=lambda t, other=other, api=usage.api: (
                                             _rewritten(other, t) or _without(api, t, present)))
                found.append(replace(draft, verdicts=verdicts))
        return found


def _without(api: str, target: TargetMap, present: Set[str]) -> Optional[Verdict]:
    """``supported`` where the switch's row holds only with a pitfall this project's step does not have (the
    compile mode Ascend documents for shapes that vary, in a project whose shapes do not)."""
    row = tuning().switches.get(api, {}).get(target.id)
    if row is None or row.when is None or row.when in present:
        return None
    return Verdict(Status.SUPPORTED, f"`{api}` is CUDA's switch; what {target.id} documents in its stead is for "
                   f"a training step with {row.when} findings, and this project's has none", _cited(row))


def _rewritten(other: Optional[Finding], target: TargetMap) -> Optional[Verdict]:
    """``supported`` where another finding on the same switch already rewrites it to the target's own (torch_mlu's
    migration table renames ``torch.backends.cuda.matmul.allow_tf32``): one cause, one finding."""
    verdict = other.verdicts.get(target.id) if other is not None else None
    if verdict is None or verdict.status != Status.REWRITE:
        return None
    return Verdict(Status.SUPPORTED, f"`{other.rule}` rewrites it on {target.id}"  # type: ignore[union-attr]
                   + (f" to `{verdict.suggestion}`" if verdict.suggestion else ""), verdict.source)


#: Every API a tune rule's ``reads`` may keep (a set lookup before the rules are asked, once per usage); the
#: CUDA switches are the assignments of ``torch.backends.*`` the resolver records (read lazily: no map at import)
TUNE_APIS = frozenset({*_SHAPE_APIS, "torch.where", "torch.repeat_interleave", "torch.Tensor.repeat_interleave",
                       *_SYNC_APIS, "torch.Tensor.to"})


def keeps_for_tuning(usage: Usage) -> bool:
    """Whether some tune rule reads this usage (``analyze`` keeps those apart in a cached result)."""
    if usage.api not in TUNE_APIS and not (usage.kind == "assign" and usage.api.startswith("torch.backends.")):
        return False
    return any(rule.reads(usage) for rule in TUNE_RULES)

TUNE_RULES: Tuple[TuneRule, ...] = (DataDependentShape(), HostSync(), StepFallback(), StepFloat64(), ParameterLoop(),
                                    CudaSwitch())


def tune_findings(results: Sequence[FileResult], judged: Sequence[Finding], step: TrainingStep, node_of: NodeOf,
                  ctx: RuleContext, errors: Optional[List[str]] = None) -> List[Finding]:
    """Every tune rule's findings, in rule order: one per line and rule, and only where some target's guide
    documents a cost (a ``partial`` verdict). With ``errors``, a rule that raises costs its own findings (noted
    there), not the scan's; without, the exception goes up."""
    found: List[Finding] = []
    for rule in TUNE_RULES:  # each sees the ones before it (the CUDA switches, the project's dynamic shapes)
        lines = set()
        judge = partial(rule.findings, results, [*judged, *found], step, node_of, ctx)
        made = judge() if errors is None else findings_or_error(rule.name, judge, errors)
        for finding in made:
            line = (finding.path, finding.span.cell, finding.span.line)
            if line in lines:  # ``x1[mask], y1[mask] = ...``: one cause, one finding
                continue
            lines.add(line)
            if any(v.status == Status.PARTIAL for v in finding.verdicts.values()):
                found.append(finding)  # else no target's guide documents a cost there: nothing to act on
    return found


def _training(finding: Finding) -> bool:
    """Training code (not tests, not tooling): the step of a test is no one's step. Reachability from the
    entry points is judged with the other findings' (``scan`` drops those the entry points do not reach)."""
    return path_context(finding.path) == Context.TRAINING
