"""The ``torch-op`` rule."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import FrozenSet, Optional, Tuple

from ...maps.coverage import FORWARD, CallForm, api_coverage, api_ops, argument_paths
from ...model import Category, Status, Usage, UsageKind, ValueKind, Verdict, fix_of
from ...resolve.modules import FUNCTION_VALUE, HANDLED_FAILURE, HOST_INPUT, TENSOR_FACTORIES
from ..base import Claim, Rule, RuleContext, Verdicts, first_arg, per_target, runs_on_a_note
from ..examples import ByRuntime, Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_ATTRIBUTE = UsageKind.ATTRIBUTE
_METHOD = UsageKind.METHOD
_FLOAT = ValueKind.FLOAT
_INT = ValueKind.INT
_TENSOR = ValueKind.TENSOR

_NOT_OPS = ("torch.utils.data", "torch.utils.tensorboard", "torch.distributed", "torch.multiprocessing",
            "torch.testing", "torch.hub", "torch.onnx", "torch.jit", "torch.backends", "torch.no_grad",
            "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.save", "torch.load",
            "torch.manual_seed", "torch.set_num_threads", "torch.device", "torch.Size", "torch.is_tensor",
            "torch.get_default_dtype", "torch.set_default_dtype", "torch.set_printoptions", "torch.typename",
            "torch.Generator", "torch.optim.lr_scheduler", "torch.library", "torch.ops", "torch.autograd.Function",
            "torch.nn.Module", "torch.nn.Parameter", "torch.nn.ModuleList", "torch.nn.ModuleDict",
            "torch.nn.Sequential", "torch.nn.ParameterList", "torch.nn.utils.parametriz",
            "torch.Tensor.item", "torch.Tensor.tolist", "torch.Tensor.numpy", "torch.Tensor.size",
            "torch.Tensor.dim", "torch.Tensor.numel", "torch.Tensor.is_contiguous", "torch.Tensor.register_hook",
            "torch.nn.Module.", "torch.amp", "torch.autocast", "torch.compile", "torch.__version__",
            "torch.npu", "torch.mlu", "torch.xpu")  # another accelerator's own module: a branch for it


class TorchOp(Rule):
    """torch operators, modules and optimizers, judged by the aten ops they run.

    ## What it does
    Finds every other torch API use: functions (`torch.matmul`, `F.gelu`), modules (`nn.Conv2d`), tensor
    methods (`x.masked_fill`) and optimizers (`torch.optim.AdamW`, with its `fused=` / `foreach=` path).
    It looks up the aten ops the API runs, traced from PyTorch's own samples forward and backward, in
    each target's operator map, and refines that with the vendor's API list (documented limits, dtypes).
    A vendor's note on the API is read clause by clause (`maps/limits.py`): a dtype clause bites when
    the project computes in a dtype it leaves out (fp32 always; fp16 / bf16 where the code casts to them,
    autocasts or names them), an argument clause when the call passes that argument, a clause on another
    card never; a note that cannot bite stays in the message, said to be one. A function handed on as a value (a
    parameter's default `lgamma_fn=torch.lgamma`, a returned `torch.lgamma`) is a use too: it is called elsewhere.
    Verdicts: `supported`, `partial` (a documented limit that bites), `fallback` (names the ops that run on the CPU),
    `unsupported` (documented as such), `rewrite` (an integer input where the vendor documents floats
    only) and `unknown` (no data: never guessed).

    ## Why is this bad?
    An op with no device kernel silently runs on the host CPU, copying its tensors there and back: slow,
    not broken. A composite op needs no kernel of its own. This rule is what tells the two apart, op by
    op, with the vendor file each verdict comes from.

    ## Fix safety
    Nothing is applied: a fallback is removed by a vendor kernel or a different op, which is a design
    choice; a documented dtype limit comes with the cast that keeps the call on the device.
    """

    name = "torch-op"
    claim = Claim.OPERATOR
    #: (an attribute only where it is a function handed on to be called: ``FUNCTION_VALUE``)
    kinds = frozenset({UsageKind.CALL, UsageKind.METHOD, UsageKind.ATTRIBUTE})
    category = Category.OP
    summary = "torch operators, modules and optimizers"
    examples = (
        # Ascend's note on `approximate` bites a call that passes it, not one that leaves the default
        Invalid("import torch.nn.functional as F\ny = F.gelu(x, approximate='none')\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.SUPPORTED,
                                 kunlun=Status.SUPPORTED)),
        Invalid("import torch.nn.functional as F\ny = F.gelu(x)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.SUPPORTED,
                                 kunlun=Status.SUPPORTED)),
        # "`input` fp16, fp32 only" bites a project that computes in bf16, not an fp32 one
        Invalid("import torch\nmodel = torch.nn.Linear(4, 4).bfloat16()\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.SUPPORTED,
                                 kunlun=Status.SUPPORTED)),
        Invalid("import torch\nmodel = torch.nn.Linear(4, 4)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.SUPPORTED,
                                 kunlun=Status.SUPPORTED)),
        # Cambricon registers no `round.decimals` (and its list says `decimals` is not supported): a call that
        # passes it takes that overload, and runs on the host CPU there
        Invalid("import torch\ny = torch.round(x, decimals=2)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.FALLBACK,
                                 kunlun=Status.SUPPORTED)),
        # kunlun: PaConvert maps torch.matmul to paddle.matmul, whose one kernel is in Paddle's XPU list
        Invalid("import torch\nz = torch.matmul(a, b)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.SUPPORTED,
                                 kunlun=Status.SUPPORTED)),
        # ... and torch.svd to paddle.linalg.svd, whose kernel is not: Paddle runs it on the CPU
        Invalid("import torch\nu, s, v = torch.svd(a)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.SUPPORTED,
                                 kunlun=Status.FALLBACK)),
        # scvi-tools' negative-binomial loss: the op handed in as a default is what every call of the loss runs
        Invalid("import torch\ndef log_nb(x, theta, lgamma_fn=torch.lgamma):\n    return lgamma_fn(x + theta)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.FALLBACK, neuware=Status.FALLBACK,
                                 kunlun=Status.FALLBACK)),
        # ... an entry of a table runs only where it is chosen: no use of each
        Valid("import torch\nACTIVATIONS = {'lgamma': torch.lgamma, 'relu': torch.relu}\n"),
        Valid("import torch\nwith torch.no_grad():\n    pass\n"),
        # made on the host CPU: a data loader's tensors run no device kernel until they are moved
        Valid("import numpy as np\nimport torch\nbatch = torch.from_numpy(np.zeros(3))\n"
              "labels = torch.tensor([1, 2])\n"),
        Valid("import torch\ntorch.save({}, 'ckpt.pt')\n"),
        # anomalib's PaDiM on MPS and AI-VAD's histograms: the code moves the input to the host for the op
        Invalid("import torch\n\n\ndef fit(cov, theta, mag):\n    inv = torch.linalg.inv(cov.cpu())\n"
                "    return torch.histogram(input=theta.cpu(), bins=8, weight=mag.cpu())\n", expect=Status.SUPPORTED),
        # sentence-transformers' sparsity: the device raises NotImplementedError for CSR, and the handler falls back
        Invalid("import torch\n\n\ndef rows(x):\n    try:\n        return x.to_sparse_csr()\n"
                "    except NotImplementedError:\n        return None\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.SUPPORTED, neuware=Status.SUPPORTED)),
        # a graph convolution's COO adjacency times dense features: the maps hold dense kernels, the call needs
        # sparse ones (a gap on cann; Cambricon's list documents it)
        Invalid("import torch\n\n\ndef propagate(adj, x):\n    return torch.sparse.mm(adj, x)\n",
                expect=ByRuntime(Status.UNKNOWN, neuware=Status.SUPPORTED, kunlun=Status.FALLBACK)),
        # a data loader's worker runs a dataset's item and the collate function on the host CPU
        Valid("import torch\n\n\nclass Images(torch.utils.data.Dataset):\n    def __getitem__(self, i):\n"
              "        return torch.nn.functional.interpolate(self.x[i], scale_factor=2)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or not usage.api.startswith("torch.") \
                or (usage.kind == _ATTRIBUTE and usage.context != FUNCTION_VALUE):
            return None
        if usage.api.startswith(_NOT_OPS) or _on_the_host(usage):
            return None
        path = _ops_path(usage)
        form = _call_form(usage, path)

        cast = first_arg(usage, ("input",), 0)
        integer = cast.text if cast is not None and cast.kind == _TENSOR else None

        def verdict(target) -> Verdict:
            coverage = api_coverage(target, usage.api, path, form)
            if coverage is None:
                return Verdict(Status.UNKNOWN, f"no aten trace and no vendor list entry for `{usage.api}` on "
                               f"{target.id}", "operator maps")
            if integer is not None:
                return _integer_input(target, _documented_as(usage), integer) or coverage.verdict
            return _handled(usage, coverage.verdict)
        return per_target(ctx, verdict)

    def ops(self, usage: Usage, ctx: RuleContext) -> Tuple[str, ...]:
        return api_ops(usage.api, _ops_path(usage))[0]


def _handled(usage: Usage, verdict: Verdict) -> Verdict:
    """An op the target's data does not say runs as the call asks, in a ``try`` whose handler covers its failure
    and goes on (``HANDLED_FAILURE``): where the device raises, the code's own fallback runs; to validate there."""
    if usage.context != HANDLED_FAILURE or verdict.status in (Status.SUPPORTED, Status.UNKNOWN):
        return verdict
    return runs_on_a_note(f"the code catches this op's failure here and goes on with its own fallback (the `except` "
                          f"below it); check on the card which branch runs. The data says: {verdict.message}",
                          verdict.source)


def _on_the_host(usage: Usage) -> bool:
    """A tensor made on the host CPU (``torch.tensor(xs)``, ``torch.zeros(3)``), or an op in the data path a
    ``DataLoader`` runs in its workers before any tensor reaches the device (a dataset's ``__getitem__``, a
    collate function): no device verdict."""
    if _HOST_SCOPE.search(usage.scope) or usage.context == HOST_INPUT:
        return True  # (or its input is moved to the host right there: ``torch.linalg.inv(cov.cpu())``)
    if usage.kind != _CALL or usage.api not in TENSOR_FACTORIES:
        return False
    return usage.api == "torch.from_numpy" or not any(a.keyword == "device" for a in usage.args)


#: A dataset's item and a batch's collation run in the data loader's workers, on the host CPU.
_HOST_SCOPE = re.compile(r"\.__getitem__$|(?:^|\.)\w*collate\w*$")


def _call_form(usage: Usage, path: Optional[str]) -> CallForm:
    """What the call's arguments say of its overload; only keywords that name an overload of its ops are kept
    (``decimals`` for ``round.decimals``), so that calls differing in other keywords share one verdict."""
    overloads = _overload_names(usage.api, path)
    return CallForm(out=any(a.keyword == "out" for a in usage.args),
                    scalar=any(a.keyword is None and a.value.kind in (_INT, _FLOAT) for a in usage.args),
                    keywords=frozenset(a.keyword for a in usage.args if a.keyword in overloads))


@lru_cache(maxsize=None)
def _overload_names(api: str, path: Optional[str]) -> FrozenSet[str]:
    """The overload names of the ops ``api`` runs (``decimals`` of ``aten::round.decimals``): once per API."""
    return frozenset(op.split(".", 1)[1] for op in api_ops(api, path)[0] if "." in op.split("::", 1)[-1])


def _ops_path(usage: Usage) -> Optional[str]:
    """Which of an API's traced op sets a call runs: an optimizer's implementation (``fused=True``,
    ``foreach=False``, else the default); the set an argument the call passes takes (``torch.sparse.mm(a, b,
    reduce="sum")``: CSR's reduction); under ``torch.no_grad()`` (or a function decorated so), the forward
    ops alone: nothing runs backward there."""
    if not usage.api.startswith("torch.optim.") or usage.kind != _CALL:
        return _argument_path(usage) or (FORWARD if usage.no_grad else None)
    flags = {a.keyword: a.value.text for a in usage.args if a.keyword in ("fused", "foreach")}
    if flags.get("fused") == "True":
        return "fused"
    if flags.get("foreach") == "False":
        return "for-loop"
    return None


def _argument_path(usage: Usage) -> Optional[str]:
    """The API's op set named for an argument this call passes (``name@position``, by keyword or at that
    position; ``name@position=value``, with that literal), else ``None``."""
    paths = argument_paths(usage.api)
    if not paths or usage.kind not in (_CALL, _METHOD):
        return None
    positional = [a for a in usage.args if a.keyword is None]
    for path in paths:
        name, _, rest = path.partition("@")
        position, _, value = rest.partition("=")
        index = int(position) - (1 if usage.kind == _METHOD else 0)  # a method's receiver is its argument 0
        arg = next((a for a in usage.args if a.keyword == name), None) or (
            positional[index] if 0 <= index < len(positional) else None)
        if arg is not None and (not value or arg.value.text == value):
            return path
    return None


#: "`input`仅支持bf16，fp16，fp32，fp64": the dtypes a vendor's API list allows for an API's input.
_INPUT_DTYPES = re.compile(r"`?input`?\s*仅支持\s*([a-z0-9，,、 ]+)", re.IGNORECASE)


_SHORT = {"int64": ("int64", "long"), "int32": ("int32", "int"), "int16": ("int16",), "int8": ("int8",),
          "uint8": ("uint8",), "bool": ("bool",)}


#: ``torch.max(a, b)``, ``torch.min(a, b)``: the elementwise form (``aten::maximum``), documented as its own API
_ELEMENTWISE_FORM = {"torch.max": "torch.maximum", "torch.min": "torch.minimum"}


def _documented_as(usage: Usage) -> str:
    """The API whose vendor entry documents this call's form: ``torch.maximum``'s for ``torch.max(a, b)`` (a
    second operand that is no dimension: rl4co's ``torch.max(min_ts, max_ts)`` of int32 times, which Ascend
    documents for ``torch.maximum`` and not for the reduction), else the call's own."""
    twin = _ELEMENTWISE_FORM.get(usage.api)
    if twin is None or usage.kind != _CALL or any(a.keyword in ("dim", "keepdim") for a in usage.args):
        return usage.api
    positional = [a for a in usage.args if a.keyword is None]
    other = positional[1].value if len(positional) == 2 else next(
        (a.value for a in usage.args if a.keyword == "other"), None)
    return twin if other is not None and other.kind not in (_INT, _FLOAT) else usage.api


def _integer_input(target, api: str, dtype: str) -> Optional[Verdict]:
    """An integer tensor passed where the vendor documents float inputs only (``F.interpolate(mask.long())``
    on Ascend): a rewrite, quoting the vendor's list, and the cast that keeps the call on the device."""
    found = target.documented(api)
    if found is None:
        return None
    entry, source = found
    match = _INPUT_DTYPES.search(str(entry.get("limitations") or ""))
    if match is None:
        return None
    allowed = [d.strip() for d in re.split(r"[，,、 ]+", match.group(1)) if d.strip()]
    if any(name in allowed for name in _SHORT.get(dtype, (dtype,))):
        return None
    return Verdict(Status.REWRITE, f"`{api}` is documented on {target.id} for `input` in {', '.join(allowed)} only, "
                   f"and this call passes a tensor of dtype {dtype}: cast it to float for the call and back after",
                   source,
                   fix=fix_of(f"{api.rsplit('.', 1)[-1]}(x.float(), ...).to(x.dtype)"))
