"""A device test that keeps code the target cannot run out of it: kuangliu's pytorch-cifar ``if device == 'cuda':
net = torch.nn.DataParallel(net); cudnn.benchmark = True``.

What it does:
    A device word compared with a device (``device == 'cuda'``) decides a branch; the findings in that branch are
    sites of the test (their ``root``). Where, on a target, some of them need a hand (``DataParallel``: no exact
    rewrite there) and none would be renamed by ``fix`` (no placement the branch does for the target), the test
    runs as written there: it is False on the target, which skips the branch as a machine without CUDA does (one
    device, no cuDNN flag), and the run goes on. The calls it keeps out go to validate, with the test named.

Why:
    Renamed alone (``device == 'npu'``), the test would send the target into code that does not run there
    (``fix`` holds the rename back for the same reason, ``fix/protocols.py``): the rename is not the work; the
    calls in the branch are, and only where the user wants what they give (several devices: DistributedDataParallel
    with one process per device).

What it does not decide: a branch that also does what the target runs (``model.cuda()`` beside the wrapper,
torchdistill's ``DistributedDataParallel`` beside ``DataParallel``, a line no finding is on) would lose that when
skipped: the model never reaches the device, or no gradient is synchronised. That test stays work. Only a
setting of cuDNN's or of CUDA's matmul (speed, determinism) may be skipped with what needs a hand.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Dict, List, Optional, Sequence

from ..evidence import active
from ..model import Evidence, FileResult, Finding, Grade, Status, Verdict
from .reread import block_end, read_text

_SOURCE = "migrator guard analysis (the branch a device test decides)"


#: settings a branch may carry that only tune CUDA's kernels (speed, determinism): skipped, the run goes on
_SETTINGS = ("torch.backends.cudnn.", "torch.backends.cuda.matmul.")


def with_kept_guards(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, each device test whose branch keeps, on a target, only code that needs a hand there (and
    settings), as written there: the target skips the branch."""
    tests = {f.id: f for f in findings if f.rule == "device-string" and f.root is None and f.tests_device}
    if not tests:
        return list(findings)
    by_rel = {r.file.rel: r for r in results}
    texts: Dict[str, Optional[str]] = {}
    sites: Dict[str, List[Finding]] = {}
    for finding in findings:
        if finding.root in tests:
            sites.setdefault(finding.root, []).append(finding)
    changed: Dict[str, Finding] = {}
    for test_id, branch in sites.items():
        test = tests[test_id]
        verdicts = dict(test.verdicts)
        for target, verdict in test.verdicts.items():
            if verdict.status != Status.REWRITE or not active(verdict):
                continue
            work = [s for s in branch if target in s.verdicts and active(s.verdicts[target])]
            if not work or any(s.verdicts[target].fixable for s in work) \
                    or any(s not in work and not s.api.startswith(_SETTINGS) for s in branch) \
                    or not _only_these(read_text(by_rel.get(test.path), texts), test, branch):
                continue  # nothing kept out, or something the target needs (a placement, a wrap that runs)
            kept = ", ".join(f"`{s.api}` (line {s.span.line})" for s in work[:3])
            quote = (f"this test is False on {target} as written, so the branch it decides is skipped there, as on a "
                     f"machine without CUDA, and the run goes on; the branch keeps {kept}, which need a hand on "
                     f"{target}: renamed alone, the test would send {target} into them. Keep it; for what the branch "
                     f"gives (several devices, a tuning flag), rewrite those calls first, then the test")
            verdicts[target] = Verdict(Status.SUPPORTED, quote, _SOURCE)  # as written: the way CUDA's absence takes
            skipped = (f"the test at line {test.span.line} (`{test.snippet}` compared with a device) is False on "
                       f"{target} as written and keeps this out of the run there; for what it gives, rewrite it "
                       f"first, then the test")
            for site in work:
                held = changed.get(site.id, site)
                changed[site.id] = replace(held, verdicts={**held.verdicts,
                                                           target: _noted(held.verdicts[target], skipped)})
        if verdicts != test.verdicts:
            changed[test_id] = replace(test, verdicts=verdicts)
    return [changed.get(f.id, f) for f in findings]


def _only_these(text: Optional[str], test: Finding, branch: Sequence[Finding]) -> bool:
    """Whether every line of the block under the test's ``if`` holds one of ``branch`` (blank lines and comments
    aside): a line none is on may be what the target needs."""
    line = test.span.line
    if text is None or line is None or test.span.cell is not None:
        return False
    rows = text.splitlines()
    if line > len(rows) or not rows[line - 1].lstrip().startswith(("if ", "elif ")):
        return False
    end = block_end(rows, line)
    held = {s.span.line for s in branch}
    bound: List[str] = []
    for number in range(line + 1, end + 1):
        row = rows[number - 1]
        if not row.strip() or row.lstrip().startswith("#"):
            continue
        if number not in held:
            return False
        bound.extend(m.group(1) for m in [_BINDS.match(row)] if m)
    # T2T-ViT's ``net.module.tokens_to_token`` after ``net = torch.nn.DataParallel(net)``: code outside the branch
    # that reads what the wrap adds needs the branch taken
    rest = "\n".join(rows[:line - 1] + rows[end:])
    return not any(re.search(rf"(?<![\w.]){re.escape(name)}\.module\b", rest) for name in bound)


#: the name a line of a branch binds (``net = torch.nn.DataParallel(net)``)
_BINDS = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*=[^=]")


def _noted(verdict: Verdict, quote: str) -> Verdict:
    """``verdict`` resting on a note that says ``quote`` (to validate, off the worklist), with nothing to apply."""
    return replace(verdict, message=f"{quote}; {verdict.message}", source=_SOURCE,
                   evidence=(Evidence(Grade.NOTE, _SOURCE, quote),), fix=None)
