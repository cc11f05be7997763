"""The ``vision-op`` rule."""

from __future__ import annotations

from typing import Mapping, Optional

from ...maps.load import FamilyModel, OpFamily, family_models, op_families
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
    `unknown`. Also finds the construction of a torchvision model whose own training step runs those kernels
    (Faster, Mask and Keypoint R-CNN, the region proposal network: the `models` rows of the same file, quoted
    from torchvision's source), judged by the families it runs, and a function that is Python over one of them
    (`batched_nms` over `nms`), judged by that one.

    ## Why is this bad?
    torchvision registers these kernels for CUDA and the CPU only: without the vendor's kernel they run on
    the host (`fallback`, where the runtime's dispatcher-wide CPU fallback is shown: torch_npu's), which is
    slow inside a detection head; where no such fallback is shown, the call needs the vendor's op
    (`rewrite`). The vendors' own ports of detection models swap them for the fused op.

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
                expect=ByRuntime(Status.UNKNOWN, cann=Status.FALLBACK, neuware=Status.SUPPORTED)),
        Invalid("import torchvision\nkeep = torchvision.ops.nms(boxes, scores, 0.5)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.FALLBACK, neuware=Status.SUPPORTED)),
        # per-class NMS is Python over nms (torchvision/ops/boxes.py): judged by nms, which torch_mlu registers
        Invalid("from torchvision.ops import batched_nms\nkeep = batched_nms(boxes, scores, labels, 0.5)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.FALLBACK, neuware=Status.SUPPORTED)),
        # torchgeo's detection task: Faster R-CNN's training step runs nms (its RPN) and roi_align (its box pooler)
        Invalid("from torchvision.models.detection import fasterrcnn_resnet50_fpn\n"
                "model = fasterrcnn_resnet50_fpn(weights=None, num_classes=3)\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.FALLBACK, neuware=Status.SUPPORTED)),
        # RetinaNet calls batched_nms only in its evaluation's postprocessing: its training step runs no kernel
        Valid("import torchvision\nm = torchvision.models.detection.retinanet_resnet50_fpn(weights=None)\n"),
        Valid("import torchvision\nm = torchvision.models.resnet18()\n"),
        Valid("from torchvision.ops import box_area\na = box_area(boxes)\n"),
        # Python over torch's operators in torchvision/ops/boxes.py: no torchvision kernel to port
        Valid("from torchvision.ops import box_iou\niou = box_iou(anchors, targets)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        model = family_models().get(usage.api)
        if model is not None:
            families = {f.name: f for f in op_families()}
            return per_target(ctx, lambda t: _model_verdict(t, usage.api, model, families))
        if not usage.api.startswith("torchvision.ops."):
            return None
        name = usage.api.rsplit(".", 1)[-1].lower()  # RoIAlign, roi_align: the family patterns take both
        if name not in KERNEL_OPS:
            return None
        family = next((f for f in op_families() if f.matches(name)), None)
        if family is None:
            return None
        return per_target(ctx, lambda t: _vision_verdict(t, usage.api, family))


def _model_verdict(target, api: str, model: FamilyModel, families: Mapping[str, OpFamily]) -> Verdict:
    """A model whose own training step runs torchvision's kernels (``FamilyModel``): judged by those families on
    ``target``; one it has no row for is a data gap, one whose kernels the vendor registers runs as written."""
    runs = [families[name] for name in model.runs]
    step = " and ".join(f"`{family.name}` ({family.what})" for family in runs)
    said = (f"`{api}` is Python over torchvision's {step} kernel (`{model.quote}`: {model.source}): it runs "
            "wherever that kernel does" if model.function else
            f"`{api}` runs torchvision's {step} kernels in every training step with its default modules "
            f"(`{model.quote}`: {model.source})")
    them = "it" if len(runs) == 1 else "them"
    where = "the call" if model.function else \
        "the model's own modules that call them (its region proposal network, its RoI poolers)"
    missing = [family.name for family in runs if target.id not in family.targets]
    if missing:
        return Verdict(Status.UNKNOWN, f"{said}; the bundled data names no {target.id} kernel for `"
                       + "`, `".join(missing) + "`; torchvision's own kernels are CUDA and CPU only",
                       "operator_maps/custom_op_families.json")
    calls = [(family, family.targets[target.id]) for family in runs]
    sources = ", ".join(dict.fromkeys(call.source for _, call in calls))
    swaps = "; ".join(f"`{family.name}`: `{call.to}` ({call.mapping}; {call.differs})" for family, call in calls
                      if not call.to.startswith("torchvision."))
    if not swaps:
        return Verdict(Status.SUPPORTED, f"{said}; {target.id} registers {them}: "
                       + "; ".join(call.mapping for _, call in calls), sources)
    fallback = target.runtime_facts.cpu_fallback
    if fallback is not None:
        return Verdict(Status.FALLBACK, f"{said}; torchvision registers {them} for CUDA and the CPU only: on "
                       f"{target.id} {_ON_THE_HOST} (`{fallback.quote}`); on the card, {where} take the vendor's "
                       f"ops: {swaps}", f"{model.source}; {sources}; {fallback.source}", fix=fix_of(swaps))
    return Verdict(Status.REWRITE, f"{said}; torchvision registers {them} for CUDA and the CPU only: on {target.id} "
                   f"{where} needs the vendor's ops: {swaps}", f"{model.source}; {sources}", fix=fix_of(swaps))


#: what a kernel the runtime lacks does there, where its dispatcher-wide fallback is shown (``Runtime.cpu_fallback``)
_ON_THE_HOST = ("it runs on the host CPU through the runtime's fallback for every operator it has no kernel for "
                "(correct but slow; each call copies tensors between device and host)")


def _vision_verdict(target, api: str, family) -> Verdict:
    call = family.targets.get(target.id)
    if call is None:
        return Verdict(Status.UNKNOWN, f"the bundled data names no {target.id} kernel for `{api}` ({family.what}); "
                       "torchvision's own kernels are CUDA and CPU only", "operator_maps/custom_op_families.json")
    if call.to.startswith("torchvision."):
        return Verdict(Status.SUPPORTED, f"`{api}` runs on {target.id}: {call.mapping}", call.source)
    fallback = target.runtime_facts.cpu_fallback
    if fallback is not None:  # torch_npu's ``TORCH_LIBRARY_IMPL(_, PrivateUse1, m)`` takes torchvision's ops too
        return Verdict(Status.FALLBACK, f"`{api}` ({family.what}): torchvision registers its kernel for CUDA and "
                       f"the CPU: on {target.id} {_ON_THE_HOST} (`{fallback.quote}`); on the card: `{call.to}` "
                       f"({call.mapping}; {call.differs})", f"{call.source}; {fallback.source}", fix=fix_of(call.to))
    return Verdict(Status.REWRITE, f"`{api}` ({family.what}): torchvision registers its kernel for CUDA and the CPU; "
                   f"on {target.id} use `{call.to}` ({call.mapping}; {call.differs})", call.source, fix=fix_of(call.to))
