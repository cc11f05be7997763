"""One target release's aten op map inputs: what ``ops_build`` builds from and each vendor reader reads (kept
apart from both so that neither imports the other's module for it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class OpRelease:
    target: str
    version: str
    runtime: str
    torch_line: str  # "2.7"
    native: str  # the aten universe for that line
    registrations: Tuple[str, ...]  # upstream files read
    api_support: Optional[str] = None
    npu_skips: Optional[str] = None
    #: API-level substitute verdicts for what the op map cannot say (kunlun: ``vendors/kunlun_bridge.py``)
    bridge: Optional[str] = None
