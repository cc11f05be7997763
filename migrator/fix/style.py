"""The rewrite style of ``fix`` (issue 43): portable ``torch.accelerator`` calls where the target's line has them,
else the vendor's names.

What it does:
    ``fix`` first plans and applies a file's edits in the vendor style (``torch_npu.npu.synchronize``, the plugin
    import). In the portable style (the default), a file whose applied edits *all* have a portable form on the
    target's line (device-management renames, and the device forms below) is rewritten again with those forms instead
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
    - the file gets another edit (a device string, ``.cuda()``, a scaler, a backend outside the call that takes
      it; autocast and that call have device forms, below): the file names the
      target's device anyway, so one style serves it whole (a portable guard in front of ``.npu()`` would send
      a CUDA machine into NPU code);
    - a call passes a keyword argument (the portable forms take positional arguments only), or ``torch`` is
      not imported as ``torch`` in the file.

Calls that name the device themselves (``device_forms``): ``torch.cuda.amp.autocast(...)`` becomes
``torch.autocast(<accelerator>, enabled=..., ...)`` (CUDA's positional parameters passed by name), the ``'cuda'``
of ``torch.autocast('cuda')`` the same expression, and the ``'nccl'`` passed to ``init_process_group`` torch's
default backend for the accelerator; the expressions (``operator_maps/accelerator.json`` ``values``) read the
accelerator torch has, never the vendor's name. ``torch.cuda.amp.GradScaler`` has a row whose needed API no vendor
list documents: it keeps the vendor's name, and its file with it. A ``'nccl'`` anywhere else (a comparison, a
default a comparison meets, which ``together`` rewrites with the call's) has no portable form: the file keeps the
vendor's names whole, so a backend protocol is never written half in each style (the expression in a comparison
would hold on a CPU machine for a ``'gloo'`` the user chose, where ``== 'nccl'`` did not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Mapping, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..maps.accelerator import DeviceForm, device_form_gap, device_forms, portable_forms, takes_device_form
from ..maps.load import TargetMap
from ..model import Edit, EditKind
from ..resolve.dotted import dotted

PORTABLE = "portable"
VENDOR = "vendor"
STYLES = (PORTABLE, VENDOR)


@dataclass(frozen=True)
class Styled:
    """The style a file was written in, and why it is not the one asked for (``None`` when it is)."""

    style: str
    why: Optional[str] = None


def not_portable(target: TargetMap, edits: Iterable[Tuple[str, str, Tuple[int, int], str]],
                 keyword_calls: Set[Tuple[int, int]], torch_bound: bool) -> Optional[str]:
    """Why a file whose applied edits are ``edits`` (``(kind, old, (line, column), api)``) stays in the vendor
    style; ``None`` when every one has a portable form it can take."""
    forms = portable_forms(target)
    calls = device_forms(target)
    if not forms and not calls:
        return (f"{target.label} runs torch {target.torch_line or '(unknown)'}: no torch.accelerator form is both in "
                "that torch line and documented by the vendor's API list for it")
    for kind, old, at, api in edits:
        if kind == EditKind.NAME and old in forms:
            if at in keyword_calls:
                return f"`{old}` is called with a keyword argument at line {at[0]}; the portable form takes none"
            continue
        if portable_edit(Edit(EditKind(kind), old, ""), api, calls) is None:
            gap = device_form_gap(target, api)
            return (f"the file also gets `{old}` rewritten, which has no portable form on {target.label}"
                    + (f" (`{api}`: {gap})" if gap else "") + ": it names the target's device, so the whole file "
                    "keeps the vendor's names")
    if not torch_bound:
        return "the file does not `import torch` as `torch`, which the portable form is written with"
    return None


#: what a call or a value becomes in the first pass of the portable style; ``written_portable`` puts the real form in
_MARK = "__migrator_portable_"


def portable_edit(edit: Edit, api: str, calls: Mapping[str, DeviceForm]) -> Optional[Edit]:
    """The edit that writes ``edit`` (a finding's on ``api``) in the portable style with a device form, or ``None``:
    the CUDA AMP name becomes a marked call, the ``'cuda'`` / ``'nccl'`` a marked string, a missing device the
    accelerator's (``written_portable`` then writes the form)."""
    if not takes_device_form(edit, api, calls):
        return None
    if edit.kind == EditKind.NAME:
        return Edit(EditKind.NAME, edit.old, f"torch.{_MARK}{_key(api)}")
    if edit.kind == EditKind.STRING:
        return Edit(EditKind.STRING, edit.old, f"{_MARK}{_key(api)}")
    return Edit(EditKind.ARGUMENT, edit.old, calls[api].value)  # ``GradScaler()``: CUDA's device by default


def _key(api: str) -> str:
    return api.replace(".", "_")


def written_portable(module: cst.Module, calls: Mapping[str, DeviceForm]) -> Optional[cst.Module]:
    """``module`` with every marked call and string of the first pass written in its device form; ``None`` when
    one cannot be (a marked name that is not called, CUDA's positional arguments past what the form names)."""
    by_key = {_key(api): form for api, form in calls.items()}
    writer = _DeviceForms(by_key)
    out = module.visit(writer)
    return None if writer.failed or _MARK in out.code else out


class _DeviceForms(cst.CSTTransformer):
    def __init__(self, by_key: Mapping[str, DeviceForm]) -> None:
        self.by_key = by_key
        self.failed = False

    def _form(self, text: str) -> Optional[DeviceForm]:
        return self.by_key.get(text[len(_MARK):]) if text.startswith(_MARK) else None

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.BaseExpression:
        value = updated_node.evaluated_value
        form = self._form(value) if isinstance(value, str) else None
        return cst.parse_expression(form.value) if form is not None else updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        name = dotted(updated_node.func)
        form = self._form(name[len("torch."):]) if name.startswith(f"torch.{_MARK}") else None
        if form is None:
            return updated_node
        args: List[cst.Arg] = []
        positional = 0
        for arg in updated_node.args:
            if arg.star:
                self.failed = True
                return updated_node
            if arg.keyword is None and form.keywords:
                if positional >= len(form.keywords):
                    self.failed = True
                    return updated_node
                arg = arg.with_changes(keyword=cst.Name(form.keywords[positional]), equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
                positional += 1
            args.append(arg)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if args else cst.MaybeSentinel.DEFAULT
        first = cst.Arg(cst.parse_expression(form.value), comma=comma)
        return updated_node.with_changes(func=cst.parse_expression(form.portable), args=[first, *args])


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
