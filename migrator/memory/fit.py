"""Per card: the memory and cost of every plan (DDP, ZeRO-1/2/3, offload; each without and with
checkpointing), whether it fits with headroom, the cheapest plan that does, and how many cards a fully
sharded, checkpointed run needs."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence, Tuple

from .cards import Card
from .measure import Activations, ModelFacts
from .states import COMMUNICATION, OFFLOADED, STRATEGIES, STRATEGY_NAMES, StateBytes, per_card

#: Fraction of a card's memory kept free for the runtime, allocator fragmentation and communication buffers.
HEADROOM = 0.20
#: Most cards ``cards_needed`` looks at.
_MAX_CARDS = 16384


@dataclass(frozen=True)
class Configuration:
    """One way to train: a strategy, with or without checkpointing, on ``cards`` cards, and what it costs."""

    strategy: str
    checkpointing: bool
    cards: int
    states: StateBytes
    activations: float  # what autograd holds at its peak (with autocast's weight copies where DDP makes them)
    weight_copies: float = 0.0  # autocast's weight copies, at their peak (part of ``activations``)
    #: DDP on one card (no gradient buckets): the step's peak as the tracker saw it, the gradients growing through
    #: the backward while the activations shrink; ``total`` takes it where it is below states plus activations
    single_card_peak: Optional[float] = None
    compute: float = 1.0  # the step's compute relative to the same step without checkpointing
    communication: float = 0.0  # per card and step, in multiples of the 16-bit model size

    @property
    def total(self) -> float:
        """The step's peak on the card: model states and the larger of what autograd holds and what the
        optimizer's step allocates (the activations are freed before the optimizer runs)."""
        peak = self.states.total + max(self.activations, self.states.temporaries)
        if self.single_card_peak is not None:
            return min(peak, self.single_card_peak)
        return peak

    @property
    def offloaded(self) -> bool:
        return self.strategy in OFFLOADED

    @property
    def name(self) -> str:
        return STRATEGY_NAMES[self.strategy] + (" + activation checkpointing" if self.checkpointing else "")

    @property
    def cost(self) -> Tuple[int, float, float]:
        """What the plan costs, to order the plans cheapest first: offloading (the host runs the optimizer and
        every step crosses PCIe) after recomputing (checkpointing's extra forward) after communicating more
        (ZeRO-3's 1.5x); DDP, ZeRO-1 and ZeRO-2 cost alike and are tried in that order."""
        return (int(self.offloaded), round(self.compute, 3), self.communication)


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
    seq: Optional[int]
    dtype: str
    optimizer: str
    cards: int
    activations: Activations
    fits: Tuple[CardFit, ...]
    assumptions: Tuple[str, ...]


def configurations(facts: ModelFacts, activations: Activations, dtype: str, optimizer: str,
                   cards: int) -> Tuple[Configuration, ...]:
    """Every strategy without and then with activation checkpointing, cheapest first (``Configuration.cost``)."""
    found = []
    width = 2 if dtype != "fp32" else 4
    for strategy in STRATEGIES:
        states = per_card(facts.trainable, facts.largest_layer, dtype, optimizer, strategy, cards)
        frozen = (facts.params - facts.trainable) * width  # frozen weights: no grads, no states
        kept = 0.0 if strategy == "zero3-offload" else frozen / (cards if strategy == "zero3" else 1)
        states = replace(states, params=states.params + kept)
        autocast = strategy == "ddp" and dtype != "fp32"  # only DDP computes through autocast's weight copies
        communication = COMMUNICATION[strategy] if cards > 1 else 0.0
        for checkpointing in (False, True):
            if checkpointing:
                held = max(activations.checkpointed_with_copies if autocast else 0.0, activations.checkpointed)
                with_grads = activations.checkpointed_with_grads
            else:
                held = max(activations.with_copies if autocast else 0.0, activations.bytes)
                with_grads = activations.with_grads
            single = None
            if strategy == "ddp" and cards == 1 and with_grads:
                single = states.params + states.optimizer + max(with_grads, states.grads + states.temporaries)
            found.append(Configuration(
                strategy, checkpointing, cards, states, held,
                weight_copies=activations.weight_copies if autocast else 0.0, single_card_peak=single,
                compute=activations.recompute if checkpointing else 1.0, communication=communication))
    ranked = sorted(enumerate(found), key=lambda pair: (pair[1].cost, pair[0]))
    return tuple(configuration for _, configuration in ranked)


