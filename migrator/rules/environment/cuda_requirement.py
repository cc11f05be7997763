"""The ``cuda-requirement`` rule."""

from __future__ import annotations

import re
from typing import Optional

from ...maps.load import paired
from ...model import Category, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import Invalid, Valid
from ..third_party import library_verdict
from . import _other_line, _pair_pins, _pair_text, _stack


def _plain_torch_verdict(target, usage: Usage) -> Verdict:
    """A CUDA build of torch with no pairing to go by: the plain build of the line the target's release runs,
    where the data names one (kunlun's does not)."""
    plugin = target.import_first.split()[-1] if target.import_first else _stack(target)
    if target.torch_line is None:
        return Verdict(Status.REWRITE, f"{usage.context}: install the torch build {_stack(target)} is released with "
                       "(which torch version that is, the public data does not say)", "migrator environment rules")
    return Verdict(
        Status.REWRITE, f"{usage.context}: install the plain torch {target.id} supports, then {plugin}",
        "migrator environment rules",
        fix=fix_of(f"torch {target.torch_line} (the line {_stack(target)} supports)"))


def _index_verdict(target, usage: Usage) -> Verdict:
    """A CUDA wheel index: torch's plain build (and the plugin) come from the default index. Which torch to pin
    is the pin's finding (``_cuda_torch_verdict``, ``TorchPin``), so this one names no version."""
    if target.torch_line is None:
        return Verdict(Status.REWRITE, f"{usage.context}: it serves NVIDIA's CUDA builds of torch; install the torch "
                       f"build {_stack(target)} is released with instead (which one, the public data does not say)",
                       "migrator environment rules",
                       fix=fix_of("(remove the CUDA wheel index)"))
    return Verdict(Status.REWRITE, f"{usage.context}: it serves CUDA builds of torch, which {_stack(target)} do not "
                   "run with: drop it (the torch pin's finding says which torch to install)",
                   "migrator environment rules",
                   fix=fix_of("(remove the CUDA wheel index)"))


def _cuda_torch_verdict(target, usage: Usage, version: Optional[str]) -> Verdict:
    """A CUDA build of torch: the plain build of the same version, with the plugin the vendor pairs with it."""
    pairing = paired(target.id, version) if version else None
    if pairing is None:
        return _plain_torch_verdict(target, usage)
    return Verdict(Status.REWRITE, f"{usage.context}: install the plain torch build, then {_pair_text(pairing)}"
                   + _other_line(target, pairing), pairing.source, fix=fix_of(_pair_pins(pairing)))


class CudaRequirement(Rule):
    """CUDA builds and CUDA-only packages in requirements.

    ## What it does
    Finds, in requirements files and `pip install` lines, CUDA builds of torch (`torch==2.1.0+cu121`), the
    CUDA wheel indexes (`download.pytorch.org/whl/cu121`), and packages that are CUDA-only (flash-attn,
    apex, xformers, bitsandbytes, cupy-cuda*, nvidia-* wheels).

    ## Why is this bad?
    A CUDA build of torch does not load the target's plugin, and a CUDA-only package either fails to build
    or installs kernels that cannot run. A package for which the data names a replacement is a `rewrite`
    (drop it once its uses are replaced), else a `port`; a package no code of the project imports is a line to
    drop from the install (a `rewrite`), or nothing where it installs anywhere (NVML's pure-Python bindings).

    ## Fix safety
    A suggestion, never applied: the torch line must match the version the target's plugin is built for.
    """

    name = "cuda-requirement"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.REQUIREMENT})
    category = Category.ENVIRONMENT
    summary = "CUDA builds and CUDA-only packages in requirements"
    examples = (
        Invalid("torch==2.1.0+cu121\n", path="requirements.txt", expect=Status.REWRITE),
        Invalid("cupy-cuda12x\n", path="requirements.txt", files={"ops.py": "import cupy\nx = cupy.zeros(2)\n"},
                expect=Status.PORT),
        # installed, and imported by no code of the project: a line to drop from the install, no port
        Invalid("cupy-cuda12x\n", path="requirements.txt", expect=Status.REWRITE),
        Invalid("nvidia-ml-py\n", path="requirements.txt", files={"gpu.py": "import pynvml\npynvml.nvmlInit()\n"},
                expect=Status.REWRITE),
        # NVML's bindings install anywhere: uncalled, they need nothing
        Invalid("nvidia-ml-py\n", path="requirements.txt", expect=Status.SUPPORTED),
        Valid("numpy>=1.24\ntorch==2.1.0\n", path="requirements.txt"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        if usage.api.startswith(("requirement-pin:", "requirement-version:")):
            return None  # a plain pin: TorchPin's; a library's version cap: LibraryPin's
        if usage.api == "requirement:torch":
            pinned = re.search(r"===?\s*(\d+\.\d+\.\d+)", (usage.args[0].value.text or "") if usage.args else "")
            return per_target(ctx, lambda t: _cuda_torch_verdict(t, usage, pinned.group(1) if pinned else None))
        if usage.api == "pip.index-url":
            return per_target(ctx, lambda t: _index_verdict(t, usage))
        if usage.api.startswith("requirement:torch"):  # torchvision, torchaudio
            return per_target(ctx, lambda t: _plain_torch_verdict(t, usage))
        library = usage.api.split(":", 1)[1]
        if library in ctx.third_party.libraries:
            return per_target(ctx, lambda t: library_verdict(t, usage, ctx, library))
        return per_target(ctx, lambda t: Verdict(
            Status.PORT, f"{usage.context} is an NVIDIA/CUDA package with no {t.id} build",
            "migrator environment rules"))
