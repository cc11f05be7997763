"""The argument names of the APIs the vendors' notes are about, in order: so a note on an argument
("`approximate`参数仅支持设置为`tanh`") bites only a call that passes it, by keyword or at its place.

``operator_maps/signatures.json`` is generated from the torch the API table was traced with
(``migrator maps signatures``: ``mapsbuild/signatures.py``, which needs torch); a scan only reads it. A method's or
a module's list leaves out ``self``: a call's positional arguments count from the first one after it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping, Optional, Tuple

from .load import load_json, maps_dir

SIGNATURES = "signatures.json"


@lru_cache(maxsize=None)
def _table() -> Mapping[str, Tuple[str, ...]]:
    if not (maps_dir() / SIGNATURES).exists():
        return {}
    return {api: tuple(names) for api, names in load_json(SIGNATURES)["apis"].items()}


def api_parameters(api: str) -> Optional[Tuple[str, ...]]:
    """``api``'s argument names in order (without ``self``; ``*`` before the keyword-only ones), or ``None``
    when the table lacks it."""
    return _table().get(api)
