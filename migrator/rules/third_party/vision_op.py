"""The ``vision-op`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.load import op_families
from ...model import Category, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid

#: The ``torchvision.ops`` functions and modules that call a kernel torchvision registers
#: (``TORCH_LIBRARY_FRAGMENT(torchvision, m)`` in pytorch/vision ``torchvision/csrc/ops/*.cpp``: nms, roi_align,
#: roi_pool, ps_roi_align, ps_roi_pool, deform_conv2d, box_iou_rotated, nms_rotated), lower-cased. The rest of
#: ``torchvision.ops`` (``box_iou``, ``generalized_box_iou``, ``box_convert``, ``sigmoid_focal_loss``, ...) is
#: Python over torch's own operators: it runs wherever they do, and the operator rules judge those.
KERNEL_OPS = frozenset({
    "nms", "batched_nms", "roi_align", "roialign", "multiscaleroialign", "roi_pool", "roipool",
    "ps_roi_align", "psroialign", "ps_roi_pool", "psroipool", "deform_conv2d", "deformconv2d",
    "box_iou_rotated", "nms_rotated"})


class VisionOp(Rule):
    """torchvision's detection operators.

    ## What it does
    Finds calls of `torchvision.ops` operators (`roi_align`, `RoIAlign`, `nms`, `deform_conv2d`, ...) and
    judges each by the custom-op family it belongs to (`curated/custom_op_families.yaml`, every vendor row
    checked against its upstream file): the vendor's own op where one exists (`torch_npu.npu_roi_align`),
    torchvision itself where the vendor registers its kernel (torch_mlu's torchvision list), else
    `unknown`.

    ## Why is this bad?
    torchvision registers these kernels for CUDA and the CPU only: without the vendor's kernel they run on
    the host, which is slow inside a detection head. The vendors' own ports of detection models swap them
    for the fused op.

    ## Fix safety
    A manual rewrite, never applied: argument conventions differ (box format, sampling ratio, aligned
    flag), as each suggestion's mapping says.
    """

    name = "vision-op"
    claim = Claim.LIBRARY
    kinds = frozenset({UsageKind.CALL})
    category = Category.OP
    summary = "torchvision detection operators"
    examples = (
        Invalid("from torchvision.ops import roi_align\ny = roi_align(x, boxes, (7, 7), 0.25, 2, True)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.SUPPORTED)),
        Invalid("import torchvision\nkeep = torchvision.ops.nms(boxes, scores, 0.5)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.SUPPORTED)),
        # per-class NMS: Ascend's batched op returns boxes, not indices; Cambricon lists only nms itself
        Invalid("from torchvision.ops import batched_nms\nkeep = batched_nms(boxes, scores, labels, 0.5)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE)),
        Valid("import torchvision\nm = torchvision.models.resnet18()\n"),
        Valid("from torchvision.ops import box_area\na = box_area(boxes)\n"),
        # Python over torch's operators in torchvision/ops/boxes.py: no torchvision kernel to port
        Valid("from torchvision.ops import box_iou\niou = box_iou(anchors, targets)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or not usage.api.startswith("torchvision.ops."):
            return None
        name = usage.api.rsplit(".", 1)[-1].lower()  # RoIAlign, roi_align: the family patterns take both
        if name not in KERNEL_OPS:
            return None
        family = next((f for f in op_families() if f.matches(name)), None)
        if family is None:
            return None
        return per_target(ctx, lambda t: _vision_verdict(t, usage.api, family))


def _vision_verdict(target, api: str, family) -> Verdict:
    call = family.targets.get(target.id)
    if call is None:
        return Verdict(Status.UNKNOWN, f"the bundled data names no {target.id} kernel for `{api}` ({family.what}); "
                       "torchvision's own kernels are CUDA and CPU only", "operator_maps/custom_op_families.json")
    if call.to.startswith("torchvision."):
        return Verdict(Status.SUPPORTED, f"`{api}` runs on {target.id}: {call.mapping}", call.source)
    return Verdict(Status.REWRITE, f"`{api}` ({family.what}): torchvision registers its kernel for CUDA and the CPU; "
                   f"on {target.id} use `{call.to}` ({call.mapping}; {call.differs})", call.source, fix=fix_of(call.to))
