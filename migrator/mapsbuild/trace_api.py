"""Generate the torch API table: which aten op overloads each public Python API runs, forward and backward.

PyTorch's own sample inputs drive it: the OpInfo database (``torch.*``, ``torch.nn.functional.*``,
``torch.Tensor`` methods, ``torch.linalg/fft/special``), the ModuleInfo database (``torch.nn`` modules)
and the OptimizerInfo database (optimizers, for-loop / foreach / fused paths). Each sample runs on the CPU
under a ``TorchDispatchMode`` that records every ``aten::`` overload reaching the backend, so composite
ops are already decomposed. Backward ops are recorded separately by differentiating the outputs.

APIs no sample covers fall back to the names in ``native_functions.yaml`` (function and method variants),
marked ``"source": "native_functions"``: their op list is every overload of that name, not a trace.

Needs torch (``pip install torch==2.13.0``) and ``expecttest`` (imported by torch's test databases).
The generated table is committed, so scanning never needs torch.
"""

from __future__ import annotations

import json
import warnings
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

import yaml

from .trace_samples import SAMPLE_SOURCE, SAMPLES

SAMPLES_PER_OP = 2
TABLE_SCHEMA = "migrator.torch-api/1"


class _Recorder:
    """Collects aten overload names and input dtypes seen while a sample runs."""

    def __init__(self) -> None:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        recorder = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = _overload_name(func)
                if name.startswith("aten::"):  # not profiler:: or other bookkeeping namespaces
                    recorder.ops.add(name)
                for value in _flatten((args, kwargs or {})):
                    if isinstance(value, torch.Tensor):
                        recorder.dtypes.add(str(value.dtype).replace("torch.", ""))
                        if value.layout != torch.strided:
                            recorder.layouts.add(str(value.layout).replace("torch.", ""))
                return func(*args, **(kwargs or {}))

        self.mode_class = Mode
        self.ops: Set[str] = set()
        self.dtypes: Set[str] = set()
        #: the layouts other than strided that ops got since ``_trace_call`` began (``sparse_coo``)
        self.layouts: Set[str] = set()

    def run(self, call: Callable[[], Any]) -> Tuple[Set[str], Set[str], object]:
        self.ops, self.dtypes = set(), set()
        with self.mode_class():
            result = call()
        return self.ops, self.dtypes, result


def _overload_name(func) -> str:
    schema = func._schema
    name = schema.name.split("::", 1)[-1]
    namespace = schema.name.split("::", 1)[0] if "::" in schema.name else "aten"
    overload = schema.overload_name
    return f"{namespace}::{name}.{overload}" if overload else f"{namespace}::{name}"


def _flatten(value) -> Iterable[object]:
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _flatten(item)
    else:
        yield value


#: what a table row holds of the samples it traced
_PARTS = ("forward", "backward", "dtypes", "layouts")


class _Table:
    def __init__(self) -> None:
        self.apis: Dict[str, Dict[str, Set[str]]] = {}
        self.sources: Dict[str, str] = {}
        self.paths: Dict[str, Dict[str, Set[str]]] = {}
        #: what an API's argument variants ran, kept as its row where no other sample covers it (``to_json``)
        self.variant_rows: Dict[str, Dict[str, Set[str]]] = {}
        #: a ``torch.nn`` module class -> (how many parameters and buffers it holds when built with no argument,
        #: its constructor's tensor arguments): ``_module_states``
        self.states: Dict[str, Tuple[int, List[str]]] = {}

    def add(self, api: str, source: str, forward: Set[str], backward: Set[str], dtypes: Set[str],
            layouts: Iterable[str] = ()) -> None:
        entry = self.apis.setdefault(api, {part: set() for part in _PARTS})
        entry["forward"] |= forward
        entry["backward"] |= backward
        entry["dtypes"] |= dtypes
        entry["layouts"] |= set(layouts)
        self.sources.setdefault(api, source)

    def to_json(self, torch_version: str) -> dict:
        apis = {}
        for api, held in self.variant_rows.items():  # traced only through its arguments' variants: as before
            if api not in self.apis:
                self.add(api, "opinfo", *(held[part] for part in _PARTS))
        for api in sorted(self.apis):
            entry = self.apis[api]
            row: Dict[str, Any] = {"forward": sorted(entry["forward"]), "backward": sorted(entry["backward"]),
                   "dtypes": sorted(entry["dtypes"]), "source": self.sources[api]}
            if entry["layouts"]:  # its ops ran on sparse (or other non-strided) tensors
                row["layouts"] = sorted(entry["layouts"])
            if api in self.paths:
                row["paths"] = {k: sorted(v) for k, v in sorted(self.paths[api].items())}
            apis[api] = row
        return {"schema": TABLE_SCHEMA, "torch_version": torch_version,
                "method": "PyTorch OpInfo / ModuleInfo / OptimizerInfo samples traced on the CPU with a "
                          "TorchDispatchMode; 'curated-sample' rows are one realistic call each of common APIs "
                          "those samples leave out (migrator/mapsbuild/trace_samples.py); "
                          "'generic-sample' rows call the API on a non-contiguous float "
                          "matrix (no ops recorded: it dispatches none); 'native_functions' rows list "
                          "overloads by name only",
                "apis": apis,
                # what moving a module built so moves: every public torch.nn class, traced or not
                "module_states": {api: {"holds": holds, "tensor_args": tensors}
                                  for api, (holds, tensors) in sorted(self.states.items())}}


