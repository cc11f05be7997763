"""The ``version-cuda`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.load import TargetMap
from ...model import Category, Evidence, GuardKind, Grade, Manual, Status, Usage, UsageKind, Verdict
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid

API = "torch.version.cuda"


class VersionCuda(Rule):
    """`torch.version.cuda`: whether the installed torch was built with CUDA.

    ## What it does
    Judges each read of `torch.version.cuda` by what it is on the target's runtime, from the vendor's own
    install instructions (`torch_version_cuda` in `curated/targets.yaml`, with its source): torch_npu and
    torch_mlu (from torch 2.4) are installed over the CPU torch wheel, where it is `None`. A test on it
    (`if torch.version.cuda:`, `is not None`) is then never true there, and what its branch does is the
    finding: a path the target could take (a fused optimizer, TF32, a fused attention with a twin) is
    silently off (`rewrite`, on that proof), a CUDA-only path (a kernel library with no port) is correctly
    skipped (`supported`; `project/version_cuda.py` reads the branch's findings). A read outside a test
    (a log line, `.split(".")`) is `partial` on a note: `None` prints, and raises where it is parsed.
    Where no source says what the runtime's torch reports (torch_xmlir presents itself as CUDA), `unknown`.

    ## Why is this bad?
    Nothing renames `torch.version.cuda`: code that picks its fast path by the torch build runs its slow
    path on the target without a word, and code that parses the version raises.

    ## Fix safety
    Never applied: the suggestion tests the device instead (`torch.npu.is_available()`), which changes what
    runs; whether the branch should run there is the engineer's call.
    """

    name = "version-cuda"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.ATTRIBUTE, UsageKind.CALL})  # a call: how `explain` asks of a name
    category = Category.DEVICE
    judges_its_test = True
    summary = "torch.version.cuda tests: None where the vendor installs the CPU torch wheel"
    examples = (
        # a fused optimizer chosen by the torch build: silently off where torch.version.cuda is None
        Invalid("import torch\n\ndef make(params):\n    fused = {}\n    if torch.version.cuda is not None:\n"
                "        fused['fused'] = True\n    return torch.optim.AdamW(params, lr=1e-3, **fused)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE)),
        # a CUDA-only kernel library under the test, beside the plain path: correctly skipped
        Invalid("import torch\nimport cupy\n\ndef scale(x):\n    if torch.version.cuda:\n"
                "        return cupy.asarray(x) * 2\n    return x * 2\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.SUPPORTED)),
        Valid("import torch\nprint(torch.__version__)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api != API:
            return None
        in_test = usage.cuda_guard is not None and usage.cuda_guard.kind == GuardKind.TEST
        return per_target(ctx, lambda target: judged(target, in_test))


def judged(target: TargetMap, in_test: bool) -> Verdict:
    """``torch.version.cuda`` on ``target``: a test's branch taken only where it is set is never taken where the
    runtime's torch is the CPU wheel (``rewrite``: what it does is off there, until ``project/version_cuda`` reads
    the branch); a read of the value is a note; ``unknown`` where no source says."""
    facts = target.runtime_facts.version_cuda_unset(target.torch_line)
    if facts is None:
        return Verdict(Status.UNKNOWN, f"`{API}` on {target.id}: no source in the data says what its torch build "
                       "reports (a test on it may or may not be taken there); check by hand", "migrator data gap")
    said = (f"`{API}` is None on {target.id}: the vendor installs its plugin over the CPU torch wheel from torch "
            f"{facts.torch_from} on ({facts.source.split(' ', 1)[0]})")
    proof = (Evidence(Grade.PROOF, facts.source, facts.quote),)
    if not in_test:
        return Verdict(Status.PARTIAL, f"{said}: it prints as None, and parsing it (`.split`, `float()`, "
                       "`version.parse`) raises", facts.source,
                       evidence=(Evidence(Grade.NOTE, facts.source, facts.quote),))
    device = target.runtime_facts.kernel_device
    return Verdict(Status.REWRITE, f"{said}: the branch this test guards is never taken there; what it does is "
                   f"off on {target.id}", facts.source, fix=Manual(f"torch.{device}.is_available()"),
                   evidence=proof)
