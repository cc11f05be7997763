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

from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set

import libcst as cst

from ..model import Span
from .dotted import dotted
from .guards import DEVICE_TYPE, cuda_test

#: what the class's methods assign a flag that stays off: ``False``, ``None``
_OFF = frozenset({"False", "None"})


class CudaAttributeFlags(Mapping[str, Span]):
    """``self.<name>`` -> the device test that sets it, for each attribute a class sets true only on CUDA; read
    from the class's methods the first time a ``self.<name>`` is asked for (a class that never tests one of its
    attributes is never read), statement by statement (the expressions are not walked: only assignments and the
    tests of the ``if`` statements around them)."""

    def __init__(self, cls: cst.ClassDef, qualify: Callable[[cst.BaseExpression], Optional[str]],
                 span: Callable[[cst.CSTNode], Span]) -> None:
        self._cls, self._qualify, self._span = cls, qualify, span
        self._flags: Optional[Dict[str, Span]] = None

    def __getitem__(self, key: str) -> Span:
        if not key.startswith("self."):
            raise KeyError(key)
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def _read(self) -> Dict[str, Span]:
        if self._flags is None:
            tests: Dict[str, List[cst.BaseExpression]] = {}
            other: Set[str] = set()
            for statement in _body(self._cls):
                if isinstance(statement, cst.FunctionDef):
                    self._statements(_body(statement), [], tests, other)
            self._flags = {name: self._span(found[0]) for name, found in tests.items() if name not in other}
        return self._flags

    def _statements(self, statements: Sequence[cst.CSTNode], around: List[cst.BaseExpression],
                    tests: Dict[str, List[cst.BaseExpression]], other: Set[str]) -> None:
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            self._assigned(target.target, small.value, around, tests, other)
                    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                        self._assigned(small.target, small.value if isinstance(small, cst.AnnAssign) else None,
                                       around, tests, other)
            elif isinstance(statement, cst.If):
                test = statement.test if cuda_test(statement.test, self._qualify) == DEVICE_TYPE else None
                self._statements(_body(statement), around + [test] if test is not None else around, tests, other)
                if statement.orelse is not None:
                    orelse = [statement.orelse] if isinstance(statement.orelse, cst.If) else _body(statement.orelse)
                    self._statements(orelse, around, tests, other)
            elif isinstance(statement, (cst.For, cst.While, cst.With, cst.Try)):
                self._statements(_body(statement), around, tests, other)
                for extra in (*getattr(statement, "handlers", ()), getattr(statement, "orelse", None),
                              getattr(statement, "finalbody", None)):
                    if extra is not None:
                        self._statements(_body(extra), around, tests, other)

    def _assigned(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression],
                  around: List[cst.BaseExpression], tests: Dict[str, List[cst.BaseExpression]],
                  other: Set[str]) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._assigned(element.value, None, around, tests, other)
            return
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self"):
            return
        name = dotted(target)
        if isinstance(value, cst.Name) and value.value in _OFF:
            return
        if isinstance(value, cst.Name) and value.value == "True" and around:
            tests.setdefault(name, []).append(around[-1])
        elif value is not None and isinstance(value, (cst.BooleanOperation, cst.Comparison, cst.Attribute)) \
                and cuda_test(value, self._qualify) == DEVICE_TYPE:
            tests.setdefault(name, []).append(value)
        else:
            other.add(name)


def _body(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    body = getattr(node, "body", None)
    return body.body if isinstance(body, cst.IndentedBlock) else ()
