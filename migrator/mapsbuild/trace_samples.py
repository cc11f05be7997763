"""Sample calls for common APIs that PyTorch's own sample inputs (OpInfo, ModuleInfo, OptimizerInfo) leave
out: module and functional dropout, ``nn.init``, tensor constructors, ``nn.Parameter``, containers, gradient
clipping, the autocast / no-grad contexts, host-side utilities (dtype queries, the RNG state, shape helpers,
profiler ranges, weight norm), the operator methods (``x.__add__(y)``), ``nn.Module``'s walking and
registering methods and the autograd engine's entries (``loss.backward()``: on a leaf,
so only the engine's own seed gradient is recorded; the backward kernels of a model's ops are in their rows).
Each is one realistic call; ``trace_api`` records the aten ops it dispatches (none, for a container or a
context: it needs no device kernel).

A sample is built outside the recording (``make`` returns the call and whether to trace its backward), so
the ops that build its inputs are not counted as the API's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Tuple

SAMPLE_SOURCE = "curated-sample"

Call = Tuple[Callable[[], Any], bool]


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


def _module(build: Callable[[], Any], inputs: Callable[[], Any] = _x) -> Callable[[], Call]:
    def make() -> Call:
        module, x = build(), inputs()
        module.train()
        return (lambda: module(*x) if isinstance(x, tuple) else module(x)), True
    return make


def _decoder():
    import torch

    layer = torch.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    return torch.nn.TransformerDecoder(layer, num_layers=2)


def _decoding():
    """A decoder's two inputs: the target sequence and the encoder's memory."""
    return _sequence(), _sequence()


def _pooled_3d():
    import torch

    pooled, indices = torch.nn.functional.max_pool3d(torch.randn(1, 2, 4, 4, 4), 2, return_indices=True)
    return pooled.requires_grad_(), indices


def _classified():
    """Features and their class labels: an adaptive softmax's two inputs."""
    import torch

    return _x(), torch.tensor([0, 3, 5, 9])


def _init(name: str, *args) -> Callable[[], Call]:
    def make() -> Call:
        import torch

        weight = torch.empty(8, 16)
        return (lambda: getattr(torch.nn.init, name)(weight, *args)), False
    return make


def _dropout(name: str, inputs: Callable[[], Any] = _x) -> Callable[[], Call]:
    def make() -> Call:
        import torch

        x = inputs()
        return (lambda: getattr(torch.nn.functional, name)(x, 0.1, training=True)), True
    return make


def _nn(name: str, *args) -> Callable[[], Any]:
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


def _context(factory: Callable[[], Any]) -> Callable[[], Call]:
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


def _host(call: Callable[[Any, Any], Any], needs_grad: bool = False) -> Callable[[], Call]:
    """A call of a host-side utility (``call(torch, x)`` on a small tensor ``x``): a dtype query, the RNG
    state, a shape helper, a profiler range. What it dispatches is recorded like any API's; most dispatch
    nothing, so no device kernel is involved."""
    def make() -> Call:
        import torch

        x = torch.randn(4, 8, requires_grad=needs_grad)
        return (lambda: call(torch, x)), False
    return make


def _weight_norm(remove: bool) -> Callable[[], Call]:
    def make() -> Call:
        import torch

        layer = torch.nn.Linear(8, 4)
        if remove:
            torch.nn.utils.weight_norm(layer)
            return (lambda: torch.nn.utils.remove_weight_norm(layer)), False
        return (lambda: torch.nn.utils.weight_norm(layer)), False
    return make


def _record_function(torch, x):
    with torch.autograd.profiler.record_function("step"):
        pass


def _utils(name: str):
    def call(torch, x):
        import torch.nn.modules.utils as utils

        return getattr(utils, name)(3)
    return call


def _dunder(name: str, other: bool) -> Callable[[], Call]:
    """``x.__add__(y)``: the operator method a Python operator calls (``x + y``)."""
    def make() -> Call:
        import torch

        x, y = torch.rand(4, 8) + 1, torch.rand(4, 8) + 1
        if name in ("__and__", "__or__", "__xor__", "__ior__", "__invert__"):
            x, y = x > 1.5, y > 1.5
        method = getattr(x, name)
        return ((lambda: method(y)) if other else method), False
    return make


#: operator methods and whether they take a second operand
DUNDERS = {"__add__": True, "__sub__": True, "__mul__": True, "__truediv__": True, "__rtruediv__": True,
           "__floordiv__": True, "__pow__": True, "__and__": True, "__or__": True,
           "__xor__": True, "__ior__": True, "__eq__": True, "__ne__": True, "__lt__": True, "__le__": True,
           "__gt__": True, "__ge__": True, "__neg__": False, "__invert__": False, "__len__": False}


def _module_method(name: str, *args: Callable[[Any], Any]) -> Callable[[], Call]:
    """``module.<name>(...)`` on a small model: the ``nn.Module`` methods that walk, register or switch."""
    def make() -> Call:
        import torch

        module = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.BatchNorm1d(4))
        values = [arg(torch) for arg in args]
        method = getattr(module, name)
        return (lambda: list(r) if hasattr(r := method(*values), "__next__") else r), False
    return make


