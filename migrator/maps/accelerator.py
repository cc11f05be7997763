"""The portable ``torch.accelerator`` forms of CUDA's device-management calls a target's torch line has
(``operator_maps/accelerator.json``, built from ``curated/accelerator.yaml``): read by ``fix``'s portable style
(``fix/style.py``) and by the plan, which predicts what ``fix`` writes in each style."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Tuple

from .load import TargetMap, load_json


@dataclass(frozen=True)
class PortableForm:
    """One CUDA API's portable form on a target's line, and what says so."""

    api: str
    portable: str
    since: str  # the first torch release whose docs list the form
    source: str  # PyTorch's docs for that release; the vendor's list for the target's line


def _release(version: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:2] if part.isdigit())


def portable_forms(target: TargetMap) -> Mapping[str, PortableForm]:
    """The CUDA APIs the portable style rewrites on ``target``: a form its torch line has (``since``), that does
    on a CPU-only build what the CUDA call did, and that the vendor's list for the line documents as supported."""
    if not target.torch_line:
        return {}
    table = load_json("accelerator.json")
    forms = {}
    for api, row in table["apis"].items():
        if row.get("portable") is None or row.get("cpu") != "same":
            continue
        if _release(target.torch_line) < _release(str(row["since"])):
            continue
        documented = target.documented(row["portable"])
        if documented is None or documented[0].get("documented") != "Y":
            continue
        forms[api] = PortableForm(api, row["portable"], str(row["since"]),
                                  f"{table['sources'][str(row['since'])]}; {documented[1]}")
    return forms