def trace_opinfos(names: Iterable[str]) -> dict:
    """Trace only the named OpInfo entries (for tests and for checking one API by hand)."""
    import torch

    warnings.filterwarnings("ignore")
    table = _Table()
    _trace_opinfos(table, _Recorder(), None, set(names))
    return table.to_json(torch.__version__.split("+")[0])["apis"]


def generate(native_functions: Path, progress: Optional[Callable[[str], None]] = None) -> dict:
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    table = _Table()
    recorder = _Recorder()
    _trace_opinfos(table, recorder, progress)
    _trace_modules(table, recorder, progress)
    _trace_optimizers(table, recorder, progress)
    _trace_samples(table, recorder)
    _trace_generic(table, recorder, _generic_candidates(native_functions, table))
    _native_function_names(table, native_functions)
    _module_states(table)
    return table.to_json(torch.__version__.split("+")[0])


def write_table(native_functions: Path, out: Path, progress=None) -> Path:
    data = generate(native_functions, progress)
    data["aliases"] = aliases(data["apis"])
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out


# ------------------------------------------------------------------------------------------ OpInfo


def _trace_opinfos(table: _Table, recorder: _Recorder, progress, only: Optional[Set[str]] = None) -> None:
    import torch  # noqa: F401  (fails early, with a clear message, when torch is missing)
    from torch.testing._internal.common_methods_invocations import op_db

    for info in op_db:
        if only is not None and info.name not in only:
            continue
        if progress:
            progress(f"op {info.name}")
        dtype = _sample_dtype(info)
        if dtype is None:
            continue
        grad = bool(info.supports_autograd) and dtype.is_floating_point
        labelled = _takes_a_target(f"torch.{info.name}")
        apis = _opinfo_apis(info)
        if not apis:
            continue
        try:
            samples = list(info.sample_inputs("cpu", dtype, requires_grad=grad))[:SAMPLES_PER_OP]
        except Exception:
            continue
        keyword = _keyword_variant(info, samples)
        for sample in samples:
            for api, call in apis:
                forward, backward, dtypes = _trace_call(recorder, partial(call, sample), grad,
                                                        sample.input if labelled else None)
                if forward and keyword:
                    table.paths.setdefault(api, {}).setdefault(keyword, set()).update(forward | backward)
                    held = table.variant_rows.setdefault(api, {part: set() for part in _PARTS})
                    for part, ops in zip(_PARTS, (forward, backward, dtypes, recorder.layouts)):
                        held[part] |= ops
                elif forward:
                    table.add(api, "opinfo", forward, backward, dtypes, recorder.layouts)


def keyword_path(keyword: str, position: int, value: Optional[str] = None) -> str:
    """The name of an API's op set for the calls that pass ``keyword``, by name or as positional argument
    ``position``: any value (``reduce@2``: ``torch.sparse.mm(a, b, reduce="sum")``, ``torch.sparse.mm(a, b,
    "mean")``), or the one literal every sample passed (``hermitian@2=True``)."""
    return f"{keyword}@{position}" + (f"={value}" if value is not None else "")


