"""Tests that put a block on the CUDA path only: ``if device.type == "cuda":``, ``if x.is_cuda:``,
``if "cuda" in str(device):``, ``if torch.cuda.is_available():`` (alone or in an ``and``)."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from ..model import GuardKind

_IS_AVAILABLE = frozenset({"torch.cuda.is_available", "torch.backends.cudnn.is_available"})


def cuda_test(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[GuardKind]:
    """The kind of CUDA test ``test`` is, or ``None`` (a ``!=`` or a ``not`` is the other path: ``None``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return cuda_test(test.left, qualify) or cuda_test(test.right, qualify)
    if isinstance(test, cst.Call):
        if qualify(test.func) in _IS_AVAILABLE:
            return GuardKind.IS_AVAILABLE
        func = test.func
        if isinstance(func, cst.Attribute) and func.attr.value == "startswith" and test.args \
                and _is_cuda_string(test.args[0].value):
            return GuardKind.DEVICE_TYPE
        return None
    if isinstance(test, cst.Attribute) and test.attr.value == "is_cuda":
        return GuardKind.DEVICE_TYPE
    if isinstance(test, cst.Comparison):
        sides = [test.left, *(c.comparator for c in test.comparisons)]
        positive = all(isinstance(c.operator, (cst.Equal, cst.In, cst.Is)) for c in test.comparisons)
        if positive and any(_is_cuda_string(side) for side in sides):
            return GuardKind.DEVICE_TYPE
    return None


def _is_cuda_string(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.SimpleString):
        return False
    text = node.value.strip("'\"rbuRBU")
    return text == "cuda" or text.startswith("cuda:")
