"""Functions that run only in CUDA's branches, and their findings as sites of the test that decides them.

rfdetr's ``_cuda_supports_native_bf16()`` asks ``torch.cuda.get_device_capability()``; its only callers call it
inside ``if torch.cuda.is_available():`` (the trainer's precision choice) or after ``if not
torch.cuda.is_available(): raise`` (the opt-in batch-size probe). Where the test is False the helper never runs:
what the target loses is said once, at the test (its finding: keep it, flip it, or give the target its own
branch), not again at every device call the helper makes. A function is CUDA's when every call into it is made
in a CUDA test's branch (``Call.cuda_test``, an edge's ``cuda_test``) or from another function that is CUDA's;
its device, distributed, AMP and CUDA-library findings become sites of the finding on that test, as a use in
the test's own body is (``rules._cause``). An operator's finding keeps its own verdict there, as in the body:
a runtime that keeps CUDA's names (Kunlunxin) takes the branch and runs the operator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..model import Category, Evidence, Finding, Grade, NodeKind, Status, Verdict
from ..sources.outline import CALLS_BY_NAME, REGISTERS
from .build import ProjectGraph

#: the edges that call into a function: a call, a call joined by the method's name, a class built (its methods),
#: a registry that holds it
_CALLING = frozenset({"calls", CALLS_BY_NAME, "constructs", REGISTERS})
#: what can be called
_CALLABLE = frozenset({NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS})
#: the findings a CUDA test's branch makes its sites (``rules._FLOWS`` and a CUDA library's uses)
_SITES = frozenset({Category.DEVICE, Category.DISTRIBUTED, Category.AMP, Category.THIRD_PARTY})


@dataclass(frozen=True)
class CudaBranch:
    """The CUDA test a function is called under: its file and line, and the function that makes the call."""

    path: str
    line: int
    caller: str


def cuda_only(project: ProjectGraph) -> Dict[str, CudaBranch]:
    """Each function, method or class every caller calls in a CUDA test's branch (or from a function that is
    itself CUDA's) -> the first such test. An entry point, or a node nothing calls, is nobody's branch."""
    graph = project.graph
    entries = {e.node for e in project.entries}
    nodes = graph.nodes
    found: Dict[str, CudaBranch] = {}
    inner: Dict[str, List[str]] = {}  # a node -> the callables it defines
    for node in nodes:
        if nodes[node].get("kind") in _CALLABLE and node not in entries:
            inner.setdefault(node.rpartition(".")[0], []).append(node)
    todo: List[str] = [target for source, target, test in graph.edges(data="cuda_test") if test]
    while todo:
        node = todo.pop()
        if node in found or node in entries or nodes[node].get("kind") not in _CALLABLE:
            continue
        branch = _branch(graph, node, found)
        if branch is None:
            continue
        # di-engine's ``get_cuda_time_wrapper()`` defines ``TimeWrapperCuda`` and returns it: what a CUDA-only
        # function defines is CUDA's too, and so is what that calls
        enclosed = [node]
        while enclosed:
            current = enclosed.pop()
            if current in found and current != node:
                continue
            found[current] = branch
            todo.extend(graph.succ[current])
            enclosed.extend(inner.get(current, ()))
    return found


def _branch(graph, node: str, found: Mapping[str, CudaBranch]) -> Optional[CudaBranch]:
    """The CUDA test ``node`` is called under, if every edge into it is a call in such a branch. A call from
    ``node`` itself, or from what it defines, runs only where ``node`` does (stylegan3's ``_filtered_lrelu_cuda()``
    builds ``FilteredLReluCuda``, whose ``backward`` calls it again for the second-order gradient)."""
    first: Optional[CudaBranch] = None
    for caller, data in graph.pred[node].items():
        if caller == node or caller.startswith(node + "."):
            continue
        if data.get("kind") not in _CALLING:
            return None
        test = data.get("cuda_test")
        branch = CudaBranch(graph.nodes[caller].get("path", ""), test, caller) if test else found.get(caller)
        if branch is None:
            return None
        first = first or branch
    return first


#: what a predicate asks CUDA with: the finding a branch under ``if fused_available():`` has for its test
_ASKS = frozenset({"torch.cuda.is_available", "torch.cuda.get_device_capability", "torch.cuda.get_device_properties",
                   "torch.Tensor.is_cuda"})


def _answers(findings: Sequence[Finding], project: ProjectGraph, placed: Mapping[str, str]) -> Dict[str, Finding]:
    """Per function, its first finding on a CUDA question (a predicate's ``torch.cuda.is_available()``, its
    ``x.device.type != "cuda"``): where a branch's test is a call of the predicate, with no finding on its own
    line, that is the test's finding."""
    found: Dict[str, Finding] = {}
    for finding in findings:
        if finding.api in _ASKS or finding.tests_device:
            node = placed.get(finding.id) or project.node_of(finding)
            if node is not None:
                found.setdefault(node, finding)
    return found


