"""The vendors' runtime patchers as a first migration step: what importing one covers, and what it does not.

Ascend's ``torch_npu.contrib.transfer_to_npu`` and Cambricon's ``torch_mlu.utils.gpu_migration`` patch torch
when imported: ``torch.cuda`` becomes the vendor's module, ``.cuda()`` moves to the device, and ``'cuda'`` /
``'nccl'`` in the arguments of a list of calls become the target's names. The vendors recommend them to run a
project on day one and migrate file by file after (``migrator fix --shim`` adds the import at each entry
point). What each covers is read from its own tables (``operator_maps/shims.json``, built from the extracted
patcher source); a finding is judged against them:

- ``covered``: the line runs on the target as written once the shim is imported;
- ``if-passed``: a CUDA device string the shim rewrites only where it reaches a patched call;
- ``not-covered``: a change the shim does not make (``x.device.type == 'cuda'``, which is False on the
  target's tensors; an API in none of its tables; a custom CUDA kernel, a CUDA-only library, an environment
  variable or a launch script);
- ``differs``: the shim swaps the API to the vendor's twin, which the vendor notes behaves otherwise
  (``torch.cuda.get_device_capability`` is ``torch_npu.npu.get_device_capability``, ``None`` unless an
  environment variable is set: ``[0]`` of it raises). The swap is the same as ``fix``'s rename, so what makes
  that rename unsafe makes the shim's swap so too: listed first, before what the shim does not touch.

Findings about operator coverage and dtypes are not the shim's business: it renames devices, not kernels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Dict, FrozenSet, Mapping, Optional, Sequence, Tuple

from .maps.load import load_json
from .model import Category, Finding, ShimPlan, Status
from .prefixes import longest
from .resolve.literals import COMPARED


class ShimCover(str, Enum):
    COVERED = "covered"
    IF_PASSED = "if-passed"
    NOT_COVERED = "not-covered"
    DIFFERS = "differs"  # swapped to a twin the vendor notes behaves otherwise here: returns None, raises


@dataclass(frozen=True)
class ShimJudgement:
    cover: ShimCover
    why: str


@dataclass(frozen=True)
class Shim:
    """One target's runtime patcher, as its tables describe it."""

    target: str
    imports: Tuple[str, ...]  # the lines that install it, in order
    source: str
    runtime: str
    swapped: Mapping[str, str]  # attribute or module -> what the shim puts there
    rewrites: FrozenSet[str]  # callables whose device / backend arguments it rewrites

    def judge(self, finding: Finding) -> Optional[ShimJudgement]:
        """What the shim does for ``finding`` on its target; ``None`` when the finding is none of its business
        (nothing to change there, or an operator / dtype question)."""
        verdict = finding.verdicts.get(self.target)
        if verdict is None or verdict.status == Status.SUPPORTED:
            return None
        if finding.category in (Category.OP, Category.DTYPE):
            return None
        if finding.category in (Category.CUSTOM_OP, Category.THIRD_PARTY):
            return ShimJudgement(ShimCover.NOT_COVERED, "a custom CUDA kernel or a CUDA-only library: the shim "
                                 "renames device calls, it does not supply kernels")
        if finding.category == Category.ENVIRONMENT:
            return ShimJudgement(ShimCover.NOT_COVERED, "an environment variable, launch script or requirement: "
                                 "read before Python imports the shim")
        if verdict.status == Status.UNSUPPORTED:
            return ShimJudgement(ShimCover.NOT_COVERED, f"documented as unsupported on {self.target}: the shim "
                                 "has nothing to map it to")
        api = finding.api
        swapped = longest(api, lambda prefix: self.swapped.get(prefix))
        if swapped is not None:
            prefix, rest, to = swapped
            if rest and verdict.edit is None:  # only the module rename says so, no vendor list names the API
                return ShimJudgement(ShimCover.NOT_COVERED, "the shim swaps the module, but no vendor list names "
                                     "this API in the target's module: check it there")
            if not verdict.fixable and not _held_by_fix_alone(verdict):
                return ShimJudgement(ShimCover.DIFFERS, f"`{prefix}` is `{to}` once the shim is imported, and the "
                                     f"vendor notes `{to}{'.' + rest if rest else ''}` behaves otherwise here "
                                     "(it may return None or raise where CUDA's answered): the rename is not a "
                                     "safe one, under the shim either")
            return ShimJudgement(ShimCover.COVERED, f"`{prefix}` is `{to}` once the shim is imported")
        if api in self.rewrites:
            return ShimJudgement(ShimCover.COVERED, f"the shim rewrites CUDA names in the arguments of `{api}`")
        compared = _compared_with(verdict.message)
        if compared is not None and _RUNTIME_VALUE.search(compared):
            return ShimJudgement(ShimCover.NOT_COVERED, "a CUDA name compared with what the runtime reports (a "
                                 "tensor's device, the backend): the shim rewrites call arguments, never "
                                 "comparisons, and the runtime reports the target's names, so the test is False")
        if finding.rule in ("device-string", "collective-backend"):
            return ShimJudgement(ShimCover.IF_PASSED, "a CUDA name in a value: rewritten where it reaches a call "
                                 "the shim patches, left as it is anywhere else")
        return ShimJudgement(ShimCover.NOT_COVERED, f"`{api}` is in none of the shim's tables")


