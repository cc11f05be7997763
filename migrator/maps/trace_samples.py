"""Sample calls for common APIs that PyTorch's own sample inputs (OpInfo, ModuleInfo, OptimizerInfo) leave
out: module and functional dropout, ``nn.init``, tensor constructors, ``nn.Parameter``, containers, gradient
clipping, the autocast / no-grad contexts and the autograd engine's entries (``loss.backward()``: on a leaf,
so only the engine's own seed gradient is recorded; the backward kernels of a model's ops are in their rows).
Each is one realistic call; ``trace_api`` records the aten ops it dispatches (none, for a container or a
context: it needs no device kernel).

A sample is built outside the recording (``make`` returns the call and whether to trace its backward), so
the ops that build its inputs are not counted as the API's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Tuple

SAMPLE_SOURCE = "curated-sample"

Call = Tuple[Callable[[], object], bool]


@dataclass(frozen=True)
class Sample:
    api: str
    make: Callable[[], Call]


def _x(requires_grad: bool = True):
    import torch

    return torch.randn(4, 8, requires_grad=requires_grad)


def _image():
    import torch

    return torch.randn(2, 3, 8, 8, requires_grad=True)


def _sequence():
    import torch

    return torch.randn(2, 4, 8, requires_grad=True)


def _sequential():
    import torch

    return torch.nn.Sequential(torch.nn.Identity())


def _module(build: Callable[[], object], inputs: Callable[[], object] = _x) -> Callable[[], Call]:
    def make() -> Call:
        module, x = build(), inputs()
        module.train()
        return (lambda: module(x)), True
    return make


def _init(name: str, *args) -> Callable[[], Call]:
    def make() -> Call:
        import torch

        weight = torch.empty(8, 16)
        return (lambda: getattr(torch.nn.init, name)(weight, *args)), False
    return make


def _dropout(name: str, inputs: Callable[[], object] = _x) -> Callable[[], Call]:
    def make() -> Call:
        import torch

        x = inputs()
        return (lambda: getattr(torch.nn.functional, name)(x, 0.1, training=True)), True
    return make


def _nn(name: str, *args) -> Callable[[], object]:
    def build():
        import torch

        return getattr(torch.nn, name)(*args)
    return build


def _tensor() -> Call:
    import torch

    return (lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]])), False


def _parameter() -> Call:
    import torch

    data = torch.randn(8)
    return (lambda: torch.nn.Parameter(data)), False


def _clip(name: str) -> Callable[[], Call]:
    def make() -> Call:
        import torch

        layer = torch.nn.Linear(8, 4)
        layer(torch.randn(2, 8)).sum().backward()
        return (lambda: getattr(torch.nn.utils, name)(layer.parameters(), 1.0)), False
    return make


def _engine(name: str) -> Callable[[], Call]:
    """The autograd engine on a scalar leaf: what it dispatches itself (the seed gradient), nothing of a model."""
    def make() -> Call:
        import torch

        leaf = torch.tensor(2.0, requires_grad=True)
        if name == "torch.Tensor.backward":
            return (lambda: leaf.backward()), False
        if name == "torch.autograd.backward":
            return (lambda: torch.autograd.backward(leaf)), False
        return (lambda: torch.autograd.grad(leaf, leaf)), False
    return make


def _context(factory: Callable[[], object]) -> Callable[[], Call]:
    def make() -> Call:
        def enter():
            with factory():
                pass
        return enter, False
    return make


def _autocast():
    import torch

    return torch.autocast(device_type="cpu", dtype=torch.bfloat16)


def _no_grad():
    import torch

    return torch.no_grad()


def _inference_mode():
    import torch

    return torch.inference_mode()


SAMPLES: Tuple[Sample, ...] = (
    Sample("torch.nn.Dropout", _module(_nn("Dropout", 0.1))),
    Sample("torch.nn.Dropout1d", _module(_nn("Dropout1d", 0.1), _sequence)),
    Sample("torch.nn.Dropout2d", _module(_nn("Dropout2d", 0.1), _image)),
    Sample("torch.nn.AlphaDropout", _module(_nn("AlphaDropout", 0.1))),
    Sample("torch.nn.functional.dropout", _dropout("dropout")),
    Sample("torch.nn.functional.dropout2d", _dropout("dropout2d", _image)),
    Sample("torch.nn.functional.alpha_dropout", _dropout("alpha_dropout")),
    Sample("torch.nn.Identity", _module(_nn("Identity"))),
    Sample("torch.nn.Sequential", _module(_sequential)),
    Sample("torch.nn.init.normal_", _init("normal_", 0.0, 0.02)),
    Sample("torch.nn.init.uniform_", _init("uniform_", -0.1, 0.1)),
    Sample("torch.nn.init.trunc_normal_", _init("trunc_normal_", 0.0, 0.02)),
    Sample("torch.nn.init.constant_", _init("constant_", 0.5)),
    Sample("torch.nn.init.zeros_", _init("zeros_")),
    Sample("torch.nn.init.ones_", _init("ones_")),
    Sample("torch.nn.init.xavier_uniform_", _init("xavier_uniform_")),
    Sample("torch.nn.init.xavier_normal_", _init("xavier_normal_")),
    Sample("torch.nn.init.kaiming_uniform_", _init("kaiming_uniform_")),
    Sample("torch.nn.init.kaiming_normal_", _init("kaiming_normal_")),
    Sample("torch.nn.init.orthogonal_", _init("orthogonal_")),
    Sample("torch.nn.init.eye_", _init("eye_")),
    Sample("torch.tensor", _tensor),
    Sample("torch.nn.Parameter", _parameter),
    Sample("torch.nn.utils.clip_grad_norm_", _clip("clip_grad_norm_")),
    Sample("torch.nn.utils.clip_grad_value_", _clip("clip_grad_value_")),
    Sample("torch.autocast", _context(_autocast)),
    Sample("torch.no_grad", _context(_no_grad)),
    Sample("torch.inference_mode", _context(_inference_mode)),
    *(Sample(api, _engine(api)) for api in ("torch.Tensor.backward", "torch.autograd.backward", "torch.autograd.grad")),
)
