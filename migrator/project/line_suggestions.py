"""A cause's suggestion says the whole change at its line.

``torch.device("cuda" if torch.cuda.is_available() else "cpu")`` is one finding at its cause (the device chosen) with
the availability test as its site: the cause's own suggestion renamed the string alone and kept CUDA's test, which
still picks the CPU on the target; the test's rename sat folded under it. Three judges read the shown suggestion as
the fix. Here the cause's suggestion takes in each site on its line whose text it holds and whose verdict suggests a
rewrite: ``torch.device("npu" if torch_npu.npu.is_available() else "cpu")``. The edits stay each finding's own
(``fix`` applies them together, ``fix/together.py``); only the words shown change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..model import Finding, Status, Verdict


def with_whole_line_suggestions(findings: Sequence[Finding]) -> List[Finding]:
    """``findings``, each cause's suggestion with the rewrites its sites on the same line suggest."""
    sites: Dict[Tuple[str, str, Optional[int]], List[Finding]] = {}  # (cause, path, line) -> its sites there
    for finding in findings:
        if finding.root is not None and finding.span.line:
            sites.setdefault((finding.root, finding.path, finding.span.line), []).append(finding)
    if not sites:
        return list(findings)
    out = []
    for finding in findings:
        here = sites.get((finding.id, finding.path, finding.span.line)) if finding.root is None else None
        if here:
            verdicts = {t: _taken_in(v, t, here) for t, v in finding.verdicts.items()}
            if any(verdicts[t] is not v for t, v in finding.verdicts.items()):
                finding = replace(finding, verdicts=verdicts)
        out.append(finding)
    return out


def _taken_in(verdict: Verdict, target: str, sites: Sequence[Finding]) -> Verdict:
    shown = verdict.suggestion
    if verdict.fix is None or shown is None or verdict.status == Status.SUPPORTED:
        return verdict
    for site in sites:
        theirs = site.verdicts.get(target)
        said = theirs.suggestion if theirs is not None and theirs.status == Status.REWRITE else None
        if said and site.snippet and site.snippet != said and site.snippet in shown and said not in shown:
            shown = shown.replace(site.snippet, said, 1)
    return verdict if shown == verdict.suggestion else replace(verdict, fix=replace(verdict.fix, suggestion=shown))
