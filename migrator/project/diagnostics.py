"""A CUDA branch that only measures: ``if device.type == "cuda": torch.cuda.memory._record_memory_history()``.

On a target that renames the device the test is False and the branch is skipped. When everything the branch
holds is a diagnostic (memory statistics and history, device properties, profiler ranges, a cache flush, a
synchronisation for timing, the cuDNN switches), skipping it leaves training as it is: neither the test nor the
branch is work there, and flipping the test would send the target into CUDA's own calls. A branch that also does
something the run needs (places a tensor, sets the device, casts a model) stays work: its test decides what runs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Dict, List, Sequence, Tuple

from ..maps.load import TargetMap
from ..model import Evidence, FileResult, Finding, Grade, Span, Status, Usage, UsageKind, Verdict
from ..rules.base import usages_across_files

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL

#: CUDA APIs a run does not need: what they do is measure, describe, debug or tune the CUDA device itself
#: (``set_sync_debug_mode`` warns or errors on synchronising calls: a debugging switch).
DIAGNOSTICS = re.compile(
    r"^torch\.cuda\.(?:memory\b|memory_|max_memory_|reset_(?:peak|max|accumulated)_|mem_get_info|empty_cache"
    r"|ipc_collect|synchronize|get_device_(?:name|properties|capability)|utilization|temperature|power_draw"
    r"|clock_rate|nvtx\b|profiler\b|_record_memory_history|_dump_snapshot|list_gpu_processes"
    r"|[sg]et_sync_debug_mode)"
    r"|^torch\.profiler\.ProfilerActivity\.CUDA|^torch\.backends\.(?:cudnn|cuda)\.|^pynvml\b")
#: beside a diagnostic, what only says which device it is for (funasr's ``with torch.cuda.device(device):
#: torch.cuda.empty_cache()``, uni-core's ``for device_idx in range(torch.cuda.device_count()):
#: logger.warning(torch.cuda.memory_summary(device=device_idx))``); alone, each is work
_FOR_A_DIAGNOSTIC = frozenset({"torch.cuda.device", "torch.cuda.device_count", "torch.cuda.current_device"})
_SOURCE = "migrator guard analysis"
_TESTS = frozenset({"device-string", "device-call"})  # the rules a CUDA test is reported by


def with_skipped_diagnostics(findings: Sequence[Finding], targets: Sequence[TargetMap]) -> List[Finding]:
    """``findings``, with the branches that only measure, and their tests, ``supported`` on every target that
    renames the device (``TargetMap.device_to``)."""
    renamed = [t.id for t in targets if t.device_to != "cuda"]
    if not renamed:
        return list(findings)
    branches: Dict[Tuple[str, Span], List[Finding]] = {}
    for finding in findings:
        if finding.guard is not None:
            branches.setdefault((finding.path, finding.guard), []).append(finding)
    skipped: Dict[str, str] = {}  # finding id -> why
    left = dict(branches)
    while left:  # a branch holding only an inner one that measures measures too (``for i in range(count):``)
        measuring = [(branch, inside) for branch, inside in left.items()
                     if all(DIAGNOSTICS.match(f.api) or f.api in _FOR_A_DIAGNOSTIC or f.id in skipped for f in inside)
                     and any(DIAGNOSTICS.match(f.api) or f.id in skipped for f in inside)]
        if not measuring:
            break
        for (path, test), inside in measuring:
            del left[path, test]
            apis = sorted({f.api for f in inside})
            why = (f"the test at line {test.line} is False on {{target}} and its branch is skipped: it only "
                   f"measures the CUDA device ({', '.join(apis[:4])}{' ...' if len(apis) > 4 else ''}), which "
                   "training does not need; leave the test as it is (flipping it would send {target} into CUDA's "
                   "own calls)")
            for finding in [*inside, *_tests_of(findings, path, test)]:
                skipped.setdefault(finding.id, why)
    if not skipped:
        return list(findings)
    return [_skipped(f, renamed, skipped[f.id]) if f.id in skipped else f for f in findings]


def _tests_of(findings: Sequence[Finding], path: str, test: Span) -> List[Finding]:
    """The findings on the test itself (its ``"cuda"``, its ``torch.cuda.is_available()``)."""
    last = test.end_line or test.line or 0
    return [f for f in findings if f.path == path and f.rule in _TESTS and f.guard != test
            and (test.line or 0) <= (f.span.line or -1) <= last and f.span.cell == test.cell]


def _skipped(finding: Finding, targets: Sequence[str], why: str, source: str = _SOURCE) -> Finding:
    verdicts = dict(finding.verdicts)
    for target in targets:
        verdict = verdicts.get(target)
        # a verdict already supported on a note (a no-op call) takes the branch's reason too: the test is why
        if verdict is not None and (verdict.status != Status.SUPPORTED or verdict.evidence):
            text = why.format(target=target)
            verdicts[target] = Verdict(Status.SUPPORTED, text, source,
                                       evidence=(Evidence(Grade.PROOF, source, text),))
    return replace(finding, verdicts=verdicts)


#: Calls that seed every device's generator, a custom device's (the NPU's, the MLU's) too: torch/random.py
#: ``manual_seed`` -> ``_manual_seed_impl`` seeds CUDA, MPS, XPU, MTIA and ``_seed_custom_device(seed)``.
SEEDS_EVERY_DEVICE = frozenset({"torch.manual_seed", "torch.random.manual_seed"})
#: torch.cuda's seeding calls, by the name torch.cuda re-exports and by their module's (torch/cuda/random.py)
_CUDA_SEEDS = frozenset({f"torch.cuda.{module}manual_seed{every}"
                         for module in ("", "random.") for every in ("", "_all")})
_SEED_SOURCE = "torch/random.py (manual_seed seeds every device, the custom one too)"


def reads(usage: Usage) -> bool:
    """Whether ``with_seeded_devices`` looks at this usage (the cache keeps those apart for it)."""
    return usage.api in SEEDS_EVERY_DEVICE and usage.kind == _CALL


def with_seeded_devices(findings: Sequence[Finding], results: Sequence[FileResult],
                        targets: Sequence[TargetMap]) -> List[Finding]:
    """``torch.cuda.manual_seed_all(seed)`` beside ``torch.manual_seed(seed)`` (in the same function, or at the
    module's top level): the latter already seeds the target's device, and the CUDA call is silently ignored
    where CUDA is missing (its own docstring says so): nothing to change there."""
    renamed = [t.id for t in targets if t.device_to != "cuda"]
    if not renamed or not any(f.api in _CUDA_SEEDS for f in findings):
        return list(findings)
    seeded: Dict[Tuple[str, str], int] = {}
    for result in results:
        for usage in usages_across_files(result):
            if reads(usage):
                seeded.setdefault((result.file.rel, usage.scope), usage.span.line or 0)
    out = []
    for finding in findings:
        line = seeded.get((finding.path, finding.scope), seeded.get((finding.path, "<module>")))
        if finding.api not in _CUDA_SEEDS or line is None:
            out.append(finding)
            continue
        why = (f"`torch.manual_seed` at line {line} already seeds every device, {{target}}'s too; this CUDA call is "
               "silently ignored where CUDA is missing: nothing to change")
        out.append(_skipped(finding, renamed, why, _SEED_SOURCE))
    return out

