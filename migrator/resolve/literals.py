"""String literals: which are usages (a ``"cuda:0"`` the rules' vocabulary names), and where each sits
(``default of parameter device``, ``argument 2 of torch.device``), remembered as the walk passes, so that a
literal which turns out to be a device or a backend is reported with its role and a confidence.

``Literals`` is a second visitor on the same walk as ``ModuleResolver``: it sees each node just after the
resolver does (which marks the strings it has already accounted for as consumed), and before the node's
strings are visited.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from ..devices import DEVICE_WORD
from ..model import Argument, Confidence, ValueKind
from .emit import Emitter
from .modules import DECIDES_A_MESSAGE, DIST_CFG_BACKEND, DIST_PARAMS_BACKEND
from .scope import LOADED, Scopes
from .strings import formatted_device, part_of_a_name
from .values import LITERAL_NODES, LITERAL_TYPES, STRING_NODES, Evaluator
from ..model import UsageKind

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_FSTR = ValueKind.FSTR
_STR = ValueKind.STR

Context = Union[str, Callable[[], str]]  # a callable when the text costs a code generation
#: a mapping's methods whose first argument is a key (its second, ``get``'s default, may well be a device)
_KEYED = frozenset({"get", "pop", "setdefault"})
#: CUDA's own words in an error's text (``CUDA out of memory``, ``CUDNN_STATUS_NOT_SUPPORTED``)
_CUDA_WORDS = re.compile(r"cuda|cudnn", re.IGNORECASE)
#: Keywords whose string argument is a device or backend whatever the call is.
DEVICE_KEYWORDS = frozenset({"device", "device_type", "map_location", "backend"})

#: How a literal's role reads when it is an operand of a comparison (``device == 'cuda'``); the rules append
#: the role to their message, and ``shim`` tells comparisons (which no runtime patcher rewrites) by it.
COMPARED = "compared with"


class Literals:
    def __init__(self, scopes: Scopes, emitter: Emitter, consumed: Set[int], values: Evaluator) -> None:
        self.scopes = scopes
        self.emitter = emitter
        self.consumed = consumed
        self.values = values
        self._roles: Dict[int, Tuple[Context, Confidence]] = {}
        self._siblings: Dict[int, Tuple[str, ...]] = {}
        self._tested: Set[int] = set()  # the boolean operations whose strings were set beside each other
        #: names a test compares with a word no device is called (``impl in ["ref", "cuda"]``): they choose an
        #: implementation, and a ``"cuda"`` given to them names CUDA's implementation, not a device
        self._selectors: Set[str] = set()
        self._implementation_names: Set[int] = set()  # ``"cuda"`` literals such a test compares with
        self._given: Dict[int, str] = {}  # a literal -> the name its role gives it to (``impl`` in ``impl="cuda"``)
        self._by_name: List[Tuple[int, str]] = []  # (emitted usage's index, the name its literal is given to)
        #: a literal -> the configuration key it is compared with or the default of (``cfg.dist.backend``)
        self._keys: Dict[int, str] = {}
        self._errors: Set[str] = set()  # the names ``except ... as e`` binds in the module

    def note(self, node: cst.BaseExpression, context: Context, confidence: Confidence = Confidence.HEURISTIC,
             given_to: Optional[str] = None, overrides: bool = False) -> None:
        """Both branches of a conditional share its role: ``device = "cuda" if ok else "cpu"`` assigns either.
        ``given_to``: the name the role gives the literal to (a parameter, a keyword, an assigned or compared name).
        ``overrides``: the role is the literal's whatever was noted before (the enclosing assignment's is noted
        first, and the conditional's own says more)."""
        if overrides:
            self._roles.pop(id(node), None)
        kind = type(node)  # compared by identity: see ``values.STRING_TYPES``
        if kind is cst.IfExp:
            assert isinstance(node, cst.IfExp)
            self.note(node.body, context, confidence, given_to)
            self.note(node.orelse, context, confidence, given_to)
        elif (kind in LITERAL_TYPES or kind is cst.BinaryOperation) and id(node) not in self._roles:  # ``"cuda:" + r``
            self._roles[id(node)] = (context, confidence)
            if given_to is not None:
                self._given[id(node)] = given_to

    def decides_a_message(self, test: cst.BaseExpression) -> None:
        """The strings of the test of an ``if`` whose body only says something decide only that (``modules.
        DECIDES_A_MESSAGE``), whatever their test compares."""
        for node in _strings_in(test):
            self._roles[id(node)] = (DECIDES_A_MESSAGE, Confidence.RESOLVED)

    def role_of(self, node: cst.BaseExpression) -> Tuple[str, Confidence]:
        context, confidence = self._roles.get(id(node), ("expression", Confidence.HEURISTIC))
        return (context() if callable(context) else context), confidence

    def leave_Module(self, original_node: cst.Module) -> None:
        """The literals given to an implementation selector are no device usages (known only once every test
        of the module was seen: a parameter's default comes before the test in its body). The roles' callables
        hold this visitor (and through it the tree): dropped once the walk is over, the tree is freed as soon
        as the pass returns instead of waiting for the cyclic collector to find it."""
        self.emitter.drop(index for index, name in self._by_name if name in self._selectors)
        self._compared_with_defaults()
        self._by_name.clear()
        self._given.clear()
        self._keys.clear()
        self._roles.clear()
        self._siblings.clear()
        self._tested.clear()

    def _compared_with_defaults(self) -> None:
        """A device's name compared with a parameter whose default is a device's name (mmfewshot's
        ``train_model(..., device='cuda')``, then ``if device == 'cuda':``) is one protocol with that default: the
        comparison came through the parameter, so its cause is the default (``Usage.through``), one change."""
        usages = self.emitter.usages
        defaults: Dict[Tuple[str, str], int] = {}  # (the function's scope, the parameter) -> its default's usage
        for index, name in self._by_name:
            usage = usages[index]
            if usage.context == f"default of parameter {name}":
                defaults.setdefault((usage.scope, name), index)
        if not defaults:
            return
        for index, name in self._by_name:
            usage = usages[index]
            if usage.context != f"{COMPARED} {name}" or usage.through is not None:
                continue
            scope = usage.scope
            while scope and (scope, name) not in defaults:  # the parameter of this function, or of one around it
                scope = scope.rpartition(".")[0]
            if scope:
                usages[index] = replace(usage, through=usages[defaults[scope, name]].span)

    # ------------------------------------------------------------------------------ what sits beside a literal

    def _beside(self, items: Sequence[cst.BaseExpression], also: Tuple[str, ...] = ()) -> None:
        """Each device or backend name among ``items`` gets the other such names (and ``also``) as its siblings.
        Other strings are neither given nor kept (a list of 10,000 words costs one pass, not their square). Among
        method names (pypose's ``HANDLED_FUNCTIONS = ['__getitem__', 'cpu', 'cuda', 'float', 'to', ...]``) a
        device's word is a method's name: no device."""
        texts = [(n, _text(n)) for n in items]
        named = [(node, text) for node, text in texts if text is not None and DEVICE_WORD.match(text)]
        if named and sum(1 for _, t in texts if t is not None and _IDENTIFIER.match(t) and not DEVICE_WORD.match(t)
                         and t not in _DEVICE_CHOICES) >= _NAMES_AROUND:
            self.consumed.update(id(node) for node, _ in named)
            return
        if len(named) > _MOST_NAMED:
            return  # a table of that many device names is data, not one device choice
        also = tuple(t for t in also if DEVICE_WORD.match(t))
        for node, _word in named:
            others = tuple(t for n, t in named if n is not node) + also
            if others:
                self._siblings[id(node)] = self._siblings.get(id(node), ()) + others

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """``class RNGType(Enum): CUDA = "cuda"; NPU = "npu"; MLU = "mlu"``: a class whose members are device
        names is a table of devices, as a set of them is."""
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        values = [line.body[0].value for line in body
                  if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
                  and isinstance(line.body[0], cst.Assign) and len(line.body[0].targets) == 1]
        self._beside(values)

    def visit_Set(self, node: cst.Set) -> None:
        self._beside([e.value for e in node.elements])

    def visit_List(self, node: cst.List) -> None:
        self._beside([e.value for e in node.elements])

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._beside([e.value for e in node.elements])

    def visit_Dict(self, node: cst.Dict) -> None:
        """A table's keys and values all sit beside each other (``{"cuda": "nccl", "npu": "hccl"}``). A record
        whose keys are field names (``{"cpu": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state_all(),
        "numpy": ...}``, ``{"torchvision": "0.25.0", "cuda": ("12.6", "12.8")}``): a key named ``cuda`` there
        labels a field, it is no device (what the field holds is judged where it is made or read)."""
        pairs = [e for e in node.elements if isinstance(e, cst.DictElement)]
        keys = [_text(e.key) for e in pairs]
        if keys and all(k is not None for k in keys) and not all(DEVICE_WORD.match(k or "") for k in keys):
            self.consumed.update(id(e.key) for e, k in zip(pairs, keys) if DEVICE_WORD.match(k or ""))
        self._beside([e.key for e in pairs] + [e.value for e in pairs])

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """``states["cuda"]``, ``AVAILABLE_TORCH_VERSIONS[version]["cuda"]``: a literal index names an entry of a
        table, not a device (a table of devices is judged where it is written, with its keys)."""
        for element in node.slice:
            if isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.SimpleString):
                self.consumed.add(id(element.slice.value))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """``t != "cuda" and t != "xpu"``, ``t == "cuda" or t == "npu"``: the strings one test compares with sit
        beside each other (a list of the devices the code allows, written out)."""
        if id(node) in self._tested:
            return
        strings = _strings_in(node)
        self._tested.update(id(n) for n in _operations_in(node))
        if len(strings) > 1:
            self._beside(list(strings))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """``t if t in {"npu", "xpu"} else "cuda"``: the strings the test names sit beside both branches."""
        tested = tuple(t for t in (_text(n) for n in _strings_in(node.test)) if t is not None)
        if tested:
            self._beside([node.body], tested)
            self._beside([node.orelse], tested)

    # ------------------------------------------------------------------------------ where literals sit

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        if _abstract(node):  # ``@abstractmethod def get_rng_state(self, device="cuda")``: each backend's own runs
            self.consumed.update(id(p.default) for p in (*params.posonly_params, *params.params,
                                                         *params.kwonly_params) if p.default is not None)
            return
        read = None  # the names the body reads, once a string default asks
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is None:
                continue
            text = _text(param.default) if isinstance(param.default, STRING_NODES) else None
            if text is not None and DEVICE_WORD.match(text):  # a device's name: is it read at all? (one walk)
                read = _names_read(node.body) if read is None else read
                if read is not _ALL and param.name.value not in read:
                    # speechbrain's ``NMFDecoderAudio(..., device="cuda")`` never reads ``device``: no device
                    self.consumed.add(id(param.default))
                    continue
            self.note(param.default, f"default of parameter {param.name.value}", given_to=param.name.value)

    def visit_Call(self, node: cst.Call) -> None:
        self._default_key(node)
        if id(node) in self.consumed:
            return
        func = node.func
        if formatted_device(node) is not None and isinstance(func, cst.Attribute):
            self._literal(node)  # ``'cuda:{:d}'.format(rank)``: the device the call spells
            self.consumed.add(id(func.value))
        if isinstance(func, cst.Attribute) and func.attr.value in _KEYED and node.args \
                and node.args[0].keyword is None and isinstance(node.args[0].value, cst.SimpleString):
            self.consumed.add(id(node.args[0].value))  # ``data.get("cuda", {})``: the key, as ``data["cuda"]``
        if (isinstance(func, cst.Attribute) and func.attr.value == "joinpath") or self.scopes.qualify(func) in _PATHS:
            # bagua's ``os.path.join(home, "bagua", "nccl", "lib", "libnccl.so")``: a folder's name, no backend
            self.consumed.update(id(a.value) for a in node.args if isinstance(a.value, STRING_NODES))
        for index, arg in enumerate(a for a in node.args if a.keyword is None and not a.star):
            self.note(arg.value, partial(self._argument_of, func, index))

    def _argument_of(self, func: cst.BaseExpression, index: int) -> str:
        return f"argument {index + 1} of {self._callee(func)}"

    def _callee(self, func: cst.BaseExpression) -> str:
        qual = self.scopes.qualify(func)
        return qual if qual and not qual.startswith(LOADED + ".") else self.emitter.code(func)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            keyword = node.keyword.value
            if keyword == "dist_cfg":
                self._dist_cfg(node.value)
            self.note(node.value, f"argument {keyword}=",
                      Confidence.RESOLVED if keyword in DEVICE_KEYWORDS else Confidence.HEURISTIC, keyword)

    def _dist_cfg(self, value: cst.BaseExpression, role: str = DIST_CFG_BACKEND) -> None:
        """``dist_cfg=dict(backend='nccl')`` (mmengine's ``env_cfg``), ``dist_params = dict(backend='nccl')``
        (mmcv 1.x's configurations): the backend the runner or ``tools/train.py`` hands to ``init_dist``."""
        backend = _item(value, "backend")
        if backend is not None:
            self.note(backend, role, Confidence.RESOLVED, "backend")

    def visit_Assign(self, node: cst.Assign) -> None:
        named = _named(node.targets[0].target) if len(node.targets) == 1 else None
        if named in ("dist_cfg", "dist_params"):
            self._dist_cfg(node.value, DIST_CFG_BACKEND if named == "dist_cfg" else DIST_PARAMS_BACKEND)
        self.note(node.value, lambda: "assigned to " + ", ".join(self.emitter.code(t.target) for t in node.targets),
                  given_to=_named(node.targets[0].target) if len(node.targets) == 1 else None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.note(node.value, lambda: "assigned to " + self.emitter.code(node.target), given_to=_named(node.target))

    def _default_key(self, node: cst.Call) -> None:
        """The key a literal is the default of: ``cfg.get("device", "cuda")``, ``getattr(cfg, "device", "cuda")``,
        ``parser.add_argument("--dist-backend", default="nccl")`` (its ``dest``: ``dist_backend``)."""
        func, args = node.func, node.args
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        if name == "get" and isinstance(func, cst.Attribute) and len(positional) == 2:
            key, owner, default = _text(positional[0]), func.value, positional[1]
        elif name == "getattr" and len(positional) == 3:
            key, owner, default = _text(positional[1]), positional[0], positional[2]
        elif name == "add_argument":
            flags = [t for t in (_text(v) for v in positional) if t and t.startswith("--")]
            found = next((a.value for a in args if a.keyword is not None and a.keyword.value == "default"), None)
            if flags and found is not None:
                self._keys[id(found)] = flags[0][2:].replace("-", "_")
            return
        else:
            return
        chain = _chain_key(owner, allow_root=True)
        if key and chain is not None and isinstance(default, LITERAL_NODES):
            self._keys[id(default)] = f"{chain}.{key}" if chain else key

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self._errors.add(node.name.name.value)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, (cst.In, cst.NotIn)) \
                and isinstance(node.left, STRING_NODES) and self._error_text(node.comparisons[0].comparator):
            self.consumed.add(id(node.left))  # ``"cuda" in str(e).lower()``: a word looked for in a message
            return
        if len(node.comparisons) == 1:  # ``cfg.dist.backend == "nccl"``: the key a configuration sets
            sides = (node.left, node.comparisons[0].comparator)
            for literal, other in (sides, sides[::-1]):
                key = _chain_key(other)
                if key and isinstance(literal, LITERAL_NODES):
                    self._keys[id(literal)] = key
        self._selector_test(node)
        for target in node.comparisons:
            self.note(target.comparator, lambda: f"{COMPARED} {self.emitter.code(node.left)}", Confidence.RESOLVED,
                      _named(node.left))
        if node.comparisons:
            self.note(node.left, lambda: f"{COMPARED} {self.emitter.code(node.comparisons[0].comparator)}",
                      Confidence.RESOLVED, _named(node.comparisons[0].comparator))

    def cuda_error_test(self, test: cst.BaseExpression) -> bool:
        """``"CUDA out of memory" in str(e)`` (alone or in an ``and``): CUDA's own words looked for in a caught
        exception's text, true for CUDA's errors only (s3prl's runner skips a batch on CUDA's out-of-memory)."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self.cuda_error_test(test.left) or self.cuda_error_test(test.right)
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.In) and isinstance(test.left, STRING_NODES)):
            return False
        text = _text(test.left)
        return text is not None and _CUDA_WORDS.search(text) is not None \
            and self._error_text(test.comparisons[0].comparator)

    def _error_text(self, node: cst.BaseExpression) -> bool:
        """``str(e)``, ``repr(e).lower()``, ``e.args[0]``, ``traceback.format_exc()``: the text of an exception
        caught by an ``except ... as e`` of the module."""
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in _TEXT_METHODS:
            node = node.func.value
        if isinstance(node, cst.Subscript):
            node = node.value
        if isinstance(node, cst.Call):
            if self.scopes.qualify(node.func) in _FORMATTED_TRACEBACKS:
                return True
            if isinstance(node.func, cst.Name) and node.func.value in ("str", "repr") and len(node.args) == 1:
                node = node.args[0].value
        if isinstance(node, cst.Attribute) and node.attr.value in ("args", "message", "msg"):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self._errors

    def _selector_test(self, node: cst.Comparison) -> None:
        """``impl in ["ref", "cuda"]``, ``kernel == "triton"``: a name compared with a word that names no
        device (nor a device choice: ``auto``, ``gpu``) chooses an implementation; its ``"cuda"`` is one."""
        strings = _strings_in(node)
        texts = [_text(n) for n in strings]
        names = [name for side in (node.left, *(c.comparator for c in node.comparisons))
                 if (name := _named(side)) is not None]
        if not any(t is not None and _IMPLEMENTATION_WORD.match(t) and not DEVICE_WORD.match(t)
                   and t not in _DEVICE_CHOICES for t in texts) \
                and not any(_SELECTOR_WORD.search(name) and not _DEVICE_NAME.search(name) for name in names):
            return  # (BasicSR's ``prefetch_mode == 'cuda'``: a mode's name picks an implementation by its value)
        self._implementation_names.update(id(n) for n, t in zip(strings, texts) if t is not None
                                          and DEVICE_WORD.match(t))
        for side in (node.left, *(c.comparator for c in node.comparisons)):
            name = _named(side)
            if name is not None and not _DEVICE_NAME.search(name):  # ``backend == "inductor"`` keeps its nccl
                self._selectors.add(name)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.note(node.value, "returned")

    # ------------------------------------------------------------------------------ literals that are usages

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, STRING_NODES):
            self.consumed.add(id(node.value))  # docstrings and bare strings are not code

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> Optional[bool]:
        self._literal(node)
        return True

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> Optional[bool]:
        """``"cuda:" + str(rank)``: the device string it spells is the literal (its left string a part of it);
        ``"cuda" + suffix`` spells a name that starts with the word, ``root / "nccl"`` a path: neither string
        is one."""
        sides = [side for side in (node.left, node.right) if isinstance(side, STRING_NODES)]
        self.consumed.update(id(side) for side in sides if part_of_a_name(node, side))
        if sides and not part_of_a_name(node, node.left) and self.values.value_of(node).kind == _FSTR:
            self._literal(node)  # ``"cuda:" + str(rank)``: the device the expression spells
            self.consumed.add(id(node.left))
        return True

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> Optional[bool]:
        self._literal(node)
        return False

    def _literal(self, node: cst.BaseExpression) -> None:
        if id(node) in self.consumed and not (type(node) is cst.SimpleString
                                              and self.scopes.vocabulary.names_an_api(node.raw_value)):
            return  # a call's argument, judged with its call; one that names an API (``x.type('torch.cuda.
            # HalfTensor')``) is a use of that API all the same
        value = self.values.value_of(node)
        if value.kind not in (_STR, _FSTR):
            return
        api = self.scopes.vocabulary.literal_api(value.text or "", is_fstring=value.kind == _FSTR)
        if api and id(node) in self._implementation_names:
            return  # ``impl in ["ref", "cuda"]``: CUDA's implementation, judged where it is built
        if api and value.kind == _STR and self.scopes.scope_name().rpartition(".")[2] == value.text:
            return  # ``def cuda(self, *a): return self.proxy("call_method", "cuda", ...)``: the method's name
        if api:
            context, confidence = self.role_of(node)
            given_to = self._given.get(id(node))
            if given_to is not None:
                self._by_name.append((len(self.emitter.usages), given_to))
            self.emitter.emit(api, UsageKind.LITERAL, node, (Argument(None, value),), confidence=confidence,
                              context=context, siblings=self._siblings.get(id(node), ()),
                              config_key=self._keys.get(id(node)))


class _NamesRead(cst.CSTVisitor):
    """The plain names a function body reads; everything (``_ALL``) where it reads ``locals()`` or ``vars()``."""

    def __init__(self) -> None:
        self.names: Set[str] = set()
        self.everything = False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        if node.value in ("locals", "vars"):
            self.everything = True


_ALL: Set[str] = set()


#: calls whose string arguments are parts of a file's path
_PATHS = frozenset({"os.path.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "posixpath.join"})


def _names_read(body: cst.BaseSuite) -> Set[str]:
    visitor = _NamesRead()
    body.visit(visitor)
    return _ALL if visitor.everything else visitor.names


_MOST_NAMED = 32
#: string methods that keep a message a message (``str(e).lower()``)
_TEXT_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
_FORMATTED_TRACEBACKS = frozenset({"traceback.format_exc", "traceback.format_exception"})
#: A word a test may compare a selector with (``ref``, ``triton``, ``native``), as opposed to a path or a sentence.
_IMPLEMENTATION_WORD = re.compile(r"^[a-z][a-z0-9_]{1,23}$")
#: how many other identifiers around device words make a list one of names (methods, modules), not of devices
_NAMES_AROUND = 3
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Words that choose a device without naming one (``device == "auto"``, Lightning's ``accelerator="gpu"``).
_DEVICE_CHOICES = frozenset({"auto", "gpu", "gpus", "default", "none", "any", "all", "cuda_if_available",
                             "accelerator", "device", "cudagraph"})
#: Names that say they pick an implementation by their value (``prefetch_mode``, ``attn_impl``, ``kernel``): a device's
#: word they are compared with is the name of one (``prefetch_mode == 'cuda'`` picks BasicSR's ``CUDAPrefetcher``)
_SELECTOR_WORD = re.compile(r"(?:^|_)(?:mode|impl|implementation|kernel|variant|engine)$", re.IGNORECASE)
#: Names that hold a device or a backend whatever else a test compares them with (``device``, ``map_location``,
#: ``args.backend``, ``accelerator``, ``dist_url``): never taken for an implementation selector.
_DEVICE_NAME = re.compile(r"device|backend|accelerator|map_location|dist|gpu|cuda", re.IGNORECASE)


def _abstract(node: cst.FunctionDef) -> bool:
    """A method with no body of its own: ``@abstractmethod``, or only a docstring and ``pass``, ``...`` or
    ``raise NotImplementedError``: what its parameters default to reaches no run (an override's do)."""
    if any(isinstance(d.decorator, (cst.Name, cst.Attribute)) and
           (d.decorator.value if isinstance(d.decorator, cst.Name) else d.decorator.attr.value) == "abstractmethod"
           for d in node.decorators):
        return True
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    statements = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
                                          and isinstance(s.body[0], cst.Expr)
                                          and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return False
    (only,) = statements[0].body if len(statements[0].body) == 1 else (None,)
    if isinstance(only, cst.Pass) or (isinstance(only, cst.Expr) and isinstance(only.value, cst.Ellipsis)):
        return True
    raised = only.exc if isinstance(only, cst.Raise) else None
    raised = raised.func if isinstance(raised, cst.Call) else raised
    return isinstance(raised, cst.Name) and raised.value == "NotImplementedError"


def tested_key(test: cst.BaseExpression) -> Optional[str]:
    """The configuration key a CUDA test compares with a string (``cfg.device == "cuda"``, ``"cuda" in
    args.device``, either side of an ``and``); ``None`` for anything else (``x.device.type == "cuda"``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return tested_key(test.left) or tested_key(test.right)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left, right = test.left, test.comparisons[0].comparator
        for literal, other in ((left, right), (right, left)):
            if isinstance(literal, STRING_NODES):
                key = _chain_key(other)
                if key:
                    return key
    return None


#: the last part of a chain that is a tensor's or a device object's, not a configuration key
_NOT_KEYS = frozenset({"type", "is_cuda", "device_type"})


def _chain_key(node: cst.BaseExpression, allow_root: bool = False) -> Optional[str]:
    """``dist.backend`` for ``cfg.dist.backend`` or ``cfg["dist"]["backend"]`` (the object it is read from, a
    name, left out); ``None`` for a bare name, a call, a tensor's ``x.device.type`` or ``self.device``.
    ``allow_root``: the chain may be the object alone (``cfg`` in ``cfg.get("device")``: ``""``), or an
    object's attribute (``self.cfg`` in ``self.cfg.get("device")``)."""
    parts: List[str] = []
    while True:
        if isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        elif isinstance(node, cst.Subscript) and len(node.slice) == 1 \
                and isinstance(node.slice[0].slice, cst.Index) and _text(node.slice[0].slice.value) is not None:
            parts.append(_text(node.slice[0].slice.value) or "")
            node = node.value
        else:
            break
        if len(parts) > 8:
            return None
    if not isinstance(node, cst.Name) or (not parts and not allow_root) or (parts and parts[0] in _NOT_KEYS):
        return None
    if not allow_root and node.value in ("self", "cls") and len(parts) == 1:
        return None  # ``self.device``: the object's own attribute, set in its code, not a configuration's key
    return ".".join(reversed(parts))


def _named(node: cst.BaseExpression) -> Optional[str]:
    """``impl`` for ``impl`` and ``self.impl``; ``None`` for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _item(table: cst.BaseExpression, key: str) -> Optional[cst.BaseExpression]:
    """The value of ``key`` in ``dict(key=...)`` or ``{"key": ...}``, else ``None``."""
    if isinstance(table, cst.Call) and isinstance(table.func, cst.Name) and table.func.value == "dict":
        return next((a.value for a in table.args if a.keyword is not None and a.keyword.value == key), None)
    if isinstance(table, cst.Dict):
        return next((e.value for e in table.elements if isinstance(e, cst.DictElement)
                     and isinstance(e.key, cst.SimpleString) and _text(e.key) == key), None)
    return None


def _text(node: cst.BaseExpression) -> Optional[str]:
    """A plain string literal's text (``"npu"`` -> ``npu``), else ``None``."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        return text if isinstance(text, str) and len(text) <= 40 else None
    return None


def _strings_in(node: cst.BaseExpression) -> Sequence[cst.BaseExpression]:
    """The string literals of a conditional's test, a comparison and the containers it compares with deep."""
    found: List[cst.BaseExpression] = []
    stack = [node]
    while stack and len(found) < 64:
        current = stack.pop()
        if isinstance(current, cst.SimpleString):
            found.append(current)
        elif isinstance(current, cst.Comparison):
            stack.append(current.left)
            stack.extend(c.comparator for c in current.comparisons)
        elif isinstance(current, cst.BooleanOperation):
            stack.extend((current.left, current.right))
        elif isinstance(current, (cst.Set, cst.List, cst.Tuple)):
            stack.extend(e.value for e in current.elements)
        elif isinstance(current, cst.UnaryOperation):
            stack.append(current.expression)
    return found


def _operations_in(node: cst.BaseExpression) -> Sequence[cst.BaseExpression]:
    """A boolean operation and the ones nested in it (one test, walked once)."""
    found: List[cst.BaseExpression] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.BooleanOperation):
            found.append(current)
            stack.extend((current.left, current.right))
    return found

