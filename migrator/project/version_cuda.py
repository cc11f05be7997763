"""A branch taken only where ``torch.version.cuda`` is set, read with what it holds (``rules/device/version_cuda``).

Where the target's runtime installs the CPU torch wheel (``Runtime.torch_version_cuda``, with its source) the
branch is never taken. What it does is then the finding: when everything it holds has no path on the target (a
CUDA-only library with no port, a measurement of the CUDA device), skipping it is right: the test and the branch
are ``supported`` there. Otherwise (a fused attention with a twin on the target) the branch is silently off: the
test stays the ``rewrite`` the rule made, on its proof, and the branch's own findings are its sites, one item of
work. A branch holding nothing the scan judges (``kwargs["fused"] = True``, a
log line) is off as surely, but whether that matters no data says: the test is then to validate (a note).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..model import Evidence, Finding, Grade, Span, Status, Verdict
from .diagnostics import DIAGNOSTICS

RULE = "version-cuda"
#: a branch finding with no path on the target: skipping the branch loses nothing the target could run
_NO_PATH = frozenset({Status.PORT, Status.UNSUPPORTED})


def with_version_branches(findings: Sequence[Finding]) -> List[Finding]:
    """``findings`` with each ``torch.version.cuda`` test judged by what its branch holds, per target."""
    tests = [f for f in findings if f.rule == RULE and f.span.line is not None
             and any(v.status == Status.REWRITE for v in f.verdicts.values())]
    if not tests:
        return list(findings)
    branches: Dict[Tuple[str, Span], List[Finding]] = {}
    for finding in findings:
        if finding.guard is not None and finding.rule != RULE:
            branches.setdefault((finding.path, finding.guard), []).append(finding)
    changed: Dict[str, Finding] = {}
    for test in tests:
        guard = _guard_of(test, branches)
        body = branches.get((test.path, guard), []) if guard is not None else []
        verdicts = dict(test.verdicts)
        for target, verdict in test.verdicts.items():
            if verdict.status != Status.REWRITE:
                continue
            held = [b for b in body if target in b.verdicts]
            if held and all(b.verdicts[target].status in _NO_PATH or DIAGNOSTICS.match(b.api) for b in held):
                verdicts[target] = _skipped(verdict, target, held)
                for site in held:
                    current = changed.get(site.id, site)
                    site_verdicts = dict(current.verdicts)
                    site_verdicts[target] = _never_runs(verdict, target, guard)
                    changed[site.id] = replace(current, verdicts=site_verdicts)
            elif held:
                verdicts[target] = replace(verdict, message=verdict.message + _what_it_does(held, target))
            else:  # the proof is that the branch is not taken; whether what it does matters no data says
                verdicts[target] = replace(verdict, message=verdict.message + _what_it_does(held, target),
                                           evidence=tuple(Evidence(Grade.NOTE, e.source, e.quote)
                                                          for e in verdict.evidence))
        changed[test.id] = replace(test, verdicts=verdicts)
        for site in body:  # silently off somewhere: the branch's findings are sites of the test (one item)
            current = changed.get(site.id, site)
            if current.root is None and any(v.status == Status.REWRITE for v in verdicts.values()):
                changed[site.id] = replace(current, root=test.id)
    return [changed.get(f.id, f) for f in findings]


def _guard_of(test: Finding, branches: Dict[Tuple[str, Span], List[Finding]]) -> Optional[Span]:
    """The test (an ``if``'s) that ``test``'s read sits in, as its branch's findings name it."""
    line = test.span.line or 0
    for path, guard in branches:
        if path == test.path and guard.cell == test.span.cell \
                and (guard.line or 0) <= line <= (guard.end_line or guard.line or 0):
            return guard
    return None


def _skipped(verdict: Verdict, target: str, held: Sequence[Finding]) -> Verdict:
    apis = ", ".join(dict.fromkeys(f"`{f.api}`" for f in held))
    message = (verdict.message.split(": the branch", 1)[0] + f": the branch it guards is never taken there, and what "
               f"it holds ({apis}) has no path on {target}: correctly skipped, the other way runs; nothing to change")
    return Verdict(Status.SUPPORTED, message, verdict.source, evidence=verdict.evidence)


def _never_runs(verdict: Verdict, target: str, guard: Optional[Span]) -> Verdict:
    quote = verdict.evidence[0].quote if verdict.evidence else verdict.source
    at = f" (the test at line {guard.line})" if guard is not None else ""
    return Verdict(Status.SUPPORTED, f"in a branch taken only where `torch.version.cuda` is set{at}: it is None on "
                   f"{target}, so this never runs there", verdict.source,
                   evidence=(Evidence(Grade.PROOF, verdict.source, quote),))


def _what_it_does(held: Sequence[Finding], target: str) -> str:
    if not held:
        return (" (its branch holds nothing the scan judges, such as a fused optimizer's flag or a log line: check "
                "whether the target should take it)")
    apis = ", ".join(dict.fromkeys(f"`{f.api}`" for f in held))
    return f" ({apis}: a path {target} could take; test for the device instead if it should)"
