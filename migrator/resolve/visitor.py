"""The visitor: walks one module once and turns imports, calls, attributes, assignments and environment
accesses into ``Usage`` records. Binding lives in ``scope``, evaluation in ``values``, receiver typing in
``receivers``, string literals in ``literals`` (a second visitor on the same walk) and recording in
``emit``; what counts as interesting comes from the rules' ``Vocabulary``."""

from __future__ import annotations

import re
from collections import ChainMap
from types import MappingProxyType
from typing import (Any, Callable, Dict, FrozenSet, List, Mapping, MutableMapping, Optional, Sequence, Set, Tuple,
                    Union, cast)

import libcst as cst
import libcst.matchers as matchers

from ..model import Argument, Confidence, CudaGuard, GuardKind, Span, TorchGate, Usage, Value, ValueKind
from .attribute_flags import CudaAttributeFlags
from .autocast_regions import AUTOCASTS, RegionReader, disables_autocast
from .dotted import dotted
from .emit import Emitter
from .keys_set import KeysSet
from .guards import (DEVICE_TYPE, IS_AVAILABLE, VERSION_CUDA, accelerators_tested, always_leaves, asks_for_a_build,
                     asks_for_a_missing_library, asks_for_an_nvidia_fact, availability_test, body_guard, calls_within,
                     covers_op_failure, cuda_branch_does_device_work, cuda_test, decides_device_work,
                     general_path_when_asked, keeps_to_nvidia_facts, leaves_for_accelerators, leaves_off_availability,
                     leaves_off_cuda, library_asked, missing_module_handlers, names_availability, names_the_host,
                     older_torch_handlers, only_checks, picks_gpu, skipped_off_cuda, takes_general_path,
                     tests_a_tensors_device, torch_version_test)
from .literals import Literals, tested_key
from .strings import string_value
from .modules import (AVAILABLE_ONLY, BUILT_BY, CHECK_ONLY, DEFAULT_TENSOR_TYPE, DTYPE_COMPARED, DTYPE_LISTED,
                      DTYPE_ON_HOST, ENV_KEY, FUNCTION_VALUE, HANDLED_FAILURE, HOST_INPUT, IDLE_REGION, IDLE_TEST,
                      LIBRARY_GATE, MISSING_MODULE, NEVER_ENTERED, NVIDIA_FEATURE, LOADER_WORKERS, OPTIONAL_BUILD,
                      PICKS_GPU, PIN_MEMORY, PLACED_BY, PROGRAM_PROBED, REPORTED, TENSOR_FACTORIES, TYPE_CHECK,
                      interesting, interesting_base, is_torch, is_torch_dtype)
from .receivers import UNKNOWN, instance_class, method_owner, of_a_class_defined_elsewhere, receiver_kind
from .scope import (LOADED, Binding, ClassInfo, Scopes, catches_import_error, leaves_undefined,
                    probes_a_program, required_imports, unpacked_pairs)
from .values import STRING_NODES, Evaluator, argparse_option
from .vocabulary import Vocabulary
from ..model import UsageKind

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CHOICE = ValueKind.CHOICE
_DEVICE = ValueKind.DEVICE
_FSTR = ValueKind.FSTR
_REF = ValueKind.REF
_STR = ValueKind.STR

#: tensor methods named for CUDA: a move to the device wherever they are called, in a module that imports torch
#: or not (torchreid's engines move a batch with ``imgs.cuda()`` in files that import only their base class)
_NAMED_FOR_CUDA = frozenset({"cuda"})
#: subscripts that build a type from the types named inside (a type alias is walked, an annotation is not)
_TYPE_NAMES = frozenset({"Union", "Optional", "List", "Tuple", "Dict", "Sequence", "Type", "Literal", "Callable",
                         "Iterable", "Mapping"})
_TYPE_CONSTRUCTORS = frozenset(f"{module}.{name}" for module in ("typing", "typing_extensions") for name in _TYPE_NAMES)


