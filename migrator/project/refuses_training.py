"""Models that refuse to train: what only they run is inference.

mmagic's ``InstColorization`` is registered as a model like the others, but its ``train_step`` and
``forward_train`` only ``raise NotImplementedError('Instance Colorization has not supported training.')``; ART's
``PyTorchGoturn.fit`` and ``PyTorchEspresso.fit`` raise too, and funasr's ``GLMASR.forward`` says "GLMASR only
supports inference mode". No training run of the project gets through such a class, so its methods' device calls
(InstColorization's ``torch.cuda.FloatTensor`` cast) and the helpers only it calls (its ``color_utils``) are off
the training path: tooling, as an inference script's are.

A class refuses training when it overrides one of the methods frameworks train through (``fit``, ``train_step``,
``forward_train``, ``training_step``; ``forward`` only with words of inference or training in its message) with a
body that only raises ``NotImplementedError``, it is a concrete model (it has a base in the repository, or the
project registers or builds it: an abstract base a user subclasses is neither) and no class of the repository
derives from it.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, AbstractSet, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Union

from ..model import DefinitionKind, FileResult, NodeKind
from .reread import parse_text, read_text

if TYPE_CHECKING:
    from ..graph import ProjectGraph

#: the methods a framework trains a model through
_TRAINING_METHODS = frozenset({"fit", "train_step", "forward_train", "training_step"})
_DEFINES_ONE = re.compile(r"def (?:fit|train_step|forward_train|training_step|forward)\(")
#: a ``forward`` that raises refuses training only when it says so (a model may train through ``loss()``)
_SAYS_INFERENCE = re.compile(r"inference|train", re.IGNORECASE)


def refusing_training(results: Sequence[FileResult], project: "ProjectGraph", paths: AbstractSet[str],
                      texts: Dict[str, Optional[str]]) -> FrozenSet[str]:
    """The graph nodes only models that refuse training run: those classes (in ``paths``, the files findings sit
    in), their methods, and the project's functions that only they (or other such functions) call."""
    graph = project.graph
    subclassed = {base for r in results if r.outline is not None for d in r.outline.definitions
                  if d.kind == DefinitionKind.CLASS for base in d.bases}
    refusing: Set[str] = set()
    for result in results:
        outline = result.outline
        if outline is None or result.file.rel not in paths \
                or not any(d.kind == DefinitionKind.CLASS for d in outline.definitions):
            continue
        text = read_text(result, texts)
        if text is None or "NotImplementedError" not in text or not _DEFINES_ONE.search(text):
            continue
        tree = parse_text(text)
        if tree is None:
            continue
        bases = {d.name: d.bases for d in outline.definitions if d.kind == DefinitionKind.CLASS}
        for cls in _classes(tree):
            node = f"{outline.module}.{cls.name}"
            if cls.name in bases and node not in subclassed and node in graph and _refuses(cls) \
                    and _concrete(node, bases[cls.name], graph):
                refusing.add(node)
    if not refusing:
        return frozenset()
    return _only_theirs(graph, refusing)


def _classes(tree: ast.Module) -> Iterable[ast.ClassDef]:
    """The module's top-level classes (a nested class's qualified name would need its outer ones: left out)."""
    return (node for node in tree.body if isinstance(node, ast.ClassDef))


def _refuses(cls: ast.ClassDef) -> bool:
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                (item.name in _TRAINING_METHODS or item.name == "forward"):
            message = _raises_not_implemented(item)
            if message is not None and (item.name != "forward" or _SAYS_INFERENCE.search(message)):
                return True
    return False


def _raises_not_implemented(function: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> Optional[str]:
    """The message of a body that is only ``raise NotImplementedError(...)`` (after a docstring), else ``None``."""
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return None
    exc = body[0].exc
    called = exc.func if isinstance(exc, ast.Call) else exc
    if not (isinstance(called, ast.Name) and called.id == "NotImplementedError"):
        return None
    args = exc.args if isinstance(exc, ast.Call) else []
    return " ".join(str(a.value) for a in args if isinstance(a, ast.Constant))


def _concrete(node: str, bases: Sequence[str], graph) -> bool:
    """A model of its own: a subclass of a repository class, or one the project registers or builds."""
    if any(base in graph and graph.nodes[base].get("kind") == NodeKind.CLASS for base in bases):
        return True
    return any(kind != "defined-in" and graph.nodes[source].get("kind") != NodeKind.PUBLIC_API
               for source, _, kind in graph.in_edges(node, data="kind"))


def _only_theirs(graph, refusing: Set[str]) -> FrozenSet[str]:
    """The refusing classes, their members, and the functions every caller of which is among them."""
    members = {n for n in graph.nodes if any(n == c or n.startswith(c + ".") for c in refusing)}
    inside = set(members)
    changed = True
    while changed:
        changed = False
        for node in list(graph.nodes):
            if node in inside or graph.nodes[node].get("kind") != NodeKind.FUNCTION:
                continue
            callers: List[str] = [source for source, _, kind in graph.in_edges(node, data="kind")
                                  if kind != "defined-in"]
            if callers and all(caller in inside for caller in callers):
                inside.add(node)
                changed = True
    return frozenset(inside)
