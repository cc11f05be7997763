"""CUDA-only libraries (apex, flash-attn, xformers, bitsandbytes, TransformerEngine, triton, NVML ...)
and ``torch.compile``.

A replacement is offered only where ``operator_maps/third_party.json`` names one for the target (each
row checked against the vendor file it cites); otherwise the library needs a port. An import guarded by
``try/except ImportError`` is optional: the code's own fallback runs on the target.
"""


from __future__ import annotations

from typing import Optional

from ...maps.load import device_tools
from ...model import Status, Usage, UsageKind, Verdict, fix_of
from ...resolve.modules import OBJECT_OF, TYPE_CHECK
from ..base import RuleContext, runs_on_a_note
from .plain import imports_plain, plain_use, plain_verdict

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_IMPORT = UsageKind.IMPORT
_REQUIREMENT = UsageKind.REQUIREMENT

_SOURCE = "third_party.json (curated, checked against vendor data)"
#: the source of a use that only handles the library's objects (a type check, code run only on an object a caller
#: hands in): ``project/plain_imports`` reads the import of a file whose every use is such as no work
HANDLES_ONLY = "migrator call analysis (the library's objects handed in)"


def library_verdict(target, usage: Usage, ctx: RuleContext, library: str) -> Verdict:
    info = ctx.third_party.libraries[library]
    if usage.context == TYPE_CHECK:  # ``isinstance(module, bnb.nn.Linear8bitLt)``
        return Verdict(Status.SUPPORTED, f"a type check against a {library} class: no object on {target.id} is one, "
                       f"so the check is False and the code's other path runs; it needs nothing but the {library} "
                       "import it names (judged at the import)", HANDLES_ONLY)
    if usage.context is not None and usage.context.startswith(OBJECT_OF):  # ``if isinstance(x, SparseTensor):``
        handed_in = usage.context[len(OBJECT_OF):]
        return runs_on_a_note(f"runs only on a `{handed_in.rsplit('.', 1)[-1]}` a caller hands in (the code tests for "
                              f"one, or takes one as its annotated parameter): where the project makes none, its "
                              f"other path runs and no {library} kernel is needed on {target.id}; where it does, "
                              "that making is the work", HANDLES_ONLY)
    if usage.kind == _IMPORT and usage.guarded:
        return Verdict(Status.SUPPORTED, f"optional import of {library} (guarded by try/except ImportError): "
                       "the code's fallback path runs where it is missing", _SOURCE)
    if usage.guarded and usage.kind != _REQUIREMENT:
        faster = ctx.third_party.replacement(usage.api, target.id)  # still worth knowing: the fallback may be slower
        hint = f"; the vendor's own path, if the fallback is too slow: `{faster[1]['to']}`" if faster else ""
        return Verdict(Status.SUPPORTED, f"a use of {library}, imported optionally (try/except ImportError): it "
                       f"runs only where the import worked; on {target.id} the code's fallback runs instead{hint}",
                       _SOURCE,
                       fix=fix_of(faster[1]["to"] if faster else None))
    if usage.kind == _REQUIREMENT and ctx.third_party.has_replacement(library, target.id):
        return Verdict(Status.REWRITE, f"{info['what']}: the data names a {target.id} or plain-PyTorch replacement "
                       f"for some of its APIs; drop the requirement once every use in the code is replaced (a use "
                       f"the code findings still mark `port` keeps it needed)", _SOURCE,
                       fix=fix_of(f"remove the {library} requirement once its uses are replaced"))
    if usage.api == f"{library}.__version__":  # unsloth's ``Version(triton.__version__) >= Version("3.0.0")``
        return Verdict(Status.SUPPORTED, f"a read of {library}'s version: no kernel runs; the {library} import it "
                       "needs is judged at the import", _SOURCE)
    member = plain_use(usage, ctx.third_party, ctx.project)
    if member is not None:  # the library's own source computes it in torch operators
        return plain_verdict(target.id, member, library)
    if usage.kind == _IMPORT and (imported := imports_plain(usage, ctx.third_party, target.id)) is not None:
        return imported
    found = ctx.third_party.replacement(usage.api, target.id)
    if found is not None:
        matched, row = found
        status = Status(row["status"])
        return Verdict(status, f"{info['what']}: use `{row['to']}` on {target.id}; {row['note']}",
                       f"{row['source']} via {_SOURCE}",
                       fix=fix_of(row["to"]))
    plain = _plain_path(target, usage, ctx, info)
    if plain is not None:
        return plain
    if info["kind"] == "wrappers" and target.runtime_facts.cuda_names == "kept":
        return Verdict(Status.SUPPORTED, f"{info['what']}: they run as CUDA's path does where {target.id}'s runtime "
                       "presents itself as torch.cuda (substitute evidence, not validated per API)", _SOURCE)
    if info["kind"] == "monitoring":  # host-side queries of the driver: code to rewrite, no kernel to port
        tool = device_tools().get(target.id, {}).get("tools", {}).get("nvidia-smi", {}).get("to")
        instead = f" (or its `{tool}` tool)" if tool else ""
        return Verdict(Status.REWRITE, f"{info['what']} needs NVIDIA's driver; replace these queries with the "
                       f"{target.id} runtime's own{instead}, or drop them where the numbers are only logged: a "
                       "host-side rewrite, no kernel to port (the vendor data names no one-to-one call)", _SOURCE,
                       fix=fix_of(f"the {target.id} runtime's memory/utilisation queries{instead}, or drop this"))
    if info["kind"] == "compiler" and usage.api.startswith(tuple(f"{library}.{h}" for h in _COMPILER_HELPERS)):
        return Verdict(Status.REWRITE, f"`{usage.api}` is a helper of {library} (its cache, driver, compiler or "
                       "benchmark machinery), not a kernel: nothing to port; guard its import (try/except "
                       f"ImportError) or drop the code that uses it where {target.id} has no {library}", _SOURCE,
                       fix=fix_of(f"guard the {library} import, or drop this on {target.id}"))
    if info["kind"] == "compiler":
        return Verdict(Status.PORT, f"{info['what']}: Triton kernels must be ported (rewritten in plain torch ops "
                       f"or the target's kernel language); the vendor data lists no Triton backend for {target.id}",
                       _SOURCE)
    return Verdict(Status.PORT, f"{info['what']} is CUDA-only: no {target.id} equivalent in the vendor data; "
                   "use a plain PyTorch path or port the kernels", _SOURCE)


