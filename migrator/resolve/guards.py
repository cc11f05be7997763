"""Tests that put a block on the CUDA path only: ``if device.type == "cuda":``, ``if x.is_cuda:``,
``if "cuda" in str(device):``, ``if torch.cuda.is_available():`` (alone or in an ``and``)."""

from __future__ import annotations

import re
from typing import Callable, Container, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from ..devices import ACCELERATORS, BACKENDS
from ..model import GuardKind
from .dotted import dotted
from .strings import string_value

#: What a CUDA test asks: the device of a tensor or a variable (``device.type == "cuda"``), whether CUDA is there, or
#: whether the installed torch was built with CUDA (``torch.version.cuda``: None in a CPU torch wheel).
DEVICE_TYPE, IS_AVAILABLE, VERSION_CUDA = "device-type", "is-available", "version-cuda"
_VERSION_CUDA = "torch.version.cuda"
_IS_AVAILABLE = frozenset({"torch.cuda.is_available", "torch.backends.cudnn.is_available"})


def body_guard(node: cst.If, followed: bool, qualify: Callable[[cst.BaseExpression], Optional[str]],
               flags: Container[str] = frozenset(),
               after: Callable[[], Optional[cst.CSTNode]] = lambda: None) -> Optional[GuardKind]:
    """What an ``if`` means for the usages in its body, or ``None`` when its test is no CUDA test. A body that
    always leaves (``return``, ``raise``, ``continue``, ``break`` as its last statement) has the code that
    ``follows`` the ``if`` in its block as its other branch: ``if x.device.type == "cuda": return fused(x)``
    then ``return reference(x)``. ``flags`` are the names the function bound to a device-type test
    (``use_cp = has_cupy and img.device.type == "cuda"``): ``if use_cp:`` tests the device as that test does.
    ``after``: the statement that follows the ``if`` (asked only of a device-type test with no ``else``). An
    other branch that answers the host as the device (mmgen's ``get_module_device``: ``if p.is_cuda: return
    p.get_device()`` then ``return torch.device('cpu')``) is no way of the target's: there the test decides that
    the target's tensors are said to be on the host."""
    kind = cuda_test(node.test, qualify, flags)
    if kind is None:
        return None
    if kind == VERSION_CUDA:  # no name of the target's makes it true: what its body does is the test's finding's
        return GuardKind.DECIDED_BY_TEST
    other = None if kind != DEVICE_TYPE else node.orelse.body if isinstance(node.orelse, cst.Else) \
        else after() if node.orelse is None else None
    if other is not None and _answers_the_host(other):
        return GuardKind.DECIDED_BY_TEST
    other_branch = (node.orelse is not None and not refuses_the_rest(node.orelse, qualify)) \
        or always_leaves(node.body, followed) or (followed and cuda_fast_path(node.body))
    if kind == DEVICE_TYPE and isinstance(node.orelse, cst.If) and not _serves_a_target(node.orelse, qualify) \
            and _binds(node.body):
        # unsloth's ``if DEVICE_TYPE in ("cuda", "hip"): torch_gpu_device = torch.cuda.device`` / ``elif
        # DEVICE_TYPE == "xpu": ...`` with no ``else``: on the target nothing binds what the code goes on with
        return GuardKind.DECIDED_BY_TEST
    return GuardKind.OTHER_BRANCH if kind == DEVICE_TYPE and other_branch else GuardKind.DECIDED_BY_TEST


def _answers_the_host(code: cst.CSTNode) -> bool:
    """Whether a branch (or the statement after an ``if``) starts by answering the host as the device: ``return
    torch.device('cpu')``, ``return 'cpu'``, ``device = torch.device("cpu")``."""
    first = code.body[0] if isinstance(code, cst.BaseSuite) and code.body else code
    smalls = first.body if isinstance(first, cst.SimpleStatementLine) else []
    value = smalls[0].value if smalls and isinstance(smalls[0], (cst.Return, cst.Assign)) else None
    return value is not None and names_the_host(value)


def names_the_host(node: cst.BaseExpression) -> bool:
    """``"cpu"``, ``torch.device("cpu")``."""
    if isinstance(node, cst.Call) and dotted(node.func) in ("torch.device", "device") and len(node.args) == 1:
        node = node.args[0].value
    return string_value(node) == "cpu"


def _serves_a_target(chain: cst.If, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether the ``elif`` chain after a CUDA test has a way for a target: a test that names its device, or a
    closing ``else``."""
    current: Optional[cst.CSTNode] = chain
    while isinstance(current, cst.If):
        if set(accelerators_tested(current.test, qualify)) & _TARGET_DEVICES:
            return True
        current = current.orelse
    return isinstance(current, cst.Else)


def refuses_the_rest(orelse: cst.CSTNode, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether what a CUDA test leaves to the other devices ends in a ``raise``: ``else: raise ValueError("TDT is
    not yet implemented for non CUDA computation.")`` (NeMo's RNN-T losses), or an ``elif`` chain that names no
    target's device and closes with such an ``else``. That is no way of the target's own: there the test decides
    that the target stops, so its finding is the work and what the body does its sites."""
    current: Optional[cst.CSTNode] = orelse
    while isinstance(current, cst.If):
        if set(accelerators_tested(current.test, qualify)) & _TARGET_DEVICES:
            return False
        current = current.orelse
    return isinstance(current, cst.Else) and _raises(current.body)


def _binds(body: cst.BaseSuite) -> bool:
    """Whether a branch binds a name or hands a value back (what the code after it goes on with)."""
    visitor = _Binds()
    body.visit(visitor)
    return visitor.found


class _Binds(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom)) \
                or (isinstance(node, cst.Return) and node.value is not None):
            self.found = True
        return not self.found and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))




#: a function named for CUDA's implementation (``median_filter_cuda``, ``cuda_kernel``, ``fused_adam_cuda``), not
#: the ``.cuda()`` move itself
CUDA_IMPLEMENTATION = re.compile(r"(?:^|_)cuda(?:_|$)", re.IGNORECASE)


