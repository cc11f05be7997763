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
        "facts": asdict(estimate.facts),
        "activations": {**asdict(estimate.activations), "recompute": estimate.activations.recompute},
        "formula": formula(estimate),
        "fits": [{"card": asdict(fit.card), "usable_bytes": fit.usable, "fits": fit.fits, "reason": fit.reason,
                  "smallest": None if fit.smallest is None else fit.smallest.name,
                  "cards_needed": fit.cards_needed,
                  "configurations": [{"strategy": c.strategy, "checkpointing": c.checkpointing, "cards": c.cards,
                                      "params": c.states.params, "grads": c.states.grads,
                                      "optimizer": c.states.optimizer, "gathered": c.states.gathered,
                                      "activations": c.activations, "total": c.total,
                                      "fits": c.total <= fit.usable, "name": c.name,
                                      "weight_copies": c.weight_copies,
                                      "optimizer_temporaries": c.states.temporaries, "host": c.states.host,
                                      "offloaded": c.offloaded, "compute": c.compute,
                                      "communication": c.communication} for c in fit.configurations]}
                 for fit in estimate.fits],
        "assumptions": list(estimate.assumptions),
    }


def formula(estimate: MemoryEstimate) -> Dict[str, float]:
    """The rule of thumb to compare with: 16 bytes a parameter for mixed-precision Adam (fp32 weights,
    gradients, momentum and variance; or 16-bit weights and gradients and a 12-byte fp32 optimizer), plus the
    measured activations, on one card."""
    from .states import OPTIMIZER_BYTES

    per_param = 8 + OPTIMIZER_BYTES[estimate.optimizer]  # weights and gradients (with the master copy): 8
    states = float(per_param * estimate.facts.params)
    return {"bytes_per_param": per_param, "states": states, "total": states + estimate.activations.bytes}


def render_json(estimate: MemoryEstimate, out: TextIO) -> None:
    json.dump(to_dict(estimate), out, indent=1)
    out.write("\n")


def render_text(estimate: MemoryEstimate, out: TextIO) -> None:
    facts, acts = estimate.facts, estimate.activations
    out.write(f"{estimate.model}: {facts.params / 1e6:,.1f}M parameters ({facts.trainable / 1e6:,.1f}M trainable; "
              f"largest layer {facts.largest_layer / 1e6:,.1f}M); "
              f"{facts.blocks or 'no repeated blocks to checkpoint'}\n")
    if facts.counted_on != "meta":
        out.write(f"built with {facts.counted_on}\n")
    out.write(f"per card: batch {estimate.batch}, {facts.input}, {estimate.dtype}, "
              f"{estimate.optimizer}, {estimate.cards} data-parallel card{'s' if estimate.cards != 1 else ''}\n")
    out.write(f"activations (the step's maximum of what autograd holds): {acts.bytes / _GB:.2f} GB, "
              f"{acts.checkpointed / _GB:.2f} GB with checkpointing"
              + (f" ({100 * (acts.recompute - 1):.0f}% more compute)" if acts.recompute > 1 else "") + "\n")
    if acts.weight_copies:
        out.write(f"autocast's 16-bit weight copies (DDP over fp32 weights): {acts.weight_copies / _GB:.2f} GB; "
                  f"with the activations at once: {acts.with_copies / _GB:.2f} GB\n")
    if acts.note:
        out.write(f"{acts.note}\n")
    rule = formula(estimate)
    out.write(f"rule of thumb: {rule['bytes_per_param']} bytes a parameter = {rule['states'] / _GB:.2f} GB of "
              f"model states, plus activations = {rule['total'] / _GB:.2f} GB on one card\n\n")
    plans = estimate.fits[0].configurations if estimate.fits else ()
    width = max((len(c.name) for c in plans), default=10) + 2
    out.write(f"{'GB per card, cheapest plan first':<{width}}{'compute':>8}{'comm':>6}"
              + "".join(f"{fit.card.id:>16}" for fit in estimate.fits) + "\n")
    out.write(f"{'card memory (usable)':<{width}}{'':>14}" + "".join(
        f"{f'{fit.card.memory_gb:g} ({fit.usable / _GB:.1f})':>16}" for fit in estimate.fits) + "\n")
    for index, plan in enumerate(plans):
        cells = []
        for fit in estimate.fits:
            config = fit.configurations[index]
            chosen = "*" if fit.smallest is config else ("" if config.total <= fit.usable else " x")
            gb = config.total / _GB
            cells.append(f"{gb:.{2 if gb < 10 else 1}f}{chosen}")
        out.write(f"{plan.name:<{width}}{plan.compute:>8.2f}{plan.communication:>6g}"
                  + "".join(f"{c:>16}" for c in cells) + "\n")
    out.write("(*: the cheapest plan that fits; x: does not fit; compute: relative to the step without "
              "checkpointing; comm: per card and step, in 16-bit model sizes)\n")
    host = next((c.states.host for c in plans if c.strategy == "zero2-offload"), 0.0)
    if host:
        out.write(f"offload keeps {host / _GB:.1f} GB (ZeRO-2) to "
                  f"{next(c.states.host for c in plans if c.strategy == 'zero3-offload') / _GB:.1f} GB (ZeRO-3) "
                  "per card in host memory\n")
    out.write("\n")
    for fit in estimate.fits:
        baseline = " (baseline)" if fit.card.baseline else ""
        needed = f"; {fit.cards_needed} card(s) suffice fully sharded and checkpointed" if fit.cards_needed else ""
        out.write(f"{fit.card.id}{baseline}: {fit.reason}{needed}\n  source: {fit.card.source}\n")
    out.write("\nAssumptions:\n" + "".join(f"- {a}\n" for a in estimate.assumptions))


RENDERERS = {"text": render_text, "json": render_json}
