"""The tune stage: what stalls the device on the training step (``rules/tune/``), kept where an entry point
reaches it, and with a trace, how often each ran per step (``pipeline/trace_join.measure_step``)."""

from __future__ import annotations

import re

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..model import CustomOp, FileResult, Finding, NodeReach, Status
from ..resolve import module_name_for
from ..rules import RuleContext
from ..selection import Selection

if TYPE_CHECKING:
    from ..graph import ProjectGraph


#: Calls that install a hook or a parametrization on a module: called once where the model is built, their ops
#: run in every forward and backward of it (torch/nn/utils/weight_norm.py ``WeightNorm.__call__`` computes
#: ``_weight_norm`` before each forward; spectral_norm's hook a power iteration; parametrizations on each read):
#: a CPU fallback there is on the step wherever the project trains.
HOOKED_ON_FORWARD = frozenset({
    "torch.nn.utils.weight_norm", "torch.nn.utils.spectral_norm", "torch.nn.utils.parametrizations.weight_norm",
    "torch.nn.utils.parametrizations.spectral_norm", "torch.nn.utils.parametrizations.orthogonal",
    "torch.nn.utils.parametrize.register_parametrization"})


#: what a probabilistic model's loss is made of, as whole words of a name (pyro's distributions' ``log_prob``, a
#: likelihood, an ELBO; not ``plot_elbow``)
_LIKELIHOOD = re.compile(r"(?:^|_)(?:log_prob|log_likelihood|nll|elbo)(?:_|$)")


def computes_a_loss(scope: str) -> bool:
    """A function or a class named for a loss (``HuberQLoss.__call__``, ``EvidentialLoss._calc_unreduced_loss``,
    ``focal_loss``, a distribution's ``log_prob``): a training run computes its loss every step, whichever way the
    trainer calls it (a loss chosen by name from a configuration is a call no graph can follow)."""
    *_, owner, name = ["", *scope.split(".")]
    lowered = name.lower()
    return "<" not in scope and ("loss" in lowered or bool(_LIKELIHOOD.search(lowered))
                                 or (owner[:1].isupper() and "loss" in owner.lower()))


@dataclass(frozen=True)
class Tuned:
    """What the tune stage found: the ``tune`` findings, the call-graph node each sits in, which of the other
    findings that fall back to the CPU sit on the training step (``None`` when no step was found), and the
    step's nodes."""

    findings: Tuple[Finding, ...]
    placed: Dict[str, str]
    fallbacks_on_step: Optional[FrozenSet[str]]
    #: the call-graph nodes that run each training step (a module's ``forward`` among them)
    step_nodes: FrozenSet[str] = frozenset()


def tune(results: Sequence[FileResult], judged: Sequence[Finding], ctx: RuleContext, project: "ProjectGraph",
         reached: Mapping[str, NodeReach], ops: Sequence[CustomOp], selection: Selection,
         trace: Optional[Mapping[str, Any]], root: str, errors: List[str]) -> Tuned:
    """The ``tune`` findings, and the call-graph node each sits in; ``errors`` receives a tune rule that
    raised."""
    from ..graph import mark_reachable
    from ..project.step import off_the_step, training_step
    from ..rules.tune import tune_findings

    step = training_step(results, project.graph, main_lines=project.main_lines)
    falls_back = [f for f in judged if any(v.status == Status.FALLBACK for v in f.verdicts.values())]
    if step.nodes or step.loops:
        # (what no entry point reaches is on no step: asteroid's beamformers, modules its training never builds)
        on_step = frozenset(f.id for f in falls_back if f.api in HOOKED_ON_FORWARD or computes_a_loss(f.scope)
                            or (f.reachable is not False and step.why(f, project.node_of(f)) is not None))
    else:  # no step to follow (a library): a function named for evaluation, export or a merge is still off it
        on_step = frozenset(f.id for f in falls_back if not off_the_step(f.scope))
    found = tune_findings(results, judged, step, project.node_of, ctx, errors)
    if selection:
        found = selection.apply(found)
    marked, placed = mark_reachable(project, reached, found, ops)
    imported = {n for n in reached if project.graph.nodes[n].get("kind") == "module"}
    kept = []
    for finding in marked:
        if finding.reachable is False:
            node = placed.get(finding.id)
            method, trainer = step.run_by_a_module(node), step.run_by_a_trainer(node)
            if not ((method is not None and module_name_for(project.graph.nodes[method].get("path", "")) in imported)
                    or (trainer is not None and trainer in reached)):
                continue  # dead code, or code only a test or a tool runs
            # a built module's forward, or what a reached trainer's step calls on an attribute: the graph cannot
            # say who calls it, nor so whether it is reached
            finding = replace(finding, reachable=None)
        kept.append(finding)
    if trace is not None:
        from .trace_join import measure_step

        kept = measure_step(kept, trace, root)
    return Tuned(tuple(kept), placed, on_step, frozenset(step.nodes))
