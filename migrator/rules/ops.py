"""Every other torch API use: recorded with its qualified name for the operator maps to judge."""

from __future__ import annotations

from typing import Optional

from ..model import Category, Status, Usage, Verdict
from .base import Rule, RuleContext, Verdicts, per_target

_NOT_OPS = ("torch.utils.data", "torch.utils.tensorboard", "torch.distributed", "torch.multiprocessing",
            "torch.testing", "torch.hub", "torch.onnx", "torch.jit", "torch.backends", "torch.no_grad",
            "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.save", "torch.load",
            "torch.manual_seed", "torch.set_num_threads", "torch.device", "torch.Size", "torch.is_tensor",
            "torch.get_default_dtype", "torch.set_default_dtype", "torch.set_printoptions", "torch.typename",
            "torch.Generator", "torch.optim.lr_scheduler", "torch.library", "torch.ops", "torch.autograd.Function",
            "torch.nn.Module", "torch.nn.Parameter", "torch.nn.ModuleList", "torch.nn.ModuleDict",
            "torch.nn.Sequential", "torch.nn.ParameterList", "torch.nn.init.", "torch.nn.utils.parametriz",
            "torch.Tensor.item", "torch.Tensor.tolist", "torch.Tensor.numpy", "torch.Tensor.size",
            "torch.Tensor.dim", "torch.Tensor.numel", "torch.Tensor.is_contiguous", "torch.Tensor.register_hook",
            "torch.nn.Module.", "torch.amp", "torch.autocast", "torch.compile", "torch.__version__")


class TorchOp(Rule):
    """A torch op or module use (``torch.matmul``, ``F.gelu``, ``nn.Conv2d``, ``x.masked_fill``).

    Its verdict is ``unknown`` until the operator maps give aten-level coverage: never ``supported``
    without data.
    """

    name = "torch-op"
    category = Category.OP
    summary = "torch operators"

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in ("call", "method") or not usage.api.startswith("torch."):
            return None
        if usage.api.startswith(_NOT_OPS):
            return None
        return per_target(ctx, lambda t: Verdict(
            Status.UNKNOWN, f"operator coverage for `{usage.api}` on {t.id} comes from the operator maps, "
            "which do not cover it yet", "no operator map"))