def _plain_path(target, usage: Usage, ctx: RuleContext, info) -> Optional[Verdict]:
    """The plain-PyTorch path of a use, where the data names one; of an import, only for a class it binds by its
    own name (GLM's ``from apex.normalization.fused_layer_norm import FusedLayerNorm as LayerNorm``: the one swap,
    which every use takes), not for a module a row covers by prefix (``import flash_attn``, ``from apex import
    amp``)."""
    if usage.kind != _IMPORT:
        plain = ctx.third_party.pytorch_path(usage.api)
        return None if plain is None else Verdict(
            Status.REWRITE, f"{info['what']}: no {target.id} equivalent in the vendor data; the plain PyTorch path is "
            f"`{plain['to']}` ({plain['note']})", _SOURCE, fix=fix_of(plain["to"]))
    row = ctx.third_party.plain_twin(usage.api)
    if row is None:
        return None
    cls = row["to"].partition("(")[0]
    return Verdict(Status.REWRITE, f"{info['what']}: no {target.id} equivalent in the vendor data; import the plain "
                   f"PyTorch class `{cls}` in its place, under the same name, and every use of it here takes it "
                   f"(`{row['to']}`: {row['note']})", _SOURCE, fix=fix_of(f"import {cls} instead"))


#: Parts of a kernel compiler that hold no kernel (``triton.runtime.cache.FileCacheManager``, ``triton.testing``).
_COMPILER_HELPERS = ("runtime", "compiler", "backends", "testing", "tools", "errors")
