"""Model states per card: parameters, gradients and optimizer states, by precision, optimizer and strategy.

The accounting is the ZeRO paper's (Rajbhandari et al., 2020, section 3), which DeepSpeed's estimators and
FSDP's mixed precision follow: in 16-bit mixed precision every parameter holds a 16-bit copy (2 bytes), a
16-bit gradient (2), and in the optimizer an fp32 master copy (4) plus the optimizer's own fp32 states
(Adam/AdamW: momentum and variance, 8; SGD with momentum: 4; plain SGD: none). In fp32 training the
parameter and gradient take 4 bytes each and there is no master copy. Data-parallel degree N shards:

- DDP: nothing. PyTorch's DDP trains in mixed precision with ``torch.autocast`` over fp32 weights: 4-byte
  weights and gradients, the optimizer's states and no master copy (the same 16 bytes a parameter with
  Adam), plus autocast's 16-bit weight copies, which the step measures (counted with the activations);
- ZeRO-1: optimizer states; ZeRO-2: gradients and optimizer states;
- ZeRO-3 / FSDP (full shard): all three, plus the full 16-bit parameters of the largest layer gathered
  for its forward and backward (counted twice: the layer being computed and the one being prefetched);
- offload (DeepSpeed's ``offload_optimizer`` / ``offload_param`` to the CPU, the ZeRO-Offload and
  ZeRO-Infinity papers): ZeRO-2 with the optimizer offloaded keeps the 16-bit weights and its gradient shard
  on the card, the master weights, states and 4-byte gradients on the host (16 bytes a parameter, DeepSpeed's
  ``estimate_zero2_model_states_mem_needs`` with ``cpu_offload``); ZeRO-3 with parameters offloaded too keeps
  only the largest layer's 16-bit weights and gradients on the card (DeepSpeed's ``largest_layer_memory``),
  18 bytes a parameter on the host.

The optimizer's step also allocates: torch's default (foreach) Adam computes ``exp_avg_sq.sqrt()`` for every
parameter it updates at once, one fp32 temporary the size of its states (``OPTIMIZER_TEMPORARY_BYTES``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

#: Optimizer states in fp32 per parameter, in bytes (beside the master copy).
OPTIMIZER_BYTES: Dict[str, int] = {"adamw": 8, "adam": 8, "sgd-momentum": 4, "sgd": 0}
#: Bytes per parameter of what the optimizer's step allocates and frees (torch's foreach implementations).
OPTIMIZER_TEMPORARY_BYTES: Dict[str, int] = {"adamw": 4, "adam": 4, "sgd-momentum": 0, "sgd": 0}
#: Bytes per element of each training dtype.
DTYPE_BYTES: Dict[str, int] = {"bf16": 2, "fp16": 2, "fp32": 4}
STRATEGIES: Tuple[str, ...] = ("ddp", "zero1", "zero2", "zero3", "zero2-offload", "zero3-offload")
OFFLOADED = frozenset({"zero2-offload", "zero3-offload"})
STRATEGY_NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3 / FSDP full shard",
                  "zero2-offload": "ZeRO-2 + optimizer offload",
                  "zero3-offload": "ZeRO-3 + parameter and optimizer offload"}
#: What each strategy sends per card and step, in multiples of the 16-bit model size (the ZeRO paper, 7.2.1:
#: an all-reduce moves 2 Ψ; ZeRO-1 and ZeRO-2 the same; ZeRO-3 1.5 times that); nothing on one card.
COMMUNICATION = {"ddp": 2.0, "zero1": 2.0, "zero2": 2.0, "zero3": 3.0, "zero2-offload": 2.0, "zero3-offload": 3.0}


@dataclass(frozen=True)
class StateBytes:
    """Bytes per card of each model state, and what stays on the host."""

    params: float
    grads: float
    optimizer: float
    gathered: float = 0.0  # ZeRO-3 / FSDP: the largest layer's full parameters, gathered
    temporaries: float = 0.0  # the optimizer step's temporaries on the card (not in ``total``: they are transient)
    host: float = 0.0  # offload: what the host keeps for this card (master weights, optimizer states, gradients)

    @property
    def total(self) -> float:
        return self.params + self.grads + self.optimizer + self.gathered


def bytes_per_param(dtype: str, optimizer: str) -> Tuple[int, int, int]:
    """(parameter, gradient, optimizer) bytes per parameter before sharding, in the ZeRO layout."""
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
    temporaries = params * OPTIMIZER_TEMPORARY_BYTES[optimizer]
    width = DTYPE_BYTES[dtype]
    if strategy == "ddp":  # autocast over fp32 weights: 4-byte weights and gradients, no master copy
        return StateBytes(params * 4, params * 4, params * OPTIMIZER_BYTES[optimizer], temporaries=temporaries)
    if strategy == "zero1":
        return StateBytes(p, g, o / cards, temporaries=temporaries / cards)
    if strategy == "zero2":
        return StateBytes(p, g / cards, o / cards, temporaries=temporaries / cards)
    if strategy == "zero3":
        gathered = 0.0 if cards == 1 else 2 * largest_layer * width
        return StateBytes(p / cards, g / cards, o / cards, gathered, temporaries=temporaries / cards)
    if strategy == "zero2-offload":
        return StateBytes(p, g / cards, 0.0, host=params * (4 + OPTIMIZER_BYTES[optimizer] + 4) / cards)
    if strategy == "zero3-offload":
        return StateBytes(0.0, 0.0, 0.0, gathered=2 * largest_layer * width,
                          host=params * (2 + 4 + OPTIMIZER_BYTES[optimizer] + 4) / cards)
    raise ValueError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
