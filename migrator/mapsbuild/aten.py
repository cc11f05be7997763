"""The aten universe of one torch line (``native_functions.yaml``) and how an overload is judged from a
vendor's set of registered kernels: shared by every vendor reader."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Set

from .upstream import parse_yaml


@dataclass(frozen=True)
class AtenOp:
    overload: str  # aten::add.Tensor
    kind: str  # implicit | explicit | backend
    structured_delegate: Optional[str]


def aten_universe(text: str) -> Dict[str, AtenOp]:
    ops: Dict[str, AtenOp] = {}
    for entry in parse_yaml(text):
        name = entry["func"].split("(", 1)[0]
        dispatch = entry.get("dispatch") or {}
        keys = {k.strip() for key in dispatch for k in str(key).split(",")}
        delegate = entry.get("structured_delegate")
        if "CompositeImplicitAutograd" in keys or (not keys and not delegate):
            kind = "implicit"
        elif keys & {"CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"}:
            kind = "explicit"  # one generic kernel; other keys (sparse, nested) only specialise it
        else:
            kind = "backend"
        ops[f"aten::{name}"] = AtenOp(f"aten::{name}", kind, f"aten::{delegate}" if delegate else None)
    return ops


def classify(info: AtenOp, registered: Set[str]) -> str:
    if info.overload in registered:
        return "registered"
    if info.structured_delegate and info.structured_delegate in registered:
        return "structured"
    if info.kind == "explicit":
        return "composite-explicit"
    if info.kind == "implicit":
        return "composite-implicit"
    return "not-registered"
