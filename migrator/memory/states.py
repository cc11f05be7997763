"""Model states per card: parameters, gradients and optimizer states, by precision, optimizer and strategy.

The accounting is the ZeRO paper's (Rajbhandari et al., 2020, section 3), which DeepSpeed's estimators and
FSDP's mixed precision follow: in 16-bit mixed precision every parameter holds a 16-bit copy (2 bytes), a
16-bit gradient (2), and in the optimizer an fp32 master copy (4) plus the optimizer's own fp32 states
(Adam/AdamW: momentum and variance, 8; SGD with momentum: 4; plain SGD: none). In fp32 training the
parameter and gradient take 4 bytes each and there is no master copy. Data-parallel degree N shards:

- DDP: nothing; ZeRO-1: optimizer states; ZeRO-2: gradients and optimizer states;
- ZeRO-3 / FSDP (full shard): all three, plus the full 16-bit parameters of the largest layer gathered
  for its forward and backward (counted twice: the layer being computed and the one being prefetched).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

#: Optimizer states in fp32 per parameter, in bytes (beside the master copy).
OPTIMIZER_BYTES: Dict[str, int] = {"adamw": 8, "adam": 8, "sgd-momentum": 4, "sgd": 0}
#: Bytes per element of each training dtype.
DTYPE_BYTES: Dict[str, int] = {"bf16": 2, "fp16": 2, "fp32": 4}
STRATEGIES: Tuple[str, ...] = ("ddp", "zero1", "zero2", "zero3")
STRATEGY_NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3 / FSDP full shard"}


@dataclass(frozen=True)
class StateBytes:
    """Bytes per card of each model state."""

    params: float
    grads: float
    optimizer: float
    gathered: float = 0.0  # ZeRO-3 / FSDP: the largest layer's full parameters, gathered

    @property
    def total(self) -> float:
        return self.params + self.grads + self.optimizer + self.gathered


def bytes_per_param(dtype: str, optimizer: str) -> Tuple[int, int, int]:
    """(parameter, gradient, optimizer) bytes per parameter before sharding."""
    if optimizer not in OPTIMIZER_BYTES:
        raise ValueError(f"unknown optimizer {optimizer!r} (known: {', '.join(OPTIMIZER_BYTES)})")
    width = DTYPE_BYTES[dtype]
    master = 4 if width < 4 else 0
    return width, width, master + OPTIMIZER_BYTES[optimizer]


def per_card(params: int, largest_layer: int, dtype: str, optimizer: str, strategy: str, cards: int) -> StateBytes:
    """Model-state bytes on each of ``cards`` data-parallel cards under ``strategy``."""
    if cards < 1:
        raise ValueError("cards must be at least 1")
    p, g, o = (params * b for b in bytes_per_param(dtype, optimizer))
    if strategy == "ddp":
        return StateBytes(p, g, o)
    if strategy == "zero1":
        return StateBytes(p, g, o / cards)
    if strategy == "zero2":
        return StateBytes(p, g / cards, o / cards)
    if strategy == "zero3":
        gathered = 0.0 if cards == 1 else 2 * largest_layer * DTYPE_BYTES[dtype]
        return StateBytes(p / cards, g / cards, o / cards, gathered)
    raise ValueError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
