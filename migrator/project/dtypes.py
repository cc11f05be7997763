"""The float dtypes a project computes in, from what its code says: a vendor note that leaves out bf16 bites
a project that casts to bf16 or autocasts in it, and no other."""

from __future__ import annotations

from typing import Dict, Sequence

from ..model import DtypeProfile, FileResult, Usage
from ..rules.base import usages_across_files

#: APIs whose use puts a dtype in the profile.
_NAMES: Dict[str, str] = {
    "torch.bfloat16": "bf16", "torch.Tensor.bfloat16": "bf16", "torch.nn.Module.bfloat16": "bf16",
    "torch.float16": "fp16", "torch.half": "fp16", "torch.Tensor.half": "fp16", "torch.nn.Module.half": "fp16",
    "torch.cuda.amp.GradScaler": "fp16", "torch.amp.GradScaler": "fp16",
}
#: autocast with no ``dtype=`` runs in float16 on CUDA (bf16 only where a dtype argument says so)
_AUTOCAST = ("torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast")
#: Frameworks that set precision from their configuration, where no code shows it: both 16-bit dtypes.
_FRAMEWORKS = ("lightning", "pytorch_lightning", "accelerate", "deepspeed", "transformers.Trainer",
               "transformers.trainer", "colossalai", "mmengine", "mmcv.runner")


def reads(usage: Usage) -> bool:
    """Whether ``dtype_profile`` looks at this usage (the cache keeps those apart for the cross-file stages)."""
    return (usage.api in _NAMES or usage.api in _AUTOCAST
            or (usage.kind == "import" and usage.api.startswith(_FRAMEWORKS)))


def dtype_profile(results: Sequence[FileResult]) -> DtypeProfile:
    """fp32, and each 16-bit dtype the code names, casts to or autocasts in, with where it first says so."""
    evidence: Dict[str, str] = {}
    for result in sorted(results, key=lambda r: r.file.rel):
        for usage in usages_across_files(result):
            for dtype in _dtypes_of(usage):
                evidence.setdefault(dtype, f"{usage.api} at {result.file.rel}:{usage.span.line}")
    return DtypeProfile(frozenset({"fp32", *evidence}), tuple(f"{d}: {evidence[d]}" for d in sorted(evidence)))


def _dtypes_of(usage: Usage) -> Sequence[str]:
    if usage.api in _NAMES:
        return (_NAMES[usage.api],)
    if usage.api in _AUTOCAST and usage.kind in ("call", "decorator"):
        dtype = next((a.value for a in usage.args if a.keyword == "dtype"), None)
        if dtype is None:
            return ("fp16",)
        return ()  # the dtype argument is a name of its own (torch.bfloat16): counted where it is written
    if usage.kind == "import" and usage.api.startswith(_FRAMEWORKS):
        return ("fp16", "bf16")
    return ()