def fit_card(card: Card, facts: ModelFacts, activations: Activations, dtype: str, optimizer: str,
             cards: int, headroom: float = HEADROOM) -> CardFit:
    usable = card.memory_bytes * (1 - headroom)
    options = configurations(facts, activations, dtype, optimizer, cards)
    smallest = next((c for c in options if c.total <= usable), None)
    needed = cards_needed(usable, facts, activations, dtype, optimizer)
    if smallest is not None:
        reason = f"fits as {smallest.name} on {cards} card{'s' if cards != 1 else ''}{_costs(smallest)}"
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


def _costs(plan: Configuration) -> str:
    """What the chosen plan costs beyond plain DDP, when anything."""
    said = []
    if plan.compute > 1.0:
        said.append(f"{100 * (plan.compute - 1):.0f}% more compute to recompute the checkpointed blocks")
    if plan.strategy in ("zero3", "zero3-offload") and plan.cards > 1:
        said.append("1.5x DDP's communication")
    if plan.offloaded:
        said.append("the optimizer steps on the host, and weights and gradients cross PCIe every step")
    return f" ({'; '.join(said)})" if said else ""


def cards_needed(usable: float, facts: ModelFacts, activations: Activations, dtype: str,
                 optimizer: str) -> Optional[int]:
    """The fewest data-parallel cards on which ZeRO-3 / FSDP with checkpointing fits (binary search)."""
    def fits(n: int) -> bool:
        return next(c for c in configurations(facts, activations, dtype, optimizer, n)
                    if c.strategy == "zero3" and c.checkpointing).total <= usable
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
    mixed = dtype != "fp32"
    return (
        f"model states per trainable parameter under ZeRO: {p} bytes weights, {g} bytes gradients, {o} bytes "
        f"optimizer ({'fp32 master copy + ' if mixed else ''}{optimizer} states), the ZeRO paper's accounting"
        + ("; under DDP, autocast over fp32 weights: 4 bytes weights, 4 bytes gradients, the optimizer's states, "
           "and autocast's 16-bit weight copies counted with the activations" if mixed else ""),
        "DDP keeps all states on every card; ZeRO-1 shards the optimizer states, ZeRO-2 also the gradients, "
        "ZeRO-3 / FSDP full shard also the weights, plus the largest layer's weights gathered twice over; "
        "offload keeps the optimizer (and with ZeRO-3 the weights) on the host, DeepSpeed's estimators' bytes",
        "activations: one forward and backward of the per-card batch on fake tensors, the maximum over the whole "
        "step of what autograd holds (saved tensors and temporaries), not their value when the total peaks",
        "the step's peak: model states plus the larger of the activations and the optimizer step's temporaries "
        "(torch's foreach Adam: one fp32 tensor the size of the states it updates); on one card without DDP the "
        "gradients grow through the backward as the activations shrink, and the tracker follows both",
        "activation checkpointing: each block of every repeated block list recomputed in the backward; its compute "
        "is the measured FLOPs of the checkpointed step against the plain one",
        "plans are ordered cheapest first: DDP, ZeRO-1 and ZeRO-2 (same compute and communication), ZeRO-3 (1.5x "
        "communication), then the same with checkpointing (more compute), then offload (host optimizer, PCIe)",
        f"fits: the total is at most {100 * (1 - headroom):.0f}% of the card's memory ({100 * headroom:.0f}% "
        "headroom for the runtime, allocator fragmentation and communication buffers)",
        "not counted: pipeline or tensor parallelism, NVMe offload, framework workspaces beyond the headroom; the "
        "step runs the CPU's kernel choices (a device's fused attention may hold less)",
    )


def fit_all(cards: Sequence[Card], facts: ModelFacts, activations: Activations, dtype: str, optimizer: str,
            count: int) -> Tuple[CardFit, ...]:
    ordered = sorted(cards, key=lambda c: (not c.baseline, c.id))
    return tuple(fit_card(c, facts, activations, dtype, optimizer, count) for c in ordered)
