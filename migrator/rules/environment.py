"""The launch environment: CUDA/NCCL variables (in scripts, Dockerfiles and from Python), NVIDIA tools,
base images and CUDA-only packages."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Edit, Status, Usage, Verdict
from ..resolve.vocabulary import Vocabulary
from .base import Rule, RuleContext, Verdicts, per_target
from ..maps.load import device_tools
from .third_party import library_verdict


class EnvironmentVariable(Rule):
    """``CUDA_VISIBLE_DEVICES`` / ``NCCL_*`` and friends, set or read in scripts or from Python."""

    name = "environment-variable"
    priority = 210
    category = Category.ENVIRONMENT
    summary = "CUDA and NCCL environment variables"
    vocabulary = Vocabulary(
        environment_readers=frozenset({"os.environ.get", "os.getenv", "os.environ.pop"}),
        environment_writers=frozenset({"os.environ.setdefault", "os.putenv", "os.environ.update"}),
        environment_prefixes=("CUDA_", "NCCL_", "CUDNN_", "NVIDIA_", "PYTORCH_CUDA_", "TORCH_CUDA_", "CUBLAS_"))
    VALID = ("import os\nrank = os.environ.get('LOCAL_RANK', '0')\n",)
    INVALID = ("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0,1'\n",
               "import os\nos.environ.setdefault('NCCL_DEBUG', 'INFO')\n")

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        # os.environ from Python; ``ENV X`` / ``export X`` / ``X=`` from Dockerfiles and scripts
        if usage.kind not in ("env", "env-read") or not usage.context:
            return None
        name = usage.context
        action = "reads" if usage.kind == "env-read" else "sets"

        def verdict(target) -> Verdict:
            found = target.environment(name)
            if found is not None:
                entry, source = found
                if entry.get("to"):
                    note = f" ({entry['note']})" if entry.get("note") else ""
                    doc = f"; documented at {entry['doc']}" if entry.get("doc") else ""
                    return Verdict(Status.REWRITE, f"{action} {name}: use {entry['to']} on {target.id}{note}{doc}",
                                   source, suggestion=usage.snippet.replace(name, str(entry["to"])),
                                   fixable=bool(entry.get("exact", True)), edit=Edit("string", name, str(entry["to"])))
                return Verdict(Status.UNSUPPORTED, f"{action} {name}: the vendor lists no {target.id} equivalent",
                               source)
            if target.keeps_cuda_spelling and name.startswith("CUDA_"):
                return Verdict(Status.UNKNOWN, f"{action} {name}: the CUDA shim keeps CUDA names, but no public data "
                               "says whether torch_xmlir honours this variable", target.device_source)
            return Verdict(Status.UNKNOWN, f"{action} {name}, which has no effect on {target.id}; the bundled vendor "
                           "data names no equivalent variable, so find it in the runtime's documentation",
                           target.sources[0])
        return per_target(ctx, verdict)


class NvidiaTool(Rule):
    """``nvidia-smi``, ``nvcc``, ``nsys`` and ``docker --gpus`` in scripts and notebooks."""

    name = "nvidia-tool"
    priority = 220
    category = Category.ENVIRONMENT
    summary = "NVIDIA command-line tools"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "command":
            return None
        return per_target(ctx, lambda t: _tool_verdict(t, usage.api))


def _tool_verdict(target, tool: str) -> Verdict:
    known = device_tools().get(target.id, {})
    entry = (known.get("tools") or {}).get(tool)
    if entry is not None:
        return Verdict(Status.REWRITE, f"`{tool}` needs an NVIDIA driver and is absent on {target.id} machines; "
                       f"use `{entry['to']}`", f"operator_maps/curated/device_tools.yaml ({entry['doc']})",
                       suggestion=str(entry["to"]))
    return Verdict(Status.REWRITE, f"`{tool}` needs an NVIDIA driver and is absent on {target.id} machines; the "
                   f"bundled data names no {_stack(target)} equivalent, so find it in the vendor's tool documentation",
                   "migrator environment rules")


def _stack(target) -> str:
    """The target's software stack by name (``torch_npu and the CANN toolkit``), not its runtime label."""
    return str(device_tools().get(target.id, {}).get("stack") or target.id)


class BaseImage(Rule):
    """A Dockerfile ``FROM`` an NVIDIA / CUDA image."""

    name = "nvidia-base-image"
    priority = 230
    category = Category.ENVIRONMENT
    summary = "NVIDIA container base images"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "base-image":
            return None
        image = usage.args[0].value.text if usage.args else usage.snippet
        return per_target(ctx, lambda t: Verdict(
            Status.REWRITE, f"base image {image} carries CUDA, not {_stack(t)}: start from an image with "
            f"{_stack(t)} installed (the bundled data names no image)", "migrator environment rules",
            suggestion=f"FROM <an image with {_stack(t)}>"))


class CudaRequirement(Rule):
    """Requirements and ``pip install`` lines that pin CUDA builds or CUDA-only packages."""

    name = "cuda-requirement"
    priority = 240
    category = Category.ENVIRONMENT
    summary = "CUDA builds and CUDA-only packages in requirements"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind != "requirement":
            return None
        if usage.api == "pip.index-url" or usage.api.startswith("requirement:torch"):
            return per_target(ctx, lambda t: Verdict(
                Status.REWRITE, f"{usage.context}: install the plain torch {t.id} supports, then "
                f"{t.import_first.split()[-1] if t.import_first else _stack(t)}",
                "migrator environment rules", suggestion=" ".join(filter(None, ("torch", t.torch_line, f"(the line {_stack(t)} supports)")))))
        library = usage.api.split(":", 1)[1]
        if library in ctx.third_party.libraries:
            return per_target(ctx, lambda t: library_verdict(t, usage, ctx, library))
        return per_target(ctx, lambda t: Verdict(
            Status.PORT, f"{usage.context} is an NVIDIA/CUDA package with no {t.id} build", "migrator environment rules"))
