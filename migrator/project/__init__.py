"""Findings read in their project: the dtypes it computes in (``dtypes``), the part of it each finding sits in
(``contexts``), and the cause each finding is a site of (``roots``; a dtype the project chooses:
``dtype_roots``); a CUDA library's import read against its file's uses (``plain_imports``). Run once over every
file's findings, before the custom-op plans and the assessment (``in_project``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, FrozenSet, List, Sequence, Tuple

from ..maps.limits import dtype_bite, settle
from ..maps.load import TargetMap
from ..model import Context, DtypeChoice, FileResult, Finding, Verdict
from .amp_scopes import with_idle_amp_scopes
from .backends import with_device_backends, with_other_devices_code
from ..contexts import context_of, serves_a_model
from .diagnostics import with_seeded_devices, with_skipped_diagnostics
from .kernel_functions import with_kernel_functions
from .launches import with_launcher_contexts, with_launches_judged
from .opt_in import with_opt_in_modes
from .own_methods import with_own_methods
from .optional import with_optional_modules, with_optional_op_libraries
from .plain_imports import with_plain_imports
from .tooling_helpers import tooling_helpers
from .forwarded_defaults import with_forwarded_defaults
from .kept_guards import with_kept_guards
from .overridden_defaults import with_overridden_defaults
from .reread import forget_parsed
from .unread_flags import with_unread_flags
from .unread_options import with_unread_options
from .dtype_roots import with_dtype_roots
from .dtypes import dtype_profiles, read_by
from .roots import with_roots
from .demo_blocks import demo_blocks, in_demo_block
from .step import evaluation_only
from .version_cuda import with_version_branches

__all__ = ["in_project"]


def in_project(findings: Sequence[Finding], results: Sequence[FileResult],
               targets: Sequence[TargetMap] = (), packaged: bool = False) -> List[Finding]:
    """Each finding with its vendor notes settled against the dtypes of its project (the files its file is
    connected to by imports), its context and its root.

    The verdicts are settled in place, in maps no one else holds yet (each finding's own, from its rule run or
    its cache entry), as ``pipeline/memo.share_verdicts`` pools them: a copy of every finding cost half of this stage
    (timm: 8.4k findings, 57 ms). Findings whose context or root changes are copied. A dtype the project
    chooses that a target's own ports train without (``TargetMap.dtype_caveats``) is a finding there too."""
    project = dtype_profiles(results)
    steps = {r.file.rel: r.step for r in results if r.step is not None}  # each file's eval-only branches
    demos = demo_blocks(results, packaged)  # a library module's usage example
    opt_in = {r.file.rel: r.outline.opt_in_lines for r in results  # what a profiling switch or an engine turns on
                if r.outline is not None and r.outline.opt_in_lines}
    dead_ends = {r.file.rel: r.outline.dead_end_lines for r in results  # what ends in ``raise NotImplementedError``
                 if r.outline is not None and r.outline.dead_end_lines}
    # a Streamlit or Gradio page (LAVIS's app/), an ASE calculator (nequip's integrations/ase.py)
    apps = {r.file.rel for r in results if r.outline is not None and serves_a_model(r.outline.imports)}
    apps |= tooling_helpers(results, apps.__contains__)  # torchani's tools/tool_utils.py, for its benchmarks
    profile_of = project.of
    # by the object (kept alive with its id): the settled verdict, and the dtypes that alone made it partial
    here_of = project.here
    settled: Dict[Tuple[int, FrozenSet[str], FrozenSet[str]], Tuple[Verdict, Verdict, FrozenSet[str]]] = {}
    by_value: Dict[Tuple[Verdict, FrozenSet[str], FrozenSet[str]], Tuple[Verdict, FrozenSet[str]]] = {}  # once
    bites: Dict[str, Dict[str, FrozenSet[str]]] = {}
    choices: Dict[str, Tuple[DtypeChoice, ...]] = {}
    placed = []
    for finding in findings:
        verdicts = finding.verdicts
        profile = None
        for target, verdict in verdicts.items():
            if verdict.limits:
                profile = profile or profile_of(finding.path)
                here = read_by(finding.api, here_of(finding.path, finding.scope))
                known = settled.get((id(verdict), profile.dtypes, here))
                if known is None:
                    done = by_value.get((verdict, profile.dtypes, here))
                    if done is None:
                        done = by_value[verdict, profile.dtypes, here] = (settle(verdict, profile, here),
                                                                          dtype_bite(verdict, profile))
                    known = settled[id(verdict), profile.dtypes, here] = (verdict, *done)
                verdicts[target] = known[1]  # type: ignore[index]
                if known[2]:
                    bites.setdefault(finding.id, {})[target] = known[2]
                    choices[finding.path] = profile.choices
        context = context_of(finding.path, finding.category, finding.scope)
        if context != Context.TEST and (finding.path in apps or evaluation_only(steps.get(finding.path), finding.span)
                                        or in_demo_block(demos, finding.path, finding.span)
                                        or _in_blocks(opt_in, finding) or _in_blocks(dead_ends, finding)):
            context = Context.TOOLING  # a test that imports a simulator stays a test
        placed.append(finding if context == finding.context else replace(finding, context=context))
    caveats = {choice: {t.id: t.dtype_caveats[choice.dtype] for t in targets if choice.dtype in t.dtype_caveats}
               for choice in project.choices}
    placed = with_version_branches(with_roots(with_plain_imports(placed, results)))
    placed = with_optional_modules(with_skipped_diagnostics(placed, targets), results, targets)
    placed = with_kernel_functions(with_optional_op_libraries(placed, results))
    placed = with_launches_judged(with_unread_options(with_overridden_defaults(placed, results), results), results)
    placed = with_launcher_contexts(placed, results)
    placed = with_idle_amp_scopes(with_unread_flags(placed, results), results)
    placed = with_forwarded_defaults(placed, results)
    placed = with_other_devices_code(with_device_backends(placed, results, targets), targets)
    placed = with_seeded_devices(placed, results, targets)
    placed = with_kept_guards(with_own_methods(with_opt_in_modes(placed, results), results), results)
    forget_parsed()  # the trees the cross-file stages shared
    return with_dtype_roots(placed, bites, choices, {c: found for c, found in caveats.items() if found})


def _in_blocks(blocks: Dict[str, Tuple[Tuple[int, int], ...]], finding: Finding) -> bool:
    """Whether a finding sits in a block a profiling switch decides (bagua's ``if args.prof >= 0:
    torch.cuda.nvtx.range_push(...)``) or that loads an inference engine (yolox's evaluators under ``if trt_file
    is not None:``): opt-in tooling, not the run."""
    line = finding.span.line
    return line is not None and any(first <= line <= last for first, last in blocks.get(finding.path, ()))
