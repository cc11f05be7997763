"""Compiled CUDA extensions cannot run off CUDA: while tracing, their modules are replaced by stubs that
run the PyTorch fallback of the custom-op plans (``operator_maps/custom_op_families.json``).

A stub function named like a backward (``backward``, ``bwd``, ``grad``) returns the gradients of the
fallback by autograd (its first argument is the output gradient, the next ones the forward's tensor
inputs); any other function runs the fallback on its leading arguments. A function with no fallback
raises ``ExtensionUnavailable`` at its call, so the run stops there with the call site recorded.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import inspect
import sys
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Dict, Optional, Sequence, Tuple
from ..model import RegistrationKind

_BACKWARD_WORDS = ("backward", "bwd", "grad")


class ExtensionUnavailable(RuntimeError):
    """A compiled CUDA extension function with no PyTorch fallback was called while tracing."""


@dataclass(frozen=True)
class StubSpec:
    """One extension module to stub: its import name, and the fallback (family, code, source) if any."""

    module: str
    functions: Tuple[str, ...]
    family: Optional[str] = None
    code: Optional[str] = None
    source: Optional[str] = None


def stub_specs(ops, plans) -> Tuple[StubSpec, ...]:
    """From a static scan's custom ops and plans: the PyTorch route's code, whichever target offers it."""
    specs = []
    for op in ops:
        routes = [r for p in plans if p.op == op.name for r in p.routes if r.code]
        route = routes[0] if routes else None
        functions = tuple(dict.fromkeys(r.name for r in op.registrations if r.kind == RegistrationKind.PYBIND11))
        specs.append(StubSpec(module=op.name, functions=functions, family=route.family if route else None,
                              code=route.code if route else None, source=route.source if route else None))
    return tuple(specs)


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers imports of the stubbed extension modules (also when imported under a longer package path)."""

    def __init__(self, specs: Sequence[StubSpec], on_call: Callable[[StubSpec, str], None],
                 on_import: Callable[[StubSpec, str], None]) -> None:
        self.specs = {s.module: s for s in specs}
        self.on_call = on_call
        self.on_import = on_import

    def _spec_for(self, fullname: str) -> Optional[StubSpec]:
        for module, spec in self.specs.items():
            # the scan names modules from its root; the run may import them from another sys.path entry
            if fullname == module or fullname.endswith("." + module) or module.endswith("." + fullname):
                return spec
        return None

    def find_spec(self, fullname, path=None, target=None):
        spec = self._spec_for(fullname)
        if spec is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=f"migrator stub of {spec.module}")

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        stub = self._spec_for(module.__name__)
        assert stub is not None
        self.on_import(stub, module.__name__)
        fallback = _compile_fallback(stub)
        for name in stub.functions:
            setattr(module, name, self._function(stub, name, fallback))
        module.__dict__["__getattr__"] = lambda name: self._missing(stub, name)  # PEP 562: the stub's other names

    def _missing(self, stub: StubSpec, name: str) -> Callable:
        if name.startswith("__"):  # inspect, pickle and friends probe modules for dunders
            raise AttributeError(name)
        return self._function(stub, name, None)

    def _function(self, stub: StubSpec, name: str, fallback: Optional[Callable]) -> Callable:
        on_call = self.on_call

        def call(*args, **kwargs):
            on_call(stub, name)
            if fallback is None:
                raise ExtensionUnavailable(f"{stub.module}.{name} is a compiled CUDA extension with no PyTorch "
                                           "fallback in the custom-op plans")
            if any(word in name.lower() for word in _BACKWARD_WORDS):
                return _backward(fallback, args)
            return _forward(fallback, args)
        call.__name__ = name
        return call


def install(specs: Sequence[StubSpec], on_call, on_import) -> StubFinder:
    finder = StubFinder(specs, on_call, on_import)
    sys.meta_path.insert(0, finder)
    return finder


def _compile_fallback(stub: StubSpec) -> Optional[Callable]:
    if not stub.code:
        return None
    import torch
    import torch.nn.functional as F

    namespace: Dict[str, Any] = {"torch": torch, "F": F, "math": __import__("math")}
    exec(compile(stub.code, f"<fallback {stub.family}>", "exec"), namespace)  # our data, not user code
    functions = [v for k, v in namespace.items() if inspect.isfunction(v) and not k.startswith("_")]
    return functions[-1] if functions else None


@lru_cache(maxsize=None)
def _parameters(fallback: Callable) -> Tuple[int, int]:
    """(parameters in all, parameters without a default): the latter are the tensor inputs."""
    params = [p for p in inspect.signature(fallback).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(params), sum(1 for p in params if p.default is p.empty)


def _forward(fallback: Callable, args):
    count, _ = _parameters(fallback)
    return fallback(*args[:count])


def _backward(fallback: Callable, args):
    import torch

    _, tensors = _parameters(fallback)
    grad, inputs = args[0], [a for a in args[1:] if isinstance(a, torch.Tensor)][:tensors]
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_(True) for t in inputs]
        out = fallback(*leaves)
        grads = torch.autograd.grad(out, leaves, grad, allow_unused=True)
    return [g if g is not None else torch.zeros_like(t) for g, t in zip(grads, leaves)]
