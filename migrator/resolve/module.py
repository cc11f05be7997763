"""``resolve_module``: one walk of a libcst module with the resolver's visitors, and the facts it leaves."""

from __future__ import annotations

import ast
from typing import FrozenSet, Optional, Tuple

import libcst as cst

from ..model import PythonFacts, Usage
from .emit import Emitter, PositionMap
from .scope import Scopes
from .visitor import ModuleResolver
from .vocabulary import Vocabulary
from .walk import Walker


def resolve_module(module: cst.Module, module_name: str, is_package: bool, tensor_methods: FrozenSet[str],
                   vocabulary: Vocabulary, position_map: Optional[PositionMap] = None,
                   source: Optional[str] = None, tree: Optional[ast.Module] = None
                   ) -> Tuple[PythonFacts, Tuple[Usage, ...]]:
    """``source`` is the text ``module`` was parsed from, when the caller has it (saves generating it again);
    ``tree`` is CPython's ``ast`` of that same text, when the caller has it (positions are then measured
    statement by statement instead of over the whole module)."""
    scopes = Scopes(module_name, is_package, vocabulary)
    emitter = Emitter(module, source, scopes, position_map, tree)
    resolver = ModuleResolver(scopes, emitter, tensor_methods)
    Walker(resolver, resolver.literals, index=emitter.positions.index).walk(module)
    usages = resolver.finished_usages()
    constants = {name: emitter.finish_value(value) for name, value in resolver.constants.items()}
    facts = PythonFacts(module=module_name, constants=constants, triton_kernels=tuple(resolver.kernels),
                        imports_torch=resolver.imports_torch, kernel_sources=tuple(resolver.kernel_sources),
                        optional_imports=resolver.optional_imports)
    return facts, usages
