"""What the vendor's own ports change where code uses an API, applied over a rule's verdict.

A runtime that keeps CUDA names (Kunlunxin's torch_xmlir) gets ``supported`` for every ``torch.cuda`` spelling
from its shim's one claim, and ``unknown`` where no data covers an API. Where the vendor's engineers changed
the code that uses an API when they ran it on their device (Kunlunxin's FlagPerf adaptations swap the grad
scaler, drop SyncBatchNorm; DeepSpeed's accelerator times on the host), that is better evidence than either:
the target's ``adaptations`` row (``curated/kunlun.yaml``) replaces those two verdicts. A verdict from the
vendor's own data that asks for a change already (a rewrite, a fallback) stands, unless the row says the vendor
ran code that uses the API unchanged (``ran_unchanged``: FlagPerf's transformer runs apex on R300), which
outweighs a ``port`` built on no vendor file naming the library.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping

from ..maps.load import TargetMap
from ..model import Status, Usage, Verdict, fix_of

#: the verdicts an adaptation row replaces: the shim's blanket claim, and no data at all
_REPLACED = frozenset({Status.SUPPORTED, Status.UNKNOWN})


def adapted(verdicts: Dict[str, Verdict], usage: Usage, targets) -> Dict[str, Verdict]:
    """``verdicts`` with each target's adaptation row for ``usage.api`` in place of a blanket verdict."""
    out = verdicts
    for target in targets:
        row = target.adaptations.get(usage.api) if target.adaptations else None
        verdict = verdicts.get(target.id)
        if row is None or verdict is None or (row.get("kinds") and usage.kind not in row["kinds"]):
            continue  # no row, no verdict, or a row about another kind of use (the vendor only imports it)
        if verdict.status not in _REPLACED and not row.get("ran_unchanged"):
            continue
        if out is verdicts:
            out = dict(verdicts)
        out[target.id] = adaptation_verdict(target, usage.api, row)
    return out


def adaptation_verdict(target: TargetMap, api: str, row: Mapping[str, Any]) -> Verdict:
    to = str(row["to"]) if row.get("to") else None
    use = f"; use `{to}`" if to else ""
    return Verdict(Status(str(row["status"])),
                   f"`{api}` on {target.id}@{target.version}: what the vendor's own ports do here: {row['note']}{use}",
                   str(row["source"]), fix=fix_of(to))