class _FastPath(cst.CSTVisitor):
    """Whether a block imports something where it runs, or calls a function named for CUDA's implementation."""

    def __init__(self) -> None:
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found or isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self.found = True
        elif isinstance(node, cst.Call):
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) \
                else ""
            self.found = name.lower() != "cuda" and bool(CUDA_IMPLEMENTATION.search(name))
        return not self.found


def cuda_fast_path(body: cst.BaseSuite) -> bool:
    """Whether the body of a device-type test with code after it is CUDA's fast path, which the code after it
    does without: it imports its implementation where it runs (``from .triton_ops import median_filter_cuda``),
    or calls one named for CUDA (``dtw_cuda(x)``). Whisper's ``if x.is_cuda: try: result = median_filter_cuda(x)
    ...`` then ``if result is None: <the same in torch>``: another device skips to the code after, as an ``else``."""
    visitor = _FastPath()
    body.visit(visitor)
    return visitor.found


def leaves_off_cuda(node: cst.If, followed: bool, qualify: Callable[[cst.BaseExpression], Optional[str]],
                    flags: Container[str] = frozenset()) -> bool:
    """``if x.device.type != "cuda": return reference(x)`` with no other branch and code that ``follows`` it:
    on another device the block is left there, so that code runs only on a CUDA device (its other branch)."""
    return followed and node.orelse is None and always_leaves(node.body, followed) \
        and _not_cuda_device(node.test, qualify, flags)


def leaves_off_availability(node: cst.If, followed: bool,
                            qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """``if not torch.cuda.is_available() or not flash: return`` with code that ``follows`` it: the rest of the
    block runs only where CUDA is there, as the body of ``if torch.cuda.is_available():`` does (lucidrains'
    ``Attend`` reads the GPU's properties there to pick its CUDA attention config). A body that raises refuses
    the target instead: the test is the blocker, as it was (``roots.with_library_guard_roots``)."""
    return followed and node.orelse is None and always_leaves(node.body, followed) and not _raises(node.body) \
        and _negated_availability(node.test, qualify)


def _negated_availability(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _negated_availability(test.left, qualify) or _negated_availability(test.right, qualify)
    return isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) \
        and cuda_test(test.expression, qualify) == IS_AVAILABLE


def takes_general_path(node: cst.If, qualify: Callable[[cst.BaseExpression], Optional[str]],
                       flags: Container[str] = frozenset()) -> bool:
    """``if not x.is_cuda or not self.static_shapes: self.dim_size = ...``: a test true on any device but CUDA
    whose body does not raise: the target takes the body, the code written for every device, and CUDA's special
    case (a graph capture's fixed shapes) is what it skips. The test is a check there, as in an ``if``/``else``.
    ``if not x.is_cuda: raise ...`` refuses the target's tensors: that test is the blocker, and what follows it
    runs only on CUDA (``leaves_off_cuda``)."""
    return not _raises(node.body) and _not_cuda_device(node.test, qualify, flags)


def general_path_when_asked(node: cst.If, qualify: Callable[[cst.BaseExpression], Optional[str]],
                            flags: Container[str] = frozenset()) -> bool:
    """``if self.foreach is False or (self.foreach is None and not p.is_cuda): <per parameter>`` (pytorch_optimizer):
    a negated device test beside other conditions, whose body does not raise: off CUDA the body is the general path
    where no faster one was asked for; the test is a check there. Its ``else`` and what follows are no CUDA-only
    branch: other conditions lead there on every device."""
    return not _raises(node.body) and _not_cuda_device(node.test, qualify, flags, within_and=True)


def skipped_off_cuda(test: cst.BooleanOperation, qualify: Callable[[cst.BaseExpression], Optional[str]],
                     flags: Container[str] = frozenset()) -> bool:
    """Whether the right side of ``test`` is evaluated only where tensors are CUDA's: ``x.is_cuda and
    torch.cuda.is_current_stream_capturing()``, ``not x.is_cuda or <right>``. On the target the left side
    decides, and the right (a CUDA query) is never called."""
    if isinstance(test.operator, cst.And):
        return cuda_test(test.left, qualify, flags) == DEVICE_TYPE
    return isinstance(test.operator, cst.Or) and _not_cuda_device(test.left, qualify, flags)


def _raises(body: cst.BaseSuite) -> bool:
    """Whether a block's last statement is a ``raise``: it refuses what reached it."""
    return isinstance(_last_statement(body), cst.Raise)


def _last_statement(body: cst.BaseSuite) -> Optional[cst.CSTNode]:
    """A block's last statement, the last of a line of several (``x = 1; return x``), or ``None``."""
    statements = body.body
    last = statements[-1] if statements else None
    return last.body[-1] if isinstance(last, cst.SimpleStatementLine) else last


def _not_cuda_device(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]],
                     flags: Container[str], within_and: bool = False) -> bool:
    """A test true on any device but CUDA: ``device.type != "cuda"``, ``not x.is_cuda``, or either in an ``or``;
    with ``within_and``, also one such beside other conditions in an ``and`` (true only off CUDA, not everywhere
    off it: pytorch_optimizer's ``self.foreach is None and not p.is_cuda``), unless the ``and`` names other devices
    (a list of the allowed ones: ``!= "cuda" and != "xpu"``)."""
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And) and (not within_and or accelerators_tested(test, qualify)):
            return False
        return _not_cuda_device(test.left, qualify, flags, within_and) \
            or _not_cuda_device(test.right, qualify, flags, within_and)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return cuda_test(test.expression, qualify, flags) == DEVICE_TYPE
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator, comparator = test.comparisons[0].operator, test.comparisons[0].comparator
        if isinstance(operator, cst.NotIn) and isinstance(comparator, (cst.Tuple, cst.List, cst.Set)):
            # ``model_device.type not in ("cuda", "meta")``: every device but those
            return any(_is_cuda_string(e.value) for e in comparator.elements)
        return isinstance(operator, (cst.NotEqual, cst.NotIn, cst.IsNot)) \
            and any(_is_cuda_string(side) or _is_nccl(side, qualify) for side in (test.left, comparator))
    return False