def _keyword_variant(info, samples) -> Optional[str]:
    """The path of an OpInfo variant named for one of the API's parameters that every one of its samples passes
    (torch's ``sparse.mm`` variant ``reduce``: each sample passes a reduction, which takes CSR's reduction kernel;
    a call without it multiplies COO by dense through another op), else ``None``. Its ops are that path's, not the
    API's. A flag the samples all set alike (``hermitian=True``) names its value: the other value is the API's
    own path."""
    name = getattr(info, "variant_test_name", "")
    position = _parameter_position(info.op, name) if name.isidentifier() and info.op is not None else None
    if position is None or not samples:
        return None
    passed = []
    for sample in samples:  # the input is argument 0: ``args`` holds arguments 1 and on
        if name in (sample.kwargs or {}):
            passed.append(sample.kwargs[name])
        elif len(sample.args) >= position:
            passed.append(sample.args[position - 1])
        else:
            return None
    flags = {value for value in passed if isinstance(value, bool)}
    if flags and len(flags) == len(set(map(repr, passed))) == 1:
        return keyword_path(name, position, repr(passed[0]))
    return None if flags else keyword_path(name, position)


def _parameter_position(function, name: str) -> Optional[int]:
    """Where ``name`` sits among a function's parameters: its Python signature's, or for a builtin its aten
    schemas' (``_sparse_mm.reduce(Tensor sparse, Tensor dense, str reduce)``); ``None`` where neither names it."""
    import inspect

    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        import torch

        qualified = getattr(function, "__name__", "")
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{qualified}") if qualified else []
        found = [[a.name for a in schema.arguments] for schema in schemas]
        names = next((n for n in found if name in n), [])
    return names.index(name) if name in names else None


def _call_method(x: Any, name: str, *args: Any) -> Any:
    """``x.name(*args)``, the method looked up when called (as the tracer runs it)."""
    return getattr(x, name)(*args)


def _opinfo_apis(info) -> List[Tuple[str, Callable]]:
    """(public API name, callable taking a SampleInput) for the function, method and in-place variants."""
    apis: List[Tuple[str, Callable]] = []
    op = info.op
    if op is not None:  # often a lambda around the public function (to set a seed, say): name it by the OpInfo
        names = [f"torch.{info.name}"] + [f"torch.{alias.name}" for alias in info.aliases]
        for name in names:
            if _public(name):
                apis.append((name, lambda s, op=op: op(s.input, *s.args, **s.kwargs)))
    method = info.method_variant
    if method is not None and getattr(method, "__name__", "<lambda>") != "<lambda>":
        name = f"torch.Tensor.{method.__name__}"
        apis.append((name, lambda s, m=method: m(s.input, *s.args, **s.kwargs)))
    inplace = info.inplace_variant
    if inplace is not None and getattr(inplace, "__name__", "<lambda>") != "<lambda>":
        name = f"torch.Tensor.{inplace.__name__}"
        apis.append((name, lambda s, m=inplace: m(_clone(s.input), *s.args, **s.kwargs)))
    return apis


def _public(name: str) -> bool:
    import importlib

    module, _, attr = name.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), attr)
    except Exception:
        return False


