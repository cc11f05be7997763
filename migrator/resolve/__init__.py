"""One libcst pass from a module to the ``Usage`` records every rule works from.

Resolution is by name binding, not text: every import form and alias (``import torch as T``,
``from torch.cuda.amp import autocast as ac``, relative imports inside the repo), module-level
constants and local variables used as devices or backends, parameter defaults, ``self.`` attributes
and argparse defaults. Tensor methods on receivers whose type is unknown are recorded with
``confidence=heuristic``; a method called on an instance of a repo class that is not an
``nn.Module`` is not a tensor and is not recorded.

The package follows the pass: ``scope`` binds names, ``values`` evaluates expressions, ``receivers``
types method receivers, ``literals`` remembers where strings sit, ``emit`` records usages (their places come
from ``engine/positions.py``, which reads them off CPython's ``ast`` instead of generating code),
``visitor`` drives them over one ``walk``, and ``module`` runs the pass. What is worth recording comes from
the rules (``vocabulary``): the resolver itself knows Python, not CUDA.

The package imports nothing heavy itself: ``resolve_module`` (and libcst with it, a fifth of a second) loads
on first use, so the rules, which only declare a ``Vocabulary``, and a scan served from the cache never
import libcst.
"""

from __future__ import annotations

from typing import Any

from .modules import module_name_for
from .vocabulary import LiteralRole, Vocabulary

__all__ = ["LiteralRole", "Vocabulary", "module_name_for", "resolve_module"]


def __getattr__(name: str) -> Any:  # PEP 562: the libcst pass loads when something is parsed
    if name == "resolve_module":
        from .module import resolve_module

        return resolve_module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