_LEAVING = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def always_leaves(body: cst.BaseSuite, followed: bool) -> bool:
    """Whether a block's last statement leaves it, so that what ``follows`` its ``if`` is the other way: a
    ``raise`` (the way on is the normal one even with nothing after it), or a ``return``, ``continue`` or
    ``break`` with code after the ``if`` (with none, ``if cuda: return 1`` is the only answer the code gives)."""
    last = _last_statement(body)
    return isinstance(last, cst.Raise) or (followed and isinstance(last, _LEAVING))


def leaves_for_accelerators(node: cst.If, followed: bool,
                            qualify: Callable[[cst.BaseExpression], Optional[str]]) -> Tuple[str, ...]:
    """``if device.startswith(("npu", "xpu")): ... return torch.device(...)`` with code that ``follows`` it (and no
    other branch): the accelerators whose own way the test takes, and the rest of the block is for the devices it
    left: as an ``else`` beside ``elif`` arms for those accelerators (ultralytics' ``select_device``). Not a
    negated test (``if not is_npu_available(): return`` leaves the rest to the NPU), nor a body that raises (a
    device refused is no way of its own)."""
    if not followed or node.orelse is not None or not always_leaves(node.body, followed) or _raises(node.body) \
            or not _positive(node.test):
        return ()
    return tuple(dict.fromkeys(accelerators_tested(node.test, qualify)))


def _positive(test: cst.BaseExpression) -> bool:
    """Whether a test holds where what it names is (no ``not``, ``!=``, ``not in`` or ``is not`` in it)."""
    if isinstance(test, cst.BooleanOperation):
        return _positive(test.left) and _positive(test.right)
    if isinstance(test, cst.UnaryOperation):
        return False
    if isinstance(test, cst.Comparison):
        return not any(isinstance(c.operator, (cst.NotEqual, cst.NotIn, cst.IsNot)) for c in test.comparisons)
    return True


def cuda_test(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]],
              flags: Container[str] = frozenset()) -> Optional[str]:
    """``DEVICE_TYPE`` or ``IS_AVAILABLE`` for a CUDA test, else ``None`` (a ``!=`` or a ``not`` is the other
    path: ``None``); a name in ``flags`` was bound to a device-type test, a ``self.<name>`` in them set true only
    by one."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        kinds = (cuda_test(test.left, qualify, flags), cuda_test(test.right, qualify, flags))
        # ``torch.cuda.is_available() and pred.is_cuda``: true only for a CUDA tensor, a test of the device
        return DEVICE_TYPE if DEVICE_TYPE in kinds else kinds[0] or kinds[1]
    if isinstance(test, cst.Name) and test.value in flags:
        return DEVICE_TYPE
    if isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == "self" \
            and dotted(test) in flags:  # ``self.cpu_cache``, set true only on a CUDA tensor (``attribute_flags``)
        return DEVICE_TYPE
    if isinstance(test, cst.Call):
        if qualify(test.func) in _IS_AVAILABLE or _counts_cuda_devices(test, qualify):
            return IS_AVAILABLE
        func = test.func
        if isinstance(func, cst.Attribute) and func.attr.value == "startswith" and test.args \
                and _is_cuda_string(test.args[0].value):
            return DEVICE_TYPE
        if isinstance(func, cst.Name) and func.value in flags:  # a predicate of the module's (``_is_cuda(d)``)
            return DEVICE_TYPE
        each = _quantified(test)  # ``any(p.is_cuda for p in params)``
        return cuda_test(each, qualify, flags) if each is not None else None
    if isinstance(test, cst.Attribute) and test.attr.value == "is_cuda":
        return DEVICE_TYPE
    if isinstance(test, cst.Attribute) and test.attr.value == "cuda" and qualify(test) == _VERSION_CUDA:
        return VERSION_CUDA
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and qualify(test.left) == _VERSION_CUDA \
            and isinstance(test.comparisons[0].operator, cst.IsNot) \
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None":
        return VERSION_CUDA  # ``torch.version.cuda is not None``
    if isinstance(test, cst.Comparison):
        sides = [test.left, *(c.comparator for c in test.comparisons)]
        positive = all(isinstance(c.operator, (cst.Equal, cst.In, cst.Is)) for c in test.comparisons)
        if positive and any(_is_cuda_string(side) or _is_nccl(side, qualify) for side in sides):
            return DEVICE_TYPE
        if positive and len(sides) == 2 and _a_devices_type(sides[0]) and _cuda_among_others(sides[1]):
            return DEVICE_TYPE  # ``device.type in ("cuda", "xpu")``
        if _some_cuda_device(test, qualify):
            return IS_AVAILABLE
    return None


#: what counts CUDA's devices: ``torch.cuda.device_count()``, ``len(torch.cuda.default_generators)``
_CUDA_COUNTS = frozenset({"torch.cuda.device_count", "torch.cuda.default_generators"})


def _some_cuda_device(test: cst.Comparison, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """``torch.cuda.device_count() > 0``, ``len(torch.cuda.default_generators) >= 1`` (mmpretrain's RevViT
    seeds): a count of CUDA's devices compared with none, true where ``torch.cuda.is_available()`` is."""
    if len(test.comparisons) != 1:
        return False
    operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if not isinstance(right, cst.Integer) or (right.value, type(operator)) not in (
            ("0", cst.GreaterThan), ("0", cst.NotEqual), ("1", cst.GreaterThanEqual)):
        return False
    return isinstance(test.left, cst.Call) and _counts_cuda_devices(test.left, qualify)


