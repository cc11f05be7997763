"""The ``device-call`` rule."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from ...maps.load import TargetMap
from ...model import Category, Evidence, Grade, Manual, Status, Usage, UsageKind, Verdict
from ...resolve.modules import (CHECK_ONLY, DEFAULT_TENSOR_TYPE, IDLE_TEST, LIBRARY_GATE, LOADER_WORKERS,
                                MISSING_MODULE, NVIDIA_FEATURE, PICKS_GPU, PIN_MEMORY, PLACED_BY, REPORTED)
from ...resolve.vocabulary import LiteralRole, Vocabulary
from ..base import (Claim, Rule, RuleContext, Verdicts, is_device_string, needs_import, per_target, placed_by,
                    rename_verdict, runs_on_a_note)
from ..examples import ByRuntime, Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_FLAG_KINDS = frozenset({UsageKind.ASSIGN, UsageKind.ATTRIBUTE})  # a switch set, or read
#: a legacy CUDA tensor type named in a string: ``x.type('torch.cuda.HalfTensor')``,
#: ``torch.set_default_tensor_type('torch.cuda.FloatTensor')``
CUDA_TENSOR_TYPE = re.compile(r"^torch\.cuda\.[A-Z][A-Za-z0-9]*Tensor$")
#: the dtype of each legacy tensor type (torch/__init__.py's ``FloatTensor`` ... ``BoolTensor``)
_TYPE_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64",
                "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool"}


def _is_cuda_api(api: str) -> bool:
    parts = api.split(".")
    return parts[0] == "torch" and any(p in ("cuda", "cudnn") or p.startswith("CUDA") for p in parts[1:])


class DeviceCall(Rule):
    """`torch.cuda` and `torch.backends.cuda` / `cudnn` APIs.

    ## What it does
    Finds calls and attributes of `torch.cuda.*` in every import form (`from torch import cuda`,
    `import torch.cuda as tc`), `torch.backends.cudnn.*` flags, CUDA classes (`torch.cuda.CUDAGraph`,
    `torch.cuda.Stream`) and `x.is_cuda`. Each target's verdict comes from the vendor's own lists:
    Ascend's API docs name the `torch_npu.npu.*` equivalent or say it is unsupported, transfer_to_npu's
    patch tables give module renames, Cambricon's API list and migration tables give the `torch.mlu.*`
    name. A legacy CUDA tensor type counts as written or named in a string (`x.type('torch.cuda.HalfTensor')`,
    `torch.set_default_tensor_type('torch.cuda.FloatTensor')`); where the target's API list says
    `set_default_tensor_type` takes none of its own types (Ascend), the default device is set instead.
    An API that is in no list is `unknown`, never guessed. `torch.backends.cuda.SDPBackend`, torch's
    attention-backend enum re-exported there (the object `torch.nn.attention.SDPBackend` is), is no device API.

    ## Why is this bad?
    `torch.cuda` talks to the CUDA driver, which the targets do not have: calls raise, and
    `torch.cuda.is_available()` returns False, so code guarded by it silently runs on the CPU. A flag
    documented as working (`cudnn.benchmark` on Ascend) is reported as `supported` or `partial`, so the
    report shows it was checked.

    ## Fix safety
    Exact when the vendor documents a one-to-one equivalent and the new name's module is bound in the
    file (`torch.cuda.synchronize()` becomes `torch_npu.npu.synchronize()`, with `import torch_npu` added).
    In `fix`'s portable style (the default) a file whose edits all have a `torch.accelerator` form on the
    target's torch line gets that form instead (`torch.accelerator.synchronize()`, no plugin import:
    `fix/style.py`, `operator_maps/curated/accelerator.yaml`), and runs on CUDA and the CPU as before.
    A rename is a suggestion only (applied with `--unsafe`) when the vendor's note on it can make it
    behave otherwise at this call: `torch_npu.npu.get_device_capability()` returns `None` unless an
    environment variable is set, so `get_device_capability(0)[0]` would raise. A note on an argument the
    call does not pass, and a note judged word for word to describe the CUDA behaviour
    (`curated/rename_semantics.yaml`), keep it safe. A rename from a migration table that carries a note,
    or one whose module the file does not import, is a suggestion only.
    """

    name = "device-call"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL, UsageKind.ATTRIBUTE, UsageKind.ASSIGN, UsageKind.DECORATOR, UsageKind.LITERAL})
    category = Category.DEVICE
    summary = "torch.cuda / torch.backends CUDA APIs"
    vocabulary = Vocabulary(tensor_attributes=frozenset({"is_cuda"}),
                            literals=(LiteralRole("", CUDA_TENSOR_TYPE, fstrings=False),))
    examples = (
        # sgm's attention: torch's attention-backend enum as a table's keys (the same object as
        # torch.nn.attention.SDPBackend), on every build
        Valid("import torch\nBACKENDS = {torch.backends.cuda.SDPBackend.MATH: {'enable_math': True},\n"
              "            torch.backends.cuda.SDPBackend.FLASH_ATTENTION: {'enable_flash': True}}\n"),
        Invalid("import torch\ntorch.cuda.synchronize()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\ntorch.accelerator.synchronize()\n",
                           neuware="import torch\nimport torch_mlu\ntorch.mlu.synchronize()\n")),
        # `torch` is not bound in this file, so `torch.mlu.device_count` would be a NameError: no fix on neuware
        Invalid("from torch import cuda\nn = cuda.device_count()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="from torch import cuda\nimport torch_npu\nn = torch_npu.npu.device_count()\n")),
        Invalid("import torch\ntorch.backends.cudnn.benchmark = True\n",
                expect=ByRuntime(renamed=Status.UNKNOWN, kept=Status.SUPPORTED, cann=Status.SUPPORTED)),
        # both vendors note limits (inference only; no dropout RNN capture...): a suggestion, not a safe fix
        Invalid("import torch\ng = torch.cuda.CUDAGraph()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # no device map names it; each vendor's runtime patcher swaps it for its own (`is_npu`, `is_mlu`): a
        # rewrite by hand (the test it sits in decides what runs; a predicate that returns it answers "not CUDA"
        # for its callers to choose by, and needs nothing)
        Invalid("import torch\ndef f(x):\n    assert x.is_cuda, 'a CUDA tensor'\n    return x\n",
                expect=ByRuntime(renamed=Status.UNKNOWN, kept=Status.SUPPORTED, cann=Status.REWRITE,
                                 neuware=Status.REWRITE)),
        Valid("import torch\nx = torch.ones(2)\ntorch.manual_seed(0)\n"),
        # nerf-pytorch's and yolact's first line: every tensor made after it is a CUDA tensor; Ascend's API list says
        # set_default_tensor_type takes no torch.npu type, so the default device is set instead (a change by hand)
        Invalid("import torch\ntorch.set_default_tensor_type('torch.cuda.FloatTensor')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # a legacy type named in a cast: the target's type, by the name its runtime registers
        Invalid("import torch\n\n\ndef half(x):\n    return x.type('torch.cuda.HalfTensor')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Valid("import torch\nx = torch.zeros(2).type('torch.FloatTensor')\n"),
        # llamafactory's get_torch_device: the fallback where torch has no module of the device's name runs
        # nowhere the target's runtime is installed
        Invalid("import torch\n\n\ndef module(name):\n    try:\n        return getattr(torch, name)\n"
                "    except AttributeError:\n        return torch.cuda\n", expect=Status.SUPPORTED),
        # pytorch-accelerated's and torchreid's loaders: the test only chooses whether batches are pinned
        Invalid("import torch\nfrom torch.utils.data import DataLoader\n\n\ndef loader(ds):\n"
                "    return DataLoader(ds, batch_size=4, pin_memory=torch.cuda.is_available())\n",
                expect=Status.SUPPORTED),
        # a probe of the module is no use of it
        Valid("import torch\nHAS_GENERATORS = hasattr(torch.cuda, 'default_generators')\n"),
        # fairscale's pipe streams: `cast` names a type for the checker and runs nothing
        Valid("from typing import cast\nimport torch\n\n\ndef as_cuda(stream):\n"
              "    return cast(torch.cuda.Stream, stream)\n"),
        # di-engine's examples and many a training script start so: the answer is shown, it decides nothing
        Invalid("import logging\nimport torch\nlogger = logging.getLogger(__name__)\n"
                "print('torch.cuda.is_available(): ', torch.cuda.is_available())\n"
                "logger.info(f'{torch.cuda.device_count()} GPUs')\n", expect=Status.SUPPORTED),
        # flair's language-model trainer: a check that CUDA's batches are on CUDA, skipped where CUDA is not there
        Invalid("import torch\n\n\ndef step(data):\n    if not data.is_cuda and torch.cuda.is_available():\n"
                "        raise Exception('data is not on cuda')\n    return data\n", expect=Status.SUPPORTED),
        # ... but a check that CUDA is there stops the target's run as written
        Invalid("import torch\n\n\ndef main():\n    if not torch.cuda.is_available():\n"
                "        raise RuntimeError('needs a GPU')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
                fixed=dict(cann="import torch\n\n\ndef main():\n    if not torch.accelerator.is_available():\n"
                                "        raise RuntimeError('needs a GPU')\n",
                           neuware="import torch\nimport torch_mlu\n\n\ndef main():\n"
                                   "    if not torch.mlu.is_available():\n"
                                   "        raise RuntimeError('needs a GPU')\n")),
        # lightly's CLI and neuralforecast's models: the test picks Lightning's "gpu", which names CUDA to it; the
        # renamed test would hand Lightning "gpu" on the target: a change by hand, no fix
        Invalid("import torch\nimport lightning.pytorch as pl\n\n\ndef trainer():\n"
                "    accelerator = 'gpu' if torch.cuda.is_available() else 'cpu'\n"
                "    return pl.Trainer(accelerator=accelerator)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Valid("import cuda_helpers\ncuda_helpers.synchronize()\n", files={"cuda_helpers.py": "def synchronize():\n    "
                                                                                             "pass\n"}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        if not _is_cuda_api(usage.api) and usage.api != "torch.Tensor.is_cuda":
            return None
        if ".amp." in usage.api or "nccl" in usage.api.lower() or usage.api == "torch.version.cuda":
            return None  # AMP's, the backend's, and the torch build's (``version-cuda``) rules judge those
        if usage.context == REPORTED and usage.api in SAFE_QUERIES:
            return per_target(ctx, lambda t: _only_reported(t, usage))
        if usage.context == PICKS_GPU and usage.api in SAFE_QUERIES:
            return per_target(ctx, lambda t: _picks_gpu(t, usage))
        if usage.context == CHECK_ONLY:
            return per_target(ctx, lambda t: _skipped_check(t, usage))
        if usage.api == SDP_BACKENDS or usage.api.startswith(SDP_BACKENDS + "."):
            return None  # a name of torch's attention-backend enum: the call that takes it is judged where made
        if usage.api == "torch.cuda.is_available":
            return per_target(ctx, lambda t: _is_available(t, usage, ctx))
        if usage.api in NO_OP_WITHOUT_CUDA and usage.kind == _CALL \
                and not (usage.args and _names_cuda(usage)):
            return per_target(ctx, lambda t: _runs_as_a_no_op(t, usage))
        if (usage.api in SPEED_SWITCHES and usage.kind in _FLAG_KINDS) or usage.api in ATTENTION_SWITCHES:
            return per_target(ctx, lambda t: _a_speed_switch(t, usage))
        if usage.context == MISSING_MODULE:
            return per_target(ctx, lambda t: _where_torch_lacks_the_module(t, usage))
        if usage.context == DEFAULT_TENSOR_TYPE:
            return per_target(ctx, lambda t: _default_tensor_type(t, usage))
        if (usage.context or "").startswith(PLACED_BY):
            return per_target(ctx, lambda t: placed_by(t, usage, rename_verdict(t, usage)))
        return per_target(ctx, lambda t: rename_verdict(t, usage))


#: CUDA's switches: plain attributes of ``torch.backends`` that every torch build has (torch/backends/cuda and
#: cudnn), read and set without a CUDA device (measured on torch 2.13's CPU build); they trade precision, warm-up
#: or determinism for speed on CUDA only, or turn cuDNN itself on (its default) or off.
SPEED_SWITCHES = frozenset({"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32",
                            "torch.backends.cudnn.benchmark", "torch.backends.cudnn.enabled",
                            "torch.backends.cudnn.deterministic",
                            "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
                            "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction"})
#: CUDA's attention-backend switches: Python that sets torch's SDPA backend flags (torch/backends/cuda/__init__.py
#: ``sdp_kernel`` -> ``torch.nn.attention.sdpa_kernel``; ``enable_*_sdp`` -> ``torch._C._set_sdp_use_*``), on every
#: build and without a device; what the target's attention reads is its vendor's to say (Cambricon documents
#: ``torch.backends.mlu``'s twins; Ascend lists the CUDA ones as not supported).
ATTENTION_SWITCHES = frozenset({"torch.backends.cuda.sdp_kernel", "torch.backends.cuda.enable_flash_sdp",
                                "torch.backends.cuda.enable_mem_efficient_sdp", "torch.backends.cuda.enable_math_sdp",
                                "torch.backends.cuda.enable_cudnn_sdp"})
_SWITCH_SOURCE = "torch/backends/cuda/__init__.py, torch/backends/cudnn/__init__.py (plain flags on every build)"
#: the enum of torch's attention backends, re-exported under ``torch.backends.cuda``: ``from torch._C import
#: _SDPBackend as SDPBackend`` (torch/backends/cuda/__init__.py), the very object ``torch.nn.attention.SDPBackend``
#: is (measured on torch 2.13's CPU build): a name, on every build, that selects nothing by being read
SDP_BACKENDS = "torch.backends.cuda.SDPBackend"


def _a_speed_switch(target, usage: Usage) -> Verdict:
    """``torch.backends.cuda.matmul.allow_tf32 = True``: on a target with its own device the flag is set without
    error and training runs; the target's own switch, where its data names one, is advice for speed, which the
    ``tune-cuda-switch`` finding gives."""
    return _as_written(target, usage, _SWITCH_SOURCE,
                       f"`{usage.api}` is a plain flag every torch build has: on {target.id} it is set without error "
                       f"and training runs; whether {target.id}'s own kernels read it is not in the data; its "
                       "documented switch, for the same choice there")


#: CUDA calls that return at once where CUDA was never initialised (torch/cuda/memory.py: ``empty_cache`` acts only
#: ``if is_initialized()``, ``memory_stats`` returns ``{}`` ``if not is_initialized()`` before it reads its device
#: argument, and the counters read it): measured on torch 2.13 without a CUDA device, each returns (``None``, ``0``,
#: ``{}``) and raises nothing, with no argument, a device index, or any device (``"xpu:0"``, ``torch.device("cpu")``).
NO_OP_WITHOUT_CUDA = frozenset({"torch.cuda.empty_cache", "torch.cuda.memory_stats", "torch.cuda.memory_allocated",
                                "torch.cuda.memory_reserved", "torch.cuda.max_memory_allocated",
                                "torch.cuda.max_memory_reserved", "torch.cuda.memory_cached",
                                "torch.cuda.max_memory_cached"})
_NO_OP_SOURCE = "torch/cuda/memory.py (a no-op, or 0, before CUDA is initialised)"


def _names_cuda(usage: Usage) -> bool:
    """Whether a call's arguments are written with CUDA's name in them (``memory_allocated('cuda:%d' % rank)``,
    ``f"cuda:{rank}"``): renamed with the call, one protocol. Read on the call's text, past the API's own name
    (an argument's value is kept only where it is a plain string)."""
    return any(is_device_string(arg.value.text) for arg in usage.args) \
        or "cuda" in usage.snippet.replace("torch.cuda.", "").partition("(")[2]


def device_twin(target: TargetMap, api: str) -> Optional[str]:
    """The vendor's same-named call for a no-op-without-CUDA ``api`` (``torch.cuda.empty_cache`` ->
    ``torch_npu.npu.empty_cache``), where the target's list documents it with no note: what ``fix`` writes for
    it in a file it gives the vendor's names (there the call flushes or measures the target's device, as it did
    CUDA's), and what the plan predicts leaves the report then."""
    if api not in NO_OP_WITHOUT_CUDA:
        return None
    rule = target.lookup(api)
    if rule is None or not rule.to or not rule.exact or rule.note or rule.limitations \
            or rule.to.rsplit(".", 1)[-1] != api.rsplit(".", 1)[-1]:
        return None
    return rule.to


def _runs_as_a_no_op(target, usage: Usage) -> Verdict:
    """A cache flush or a memory counter where the target runs: it returns at once without CUDA (``None``, ``0``)
    whatever device it is handed (axolotl's ``memory_allocated(self._device)`` for a log line), so the run goes on
    as written: ``supported``, on a note that its device twin would flush or measure the target's device (the log
    reads 0 GB). ``fix`` and the plan leave it. One that names a CUDA device (``memory_allocated(f"cuda:{rank}")``)
    is renamed with the string inside it, one protocol."""
    return _as_written(target, usage, _NO_OP_SOURCE,
                       f"`{usage.api}` returns at once where CUDA is not initialised (on {target.id}): the run goes "
                       "on as written; to flush or measure the device")


def _default_tensor_type(target: TargetMap, usage: Usage) -> Verdict:
    """``torch.set_default_tensor_type(torch.cuda.FloatTensor)``: the renamed type, unless the target's API list
    says ``set_default_tensor_type`` does not take its device's types (Ascend: "不支持传入`torch.npu.DtypeTensor`
    类型"); there the device and the dtype are set apart (``torch.set_default_device``, torch >= 2.0)."""
    verdict = rename_verdict(target, usage)
    entry = target.documented("torch.set_default_tensor_type")
    note = str(entry[0].get("limitations") or "") if entry else ""
    if verdict.status != Status.REWRITE or f"torch.{target.device_to}." not in note:
        return verdict
    kind = usage.api.rsplit(".", 1)[-1][:-len("Tensor")]
    dtype = _TYPE_DTYPES.get(kind)
    instead = f"torch.set_default_device('{target.device_to}')" + (
        f"; torch.set_default_dtype(torch.{dtype})" if dtype and dtype != "float32" else "")
    return Verdict(Status.REWRITE, f"{target.id} does not take its own device's tensor types here (vendor notes on "
                   f"`torch.set_default_tensor_type`: {note}): set the default device instead, `{instead}`"
                   f"{needs_import(target)}; the legacy constructors (`torch.Tensor(...)`, `torch.FloatTensor(...)`) "
                   f"ignore the default device and keep making host tensors (measured on torch 2.13): make those "
                   f"with `torch.tensor(...)`", entry[1] if entry else verdict.source, fix=Manual(instead),
                   quotes=(note,))


def _as_written(target, usage: Usage, source: str, why: str) -> Verdict:
    """The call's rename verdict, unless it is a rewrite (or, for a switch, documented unsupported: a flag set
    and unread breaks nothing either way): then it runs as written, on a note that says ``why`` and ends with what
    the data says of its twin."""
    verdict = rename_verdict(target, usage)
    unread = verdict.status == Status.UNSUPPORTED and usage.api in ATTENTION_SWITCHES
    if verdict.status != Status.REWRITE and not unread:
        return verdict
    return runs_on_a_note(f"{why}: {verdict.message}", source)


_IDLE_SOURCE = "migrator guard analysis"


def _where_torch_lacks_the_module(target, usage: Usage) -> Verdict:
    """``except AttributeError: return torch.cuda`` after ``getattr(torch, device_name)``: the handler runs only
    where torch has no module of the device's name; the target's runtime adds its own (``torch.npu``)."""
    verdict = rename_verdict(target, usage)
    if verdict.status != Status.REWRITE:
        return verdict
    return Verdict(Status.SUPPORTED, f"in the fallback for a torch with no module of the device's name, after "
                   f"`getattr(torch, ...)`: on {target.id} the device's own module is there, so this line does not "
                   "run", _IDLE_SOURCE)
_GATE_SOURCE = "migrator guard analysis; third_party.json (the library is CUDA-bound)"


#: CUDA's questions that answer without CUDA (False, 0) instead of raising, as torch's CPU build does
SAFE_QUERIES = frozenset({"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.is_initialized"})


def _only_reported(target: TargetMap, usage: Usage) -> Verdict:
    """A question whose answer is only printed or logged: on a target that renames the device it reads False
    (0) there, which the log then shows, and nothing the run does depends on it."""
    verdict = rename_verdict(target, usage)
    if verdict.status != Status.REWRITE:
        return verdict
    why = (f"its answer is only printed or logged: on {target.id} it reads as on a machine without CUDA, and "
           "nothing the run does depends on it; to show the device instead: " + verdict.message)
    return Verdict(Status.SUPPORTED, why, _IDLE_SOURCE, evidence=(Evidence(Grade.PROOF, _IDLE_SOURCE, why),))


def _skipped_check(target, usage: Usage) -> Verdict:
    """A CUDA question in the test of a check (``CHECK_ONLY``: ``if not data.is_cuda and cuda.is_available():
    raise``): where the target has its own device, the test is False as written, whatever the data says of the
    question's twin, and the run goes on without the check."""
    verdict = rename_verdict(target, usage)
    if verdict.status == Status.SUPPORTED:
        return verdict
    return runs_on_a_note(f"this test guards only a check (its body raises, asserts or warns, with no other way) and "
                          f"asks whether CUDA is there: as written that is False on {target.id}, so the check is "
                          f"skipped there and the run goes on; to keep the check on {target.id}: {verdict.message}",
                          _IDLE_SOURCE)


def _picks_gpu(target, usage: Usage) -> Verdict:
    """A CUDA question whose answer picks a framework's ``"gpu"`` (``PICKS_GPU``): as written the target gets the
    CPU; renamed alone, the framework gets ``"gpu"``, which names NVIDIA's devices to it. One change, made by hand:
    the target's own accelerator where the test picks ``"gpu"``, and the target's question."""
    verdict = rename_verdict(target, usage)
    if verdict.status != Status.REWRITE:
        return verdict
    message = (f"this test picks the string 'gpu', a framework's name for an NVIDIA GPU (Lightning resolves "
               f"accelerator='gpu' to CUDA or MPS only; Ray's 'gpu' resources count NVIDIA devices): as written it is "
               f"False on {target.id} and the framework gets the CPU; renamed alone it would hand the framework "
               f"'gpu', which fails there. Where it picks 'gpu', pick {target.id}'s accelerator (the vendor's "
               f"Lightning integration, a custom `Accelerator`, the device's resource name), and ask: "
               f"{verdict.message}")
    return replace(verdict, message=message, fix=Manual(verdict.fix.suggestion) if verdict.fix else None)


def _is_available(target, usage: Usage, ctx: RuleContext) -> Verdict:
    verdict = rename_verdict(target, usage)  # a runtime that keeps CUDA names answers True as written
    library = ctx.third_party.library_named(usage.context[len(LIBRARY_GATE):]) \
        if usage.context is not None and usage.context.startswith(LIBRARY_GATE) else None
    if verdict.status == Status.REWRITE and library is not None and not ctx.third_party.serves(library, target.id):
        what = ctx.third_party.libraries[library]["what"]
        quote = (f"this test lets only CUDA into {library} ({what}): as written it returns False on {target.id}, "
                 f"which takes the code's way without {library}, as a machine without CUDA does; asking for "
                 f"{target.id} here would send it into {library}, for which the vendor data names no {target.id} "
                 "path. Keep the test; to offer the feature there, port the uses it guards first")
        return runs_on_a_note(quote, _GATE_SOURCE)
    if verdict.status == Status.REWRITE and usage.context == NVIDIA_FEATURE:
        quote = (f"this test asks for an NVIDIA feature (a compute capability, a CUDA build): as written it is False "
                 f"on {target.id}, which takes the way a GPU without the feature takes; where {target.id} has its "
                 f"own form of what it gates (bf16, fused attention), ask for that instead: {verdict.message}")
        return runs_on_a_note(quote, _IDLE_SOURCE)
    if verdict.status == Status.REWRITE and usage.context == PIN_MEMORY:
        quote = (f"it only says whether the loader pins host memory: as written False on {target.id}, so batches are "
                 f"copied from pageable memory (slower, and training runs); to pin there: {verdict.message}")
        return runs_on_a_note(quote, _IDLE_SOURCE)
    if verdict.status == Status.REWRITE and usage.context == LOADER_WORKERS:
        quote = (f"it only sizes a data loader's workers: as written False on {target.id}, so the loader takes the "
                 f"count written for a machine without CUDA (a question of speed; training runs); to size it by "
                 f"{target.id}'s devices: {verdict.message}")
        return runs_on_a_note(quote, _IDLE_SOURCE)
    if verdict.status == Status.REWRITE and usage.context == IDLE_TEST:
        quote = (f"as written it returns False on {target.id}, and the branches its test decides between do no "
                 f"device work (no placement, device or backend choice, 16-bit cast, wrapper or exit): the run on "
                 f"{target.id} takes the way a machine without CUDA takes; to ask for the device: {verdict.message}")
        return runs_on_a_note(quote, _IDLE_SOURCE)
    if verdict.status == Status.REWRITE:
        return replace(verdict, message=verdict.message + f"; as written it returns False on {target.id}, so code "
                       "guarded by it silently runs on the CPU")
    return verdict
