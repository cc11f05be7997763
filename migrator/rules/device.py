"""Device placement: ``.cuda()``, ``.to('cuda')``, ``device=`` arguments, ``torch.cuda.*`` and backend flags."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..model import Category, Status, Usage, Verdict
from .examples import Invalid, Valid
from ..resolve.vocabulary import LiteralRole, Vocabulary
from .base import (DEVICE_STRING, Rule, RuleContext, Verdicts, cuda_device_in, device_string_verdict, per_target,
                   rename_verdict, where, with_role)

DEVICE_KEYWORDS = ("device", "device_type", "map_location", "device_id", "pin_memory_device", "device_types")
_AMP_APIS = ("torch.autocast", "torch.amp.", "torch.cuda.amp.", "torch.cpu.amp.")


def _is_cuda_api(api: str) -> bool:
    parts = api.split(".")
    return parts[0] == "torch" and any(p in ("cuda", "cudnn") or p.startswith("CUDA") for p in parts[1:])


class DeviceMove(Rule):
    """Moving tensors or modules to the CUDA device.

    ## What it does
    Finds `x.cuda()` and `model.cuda()`, and `.to(...)`, `.to_empty(device=...)`, `.pin_memory(...)` and
    `.new_*(device=...)` given a CUDA device: a string, an f-string, a `torch.device`, or a name set to one
    in this file or another module of the repo. A device that only arrives as a parameter (`x.to(device)`)
    is not reported here; its default is, where it is written.

    ## Why is this bad?
    The targets call their device `npu` (Ascend) or `mlu` (Cambricon): `.cuda()` raises there unless a
    runtime patcher (`transfer_to_npu`) is imported first. Kunlunxin's torch_xmlir presents itself as
    `torch.cuda`, so the line runs as written there.

    ## Fix safety
    Exact and safe: `.cuda(...)` becomes the method the vendor's table names (`.npu(...)`, `.mlu(...)`) with
    the arguments kept, and a device string is rewritten where it is written, in the call or at the
    constant it came through. `fix` adds the plugin import (`import torch_npu`) when the file lacks it.
    """

    name = "device-move"
    priority = 160
    kinds = frozenset({"method"})
    category = Category.DEVICE
    summary = "moving tensors or modules to the CUDA device"
    vocabulary = Vocabulary(methods=frozenset({"cuda", "to"}))
    examples = (
        Invalid("import torch\nx = torch.ones(2).cuda()\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.ones(2).npu()\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.ones(2).mlu()\n")),
        Invalid("import torch\nDEVICE = torch.device('cuda', 0)\ndef f(x):\n    return x.to(DEVICE)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nDEVICE = torch.device('npu', 0)\n"
                                "def f(x):\n    return x.to(DEVICE)\n",
                           neuware="import torch\nimport torch_mlu\nDEVICE = torch.device('mlu', 0)\n"
                                   "def f(x):\n    return x.to(DEVICE)\n")),
        Invalid("import torch\nx = torch.ones(2)\nx = x.to('cuda:1', non_blocking=True)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.ones(2)\nx = x.to('npu:1', "
                                "non_blocking=True)\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.ones(2)\n"
                                   "x = x.to('mlu:1', non_blocking=True)\n")),
        Valid("import torch\nx = torch.ones(2)\nx = x.to('cpu')\n"),
        Valid("import torch\ndef f(x, device):\n    return x.to(device)\n"),
        Valid("import torch\ndef f(x, device='cuda'):\n    return x.to(device)\n"),
        Valid("import torch\nclass Cfg:\n    def to(self, d): pass\nc = Cfg()\nc.to('cuda')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        method = usage.api.rsplit(".", 1)[-1]
        if method == "cuda":
            return per_target(ctx, lambda t: rename_verdict(t, usage, usage.api))
        if method not in ("to", "to_empty", "pin_memory", "new_tensor", "new_zeros", "new_ones", "new_empty",
                          "new_full"):
            return None
        for arg in usage.args:
            if method == "to" or arg.keyword == "device" or (arg.keyword is None and method == "pin_memory"):
                device = cuda_device_in(arg.value, ctx.project)
                if device is not None:
                    return per_target(ctx, lambda t: device_string_verdict(t, device, usage.snippet))
        return None


class DeviceArgument(Rule):
    """A CUDA device passed as an argument to any call.

    ## What it does
    Finds a CUDA device given to a call's `device=`, `device_type=`, `map_location=`, `device_id=` or
    `pin_memory_device=` argument, or as the first argument of `torch.device`, `torch.set_default_device`
    and `torch.cuda.device`: `torch.zeros(3, device='cuda')`, `torch.load(path, map_location='cuda:0')`,
    `torch.device('cuda', rank)`, `torch.device(f'cuda:{rank}')`, and the repo's own functions called
    with `device='cuda'`. Autocast and GradScaler devices belong to `amp-device`.

    ## Why is this bad?
    There is no `cuda` device on Ascend or Cambricon: the call raises (`torch.load` fails while mapping
    the storages). Kunlunxin's torch_xmlir presents itself as `torch.cuda`, so the string works there.

    ## Fix safety
    Exact where the string is written in the call or at the constant it came through: `cuda` becomes the
    target's device (`npu`, `mlu`) and any index or f-string field is kept. A device imported from another
    module is reported at the call and rewritten in that module, where the string is written.
    """

    name = "device-argument"
    call_stays = True
    priority = 170
    kinds = frozenset({"call", "decorator"})
    category = Category.DEVICE
    summary = "a CUDA device string or torch.device passed as an argument"
    examples = (
        Invalid("import torch\nx = torch.zeros(3, device='cuda')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.zeros(3, device='npu')\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.zeros(3, device='mlu')\n")),
        Invalid("import torch as T\nstate = T.load('m.pt', map_location='cuda:0')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch as T\nimport torch_npu\nstate = T.load('m.pt', map_location='npu:0')\n",
                           neuware="import torch as T\nimport torch_mlu\n"
                                   "state = T.load('m.pt', map_location='mlu:0')\n")),
        Invalid("import torch\nrank = 0\ndev = torch.device('cuda', rank)\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nrank = 0\ndev = torch.device('npu', rank)\n",
                           neuware="import torch\nimport torch_mlu\nrank = 0\ndev = torch.device('mlu', rank)\n")),
        Invalid("import torch\ndef place(rank):\n    return torch.device(f'cuda:{rank}')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\ndef place(rank):\n"
                                "    return torch.device(f'npu:{rank}')\n",
                           neuware="import torch\nimport torch_mlu\ndef place(rank):\n"
                                   "    return torch.device(f'mlu:{rank}')\n")),
        # the device comes from another module: reported here, rewritten there (where device-string reports it)
        Invalid("import torch\nfrom config import DEVICE\nx = torch.zeros(3, device=DEVICE)\n",
                files={"config.py": "DEVICE = 'cuda:0'\n"},
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED)),
        Valid("import torch\nx = torch.zeros(3, device='cpu')\n"),
        # the device built in the call: reported (and rewritten) once, at torch.device('cuda')
        Invalid("import torch\nx = torch.zeros(3, device=torch.device('cuda'))\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nx = torch.zeros(3, device=torch.device('npu'))\n",
                           neuware="import torch\nimport torch_mlu\nx = torch.zeros(3, device=torch.device('mlu'))\n")),
        Valid("import torch\nprint('running on cuda')\n"),
        Valid("import torch\ncuda = torch.zeros(3, device='meta')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api.startswith(_AMP_APIS):
            return None
        for arg in usage.args:
            positional_device = arg.keyword is None and usage.api in ("torch.device", "torch.set_default_device",
                                                                      "torch.cuda.device")
            if arg.keyword in DEVICE_KEYWORDS or positional_device:
                if arg.value.kind == "device" and arg.value.via is None:
                    continue  # ``device=torch.device('cuda')``: the inner call is the finding, one cause once
                device = cuda_device_in(arg.value, ctx.project)
                if device is not None:
                    return per_target(ctx, lambda t: device_string_verdict(t, device, usage.snippet))
        return None


class DeviceString(Rule):
    """A CUDA device string in code, outside a call's device argument.

    ## What it does
    Finds `"cuda"` and `"cuda:N"` written as a constant (`DEVICE = "cuda"`), a default (an argparse
    `default=`, a parameter default), or compared with a device (`x.device.type == "cuda"`). Only exact
    device strings count: `"cuda"` inside a log message, a docstring or a name like `NCCL_TIMEOUT` is not
    a device.

    ## Why is this bad?
    The constant becomes a device later, and fails there on Ascend and Cambricon. A comparison fails
    silently: `x.device.type == "cuda"` is False on an `npu` tensor, so the CUDA branch is skipped and
    the code takes its CPU path without an error.

    ## Fix safety
    Safe where the string has a known role (an assignment, a default, a comparison): `cuda` becomes the
    target's device. A bare `"cuda"` with no known role (a dict key, a list item) may be looked up
    elsewhere by that spelling, so `fix` rewrites it only with `--unsafe`.
    """

    name = "device-string"
    priority = 180
    kinds = frozenset({"literal"})
    category = Category.DEVICE
    summary = "a CUDA device string in code"
    vocabulary = Vocabulary(literals=(LiteralRole("torch.device", DEVICE_STRING),))
    examples = (
        Invalid("import torch\nDEVICE = 'cuda'\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\nDEVICE = 'npu'\n",
                           neuware="import torch\nimport torch_mlu\nDEVICE = 'mlu'\n")),
        Invalid("import torch\ndef f(x):\n    if x.device.type == 'cuda':\n        return 1\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\ndef f(x):\n    if x.device.type == 'npu':\n"
                                "        return 1\n",
                           neuware="import torch\nimport torch_mlu\ndef f(x):\n    if x.device.type == 'mlu':\n"
                                   "        return 1\n")),
        Invalid("import argparse\np = argparse.ArgumentParser()\np.add_argument('--device', default='cuda:0')\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch_npu\nimport argparse\np = argparse.ArgumentParser()\n"
                                "p.add_argument('--device', default='npu:0')\n",
                           neuware="import torch_mlu\nimport argparse\np = argparse.ArgumentParser()\n"
                                   "p.add_argument('--device', default='mlu:0')\n")),
        Invalid("import torch\nDEVICES = ['cpu', 'cuda']\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED)),
        Valid("import torch\n'''Runs on cuda when available.'''\nx = 1\n"),
        Valid("import logging\nlogging.info('moving the model to cuda')\n"),
        Valid("NCCL_TIMEOUT = 30\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api != "torch.device":
            return None
        value = usage.args[0].value
        verdicts = with_role(per_target(ctx, lambda t: device_string_verdict(t, value, usage.snippet)), usage)
        if usage.context in (None, "expression"):
            # a bare "cuda" with no known role (a dict key, a list item): rewriting it could change what code
            # elsewhere looks up, so `fix` applies it only with --unsafe
            verdicts = {k: replace(v, fixable=False) for k, v in verdicts.items()}
        return verdicts


class DeviceCall(Rule):
    """`torch.cuda` and `torch.backends.cuda` / `cudnn` APIs.

    ## What it does
    Finds calls and attributes of `torch.cuda.*` in every import form (`from torch import cuda`,
    `import torch.cuda as tc`), `torch.backends.cudnn.*` flags, CUDA classes (`torch.cuda.CUDAGraph`,
    `torch.cuda.Stream`) and `x.is_cuda`. Each target's verdict comes from the vendor's own lists:
    Ascend's API docs name the `torch_npu.npu.*` equivalent or say it is unsupported, transfer_to_npu's
    patch tables give module renames, Cambricon's API list and migration tables give the `torch.mlu.*`
    name. An API that is in no list is `unknown`, never guessed.

    ## Why is this bad?
    `torch.cuda` talks to the CUDA driver, which the targets do not have: calls raise, and
    `torch.cuda.is_available()` returns False, so code guarded by it silently runs on the CPU. A flag
    documented as working (`cudnn.benchmark` on Ascend) is reported as `supported` or `partial`, so the
    report shows it was checked.

    ## Fix safety
    Exact when the vendor documents a one-to-one equivalent and the new name's module is bound in the
    file (`torch.cuda.synchronize()` becomes `torch_npu.npu.synchronize()`, with `import torch_npu` added).
    A rename is a suggestion only (applied with `--unsafe`) when the vendor's note on it can make it
    behave otherwise at this call: `torch_npu.npu.get_device_capability()` returns `None` unless an
    environment variable is set, so `get_device_capability(0)[0]` would raise. A note on an argument the
    call does not pass, and a note judged word for word to describe the CUDA behaviour
    (`curated/rename_semantics.yaml`), keep it safe. A rename from a migration table that carries a note,
    or one whose module the file does not import, is a suggestion only.
    """

    name = "device-call"
    priority = 190
    kinds = frozenset({"call", "attribute", "assign", "decorator"})
    category = Category.DEVICE
    summary = "torch.cuda / torch.backends CUDA APIs"
    vocabulary = Vocabulary(tensor_attributes=frozenset({"is_cuda"}))
    examples = (
        Invalid("import torch\ntorch.cuda.synchronize()\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="import torch\nimport torch_npu\ntorch_npu.npu.synchronize()\n",
                           neuware="import torch\nimport torch_mlu\ntorch.mlu.synchronize()\n")),
        # `torch` is not bound in this file, so `torch.mlu.device_count` would be a NameError: no fix on neuware
        Invalid("from torch import cuda\nn = cuda.device_count()\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED),
                fixed=dict(cann="from torch import cuda\nimport torch_npu\nn = torch_npu.npu.device_count()\n")),
        Invalid("import torch\ntorch.backends.cudnn.benchmark = True\n",
                expect=dict(cann=Status.SUPPORTED, neuware=Status.UNKNOWN, kunlun=Status.SUPPORTED)),
        # both vendors note limits (inference only; no dropout RNN capture...): a suggestion, not a safe fix
        Invalid("import torch\ng = torch.cuda.CUDAGraph()\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.SUPPORTED)),
        Invalid("import torch\ndef f(x):\n    return x.is_cuda\n",
                expect=dict(cann=Status.UNKNOWN, neuware=Status.UNKNOWN, kunlun=Status.SUPPORTED)),
        Valid("import torch\nx = torch.ones(2)\ntorch.manual_seed(0)\n"),
        Valid("import cuda_helpers\ncuda_helpers.synchronize()\n", files={"cuda_helpers.py": "def synchronize():\n    "
                                                                                             "pass\n"}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        if not _is_cuda_api(usage.api) and usage.api != "torch.Tensor.is_cuda":
            return None
        if ".amp." in usage.api or "nccl" in usage.api.lower():
            return None
        if usage.api == "torch.cuda.is_available":
            return per_target(ctx, lambda t: _is_available(t, usage))
        return per_target(ctx, lambda t: rename_verdict(t, usage))


def _is_available(target, usage: Usage) -> Verdict:
    verdict = rename_verdict(target, usage)  # a runtime that keeps CUDA names answers True as written
    if verdict.status == Status.REWRITE:
        return replace(verdict, message=verdict.message + f"; as written it returns False on {target.id}, so code "
                       "guarded by it silently runs on the CPU")
    return verdict


__all__ = ["DeviceMove", "DeviceArgument", "DeviceString", "DeviceCall", "where"]
