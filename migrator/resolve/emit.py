"""Emitted usages: each ``Usage`` is recorded with placeholder positions during the visit, and every
position and snippet is measured in one pass at the end (``Positions``)."""

from __future__ import annotations

import ast
import sys
from dataclasses import replace
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from ..model import Argument, Confidence, CudaGuard, Span, TorchGate, Usage, Value
from ..engine.positions import Positions
from .modules import OBJECT_OF
from .scope import Scopes
from ..model import UsageKind

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_IMPORT = UsageKind.IMPORT

PositionMap = Callable[[Span], Span]


class Emitter:
    def __init__(self, module: cst.Module, source: Optional[str], scopes: Scopes,
                 position_map: Optional[PositionMap] = None, tree: Optional[ast.Module] = None) -> None:
        self.module = module
        self.positions = Positions(module, source, tree)
        self.scopes = scopes
        self.position_map = position_map
        self.usages: List[Usage] = []
        self.cuda_guards: List[CudaGuard] = []  # the CUDA tests whose bodies the walk is inside, innermost last
        #: the nodes of a conditional expression's CUDA branch or test (``torch.cuda.device(d) if d.type == "cuda"
        #: else nullcontext()``), by id: their guard, innermost of all
        self.expression_guards: Dict[int, CudaGuard] = {}
        self.no_grad = 0  # inside how many blocks that run without autograd (``with torch.no_grad():``)
        self.torch_gates: List[TorchGate] = []  # the torch-version branches the walk is inside, innermost last
        #: the nodes of a conditional expression's branch on torch's version (``torch.get_device_module(t) if
        #: is_torch_version(">=", "2.4.0") else torch.cuda``), by id: when it runs, innermost of all
        self.expression_gates: Dict[int, TorchGate] = {}
        #: the accelerators the if/elif chains the walk is inside test for (``elif is_npu_available():``)
        self.chain_siblings: List[Tuple[str, ...]] = []
        self.snippets: List[Tuple[Span, cst.CSTNode]] = []  # per usage: where its snippet text is
        self._dropped: Set[int] = set()  # the indices of usages found, once the walk was over, to be none
        #: the nodes of a device flag's binding that a later ``if`` with another branch tests, by id: their guard
        #: (a usage there was emitted before the test was seen)
        self.tested_later: Dict[int, CudaGuard] = {}
        #: the nodes of a flag's binding that a later if/elif chain tests as CUDA's arm beside other accelerators'
        #: (``pt_cuda_available = torch.cuda.is_available()`` then ``if pt_cuda_available: ... elif
        #: pt_npu_available: ...``), by id: the devices beside it
        self.siblings_later: Dict[int, Tuple[str, ...]] = {}
        #: the nodes of a flag's binding a later ``if`` shows to ask for an NVIDIA feature (``self.use_flash =
        #: torch.cuda.is_available()`` then ``if not self.use_flash: return`` before GPU-property reads), by id:
        #: their context
        self.contexts_later: Dict[int, str] = {}
        #: the nodes of code that runs only on an object of a class a caller hands in (``if isinstance(x,
        #: SparseTensor):``, a parameter annotated ``SparseTensor``), by id: the class, qualified; the context
        #: (``OBJECT_OF``) of the usages of that class's own package there
        self.objects_later: Dict[int, str] = {}
        self._nodes: List[int] = []  # per usage: the id of its node

    def span(self, node: cst.CSTNode) -> Span:
        """A placeholder now; ``finished`` measures every such node in one pass."""
        return self.positions.pending(node)

    def code(self, node: cst.CSTNode) -> str:
        """The source text of ``node`` (a code generation: only where a rule or a message reads it)."""
        try:
            text = self.module.code_for_node(node)
        except Exception:
            return "<expr>"
        return _clip(text)

    def emit(self, api: str, kind: UsageKind, node: cst.CSTNode, args: Tuple[Argument, ...] = (),
             confidence: Confidence = Confidence.RESOLVED, context: Optional[str] = None,
             node_for_snippet: Optional[cst.CSTNode] = None, siblings: Tuple[str, ...] = (),
             config_key: Optional[str] = None, through: Optional[cst.CSTNode] = None) -> None:
        # an import, or a run-time build (``load(name="fbd_cuda", ...)``), under ``try`` with a handler that goes
        # on: the code has its way where it fails
        # (an import the module raises without is no longer among the guarded names: ``scope.required_imports``)
        guarded = self.scopes.guard_depth > 0 and (kind != _IMPORT or self.scopes.is_guarded(api)) \
            if kind == _IMPORT or api in self.scopes.vocabulary.module_loaders else self.scopes.used_where_imported(api)
        snippet_node = node_for_snippet or node
        # interned: a module repeats the same few names thousands of times, and pickling (cache, process
        # pool) stores an interned string once
        self.usages.append(Usage(
            api=sys.intern(api), kind=kind, span=self.span(node), snippet="", confidence=confidence, args=args,
            context=context, scope=sys.intern(self.scopes.scope_name()), guarded=guarded,
            cuda_guard=self.expression_guards.get(id(node)) or (self.cuda_guards[-1] if self.cuda_guards else None),
            siblings=siblings + self.chain_siblings[-1] if self.chain_siblings else siblings,
            no_grad=self.no_grad > 0, config_key=config_key,
            torch_gate=self.expression_gates.get(id(node)) or (self.torch_gates[-1] if self.torch_gates else None),
            through=self.span(through) if through is not None else None,
        ))
        self.snippets.append((self.positions.pending(snippet_node), snippet_node))
        self._nodes.append(id(node))

    def drop(self, indices: Iterable[int]) -> None:
        """Forget the usages emitted at ``indices`` (what a later part of the module showed is no usage)."""
        self._dropped.update(indices)

    def finished(self) -> Tuple[Usage, ...]:
        self.positions.resolve()
        if self.tested_later:
            self.usages = [replace(u, cuda_guard=self.tested_later[node]) if u.cuda_guard is None
                           and node in self.tested_later else u for u, node in zip(self.usages, self._nodes)]
        if self.contexts_later:
            self.usages = [replace(u, context=self.contexts_later[node]) if u.context is None
                           and node in self.contexts_later else u for u, node in zip(self.usages, self._nodes)]
        if self.objects_later:
            self.usages = [replace(u, context=OBJECT_OF + self.objects_later[node]) if u.context is None
                           and node in self.objects_later and _same_package(u.api, self.objects_later[node]) else u
                           for u, node in zip(self.usages, self._nodes)]
        if self.siblings_later:
            self.usages = [replace(u, siblings=u.siblings + self.siblings_later[node]) if node in self.siblings_later
                           else u for u, node in zip(self.usages, self._nodes)]
        return tuple(self._finish(u, snippet) for i, (u, snippet) in enumerate(zip(self.usages, self.snippets))
                     if i not in self._dropped)

    def finish_value(self, value: Value) -> Value:
        if value.origin is None and not value.options:
            return value
        return replace(value, origin=self._real_span(value.origin) if value.origin is not None else None,
                       options=tuple(self.finish_value(o) for o in value.options))

    def _finish(self, usage: Usage, snippet: Tuple[Span, cst.CSTNode]) -> Usage:
        args = tuple(Argument(a.keyword, self.finish_value(a.value)) for a in usage.args)
        text = self.positions.text_of(snippet[0])
        text = self.code(snippet[1]) if text is None else _clip(text)
        guard = usage.cuda_guard
        if guard is not None:
            guard = replace(guard, span=self._real_span(guard.span))
        through = self._real_span(usage.through) if usage.through is not None else None
        return replace(usage, span=self._real_span(usage.span), args=args, snippet=_one_line(text), cuda_guard=guard,
                       through=through)

    def _real_span(self, span: Span) -> Span:
        span = self.positions.span_of(span)
        return self.position_map(span) if self.position_map and span.line is not None else span


def _clip(text: str) -> str:
    return text if len(text) <= 200 else text[:197] + "..."


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= 160 else first[:157] + "..."


def _same_package(api: str, qualified: str) -> bool:
    """``torch_sparse.matmul`` and ``torch_sparse.tensor.SparseTensor``: one top-level package."""
    return api.split(".", 1)[0] == qualified.split(".", 1)[0]
