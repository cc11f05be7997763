"""Per card: the memory of every configuration, whether it fits with headroom, the smallest that does,
and how many cards a fully sharded, checkpointed run needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from .cards import Card
from .measure import Activations, ModelFacts
from .states import STRATEGIES, STRATEGY_NAMES, StateBytes, per_card

#: Fraction of a card's memory kept free for the runtime, allocator fragmentation and communication buffers.
HEADROOM = 0.20
#: Most cards ``cards_needed`` looks at.
_MAX_CARDS = 16384


@dataclass(frozen=True)
class Configuration:
    strategy: str
    checkpointing: bool
    cards: int
    states: StateBytes
    activations: float

    @property
    def total(self) -> float:
        return self.states.total + self.activations

    @property
    def name(self) -> str:
        return STRATEGY_NAMES[self.strategy] + (" + activation checkpointing" if self.checkpointing else "")


@dataclass(frozen=True)
class CardFit:
    card: Card
    usable: float  # bytes: memory less the headroom
    configurations: Tuple[Configuration, ...]  # every strategy, without then with checkpointing, on the given cards
    smallest: Optional[Configuration]  # the first that fits, in the order a team would try them
    cards_needed: Optional[int]  # fully sharded and checkpointed; None when even one layer and a batch do not fit
    reason: str

    @property
    def fits(self) -> bool:
        return self.smallest is not None


@dataclass(frozen=True)
class MemoryEstimate:
    model: str
    facts: ModelFacts
    batch: int
    seq: int
    dtype: str
    optimizer: str
    cards: int
    activations: Activations
    fits: Tuple[CardFit, ...]
    assumptions: Tuple[str, ...]


def configurations(facts: ModelFacts, activations: Activations, dtype: str, optimizer: str,
                   cards: int) -> Tuple[Configuration, ...]:
    """DDP, ZeRO-1, ZeRO-2, ZeRO-3/FSDP, each without and then with activation checkpointing."""
    found = []
    for strategy in STRATEGIES:
        states = per_card(facts.trainable, facts.largest_layer, dtype, optimizer, strategy, cards)
        frozen = (facts.params - facts.trainable) * (2 if dtype != "fp32" else 4)  # frozen weights: no grads, no states
        states = StateBytes(states.params + frozen / (cards if strategy == "zero3" else 1), states.grads,
                            states.optimizer, states.gathered)
        found.append(Configuration(strategy, False, cards, states, activations.bytes))
        found.append(Configuration(strategy, True, cards, states, activations.checkpointed))
    return tuple(found)


def fit_card(card: Card, facts: ModelFacts, activations: Activations, dtype: str, optimizer: str,
             cards: int, headroom: float = HEADROOM) -> CardFit:
    usable = card.memory_bytes * (1 - headroom)
    options = configurations(facts, activations, dtype, optimizer, cards)
    smallest = next((c for c in options if c.total <= usable), None)
    needed = cards_needed(usable, facts, activations, dtype, optimizer)
    if smallest is not None:
        reason = f"fits as {smallest.name} on {cards} card{'s' if cards != 1 else ''}"
    elif needed is not None:
        reason = (f"does not fit on {cards} card{'s' if cards != 1 else ''}; needs {needed} with ZeRO-3 / FSDP and "
                  "checkpointing")
    else:
        reason = ("does not fit at this batch on any number of cards: one card's activations and gathered layer "
                  "alone exceed it")
    supported = card.dtypes.get(dtype)
    if supported is False:
        reason += f"; the card does not support {dtype}"
    elif supported is None:
        reason += f"; whether the card supports {dtype} is not in the card data"
    return CardFit(card=card, usable=usable, configurations=options, smallest=smallest, cards_needed=needed,
                   reason=reason)


def cards_needed(usable: float, facts: ModelFacts, activations: Activations, dtype: str,
                 optimizer: str) -> Optional[int]:
    """The fewest data-parallel cards on which ZeRO-3 / FSDP with checkpointing fits (binary search)."""
    def fits(n: int) -> bool:
        return configurations(facts, activations, dtype, optimizer, n)[-1].total <= usable
    if not fits(_MAX_CARDS):
        return None
    low, high = 1, _MAX_CARDS
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


def estimate_assumptions(dtype: str, optimizer: str, headroom: float = HEADROOM) -> Tuple[str, ...]:
    from .states import bytes_per_param

    p, g, o = bytes_per_param(dtype, optimizer)
    return (
        f"model states per trainable parameter: {p} bytes weights, {g} bytes gradients, {o} bytes optimizer "
        f"({'fp32 master copy + ' if p < 4 else ''}{optimizer} states), the ZeRO paper's accounting",
        "DDP keeps all states on every card; ZeRO-1 shards the optimizer states, ZeRO-2 also the gradients, "
        "ZeRO-3 / FSDP full shard also the weights, plus the largest layer's weights gathered twice over",
        "activations: measured by one forward and backward of the per-card batch on fake tensors "
        "(torch FakeTensorMode + torch.distributed._tools MemTracker: activations and temporaries at the peak)",
        "activation checkpointing: each block of the largest repeated block list recomputed in backward",
        f"fits: the total is at most {100 * (1 - headroom):.0f}% of the card's memory ({100 * headroom:.0f}% "
        "headroom for the runtime, allocator fragmentation and communication buffers)",
        "not counted: pipeline or tensor parallelism, CPU/NVMe offload, framework workspaces beyond the headroom",
    )


def fit_all(cards: Sequence[Card], facts: ModelFacts, activations: Activations, dtype: str, optimizer: str,
            count: int) -> Tuple[CardFit, ...]:
    ordered = sorted(cards, key=lambda c: (not c.baseline, c.id))
    return tuple(fit_card(c, facts, activations, dtype, optimizer, count) for c in ordered)