MODULE_METHODS = {
    "apply": (lambda torch: (lambda m: None),), "buffers": (), "children": (), "modules": (), "named_buffers": (),
    "named_children": (), "named_modules": (), "named_parameters": (), "parameters": (), "state_dict": (),
    "train": (), "eval": (), "zero_grad": (), "requires_grad_": (), "share_memory": (),
    "add_module": (lambda torch: "extra", lambda torch: torch.nn.Identity()),
    "register_buffer": (lambda torch: "scale", lambda torch: torch.ones(4)),
    "register_parameter": (lambda torch: "bias2", lambda torch: torch.nn.Parameter(torch.zeros(4))),
}


def _checkpoint(torch, x):
    import torch.utils.checkpoint as checkpoint

    return checkpoint.checkpoint(lambda t: t.view(-1), x, use_reentrant=False)


def _timer(torch, x):
    import torch.utils.benchmark as benchmark

    return benchmark.Timer(stmt="x + 1", globals={"x": x})


def _packed(torch, x):
    import torch.nn.utils.rnn as rnn

    return rnn.pack_padded_sequence(x.view(2, 4, 4), torch.tensor([4, 3]), batch_first=True)


def _unpacked(torch, x):
    import torch.nn.utils.rnn as rnn

    packed = rnn.pack_padded_sequence(x.view(2, 4, 4), torch.tensor([4, 3]), batch_first=True)
    return lambda: rnn.pad_packed_sequence(packed, batch_first=True)


def _pack_sequence(torch, x):
    import torch.nn.utils.rnn as rnn

    return rnn.pack_sequence([x.view(2, 4, 4)[0], x.view(2, 4, 4)[1, :3]])


def _sync_bn(torch, x):
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.BatchNorm2d(4))
    return lambda: torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)


def _sparse_mm() -> Call:
    """A graph convolution's ``torch.sparse.mm(adjacency, features)``: a constant COO adjacency times dense
    features that train, with no reduction (PyTorch's samples pass one, which runs CSR's reduction kernel)."""
    import torch

    edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    adjacency = torch.sparse_coo_tensor(edges, torch.ones(4), (4, 4)).coalesce()
    features = torch.randn(4, 8, requires_grad=True)
    return (lambda: torch.sparse.mm(adjacency, features)), True


def _built(build: Callable[[Any, Any], Callable[[], Any]]) -> Callable[[], Call]:
    """A call whose inputs take work to build (``build(torch, x)`` returns the call): only the call is traced."""
    def make() -> Call:
        import torch

        return build(torch, torch.randn(4, 8, requires_grad=True)), False
    return make


