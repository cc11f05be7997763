"""Attributes a class sets true only on a CUDA tensor: ``if self.cpu_cache:`` tests the device as the code that set
it did.

mmagic's BasicVSR++ decides once per forward whether to keep its features on the host::

    if t > self.cpu_cache_length and lqs.is_cuda:
        self.cpu_cache = True
    else:
        self.cpu_cache = False

and then moves them back with ``.cuda()`` under ``if self.cpu_cache:`` in six places. Off CUDA the flag is never
true, so those branches never run there: each ``if self.cpu_cache:`` is a test of the device, as the binding's own
``lqs.is_cuda`` is, and what its body does is that test's work, not six of its own.

An attribute of ``self`` is such a flag when every assignment the class makes to it is a device-type test
(``self.use_fused = x.is_cuda and ...``), ``True`` in the branch of one, or ``False``/``None``; anything else
(a parameter, a configuration value) lets it be true anywhere.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional

import libcst as cst

from ..model import Span
from .dotted import dotted
from .guards import DEVICE_TYPE, cuda_test

#: what the class's methods assign a flag that stays off: ``False``, ``None``
_OFF = frozenset({"False", "None"})


def cuda_attribute_flags(cls: cst.ClassDef, qualify: Callable[[cst.BaseExpression], Optional[str]],
                         span: Callable[[cst.CSTNode], Span]) -> Dict[str, Span]:
    """``self.<name>`` -> the device test that sets it, for each attribute the class sets true only on CUDA."""
    reader = _Assignments(qualify)
    for statement in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
        if isinstance(statement, cst.FunctionDef):
            statement.visit(reader)
    return {name: span(test) for name, tests in reader.tests.items()
            if name not in reader.other and tests for test in tests[:1]}


class _Assignments(cst.CSTVisitor):
    """Every assignment to an attribute of ``self`` in a class's methods, sorted into device tests (with the test)
    and other values."""

    def __init__(self, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> None:
        self._qualify = qualify
        self._device_tests: List[Optional[cst.BaseExpression]] = []  # per ``if`` body the walk is in
        self.tests: Dict[str, List[cst.BaseExpression]] = {}
        self.other: set = set()

    def visit_If(self, node: cst.If) -> Optional[bool]:
        node.test.visit(self)
        test = node.test if cuda_test(node.test, self._qualify) == DEVICE_TYPE else None
        self._device_tests.append(test)
        node.body.visit(self)
        self._device_tests.pop()
        self._device_tests.append(None)  # the other way of a device test is no device's
        if node.orelse is not None:
            node.orelse.visit(self)
        self._device_tests.pop()
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assigned(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._assigned(node.target, None)

    def _assigned(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._assigned(element.value, None)
            return
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self"):
            return
        name = dotted(target)
        if isinstance(value, cst.Name) and value.value in _OFF:
            return
        inside = next((test for test in reversed(self._device_tests) if test is not None), None)
        if isinstance(value, cst.Name) and value.value == "True" and inside is not None:
            self.tests.setdefault(name, []).append(inside)
        elif value is not None and isinstance(value, (cst.BooleanOperation, cst.Comparison, cst.Attribute)) \
                and cuda_test(value, self._qualify) == DEVICE_TYPE:
            self.tests.setdefault(name, []).append(value)
        else:
            self.other.add(name)
