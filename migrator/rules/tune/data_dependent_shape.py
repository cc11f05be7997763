"""The ``tune-dynamic-shape`` rule."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import replace
from typing import Dict, List, Optional, Set, Tuple

from ...discover import read_source
from ...model import FileResult, Finding, NamedTarget, Span, Status, TuneKind, Usage, ValueKind
from ...resolve.vocabulary import Vocabulary
from ...sources.python import decode_source
from ...sources.step import calls_of
from ..examples import ByRuntime, Invalid, Valid
from . import _SHAPE_APIS, TuneRule, _site_findings, _training, _trains, _usage_findings

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_DEVICE = ValueKind.DEVICE
_FLOAT = ValueKind.FLOAT
_FSTR = ValueKind.FSTR
_INT = ValueKind.INT
_STR = ValueKind.STR


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
        Invalid(_trains("keep = scores > 0.5\n        return boxes[keep]"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL, kunlun=Status.PARTIAL)),
        Invalid(_trains(step="        seen = torch.nonzero(y)"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL, kunlun=Status.PARTIAL)),
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
                why = step.on_the_device(draft, node_of(draft)) if _training(draft) else None
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
    if value.kind in (_INT, _FLOAT, _STR, _FSTR, _DEVICE):
        return False
    text = (value.text or "").strip()
    if any(t.startswith("self.") and t[5:].isidentifier() for t in (text, value.via or "")):
        return False  # a module's setting (``self.heads``, set from a parameter), not counts computed on the step
    if text.isidentifier():
        return text.endswith("s") and not text.endswith(("size", "sizes", "_dims", "times"))
    return bool(text) and not text.replace(".", "").isdigit()
