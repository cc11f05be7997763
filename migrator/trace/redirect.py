"""Run an unmodified CUDA training script on the CPU (or the meta device), the way Ascend's
``transfer_to_npu`` runs it on the NPU: device arguments, ``.cuda()``, ``torch.cuda.*`` queries, AMP,
GradScaler, pinned memory, NCCL, DDP's device ids and DataParallel are redirected, and every redirection is recorded
with the user's call site so the trace says what the script asked for."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections import Counter
from typing import Any, Callable, Dict, Optional, Tuple

from .recorder import Places, UserFrames

Site = Optional[Tuple[str, int]]


class Redirections:
    """The log: (api, what it became, site) -> calls."""

    def __init__(self, frames: UserFrames, places: Optional[Places] = None) -> None:
        self.frames = frames
        self.places = places or Places("cuda")  # what a redirected call makes is marked as the device's
        self.calls: Counter = Counter()
        self.dtypes: Dict[str, str] = {}  # dtype recorded -> the dtype the script asked for

    def note(self, api: str, became: str) -> None:
        self.calls[(api, became, self.frames.site(3))] += 1

    def substitute(self, asked: str, ran: str) -> None:
        self.dtypes[ran] = asked


def install(device: str, log: Redirections) -> None:
    """Redirect CUDA use to ``device`` (``cpu`` or ``meta``) for the rest of the process."""
    import torch

    _device_mode(device, log).__enter__()
    _patch_cuda_module(torch, device, log)
    _patch_amp(torch, device, log)
    _patch_memory_pinning(torch, log)
    _patch_distributed(torch, log)


def _is_cuda(value: Any) -> bool:
    import torch

    if isinstance(value, torch.device):
        return value.type == "cuda"
    return isinstance(value, str) and (value == "cuda" or value.startswith("cuda:"))


def _device_mode(device: str, log: Redirections):
    """A ``TorchFunctionMode`` rewriting CUDA devices in every torch call (factories, ``.to``, ``.cuda``); what
    such a call makes or moves is the device's (``Places``)."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._pytree import tree_leaves

    target = torch.device(device)
    cuda_method = torch.Tensor.cuda
    parse_to = torch._C._nn._parse_to
    places = log.places

    def on_device(call, *args, **kwargs):
        with places.asked_for_device():
            out = call(*args, **kwargs)
        places.mark(t for t in tree_leaves(out) if isinstance(t, torch.Tensor))
        return out

    class DeviceRedirect(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is cuda_method:
                log.note("torch.Tensor.cuda", f"torch.Tensor.to({device!r})")
                return on_device(args[0].to, target, non_blocking=bool(kwargs.get("non_blocking", False)))
            if func is parse_to and args and _is_ordinal(args[0]):
                # ``module.to(0)``: an ordinal is the current accelerator's, which this machine has not; CUDA's
                # device by name, so that the tensors' own ``.to`` is redirected (and marked) below
                return func(torch.device("cuda", args[0]), *args[1:], **kwargs)
            name = getattr(func, "__name__", "")
            asked = False
            if _is_cuda(kwargs.get("device")):
                log.note(f"{_qualified(func)}(device=cuda)", f"device={device!r}")
                kwargs["device"], asked = target, True
            if name == "to" and len(args) > 1 and (_is_cuda(args[1]) or _is_ordinal(args[1])):
                log.note("torch.Tensor.to(cuda)", f"torch.Tensor.to({device!r})")
                args, asked = (args[0], target, *args[2:]), True
            return on_device(func, *args, **kwargs) if asked else func(*args, **kwargs)

    return DeviceRedirect()


def _is_ordinal(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _qualified(func) -> str:
    name = getattr(func, "__name__", repr(func))
    owner = getattr(func, "__objclass__", None)
    return f"torch.Tensor.{name}" if owner is not None else f"torch.{name}"


class _FakeProperties:
    """What ``torch.cuda.get_device_properties`` answers: a card with this host's memory."""

    def __init__(self, device: str) -> None:
        self.name = f"migrator trace ({device})"
        self.major, self.minor = 8, 0
        self.multi_processor_count = os.cpu_count() or 1
        try:
            self.total_memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            self.total_memory = 16 * 2**30


class _Event:
    def __init__(self, *args, **kwargs) -> None:
        self.at: Optional[float] = None

    def record(self, *args, **kwargs) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def wait(self, *args, **kwargs) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, other: "_Event") -> float:
        return 1000.0 * ((other.at or 0.0) - (self.at or 0.0))


class _Stream:
    def __init__(self, *args, **kwargs) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait_stream(self, *args) -> None:
        pass

    def wait_event(self, *args) -> None:
        pass

    def record_event(self, event=None):
        event = event or _Event()
        event.record()
        return event

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def _patch_cuda_module(torch, device: str, log: Redirections) -> None:
    cuda = torch.cuda
    properties = _FakeProperties(device)
    answers: Dict[str, Callable[..., Any]] = {
        "is_available": lambda: True,
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "set_device": lambda *a, **k: None,
        "synchronize": lambda *a, **k: None,
        "get_device_name": lambda *a, **k: properties.name,
        "get_device_properties": lambda *a, **k: properties,
        "get_device_capability": lambda *a, **k: (properties.major, properties.minor),
        "is_bf16_supported": lambda *a, **k: True,
        "is_initialized": lambda: True,
        "init": lambda: None,
        "empty_cache": lambda: None,
        "reset_peak_memory_stats": lambda *a, **k: None,
        "reset_max_memory_allocated": lambda *a, **k: None,
        "memory_allocated": lambda *a, **k: 0,
        "max_memory_allocated": lambda *a, **k: 0,
        "memory_reserved": lambda *a, **k: 0,
        "max_memory_reserved": lambda *a, **k: 0,
        "mem_get_info": lambda *a, **k: (properties.total_memory, properties.total_memory),
        # torch.manual_seed calls these itself: the CPU generator is seeded already
        "manual_seed": lambda seed: None,
        "manual_seed_all": lambda seed: None,
        "seed": lambda: None,
        "seed_all": lambda: None,
        "initial_seed": lambda: torch.initial_seed(),
        "Event": _Event,
        "Stream": _Stream,
        "current_stream": lambda *a, **k: _Stream(),
        "default_stream": lambda *a, **k: _Stream(),
        "stream": lambda *a, **k: contextlib.nullcontext(),
        "device": lambda *a, **k: contextlib.nullcontext(),
    }
    for name, answer in answers.items():
        setattr(cuda, name, _logged(log, f"torch.cuda.{name}", f"answered on {device}", answer))
    torch.Tensor.record_stream = _logged(log, "torch.Tensor.record_stream", "no-op", lambda *a, **k: None)


def _logged(log: Redirections, api: str, became: str, answer: Callable[..., Any]) -> Callable[..., Any]:
    def redirected(*args, **kwargs):
        log.note(api, became)
        return answer(*args, **kwargs)
    redirected.__name__ = api.rsplit(".", 1)[-1]
    redirected.__wrapped__ = answer  # type: ignore[attr-defined]
    return redirected


def _patch_amp(torch, device: str, log: Redirections) -> None:
    """``autocast("cuda")`` -> the CPU's autocast; GradScaler on the CPU.

    On the CPU, float16 autocast is recorded as bfloat16: PyTorch's CPU float16 backward kernels are
    ~40x slower than bfloat16 (a 6-layer GPT step: 88 s against 2 s on this machine), and the trace
    document says so (``dtype_substitutions``) so the dtypes that ran are read back as the script's.
    """
    # meta tensors have no autocast of their own: the CPU's context stands in (it casts nothing on them), and
    # the log says the run's dtypes are the ones written, not the autocast's
    amp_device = "cpu" if device in ("cpu", "meta") else device
    original_autocast: Any = torch.autocast

    def amp_dtype(dtype):
        dtype = dtype or torch.float16  # CUDA autocast's default
        if dtype == torch.float16 and device == "cpu":
            log.substitute("float16", "bfloat16")
            return torch.bfloat16
        return dtype

    uncast = " (no autocast on meta tensors: ops keep the code's dtypes)" if device == "meta" else ""

    class autocast(original_autocast):  # noqa: N801 - keeps torch's name
        def __init__(self, device_type: str = "cuda", dtype=None, *args, **kwargs) -> None:
            if device_type == "cuda":
                log.note("torch.autocast(device_type='cuda')", f"device_type={amp_device!r}{uncast}")
                device_type, dtype = amp_device, amp_dtype(dtype)
            super().__init__(device_type, dtype, *args, **kwargs)

    class CudaAutocast(original_autocast):
        def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
            log.note("torch.cuda.amp.autocast", f"torch.autocast({amp_device!r}){uncast}")
            super().__init__(amp_device, dtype=amp_dtype(dtype), enabled=enabled, cache_enabled=cache_enabled)

    original_scaler: Any = torch.amp.GradScaler

    # a scaler reads its inf check back to the host (``.item()``), which meta tensors cannot: on meta it is
    # built disabled (scale() returns the loss, step() steps), and the log says so
    scaler_off = {"enabled": False} if device == "meta" else {}
    scaler_note = "GradScaler('cpu', enabled=False): no loss scaling on meta" if device == "meta" else None

    class GradScaler(original_scaler):
        def __init__(self, device: str = "cuda", *args, **kwargs) -> None:
            if device == "cuda":
                log.note("torch.amp.GradScaler('cuda')", scaler_note or "GradScaler('cpu')")
                device = "cpu"
            super().__init__(device, *args, **{**kwargs, **scaler_off})

    class CudaGradScaler(original_scaler):
        def __init__(self, *args, **kwargs) -> None:
            log.note("torch.cuda.amp.GradScaler", scaler_note or "torch.amp.GradScaler('cpu')")
            super().__init__("cpu", *args, **{**kwargs, **scaler_off})

    torch.autocast = torch.amp.autocast = autocast
    torch.amp.GradScaler = GradScaler
    torch.cuda.amp.autocast = CudaAutocast
    torch.cuda.amp.GradScaler = CudaGradScaler


def _patch_memory_pinning(torch, log: Redirections) -> None:
    """Pinned host memory needs a CUDA driver: ``pin_memory()`` is the tensor itself, loaders do not pin."""
    torch.Tensor.pin_memory = _logged(log, "torch.Tensor.pin_memory", "the tensor itself", lambda self, *a: self)
    loader = torch.utils.data.DataLoader
    original_init = loader.__init__

    def init(self, *args, **kwargs):
        if kwargs.get("pin_memory"):
            log.note("torch.utils.data.DataLoader(pin_memory=True)", "pin_memory=False")
            kwargs["pin_memory"] = False
        original_init(self, *args, **kwargs)
    loader.__init__ = init


def _patch_distributed(torch, log: Redirections) -> None:
    """NCCL -> gloo with the env:// defaults of a one-process job; DDP without CUDA device ids; DataParallel
    over no device (its module, run as is)."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    original_init = dist.init_process_group

    def init_process_group(backend=None, *args, **kwargs):
        if backend is None or "nccl" in str(backend):
            log.note(f"torch.distributed.init_process_group(backend={backend!r})", "backend='gloo'")
            backend = "gloo"
        for name, value in (("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1"),
                            ("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", str(_free_port()))):
            os.environ.setdefault(name, value)
        return original_init(backend, *args, **kwargs)
    dist.init_process_group = init_process_group

    original_ddp = DistributedDataParallel.__init__

    def ddp_init(self, module, device_ids=None, output_device=None, *args, **kwargs):
        if device_ids is not None or output_device is not None:
            log.note("DistributedDataParallel(device_ids=...)", "device_ids=None")
        original_ddp(self, module, None, None, *args, **kwargs)
    DistributedDataParallel.__init__ = ddp_init

    def dp_init(self, module, device_ids=None, output_device=None, dim=0):
        # nn.DataParallel with no device runs its module as is (what PyTorch does on a machine without GPUs);
        # the redirected torch.cuda says a GPU is there, so it would scatter to one: imagenet crashed here
        log.note("torch.nn.DataParallel(...)", "the module itself (no device to scatter to)")
        torch.nn.Module.__init__(self)
        self.module, self.device_ids, self.dim, self.output_device = module, [], dim, None
    torch.nn.DataParallel.__init__ = dp_init


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
