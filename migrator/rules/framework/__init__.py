"""Training frameworks' own settings (Lightning, transformers, accelerate): what the framework does with a
device, backend or precision choice on each target, read from its code (``curated/frameworks.yaml``).

A setting the framework maps per device itself (accelerate's backend, Lightning's DDP backend) is not work:
its verdict says what the framework does, with the file read as the source. One it hands to CUDA as written
(Lightning's ``accelerator='gpu'``, transformers' ``tf32=True``) is, on the quoted code's proof.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence, Tuple

from ...evidence import item
from ...maps.load import FrameworkSetting, TargetMap
from ...model import Grade, Status, Verdict, fix_of

#: How bad a status is, to pick one verdict for a call that sets several things.
_SEVERITY = {Status.SUPPORTED: 0, Status.PARTIAL: 1, Status.UNKNOWN: 2, Status.REWRITE: 3, Status.UNSUPPORTED: 4}


def setting_verdict(target: TargetMap, rows: Sequence[Tuple[FrameworkSetting, str]],
                    snippet: Optional[str] = None) -> Verdict:
    """One target's verdict on the settings ``rows`` (each with the value written): the worst of them, its
    message naming every one (``accelerator='gpu': ...; precision='16-mixed': ...``), its evidence the quoted
    code of each that is work (proof)."""
    kind = target.runtime_facts.cuda_names
    parts: List[str] = []
    worst: Optional[Tuple[FrameworkSetting, Mapping[str, str]]] = None
    evidence = []
    for row, value in rows:
        verdict = row.verdicts.get(target.id.split("@", 1)[0]) or row.verdicts[kind]
        status = Status(verdict["status"])
        says = str(verdict["says"]).format(device=target.device_to, backend=target.backend_to, target=target.id)
        parts.append(f"{row.argument}={value}: {says}")
        if worst is None or _SEVERITY[status] > _SEVERITY[Status(worst[1]["status"])]:
            worst = (row, verdict)
        if status in (Status.REWRITE, Status.UNSUPPORTED, Status.PARTIAL):
            evidence.append(item(Grade.PROOF, row.source, row.quote))
        elif status == Status.UNKNOWN:
            evidence.append(item(Grade.GAP, row.source, says))
    assert worst is not None
    row, verdict = worst
    status = Status(verdict["status"])
    suggestion = verdict.get("suggestion")
    return Verdict(status, "; ".join(parts), row.source,
                   fix=fix_of(str(suggestion)) if suggestion and status != Status.SUPPORTED else None,
                   evidence=tuple(evidence) if status != Status.SUPPORTED else ())