def _counts_cuda_devices(call: cst.Call, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """``torch.cuda.device_count()``, ``len(torch.cuda.default_generators)``: a count of CUDA's devices, which as a
    test (``if torch.cuda.device_count():``, audiocraft's models) is true where ``torch.cuda.is_available()`` is."""
    if isinstance(call.func, cst.Name) and call.func.value == "len" and call.args:
        return qualify(call.args[0].value) in _CUDA_COUNTS
    return qualify(call.func) in _CUDA_COUNTS


#: the devices of the targets that rename CUDA's: a set naming one is true on the target too
_TARGET_DEVICES = frozenset({"npu", "mlu"})


def _a_devices_type(node: cst.BaseExpression) -> bool:
    """``x.device.type``, ``device.type``, a name for one (``DEVICE_TYPE``, ``self.device_type``: unsloth's
    ``DEVICE_TYPE in ("cuda", "hip")``): what a device is, not a setting that may name something else (an
    extension's flavour: ``kind in ("cuda", "rocm")``)."""
    if isinstance(node, cst.Attribute) and node.attr.value == "type":
        return _names_a_device(node.value)
    name = (node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name)
            else "").lstrip("_").lower()
    return name == "device_type" or name.endswith("_device_type")


def _cuda_among_others(node: cst.BaseExpression) -> bool:
    """``("cuda", "xpu")`` in ``device.type in ("cuda", "xpu")``: CUDA with devices no target is (a set that names
    the target's device is true there as well: code that already dispatches per device)."""
    if not isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return False
    texts = {value.split(":")[0] for value in (string_value(e.value) for e in node.elements) if isinstance(value, str)}
    return "cuda" in texts and not texts & _TARGET_DEVICES


def tests_a_tensors_device(test: cst.BaseExpression) -> bool:
    """``x.is_cuda``, ``x.device.type == "cuda"``, ``device.type in ("cuda", "xpu")``, ``"cuda" in str(x.device)``
    (or either side of a boolean operation): the runtime's answer for a tensor or a device, not a setting the code
    chose (``self.backend == "nccl"``)."""
    if isinstance(test, cst.BooleanOperation):
        return tests_a_tensors_device(test.left) or tests_a_tensors_device(test.right)
    if isinstance(test, cst.Attribute):
        return test.attr.value == "is_cuda"
    each = _quantified(test) if isinstance(test, cst.Call) else None
    if each is not None:
        return tests_a_tensors_device(each)  # ``any(p.is_cuda for p in group["params"])``
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        for side in (test.left, test.comparisons[0].comparator):
            if isinstance(side, cst.Call) and isinstance(side.func, cst.Name) and side.func.value == "str" \
                    and side.args:
                side = side.args[0].value
            if isinstance(side, cst.Attribute) and (side.attr.value == "device" or (
                    side.attr.value == "type" and _names_a_device(side.value))):
                return True
    return False


def _quantified(call: cst.Call) -> Optional[cst.BaseExpression]:
    """What ``any(...)`` or ``all(...)`` over a generator tests of each item (``p.is_cuda`` in ``any(p.is_cuda for
    p in params)``), else ``None``."""
    if isinstance(call.func, cst.Name) and call.func.value in ("any", "all") and len(call.args) == 1 \
            and isinstance(call.args[0].value, cst.GeneratorExp):
        return call.args[0].value.elt
    return None


def _names_a_device(node: cst.BaseExpression) -> bool:
    """``x.device``, ``device``, ``self._device``, ``target_device``: a ``torch.device`` whose ``.type`` a test
    reads (trl's ``_use_triton(device)``: ``device.type in ("cuda", "xpu")``)."""
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return name.lstrip("_") == "device" or name.endswith("_device")


def _is_cuda_string(node: cst.BaseExpression) -> bool:
    text = string_value(node) if isinstance(node, cst.SimpleString) else None
    return isinstance(text, str) and (text == "cuda" or text.startswith("cuda:"))


def _is_nccl(node: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """``"nccl"`` or ``dist.Backend.NCCL``: a backend only a CUDA device runs, so a test for it is true only
    there (``if backend == dist.Backend.NCCL and not torch.cuda.is_available(): raise``), as a device-type one."""
    if isinstance(node, cst.SimpleString):
        text = string_value(node)
        return isinstance(text, str) and text.lower() == "nccl"
    return isinstance(node, cst.Attribute) and node.attr.value == "NCCL" \
        and qualify(node) in ("torch.distributed.Backend.NCCL", "torch.distributed.distributed_c10d.Backend.NCCL")


#: ``is_bnb_available()``, ``is_torch_npu_available()``, ``HAS_APEX``, ``HAVE_TRITON``, ``_xformers_available``,
#: ``importlib.util.find_spec("triton")``: a test whether a library is installed.
#: (and transformers' ``is_flash_attn_greater_or_equal_2_10()``, which is False where the library is missing; an
#: ``is_moviepy_installed()``)
_AVAILABLE = re.compile(r"^_?(?:is_\w+_available|\w*_available|has_\w+|HAS_\w+|HAVE_\w+|\w+_AVAILABLE|find_spec"
                        r"|is_\w+_installed|is_\w+_greater_or_equal\w*)$")


def names_availability(name: str) -> bool:
    """Whether a function or flag of this name says a library is installed (``libcst`` and ``ast`` readers)."""
    return bool(_AVAILABLE.match(name))


def asks_for_a_missing_library(node: cst.If) -> bool:
    """``if not is_bnb_available(): return False``: what follows in the block runs only where the library is
    installed, as the body of ``if is_bnb_available():`` does."""
    test = node.test
    return isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) \
        and availability_test(test.expression) and node.orelse is None and always_leaves(node.body, True)


