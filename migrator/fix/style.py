"""The rewrite style of ``fix`` (issue 43): portable ``torch.accelerator`` calls where the target's line has them,
else the vendor's names.

What it does:
    ``fix`` first plans and applies a file's edits in the vendor style (``torch_npu.npu.synchronize``, the plugin
    import). In the portable style (the default), a file whose applied edits are *all* device-management renames
    with a portable form on the target's line is rewritten again with those forms instead
    (``torch.cuda.synchronize()`` -> ``torch.accelerator.synchronize()``), and gets no plugin import: torch 2.5+
    loads an installed backend itself (the ``torch.backends`` entry point torch_npu declares).

Why:
    The vendor's names make the file run on the target only: ``import torch_npu`` fails on a CUDA machine and on
    a plain CPU machine. The portable form answers for whichever accelerator torch has, so the fixed file keeps
    running where it ran before and also runs on the target.

When the vendor style stays, and why (``Styled.why``):
    - the target's torch line predates the form, or the vendor's own API list for that line does not document
      it as supported (``operator_maps/accelerator.json``: the first release per form, from PyTorch's docs;
      the vendor's list: ``TargetMap.documented``); Cambricon's public lines (torch 2.1-2.4) have none;
    - the form behaves otherwise on a CPU-only build (the memory API raises where ``torch.cuda``'s returns 0):
      never used;
    - the file gets another edit (a device string, ``.cuda()``, an AMP or backend name): the file names the
      target's device anyway, so one style serves it whole (a portable guard in front of ``.npu()`` would send
      a CUDA machine into NPU code);
    - a call passes a keyword argument (the portable forms take positional arguments only), or ``torch`` is
      not imported as ``torch`` in the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..maps.accelerator import portable_forms
from ..maps.load import TargetMap
from ..model import EditKind

PORTABLE = "portable"
VENDOR = "vendor"
STYLES = (PORTABLE, VENDOR)


@dataclass(frozen=True)
class Styled:
    """The style a file was written in, and why it is not the one asked for (``None`` when it is)."""

    style: str
    why: Optional[str] = None


def not_portable(target: TargetMap, edits: Iterable[Tuple[str, str, Tuple[int, int]]],
                 keyword_calls: Set[Tuple[int, int]], torch_bound: bool) -> Optional[str]:
    """Why a file whose applied edits are ``edits`` (``(kind, old, (line, column))``) stays in the vendor style;
    ``None`` when every one has a portable form it can take."""
    forms = portable_forms(target)
    if not forms:
        return (f"{target.label} runs torch {target.torch_line or '(unknown)'}: no torch.accelerator form is both in "
                "that torch line and documented by the vendor's API list for it")
    for kind, old, at in edits:
        if kind != EditKind.NAME or old not in forms:
            return (f"the file also gets `{old}` rewritten, which has no portable form on {target.label}: "
                    "it names the target's device, so the whole file keeps the vendor's names")
        if at in keyword_calls:
            return f"`{old}` is called with a keyword argument at line {at[0]}; the portable form takes none"
    if not torch_bound:
        return "the file does not `import torch` as `torch`, which the portable form is written with"
    return None


def keyword_calls(module: cst.Module) -> Set[Tuple[int, int]]:
    """The start ``(line, column)`` of each call that passes a keyword or a ``*``/``**`` argument."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _KeywordCalls()
    wrapper.visit(finder)
    return finder.found


class _KeywordCalls(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.found: Set[Tuple[int, int]] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if any(arg.keyword is not None or arg.star for arg in node.args):
            start = self.get_metadata(PositionProvider, node).start
            self.found.add((start.line, start.column))