def with_cuda_branch_roots(findings: Sequence[Finding], project: ProjectGraph, placed: Mapping[str, str],
                           renamed: Sequence[str] = ()) -> List[Finding]:
    """``findings``, each device, distributed, AMP or CUDA-library finding in a function that runs only in CUDA's
    branches (``cuda_only``) a site of the finding on the test it is called under (the first one written on the
    test's line or the next ones, for a test over several lines; a call of a predicate there, ``if
    fused_available():``: the predicate's own CUDA question). A test with no finding at all was judged no work
    (a CUDA question inside a branch another test keeps for CUDA, a test that decides nothing): on the targets
    that rename the device (``renamed``) the function does not run, and its findings are ``supported`` there.
    ``placed``: finding id -> the node it sits in, where known."""
    branches = cuda_only(project)
    if not branches:
        return list(findings)
    on_line: Dict[Tuple[str, int], Finding] = {}
    for finding in findings:
        if finding.span.cell is None and finding.span.line is not None:
            on_line.setdefault((finding.path, finding.span.line), finding)
    answers = _answers(findings, project, placed)
    roots: Dict[str, str] = {}
    idle: Dict[str, CudaBranch] = {}
    for finding in findings:
        branch = branches.get(placed.get(finding.id) or project.node_of(finding) or "")
        if branch is None or finding.root is not None or finding.category not in _SITES:
            continue
        test = on_line.get((branch.path, branch.line)) or _question_below(on_line, branch) or next(
            (answers[callee] for callee in project.graph.succ[branch.caller]
             if callee in answers and callee in project.predicates), None)
        if test is None:
            idle[finding.id] = branch
        elif test.id != finding.id:
            roots[finding.id] = test.root or test.id
    for site, root in list(roots.items()):  # a test that has just become a site itself: its own root
        seen = {site}
        while root in roots and root not in seen:
            seen.add(root)
            root = roots[root]
        roots[site] = root
    sited = [replace(f, root=roots[f.id]) if f.id in roots and roots[f.id] != f.id else f for f in findings]
    return [_not_run(f, idle[f.id], renamed) if f.id in idle else f for f in sited]


#: how many lines a CUDA test's own finding may sit below its ``if`` (``if (\n    torch.cuda.is_available()``)
_TEST_LINES = 4


def _question_below(on_line: Mapping[Tuple[str, int], Finding], branch: CudaBranch) -> Optional[Finding]:
    """A test written over lines: its CUDA question on the next few lines (a question, not the body's first
    device call: a test with no finding of its own is one judged no work)."""
    return next((found for line in range(branch.line + 1, branch.line + _TEST_LINES)
                 if (found := on_line.get((branch.path, line))) is not None and found.api in _ASKS), None)
_SOURCE = "migrator guard analysis"


def _not_run(finding: Finding, branch: CudaBranch, renamed: Sequence[str]) -> Finding:
    """``finding`` ``supported`` on each target of ``renamed``: it runs only in the CUDA test's branch there."""
    why = (f"runs only in CUDA's branch of the test at {branch.path}:{branch.line} (called from "
           f"{branch.caller.rpartition('.')[2]}), which is False on {{target}} and needs no change there: "
           "{target} takes the other way")
    verdicts = dict(finding.verdicts)
    for target in renamed:
        verdict = verdicts.get(target)
        if verdict is not None and verdict.status != Status.SUPPORTED:
            text = why.format(target=target)
            verdicts[target] = Verdict(Status.SUPPORTED, text, _SOURCE,
                                       evidence=(Evidence(Grade.PROOF, _SOURCE, text),))
    return replace(finding, verdicts=verdicts)
