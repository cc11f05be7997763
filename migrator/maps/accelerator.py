"""The portable ``torch.accelerator`` forms of CUDA's device-management calls a target's torch line has
(``operator_maps/accelerator.json``, built from ``curated/accelerator.yaml``): read by ``fix``'s portable style
(``fix/style.py``) and by the plan, which predicts what ``fix`` writes in each style."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple, Union

from ..model import Edit, EditKind
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


@dataclass(frozen=True)
class DeviceForm:
    """A CUDA call's portable form that names the device (or backend) itself on a target's line: the function
    the file then calls, the expression passed as the device, and CUDA's positional parameters it passes by name
    after the device (``()``: the others keep their places)."""

    api: str
    portable: str
    value: str
    keywords: Tuple[str, ...]
    since: str
    source: str


def device_forms(target: TargetMap) -> Mapping[str, DeviceForm]:
    """The calls the portable style writes with the accelerator's device on ``target``: a form its torch line has,
    whose every needed API the vendor's list for the line documents, and, where the value reads a map the vendor's
    plugin registers into, a registration the row cites for the target."""
    return {api: form for api, form in _device_rows(target).items() if isinstance(form, DeviceForm)}


#: the call whose device form passes a backend (``'nccl'``), not a device (``'cuda'``)
BACKEND_CALL = "torch.distributed.init_process_group"


def takes_device_form(edit: Edit, api: str, calls: Mapping[str, DeviceForm]) -> bool:
    """Whether ``edit`` (a finding's on ``api``) is written with ``api``'s device form in the portable style: the
    CUDA AMP name itself, the ``'cuda'`` (``'nccl'``) literal the call is given, or the device a ``GradScaler()``
    leaves to its CUDA default."""
    if api not in calls:
        return False
    value = "nccl" if api == BACKEND_CALL else "cuda"
    if edit.kind == EditKind.NAME:
        return edit.old == api
    if edit.kind == EditKind.STRING:
        return edit.old == value
    return edit.kind == EditKind.ARGUMENT and value == "cuda"


def device_form_gap(target: TargetMap, api: str) -> Optional[str]:
    """Why ``api`` has no device form on ``target`` (``None`` when it has one, or the table has no row)."""
    form = _device_rows(target).get(api)
    return form if isinstance(form, str) else None


def _device_rows(target: TargetMap) -> Mapping[str, Union[DeviceForm, str]]:
    """Per row of the table: its form on ``target``, or why it has none there."""
    table = load_json("accelerator.json")
    out: Dict[str, Union[DeviceForm, str]] = {}
    for api, row in table.get("device_forms", {}).items():
        since = str(row["since"])
        if not target.torch_line or _release(target.torch_line) < _release(since):
            out[api] = (f"its portable form `{row['portable']}(<device>, ...)` needs torch {since}; {target.label} "
                        f"runs torch {target.torch_line or '(unknown)'}")
            continue
        missing = [need for need in row["needs"] if (target.documented(need) or ({}, ""))[0].get("documented") != "Y"]
        if missing:
            out[api] = (f"its portable form runs `{'`, `'.join(missing)}`, which the vendor's API list for "
                        f"{target.label} does not document as supported" + (f" ({row['note']})" if row.get("note")
                                                                            else ""))
            continue
        registered = row.get("registered")
        if registered is not None and target.id not in registered:
            out[api] = f"no vendor source in the data says {target.label} registers its device into the map it reads"
            continue
        documented = target.documented(row["needs"][0])
        sources = [table["device_sources"][since], documented[1] if documented else ""]
        if registered is not None:
            sources.append(registered[target.id])
        out[api] = DeviceForm(api, row["portable"], table["values"][row["value"]], tuple(row.get("keywords") or ()),
                              since, "; ".join(s for s in sources if s))
    return out