class ModuleResolver:
    def __init__(self, scopes: Scopes, emitter: Emitter, tensor_methods: FrozenSet[str]) -> None:
        self.scopes = scopes
        self.vocabulary: Vocabulary = scopes.vocabulary
        self.emitter = emitter
        self.consumed: Set[int] = set()
        self.values = Evaluator(scopes, emitter, self.consumed)
        self.literals = Literals(scopes, emitter, self.consumed, self.values)
        self.methods = tensor_methods | self.vocabulary.methods
        #: method names worth an instance lookup (``impl`` for ``torch.library.Library.impl``)
        self.instance_method_names = frozenset(api.rsplit(".", 1)[-1] for api in self.vocabulary.instance_methods)
        self.kernels: List[str] = []  # functions decorated as device kernels (``@triton.jit``), qualified
        #: of ``kernels``, those decorated through a name another module of the project binds (``from ._triton
        #: import triton``): the kernel, and that name qualified (``pkg._triton.triton``)
        self.kernel_sources: List[Tuple[str, str]] = []
        #: the module-level names an import under ``try`` binds (``try: import triton`` ... ``except: triton =
        #: None``), qualified: another module that imports them has them only where the library is installed
        self.optional_imports: Tuple[str, ...] = ()
        self.constants: Dict[str, Value] = {}  # module-level names bound once to a value rules read
        self.imports_torch = False
        self._cuda_bodies: Dict[int, CudaGuard] = {}  # the body of an ``if`` that tests for CUDA -> its guard
        self._torch_gates: Dict[int, TorchGate] = {}  # a branch of a test of torch's version -> when it runs
        self._optional_bodies: Set[int] = set()  # the body of an ``if`` that tests whether a library is installed
        self._probe_bodies: Set[int] = set()  # the body of a ``try`` whose handler covers a missing program
        self._keys_set = KeysSet()  # the keys each function's own block set: a default read after is dead
        self._type_checks: Set[int] = set()  # the classes an ``isinstance`` / ``issubclass`` call tests against
        self._no_grad_bodies: Set[int] = set()  # bodies that run without autograd (no backward ops)
        self._chained: Set[int] = set()  # the ``elif`` nodes of a chain already read from its first ``if``
        self._chain_tops: Set[int] = set()  # the first ``if`` of a chain whose tests name another accelerator
        #: a call -> its ``Usage.context``, marked by the node above it before the walk reaches it (``_mark``):
        #: ``torch.cuda.is_available()`` deciding no device work (``IDLE_TEST``) or only ``pin_memory``
        #: (``PIN_MEMORY``), a value only printed or logged (``REPORTED``), an autocast around nothing it lowers
        #: (``IDLE_REGION``) or never entered (``NEVER_ENTERED``), a CUDA test beside a test for a library or an
        #: NVIDIA fact (``LIBRARY_GATE`` and the library as the test names it, or ``NVIDIA_FEATURE``)
        self._call_contexts: Dict[int, str] = {}
        #: an ``if not <availability flag>: return`` that asks for an NVIDIA feature -> the flag's CUDA test
        self._flag_rests: Dict[int, Span] = {}
        #: conditional expressions that choose where ``torch.load`` puts what it reads (``map_location=``)
        self._map_locations: Set[int] = set()
        self._functions: Dict[str, cst.FunctionDef] = {}  # the module's top-level functions
        self._methods: List[Dict[str, cst.FunctionDef]] = []  # per class the walk is in, its methods
        self._tests: Dict[int, bool] = {}  # the body after a CUDA test with another branch: the test ends there
        self._blocks: List[cst.BaseSuite] = []  # the blocks the walk is inside, innermost last
        #: per function the walk is inside (the module first): the names bound to a device-type test
        self._device_flags: List[Dict[str, Span]] = [{}]
        #: the module's functions that return a device's type test (``def _is_cuda(device): return device.type ==
        #: "cuda" and ...``): a call of one tests the device as its body does
        self._predicates: Dict[str, Span] = {}
        #: per class the walk is in: ``self.<name>`` -> the device test it is set true under (``attribute_flags``)
        self._attribute_flags: List[CudaAttributeFlags] = []
        #: the value each flag of ``_device_flags`` was bound to (``grads[0].device.type == "cuda"``)
        self._flag_values: List[Dict[str, cst.BaseExpression]] = [{}]
        #: per function the walk is inside: each flag an ``if`` tested -> whether every such ``if`` had the other
        #: way written (``_flags_read``)
        self._flag_tests: List[Dict[str, bool]] = [{}]
        #: a block -> how many guards its rest is under (after ``if x.device.type != "cuda": return``)
        self._rest_guards: Dict[int, int] = {}
        #: per block, how many entries of ``emitter.chain_siblings`` its rest holds: after ``if device == "npu":
        #: ... return``, the accelerators whose own way was taken before it
        self._rest_siblings: Dict[int, int] = {}
        #: a block -> how many availability tests its rest is under (after ``if not is_x_available(): return``)
        self._rest_optional: Dict[int, int] = {}

    # ------------------------------------------------------------------------------ scopes

    def visit_Module(self, node: cst.Module) -> None:
        self._functions = {f.name.value: f for f in node.body if isinstance(f, cst.FunctionDef)}
        self._predicates = {name: self.emitter.span(test) for name, test in
                            ((name, _returned_test(f)) for name, f in self._functions.items()) if test is not None}
        binding = self.scopes.enter("module", self.scopes.module_name, node.body).binding
        if binding.guarded:
            required_imports(node, binding)
        self.imports_torch = any(is_torch(q) for q in binding.imports.values()) or bool(binding.star_aliases)

    def visit_ClassDef(self, node: cst.ClassDef) -> Optional[bool]:
        qual = self.scopes.qualname(node.name.value)
        bases = []
        for arg in node.bases:
            base = self.scopes.qualify(arg.value)
            if base:
                bases.append(base)
                if interesting_base(base) or base in self.vocabulary.subclassed:
                    self.emitter.emit(base, UsageKind.SUBCLASS, arg.value, context=qual)
            self.consumed.add(id(arg.value))
        methods = {f.name.value: f for f in _body(node) if isinstance(f, cst.FunctionDef)}
        self._methods.append(methods)
        self._attribute_flags.append(CudaAttributeFlags(node, self.scopes.qualify, self.emitter.span))
        info = self.scopes.classes.setdefault(node.name.value,
                                              ClassInfo(qual, tuple(bases), methods=frozenset(methods)))
        self.scopes.enter("class", node.name.value, _body(node), class_info=info)
        for decorator in node.decorators:
            self._decorator(decorator)
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._methods.pop()
        self._attribute_flags.pop()
        self.scopes.leave()

    # ------------------------------------------------------------------------------ CUDA-only branches

    def visit_If(self, node: cst.If) -> None:
        if id(node) not in self._chained:  # the first test of an if/elif chain: the devices its tests name
            names = self._chain_devices(node)
            if names:
                self._chain_tops.add(id(node))
                self.emitter.chain_siblings.append(names)
                bound = self._bound_once(node.test)  # ``if pt_cuda_available:`` first: what the flag was bound to
                if bound is not None:
                    self.emitter.siblings_later.update((i, names) for i in _node_ids(bound))
        self._idle_availability(node.test, (node.body, node.orelse))
        self._asks_nvidia_only(node)
        release = torch_version_test(node.test, self.scopes.qualify, self._bound_once)
        if release is not None:  # ``if _TORCH_GREATER_EQUAL_2_4: ... else: <torch.cuda.amp>``
            self._torch_gates[id(node.body)] = TorchGate(*release)
            if isinstance(node.orelse, cst.Else):
                self._torch_gates[id(node.orelse.body)] = TorchGate(release[0], not release[1])
        if availability_test(node.test):  # ``if is_bnb_available(): import bitsandbytes``: optional there
            self._optional_bodies.add(id(node.body))
            if asks_for_a_build(node.test, self.scopes.qualify) \
                    and (node.orelse is not None or always_leaves(node.body, self._followed(node))):  # another way
                self.emitter.contexts_later.update((i, AVAILABLE_ONLY) for i in _node_ids(node.body, 4096))
        self._what_the_test_says_of_its_body(node)
        if self.literals.cuda_error_test(node.test):  # ``if "CUDA out of memory" in str(e):``: CUDA's errors only
            self._cuda_bodies[id(node.body)] = CudaGuard(GuardKind.OTHER_BRANCH, self.emitter.span(node.test))
        kind = body_guard(node, self._followed(node), self.scopes.qualify, self._flags(), lambda: self._after(node))
        if kind is not None:
            flag = node.test.value if isinstance(node.test, cst.Name) else None
            # ``if check_sync:`` after ``check_sync = idx == 1 and self.device == "cuda"``: the test is the binding's
            # (and ``if self.cpu_cache:`` the test's the class set it true under)
            span = self._device_flags[-1].get(flag) if flag else \
                self._attribute_flags[-1].get(dotted(node.test)) if self._attribute_flags else None
            span = span or self.emitter.span(node.test)
            key = tested_key(node.test)
            self._cuda_bodies[id(node.body)] = CudaGuard(kind, span, key)
            # the test is walked next, before the body: a check, not a device (``torch.version.cuda``: a test of
            # the torch build, judged with the branch it decides)
            checks_only = self._checks_cuda_case(node, kind)
            if kind == GuardKind.OTHER_BRANCH or checks_only \
                    or cuda_test(node.test, self.scopes.qualify) == VERSION_CUDA:
                self.emitter.cuda_guards.append(CudaGuard(GuardKind.TEST, span, key))
                self._tests[id(node.body)] = True
            self._flags_read(node.test, kind == GuardKind.OTHER_BRANCH or checks_only)
        elif takes_general_path(node, self.scopes.qualify, self._flags()) \
                or general_path_when_asked(node, self.scopes.qualify, self._flags()):  # (also what leaves off CUDA)
            span = self.emitter.span(node.test)
            self.emitter.cuda_guards.append(CudaGuard(GuardKind.TEST, span))
            self._tests[id(node.body)] = True
            self._flags_read(node.test, True)
            # ``if x.device.type not in ("cuda", "meta"): ... else: <CUDA's>`` (not after an ``and``: the test
            # alone is a check there, other conditions lead to its ``else`` on every device)
            if isinstance(node.orelse, cst.Else) and takes_general_path(node, self.scopes.qualify, self._flags()):
                self._cuda_bodies[id(node.orelse.body)] = CudaGuard(GuardKind.OTHER_BRANCH, span)

    def _flags(self) -> Mapping[str, Span]:
        """The names that test the device where the walk is: the flags bound in its function, its class's
        attributes set true only on CUDA (``_attribute_flags``), then the module's predicates (``_predicates``)."""
        maps: List[Mapping[str, Span]] = [m for m in (self._device_flags[-1], self._predicates) if m]
        maps[1:1] = self._attribute_flags[-1:]  # (read only when a ``self.<name>`` is asked for: never emptied)
        # (ChainMap only reads them: a lookup never writes)
        return ChainMap(*cast(List[MutableMapping[str, Span]], maps)) if len(maps) > 1 else \
            maps[0] if maps else self._device_flags[-1]

    def _what_the_test_says_of_its_body(self, node: cst.If) -> None:
        """What an ``if``'s test alone says of the code it decides: that it runs on host tensors, only on a
        library's object a caller hands in, or only says something."""
        if any(_tests_on_the_host(side) for side in _conjuncts(node.test)):
            # torchmetrics' ``if var_x.dtype == torch.float16 and var_x.device == torch.device("cpu"):``: host tensors
            self.emitter.contexts_later.update((i, HOST_INPUT) for i in _node_ids(node.body, 4096))
        handed_in = self._isinstance_class(node.test)
        if handed_in is not None:  # ``elif isinstance(edge_index, SparseTensor): remove_diag(edge_index)``
            self.emitter.objects_later.update((i, handed_in) for i in _node_ids(node.body, 4096))
        if node.orelse is None and only_checks(node.body, stops=False):  # ``if device.type == "cuda": warn(...)``
            self.literals.decides_a_message(node.test)

    def _isinstance_class(self, test: cst.BaseExpression) -> Optional[str]:
        """The class, qualified, of ``isinstance(x, SparseTensor)`` as an ``if``'s whole test: its body runs only on
        an object of that class a caller hands in (a class of the project's own or torch's is no such object)."""
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[1].value, (cst.Name, cst.Attribute))):
            return None
        qualified = self.scopes.qualify(test.args[1].value)
        return qualified if qualified and "." in qualified and not qualified.startswith("torch.") else None

    def _checks_cuda_case(self, node: cst.If, kind: GuardKind) -> bool:
        """``if is_capturing: assert self.dim_size > 0; warn(...)`` after ``is_capturing = x.is_cuda and ...``: a
        device-type test with no other branch whose body only checks CUDA's own case: skipped elsewhere, nothing
        is missed."""
        return kind == GuardKind.DECIDED_BY_TEST and node.orelse is None \
            and cuda_test(node.test, self.scopes.qualify, self._flags()) == DEVICE_TYPE \
            and (not cuda_branch_does_device_work(node.body) or self._cuda_asked_but_missing(node.test))

    def _cuda_asked_but_missing(self, test: cst.BaseExpression) -> bool:
        """``"cuda" in device and not torch.cuda.is_available()`` (gliner's pipelines, pykeen's
        ``resolve_device``): CUDA's own fallback when CUDA was asked for and is not there; on a target the device
        asked for is its own, the test is False, and whatever the body does (fall back to the CPU, warn) is
        CUDA's case alone."""
        sides: List[cst.BaseExpression] = []
        stack = [test]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
                stack.extend((node.left, node.right))
            else:
                sides.append(node)
        missing = any(isinstance(side, cst.UnaryOperation) and isinstance(side.operator, cst.Not)
                      and cuda_test(side.expression, self.scopes.qualify) == IS_AVAILABLE for side in sides)
        return missing and any(cuda_test(side, self.scopes.qualify, self._flags()) == DEVICE_TYPE for side in sides)

    def _bound_once(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The one value a plain name is bound to in the scopes the walk is in, else ``None``."""
        if not isinstance(node, cst.Name):
            return None
        qual, binding = self.scopes.lookup(node.value)
        values = binding.values.get(node.value) if qual is None and binding is not None else None
        return values[0] if values and len(values) == 1 else None

    def _flags_read(self, test: cst.BaseExpression, other_way: bool) -> None:
        """Notes how an ``if`` tests the flags it reads (``use_cuda_kernel`` after ``use_cuda_kernel =
        g.device.type == "cuda"``): ``other_way`` when every device but CUDA takes a way written for it there
        (an ``else``, the body of a ``not``, or a case that only checks CUDA's own state)."""
        flags, seen = self._device_flags[-1], self._flag_tests[-1]
        for name in _names_tested(test):
            if name in flags:
                seen[name] = seen.get(name, True) and other_way

    def _settle_flags(self) -> None:
        """A flag that every ``if`` of its scope tests with the other way written: its binding is such a test
        too (``elif norm == 2.0 and use_cuda_kernel: <fused> else: <reference>``); one ``if`` that decides work
        only CUDA does keeps it (``if has_cuda_rng_state: torch.cuda.set_rng_state(...)``)."""
        values = self._flag_values[-1]
        for name, other_way in self._flag_tests.pop().items():
            value = values.get(name)
            if other_way and value is not None:
                guard = CudaGuard(GuardKind.TEST, self._device_flags[-1][name])
                self.emitter.tested_later.update((i, guard) for i in _node_ids(value))

    def visit_For(self, node: cst.For) -> None:
        """``for i in range(torch.cuda.device_count()):``: the body runs once per CUDA device, never where there is
        none; the count decides what runs, as ``if torch.cuda.is_available():`` does."""
        self._keys_set.bound(node.target)
        count = self._cuda_device_count(node.iter)
        if count is not None:
            self._cuda_bodies[id(node.body)] = CudaGuard(GuardKind.DECIDED_BY_TEST, self.emitter.span(count))

    def _comprehension(self, node: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp]) -> None:
        """``[torch.device(f"cuda:{i}") for i in range(num_gpus)]`` after ``num_gpus = torch.cuda.device_count()``
        (pyannote's ``get_devices``): the element is built once per CUDA device, never where there is none."""
        count = self._cuda_device_count(node.for_in.iter)
        if count is not None:
            self._guard_expression(GuardKind.DECIDED_BY_TEST, count, node.elt)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = _comprehension

    def _cuda_device_count(self, it: cst.BaseExpression) -> Optional[cst.Call]:
        """The ``torch.cuda.device_count()`` call of ``range(torch.cuda.device_count())``, or of ``range(n)`` with
        ``n`` bound once to it (the test a count-built loop is decided by), else ``None``."""
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" and it.args):
            return None
        count = it.args[-1].value
        count = self._bound_once(count) or count
        return count if isinstance(count, cst.Call) and self.scopes.qualify(count.func) == "torch.cuda.device_count" \
            else None

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._idle_availability(node.test, (node.body, node.orelse))
        release = torch_version_test(node.test, self.scopes.qualify, self._bound_once)
        if release is not None:  # ``... if is_torch_version(">=", "2.4.0") else torch.cuda``
            gates = self.emitter.expression_gates
            gates.update((i, TorchGate(*release)) for i in _node_ids(node.body))
            gates.update((i, TorchGate(release[0], not release[1])) for i in _node_ids(node.orelse))
        test, cudas = node.test, node.body
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            # pfrl's ``torch.device("cpu") if not torch.cuda.is_available() else None``: CUDA's is the ``else``
            test, cudas = test.expression, node.orelse
        kind = cuda_test(test, self.scopes.qualify, self._flags())
        if kind == DEVICE_TYPE and cudas is node.body and self._device_by_placement(node):
            return
        if kind == DEVICE_TYPE and cudas is node.body and not self._names_cuda(cudas):
            # EDM's ``torch.float16 if (self.use_fp16 and x.device.type == 'cuda') else torch.float32``: CUDA's
            # branch is a plain value (a dtype, a flag), not CUDA's own API, so elsewhere the target silently
            # takes the other one: the test's device name is judged as in an ``if``, not as a guard that is fine
            return
        if kind == DEVICE_TYPE or (kind is not None and id(node) in self._map_locations):
            # a load's ``map_location=None if torch.cuda.is_available() else "cpu"``: elsewhere the host takes the
            # checkpoint, and ``load_state_dict`` copies it onto the module's device: the other way works
            # ``torch.cuda.device(d) if d.type == "cuda" else nullcontext()``: CUDA's branch beside another
            span = self.emitter.span(node.test)
            guards = self.emitter.expression_guards
            guards.update((i, CudaGuard(GuardKind.TEST, span)) for i in _node_ids(node.test))
            guards.update((i, CudaGuard(GuardKind.OTHER_BRANCH, span)) for i in _node_ids(cudas))
            if cudas is node.body:
                # ``use_ids = dist.get_backend() == "nccl"`` then ``barrier(device_ids=[...]) if use_ids else
                # barrier()``: every other device takes the ``else``, as after an ``if`` with one
                self._flags_read(node.test, True)
        elif kind == IS_AVAILABLE and cudas is node.body:
            # ``"cuda"`` / ``if torch.cuda.is_available()`` / ``else "cpu"`` over several lines: the test decides
            # what its body does, as an ``if`` block's would (its finding is the cause, the body's its sites)
            self._guard_expression(GuardKind.DECIDED_BY_TEST, node.test, node.body)

    def _device_by_placement(self, node: cst.IfExp) -> bool:
        """``torch.device('cuda') if x.is_cuda else torch.device('cpu')`` (or ``x.device.type == 'cuda'``, or a
        legacy tensor type and its host twin): a tensor's own device, spelled for CUDA and the CPU only. Its CUDA
        side is the finding (``PLACED_BY``, with ``x``), the test part of it: on a target ``x`` is on the target's
        device and the choice reads "cpu"."""
        placed = _placed_tensor(node.test)
        if placed is None or not (_device_named(node.body) == "cuda" and _device_named(node.orelse) == "cpu"
                                  or self._host_twin(node.body, node.orelse)):
            return False
        context = f"{PLACED_BY} {self.emitter.code(placed)}"
        self._mark([node.body], context)
        self.literals.note(node.body, context, Confidence.RESOLVED, overrides=True)
        self.consumed.update(_node_ids(node.test))  # one cause: the test is part of the choice
        return True

    def _host_twin(self, cuda: cst.BaseExpression, other: cst.BaseExpression) -> bool:
        """``torch.cuda.FloatTensor`` beside ``torch.FloatTensor``: a legacy tensor type for CUDA and its host twin
        (PyTorch-GAN's UNIT: ``Tensor = torch.cuda.FloatTensor if mu.is_cuda else torch.FloatTensor``)."""
        named = self.scopes.qualify(cuda) or ""
        return named.startswith("torch.cuda.") and named.endswith("Tensor") \
            and self.scopes.qualify(other) == "torch." + named.rpartition(".")[2]

    def _names_cuda(self, value: cst.BaseExpression) -> bool:
        """Whether an expression names something of CUDA's own: a ``torch.cuda`` / ``torch.backends.cuda``
        API, a member or name named for CUDA (``.cuda``, lucidrains' ``self.cuda_config``), a device's name in a
        string (``torch.cuda.device(d)``, ``"cuda:0"``)."""
        stack: List[cst.CSTNode] = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.Name, cst.Attribute)):
                qualified = self.scopes.qualify(node) or ""
                named = node.value if isinstance(node, cst.Name) else node.attr.value
                if qualified.startswith(("torch.cuda", "torch.backends.cuda", "torch.backends.cudnn")) \
                        or "cuda" in named.lower().split("_"):
                    return True
            elif isinstance(node, cst.SimpleString) and "cuda" in node.value.lower():
                return True
            stack.extend(node.children)
        return False

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """``x.is_cuda and torch.cuda.is_current_stream_capturing()``: the right side runs only on a CUDA device;
        elsewhere the left side answers (``False``), so what the right side calls is CUDA's branch beside it."""
        if skipped_off_cuda(node, self.scopes.qualify, self._flags()):
            self._guard_expression(GuardKind.OTHER_BRANCH, node.left, node.right)
        elif isinstance(node.operator, cst.And) and cuda_test(node.left, self.scopes.qualify) == IS_AVAILABLE \
                and cuda_test(node.right, self.scopes.qualify, self._flags()) is None:
            # ``torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 9``: the right side runs
            # only where the left is True, decided by it as an ``if``'s body is (its finding the cause)
            self._guard_expression(GuardKind.DECIDED_BY_TEST, node.left, node.right)
        elif isinstance(node.operator, cst.Or) and isinstance(node.left, cst.UnaryOperation) \
                and isinstance(node.left.operator, cst.Not) \
                and cuda_test(node.left.expression, self.scopes.qualify) == IS_AVAILABLE \
                and cuda_test(node.right, self.scopes.qualify, self._flags()) is None:
            # ``not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 7``: the same, negated
            self._guard_expression(GuardKind.DECIDED_BY_TEST, node.left.expression, node.right)
        elif isinstance(node.operator, cst.Or):
            # sbi's ``gpu_available()``: ``torch.cuda.is_available() or torch.backends.mps.is_available()``: any of
            # the accelerators it names; the target's belongs beside them, CUDA's test stays
            names = tuple(dict.fromkeys(accelerators_tested(node, self.scopes.qualify)))
            if names:
                self.emitter.siblings_later.update((id(n), names) for n in _calls_in(node)
                                                   if self.scopes.qualify(n.func) in _AVAILABILITY)
        self._library_gate(node)

    def _mark(self, calls: Sequence[cst.CSTNode], context: str) -> None:
        """Each call's context: the earlier of ``_CALL_CONTEXTS`` where two apply, else the last marked (a gate)."""
        for call in calls:
            known = self._call_contexts.get(id(call))
            if known is None or _context_rank(context) <= _context_rank(known):
                self._call_contexts[id(call)] = context

    def _guard_expression(self, kind: GuardKind, test: cst.CSTNode, guarded: cst.CSTNode) -> None:
        """Every usage inside ``guarded`` is under ``test`` as ``kind`` (an expression has no block to enter)."""
        guard = CudaGuard(kind, self.emitter.span(test))
        self.emitter.expression_guards.update((i, guard) for i in _node_ids(guarded))

    def _idle_availability(self, test: cst.BaseExpression, branches: Tuple[Optional[cst.CSTNode], ...]) -> None:
        """``torch.cuda.is_available()`` in a test that decides between branches doing no device work: its
        calls are marked (``IDLE_TEST``), so the rule does not ask to change what changes nothing; in the test of
        an ``if`` with no ``else`` that only checks (``CHECK_ONLY``: the call one side of an ``and``, so False
        skips the body); and with ``device_count()``, in a test that picks the string ``"gpu"`` (``PICKS_GPU``)."""
        qualify = self.scopes.qualify
        questions = [n for n in _calls_in(test) if qualify(n.func) in _AVAILABILITY]
        if not questions:
            return
        # the branch a True answer takes (the ``else`` of ``not torch.cuda.is_available()``)
        taken = branches[1] if isinstance(test, cst.UnaryOperation) else branches[0]
        if taken is not None and picks_gpu(taken):
            self._mark(questions, PICKS_GPU)
            return
        calls = [n for n in questions if qualify(n.func) == "torch.cuda.is_available"]
        if calls and not decides_device_work(list(branches)):
            self._mark(calls, IDLE_TEST)
        elif branches[1:] == (None,) and isinstance(branches[0], cst.BaseSuite) and only_checks(branches[0]):
            conjuncts = [side for side in _conjuncts(test) if isinstance(side, cst.Call)
                         and qualify(side.func) == "torch.cuda.is_available"]
            if conjuncts:  # the test's other CUDA questions (``not data.is_cuda``) decide nothing there either
                is_cuda = matchers.findall(test, matchers.Attribute(attr=matchers.Name("is_cuda")))
                self._mark([*conjuncts, *is_cuda], CHECK_ONLY)

    def _library_gate(self, test: cst.BaseExpression) -> None:
        """``if HAS_BNB and torch.cuda.is_available(): return load_bnb_optimizer(name)``: the CUDA test stands
        beside a test for a library (``library_asked``); the rule reads which one (``LIBRARY_GATE``) and whether
        it is CUDA-only, when the test keeps the target out of it. Beside a question only NVIDIA answers
        (``get_device_capability() >= (9, 0)``: ``asks_for_an_nvidia_fact``) the test asks for an NVIDIA feature
        (``NVIDIA_FEATURE``). The same test negated, as an ``or`` of negations, asks the same: uni-core's ``if not
        torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 7: HAS_SOFTMAX = False``."""
        if not isinstance(test, cst.BooleanOperation):
            return
        if isinstance(test.operator, cst.And):
            sides = _conjuncts(test)
        else:  # ``not a or not b`` is ``not (a and b)``: its sides, each as the test it negates
            sides = [side.expression if isinstance(side, cst.UnaryOperation) and isinstance(side.operator, cst.Not)
                     else side for side in _disjuncts(test)]
            if any(isinstance(side, cst.Call) and self.scopes.qualify(side.func) == "torch.cuda.is_available"
                   for side in _disjuncts(test)):  # ``is_available() or ...``: any accelerator, not a feature
                return
        tests = [side for side in sides if isinstance(side, cst.Call)
                 and self.scopes.qualify(side.func) == "torch.cuda.is_available"]
        others = [side for side in sides if all(side is not t for t in tests)]
        libraries = [name for side in others if (name := library_asked(side, self._bound_once)) is not None]
        if tests and libraries:
            self._mark(tests, LIBRARY_GATE + libraries[0])
        elif tests and any(asks_for_an_nvidia_fact(side, self.scopes.qualify) for side in others):
            self._mark(tests, NVIDIA_FEATURE)

    def _asks_nvidia_only(self, node: cst.If) -> None:
        """``if not torch.cuda.is_available() or not use_flash: return`` before code that only reads the GPU's
        properties (lucidrains' ``Attend``), or ``if torch.cuda.is_available():`` around such code: the test asks
        for an NVIDIA feature (``NVIDIA_FEATURE``), whatever its own sides are."""
        qualify = self.scopes.qualify
        if isinstance(node.orelse, cst.If):
            return
        flag = self._availability_flag(node)
        if flag is not None or leaves_off_availability(node, self._followed(node), qualify):
            decided: Sequence[cst.CSTNode] = self._rest(node)
        elif cuda_test(node.test, qualify) == IS_AVAILABLE and node.orelse is None:
            decided = [node.body]
        else:
            return
        if keeps_to_nvidia_facts(decided, qualify):
            self._mark([call for call in _calls_in(node.test) if qualify(call.func) == "torch.cuda.is_available"],
                       NVIDIA_FEATURE)
            if flag is not None:  # the binding's call was emitted before this test was seen
                self.emitter.contexts_later[id(flag)] = NVIDIA_FEATURE
                self._flag_rests[id(node)] = self.emitter.span(flag)

    def _availability_flag(self, node: cst.If) -> Optional[cst.Call]:
        """``self.use_flash = torch.cuda.is_available() and ...`` earlier in the block, then ``if not
        self.use_flash: return`` with code after it (stable-audio-tools' attention blocks): the
        ``torch.cuda.is_available()`` call the flag was bound to, else ``None``."""
        test = node.test
        if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
                and isinstance(test.expression, (cst.Name, cst.Attribute)) and node.orelse is None
                and always_leaves(node.body, self._followed(node)) and self._blocks
                and isinstance(self._blocks[-1], cst.IndentedBlock)):
            return None
        name = dotted(test.expression)
        found: Optional[cst.Call] = None
        for statement in self._blocks[-1].body:
            if statement is node:
                return found
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and any(dotted(t.target) == name for t in small.targets):
                    found = next((c for c in _conjunct_calls(small.value)
                                  if self.scopes.qualify(c.func) == "torch.cuda.is_available"), None)
        return None

    def _chain_devices(self, node: cst.If) -> Tuple[str, ...]:
        """The accelerators other than CUDA that the tests of the if/elif chain starting at ``node`` name
        (``elif is_npu_available():``, ``elif torch.mlu.is_available():``, ``elif device.type == "npu":``):
        everything in the chain is then one branch of code that dispatches per device."""
        names: List[str] = []
        current: Optional[cst.If] = node
        while current is not None:
            names.extend(accelerators_tested(current.test, self.scopes.qualify))
            orelse = current.orelse
            current = orelse if isinstance(orelse, cst.If) else None
            if current is not None:
                self._chained.add(id(current))
        return tuple(dict.fromkeys(names))

    def leave_If(self, original_node: cst.If) -> None:
        """After ``if x.device.type != "cuda": return ...`` the rest of the block is a CUDA-only branch; after
        ``if not is_bnb_available(): return False`` what the rest imports is optional, as in an ``if``'s body."""
        if asks_for_a_missing_library(original_node) and self._followed(original_node):
            block = id(self._blocks[-1])
            self._rest_optional[block] = self._rest_optional.get(block, 0) + 1
            self.scopes.guard_depth += 1
        if id(original_node) in self._chain_tops:
            self._chain_tops.discard(id(original_node))
            self.emitter.chain_siblings.pop()
        others = leaves_for_accelerators(original_node, self._followed(original_node), self.scopes.qualify)
        if others:  # the rest of the block is an ``else`` beside those accelerators' own way
            outer = self.emitter.chain_siblings[-1] if self.emitter.chain_siblings else ()
            self.emitter.chain_siblings.append(tuple(dict.fromkeys(outer + others)))
            block = id(self._blocks[-1])
            self._rest_siblings[block] = self._rest_siblings.get(block, 0) + 1
        if leaves_off_cuda(original_node, self._followed(original_node), self.scopes.qualify, self._flags()):
            self.emitter.cuda_guards.append(CudaGuard(GuardKind.OTHER_BRANCH, self.emitter.span(original_node.test)))
            block = id(self._blocks[-1])
            self._rest_guards[block] = self._rest_guards.get(block, 0) + 1
        elif leaves_off_availability(original_node, self._followed(original_node), self.scopes.qualify) \
                or id(original_node) in self._flag_rests:
            # the rest runs only where CUDA is there: decided by the test (or the flag's binding), as the body of
            # its positive form is
            span = self._flag_rests.pop(id(original_node), None) or self.emitter.span(original_node.test)
            self.emitter.cuda_guards.append(CudaGuard(GuardKind.DECIDED_BY_TEST, span))
            block = id(self._blocks[-1])
            self._rest_guards[block] = self._rest_guards.get(block, 0) + 1

    def _rest(self, node: cst.If) -> Sequence[cst.CSTNode]:
        """The statements after ``node`` in the block the walk is in."""
        block = self._blocks[-1] if self._blocks else None
        statements = list(block.body) if isinstance(block, cst.IndentedBlock) else []
        at = next((i for i, statement in enumerate(statements) if statement is node), len(statements))
        return statements[at + 1:]

    def _after(self, node: cst.If) -> Optional[cst.CSTNode]:
        """The statement after ``node`` in the block the walk is in, if any."""
        rest = self._rest(node)
        return rest[0] if rest else None

    def _followed(self, node: cst.If) -> bool:
        """Whether a statement follows ``node`` in the block the walk is in (not at a module's top)."""
        return bool(self._blocks) and isinstance(self._blocks[-1], cst.IndentedBlock) \
            and self._blocks[-1].body[-1] is not node

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_body(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_body(original_node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_body(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_body(original_node)

    def visit_With(self, node: cst.With) -> None:
        if any(self._no_grad(item.item) for item in node.items):
            self._no_grad_bodies.add(id(node.body))
        for item in node.items:  # ``with autocast() and torch.no_grad():`` enters only what ``and`` returns
            operands = _operands(item.item)
            self._mark([o for o in operands[:-1] if isinstance(o, cst.Call)], NEVER_ENTERED)
        self._idle_autocast([item.item for item in node.items], node.body)

    def visit_Return(self, node: cst.Return) -> None:
        """``return input.device.type == "cuda" and is_compiling()``: a predicate answers "not CUDA" for the
        target's tensors, and its callers choose their way by it; the test is a check, as in an ``if`` with
        another branch."""
        value = node.value
        if value is None:
            return
        if _PINNING.search(self.scopes.scope_name().rpartition(".")[2].lower()):
            # hivemind's ``_safe_check_pinned``: ``return torch.cuda.is_available() and tensor.is_pinned()``
            self._pins_memory(value)
        # a tensor's device only: ``return self.backend == "nccl"`` answers for a setting, one device protocol
        # with its default (``fix`` renames them together or not at all)
        if _answers_for_a_device(value, self.scopes.qualify, self._device_flags[-1], self._flag_values[-1]):
            self._guard_expression(GuardKind.TEST, value, value)
            self._flags_read(value, True)  # ``device_ok = x.device.type == "cuda"`` then ``return device_ok and ...``

    def _knobs(self, node: cst.Call) -> None:
        """``x.to(device, non_blocking=device.type == "cuda")`` (or through a flag bound so): a copy's speed, which
        off CUDA is the synchronous copy that works everywhere; the test is a check."""
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in _KNOBS:
                self._knob(arg.value)

    def visit_Dict(self, node: cst.Dict) -> None:
        """``{"fused": fabric.device.type == "cuda"}`` handed to an optimizer: a knob, as the keyword is; a loader's
        keyword table's ``"num_workers"`` and ``"pin_memory"``, the same as those keywords."""
        for element in node.elements:
            key = string_value(element.key) if isinstance(element, cst.DictElement) else None
            if key in _KNOBS:
                self._knob(element.value)
            elif key == "num_workers":
                self._sizes_workers(element.value)
            elif key == "pin_memory":
                self._pins_memory(element.value)

    def _sizes_workers(self, value: cst.BaseExpression) -> None:
        """``num_workers=4 * torch.cuda.device_count() if torch.cuda.is_available() else 2``: what CUDA is asked
        there only sizes the loader (``LOADER_WORKERS``)."""
        calls = matchers.findall(value, matchers.Call())
        self._mark([call for call in calls if isinstance(call, cst.Call)
                    and self.scopes.qualify(call.func) == "torch.cuda.is_available"], LOADER_WORKERS)

    def _knob(self, value: cst.BaseExpression) -> None:
        if isinstance(value, cst.Name):
            self._flags_read(value, True)
        elif cuda_test(value, self.scopes.qualify, self._flags()) == DEVICE_TYPE:
            self._guard_expression(GuardKind.TEST, value, value)

    def _autocast_only_on_cuda(self, node: cst.Call) -> None:
        """``torch.autocast("cuda", enabled=self.amp and feats.is_cuda)``: off CUDA the region is switched off and
        runs in the model's own precision, as the code says; the call is CUDA's branch beside that."""
        enabled = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "enabled"), None)
        if enabled is not None and cuda_test(enabled, self.scopes.qualify, self._flags()) == DEVICE_TYPE:
            self._guard_expression(GuardKind.OTHER_BRANCH, enabled, node)

    def _idle_autocast(self, exprs: Sequence[cst.BaseExpression], body: cst.CSTNode) -> None:
        """``autocast("cuda", enabled=False)`` around code autocast never lowers (``resolve/autocast_regions``):
        its calls are marked (``IDLE_REGION``): on the target the switch changes nothing there."""
        calls = [e for e in exprs if isinstance(e, cst.Call) and disables_autocast(e)
                 and self.scopes.qualify(e.func) in AUTOCASTS]
        if calls:
            reader = RegionReader(self.scopes.qualify, self._functions, self._methods[-1] if self._methods else {},
                                  self.scopes.module_name)
            if not reader.lowers(body):
                self._mark(calls, IDLE_REGION)

    def _no_grad(self, expr: cst.BaseExpression) -> bool:
        """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)`` (or a decorator)."""
        call = expr if isinstance(expr, cst.Call) else None
        qual = self.scopes.qualify(call.func if call is not None else expr)
        if qual in _NO_GRAD:
            return True
        return qual == "torch.set_grad_enabled" and call is not None and bool(call.args) \
            and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "False"

    def _enter_body(self, node: cst.BaseSuite) -> None:
        self._blocks.append(node)
        if id(node) in self._no_grad_bodies:
            self.emitter.no_grad += 1
        if id(node) in self._optional_bodies:
            self.scopes.guard_depth += 1
        if self._tests.pop(id(node), False):
            self.emitter.cuda_guards.pop()  # the test is over
        guard = self._cuda_bodies.get(id(node))
        if guard is not None:
            self.emitter.cuda_guards.append(guard)
        gate = self._torch_gates.get(id(node))
        if gate is not None:
            self.emitter.torch_gates.append(gate)

    def _leave_body(self, node: cst.BaseSuite) -> None:
        self._blocks.pop()
        for _ in range(self._rest_guards.pop(id(node), 0)):
            self.emitter.cuda_guards.pop()
        for _ in range(self._rest_siblings.pop(id(node), 0)):
            self.emitter.chain_siblings.pop()
        self.scopes.guard_depth -= self._rest_optional.pop(id(node), 0)
        if id(node) in self._no_grad_bodies:
            self._no_grad_bodies.discard(id(node))
            self.emitter.no_grad -= 1
        if id(node) in self._optional_bodies:
            self._optional_bodies.discard(id(node))
            self.scopes.guard_depth -= 1
        if self._cuda_bodies.pop(id(node), None) is not None:
            self.emitter.cuda_guards.pop()
        if self._torch_gates.pop(id(node), None) is not None:
            self.emitter.torch_gates.pop()

    def _kernel_decorator(self, name: Optional[str]) -> bool:
        """Whether ``name`` makes a function a device kernel: ``triton.jit``, or the same name re-exported by a
        module of the project (DeepSpeed's ``from deepspeed.ops.triton_ops._triton import triton``, which binds
        ``None`` where Triton is missing)."""
        return name is not None and (name in self.vocabulary.kernel_decorators
                                     or any(name.endswith("." + k) for k in self.vocabulary.kernel_decorators))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        if any(self._no_grad(d.decorator) for d in node.decorators):  # ``@torch.no_grad()``
            self._no_grad_bodies.add(id(node.body))
        if names_availability(node.name.value):  # ``def is_bnb_4bit_available(): import bitsandbytes``: a probe
            self._optional_bodies.add(id(node.body))
        self._idle_autocast([d.decorator for d in node.decorators], node.body)
        for decorator in node.decorators:
            name = self._decorator(decorator)
            if name is not None and self._kernel_decorator(name):
                kernel = self.scopes.qualname(node.name.value)
                self.kernels.append(kernel)
                if name not in self.vocabulary.kernel_decorators:
                    self.kernel_sources.append((kernel, name.rsplit(".", 1)[0]))
        scope_params, annotations = {}, {}
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            scope_params[param.name.value] = param.default
            if param.annotation is not None:
                annotations[param.name.value] = param.annotation.annotation
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope_params[star.name.value] = None
        for name, annotation in annotations.items():  # PyG's ``message_and_aggregate(self, adj_t: SparseTensor)``
            handed_in = self.scopes.qualify(annotation) if isinstance(annotation, (cst.Name, cst.Attribute)) else None
            if handed_in and "." in handed_in and not handed_in.startswith(("torch.", "typing.")):
                # the calls that take the object itself (``matmul(adj_t, x)``, ``adj_t.sum()``), not every call of
                # its package in the function (mmfewshot's ``train_model(..., cfg: ConfigDict)`` wraps the model
                # in mmcv's ``MMDistributedDataParallel`` whatever ``cfg`` is)
                self.emitter.objects_later.update((i, handed_in) for i in _calls_on(node.body, name, 4096))
        self.scopes.enter("function", node.name.value, _body(node),
                          Binding(params=scope_params, annotations=annotations),
                          class_info=self.scopes.current_class() if self.scopes.current.kind == "class" else None)
        self._device_flags.append({})
        self._flag_values.append({})
        self._flag_tests.append({})
        self._keys_set.enter(node.body)
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.leave()
        self._settle_flags()
        self._device_flags.pop()
        self._flag_values.pop()
        self._keys_set.leave()

    def visit_Try(self, node: cst.Try) -> None:
        if catches_import_error(node):
            self.scopes.guard_depth += 1
        if probes_a_program(node):
            self._probe_bodies.add(id(node.body))
        if covers_op_failure(node):
            self._mark(calls_within(node.body), HANDLED_FAILURE)
        if catches_import_error(node) and not leaves_undefined(node):  # a build there is optional
            loaders = self.scopes.vocabulary.module_loaders
            self._mark([call for call in calls_within(node.body) if self.scopes.qualify(call.func) in loaders],
                       OPTIONAL_BUILD)
        for handler, release in older_torch_handlers(node, self.scopes.qualify):  # runs below that release only
            self._torch_gates[id(handler.body)] = TorchGate(release, False)
        for handler in missing_module_handlers(node, self.scopes.qualify):
            self.emitter.contexts_later.update((i, MISSING_MODULE) for i in _node_ids(handler.body))

    def leave_Try(self, original_node: cst.Try) -> None:
        if catches_import_error(original_node):
            self.scopes.guard_depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        for param in node.params.params:
            if param.default is not None:
                self.consumed.add(id(param.default))

    # ------------------------------------------------------------------------------ imports

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self._import(dotted(alias.name), alias, node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        base = self.scopes.from_module(node)
        if base is None or isinstance(node.names, cst.ImportStar):
            if base:
                self._import(base, node, node)
            return False
        for alias in node.names:
            self._import(f"{base}.{dotted(alias.name)}" if base else dotted(alias.name), alias, node)
        return False

    def _import(self, name: str, node: cst.CSTNode, statement: cst.CSTNode) -> None:
        if interesting(name) and not is_torch(name):
            self.emitter.emit(name, UsageKind.IMPORT, node, node_for_snippet=statement)

    # ------------------------------------------------------------------------------ calls

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        if id(node) in self.consumed:
            return True
        self._keys_set.read(node, self.consumed)  # ``kwargs.get("device", "cuda")`` after ``kwargs["device"] = d``
        func = node.func
        qual = self.scopes.qualify(func)
        self._types_named(node, qual)
        if _reports(func):
            self._mark([call for arg in node.args for call in _formatted_calls(arg.value)], REPORTED)
        if qual in AUTOCASTS:
            self._autocast_only_on_cuda(node)
        self._knobs(node)
        qual = qual or self._inherited_call(func)
        if qual is not None and qual.startswith(LOADED + ".") and isinstance(func, cst.Attribute):
            self.emitter.emit(qual, UsageKind.CALL, node, self.values.arguments(node.args))
            qual = None  # the receiver is only maybe a loaded module: still check it as a tensor method
        if qual is not None and not qual.endswith("add_argument"):
            if qual in self.vocabulary.environment_readers or qual in self.vocabulary.environment_writers:
                self._environment_call(node, qual)
            elif qual in self.vocabulary.process_launchers:
                self._process_call(node)
            elif interesting(qual):
                self.consumed.add(id(func))
                keep_text = qual in self.vocabulary.text_arguments
                self.emitter.emit(qual, UsageKind.CALL, node, self.values.arguments(node.args, keep_text=keep_text),
                                  context=self._call_contexts.get(id(node))
                                  or (HOST_INPUT if _input_on_host(node) else None),
                                  through=self.scopes.alias_value(func.value) if type(func) is cst.Name else None)
            return True
        if isinstance(func, cst.Attribute):
            if func.attr.value == "add_argument":
                self._argparse(node)
            elif self._instance_call(node, func):
                self.consumed.add(id(func.attr))
            elif qual is None and self._method_call(node, func):
                self.consumed.add(id(func.attr))
        elif isinstance(func, cst.Subscript) and isinstance(func.value, (cst.Name, cst.Attribute)):
            kernel = self.scopes.qualify(func.value) or (
                self.scopes.qualname(func.value.value) if isinstance(func.value, cst.Name) else None)
            if kernel:  # ``kernel[grid](...)``: a launch
                self.emitter.emit(kernel, UsageKind.LAUNCH, node, self.values.arguments(node.args))
        return True

    def _default_tensor_type(self, given: cst.BaseExpression) -> None:
        """``torch.set_default_tensor_type(torch.cuda.FloatTensor)`` or its name as a string: the type is judged
        where it is given (``DEFAULT_TENSOR_TYPE``), not as a class used anywhere."""
        self._mark([given], DEFAULT_TENSOR_TYPE)
        self.literals.note(given, DEFAULT_TENSOR_TYPE, Confidence.RESOLVED)

    def _inherited_call(self, func: cst.BaseExpression) -> Optional[str]:
        """``super().__init__(accelerator=accelerator, ...)`` in ``class TUTrainer(Trainer)``: a call of the base
        class, where a rule reads that class's calls (``Vocabulary.inherited_calls``)."""
        if not (type(func) is cst.Attribute and func.attr.value == "__init__"
                and type(receiver := func.value) is cst.Call
                and type(receiver.func) is cst.Name and receiver.func.value == "super"):
            return None
        info = self.scopes.current_class()
        return next((b for b in info.bases if b in self.vocabulary.inherited_calls), None) if info else None

    def _types_named(self, node: cst.Call, qual: Optional[str]) -> None:
        """The objects a call names without using them: ``isinstance``'s classes (a test against them:
        ``TYPE_CHECK``), ``typing.cast``'s (``cast(torch.cuda.Stream, stream)``: named for the type checker,
        nothing runs), the type ``torch.set_default_tensor_type`` makes the default (``DEFAULT_TENSOR_TYPE``) and the
        object ``hasattr`` or ``getattr`` probes for a named attribute."""
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("isinstance", "issubclass") and len(node.args) >= 2:
            self._type_checks.update(id(n) for n in _type_names(node.args[1].value))
        elif qual == "typing.cast" and node.args:
            self.consumed.update(id(n) for n in _type_names(node.args[0].value))
        elif qual == "torch.set_default_tensor_type" and node.args:
            self._default_tensor_type(node.args[0].value)
        elif isinstance(func, cst.Name) and func.value in ("hasattr", "getattr") and len(node.args) >= 2 \
                and isinstance(node.args[0].value, cst.Attribute) and isinstance(node.args[1].value, cst.SimpleString):
            # ``hasattr(torch.cuda, "default_generators")``, T2T-ViT's ``getattr(torch.cuda.amp, 'autocast') is not
            # None``: the module is probed, not used (the attribute is, where the code then reads it)
            self.consumed.add(id(node.args[0].value))

    def _instance_call(self, node: cst.Call, func: cst.Attribute) -> bool:
        """``lib.impl(...)`` on ``lib = torch.library.Library(...)``, for the methods a rule asked for."""
        if func.attr.value not in self.instance_method_names:
            return False
        owner = instance_class(self.scopes, func.value)
        api = f"{owner}.{func.attr.value}" if owner else ""
        if api not in self.vocabulary.instance_methods:
            return False
        self.emitter.emit(api, UsageKind.CALL, node, self.values.arguments(node.args))
        return True

    def _method_call(self, node: cst.Call, func: cst.Attribute) -> bool:
        if func.attr.value not in self.methods or not (self.imports_torch or func.attr.value in _NAMED_FOR_CUDA):
            return False
        owner = None if _own_method(self.scopes, func) else method_owner(self.scopes, func.value)
        if owner is None and func.attr.value in _NAMED_FOR_CUDA \
                and of_a_class_defined_elsewhere(self.scopes, func.value):
            # allennlp's ``model.cuda(cuda_device)`` on ``model: Model``, a class another module defines (a
            # ``torch.nn.Module`` there): a call named for CUDA on it moves what it is called on
            owner = ("torch.nn.Module", Confidence.HEURISTIC)
        if owner is None:
            for arg in node.args:  # 'cuda' passed to a method of a non-tensor object is not a device
                if isinstance(arg.value, STRING_NODES):
                    self.consumed.add(id(arg.value))
            return False
        api_owner, confidence = owner
        self.emitter.emit(f"{api_owner}.{func.attr.value}", UsageKind.METHOD, node, self.values.arguments(node.args),
                          confidence=confidence, context=self._call_contexts.get(id(node))
                          or (HOST_INPUT if _moved_to_host(func.value) else self._built_by(func.value)))
        return True

    def _built_by(self, receiver: cst.BaseExpression) -> Optional[str]:
        """``BUILT_BY`` for a receiver a ``torch.nn`` class builds in place (``nn.CrossEntropyLoss(reduction=r)``),
        or a name bound to one in its scope and otherwise only to itself moved (PyTorch-GAN's ``adversarial_loss =
        torch.nn.MSELoss()`` ... ``adversarial_loss.cuda()``, ``pixelwise = pixelwise.cuda()``)."""
        if type(receiver) is cst.Name:
            receiver = self._built_into(receiver) or receiver
        if not isinstance(receiver, cst.Call):
            return None
        built = self.scopes.qualify(receiver.func) or ""
        if not built.startswith("torch.nn.") or not built.rpartition(".")[2][:1].isupper():
            return None
        passed = [a.keyword.value if a.keyword is not None else "*" for a in receiver.args]
        return f"{BUILT_BY} {built}: {','.join(passed)}"

    def _built_into(self, name: cst.Name) -> Optional[cst.Call]:
        """The one construction ``name`` is bound to in its scope, where every other value bound to it is that
        name moved (``x.cuda()``, ``x.to(device)``); else ``None``."""
        qual, binding = self.scopes.lookup(name.value)
        values = binding.values.get(name.value) if qual is None and binding is not None else None
        built = [v for v in values or () if not _moves_itself(v, name.value)]
        return built[0] if len(built) == 1 and type(built[0]) is cst.Call else None

    def _environment_call(self, node: cst.Call, qual: str) -> None:
        args = self.values.arguments(node.args)
        key = args[0].value.text if args and args[0].value.kind == _STR else None
        if key and self.vocabulary.watches_variable(key):
            kind = UsageKind.ENV_READ if qual in self.vocabulary.environment_readers else UsageKind.ENV
            self.emitter.emit("os.environ", kind, node, args, context=key)

    def _process_call(self, node: cst.Call) -> None:
        """``subprocess.run(["nvidia-smi", "-L"])``, ``os.system("nvidia-smi")``: the tool a launched command
        runs, when it is one a rule names. Only the command itself counts: the program of an argument list, or a
        command word of a shell string (after a pipe or a separator), never an argument or a printed text."""
        args = [a for a in node.args if a.keyword is None and not a.star]
        args += [a for a in node.args if a.keyword is not None and a.keyword.value == "args"]
        if not args:
            return
        first = args[0].value
        tools = self.vocabulary.command_tools
        found: Optional[str] = None
        if isinstance(first, (cst.List, cst.Tuple)) and first.elements:
            words = [e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else None
                     for e in first.elements]
            program = words[0].rsplit("/", 1)[-1] if isinstance(words[0], str) else None
            if program in tools:
                found = program
            elif program in ("bash", "sh") and len(words) > 2 and words[1] == "-c" and isinstance(words[2], str):
                found = _shell_tool(words[2], tools)
        elif isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
            found = _shell_tool(first.evaluated_value, tools)
        if found is not None:
            self.consumed.add(id(node.func))
            probed = any(id(block) in self._probe_bodies for block in self._blocks)
            self.emitter.emit(found, UsageKind.COMMAND, node, context=PROGRAM_PROBED if probed else None)

    def _argparse(self, node: cst.Call) -> None:
        option = argparse_option(node)
        if option is not None:
            key, default = option
            self.values.argparse_defaults[key] = default
            self.literals.note(default, f"default of command-line option --{key}", Confidence.RESOLVED)

    def _decorator(self, decorator: cst.Decorator) -> Optional[str]:
        expr = decorator.decorator
        target = expr.func if isinstance(expr, cst.Call) else expr
        qual = self.scopes.qualify(target)
        if qual and interesting(qual):
            args = self.values.arguments(expr.args) if isinstance(expr, cst.Call) else ()
            self.emitter.emit(qual, UsageKind.DECORATOR, expr, args,
                              context=self._call_contexts.get(id(expr)))
            self.consumed.add(id(target))
            if isinstance(expr, cst.Call):
                self.consumed.add(id(expr))
        return qual

    # ------------------------------------------------------------------------------ names and attributes

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if id(node) in self.consumed:
            return False
        qual = self.scopes.qualify(node)
        if qual is not None and interesting(qual):
            self.emitter.emit(qual, UsageKind.ATTRIBUTE, node,
                              context=self._dtype_role(node) if is_torch_dtype(qual)
                              else self._call_contexts.get(id(node)) or self._type_check(node)
                              or self._function_value(node, qual))
            return False
        if qual is None and node.attr.value in self.vocabulary.tensor_attributes and self.imports_torch \
                and receiver_kind(self.scopes, node.value) == UNKNOWN and not self._assigned(node):
            self.emitter.emit(f"torch.Tensor.{node.attr.value}", UsageKind.ATTRIBUTE, node,
                              confidence=Confidence.HEURISTIC, context=self._call_contexts.get(id(node)))
        return True

    def _assigned(self, node: cst.Attribute) -> bool:
        """``self.is_cuda = ...``: an object's own attribute is written (a tensor's properties are read-only)."""
        parent = self.emitter.positions.index.parents.get(id(node))
        return isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and parent.target is node

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.consumed:
            return
        qual, _ = self.scopes.lookup(node.value)
        if qual is not None and interesting(qual) and "." in qual:
            self.emitter.emit(qual, UsageKind.ATTRIBUTE, node,
                              context=self._dtype_role(node) if is_torch_dtype(qual)
                              else self._call_contexts.get(id(node)) or self._type_check(node),
                              through=self.scopes.alias_value(node.value))

    def _function_value(self, node: cst.CSTNode, qual: str) -> Optional[str]:
        """``FUNCTION_VALUE`` for a torch function named where it is handed on to be called: a parameter's default,
        a returned value, a call's argument (scvi-tools' ``lgamma_fn=torch.lgamma``, ``return torch.lgamma``)."""
        if not qual.startswith("torch.") or qual.startswith(_NOT_FUNCTION_VALUES):
            return None
        parent = self.emitter.positions.index.parents.get(id(node))
        if (isinstance(parent, cst.Param) and parent.default is node) or isinstance(parent, cst.Return):
            return FUNCTION_VALUE
        if isinstance(parent, cst.Arg) and parent.value is node:
            call = self.emitter.positions.index.parents.get(id(parent))
            func = call.func if isinstance(call, cst.Call) else None
            if isinstance(func, cst.Name) and func.value in _NAMING_CALLS:
                return None  # ``getattr(torch.nn, "GELU")``, ``isinstance(m, torch.nn.Linear)``: named, not run
            return FUNCTION_VALUE
        return None

    def _type_check(self, node: cst.CSTNode) -> Optional[str]:
        """``TYPE_CHECK`` for a class named as the second argument of ``isinstance`` / ``issubclass``."""
        return TYPE_CHECK if id(node) in self._type_checks else None

    def _dtype_role(self, node: cst.CSTNode) -> Optional[str]:
        """Whether a dtype is named in a test or a collection of dtypes (``DTYPE_MENTIONS``), from its parent."""
        parents = self.emitter.positions.index.parents
        parent = parents.get(id(node))
        if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
            return DTYPE_COMPARED
        if isinstance(parent, cst.Element) or (isinstance(parent, cst.DictElement) and parent.key is node):
            return DTYPE_LISTED  # an item of a list of dtypes, or a table's key (``{torch.bfloat16: 80.0}[dtype]``)
        if isinstance(parent, cst.Arg) and parent.keyword is not None and parent.keyword.value == "dtype":
            call = parents.get(id(parent))
            if isinstance(call, cst.Call) and not any(a.keyword is not None and a.keyword.value == "device"
                                                      for a in call.args) \
                    and not isinstance(parents.get(id(call)), cst.Attribute) \
                    and self.scopes.qualify(call.func) in TENSOR_FACTORIES:
                return DTYPE_ON_HOST  # (``torch.zeros(3, dtype=...).cuda()`` is moved at once: not this)
        return None

    def visit_Subscript(self, node: cst.Subscript) -> Optional[bool]:
        value = node.value  # the name read first: a subscript is a hot node, a qualification is not cheap
        last = value.value if isinstance(value, cst.Name) else value.attr.value if isinstance(value, cst.Attribute) \
            else None
        if last in _TYPE_NAMES and self.scopes.qualify(value) in _TYPE_CONSTRUCTORS:
            return False  # ``IndexType = Union[torch.LongTensor, torch.cuda.LongTensor]``: types, named not made
        key = _environment_key(self.scopes, self.values, node)
        if key is not None and id(node) not in self.consumed:
            self.emitter.emit("os.environ", UsageKind.ENV_READ, node, (Argument(ENV_KEY, key),), context=key.text)
        return True

    # ------------------------------------------------------------------------------ assignments

    def visit_Arg(self, node: cst.Arg) -> Optional[bool]:
        if node.keyword is not None and node.keyword.value == "map_location" and isinstance(node.value, cst.IfExp):
            self._map_locations.add(id(node.value))
        if node.keyword is not None and node.keyword.value == "pin_memory":
            self._pins_memory(node.value)
        elif node.keyword is not None and node.keyword.value == "num_workers":
            self._sizes_workers(node.value)
        return True

    def _pins_memory(self, value: cst.BaseExpression) -> None:
        """``pin_memory=torch.cuda.is_available()`` (alone, in an ``and``, or a branch of a conditional expression:
        matgl's ``torch.cuda.is_available() if pin_memory is None else pin_memory``): the test only says whether
        batches are pinned (``PIN_MEMORY``)."""
        operands = [value.left, value.right] if isinstance(value, cst.BooleanOperation) \
            and isinstance(value.operator, cst.And) else [value.body, value.orelse] if isinstance(value, cst.IfExp) \
            else [value]
        self._mark([o for o in operands if isinstance(o, cst.Call)
                    and self.scopes.qualify(o.func) == "torch.cuda.is_available"], PIN_MEMORY)

    def visit_Assign(self, node: cst.Assign) -> Optional[bool]:
        if isinstance(node.value, cst.IfExp) and any(isinstance(t.target, cst.Name) and "map_location" in
                                                     t.target.value for t in node.targets):
            self._map_locations.add(id(node.value))
        if any(_names_pin_memory(t.target) for t in node.targets):  # ``self.pin_memory = torch.cuda.is_available()``
            self._pins_memory(node.value)
        for target in node.targets:
            self._assignment(target.target, node.value)
            self._knob_flag(target.target, node.value)
            self._keys_set.bound(target.target)
        # ``use_cp = has_cp and img.device.type == "cuda"``, ``use_cuda = device.startswith("cuda")``: a flag; so is
        # a name unpacked from one (lucidrains' ``_, heads, q_len, _, k_len, is_cuda = *q.shape, k.shape[-2],
        # q.is_cuda``)
        for name, value in _bound_pairs(node) if len(node.targets) == 1 else ():
            tests = isinstance(value, (cst.BooleanOperation, cst.Comparison, cst.Attribute, cst.Name, cst.Call))
            if tests and cuda_test(value, self.scopes.qualify, self._flags()) == DEVICE_TYPE:
                self._device_flags[-1][name] = self.emitter.span(value)
                self._flag_values[-1][name] = value
            else:
                self._device_flags[-1].pop(name, None)
                self._flag_values[-1].pop(name, None)
        return True

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._keys_set.assigned(original_node, self._blocks[-1] if self._blocks else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._keys_set.bound(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._keys_set.deleted(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._keys_set.bound(node.name)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> Optional[bool]:
        if node.value is not None:
            self._assignment(node.target, node.value)
            self._knob_flag(node.target, node.value)
        return True

    def _knob_flag(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``self._pin_memory = DEVICE == "cuda" and ...``, ``compile_enabled = cfg.compile and DEVICE == "cuda"``:
        a flag named for a speed knob (``_KNOB_FLAG``) set from a device test is a knob, as the keyword is: off
        CUDA the plain way (pageable memory, eager execution) runs."""
        name = target.value if isinstance(target, cst.Name) else target.attr.value \
            if isinstance(target, cst.Attribute) else ""
        if _KNOB_FLAG.search(name.lower()):
            self._knob(value)

    def _assignment(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.consumed.add(id(target))
            return
        qual = self.scopes.qualify(target) if isinstance(target, cst.Attribute) else None
        key: Optional[Value] = None
        if qual is not None and interesting(qual):
            api, kind, context = qual, UsageKind.ASSIGN, None
        else:
            key = _environment_key(self.scopes, self.values, target)
            if key is None:
                return
            api, kind, context = "os.environ", UsageKind.ENV, key.text
        self.consumed.add(id(target))
        named = (Argument(ENV_KEY, key),) if key is not None else ()  # the variable's name, where it was set
        written = (Argument(None, self.values.value_of(value)), *named)
        self.emitter.emit(api, kind, target, written, context=context)
        if isinstance(value, STRING_NODES):
            self.consumed.add(id(value))

    # ------------------------------------------------------------------------------ module constants

    def leave_Module(self, original_node: cst.Module) -> None:
        """Module-level constants other modules may import (positions are only available during the visit)."""
        self._settle_flags()
        del self.scopes.stack[1:]
        binding = self.scopes.stack[0].binding
        self.optional_imports = tuple(sorted(f"{self.scopes.module_name}.{local}" for local in binding.guarded_locals))
        for name, exprs in binding.values.items():
            if len(exprs) == 1:
                value = self.values.with_origin(self.values.value_of(exprs[0]), exprs[0], name)
                if value.kind in (_STR, _FSTR, _DEVICE, _CHOICE, _REF):
                    self.constants[name] = value

    def finished_usages(self) -> Tuple[Usage, ...]:
        return self.emitter.finished()


def _environment_key(scopes: Scopes, values: Evaluator, node: cst.BaseExpression) -> Optional[Value]:
    """``CUDA_VISIBLE_DEVICES`` for ``os.environ["CUDA_VISIBLE_DEVICES"]``, when the rules watch it: the key's
    value, with where it was set when it came through a name (sample-factory's ``os.environ[CUDA_ENVVAR]``)."""
    if not isinstance(node, cst.Subscript) or not node.slice or not isinstance(node.slice[0].slice, cst.Index):
        return None
    if scopes.qualify(node.value) != "os.environ":
        return None
    key = values.value_of(node.slice[0].slice.value)
    return key if key.kind == _STR and scopes.vocabulary.watches_variable(key.text or "") else None


def _node_ids(node: cst.CSTNode, most: int = 256) -> List[int]:
    """The ids of ``node`` and the nodes under it (a bounded walk: an expression, not a module)."""
    found: List[int] = []
    stack: List[cst.CSTNode] = [node]
    while stack and len(found) < most:
        current = stack.pop()
        found.append(id(current))
        stack.extend(current.children)
    return found


def _bound_pairs(node: cst.Assign) -> List[Tuple[str, cst.BaseExpression]]:
    """The plain names an assignment binds, each with its value: ``x = v``, and a tuple unpacked from a tuple
    (``scope.unpacked_pairs``)."""
    target = node.targets[0].target
    return [(target.value, node.value)] if isinstance(target, cst.Name) else unpacked_pairs(target, node.value)


def _calls_on(body: cst.CSTNode, name: str, most: int) -> List[int]:
    """The ids of the calls under ``body`` (a bounded walk) that take the object ``name`` holds: as an argument
    (``matmul(adj_t, x)``) or as what the method is called on (``adj_t.sum()``), with the nodes under each."""
    found: List[int] = []
    stack: List[cst.CSTNode] = [body]
    seen = 0
    while stack and seen < most:
        current = stack.pop()
        seen += 1
        if isinstance(current, cst.Call) and (
                any(isinstance(arg.value, cst.Name) and arg.value.value == name for arg in current.args)
                or isinstance(current.func, cst.Attribute) and isinstance(current.func.value, cst.Name)
                and current.func.value.value == name):
            found.extend(_node_ids(current, most))
        stack.extend(current.children)
    return found


def _operands(node: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The operands of a chain of ``and``/``or`` (of nested ones), left to right; the node alone otherwise."""
    if isinstance(node, cst.BooleanOperation):
        return [*_operands(node.left), *_operands(node.right)]
    return [node]


def _conjunct_calls(value: cst.BaseExpression) -> List[cst.Call]:
    """The calls among the sides of an ``and`` (or the value itself)."""
    return [side for side in _conjuncts(value) if isinstance(side, cst.Call)]


def _tests_on_the_host(test: cst.BaseExpression) -> bool:
    """``x.device == torch.device("cpu")``, ``x.device.type == "cpu"``, ``x.is_cpu``: the branch runs on host
    tensors."""
    if isinstance(test, cst.Attribute):
        return test.attr.value == "is_cpu"
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return any(names_the_host(a) and isinstance(b, cst.Attribute) and b.attr.value in ("device", "type")
               for a, b in (sides, sides[::-1]))


def _conjuncts(test: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The sides of an ``and`` (of nested ones), left to right."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _disjuncts(test: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The sides of an ``or`` (of nested ones), left to right."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return [*_disjuncts(test.left), *_disjuncts(test.right)]
    return [test]


#: APIs named as values that are no torch function to run: devices, the distributed and build namespaces, types
_NOT_FUNCTION_VALUES = ("torch.cuda", "torch.distributed", "torch.backends", "torch.version", "torch.Tensor",
                        "torch.nn.Module", "torch.device", "torch.dtype", "torch.Size", "torch.Generator")
#: builtins that name an object without calling it
_NAMING_CALLS = frozenset({"isinstance", "issubclass", "getattr", "hasattr", "setattr", "type", "id", "repr", "str",
                           "print"})


def _calls_in(test: cst.BaseExpression) -> List[cst.Call]:
    """The calls a test makes at its top (through ``not``, ``and``/``or``, comparisons), not inside lambdas."""
    found: List[cst.Call] = []
    stack: List[cst.BaseExpression] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            found.append(node)
        elif isinstance(node, cst.UnaryOperation):
            stack.append(node.expression)
        elif isinstance(node, cst.BooleanOperation):
            stack.extend((node.left, node.right))
        elif isinstance(node, cst.Comparison):
            stack.extend((node.left, *(c.comparator for c in node.comparisons)))
    return found


def _body(node: Any) -> Sequence[cst.BaseStatement]:  # a function or class definition
    return node.body.body if isinstance(node.body, cst.IndentedBlock) else ()


def _shell_tool(command: str, tools: FrozenSet[str]) -> Optional[str]:
    """The first of ``tools`` a shell command line runs as a command (``nvidia-smi -L | wc -l``), not as an
    argument (``echo nvidia-smi``)."""
    for part in re.split(r"[|;&]+|\$\(|`", command[:2000]):
        words = part.split()
        if words and words[0].rsplit("/", 1)[-1] in tools:
            return words[0].rsplit("/", 1)[-1]
    return None



def _type_names(node: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The class names of ``isinstance``'s second argument: one, or the items of a tuple (nested too)."""
    if isinstance(node, cst.Tuple):
        return [n for element in node.elements for n in _type_names(element.value)]
    return [node] if isinstance(node, (cst.Name, cst.Attribute)) else []


#: Context managers and decorators under which autograd records nothing: what runs there has no backward.
_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                      "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})


def _names_tested(test: cst.BaseExpression) -> List[str]:
    """The plain names a test reads as truth values: ``flag``, ``not flag``, either side of ``and``/``or``."""
    if isinstance(test, cst.Name):
        return [test.value]
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _names_tested(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return _names_tested(test.left) + _names_tested(test.right)
    return []


#: arguments that only tune a copy or an update (an asynchronous copy, pinned host memory, a fused optimizer
#: step): off CUDA the plain way works
_KNOBS = frozenset({"non_blocking", "pin_memory", "fused"})
#: a flag's name that says it switches one of them, or compilation (eager runs everywhere)
_KNOB_FLAG = re.compile(r"(?:^|_)(?:%s|compile)(?:_|$)" % "|".join(sorted(_KNOBS)))


def _returned_test(function: cst.FunctionDef) -> Optional[cst.BaseExpression]:
    """The device's type test a function returns as its whole answer (``return device.type == "cuda" and
    torch.cuda.is_initialized()``, after a docstring or an import), else ``None``."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)):
        return None
    if any(not isinstance(statement, cst.SimpleStatementLine) for statement in body[:-1]):
        return None
    value = last.body[0].value
    return value if value is not None and _answers_for_a_device(value, lambda _: None) else None


def _answers_for_a_device(value: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], Optional[str]],
                          flags: Mapping[str, Span] = MappingProxyType({}),
                          bound: Mapping[str, cst.BaseExpression] = MappingProxyType({})) -> bool:
    """Whether ``value`` is a device-type test of a tensor's or a device's (``x.device.type == "cuda" and ...``,
    or a flag ``bound`` to one): not a setting the code chose (``self.backend == "nccl"``, one device protocol
    with its default, which ``fix`` renames together or not at all), nor a question about the machine
    (``torch.cuda.is_available() and torch.cuda.device_count() > 1``, which answers no on the target's: rfdetr
    skips its DDP wrap there)."""
    tensors = tests_a_tensors_device(value) or any(
        name in bound and tests_a_tensors_device(bound[name]) for name in _names_tested(value))
    return tensors and cuda_test(value, qualify, flags) == DEVICE_TYPE


#: a logger's methods (``logger.info``, ``logging.warning``, ``self.log.debug``)
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log"})


def _reports(func: cst.BaseExpression) -> bool:
    """``print``, or a logger's method (its receiver's last name says ``log``: ``logger``, ``_LOGGER``,
    ``logging``, ``self.log``)."""
    if isinstance(func, cst.Name):
        return func.value == "print"
    if not isinstance(func, cst.Attribute) or func.attr.value not in _LOG_METHODS:
        return False
    receiver = func.value
    last = receiver.value if isinstance(receiver, cst.Name) else receiver.attr.value \
        if isinstance(receiver, cst.Attribute) else ""
    return "log" in last.lower()


#: what a value passes through on its way into a printed text: an f-string's expression, ``%`` or ``+``,
#: ``str()`` / ``repr()`` / ``"...".format()``, a tuple of them
_FORMATTING = (cst.FormattedString, cst.FormattedStringExpression, cst.BinaryOperation, cst.Tuple, cst.Element,
               cst.Arg, cst.ConcatenatedString)


def _formatted_calls(value: cst.BaseExpression) -> List[cst.Call]:
    """The calls whose value only becomes (part of) ``value``'s text."""
    found: List[cst.Call] = []
    stack: List[cst.CSTNode] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            func = node.func
            if (isinstance(func, cst.Name) and func.value in ("str", "repr")) \
                    or (isinstance(func, cst.Attribute) and func.attr.value == "format"):
                stack.extend(node.args)
            else:
                found.append(node)
        elif isinstance(node, _FORMATTING):
            stack.extend(node.children)
    return found


#: what a tensor may go through after ``.cpu()`` and stay on the host
_HOST_KEEPING = frozenset({"cpu", "float", "double", "half", "detach", "contiguous", "clone", "long", "int"})


def _names_pin_memory(target: cst.BaseExpression) -> bool:
    """``pin_memory``, ``self.pin_memory``, rl-games' ``self.use_pinned_memory``, a loader's keyword table's
    ``out["pin_memory"]`` (matgl's)."""
    if isinstance(target, (cst.Name, cst.Attribute)):
        return _PINNED.search(dotted(target)) is not None
    if isinstance(target, cst.Subscript) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
        return string_value(target.slice[0].slice.value) == "pin_memory"
    return False


#: a name that says whether host memory is pinned
_PINNED = re.compile(r"pin(?:ned)?_mem(?:ory)?(?![a-z])")
#: a function's name that says it answers whether memory is (or is to be) pinned
_PINNING = re.compile(r"(?:^|_)(?:pin|pinned|pins|pin_memory)(?:_|$)")


def _input_on_host(node: cst.Call) -> bool:
    """Whether a call's input (its first positional argument, or ``input=``) is moved to the host right there:
    ``x.cpu()``, ``x.detach().cpu().double()``, ``x.to("cpu")``."""
    value = next((a.value for a in node.args if a.keyword is None and not a.star), None) or next(
        (a.value for a in node.args if a.keyword is not None and a.keyword.value == "input"), None)
    return _moved_to_host(value)


def _own_method(scopes: Scopes, func: cst.Attribute) -> bool:
    """``self.cuda(device)`` in a class that defines ``cuda`` itself (torchdrug's ``Graph``, whose ``to`` calls it):
    the class's own method, whatever its bases are; what that method does is read in its own body."""
    if not (isinstance(func.value, cst.Name) and func.value.value == "self"):
        return False
    info = scopes.current_class()
    return info is not None and info.defines(scopes, func.attr.value)


def _moved_to_host(value: Optional[cst.BaseExpression]) -> bool:
    """Whether ``value`` is a tensor moved to the host right there: ``x.cpu()``, ``x.detach().cpu().double()``,
    ``x.to("cpu")``."""
    seen_cpu = False
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        name = value.func.attr.value
        if name == "to" and len(value.args) == 1 and string_value(value.args[0].value) == "cpu":
            return True
        if name not in _HOST_KEEPING:
            return False
        seen_cpu = seen_cpu or (name == "cpu" and not value.args)
        if seen_cpu:
            return True
        value = value.func.value
    return False


#: which of a call's contexts wins where two apply (``_mark``): what it decides before what it is next to
_CALL_CONTEXTS = (IDLE_TEST, PIN_MEMORY, LOADER_WORKERS, REPORTED, IDLE_REGION, NEVER_ENTERED, CHECK_ONLY,
                  PICKS_GPU)
#: CUDA's questions whose answer a test may turn into a framework's ``"gpu"``
_AVAILABILITY = frozenset({"torch.cuda.is_available", "torch.cuda.device_count"})


def _moves_itself(value: cst.BaseExpression, name: str) -> bool:
    """``name.cuda()``, ``name.to(...)``: a value that is the name itself moved."""
    return type(value) is cst.Call and type(func := value.func) is cst.Attribute \
        and func.attr.value in ("cuda", "to", "cpu") and type(func.value) is cst.Name and func.value.value == name


def _placed_tensor(test: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` of ``x.is_cuda`` or ``x.device.type == "cuda"``."""
    if type(test) is cst.Attribute and test.attr.value == "is_cuda":
        return test.value
    if type(test) is cst.Comparison and len(test.comparisons) == 1 \
            and type(test.comparisons[0].operator) is cst.Equal \
            and string_value(test.comparisons[0].comparator) == "cuda" \
            and type(left := test.left) is cst.Attribute and left.attr.value == "type" \
            and type(left.value) is cst.Attribute and left.value.attr.value == "device":
        return left.value.value
    return None


def _device_named(value: cst.BaseExpression) -> Optional[str]:
    """``"cuda"`` for ``"cuda"`` or ``torch.device("cuda")`` (any call of one string argument named ``device``),
    ``"cpu"`` likewise; else ``None``."""
    if type(value) is cst.Call and len(value.args) == 1 and not value.args[0].keyword \
            and dotted(value.func).rpartition(".")[2] == "device":
        value = value.args[0].value
    text = string_value(value)
    return text if isinstance(text, str) and text in ("cuda", "cpu") else None


def _context_rank(context: str) -> int:
    return _CALL_CONTEXTS.index(context) if context in _CALL_CONTEXTS else len(_CALL_CONTEXTS)
