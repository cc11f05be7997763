"""The custom operators stage: the repository's own CUDA/C++ operators (build, kernels, registrations, calls),
a port plan per target for each, and every finding on an operator pointed at the finding on its build."""

from __future__ import annotations

from typing import List, Sequence, Tuple

from .memo import share_verdicts
from ..inventory import OpMembership, custom_ops
from ..maps.load import TargetMap, third_party
from ..model import CustomOp, DefinitionKind, FileKind, FileResult, Finding, OpPlan
from ..op_plans import apply_plans, plan_custom_ops, sourceless_builds
from ..project.roots import (library_spellings, with_import_only_roots, with_kernel_protocol,
                             with_library_guard_roots, with_library_named_scopes, with_module_library_roots,
                             with_op_roots, with_requirement_roots)
from ..project.unused_requirements import with_unused_requirements
from ..rules import ProjectIndex


#: the files an extension compiles: a repository with none of them ships no kernel for its builds to compile
_NATIVE_SOURCES = frozenset({FileKind.CUDA, FileKind.CPP})
#: the base of an op's Python wrapper (``class KNNQuery(Function)``: its forward and backward call the kernels)
_AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})


def custom_operators(findings: List[Finding], results: Sequence[FileResult], index: ProjectIndex,
                     targets: Sequence[TargetMap]) -> Tuple[Tuple[CustomOp, ...], Tuple[OpPlan, ...], List[Finding]]:
    """The operators, their plans, and ``findings`` with the plans' verdicts and their roots."""
    ops = custom_ops(results, index, findings)
    plans = plan_custom_ops(ops, targets)
    findings = with_op_roots(share_verdicts(apply_plans(findings, ops, plans)), OpMembership(ops).op_of)
    if not any(r.file.kind in _NATIVE_SOURCES for r in results):
        findings = sourceless_builds(findings)
    libraries = third_party()
    library_of = libraries.library_of
    wrappers = frozenset(f"{r.outline.module}.{d.name}" for r in results if r.outline is not None
                         for d in r.outline.definitions if d.kind == DefinitionKind.CLASS
                         and any(base in _AUTOGRAD_FUNCTIONS for base in d.bases))
    findings = with_library_guard_roots(with_module_library_roots(findings, library_of, libraries.row_of), wrappers)
    findings = with_library_named_scopes(findings, library_of, library_spellings(libraries.libraries))
    kernel_modules = {r.file.rel for r in results if r.python is not None and r.python.triton_kernels}
    kernel_modules.update(f.path for f in findings if f.rule == "triton-launch")
    findings = with_kernel_protocol(findings, kernel_modules)
    findings = with_import_only_roots(findings, library_of)  # a file that only imports the library: its first use
    findings = with_unused_requirements(findings, library_of, libraries.libraries)
    return ops, plans, with_requirement_roots(findings, library_of)
