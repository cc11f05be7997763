"""A tensor method's name the project's own classes define: ``latent_dist.mode()`` in diffusers is its
``DiagonalGaussianDistribution.mode()`` (the distribution's mean), SB3's ``super().mode()`` its
``DiagGaussianDistribution.mode()``, neither ``aten::mode``. A receiver the scan cannot type may be either: what an
operator rule says of the call (a missing kernel, a vendor note) is evidence about ``Tensor.mode``, not this call,
so it is to validate on the card, with the project's own definitions named. A receiver the scan typed as a tensor
keeps its verdict only where the project defines no such method; the worklist does not guess which."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Sequence

from ..evidence import item, with_evidence
from ..model import Category, DefinitionKind, FileResult, Finding, Grade, Status, Verdict

#: a tensor method's finding: ``torch.Tensor.<name>``
_TENSOR = "torch.Tensor."


def own_methods(results: Sequence[FileResult]) -> Dict[str, str]:
    """Each method name the project's classes define (``mode``) -> one definition of it, for the message
    (``diffusers.models.autoencoders.vae.DiagonalGaussianDistribution.mode``). Dunder methods are left out."""
    found: Dict[str, str] = {}
    for result in results:
        outline = result.outline
        for definition in outline.definitions if outline is not None else ():
            owner, _, name = definition.name.rpartition(".")
            if owner and definition.kind == DefinitionKind.FUNCTION and not name.startswith("__"):
                found.setdefault(name, f"{outline.module}.{definition.name}")  # type: ignore[union-attr]
    return found


def with_own_methods(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, an operator rule's finding on ``x.<name>()`` to validate where the project's own classes
    define ``<name>``."""
    candidates = [f for f in findings if f.category == Category.OP and f.api.startswith(_TENSOR)]
    if not candidates:
        return list(findings)
    methods = own_methods(results)
    changed: Dict[str, Finding] = {}
    for finding in candidates:
        defined = methods.get(finding.api[len(_TENSOR):])
        if defined is not None:
            changed[finding.id] = replace(finding, verdicts={
                target: _maybe_its_own(verdict, defined) for target, verdict in finding.verdicts.items()})
    return [changed.get(f.id, f) for f in findings] if changed else list(findings)


def _maybe_its_own(verdict: Verdict, defined: str) -> Verdict:
    if verdict.status == Status.SUPPORTED:
        return verdict
    name = defined.rpartition(".")[2]
    return with_evidence(verdict, item(Grade.NOTE, verdict.source, f"the project defines its own `{name}()` "
                                       f"({defined}): on an object of that class this call runs it, not the tensor "
                                       f"op; what the data says of the op holds only if the receiver is a tensor: "
                                       f"{verdict.message}"))