def availability_test(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` runs its body only where a library is installed (alone or in an ``and``): the imports
    there are optional, as in ``try: ... except ImportError`` with a fallback."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return availability_test(test.left) or availability_test(test.right)
    node = test.func if isinstance(test, cst.Call) else test
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return names_availability(name)


def asks_for_a_build(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether a test asks whether a library or a compiled build is there (``is_flash_attn_available()``,
    ``HAS_APEX``, ``_native_available(pkg, device)``; alone or a side of an ``and``), not a question torch
    answers about a device (``torch.cuda.is_available()``, ``torch.backends.mps.is_available()``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return asks_for_a_build(test.left, qualify) or asks_for_a_build(test.right, qualify)
    node = test.func if isinstance(test, cst.Call) else test
    return availability_test(test) and not (qualify(node) or "").startswith("torch.")


#: the library a test's name asks for: ``is_flash_attn_2_available`` -> ``flash_attn_2``, ``HAS_BNB`` -> ``bnb``,
#: ``_xformers_available`` -> ``xformers``, ``APEX_AVAILABLE`` -> ``apex``, ``HAVE_TRITON`` -> ``triton``
_LIBRARY_ASKED = re.compile(r"^_?(?:is_(\w+?)_available|has_(\w+)|have_(\w+)|(\w+?)_available)$", re.IGNORECASE)


def library_asked(test: cst.BaseExpression,
                  bound: Callable[[cst.BaseExpression], Optional[cst.BaseExpression]] = lambda _: None
                  ) -> Optional[str]:
    """The library an availability test asks for, lowercased as the test names it (``is_flash_attn_available()``
    -> ``flash_attn``; ``find_spec("bitsandbytes") is not None``; a flag bound once to either, ``HAS_BNB`` ->
    ``bnb`` by its name first), or ``None``."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        test = test.left  # ``find_spec("x") is not None``
    if isinstance(test, cst.Call):
        name = _last_name(test.func)
        if name == "find_spec" and test.args and isinstance(test.args[0].value, cst.SimpleString):
            return test.args[0].value.evaluated_value.split(".", 1)[0].lower() \
                if isinstance(test.args[0].value.evaluated_value, str) else None
        found = _LIBRARY_ASKED.match(name)
        return next(g for g in found.groups() if g).lower() if found else None
    if isinstance(test, (cst.Name, cst.Attribute)):
        found = _LIBRARY_ASKED.match(_last_name(test))
        if found:
            return next(g for g in found.groups() if g).lower()
        value = bound(test)
        return library_asked(value) if value is not None and value is not test else None
    return None


#: what only an NVIDIA device answers: its compute capability and properties (``major``/``minor`` are SM
#: versions), the CUDA toolkit the torch build carries
NVIDIA_FACTS = frozenset({"torch.cuda.get_device_capability", "torch.cuda.get_device_properties",
                          "torch.version.cuda", "torch.version.hip"})


class _NvidiaFact(cst.CSTVisitor):
    def __init__(self, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> None:
        self.qualify, self.found = qualify, False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.found = self.found or self.qualify(node) in NVIDIA_FACTS
        return not self.found


def asks_for_an_nvidia_fact(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """``torch.cuda.get_device_capability() >= (8, 0)``, ``torch.version.hip is None``: a condition only an NVIDIA
    device (or CUDA build) can make true, beside ``torch.cuda.is_available()`` in torchtitan's
    ``has_cuda_capability``: the whole test asks for an NVIDIA feature, and False is its answer on a target."""
    visitor = _NvidiaFact(qualify)
    test.visit(visitor)
    return visitor.found


class _NvidiaOnly(cst.CSTVisitor):
    """Whether code asks an NVIDIA fact and places nothing (no move, no ``device=``, no other ``torch.cuda`` call)."""

    def __init__(self, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> None:
        self.qualify, self.fact, self.places = qualify, False, False

    def visit_Call(self, node: cst.Call) -> bool:
        qual = self.qualify(node.func) or ""
        if qual in NVIDIA_FACTS:  # ``get_device_properties(torch.device("cuda"))``: its argument is part of the ask
            self.fact = True
            return False
        func = node.func
        self.places = self.places or (qual.startswith("torch.cuda.") and qual not in _QUERIES) \
            or (isinstance(func, cst.Attribute) and func.attr.value in _MOVES) \
            or any(arg.keyword is not None and arg.keyword.value in _PLACING for arg in node.args)
        return not self.places

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.fact = self.fact or self.qualify(node) in NVIDIA_FACTS
        return True


_MOVES = frozenset({"to", "cuda"})
#: what a CUDA device is asked without being used: how many, which, what name (unsloth's SM100 check lists them)
_QUERIES = frozenset({"torch.cuda.device_count", "torch.cuda.get_device_name", "torch.cuda.current_device",
                      "torch.cuda.get_arch_list"})
_PLACING = frozenset({"device", "device_ids", "map_location"})


def keeps_to_nvidia_facts(code: Sequence[cst.CSTNode],
                          qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether code a CUDA test decides only reads what an NVIDIA device is (its capability or properties, to pick
    CUDA's attention config: lucidrains' ``Attend``) and places nothing: on a target the test keeps it out of
    questions only NVIDIA answers, and its False is the answer."""
    visitor = _NvidiaOnly(qualify)
    for node in code:
        node.visit(visitor)
    return visitor.fact and not visitor.places


def _last_name(node: cst.BaseExpression) -> str:
    return node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""


#: ``is_npu_available``, ``is_torch_mlu_available``, ``torch.npu.is_available``, ``torch_npu.npu.is_available``
_AVAILABILITY_OF = re.compile(r"^is_(?:torch_)?([a-z]+)_available$")
#: ``torch.mlu.is_available``, ``torch_npu.npu.is_available``, ``torch.backends.mps.is_available``
_MODULE_AVAILABILITY = re.compile(r"^torch(?:_[a-z]+)?\.(?:backends\.)?([a-z]+)\.is_available$")


def accelerators_tested(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> List[str]:
    """The accelerators other than CUDA that a test names: a string (``device.type == "npu"``), an availability
    call (``is_npu_available()``, ``torch.mlu.is_available()``) or a flag named for one (``pt_mlu_available``), or
    an enum member (``RNGType.NPU``); bounded, never a deep walk."""
    found: List[str] = []
    stack = [test]
    while stack and len(found) < 8 and len(stack) < 256:
        current = stack.pop()
        if isinstance(current, cst.SimpleString):
            value = string_value(current)  # (a strip of the quotes and prefixes took npu's "u" too)
            text = value.split(":", 1)[0].lower() if isinstance(value, str) else ""
            if text in ACCELERATORS:
                found.append(text)
        elif isinstance(current, cst.Call):
            func = current.func
            name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) \
                else None
            match = _AVAILABILITY_OF.match(name or "") or _MODULE_AVAILABILITY.match(qualify(func) or "")
            if match and match.group(1) in ACCELERATORS:
                found.append(match.group(1))
            stack.extend(a.value for a in current.args)
        elif isinstance(current, cst.BooleanOperation):
            stack.extend((current.left, current.right))
        elif isinstance(current, cst.UnaryOperation):
            stack.append(current.expression)
        elif isinstance(current, cst.Comparison):
            stack.append(current.left)
            stack.extend(c.comparator for c in current.comparisons)
        elif isinstance(current, (cst.Tuple, cst.List, cst.Set)):
            stack.extend(e.value for e in current.elements)
        elif isinstance(current, cst.Name):  # a flag bound to one: ``pt_mlu_available``, ``has_npu``
            words = current.value.lower().split("_")
            if "available" in words or words[0] in ("is", "has"):
                found.extend(word for word in words if word in ACCELERATORS)
        elif isinstance(current, cst.Attribute) and current.attr.value.isupper():
            # an enum member naming a device: ``RNGType.NPU``, ``DistributedType.MULTI_MLU``
            found.extend(word for word in current.attr.value.lower().split("_") if word in ACCELERATORS)
    return found


#: Words that say a branch does device work: a name or an attribute holding one (``setup_gpu``, ``.to(``,
#: ``map_location``, ``DataParallel``) or a string naming a device or a backend; read word by word
#: (``compiled_autograd`` holds no ``mpi``, ``sample`` no ``amp``).
_DEVICE_WORDS = frozenset({"cuda", "gpu", "cpu", "device", "half", "bfloat16", "float16", "parallel", "distributed",
                           "autocast", "scaler", "amp", "rank", "world", "exit", "abort"} | ACCELERATORS | BACKENDS)
_DEVICE_PAIRS = frozenset({("pin", "memory"), ("map", "location")})
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+")


def names_device_work(text: str) -> bool:
    """Whether an identifier or a string names device work, by its words (``setup_gpu``, ``DataParallel``,
    ``"cuda:0"``, ``pin_memory``, or exactly ``to``)."""
    if text == "to":
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    return any(w in _DEVICE_WORDS for w in words) or any(pair in _DEVICE_PAIRS for pair in zip(words, words[1:]))


#: calls that only say something (a message, a log line): the device words in their arguments are text
_SAYS = frozenset({"print", "warn", "debug", "info", "warning", "log", "echo", "secho"})


def _says_only(func: cst.BaseExpression) -> bool:
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in _SAYS


#: CUDA's own seeding, which ``torch.manual_seed`` already does for every device (a vendor's too)
_CUDA_SEEDS = frozenset({"manual_seed", "manual_seed_all", "seed", "seed_all"})


def _cuda_setting(small: cst.BaseSmallStatement) -> bool:
    """``torch.cuda.manual_seed(s)``, ``torch.backends.cudnn.benchmark = True``,
    ``torch.backends.cuda.matmul.allow_tf32 = True``: a setting only CUDA reads (norse's MNIST task, alibi-detect's
    ``set_seed``), which a test of CUDA's availability may skip on a target and change nothing it runs."""
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        name = dotted(small.value.func) or ""
        return name.rpartition(".")[0].endswith("cuda") and name.rpartition(".")[2] in _CUDA_SEEDS
    if isinstance(small, cst.Assign):
        names = [dotted(t.target) or "" for t in small.targets]
        return all(".cudnn." in f".{n}" or n.startswith("torch.backends.cuda.") for n in names)
    return False


class _DeviceWork(cst.CSTVisitor):
    """Whether a branch names anything of a device, or leaves its block (``raise``, ``return``...)."""

    def __init__(self, leaving: Tuple[type, ...], reads_what_is_said: bool = False, sets_flags: bool = False) -> None:
        self.found = False
        self.leaving = leaving
        #: whether a message's arguments count where they are not text (``print(torch.cuda.memory_allocated())``)
        self.reads_what_is_said = reads_what_is_said
        #: whether setting a local flag counts (``use = True``): what it decides is read further on
        self.sets_flags = sets_flags
        self._saying = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found:
            return False
        if isinstance(node, cst.SimpleStatementLine) and all(_cuda_setting(small) for small in node.body):
            return False  # CUDA's own seed and cuDNN switches: on a target torch.manual_seed seeds its device
        if isinstance(node, self.leaving):
            self.found = True
        elif self.sets_flags and isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) \
                and node.value.value in ("True", "False") and all(isinstance(t.target, cst.Name) for t in node.targets):
            self.found = True  # tsai's ``if torch.cuda.is_available() or _has_mps(): use = True``, then ``if use:``
        elif isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "map_location":
            return False  # where a checkpoint is read to: the model it is loaded into moves it (``torch.load``)
        elif isinstance(node, cst.Call) and _says_only(node.func):
            # ``warnings.warn("... on CPU when CUDA is available")``: words, not work
            self._saying += self.reads_what_is_said
            return self.reads_what_is_said
        elif isinstance(node, cst.Name) and names_device_work(node.value):
            self.found = True
        elif isinstance(node, cst.SimpleString) and not self._saying and names_device_work(node.value):
            self.found = True
        return not self.found

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._saying and isinstance(original_node, cst.Call) and _says_only(original_node.func):
            self._saying -= 1


def decides_device_work(branches: "List[Optional[cst.CSTNode]]") -> bool:
    """Whether what an ``if`` (or a conditional expression) decides between does device work: places a tensor,
    picks a device or a backend, casts to 16 bits, wraps a model, or leaves the block. A test of
    ``torch.cuda.is_available()`` that decides only between branches that do none (chemprop's checkpoint loader:
    ``rebuild(metric) if not torch.cuda.is_available() and ... else metric``; mmagic's DeblurGANv2:
    ``torch.load(path)`` or ``torch.load(path, map_location="cpu")``, a checkpoint read to where the model it is
    loaded into moves it) changes nothing a target runs. A branch that sets a flag (``use = True``) decides what
    reads the flag further on, and counts as work."""
    visitor = _DeviceWork((*_LEAVING, cst.Assert), sets_flags=True)
    for branch in branches:
        if branch is not None:
            branch.visit(visitor)
    return visitor.found


def only_checks(body: cst.BaseSuite, stops: bool = True) -> bool:
    """Whether a block only checks: each statement raises, asserts, passes, or only says something (``print``,
    ``log.info``, ``warnings.warn``): flair's ``log.info("Batch %d is not on CUDA ..."); raise Exception(...)``.
    ``stops=False``: only says something, never stops the run (alibi-detect's SVM warns that SGD uses the GPU
    for one part only)."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else (body,)
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Pass) or (stops and isinstance(small, (cst.Raise, cst.Assert))):
                continue
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and _says_only(small.value.func)):
                return False
    return True


def picks_gpu(branch: cst.CSTNode) -> bool:
    """Whether a branch of a CUDA test picks the string ``"gpu"``: is it (a conditional expression's), or binds or
    returns it (``trainer_kwargs["accelerator"] = "gpu"``; lightly's ``accelerator = "gpu" if ... else "cpu"``).
    ``"gpu"`` is a framework's name for an NVIDIA GPU (Lightning resolves ``accelerator="gpu"`` to CUDA or MPS
    only, Ray's ``{"GPU": n}`` waits for NVIDIA devices): not a device string the target's runtime renames."""
    if isinstance(branch, cst.BaseExpression):
        return _is_gpu(branch)
    finder = _PicksGpu()
    branch.visit(finder)
    return finder.found


def _is_gpu(value: Optional[cst.BaseExpression]) -> bool:
    return isinstance(value, cst.SimpleString) and str(value.evaluated_value).lower() == "gpu"


class _PicksGpu(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Assign(self, node: cst.Assign) -> None:
        self.found |= _is_gpu(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        self.found |= _is_gpu(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def cuda_branch_does_device_work(body: cst.BaseSuite) -> bool:
    """Whether the body of a device-type test with no other branch does device work the target would miss: a
    check there (an ``assert``, a ``raise``, a warning in words) guards CUDA's own case (a graph capture's fixed
    batch), and skipping it elsewhere changes nothing; a ``return`` or ``break`` changes the way on, and a message
    that reads the device (``print(torch.cuda.max_memory_allocated())``) measures it."""
    visitor = _DeviceWork((cst.Return, cst.Continue, cst.Break), reads_what_is_said=True)
    body.visit(visitor)
    return visitor.found


#: a flag named for a torch release it checks for (Lightning's and torchmetrics' ``_TORCH_GREATER_EQUAL_2_4``)
#: a flag named for the release it is at least: ``_TORCH_GREATER_EQUAL_2_4``, ``TORCH_GE_2_1``, and ultralytics'
#: bare ``TORCH_2_4`` (``check_version(TORCH_VERSION, "2.4.0")``)
_TORCH_FLAG = re.compile(r"^_?TORCH_(?:(?:GREATER_EQUAL|GE|VERSION_GE|AT_LEAST|GEQ)_)?(\d+)_(\d+)(?:_\d+)?$",
                         re.IGNORECASE)
_RELEASE = re.compile(r"^(\d+)\.(\d+)")
_TORCH_VERSION = frozenset({"torch.__version__", "torch.version.__version__"})


Release = Tuple[int, int]


def torch_version_test(test: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]],
                       bound: Callable[[cst.BaseExpression], Optional[cst.BaseExpression]] = lambda _: None
                       ) -> Optional[Tuple[Release, bool]]:
    """``(release, at_least)`` for a test of the installed torch's version: a flag named for the release
    (``_TORCH_GREATER_EQUAL_2_4``, negated by ``not``), ``torch.__version__`` (bare, or in ``version.parse``)
    compared with ``>=`` or ``<`` to a release string, or a library's helper (``is_torch_version(">=", "2.4")``);
    else ``None``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = torch_version_test(test.expression, qualify, bound)
        return (inner[0], not inner[1]) if inner else None
    name = test.value if isinstance(test, cst.Name) else test.attr.value if isinstance(test, cst.Attribute) else None
    if name is not None:
        flag = _TORCH_FLAG.match(name)
        if flag:
            return (int(flag.group(1)), int(flag.group(2))), True
        # chronos' ``is_torch_geq_2p9 = version.parse(torch.__version__) >= version.parse("2.9.0")``, tested later
        value = bound(test)
        return torch_version_test(value, qualify) if value is not None and value is not test else None
    if isinstance(test, cst.Call):
        return _version_helper(test)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if not isinstance(operator, (cst.GreaterThanEqual, cst.LessThan)):
        return None
    vision = _is_version_of(test.left, qualify, bound, _TORCHVISION_VERSION)
    if not vision and not _is_version_of(test.left, qualify, bound, _TORCH_VERSION):
        return None
    release = _RELEASE.match(_string_in(right) or "")
    if release is None:
        return None
    at = (int(release.group(1)), int(release.group(2)))
    return (_torch_of_torchvision(at) if vision else at), isinstance(operator, cst.GreaterThanEqual)


#: ``torchvision.__version__``: each torchvision release pairs with one torch release
_TORCHVISION_VERSION = frozenset({"torchvision.__version__", "torchvision.version.__version__"})


def _torch_of_torchvision(release: Release) -> Release:
    """The torch release a torchvision release pairs with (torchvision's README table): 0.9 with 1.8, 0.15 with
    2.0, 0.19 with 2.4; basicsr's ``if LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0'):``."""
    major, minor = release
    if major != 0:  # no torchvision 1.x yet: a release past every table row, compared as such
        return (2, 100)
    return (1, minor - 1) if minor < 15 else (2, minor - 15)


#: torch's device-generic forms of CUDA's mixed-precision and device-module APIs, and the first release whose
#: docs list each as called here (PyTorch's docs for that release: ``torch.autocast`` 1.10, ``torch.amp.GradScaler
#: (device)`` 2.3, ``torch.get_device_module`` 2.3, ``torch.amp.custom_fwd(device_type=)`` 2.4)
_GENERIC_SINCE: Mapping[str, Release] = {
    "torch.autocast": (1, 10), "torch.amp.autocast": (1, 10), "torch.amp.GradScaler": (2, 3),
    "torch.get_device_module": (2, 3), "torch.amp.custom_fwd": (2, 4), "torch.amp.custom_bwd": (2, 4),
}
#: the errors an older torch raises at a generic form it lacks (a missing name, a keyword it does not take)
_MISSING_FORM_ERRORS = frozenset({"AttributeError", "TypeError", "ImportError", "Exception"})


def older_torch_handlers(node: cst.Try, qualify: Callable[[cst.BaseExpression], Optional[str]]
                         ) -> List[Tuple[cst.ExceptHandler, Release]]:
    """open_clip's ``try: scaler = torch.amp.GradScaler(device=device)`` ``except (AttributeError, TypeError):
    scaler = torch.cuda.amp.GradScaler()``: a handler for the errors a torch without the generic form the body
    calls raises runs only on a torch older than that form's first release (``_GENERIC_SINCE``): the handlers,
    each with that release."""
    since = [release for call in calls_within(node.body)
             if (release := _GENERIC_SINCE.get(qualify(call.func) or "")) is not None]
    if not since:
        return []
    release = max(since)
    return [(handler, release) for handler in node.handlers if _catches_missing_form(handler)]


def missing_module_handlers(node: cst.Try, qualify: Callable[[cst.BaseExpression], Optional[str]]
                            ) -> List[cst.ExceptHandler]:
    """llamafactory's ``try: return getattr(torch, device_name)`` ``except AttributeError: return torch.cuda``:
    the handlers that run only where torch has no module of the name asked for (which the target's runtime adds:
    ``torch.npu``), when the body asks ``getattr(torch, <a name>)``."""
    asks = any(isinstance(call.func, cst.Name) and call.func.value == "getattr" and len(call.args) >= 2
               and qualify(call.args[0].value) == "torch" and not isinstance(call.args[1].value, cst.SimpleString)
               for call in calls_within(node.body))
    return [handler for handler in node.handlers if asks and catches(handler, frozenset({"AttributeError"}))]


#: what a device without a kernel for an op raises (``NotImplementedError: Could not run 'aten::...' with
#: arguments from the 'PrivateUse1' backend``, a vendor's ``RuntimeError``), and the handlers that catch anything
_OP_FAILURES = frozenset({"NotImplementedError", "RuntimeError", "Exception", "BaseException"})


def covers_op_failure(node: cst.Try) -> bool:
    """Whether a handler of ``node`` catches an op's failure (``_OP_FAILURES``, or a bare ``except:``) and goes on
    (no ``raise`` in it): the statements of its body have the code's own fallback."""
    return any((handler.type is None or catches(handler, _OP_FAILURES)) and goes_on(handler)
               for handler in node.handlers)


def calls_within(body: cst.BaseSuite) -> List[cst.Call]:
    """The calls in a block's simple statements (not in nested blocks: bounded, never a deep walk)."""
    found: List[cst.Call] = []
    for statement in body.body if isinstance(body, cst.IndentedBlock) else ():
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                value = getattr(small, "value", None)
                if isinstance(value, cst.Call):
                    found.append(value)
    return found


def _catches_missing_form(handler: cst.ExceptHandler) -> bool:
    return handler.type is None or catches(handler, _MISSING_FORM_ERRORS)


def goes_on(handler: cst.ExceptHandler) -> bool:
    """Whether a handler goes on after what it caught: no ``raise`` among its statements."""
    body = handler.body.body if isinstance(handler.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, cst.Raise) for s in stmt.body):
            return False
    return True


def catches(handler: cst.ExceptHandler, errors: Container[str]) -> bool:
    """Whether a handler names one of ``errors`` (alone or in a tuple, by its last name: ``builtins.ImportError``);
    a bare ``except:`` names none."""
    if handler.type is None:
        return False
    types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    return any(isinstance(t, (cst.Name, cst.Attribute)) and dotted(t).split(".")[-1] in errors for t in types)


#: the libraries' helpers that compare the installed torch with a release: accelerate's and trl's
#: ``is_torch_version(">=", "2.4.0")``, transformers' ``is_torch_greater_or_equal("2.4")``
_VERSION_HELPERS = {"is_torch_version": None, "is_torch_greater_or_equal": True, "is_torch_greater_or_equal_than": True}


def _version_helper(call: cst.Call) -> Optional[Tuple[Release, bool]]:
    """``(release, at_least)`` for a call of a version helper (``_VERSION_HELPERS``) with literal arguments."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if name not in _VERSION_HELPERS:
        return None
    texts = [a.value.evaluated_value if isinstance(a.value, cst.SimpleString) else None for a in call.args]
    at_least = _VERSION_HELPERS[name]
    if at_least is None:  # ``(operator, release)``: ``>=`` or ``<``
        if len(texts) != 2 or texts[0] not in (">=", "<"):
            return None
        at_least, texts = texts[0] == ">=", texts[1:]
    release = _RELEASE.match(texts[0] or "") if len(texts) == 1 and isinstance(texts[0], str) else None
    return ((int(release.group(1)), int(release.group(2))), at_least) if release else None


def _is_version_of(node: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]],
                   bound: Callable[[cst.BaseExpression], Optional[cst.BaseExpression]], names: FrozenSet[str]) -> bool:
    """``torch.__version__`` (one of ``names``), parsed or not, written here or bound to a name (axolotl's
    ``torch_version = version.parse(torch.__version__)``)."""
    node = bound(node) or node
    if isinstance(node, cst.Call) and len(node.args) == 1:  # ``version.parse(torch.__version__)``, ``Version(...)``
        node = node.args[0].value
    return qualify(node) in names


def _string_in(node: cst.BaseExpression) -> Optional[str]:
    """``"2.4"``, or the string a ``version.parse("2.4.0")`` / ``Version("2.4")`` call reads."""
    if isinstance(node, cst.Call) and len(node.args) == 1:
        node = node.args[0].value
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        return text if isinstance(text, str) else None
    return None
