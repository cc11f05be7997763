"""Accelerator cards: the shipped data, each row with its source, and the user's overrides."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Tuple

from ..maps.load import maps_dir

_DTYPES = ("bf16", "fp16", "fp8", "fp64")
#: The fields a card row may have (``curated/cards.yaml``, ``[tool.migrator.cards]``); the maps build checks them too.
CARD_FIELDS = frozenset({"name", "target", "memory_gb", "bandwidth_gbs", "dtypes", "source", "note", "baseline"})


class CardError(ValueError):
    """A card row (usually a user override) that lacks memory or names an unknown field."""


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    memory_gb: float
    source: str
    target: Optional[str] = None  # the migrator target whose runtime drives it (cann, neuware, kunlun)
    bandwidth_gbs: Optional[float] = None
    dtypes: Mapping[str, Optional[bool]] = field(default_factory=dict)  # None: no source says
    note: Optional[str] = None
    baseline: bool = False

    @property
    def memory_bytes(self) -> float:
        return self.memory_gb * 1e9


def load_cards(overrides: Sequence[Tuple[str, Mapping[str, Any]]] = ()) -> Tuple[Card, ...]:
    """The shipped cards, with ``overrides`` (``[tool.migrator.cards.<id>]``) merged over or added to them."""
    rows = dict(json.loads((maps_dir() / "cards.json").read_text(encoding="utf-8"))["cards"])
    for card_id, override in overrides:
        merged = {**rows.get(card_id, {}), **override}
        if "source" not in override and card_id not in rows:
            merged["source"] = "[tool.migrator.cards] in the project's pyproject.toml"
        elif override:
            source = rows.get(card_id, {}).get("source", "")
            merged["source"] = f"{source}; overridden in [tool.migrator.cards]".lstrip("; ")
        rows[card_id] = merged
    return tuple(_card(card_id, row) for card_id, row in rows.items())


def _card(card_id: str, row: Mapping[str, Any]) -> Card:
    if set(row) - CARD_FIELDS:
        raise CardError(f"card {card_id}: unknown field {sorted(set(row) - CARD_FIELDS)[0]!r} "
                        f"(known: {', '.join(sorted(CARD_FIELDS))})")
    if not isinstance(row.get("memory_gb"), (int, float)) or row["memory_gb"] <= 0:
        raise CardError(f"card {card_id}: memory_gb must be a positive number")
    dtypes = {d: (row.get("dtypes") or {}).get(d) for d in _DTYPES}
    return Card(id=card_id, name=str(row.get("name", card_id)), memory_gb=float(row["memory_gb"]),
                source=str(row.get("source", "")), target=row.get("target"),
                bandwidth_gbs=row.get("bandwidth_gbs"), dtypes=dtypes, note=row.get("note"),
                baseline=bool(row.get("baseline", False)))
