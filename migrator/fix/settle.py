"""What ``fix`` holds back of the safe rewrites, settled in the scan: one source of truth for ``fixable`` (issue 43).

How it runs: a scan asks for it (``ScanRequest.settle = settled``; ``scan --exact-fixable``,
``bench/bench_fixable.py``): it costs ``fix``'s own libcst work per target (open_clip: 4.3 of 6.6 CPU seconds;
mmengine: 52 of 63), so a plain scan counts every ``Auto`` verdict as fixable. The flow calls it through the
request, so the flow (a floor below ``fix``) imports nothing of ``fix``.

What it does:
    Before the assess stage counts, ``fix``'s own planning and decisions run over the scan's findings in memory
    (``fix_report``, nothing written): a safe rewrite (``Auto``) whose edit ``fix`` would not apply — its group
    cannot change together, a guard's branches keep a call that does not run on the target, its name is not
    bound in the file, the file cannot be read — becomes ``Unsafe`` with ``fix``'s reason in its message. It
    repeats until nothing more is held (a held edit is one more call that stays, which can hold a guard). A
    later round decides again only the files where a new hold can land: the files of the edits just held
    (their groups and guards), and the files with a guard flip or a device spelling among their safe edits
    (a flip elsewhere may reach a call just held, through ``protocols.reaching``).

Why:
    The scan counted every ``Auto`` verdict as fixable (readiness after ``fix``, the plan's first phase, the
    JSON's ``fixable``) while ``fix`` applied fewer: what the report promised was not what ``fix`` did. Now a
    scan's fixable findings on a tree are exactly the ones ``fix`` applies on that tree.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

from .. import __version__
from . import fix_report
from .protocols import FLIPS
from .style import VENDOR
from ..maps.load import TargetMap
from ..model import EditKind, Finding, Report, Status
from ..rules.base import cuda_names

#: at most this many rounds (each holds back more; two suffice on the repositories measured)
ROUNDS = 4


def settled(root: Path, findings: Sequence[Finding], targets: Sequence[TargetMap]) -> List[Finding]:
    """``findings`` with each ``Auto`` rewrite that ``fix`` would hold back made ``Unsafe``, with the reason."""
    out = list(findings)
    for target in targets:
        if not cuda_names(target).rewritten:
            continue
        scope: Optional[Set[str]] = None  # every file, the first round
        for _ in range(ROUNDS):
            safe = {f.id for f in out if _fixable(f, target.id) and (scope is None or f.path in scope)}
            held = _held(root, out, safe, target, scope) if safe else {}
            if not held:
                break
            scope = {f.path for f in out if f.id in held or _can_be_held_from_afar(f, target.id)}
            for index, finding in enumerate(out):
                why = held.get(finding.id)
                if why is not None:
                    verdict = finding.verdicts[target.id]
                    demoted = replace(verdict.held_back(why), message=f"{verdict.message}; `fix` holds it back: {why}")
                    out[index] = replace(finding, verdicts={**finding.verdicts, target.id: demoted})
    return out


def _fixable(finding: Finding, target: str) -> bool:
    verdict = finding.verdicts.get(target)
    return verdict is not None and verdict.status == Status.REWRITE and verdict.fixable


def _can_be_held_from_afar(finding: Finding, target: str) -> bool:
    """A safe edit a hold in another file can reach: a guard flip (``protocols.FLIPS``, a device comparison) or a
    device spelling (``together``)."""
    verdict = finding.verdicts.get(target)
    edit = verdict.edit if verdict is not None and verdict.fixable else None
    return edit is not None and (edit.old in FLIPS or edit.kind in (EditKind.STRING, EditKind.FSTRING))


def _held(root: Path, findings: Sequence[Finding], safe: Set[str], target: TargetMap,
          scope: Optional[Set[str]]) -> Dict[str, str]:
    """Of the ``safe`` findings, the ones ``fix`` would not apply, with why (its decisions read every finding,
    as in ``fix``: the calls that stay and the spellings settled as they are too)."""
    report = Report(root=str(root), tool_version=__version__, targets=(), files=(), findings=tuple(findings),
                    custom_ops=())
    fixed = fix_report(root, report, target, style=VENDOR, decisions_only=True,  # the style: names, not what applies
                       only=scope)
    applied = {i for item in fixed.files for i in item.applied}
    reasons: Dict[str, str] = {}
    for item in fixed.files:
        for skipped in item.skipped:
            reasons.setdefault(skipped.finding, skipped.reason)
        if item.error:
            reasons.update({f.id: item.error for f in findings if f.path == item.path and f.id in safe})
    return {i: reasons.get(i, "its edit does not apply to the code at its place") for i in safe - applied}
