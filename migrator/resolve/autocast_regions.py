"""``with torch.autocast("cuda", enabled=False):`` (or the decorator) around code that autocast never lowers.

Turning CUDA's autocast off keeps a region in fp32 on CUDA; on a target with its own device the CUDA switch
does nothing, and an outer autocast on the target's device stays on. That matters only where the region runs an
op autocast computes in 16 bits (torch.amp's lower-precision list: matmul, linear, convolutions, ...): a region
of elementwise maths, reductions and gathers computes the same either way. The region is read with the
functions and methods of its own module it calls (two calls deep); a call the module cannot show (a submodule,
an attribute, a helper from another module of the project) may lower, and so counts as doing so.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, Optional

import libcst as cst

#: torch.amp's CUDA ops that autocast to float16 (the "lower precision" list of the autocast op reference), and
#: what decomposes into them (einsum, tensordot, scaled dot-product attention).
LOWER_PRECISION = frozenset({
    "matmul", "mm", "bmm", "addmm", "addbmm", "addmv", "addr", "baddbmm", "chain_matmul", "multi_dot", "mv",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc",
    "linear", "prelu", "GRUCell", "LSTMCell", "RNNCell", "einsum", "tensordot", "scaled_dot_product_attention",
    "_convolution", "convolution", "lstm", "gru", "rnn_tanh", "rnn_relu"})
#: The autocast context managers and decorators a region is turned off with.
AUTOCASTS = frozenset({"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast",
                       "torch.cuda.amp.autocast", "torch.cuda.amp.autocast_mode.autocast"})
_BUILTINS = frozenset({"len", "range", "int", "float", "bool", "str", "min", "max", "abs", "sum", "tuple", "list",
                       "dict", "set", "zip", "map", "filter", "enumerate", "isinstance", "print", "round", "sorted",
                       "reversed", "any", "all", "getattr", "hasattr", "type", "iter", "next", "callable",
                       "divmod", "pow", "repr", "format", "id", "hash", "issubclass", "setattr", "vars", "super"})


def disables_autocast(call: cst.Call) -> bool:
    """``autocast(..., enabled=False)``."""
    return any(a.keyword is not None and a.keyword.value == "enabled" and isinstance(a.value, cst.Name)
               and a.value.value == "False" for a in call.args)


class _Lowers(cst.CSTVisitor):
    def __init__(self, reader: "RegionReader", depth: int, params: FrozenSet[str]) -> None:
        self.reader, self.depth, self.params, self.found = reader, depth, params, False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found:
            return False
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            self.found = True
        elif isinstance(node, cst.Call) and self.reader.call_lowers(node, self.depth, self.params):
            self.found = True
        return not self.found


class RegionReader:
    """Reads a module's regions: ``functions`` are its top-level functions, ``methods`` the methods of the class
    the region sits in; ``qualify`` resolves a name through the module's imports; ``module`` is the module's
    name (its top-level package's other modules are the project's, unseen here)."""

    def __init__(self, qualify: Callable[[cst.BaseExpression], Optional[str]], functions: Dict[str, cst.FunctionDef],
                 methods: Dict[str, cst.FunctionDef], module: str) -> None:
        self.qualify, self.functions, self.methods, self.module = qualify, functions, methods, module
        self.package = module.split(".")[0]
        self._read: Dict[int, bool] = {}  # a function's id -> whether its body may lower

    def lowers(self, node: cst.CSTNode, depth: int = 2, params: FrozenSet[str] = frozenset()) -> bool:
        """Whether ``node`` (a region's body) may run an op autocast computes in 16 bits. ``params``: inside a
        helper, its parameters: a callable the caller passes (``default(x, lambda: torch.randn_like(y))``) is
        read where the caller writes it."""
        visitor = _Lowers(self, depth, params)
        node.visit(visitor)
        return visitor.found

    def call_lowers(self, call: cst.Call, depth: int, params: FrozenSet[str]) -> bool:
        func = call.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) \
            else None
        if name is None or name in LOWER_PRECISION:
            return True
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self._body_lowers(self.methods.get(name), depth)  # a method here, else a submodule's call
        if isinstance(func, cst.Name):
            if func.value in _BUILTINS or func.value in params:
                return False
            if func.value in self.functions:
                return self._body_lowers(self.functions[func.value], depth)
        qual = self.qualify(func)
        if qual is not None:
            return qual.split(".")[0] == self.package  # another module of the project's; torch, numpy: never
        if not isinstance(func, cst.Attribute):
            return True  # a callable the module cannot show
        return _on_self(func.value)  # ``self.net.encode(x)``: a submodule's; ``x.sigmoid()``, ``f(x).to(d)``: no

    def _body_lowers(self, function: Optional[cst.FunctionDef], depth: int) -> bool:
        if function is None or depth <= 0:
            return True
        if id(function) not in self._read:
            self._read[id(function)] = False  # a recursive call adds nothing to what the body shows
            params = function.params
            names = frozenset(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
            self._read[id(function)] = self.lowers(function.body, depth - 1, names)
        return self._read[id(function)]


def _on_self(receiver: cst.BaseExpression) -> bool:
    """``self.net``, ``self.layers[0]``: an attribute of the object, a submodule where it is a module."""
    while isinstance(receiver, (cst.Attribute, cst.Subscript)):
        receiver = receiver.value
        if isinstance(receiver, cst.Name):
            return receiver.value == "self"
    return False
