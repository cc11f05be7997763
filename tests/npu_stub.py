"""A stand-in for ``torch_npu`` (or ``torch_mlu``) on a machine with an NPU (MLU) and no CUDA, to run code
``migrator fix`` rewrote.

It registers its device as the real plugins do, through torch's PrivateUse1 backend: the backend renamed to
``npu`` (``mlu``), the device module registered (``torch.npu``), and PrivateUse1 hooks, so that
``torch.accelerator`` answers for it (``is_available()``, ``device_count()``, ``current_accelerator()``,
``current_device_index()``, ``set_device_index()``) from torch's own code. torch's Python PrivateUse1 device
guard cannot synchronize a device (only the vendors' C++ guards can): the fake routes
``torch._C._accelerator_synchronizeDevice`` to its own ``synchronize``, and records it. It also declares the
``torch.backends`` entry point the real plugins declare, so ``import torch`` loads it (torch >= 2.5), as a
file in the portable style expects.

It has just the Python surface the fixed helpers in the tests call, behaving as the vendor documents it:
``torch_npu.npu.get_device_capability()`` returns ``None`` unless ``TORCH_NPU_DEVICE_CAPABILITY`` is set,
device arguments must name an NPU (``"cuda:0"`` raises ``ValueError``), the collective backend (``hccl``,
``cncl``) is registered for the device into torch's default map (its process group is gloo's), and moving a
module or tensor to the NPU (``.npu()``, ``.to("npu")``) is recorded instead of done (the CPU build of torch has
no NPU to move it to). torch's own ``torch.cuda`` is the CPU build's: ``is_available()`` is ``False`` and a CUDA
call raises.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

_INIT = '''
import sys

EVENTS = []  # what the code did on the "NPU": ("moved", what), ("autocast", enabled), ("synchronize", ...)
_REGISTERED = []


def _register():
    """Register the device with torch once; ``import torch_npu`` and torch's autoload both come here (the
    autoload while ``import torch_npu`` itself imports torch: so it is defined before that import)."""
    if _REGISTERED:
        return
    _REGISTERED.append(True)
    import torch
    from torch.utils import backend_registration as registration

    from . import npu

    if not hasattr(registration, "_setup_privateuseone_for_python_backend"):  # torch < 2.8: the name only
        torch.utils.rename_privateuse1_backend("npu")  # torch.device("npu:0") parses, as with the real plugin
        return
    registration._setup_privateuseone_for_python_backend(rename="npu", backend_module=npu)
    synchronize_device = torch._C._accelerator_synchronizeDevice

    def accelerator_synchronize(index):
        if torch._C._get_accelerator().type == "npu":
            return npu.synchronize(None if index is None or index < 0 else index)
        return synchronize_device(index)

    torch._C._accelerator_synchronizeDevice = accelerator_synchronize
    _register_backend(torch)


def _register_backend(torch):
    """The collective backend, registered for the device as the plugin does (torch_npu: ``register_backend("hccl",
    ..., devices=["npu"])``), so torch's default map names it for the device; its process group is gloo's (a CPU
    build has no other), and its creation is recorded."""
    import torch.distributed as dist

    def create(store, rank, size, timeout):
        EVENTS.append(("process_group", "__BACKEND__"))
        return dist.ProcessGroupGloo(store, rank, size, timeout)

    dist.Backend.register_backend("__BACKEND__", create, devices=["npu"])


def _autoload():
    """The ``torch.backends`` entry point."""
    _register()


import torch  # noqa: E402

_register()

from . import npu  # noqa: E402


def _module_npu(self, device=None):
    npu.check_device(device)
    self.placed_on = "npu" if device is None else f"npu:{device}" if isinstance(device, int) else str(device)
    EVENTS.append(("moved", type(self).__name__))
    return self


def _tensor_npu(self, device=None, non_blocking=False, **kwargs):
    npu.check_device(device)
    EVENTS.append(("moved", "Tensor"))
    return self


def _npu_target(args, kwargs):
    for value in (*args, kwargs.get("device")):
        if isinstance(value, (str, torch.device)) and str(value).split(":")[0] == "npu":
            return str(value)
    return None


def _moving(original, what):
    def to(self, *args, **kwargs):
        device = _npu_target(args, kwargs)
        if device is None:
            return original(self, *args, **kwargs)
        EVENTS.append(("moved", what or type(self).__name__))
        if what is None:
            self.placed_on = device
        return self
    return to


torch.nn.Module.npu = _module_npu
torch.Tensor.npu = _tensor_npu
torch.nn.Module.to = _moving(torch.nn.Module.to, None)  # .to("npu") is recorded as .npu() is
torch.Tensor.to = _moving(torch.Tensor.to, "Tensor")
torch.npu = npu
sys.modules["torch.npu"] = npu
'''

_NPU = '''
import os
from types import SimpleNamespace

from . import amp  # noqa: F401


def check_device(device):
    text = device if isinstance(device, str) else str(device) if device is not None else ""
    if "cuda" in text:
        raise ValueError(f"Expected a npu device, but got: {text}")


def is_available():
    return True


def get_amp_supported_dtype():  # what torch.autocast asks a PrivateUse1 device module for
    import torch
    return [torch.float16, torch.bfloat16]


def is_initialized():
    return True


def _is_in_bad_fork():
    return False


def manual_seed_all(seed):
    pass


def device_count():
    return 1


def current_device():
    return 0



def synchronize(device=None):
    check_device(device)
    from torch_npu import EVENTS
    EVENTS.append(("synchronize", str(device)))


def set_device(device):
    check_device(device)


def memory_allocated(device=None):
    check_device(device)
    return 0


def max_memory_allocated(device=None):
    check_device(device)
    return 0


def empty_cache():
    from torch_npu import EVENTS
    EVENTS.append(("empty_cache", True))


def get_autocast_dtype():  # what transfer_to_npu (torch_npu 2.13) puts in torch.get_autocast_gpu_dtype's place
    import torch
    return torch.get_autocast_dtype("npu")


def set_autocast_dtype(dtype):
    import torch
    torch.set_autocast_dtype("npu", dtype)


def get_device_capability(device=None):
    check_device(device)
    value = os.environ.get("TORCH_NPU_DEVICE_CAPABILITY")  # the vendor's note: None unless this is set
    return tuple(int(v) for v in value.split(".")) if value else None


def get_device_properties(device=None):
    check_device(device)
    return SimpleNamespace(name="Ascend910B", total_memory=64 << 30)
'''

_AMP = '''
class autocast:
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        self.enabled = enabled

    def __enter__(self):
        from torch_npu import EVENTS
        EVENTS.append(("autocast", self.enabled))
        return self

    def __exit__(self, *exc):
        return False


class GradScaler:
    def __init__(self, *args, **kwargs):
        from torch_npu import EVENTS
        EVENTS.append(("scaler", True))
'''


def write_stub(root: Path, device: str = "npu") -> Path:
    """The fake ``torch_npu`` package (``device="mlu"``: ``torch_mlu``, registering ``mlu`` and ``torch.mlu``)
    under ``root``, with the ``torch.backends`` entry point torch loads it by; returns ``root`` (for
    ``PYTHONPATH``)."""
    package = root / f"torch_{device}"
    (package / device).mkdir(parents=True, exist_ok=True)

    def spelled(template: str) -> str:
        backend = {"npu": "hccl", "mlu": "cncl"}[device]
        return template.replace("torch_npu", f"torch_{device}").replace("npu", device).replace("__BACKEND__", backend)

    (package / "__init__.py").write_text(spelled(_INIT))
    (package / device / "__init__.py").write_text(spelled(_NPU))
    (package / device / "amp.py").write_text(spelled(_AMP))
    info = root / f"torch_{device}_fake-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch_{device}_fake\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[torch.backends]\ntorch_{device} = torch_{device}:_autoload\n")
    return root


def run_on_npu(stub: Path, project: Path, code: str, device: str = "npu", plugin_import: bool = True) -> dict:
    """Run ``code`` in a fresh interpreter with the stub and ``project`` importable; it ends by assigning a
    JSON-able ``result``. Returns ``{"result": ..., "events": [...]}``, or ``{"error": "Type: message"}``.
    ``plugin_import=False``: the code does not ``import torch_npu``; only torch's autoload brings it."""
    return _run(stub, project, code, device, plugin_import)


def run_on_cpu(project: Path, code: str) -> dict:
    """``run_on_npu`` on a plain CPU machine: no ``torch_npu`` importable, ``torch.cuda.is_available()`` False."""
    return _run(None, project, code)


def _run(stub: "Path | None", project: Path, code: str, device: str = "npu", plugin_import: bool = True) -> dict:
    program = textwrap.dedent('''
        import json, sys
        {plugin}
        try:
        {body}
            out = {{"result": result, "events": {events}}}
        except Exception as exc:
            out = {{"error": f"{{type(exc).__name__}}: {{exc}}", "events": {events}}}
        print(json.dumps(out))
    ''').format(body=textwrap.indent(textwrap.dedent(code), "    "),
                 plugin=f"import torch_{device}" if stub is not None and plugin_import else "",
                 events=f"getattr(sys.modules.get('torch_{device}'), 'EVENTS', [])" if stub is not None else "[]")
    paths = [str(stub)] if stub is not None else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, str(project)])}
    env.pop("TORCH_NPU_DEVICE_CAPABILITY", None)
    env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])
