"""The rule set, in priority order: the first rule that claims a usage makes its finding."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Iterable, List, Tuple

from ..model import Finding, Usage
from .amp import AmpDevice, CudaAmp
from .base import ProjectIndex, Rule, RuleContext
from .custom_op import CudaKernel, ExtensionBuild, ExtensionCall, TorchLibraryCuda, TorchOpsCall
from .device import DeviceArgument, DeviceCall, DeviceMove, DeviceString
from .distributed import CollectiveBackend, DataParallel, DistributedWrapper, NcclApi
from .dtype import RiskyDtype
from .environment import BaseImage, CudaRequirement, EnvironmentVariable, NvidiaTool
from .ops import TorchOp
from .third_party import CudaLibrary, TorchCompile, TritonLaunch, VisionOp

ALL_RULES: Tuple[Rule, ...] = (
    ExtensionBuild(), ExtensionCall(), TorchOpsCall(), TorchLibraryCuda(), CudaKernel(),
    CudaLibrary(), TritonLaunch(), TorchCompile(), VisionOp(),
    CudaAmp(), AmpDevice(),
    CollectiveBackend(), NcclApi(), DataParallel(), DistributedWrapper(),
    DeviceMove(), DeviceArgument(), DeviceString(), DeviceCall(),
    RiskyDtype(),
    EnvironmentVariable(), NvidiaTool(), BaseImage(), CudaRequirement(),
    TorchOp(),
)

__all__ = ["ALL_RULES", "ProjectIndex", "Rule", "RuleContext", "apply_rules"]


def apply_rules(usages: Iterable[Usage], path: str, ctx: RuleContext,
                rules: Tuple[Rule, ...] = ALL_RULES) -> List[Finding]:
    """Findings for one file's usages, each with a fingerprint that survives unrelated edits."""
    findings: List[Finding] = []
    occurrences: Counter = Counter()
    for usage in usages:
        for rule in rules:
            verdicts = rule.check(usage, ctx)
            if verdicts is None:
                continue
            key = (rule.name, usage.api, _normalise(usage.snippet))
            occurrences[key] += 1
            findings.append(Finding(
                id=fingerprint(rule.name, path, usage.api, usage.snippet, occurrences[key] - 1),
                rule=rule.name, category=rule.category_for(usage), path=path, span=usage.span, api=usage.api,
                snippet=usage.snippet, confidence=usage.confidence, verdicts=verdicts, scope=usage.scope,
                ops=rule.ops(usage, ctx),
            ))
            break
    return findings


def fingerprint(rule: str, path: str, api: str, snippet: str, occurrence: int) -> str:
    """Stable id: no line numbers, so moving code or adding lines above a finding keeps it."""
    digest = hashlib.sha256("\x1f".join((rule, path, api, _normalise(snippet), str(occurrence))).encode())
    return digest.hexdigest()[:16]


def _normalise(snippet: str) -> str:
    return re.sub(r"\s+", "", snippet)
