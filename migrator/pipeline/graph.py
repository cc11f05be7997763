"""The graph stage: the call graph, what its entry points reach, and each finding marked reachable or not
(networkx: imported only here)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Optional, Sequence, Tuple

from ..engine.cache import AnalysisCache
from .memo import graph_and_reach
from ..model import Confidence, CustomOp, FileResult, Finding, NodeReach, TargetSummary

if TYPE_CHECKING:
    from ..graph import ProjectGraph

#: Blockers (per target, in rank order) that get a sample of call paths from several entry points.
_PATHS_FOR = 60


@dataclass(frozen=True)
class Reached:
    project: "ProjectGraph"
    #: every node an entry point reaches
    nodes: Dict[str, NodeReach]
    findings: Tuple[Finding, ...]
    #: finding id -> the call-graph node it sits in
    placed: Dict[str, str]


def reachable(root: Path, results: Sequence[FileResult], findings: Sequence[Finding], ops: Sequence[CustomOp],
              entries: Sequence[str], cache: Optional[AnalysisCache], renamed: Sequence[str] = ()) -> Reached:
    """``findings`` marked reachable from the entry points (an entry point already on a vendor's patcher:
    what it covers is ``supported``), those in a function only CUDA's branches call sites of its test (or, where
    the test is no work, ``supported`` on the targets that rename the device: ``renamed``)."""
    from ..graph import build_graph, mark_reachable, reach
    from ..graph.cuda_callers import with_cuda_branch_roots
    from ..graph.shimmed import through_shims
    from ..project.training_entries import library_training

    def built() -> Tuple["ProjectGraph", Dict[str, NodeReach]]:
        project = build_graph(root, results, entries)
        nodes = reach(project)
        more = library_training(results, project, nodes.keys())  # a library that only its users' runs train
        if not more:
            return project, nodes
        project = replace(project, entries=tuple(sorted(project.entries + more, key=lambda e: e.node)))
        return project, reach(project)

    project, nodes = graph_and_reach(cache, root, results, entries, built)
    marked, placed = mark_reachable(project, nodes, findings, ops)
    sited = with_cuda_branch_roots(marked, project, placed, renamed)  # a helper only CUDA's branches call
    return Reached(project, nodes, tuple(through_shims(sited, project, placed, results)), placed)


def reached_by_trace(findings: Sequence[Finding]) -> Tuple[Finding, ...]:
    """A trace's findings are reached: the run went through them, whatever the call graph could resolve."""
    return tuple(replace(f, reachable=True) if f.confidence == Confidence.TRACED else f for f in findings)


def with_call_paths(project: "ProjectGraph", summary: TargetSummary) -> TargetSummary:
    """The first ``_PATHS_FOR`` blockers get up to three call paths from different entry points."""
    from ..graph import call_paths

    blockers = tuple(replace(b, call_paths=call_paths(project, b.path[-1])) if b.path and rank < _PATHS_FOR else b
                     for rank, b in enumerate(summary.blockers))
    return replace(summary, blockers=blockers)