def _clone(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    return value


def _sample_dtype(info):
    import torch

    try:
        supported = info.supported_dtypes("cpu")
    except Exception:
        return None
    for dtype in (torch.float32, torch.int64, torch.bool):
        if dtype in supported:
            return dtype
    return None


def _takes_a_target(name: str) -> bool:
    """Whether a public function's second parameter is its ``target`` (``binary_cross_entropy(input, target)``):
    a loss whose target is a label in training, which no step differentiates. Its sample inputs give the target
    a gradient too, and that backward (``binary_cross_entropy``'s runs ``aten::logit``) is no training's."""
    import importlib
    import inspect

    module, _, attr = name.rpartition(".")
    try:
        parameters = list(inspect.signature(getattr(importlib.import_module(module), attr)).parameters)
    except Exception:
        return False
    return parameters[1:2] == ["target"]


def _trace_call(recorder: _Recorder, call: Callable[[], Any], grad: bool, wrt: Optional[object] = None):
    """The ops a call runs forward and, where ``grad``, backward to its leaves (to ``wrt`` alone where given)."""
    import torch

    recorder.layouts = set()
    try:
        forward, dtypes, result = recorder.run(call)
    except Exception:
        return set(), set(), set()
    backward: Set[str] = set()
    if grad:
        outputs = [t for t in _flatten(result) if isinstance(t, torch.Tensor) and t.requires_grad
                   and t.grad_fn is not None and t.dtype.is_floating_point and t.layout == torch.strided]
        leaves = [t for t in _leaves(outputs) if wrt is None or t is wrt]
        if outputs and leaves:
            try:
                grads = [torch.ones_like(t) for t in outputs]
                backward, _, _ = recorder.run(lambda: torch.autograd.grad(outputs, leaves, grads, allow_unused=True))
            except Exception:
                backward = set()
    return forward, backward, dtypes


def _leaves(outputs) -> List[object]:
    """The leaf tensors the outputs depend on (sample inputs created with requires_grad)."""
    seen, leaves, stack = set(), [], [t.grad_fn for t in outputs]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if hasattr(fn, "variable"):
            leaves.append(fn.variable)
        stack.extend(next_fn for next_fn, _ in getattr(fn, "next_functions", ()))
    return leaves


# ---------------------------------------------------------------------------------------- ModuleInfo


def _trace_modules(table: _Table, recorder: _Recorder, progress) -> None:
    import torch
    from torch.testing._internal.common_modules import module_db

    for info in module_db:
        cls = info.module_cls
        name = cls.__name__
        api = f"torch.nn.{name}" if getattr(torch.nn, name, None) is cls else f"{cls.__module__}.{cls.__qualname__}"
        if progress:
            progress(f"module {api}")
        try:
            inputs = info.module_inputs_func(info, device="cpu", dtype=torch.float32, requires_grad=True,
                                             training=True)[:SAMPLES_PER_OP]
        except Exception:
            continue
        for module_input in inputs:
            if module_input.forward_input is None:
                continue
            try:
                args, kwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
                module = cls(*args, **kwargs)
            except Exception:
                continue
            fargs, fkwargs = module_input.forward_input.args, module_input.forward_input.kwargs
            forward, backward, dtypes = _trace_call(recorder, partial(module, *fargs, **fkwargs), True)
            if forward:
                table.add(api, "moduleinfo", forward, backward, dtypes, recorder.layouts)


# ------------------------------------------------------------------------------------- OptimizerInfo


def _trace_optimizers(table: _Table, recorder: _Recorder, progress) -> None:
    import torch
    from torch.testing._internal.common_optimizers import optim_db

    for info in optim_db:
        cls = info.optim_cls
        api = f"torch.optim.{cls.__name__}"
        if progress:
            progress(f"optimizer {api}")
        try:
            optim_inputs = info.optim_inputs_func(device="cpu")
        except Exception:
            continue
        kwargs: Dict[str, Any] = next((o.kwargs for o in optim_inputs if o.params is None), {})
        paths = {"for-loop": {"foreach": False}}
        if "foreach" in info.supported_impls:
            paths["foreach"] = {"foreach": True}
        if "fused" in info.supported_impls:
            paths["fused"] = {"fused": True}
        for path, flags in paths.items():
            params = [torch.randn(4, 3, requires_grad=True), torch.randn(3, requires_grad=True)]
            for p in params:
                p.grad = torch.randn_like(p)
            try:
                optimizer = cls(params, **{**kwargs, **flags})
                step = optimizer.step if not _needs_closure(cls) else partial(optimizer.step, lambda: torch.tensor(0.0))
                ops, dtypes, _ = recorder.run(step)
            except Exception:
                continue
            table.paths.setdefault(api, {})[path] = ops
            default = "foreach" if "foreach" in paths else "for-loop"
            if path == default:
                table.add(api, "optiminfo", ops, set(), dtypes)


def _needs_closure(cls) -> bool:
    return cls.__name__ == "LBFGS"


# ------------------------------------------------------------------------------- native_functions


# ------------------------------------------------------------------------------------------ generic samples

#: Tensor methods and functions never sampled: they need a device, write files or exit the process.
_NOT_SAMPLED = frozenset({"cuda", "pin_memory", "share_memory_", "record_stream", "backward", "register_hook",
                          "retain_grad", "to_mkldnn", "ipu", "xpu", "mps", "npu", "mlu", "hpu", "xla", "mtia",
                          "resize_", "set_", "storage", "untyped_storage", "data_ptr", "__dlpack__", "numpy",
                          "tolist", "item", "save", "load", "set_default_dtype", "set_default_device",
                          "manual_seed", "seed", "use_deterministic_algorithms", "compile", "from_file"})
GENERIC_SOURCE = "generic-sample"


def _generic_candidates(native_functions: Optional[Path], table: _Table) -> List[str]:
    """Public Tensor methods and ``torch`` functions that no PyTorch sample covered."""
    import torch

    names = [f"torch.Tensor.{n}" for n in dir(torch.Tensor) if not n.startswith("_") and n not in _NOT_SAMPLED
             and callable(getattr(torch.Tensor, n, None))]
    if native_functions is not None:
        entries = yaml.load(native_functions.read_text(encoding="utf-8"),
                            Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        for entry in entries:
            base = entry["func"].split("(", 1)[0].split(".", 1)[0]
            if not base.startswith("_") and base not in _NOT_SAMPLED \
                    and "function" in str(entry.get("variants", "function")):
                names.append(f"torch.{base}")
    return [n for n in dict.fromkeys(names) if n not in table.apis]


def _generic_inputs():
    """A non-contiguous float matrix (so ``contiguous``, ``reshape`` and friends take their copying path)
    and a second one of the same shape for binary methods (``type_as``, ``expand_as``)."""
    import torch

    return torch.randn(6, 4).t(), torch.randn(4, 6)


def _trace_generic(table: _Table, recorder: _Recorder, apis: Sequence[str]) -> None:
    """Call each API on generic inputs: with no argument, else with a second tensor. A call that dispatches
    no aten op at all (``stride``, ``is_complex``, ``requires_grad_``) is recorded with none: it needs no
    device kernel. A call that fails both ways is left to the native_functions names."""
    import torch

    for api in apis:
        owner, name = api.rsplit(".", 1)
        for arguments in ((), "other"):
            x, other = _generic_inputs()
            x.requires_grad_(not name.endswith("_"))  # an in-place method cannot take a leaf that needs grad
            if owner == "torch.Tensor":
                call = partial(_call_method, x, name) if arguments == () else partial(_call_method, x, name, other)
            else:
                fn = getattr(torch, name, None)
                if fn is None:
                    break
                call = partial(fn, x) if arguments == () else partial(fn, x, other)
            forward, backward, dtypes = _trace_call(recorder, call, grad=x.requires_grad)
            if forward or _runs(call):
                table.add(api, GENERIC_SOURCE, forward, backward, dtypes)
                break


def _trace_samples(table: _Table, recorder: _Recorder) -> None:
    """The curated sample calls (``trace_samples``) of common APIs no PyTorch sample covers. A call that runs
    and dispatches nothing (a container, a context) is recorded with no ops: it needs no device kernel."""
    for sample in SAMPLES:
        if sample.api in table.apis and table.sources[sample.api] not in (GENERIC_SOURCE, "native_functions"):
            continue  # PyTorch's own samples cover it
        try:
            call, grad = sample.make()
        except Exception:
            continue
        forward, backward, dtypes = _trace_call(recorder, call, grad)
        if forward or _runs(call):
            table.apis.pop(sample.api, None)
            table.sources.pop(sample.api, None)
            table.add(sample.api, SAMPLE_SOURCE, forward, backward, dtypes, recorder.layouts)


def _module_states(table: _Table) -> None:
    """For each public ``torch.nn`` module class that builds with no argument (a loss, an activation, a
    container, ``CosineSimilarity``), the parameters and buffers it then holds, and the constructor's arguments
    annotated as tensors (``CrossEntropyLoss(weight=...)`` registers ``weight``): ``nn.CrossEntropyLoss().cuda()``
    moves nothing. Every class ``torch.nn`` exports, whether or not a sample traced it."""
    import inspect

    import torch

    for name in sorted(dir(torch.nn)):
        cls = getattr(torch.nn, name)
        if not (name[:1].isupper() and isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
            continue
        api = f"torch.nn.{name}"
        try:
            built = cls()
            parameters = inspect.signature(cls).parameters.values()
        except Exception:  # needs arguments (Linear, Conv2d): what it holds depends on them
            continue
        holds = len({n for n, _ in built.named_parameters()} | {n for n, _ in built.named_buffers()})
        tensors = sorted(p.name for p in parameters if "Tensor" in str(p.annotation))
        table.states[api] = (holds, tensors)


def add_sample_rows(table_path: Path) -> int:
    """Trace the curated samples into an existing table (``maps trace --samples-only``); rows written."""
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    data = json.loads(table_path.read_text(encoding="utf-8"))
    table = _Table()
    for api, row in data["apis"].items():
        table.add(api, row["source"], set(row["forward"]), set(row["backward"]), set(row["dtypes"]),
                  row.get("layouts", ()))
        if row.get("paths"):
            table.paths[api] = {k: set(v) for k, v in row["paths"].items()}
    table.states = {api: (state["holds"], state["tensor_args"]) for api, state in data.get("module_states", {}).items()}
    _trace_samples(table, _Recorder())
    fresh = table.to_json(data["torch_version"])
    fresh["aliases"] = aliases(fresh["apis"])
    table_path.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return sum(1 for row in fresh["apis"].values() if row["source"] == SAMPLE_SOURCE)


#: the modules whose public names are often written by their defining module (``torch.nn.modules.loss.MSELoss``
#: for ``torch.nn.MSELoss``, ``torch.optim.sgd.SGD``, ``torch.functional.einsum``)
ALIAS_PACKAGES = ("torch.nn.modules", "torch.nn.parameter", "torch.optim", "torch.utils.data", "torch.functional")


def aliases(apis: Mapping[str, Any]) -> Dict[str, str]:
    """Other spellings of the table's APIs: a name in ``ALIAS_PACKAGES`` whose object *is* a table API's object
    (the same class or function, by identity), mapped to the table's name."""
    import importlib
    import pkgutil

    import torch

    def lookup(dotted: str):
        obj: object = torch
        for part in dotted.split(".")[1:]:
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj

    owners: Dict[int, str] = {}
    for api in sorted(apis):
        obj = lookup(api)
        if obj is not None and (isinstance(obj, type) or callable(obj)):
            owners.setdefault(id(obj), api)
    found: Dict[str, str] = {}
    for package in ALIAS_PACKAGES:
        module = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(getattr(module, "__path__", []), package + ".")]
        for name in names:
            try:
                sub = importlib.import_module(name)
            except Exception:
                continue
            for attr, obj in vars(sub).items():
                full = f"{name}.{attr}"
                owner = owners.get(id(obj))
                if owner and owner != full and full not in apis and not attr.startswith("__"):
                    found[full] = owner
    return dict(sorted(found.items()))


def _runs(call: Callable[[], Any]) -> bool:
    """Whether ``call`` succeeds (a metadata call dispatches no op and records nothing)."""
    try:
        call()
        return True
    except Exception:
        return False


def _native_function_names(table: _Table, native_functions: Path) -> None:
    entries = yaml.load(native_functions.read_text(encoding="utf-8"),
                        Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    by_name: Dict[Tuple[str, str], Set[str]] = {}
    for entry in entries:
        func = entry["func"].split("(", 1)[0]
        base = func.split(".", 1)[0]
        if base.startswith("_") and not base.startswith("_foreach_"):
            continue  # private, except the foreach ops optimizers call directly
        variants = str(entry.get("variants", "function"))
        overload = f"aten::{func}"
        if "function" in variants:
            by_name.setdefault(("torch", base), set()).add(overload)
        if "method" in variants:
            by_name.setdefault(("torch.Tensor", base), set()).add(overload)
    for (owner, base), ops in sorted(by_name.items()):
        api = f"{owner}.{base}"
        if api not in table.apis:
            table.add(api, "native_functions", ops, set(), set())