#: an expression that reads what the runtime is (``x.device.type``, ``t.device``, ``dist.get_backend()``), as
#: opposed to a string the code sets itself (``device == 'cuda'`` with ``device='cuda'`` a default, which the
#: shim leaves as it is on both sides)
_RUNTIME_VALUE = re.compile(r"\.device\b|\.type\b|device_type|get_device|get_backend|\.is_cuda")


def _held_by_fix_alone(verdict) -> bool:
    """A safe rename that ``fix`` holds back only for the code around it (``Unsafe.held``): the API itself is the
    vendor's twin, so the shim's swap of it is sound."""
    return getattr(verdict.fix, "held", None) is not None


def _compared_with(message: str) -> Optional[str]:
    """What a literal was compared with, from the role its rule appends to the message; ``None`` if no
    comparison."""
    start = message.rfind(f"({COMPARED} ")
    return message[start + len(COMPARED) + 2: message.rfind(")")] if start >= 0 else None  # the role comes last


#: How a verdict made ``supported`` by a patcher the project already imports begins (``graph/shimmed.py``).
THROUGH_SHIM = "runs as written through the runtime patcher"


def through_shim(findings: Sequence[Finding], target: str) -> int:
    """How many of ``findings`` need no change on ``target`` because an entry point imports its patcher."""
    verdicts = (f.verdicts.get(target) for f in findings)
    return sum(1 for v in verdicts
               if v is not None and v.status == Status.SUPPORTED and v.message.startswith(THROUGH_SHIM))


@lru_cache(maxsize=None)
def shims() -> Mapping[str, Shim]:
    data = load_json("shims.json")["targets"]
    return {target: Shim(target, tuple(row["imports"]), row["source"], row["runtime"], dict(row["swapped"]),
                         frozenset(row["rewrites_arguments_of"])) for target, row in data.items()}


def shim_plan(findings: Sequence[Finding], target: str) -> Optional[ShimPlan]:
    """``findings`` judged against ``target``'s shim; ``None`` when the target has no runtime patcher (a
    runtime that keeps CUDA names needs none)."""
    shim = shims().get(target.split("@")[0])
    if shim is None:
        return None
    by_cover: Dict[ShimCover, list] = {cover: [] for cover in ShimCover}
    reasons: Dict[str, int] = {}
    for finding in findings:
        judgement = shim.judge(finding)
        if judgement is None:
            continue
        by_cover[judgement.cover].append(finding.id)
        if judgement.cover == ShimCover.NOT_COVERED:
            key = judgement.why if "`" not in judgement.why else "an API in none of the shim's tables"
            reasons[key] = reasons.get(key, 0) + 1
    return ShimPlan(target, shim.imports, shim.source, tuple(by_cover[ShimCover.COVERED]),
                    tuple(by_cover[ShimCover.IF_PASSED]), tuple(by_cover[ShimCover.NOT_COVERED]),
                    tuple(sorted(reasons.items(), key=lambda item: -item[1])), tuple(by_cover[ShimCover.DIFFERS]))
