"""Tests that put a block on the CUDA path only: ``if device.type == "cuda":``, ``if x.is_cuda:``,
``if "cuda" in str(device):``, ``if torch.cuda.is_available():`` (alone or in an ``and``)."""

from __future__ import annotations

import re
from typing import Callable, Optional

import libcst as cst

from ..model import GuardKind

#: What a CUDA test asks: the device of a tensor or a variable (``device.type == "cuda"``), or whether CUDA is there.
DEVICE_TYPE, IS_AVAILABLE = "device-type", "is-available"
_IS_AVAILABLE = frozenset({"torch.cuda.is_available", "torch.backends.cudnn.is_available"})


def body_guard(test: cst.BaseExpression, has_other_branch: bool,
               qualify: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[GuardKind]:
    """What an ``if`` with this test means for the usages in its body, or ``None`` when it is no CUDA test."""
    kind = cuda_test(test, qualify)
    if kind is None:
        return None
    return GuardKind.OTHER_BRANCH if kind == DEVICE_TYPE and has_other_branch else GuardKind.DECIDED_BY_TEST


def cuda_test(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> Optional[str]:
    """``DEVICE_TYPE`` or ``IS_AVAILABLE`` for a CUDA test, else ``None`` (a ``!=`` or a ``not`` is the other
    path: ``None``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return cuda_test(test.left, qualify) or cuda_test(test.right, qualify)
    if isinstance(test, cst.Call):
        if qualify(test.func) in _IS_AVAILABLE:
            return IS_AVAILABLE
        func = test.func
        if isinstance(func, cst.Attribute) and func.attr.value == "startswith" and test.args \
                and _is_cuda_string(test.args[0].value):
            return DEVICE_TYPE
        return None
    if isinstance(test, cst.Attribute) and test.attr.value == "is_cuda":
        return DEVICE_TYPE
    if isinstance(test, cst.Comparison):
        sides = [test.left, *(c.comparator for c in test.comparisons)]
        positive = all(isinstance(c.operator, (cst.Equal, cst.In, cst.Is)) for c in test.comparisons)
        if positive and any(_is_cuda_string(side) for side in sides):
            return DEVICE_TYPE
    return None


def _is_cuda_string(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.SimpleString):
        return False
    text = node.value.strip("'\"rbuRBU")
    return text == "cuda" or text.startswith("cuda:")


#: ``is_bnb_available()``, ``is_torch_npu_available()``, ``HAS_APEX``, ``_xformers_available``,
#: ``importlib.util.find_spec("triton")``: a test whether a library is installed.
_AVAILABLE = re.compile(r"^_?(?:is_\w+_available|\w*_available|has_\w+|HAS_\w+|\w+_AVAILABLE|find_spec)$")


def names_availability(name: str) -> bool:
    """Whether a function or flag of this name says a library is installed (``libcst`` and ``ast`` readers)."""
    return bool(_AVAILABLE.match(name))


def availability_test(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` runs its body only where a library is installed (alone or in an ``and``): the imports
    there are optional, as in ``try: ... except ImportError`` with a fallback."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return availability_test(test.left) or availability_test(test.right)
    node = test.func if isinstance(test, cst.Call) else test
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return names_availability(name)