SAMPLES: Tuple[Sample, ...] = (
    Sample("torch.nn.Dropout", _module(_nn("Dropout", 0.1))),
    Sample("torch.nn.Dropout1d", _module(_nn("Dropout1d", 0.1), _sequence)),
    Sample("torch.nn.Dropout2d", _module(_nn("Dropout2d", 0.1), _image)),
    Sample("torch.nn.AlphaDropout", _module(_nn("AlphaDropout", 0.1))),
    Sample("torch.nn.functional.dropout", _dropout("dropout")),
    Sample("torch.nn.functional.dropout2d", _dropout("dropout2d", _image)),
    Sample("torch.nn.functional.alpha_dropout", _dropout("alpha_dropout")),
    Sample("torch.nn.Identity", _module(_nn("Identity"))),
    Sample("torch.nn.Flatten", _module(_nn("Flatten"), _image)),
    Sample("torch.nn.Unflatten", _module(_nn("Unflatten", 1, (2, 4)))),
    Sample("torch.nn.Sequential", _module(_sequential)),
    # the modules a vendor's list rates and torch's ModuleInfo has no sample of
    Sample("torch.nn.TransformerDecoder", _module(_decoder, _decoding)),
    Sample("torch.nn.RReLU", _module(_nn("RReLU"))),
    Sample("torch.nn.MaxUnpool3d", _module(_nn("MaxUnpool3d", 2), _pooled_3d)),
    Sample("torch.nn.AdaptiveLogSoftmaxWithLoss",
           _module(_nn("AdaptiveLogSoftmaxWithLoss", 8, 10, [4]), _classified)),
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
    Sample("torch.nn.utils.clip_grad_norm", _clip("clip_grad_norm")),  # the deprecated spelling, the same work
    Sample("torch.nn.utils.clip_grad_value_", _clip("clip_grad_value_")),
    Sample("torch.autocast", _context(_autocast)),
    Sample("torch.no_grad", _context(_no_grad)),
    Sample("torch.inference_mode", _context(_inference_mode)),
    *(Sample(api, _engine(api)) for api in ("torch.Tensor.backward", "torch.autograd.backward", "torch.autograd.grad")),
    Sample("torch.Tensor.data_ptr", _host(lambda torch, x: x.data_ptr())),
    Sample("torch.Tensor.untyped_storage", _host(lambda torch, x: x.untyped_storage())),
    # host shared memory for worker processes: the storage moves to shared memory, no device op runs
    Sample("torch.Tensor.share_memory_", _host(lambda torch, x: x.share_memory_())),
    Sample("torch.Tensor.nbytes", _host(lambda torch, x: x.nbytes)),
    Sample("torch.numel", _host(lambda torch, x: torch.numel(x))),
    Sample("torch.is_complex", _host(lambda torch, x: torch.is_complex(x))),
    Sample("torch.finfo", _host(lambda torch, x: torch.finfo(torch.float16).max)),
    Sample("torch.iinfo", _host(lambda torch, x: torch.iinfo(torch.int32).max)),
    Sample("torch.get_rng_state", _host(lambda torch, x: torch.get_rng_state())),
    Sample("torch.is_grad_enabled", _host(lambda torch, x: torch.is_grad_enabled())),
    Sample("torch.is_autocast_enabled", _host(lambda torch, x: torch.is_autocast_enabled())),
    Sample("torch.are_deterministic_algorithms_enabled",
           _host(lambda torch, x: torch.are_deterministic_algorithms_enabled())),
    Sample("torch.get_default_device", _host(lambda torch, x: torch.get_default_device())),
    Sample("torch.autograd.Variable", _host(lambda torch, x: torch.autograd.Variable(x))),
    Sample("torch.autograd.profiler.record_function", _host(_record_function)),
    Sample("torch.nn.modules.utils._single", _host(_utils("_single"))),
    Sample("torch.nn.modules.utils._pair", _host(_utils("_pair"))),
    Sample("torch.nn.modules.utils._triple", _host(_utils("_triple"))),
    Sample("torch.nn.init.calculate_gain", _host(lambda torch, x: torch.nn.init.calculate_gain("relu"))),
    Sample("torch.nn.init._calculate_fan_in_and_fan_out",
           _host(lambda torch, x: torch.nn.init._calculate_fan_in_and_fan_out(x))),
    Sample("torch.nn.utils.weight_norm", _weight_norm(remove=False)),
    Sample("torch.nn.utils.remove_weight_norm", _weight_norm(remove=True)),
    Sample("torch.Tensor.item", _host(lambda torch, x: x.sum().item())),
    Sample("torch.Tensor.storage", _host(lambda torch, x: x.storage())),
    Sample("torch.utils.checkpoint.checkpoint", _host(_checkpoint, needs_grad=True)),
    Sample("torch.utils.benchmark.Timer", _host(_timer)),
    Sample("torch.get_device_module", _host(lambda torch, x: torch.get_device_module("cpu"))),
    Sample("torch.use_deterministic_algorithms", _host(lambda torch, x: torch.use_deterministic_algorithms(False))),
    Sample("torch.manual_seed", _host(lambda torch, x: torch.manual_seed(0))),
    Sample("torch.random.manual_seed", _host(lambda torch, x: torch.random.manual_seed(0))),
    Sample("torch.set_rng_state", _host(lambda torch, x: torch.set_rng_state(torch.get_rng_state()))),
    Sample("torch.nn.utils.rnn.pack_padded_sequence", _host(_packed)),
    Sample("torch.nn.utils.rnn.unpad_sequence",
           _host(lambda torch, x: torch.nn.utils.rnn.unpad_sequence(x.view(4, 2, 4), torch.tensor([4, 3])))),
    Sample("torch.nn.utils.rnn.unpack_sequence",
           _host(lambda torch, x: torch.nn.utils.rnn.unpack_sequence(_packed(torch, x)))),
    # the sample frequencies of an FFT: an arange and a scale, no transform (mbrl's iCEM noise)
    Sample("torch.fft.fftfreq", _host(lambda torch, x: torch.fft.fftfreq(8, 0.5))),
    Sample("torch.fft.rfftfreq", _host(lambda torch, x: torch.fft.rfftfreq(8, 0.5))),
    Sample("torch.nn.utils.rnn.pad_packed_sequence", _built(_unpacked)),
    Sample("torch.nn.utils.rnn.pack_sequence", _host(_pack_sequence)),
    Sample("torch.nn.functional.gumbel_softmax",
           _host(lambda torch, x: torch.nn.functional.gumbel_softmax(x[:2], tau=0.5, hard=True))),
    Sample("torch.nn.SyncBatchNorm.convert_sync_batchnorm", _built(_sync_bn)),
    Sample("torch.sparse.mm", _sparse_mm),
    Sample("torch.nn.Embedding.from_pretrained",
           _built(lambda torch, x: lambda: torch.nn.Embedding.from_pretrained(x.detach()))),
    *(Sample(f"torch.Tensor.{name}", _dunder(name, other)) for name, other in DUNDERS.items()),
    *(Sample(f"torch.nn.Module.{name}", _module_method(name, *args)) for name, args in MODULE_METHODS.items()),
)
