"""The ``amp-device`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Edit, EditKind, Status, Usage, UsageKind, Value, ValueKind, Verdict, fix_of
from ...resolve.modules import IDLE_REGION, NEVER_ENTERED
from ..base import (Claim, Rule, RuleContext, Verdicts, cuda_device_in, device_string_verdict, first_arg, needs_import,
                    per_target, runs_on_a_note)
from ..examples import ByRuntime, Invalid, Valid

_DEVICE_FIRST = ("torch.autocast", "torch.amp.autocast", "torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler",
                 "torch.amp.autocast_mode.autocast", "torch.amp.custom_fwd", "torch.amp.custom_bwd",
                 "torch.get_autocast_dtype", "torch.set_autocast_dtype", "torch.is_autocast_enabled")


#: APIs whose device argument defaults to "cuda" (torch_mlu's migration tool lists them in default_cuda_args_list).
_CUDA_BY_DEFAULT = ("torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler")

#: CUDA's autocast state asked or set with no device, and the device-type form torch 2.4 added for each (and
#: deprecated these for): ``torch.is_autocast_enabled()`` is ``torch.is_autocast_enabled("cuda")``. Both vendors'
#: patchers replace them (transfer_to_npu's ``_patch_is_autocast_enabled``, torch_mlu's gpu_migration table).
_CUDA_AUTOCAST_STATE = {"torch.is_autocast_enabled": "torch.is_autocast_enabled",
                        "torch.get_autocast_gpu_dtype": "torch.get_autocast_dtype",
                        "torch.set_autocast_gpu_dtype": "torch.set_autocast_dtype"}


class AmpDevice(Rule):
    """Autocast and GradScaler on the CUDA device.

    ## What it does
    Finds the device-generic AMP APIs given a CUDA device: `torch.autocast('cuda')`,
    `torch.autocast(device_type='cuda')`, `torch.amp.GradScaler('cuda')`, `torch.amp.custom_fwd(device_type=
    'cuda')`, and `torch.amp.GradScaler()` with no device, whose default is `'cuda'`; and CUDA's autocast state
    asked with no device: `torch.is_autocast_enabled()`, `torch.get_autocast_gpu_dtype()`.

    ## Why is this bad?
    Autocast for `cuda` casts nothing on an `npu` or `mlu` device, so the model silently trains in fp32,
    with twice the activation memory; a scaler built for `cuda` fails on the target's tensors. CUDA's autocast
    state is off under the target's autocast, so code that casts to the autocast dtype when it is on skips the
    cast. Kunlunxin presents itself as `cuda`, so the string works there.

    ## Fix safety
    Exact: the device string becomes the target's (`'npu'`, `'mlu'`), and a `GradScaler()` with no device
    gets the target's device as its first argument. Nothing else in the call changes. `torch.is_autocast_enabled()`
    gets the target's device, and a `gpu` dtype function becomes the function the vendor's runtime patcher
    swaps in for it, both safe where the target's data has that function (the protocol is rewritten whole:
    Cambricon's gpu_migration, torch_npu 2.13's transfer_to_npu); elsewhere the question is an unsafe edit and
    the dtype is renamed by hand to the device-type form. In `fix`'s portable
    style (a target line with the form, `fix/style.py`) autocast's device is the accelerator's type instead.
    """

    name = "amp-device"
    call_stays = True
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL, UsageKind.DECORATOR})
    category = Category.AMP
    summary = "autocast / GradScaler on the CUDA device"
    examples = (
        Invalid("import torch\nwith torch.autocast(device_type='cuda', dtype=torch.float16):\n    pass\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                # cann's torch line and Ascend's list have the portable form (fix/style.py): the accelerator's type
                fixed=dict(cann="import torch\nwith torch.autocast(device_type=(torch.accelerator.current_accelerator()"
                                " or torch.device(\"cuda\")).type, dtype=torch.float16):\n    pass\n",
                           neuware="import torch\nimport torch_mlu\n"
                                   "with torch.autocast(device_type='mlu', dtype=torch.float16):\n    pass\n")),
        Invalid("import torch\nscaler = torch.amp.GradScaler('cuda')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nscaler = torch.amp.GradScaler('npu')\n",
                           neuware="import torch\nimport torch_mlu\nscaler = torch.amp.GradScaler('mlu')\n")),
        Invalid("import torch\nscaler = torch.amp.GradScaler(enabled=True)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nscaler = torch.amp.GradScaler('npu', enabled=True)\n",
                           neuware="import torch\nimport torch_mlu\n"
                                   "scaler = torch.amp.GradScaler('mlu', enabled=True)\n")),
        # mamba's fused functions: CUDA's autocast state, asked with no device
        Invalid("import torch\ndef cast(w):\n    if torch.is_autocast_enabled():\n"
                "        return w.to(torch.get_autocast_gpu_dtype())\n    return w\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                # the dtype function torch_mlu's gpu_migration swaps in, and the device's question: the whole protocol
                fixed=dict(neuware="import torch\nimport torch_mlu\ndef cast(w):\n"
                                   "    if torch.is_autocast_enabled('mlu'):\n"
                                   "        return w.to(torch.mlu.get_autocast_dtype())\n    return w\n")),
        Valid("import torch\ndef cast(w, device_type):\n    if torch.is_autocast_enabled(device_type):\n"
              "        return w.to(torch.get_autocast_dtype(device_type))\n    return w\n"),
        Valid("import torch\nwith torch.autocast('cpu', dtype=torch.bfloat16):\n    pass\n"),
        Valid("import torch\ndef step(device_type):\n    with torch.autocast(device_type):\n        pass\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind == UsageKind.CALL and usage.api in _CUDA_AUTOCAST_STATE \
                and not (usage.api == "torch.is_autocast_enabled" and usage.args):
            return per_target(ctx, lambda t: _cuda_autocast_state(t, usage))
        if usage.kind not in self.kinds or usage.api not in _DEVICE_FIRST:
            return None
        value = first_arg(usage, ("device_type", "device"), 0)
        if value is None and usage.api in _CUDA_BY_DEFAULT:
            value = Value(ValueKind.STR, "cuda", via=f"the default device of {usage.api.rsplit('.', 1)[-1]}")
        device = cuda_device_in(value, ctx.project) if value is not None else None
        if value is None or device is None:
            return None
        if value.via and value.via.startswith("the default device"):
            return per_target(ctx, lambda t: _implicit_cuda(t, device, usage.snippet))
        return per_target(ctx, lambda t: changes_nothing(t, device_string_verdict(t, device, usage.snippet), usage))


#: an autocast that changes nothing a target computes, by its ``Usage.context``: why, and on what it rests
_NOTHING_CHANGES = {
    IDLE_REGION: ("this turns CUDA's autocast off around code that autocast never computes in 16 bits (no matmul, "
                  "linear or convolution, here or in the functions it calls): on {target} the region computes the "
                  "same; to keep it fp32 under {target}'s own autocast too: {then}",
                  "torch.amp autocast op reference (the CUDA ops that autocast to float16)"),
    # ``with torch.cuda.amp.autocast() and torch.set_grad_enabled(True):``: Python enters only the last operand
    NEVER_ENTERED: ("`with <autocast> and <...>:` enters only what the `and` returns, its last operand: this "
                    "autocast is never entered, on CUDA either, and {target} runs the region as CUDA does; to "
                    "compute it in 16 bits, enter both (`with <autocast>, <...>:`) and then: {then}",
                    "Python's with statement (the value of an `and` is its last operand that decides it)"),
}


def changes_nothing(target, verdict: Verdict, usage: Usage) -> Verdict:
    """An autocast whose rename changes nothing a target computes (``_NOTHING_CHANGES``: switched off around
    code it never lowers, or never entered), or what only runs forward (``_EVALUATION``: entered without
    autograd, where fp32 gives the same results, slower): ``supported`` on a note that says what the rename would
    be for."""
    if verdict.status != Status.REWRITE:
        return verdict
    if usage.context in _NOTHING_CHANGES:
        quote, source = _NOTHING_CHANGES[usage.context]
    elif usage.no_grad and usage.api.endswith(".autocast"):
        quote, source = _EVALUATION
    else:
        return verdict
    return runs_on_a_note(quote.format(target=target.id, then=verdict.message), source)


#: an autocast entered without autograd (simpletransformers' ``evaluate()`` under ``torch.no_grad()``, a frozen
#: teacher's forward): CUDA's is off on the target, and the region computes in fp32 there, slower and the same
_EVALUATION = ("entered without autograd (under `no_grad` or `inference_mode`: an evaluation, or a frozen model's "
               "forward, that no backward runs through): on {target} CUDA's autocast is off here and this computes "
               "in fp32, slower, same results; to keep 16 bits there too: {then}",
               "torch.amp autocast (an autocast for another device type is a no-op)")


def _cuda_autocast_state(target, usage: Usage) -> Verdict:
    """``torch.is_autocast_enabled()``, ``torch.get_autocast_gpu_dtype()``: CUDA's autocast, off under the target's
    own (mamba's fused functions then never cast their weights to the autocast dtype); the device-type form asks
    the target's. Where the vendor's runtime patcher puts its own function in place of a ``gpu`` dtype function
    (the target's map renames it: transfer_to_npu on torch_npu 2.13, torch_mlu's gpu_migration), that function is
    a safe rename: it asks the target's autocast, and a branch that ``is_autocast_enabled()`` keeps CUDA's stays
    as dormant as before. There the question gets the target's device as a safe edit too, so the protocol (the
    question and its dtype) is rewritten whole; elsewhere it is an unsafe edit, and the dtype is rewritten by hand."""
    if target.device_to == "cuda":
        return Verdict(Status.SUPPORTED, f"{target.id} runs as the CUDA device: CUDA's autocast is its own",
                       target.device_source)
    rest = usage.snippet.partition("(")[2].rstrip()
    args = rest[:-1].strip() if rest.endswith(")") else ""
    vendor = target.lookup(usage.api)
    if vendor is not None and vendor.to and vendor.exact:
        suggestion = f"{vendor.to}({args})"
        message = (f"`{usage.api}()` asks CUDA's autocast, which is off under {target.id}'s own: use `{suggestion}`, "
                   f"the function the vendor's runtime patcher puts in its place{needs_import(target)}")
        return Verdict(Status.REWRITE, message, vendor.source,
                       fix=fix_of(suggestion, Edit(EditKind.NAME, usage.api, vendor.to), safe=True))
    new = _CUDA_AUTOCAST_STATE[usage.api]
    suggestion = f"{new}('{target.device_to}'" + (f", {args})" if args else ")")
    message = (f"`{usage.api}()` asks CUDA's autocast, which is off under {target.id}'s own "
               f"(`torch.autocast('{target.device_to}')`): ask the device's, `{suggestion}` (torch 2.4 and later)"
               f"{needs_import(target)}")
    edit = Edit(EditKind.ARGUMENT, "", repr(target.device_to)) if new == usage.api else None
    # the question is safe where its dtype has the vendor's function too: the protocol is then rewritten whole
    dtype = target.lookup("torch.get_autocast_gpu_dtype")
    whole = dtype is not None and bool(dtype.to) and dtype.exact
    return Verdict(Status.REWRITE, message, target.device_source, fix=fix_of(suggestion, edit, safe=whole))


def _implicit_cuda(target, device: Value, snippet: str) -> Verdict:
    """``GradScaler()`` means ``GradScaler('cuda')``: pass the target's device explicitly."""
    verdict = device_string_verdict(target, device, snippet)
    if verdict.status != Status.REWRITE or "(" not in snippet:  # a runtime that keeps CUDA names needs nothing
        return verdict
    head, _, rest = snippet.partition("(")
    suggestion = f"{head}('{target.device_to}'" + (", " + rest if rest.strip() != ")" else ")")
    message = (f"{head.strip()}() defaults to device 'cuda': pass '{target.device_to}' on {target.id}"
               f"{needs_import(target)}")
    return Verdict(verdict.status, message, verdict.source,
                   fix=fix_of(suggestion, Edit(EditKind.ARGUMENT, "", repr(target.device_to)), safe=True))
