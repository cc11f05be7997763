"""The memory estimate as text or JSON (``migrator.memory/1``); both print the assumptions."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Dict, TextIO

from .fit import MemoryEstimate

SCHEMA = "migrator.memory/1"
_GB = 1e9


def to_dict(estimate: MemoryEstimate) -> Dict[str, Any]:
    return {
        "schema": SCHEMA, "model": estimate.model, "batch_per_card": estimate.batch, "seq": estimate.seq,
        "dtype": estimate.dtype, "optimizer": estimate.optimizer, "cards": estimate.cards,
        "facts": asdict(estimate.facts), "activations": asdict(estimate.activations),
        "fits": [{"card": asdict(fit.card), "usable_bytes": fit.usable, "fits": fit.fits, "reason": fit.reason,
                  "smallest": None if fit.smallest is None else fit.smallest.name,
                  "cards_needed": fit.cards_needed,
                  "configurations": [{"strategy": c.strategy, "checkpointing": c.checkpointing, "cards": c.cards,
                                      "params": c.states.params, "grads": c.states.grads,
                                      "optimizer": c.states.optimizer, "gathered": c.states.gathered,
                                      "activations": c.activations, "total": c.total,
                                      "fits": c.total <= fit.usable} for c in fit.configurations]}
                 for fit in estimate.fits],
        "assumptions": list(estimate.assumptions),
    }


def render_json(estimate: MemoryEstimate, out: TextIO) -> None:
    json.dump(to_dict(estimate), out, indent=1)
    out.write("\n")


def render_text(estimate: MemoryEstimate, out: TextIO) -> None:
    facts = estimate.facts
    out.write(f"{estimate.model}: {facts.params / 1e6:,.1f}M parameters ({facts.trainable / 1e6:,.1f}M trainable; "
              f"largest layer {facts.largest_layer / 1e6:,.1f}M); "
              f"{facts.blocks or 'no repeated blocks to checkpoint'}\n")
    if facts.counted_on != "meta":
        out.write(f"parameters counted from a real build: {facts.counted_on}\n")
    out.write(f"per card: batch {estimate.batch}, sequence {estimate.seq} ({facts.input}), {estimate.dtype}, "
              f"{estimate.optimizer}, {estimate.cards} data-parallel cards\n")
    out.write(f"activations (measured): {estimate.activations.bytes / _GB:.2f} GB, "
              f"{estimate.activations.checkpointed / _GB:.2f} GB with checkpointing\n\n")
    names = [c.name for c in estimate.fits[0].configurations] if estimate.fits else []
    width = max(len(n) for n in names) if names else 10
    header = "".join(f"{fit.card.id:>16}" for fit in estimate.fits)
    out.write(f"{'GB per card':<{width}}{header}\n")
    out.write(f"{'card memory (usable)':<{width}}" + "".join(
        f"{f'{fit.card.memory_gb:g} ({fit.usable / _GB:.1f})':>16}" for fit in estimate.fits) + "\n")
    for index, name in enumerate(names):
        cells = []
        for fit in estimate.fits:
            config = fit.configurations[index]
            cells.append(f"{config.total / _GB:.1f}{'' if config.total <= fit.usable else ' x'}")
        out.write(f"{name:<{width}}" + "".join(f"{c:>16}" for c in cells) + "\n")
    out.write("(x: does not fit)\n\n")
    for fit in estimate.fits:
        baseline = " (baseline)" if fit.card.baseline else ""
        needed = f"; {fit.cards_needed} card(s) suffice fully sharded and checkpointed" if fit.cards_needed else ""
        out.write(f"{fit.card.id}{baseline}: {fit.reason}{needed}\n  source: {fit.card.source}\n")
    out.write("\nAssumptions:\n" + "".join(f"- {a}\n" for a in estimate.assumptions))


RENDERERS = {"text": render_text, "json": render_json}
