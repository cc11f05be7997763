"""Module names and which roots are worth recording: shared by the resolver, the outline reader and the
graph. Plain strings only (no libcst), so that reading them costs nothing."""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from typing import Dict, FrozenSet, Iterable, Optional, Set

#: The standard library: its names are never recorded as usages.
STDLIB: FrozenSet[str] = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}
#: Common libraries with no CUDA coupling of their own: not recorded, to keep usages small.
QUIET_ROOTS = frozenset({
    "numpy", "pandas", "scipy", "matplotlib", "sklearn", "PIL", "cv2", "tqdm", "yaml", "requests",
    "pytest", "setuptools", "distutils", "six", "typing_extensions", "attr", "attrs", "click", "rich",
    "omegaconf", "hydra", "wandb", "tensorboard", "tensorboardX", "einops", "safetensors", "huggingface_hub",
    "tokenizers", "regex", "packaging", "absl", "termcolor", "seaborn", "h5py", "jsonargparse", "fire",
})


def module_name_for(rel: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg``; notebooks keep their stem."""
    parts = rel.rsplit(".", 1)[0].split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(p.replace("-", "_") for p in parts) or "__main__"


def absolute_import(module_name: str, is_package: bool, level: int, imported: Optional[str]) -> Optional[str]:
    """The absolute module a ``from`` import names, or ``None`` when a relative one climbs above the root.

    ``from ..ops import nms`` in ``pkg.sub.mod`` -> ``pkg.ops``; ``from . import x`` in ``pkg/__init__.py``
    -> ``pkg``; ``from ... import x`` in ``pkg.mod`` -> ``None`` (the scanned tree does not say what it is).
    """
    if not level:
        return imported or ""
    package = module_name.split(".") if module_name else []
    if not is_package:
        package = package[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, imported] if imported else base)


def is_torch(qual: str) -> bool:
    return qual == "torch" or qual.startswith("torch.")


def interesting(qual: str) -> bool:
    """Whether a qualified name is recorded: anything outside the standard library and the quiet roots."""
    root = qual.split(".", 1)[0]
    return bool(root) and root not in STDLIB and root not in QUIET_ROOTS


def interesting_base(qual: str) -> bool:
    """A base class worth a ``subclass`` usage: ``torch.autograd.Function`` and third-party classes."""
    return qual.startswith("torch.autograd.Function") or (not is_torch(qual) and interesting(qual))


def script_dir_heads(modules: Iterable[str]) -> Dict[str, Dict[str, str]]:
    """For each module, the import heads a script sees next to it: ``python llm_trainer/train.py`` puts
    ``llm_trainer/`` on ``sys.path``, so its ``from model import TinyGPT`` means ``llm_trainer.model`` when the
    scan started above that folder. Per module, {head: absolute module} for the heads that are no top-level
    module of the scan but a module next to it (or next to one of its packages, nearest first)."""
    modules = set(modules)
    top = {m.split(".")[0] for m in modules}
    children: Dict[str, Set[str]] = defaultdict(set)
    for module in modules:
        parts = module.split(".")
        for cut in range(1, len(parts)):
            children[".".join(parts[:cut])].add(parts[cut])
    found: Dict[str, Dict[str, str]] = {}
    for module in modules:
        parts = module.split(".")
        local: Dict[str, str] = {}
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            for head in children.get(prefix, ()):
                if head not in top:
                    local.setdefault(head, f"{prefix}.{head}")
        if local:
            found[module] = local
    return found


#: Factories that make a tensor where their ``device=`` says, and on the host CPU without one (or always, for
#: ``from_numpy``): the call itself runs no device kernel; a later move is a finding of its own.
TENSOR_FACTORIES = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
    "torch.arange", "torch.range", "torch.linspace", "torch.logspace", "torch.eye", "torch.rand", "torch.randn",
    "torch.randint", "torch.randperm", "torch.LongTensor", "torch.FloatTensor", "torch.IntTensor",
    "torch.BoolTensor", "torch.ByteTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.Tensor",
    # index and window factories: ``torch.tril_indices(n, n)`` with no ``device=`` builds its indices on the host
    "torch.tril_indices", "torch.triu_indices", "torch.empty_strided", "torch.hann_window", "torch.hamming_window",
    "torch.bartlett_window", "torch.blackman_window", "torch.kaiser_window",
    # an FFT's sample frequencies: a range scaled, made where ``device=`` says (pypots' ETSformer builds them on the
    # host and moves them)
    "torch.fft.fftfreq", "torch.fft.rfftfreq",
})

#: torch's floating and complex dtype objects (``torch.<name>``), whose mentions the dtype stages read.
_TORCH_DTYPES = frozenset({"float16", "half", "bfloat16", "float32", "float", "float64", "double", "complex32",
                           "chalf", "complex64", "cfloat", "complex128", "cdouble"})
#: ``Usage.context`` of a dtype named as an operand of a comparison (``x.dtype == torch.bfloat16``) or as an
#: item of a tuple, list or set (``(torch.float16, torch.bfloat16)``): a test or a set of dtypes, not a
#: choice to compute in one (``project/dtypes``) nor a use of it (``rules/dtype``).
#: A dtype a factory with no ``device=`` makes a tensor in, its result not moved on the spot
#: (``torch.full(n, 0.5, dtype=torch.float64)`` in a sampler): a host tensor's dtype, ``DTYPE_ON_HOST``.
DTYPE_COMPARED, DTYPE_LISTED, DTYPE_ON_HOST = "dtype compared", "dtype listed", "dtype of a host tensor"
#: A usage's ``context`` when it names a class an ``isinstance`` / ``issubclass`` call tests against.
TYPE_CHECK = "type-check"
#: The keyword of the argument an ``os.environ[...]`` usage carries its key in (where the key was set, when it came
#: through a name: sample-factory's ``CUDA_ENVVAR = "CUDA_VISIBLE_DEVICES"``, the one cause of its every use).
ENV_KEY = "<environment key>"
#: The start of a usage's ``context`` when it is a library's code run only on an object of that library a caller
#: hands in: the body of ``if isinstance(edge_index, SparseTensor):`` or of a function whose parameter is annotated
#: with the class (PyG's ``message_and_aggregate(self, adj_t: SparseTensor, x)``); the class, qualified, follows.
OBJECT_OF = "only on an object of "
#: A usage's ``context`` when it is ``torch.cuda.is_available()`` in a test deciding only between branches that do
#: no device work (``resolve/guards.decides_device_work``): False on a target, it changes nothing the target runs.
IDLE_TEST = "idle-test"
#: A usage's ``context`` when it is ``torch.cuda.is_available()`` in the test of an ``if`` with no ``else`` whose
#: body only checks (raises, asserts, warns: flair's ``if not data.is_cuda and cuda.is_available(): raise``): False
#: on a target as written, the check is skipped there and the run goes on.
CHECK_ONLY = "guards only a check"
#: A usage's ``context`` when it is ``torch.cuda.is_available()`` or ``device_count()`` in a test that picks the
#: string ``"gpu"`` (``accelerator = "gpu" if torch.cuda.is_available() else "cpu"``): a framework's name for an
#: NVIDIA GPU (Lightning's accelerator, Ray's resource), which a renamed test would hand the target.
PICKS_GPU = "picks a framework's 'gpu'"
#: The start of a usage's ``context`` when it is ``torch.cuda.is_available()`` in an ``and`` with a test for a
#: library (``HAS_BNB and torch.cuda.is_available()``); the library's name as the test spells it follows.
LIBRARY_GATE = "beside a test for the library "
#: A usage's ``context`` when it is ``torch.cuda.is_available()`` in an ``and`` with a question only an NVIDIA
#: device answers (``get_device_capability() >= (9, 0)``, ``torch.version.hip is None``): a test for an NVIDIA
#: feature, whose answer on a target is False as written.
NVIDIA_FEATURE = "beside a question only an NVIDIA device answers"
#: A usage's ``context`` when it is ``torch.cuda.is_available()`` whose value only says whether a loader pins host
#: memory (``DataLoader(..., pin_memory=torch.cuda.is_available())``, ``pin_memory = torch.cuda.is_available()``):
#: False on a target, batches are copied from pageable memory, slower, and training runs.
PIN_MEMORY = "whether host memory is pinned"
#: A usage's ``context`` when it is ``torch.cuda.is_available()`` inside the value of a loader's worker count
#: (``"num_workers": max(os.cpu_count() // torch.cuda.device_count() if torch.cuda.is_available() else
#: os.cpu_count(), 1)``, pytorch-accelerated's trainer): False on a target, the loader gets the machine's count,
#: a question of speed; training runs.
LOADER_WORKERS = "how many workers a data loader has"
#: A device string's ``context`` when it is in the test of an ``if`` with no ``else`` whose body only says something
#: (``if device.type == "cuda": warnings.warn("SGD uses the GPU for the Nystroem part only")``): on a target the
#: message is not shown, and the run is the same.
DECIDES_A_MESSAGE = "decides only whether a message is shown"
#: A usage's ``context`` when it is a call whose value is only printed or logged (``print("cuda:",
#: torch.cuda.is_available())``, ``logger.info(f"{torch.cuda.device_count()} GPUs")``): it decides nothing.
REPORTED = "only printed or logged"
#: A usage's ``context`` when it is a call whose input is moved to the host just before (``torch.linalg.inv(
#: cov.cpu())``, ``torch.histogram(input=theta.cpu(), ...)``): the op runs on the host CPU, by the code's choice.
HOST_INPUT = "input moved to the host"
#: A method call's ``context`` when its receiver is built right there by a ``torch.nn`` class (``nn.CrossEntropyLoss(
#: ).cuda(gpu)``): ``BUILT_BY`` and the class, then the keywords the construction passes and ``*`` for any positional
#: argument (``built by torch.nn.CrossEntropyLoss: reduction``), for the rule to read what the module holds
BUILT_BY = "built by"
#: A usage's ``context`` in the handler of ``try: return getattr(torch, device_name)`` ``except AttributeError:``
#: (llamafactory's and ms-swift's ``get_torch_device``): it runs only where torch has no module of the device's
#: name, which the target's own runtime adds (``torch.npu``, ``torch.mlu``).
MISSING_MODULE = "where torch has no module of the device's name"
#: A command's ``context`` when it is launched in a ``try`` whose handler catches the program's absence
#: (``OSError``, ``FileNotFoundError``, ``CalledProcessError``, any exception) and goes on: gsplat's
#: ``cuda_toolkit_available()`` runs ``nvcc`` to answer False where it is missing, as a target's machine has it.
PROGRAM_PROBED = "run where a handler covers the program's absence"
#: A call's ``context`` when it is a statement of a ``try`` body whose handler catches the failure and goes on,
#: binding again every function the body defines (cogdl's ``spmm = load(...)`` then ``except Exception: csrspmm =
#: None``; peft's BOFT): a run-time build there is optional, the code goes on without it where it fails. Not one
#: whose handler leaves such a function undefined (cogdl's ``scatter_max``: its importers fail with the build), nor
#: one in a handler (nerfacc builds in ``except ImportError:``, where the compiled module is missing).
OPTIONAL_BUILD = "a statement of a try body whose handler goes on"
#: a literal's role when it is what a device's name is tested against (``resolve/literals.py`` writes them):
#: ``compared with x.device.type``, ``argument 1 of device.startswith``
_TESTED_BY = re.compile(r"^compared with |^argument 1 of .+\.(?:startswith|endswith)$")


def tests_the_device(role: Optional[str]) -> bool:
    """Whether a literal with ``role`` (a usage's ``context``) is compared with a device's name: ``x.device.type ==
    "cuda"``, ``device.startswith("cuda")``."""
    return role is not None and _TESTED_BY.match(role) is not None


#: A call's ``context`` when it is a statement of a ``try`` body whose handler catches what an op the device has
#: no kernel for raises (``NotImplementedError``, ``RuntimeError``, any exception) and goes on (sentence-transformers'
#: ``try: x.to_sparse_csr()`` ``except NotImplementedError: x.cpu().to_sparse_csr()``): the code has its own fallback.
HANDLED_FAILURE = "a statement of a try body whose handler covers an op's failure"
#: a torch function named as a value that is called elsewhere: a parameter's default (``lgamma_fn=torch.lgamma``),
#: what a function returns (``return torch.lgamma``) or a call's argument (``x.apply_(torch.sigmoid)``); not an
#: entry of a table (``{"relu": F.relu, "mish": F.mish}``: one is chosen)
FUNCTION_VALUE = "a torch function named as a value, called where it is passed"
#: A usage's ``context`` when it is the type ``torch.set_default_tensor_type`` is given, as a class or its name
#: (``torch.set_default_tensor_type('torch.cuda.FloatTensor')``, nerf-pytorch): every tensor the run makes after
#: it is a CUDA tensor, and a target's runtime may not take its own device's type there (Ascend's docs:
#: "不支持传入`torch.npu.DtypeTensor`类型").
DEFAULT_TENSOR_TYPE = "the type given to torch.set_default_tensor_type"
#: The start of a usage's ``context`` when it is the CUDA side of a device chosen by a tensor's own placement,
#: ``torch.device('cuda') if x.is_cuda else torch.device('cpu')`` (SupContrast's loss, DomainBed's DANN), followed
#: by the tensor's source text: on a target that names its device otherwise, ``x`` is on that device, the choice
#: reads "cpu", and what is made with it lands on the host beside ``x``. What it spells is ``x.device``.
PLACED_BY = "the device of a tensor, chosen as CUDA or the CPU by its placement:"
#: A call's ``context`` in the body of a test for a library's or a kernel's availability that has another way
#: (an ``else``, or code after a body that leaves): spikingjelly's ``if _native_available(pkg, device):
#: torch.ops.sj_spike_linear.kernel_packed(...)`` ``else:`` <the same in torch ops>. Where the test fails (no
#: such build for the target's device), the code's other way runs.
AVAILABLE_ONLY = "in the body of an availability test with another way"
#: A usage's ``context`` when it is an operand of ``and``/``or`` in a ``with`` item other than the last
#: (``with torch.cuda.amp.autocast() and torch.set_grad_enabled(True):``): Python enters only the value the
#: expression ends with, so this context manager is never entered, on CUDA either.
NEVER_ENTERED = "never entered"
#: A usage's ``context`` when it is ``autocast("cuda", enabled=False)`` around code autocast never lowers
#: (``resolve/autocast_regions``): the switch changes nothing a target computes there.
IDLE_REGION = "idle-region"
#: A literal's role when it is the ``backend`` of mmengine's ``dist_cfg`` (``env_cfg = dict(dist_cfg=dict(
#: backend='nccl'))``): the value mmengine's runner hands to ``init_dist``, not a call of the project's own.
DIST_CFG_BACKEND = "backend of mmengine's dist_cfg"
#: ... and of mmcv 1.x's ``dist_params`` (``dist_params = dict(backend='nccl')``), which ``tools/train.py`` hands to
#: ``mmcv.runner.init_dist(args.launcher, **cfg.dist_params)``
DIST_PARAMS_BACKEND = "backend of mmcv's dist_params"
DTYPE_MENTIONS = frozenset({DTYPE_COMPARED, DTYPE_LISTED, DTYPE_ON_HOST})


def is_torch_dtype(qual: str) -> bool:
    return qual.startswith("torch.") and (qual[6:] in _TORCH_DTYPES or qual.startswith("torch.float8_"))
