"""The ``nvidia-base-image`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import Invalid, Valid
from . import _stack


class BaseImage(Rule):
    """A Dockerfile built on an NVIDIA or CUDA image.

    ## What it does
    Finds `FROM` lines whose image carries CUDA: `nvidia/...`, `nvcr.io/nvidia/...`, and any image whose
    name mentions CUDA or cuDNN (`pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime`).

    ## Why is this bad?
    The image ships CUDA and a CUDA build of torch, not the target's driver stack and plugin: the
    container cannot see the target's cards.

    ## Fix safety
    A suggestion, never applied: the bundled data names no base image per target, so the report asks for
    one with the target's stack installed.
    """

    name = "nvidia-base-image"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.BASE_IMAGE})
    category = Category.ENVIRONMENT
    summary = "NVIDIA container base images"
    examples = (
        Invalid("FROM nvidia/cuda:12.1.0-cudnn8-devel-ubuntu22.04\nRUN pip install torch\n", path="Dockerfile",
                expect=Status.REWRITE),
        Valid("FROM python:3.11-slim\nRUN pip install torch\n", path="Dockerfile"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        image = usage.args[0].value.text if usage.args else usage.snippet
        return per_target(ctx, lambda t: Verdict(
            Status.REWRITE, f"base image {image} carries CUDA, not {_stack(t)}: start from an image with "
            f"{_stack(t)} installed (the bundled data names no image)", "migrator environment rules",
            fix=fix_of(f"FROM <an image with {_stack(t)}>")))
