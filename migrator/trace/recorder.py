"""A ``TorchDispatchMode`` that counts every aten overload a run dispatches: dtypes, a sample shape, the
phase (data loading, forward, backward, optimizer), where its tensors live (host or device) and the frame in
the user's code that caused it."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Dict, Iterator, List, Optional, Set, Tuple

#: Call sites kept per op (the most frequent are kept once the cap is reached).
SITES_PER_OP = 24
#: Distinct shapes kept per op and site: enough to tell a static shape from one that changes every step.
SHAPES_PER_SITE = 32
#: Tensors whose shape is kept as the op's sample.
_SAMPLE_TENSORS = 4
#: dtypes few device kernels take: where they ran is kept per site (``OpRecorder.risky``).
RISKY_DTYPES = frozenset({"float64", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"})
#: torch's own code that computes in float64 for a moment whatever the user's dtypes (GradScaler inverts its
#: scale in double): its ops are not the user's float64
_TRANSIENT_FLOAT64 = ("torch/amp/grad_scaler.py", "torch/cuda/amp/grad_scaler.py")
#: The phases of the training step: what runs there on the device is device work (data loading is not).
STEP_PHASES = frozenset({"forward", "backward", "optimizer"})
#: Torch functions that run the autograd engine: what it dispatches is no call of the line's own.
_ENGINE_ENTRIES = frozenset({"backward", "grad"})
#: The attribute that marks, on a CPU run, a tensor the script put on the device (``Places``).
_ON_DEVICE = "_migrator_on_device"
#: frames between an op and the code that called it: the dispatch machinery and the recorder itself
_MACHINERY = ("torch/utils/_python_dispatch.py", "torch/_ops.py", "torch/overrides.py", "torch/_tensor.py",
              "torch/_compile.py", "torch/_dynamo/eval_frame.py")


@dataclass
class OpStats:
    """Mutable while the run goes on; the document is made from it at the end."""

    calls: int = 0
    dtypes: Set[str] = field(default_factory=set)
    shape: Optional[List[List[int]]] = None
    phases: Dict[str, int] = field(default_factory=dict)
    where: Dict[str, int] = field(default_factory=dict)  # "host" / "device" -> calls
    sites: Dict[Tuple[str, int], int] = field(default_factory=dict)
    #: calls per site on the device in a phase of the training step (``STEP_PHASES``): the device evidence
    device_sites: Dict[Tuple[str, int], int] = field(default_factory=dict)
    site_phases: Dict[Tuple[str, int], Dict[str, int]] = field(default_factory=dict)  # calls per site and phase
    #: calls per site and torch function that line called itself (``torch.cumsum(x)``, ``getattr(torch,
    #: "cumsum")(x)``), not one a library, a module or a stub called beneath it
    direct_sites: Dict[Tuple[str, int], Dict[str, int]] = field(default_factory=dict)
    #: distinct input shapes per site, up to ``SHAPES_PER_SITE`` (a new shape is a new compile on Ascend)
    shapes: Dict[Tuple[str, int], Set[Tuple[Tuple[int, ...], ...]]] = field(default_factory=dict)
    apis: Set[str] = field(default_factory=set)  # the outermost torch functions that dispatched it


class UserFrames:
    """Finds the innermost frame of the running stack that lies in the user's code (under ``root``, outside
    site-packages and migrator itself), memoising the verdict per code object."""

    def __init__(self, root: str) -> None:
        self.root = os.path.join(os.path.realpath(root), "")
        self._mine = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "")
        self._verdicts: Dict[object, Optional[str]] = {}

    def site(self, skip: int = 2) -> Optional[Tuple[str, int]]:
        frame: Optional[FrameType] = sys._getframe(skip)
        verdicts = self._verdicts
        while frame is not None:
            code = frame.f_code
            rel = verdicts.get(code, False)
            if rel is False:
                rel = verdicts[code] = self.relative(code.co_filename)
            if isinstance(rel, str):
                return rel, frame.f_lineno
            frame = frame.f_back
        return None

    def relative(self, filename: str) -> Optional[str]:
        if not filename or filename.startswith("<"):
            return None
        path = os.path.realpath(filename)
        if not path.startswith(self.root) or path.startswith(self._mine) or "site-packages" in path:
            return None
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def calls_itself(self, function_code=None) -> bool:
        """Whether the torch function whose ``__torch_function__`` runs now was called by the user's code itself:
        the first frame past the dispatch machinery (and the function's own Python body, ``function_code``) is
        the user's."""
        frame: Optional[FrameType] = sys._getframe(2)
        verdicts = self._verdicts
        while frame is not None and (frame.f_code is function_code
                                     or frame.f_code.co_filename.replace(os.sep, "/").endswith(_MACHINERY)):
            frame = frame.f_back
        if frame is None:
            return False
        code = frame.f_code
        rel = verdicts.get(code, False)
        if rel is False:
            rel = verdicts[code] = self.relative(code.co_filename)
        return isinstance(rel, str)

    def called_from(self, skip: int, files: Tuple[str, ...]) -> bool:
        """Whether the code that dispatched the running op (the first frame past the dispatch machinery and
        migrator itself) is one of ``files`` (path suffixes)."""
        frame: Optional[FrameType] = sys._getframe(skip)
        while frame is not None:
            name = frame.f_code.co_filename.replace(os.sep, "/")
            if not (name.endswith(_MACHINERY) or name.startswith(self._mine.replace(os.sep, "/"))):
                return name.endswith(files)
            frame = frame.f_back
        return False


class Places:
    """Where the script's tensors live: on the device it asked for, or on the host.

    On a GPU or the meta device, a tensor off the CPU is on the device. On a CPU run (the redirection) both
    live in the CPU's memory, so the device's tensors are marked: what a redirected CUDA call made or moved
    (``asked_for_device``: ``.cuda()``, ``.to("cuda")``, ``device="cuda"``, a module's parameters with them),
    and every output of an op one of whose inputs is marked. The rest (a DataLoader's batches before they are
    moved, a sampler's random numbers, an optimizer's CPU step counters, a CPU-only script) is the host's.
    """

    def __init__(self, device: str) -> None:
        self.marks = device == "cpu"
        self.asked = 0  # > 0 while a CUDA call the redirection rewrote runs: what it makes is the device's

    def on_device(self, tensor) -> bool:
        return not tensor.is_cpu or (self.marks and getattr(tensor, _ON_DEVICE, False))

    def mark(self, tensors) -> None:
        if self.marks:
            for tensor in tensors:
                try:
                    setattr(tensor, _ON_DEVICE, True)
                except (AttributeError, TypeError):  # a tensor type that keeps no attributes
                    pass

    @contextmanager
    def asked_for_device(self) -> Iterator[None]:
        self.asked += 1
        try:
            yield
        finally:
            self.asked -= 1


class OpRecorder:
    """Holds the stats; ``mode()`` gives the dispatch mode that feeds them."""

    def __init__(self, frames: UserFrames, places: Optional[Places] = None) -> None:
        self.frames = frames
        self.places = places or Places("cuda")
        self.ops: Dict[str, OpStats] = {}
        #: "optimizer" around optimizer steps and "data" while a DataLoader yields a batch (set by the session)
        self.phase = "forward"
        self.api: Optional[str] = None  # the torch function running now (outermost), set by ``api_mode``
        #: whether the user's code called that function itself (not a library, a module or a stub beneath its line)
        self.direct = False
        #: (dtype, user site) -> {op: calls}: where risky dtypes ran, per site (an op's ``dtypes`` are per op)
        self.risky: Dict[Tuple[str, Tuple[str, int]], Dict[str, int]] = {}
        #: (dtype, user site) -> calls on the device in the training step (the rest ran on the host)
        self.risky_on_device: Dict[Tuple[str, Tuple[str, int]], int] = {}
        #: on the meta device, a value read back to the host (``.item()``, ``float(t)``, ``if t:``) has no value:
        #: it is answered with a placeholder and counted per user site as a data-dependent step
        self.meta_reads = False
        self.data_dependent: Dict[Optional[Tuple[str, int]], int] = {}

    def api_mode(self):
        """A ``TorchFunctionMode`` noting which torch function (``scaled_dot_product_attention``) is running, so
        an op can be judged by the composite a vendor registers above it."""
        from torch.overrides import TorchFunctionMode

        recorder = self

        class ApiMode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                if recorder.api is not None:
                    return func(*args, **(kwargs or {}))
                recorder.api = getattr(func, "__name__", None)
                recorder.direct = recorder.api not in _ENGINE_ENTRIES and recorder.frames.calls_itself(
                    getattr(func, "__code__", None))
                try:
                    return func(*args, **(kwargs or {}))
                finally:
                    recorder.api, recorder.direct = None, False

        return ApiMode()

    def mode(self):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_leaves

        recorder = self
        places = self.places
        current_node = torch._C._current_autograd_node
        tensor = torch.Tensor
        read_back = torch.ops.aten._local_scalar_dense.default

        class RecordingMode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if func is read_back and recorder.meta_reads and args[0].is_meta:
                    out = recorder.read_on_meta(args[0])
                else:
                    out = func(*args, **(kwargs or {}))
                inputs = [t for t in tree_leaves((args, kwargs)) if isinstance(t, tensor)]
                outputs = [t for t in tree_leaves(out) if isinstance(t, tensor)]
                device = places.asked > 0 or any(places.on_device(t) for t in inputs)
                if device:
                    places.mark(outputs)
                phase = "backward" if current_node() is not None else recorder.phase
                recorder.record(op_name(func), phase, inputs + outputs, device)
                return out

        return RecordingMode()

    def read_on_meta(self, tensor):
        """The placeholder a meta tensor's value read gets (a meta tensor holds none): false, 1 or 1.0 (a branch on
        it not taken, a size or divisor that works); the user's line is counted as a data-dependent step."""
        site = self.frames.site(3)
        self.data_dependent[site] = self.data_dependent.get(site, 0) + 1
        if tensor.dtype.is_complex:
            return complex(1.0)
        if tensor.dtype.is_floating_point:
            return 1.0
        return False if str(tensor.dtype) == "torch.bool" else 1

    def record(self, name: str, phase: str, tensors, device: bool = False) -> None:
        stats = self.ops.get(name)
        if stats is None:
            stats = self.ops[name] = OpStats()
            stats.shape = [list(t.shape) for t in tensors[:_SAMPLE_TENSORS]]
        stats.calls += 1
        dtypes = {str(t.dtype).replace("torch.", "") for t in tensors}
        stats.dtypes.update(dtypes)
        stats.phases[phase] = stats.phases.get(phase, 0) + 1
        where = "device" if device else "host"
        stats.where[where] = stats.where.get(where, 0) + 1
        on_step = device and phase in STEP_PHASES
        if self.api is not None and len(stats.apis) < SITES_PER_OP:
            stats.apis.add(self.api)
        site = self.frames.site(3)
        if site is not None:
            sites = stats.sites
            if site in sites or len(sites) < SITES_PER_OP:
                sites[site] = sites.get(site, 0) + 1
                if on_step:
                    stats.device_sites[site] = stats.device_sites.get(site, 0) + 1
                if self.direct and self.api is not None:
                    direct = stats.direct_sites.setdefault(site, {})
                    direct[self.api] = direct.get(self.api, 0) + 1
                phases = stats.site_phases.setdefault(site, {})
                phases[phase] = phases.get(phase, 0) + 1
                seen = stats.shapes.setdefault(site, set())
                if len(seen) < SHAPES_PER_SITE:
                    seen.add(tuple(tuple(t.shape) for t in tensors[:_SAMPLE_TENSORS]))
            risky = dtypes & RISKY_DTYPES
            if risky and not ("float64" in risky and self.frames.called_from(3, _TRANSIENT_FLOAT64)):
                for dtype in risky:
                    ran = self.risky.setdefault((dtype, site), {})
                    ran[name] = ran.get(name, 0) + 1
                    if on_step:
                        self.risky_on_device[(dtype, site)] = self.risky_on_device.get((dtype, site), 0) + 1


def op_name(func) -> str:
    """``aten::addmm`` / ``aten::sum.dim_IntList``: the schema's name and overload, as the operator maps spell it."""
    schema = func._schema
    return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
