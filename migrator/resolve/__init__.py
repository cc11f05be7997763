"""One libcst pass from a module to the ``Usage`` records every rule works from.

Resolution is by name binding, not text: every import form and alias (``import torch as T``,
``from torch.cuda.amp import autocast as ac``, relative imports inside the repo), module-level
constants and local variables used as devices or backends, parameter defaults, ``self.`` attributes
and argparse defaults. Tensor methods on receivers whose type is unknown are recorded with
``confidence=heuristic``; a method called on an instance of a repo class that is not an
``nn.Module`` is not a tensor and is not recorded.

The package follows the pass: ``scope`` binds names, ``values`` evaluates expressions, ``receivers``
types method receivers, ``literals`` remembers where strings sit, ``emit`` records usages and measures
their positions, ``visitor`` drives them. What is worth recording comes from the rules
(``vocabulary``): the resolver itself knows Python, not CUDA.
"""

from __future__ import annotations

import ast
from typing import FrozenSet, Optional, Tuple

import libcst as cst

from ..model import PythonFacts, Usage
from .emit import Emitter, PositionMap
from .names import module_name_for
from .scope import LOADED, Scopes
from .visitor import ModuleResolver
from .vocabulary import LiteralRole, Vocabulary
from .walk import Walker

__all__ = ["LOADED", "LiteralRole", "Vocabulary", "module_name_for", "resolve_module"]


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
                        imports_torch=resolver.imports_torch)
    return facts, usages
