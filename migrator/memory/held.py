"""What autograd holds over a training step, at every moment of it: the saved tensors and temporaries
(activations), autocast's 16-bit copies of the weights, and the gradients, each with its own running peak.

The peak of the activations is their maximum over the whole step (forward and backward), not their value at
the moment the step's total memory peaks: on a large model the total peaks late in the backward, when the
gradients dominate and most activations are already freed, and reading the activations there under-counts
them (issue 46: 2.47 GB reported against a 24.26 GB peak on a 6.7B GPT).

Storages are told apart by the op that made them: a ``_to_copy`` of a parameter is a weight copy (what
``torch.autocast`` makes of each fp32 weight a 16-bit op reads); a storage that autograd accumulates into a
parameter's ``.grad`` (``register_post_accumulate_grad_hook``) is a gradient from the op that made it on;
everything else made during the step is an activation or a temporary. The tracker keeps the step's
allocations and frees in order and adds them up at the end, when every storage's kind is known. Works on fake
tensors (nothing allocated) and on real ones.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass
from typing import Any, Iterable, List, Tuple

ACTIVATION, COPY, GRAD, STATE = "activation", "copy", "grad", "state"


@dataclass(frozen=True)
class HeldPeaks:
    """Bytes: the maximum over one step of each thing autograd holds, and of them together."""

    activations: float  # saved tensors and temporaries (the input batch included)
    weight_copies: float  # autocast's 16-bit copies of the weights
    together: float  # activations and weight copies at once (never more than the two peaks added)
    with_grads: float  # activations, weight copies and the gradients accumulated so far, at once
    total: float  # everything live: parameters and buffers, gradients, copies, activations
    flops: float = 0.0  # the step's matmul, convolution and attention FLOPs (torch's flop formulas)


class _Bookkeeping:
    """The tracker's records: every storage's kind and size, its allocation and its free in order, and the
    running peaks they add up to (a mixin of ``held_tracker``'s ``TorchDispatchMode``, built lazily: torch is
    optional). Storages are keyed in a ``WeakIdKeyDictionary`` given by ``_start``."""

    _kinds: Any  # storage -> entry: [kind, bytes, weakref]
    _events: List[Tuple[int, List[Any]]]  # (+1 allocated | -1 freed, entry), in order
    _hooks: List[Any]
    flops: float

    def _start(self, kinds: Any) -> None:
        self._kinds, self._events, self._hooks, self.flops = kinds, [], [], 0.0

    # -- what exists before the step: parameters and buffers (state), the input batch (activation)
    def watch(self, model, inputs: Iterable[Any] = ()) -> None:
        import torch
        from torch.utils._pytree import tree_leaves

        for tensor in list(model.parameters()) + list(model.buffers()):
            self._add(tensor, STATE)
        for tensor in tree_leaves(list(inputs)):
            if isinstance(tensor, torch.Tensor):
                self._add(tensor, ACTIVATION)
        for parameter in model.parameters():
            if parameter.requires_grad:
                self._hooks.append(parameter.register_post_accumulate_grad_hook(self._accumulated))

    def close(self) -> None:
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()

    def peaks(self) -> HeldPeaks:
        now = {ACTIVATION: 0.0, COPY: 0.0, GRAD: 0.0, STATE: 0.0}
        peak = {ACTIVATION: 0.0, COPY: 0.0, "together": 0.0, GRAD: 0.0, "total": 0.0}
        for sign, entry in self._events:
            now[entry[0]] += sign * entry[1]
            if sign < 0:
                continue  # a free lowers every sum: no new maximum
            peak[ACTIVATION] = max(peak[ACTIVATION], now[ACTIVATION])
            peak[COPY] = max(peak[COPY], now[COPY])
            peak["together"] = max(peak["together"], now[ACTIVATION] + now[COPY])
            peak[GRAD] = max(peak[GRAD], now[ACTIVATION] + now[COPY] + now[GRAD])
            peak["total"] = max(peak["total"], sum(now.values()))
        return HeldPeaks(activations=peak[ACTIVATION], weight_copies=peak[COPY], together=peak["together"],
                         with_grads=peak[GRAD], total=peak["total"], flops=self.flops)

    def _accumulated(self, parameter) -> None:
        storage = self._storage(parameter.grad) if parameter.grad is not None else None
        entry = self._kinds.get(storage) if storage is not None else None
        if entry is not None:
            entry[0] = GRAD  # a gradient from the op that made it on
        elif parameter.grad is not None:
            self._add(parameter.grad, GRAD)

    def _storage(self, tensor):
        try:
            return tensor.untyped_storage()
        except (RuntimeError, NotImplementedError):  # a sparse or opaque tensor: no storage to count
            return None

    def _add(self, tensor, kind: str) -> None:
        storage = self._storage(tensor)
        if storage is None or storage in self._kinds:
            return
        entry: List[Any] = [kind, float(storage.nbytes()), None]
        entry[2] = weakref.ref(storage, functools.partial(self._freed, entry))
        self._kinds[storage] = entry
        self._events.append((1, entry))

    def _freed(self, entry: List[Any], _ref: Any) -> None:
        self._events.append((-1, entry))


def held_tracker():
    """A ``TorchDispatchMode`` (built lazily: torch is optional) that keeps the running peaks."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves
    from torch.utils.flop_counter import flop_registry
    from torch.utils.weak import WeakIdKeyDictionary

    to_copy = torch.ops.aten._to_copy.default

    class HeldTracker(_Bookkeeping, TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self._start(WeakIdKeyDictionary())

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            formula = flop_registry.get(func.overloadpacket)
            if formula is not None:  # FlopCounterMode's own formulas, without its module hooks (they hold tensors)
                self.flops += float(formula(*args, **(kwargs or {}), out_val=out))
            kind = ACTIVATION
            if func is to_copy and args and isinstance(args[0], torch.Tensor):
                source = self._storage(args[0])
                entry = self._kinds.get(source) if source is not None else None
                if entry is not None and entry[0] == STATE:
                    kind = COPY
            for tensor in tree_leaves(out):
                if isinstance(tensor, torch.Tensor):
                    self._add(tensor, kind)
            return out

    return HeldTracker()
