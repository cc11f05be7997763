"""Every result type migrator passes between its stages: frozen, plain data, no logic.

Each stage of the pipeline (discover -> parse -> resolve -> rules -> assess -> report) takes
and returns these types; failures are data too (a file with ``status=ERROR`` and a reason),
never an exception that stops a scan.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, FrozenSet, Mapping, Optional, Sequence, Tuple, Union


class Closed(str, Enum):
    """A closed set of names: each member is its name's string, compares, hashes and formats as it (so
    ``f"{kind}"`` and a JSON document say ``call``), and a type checker knows the set."""

    __hash__ = str.__hash__  # a member and its string are one key (rules name kinds in sets; the cache keys)

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)


class UsageKind(Closed):
    """How a usage is written (``Usage.kind``)."""

    CALL = "call"
    METHOD = "method"  # a Tensor method on a receiver that could not be typed
    ATTRIBUTE = "attribute"  # read
    ASSIGN = "assign"  # an attribute set: ``torch.backends.cudnn.benchmark = True``
    DECORATOR = "decorator"
    IMPORT = "import"
    SUBCLASS = "subclass"  # a class deriving from it
    LITERAL = "literal"  # a device or backend string
    LAUNCH = "launch"  # a ``kernel[grid](...)`` launch
    ENV = "env"  # an environment variable set (Python, a script, a Dockerfile)
    ENV_READ = "env-read"  # an environment variable read from Python
    COMMAND = "command"  # a shell command (``nvidia-smi``, ``docker --gpus``)
    RUN = "run"  # a script's launch of training
    BASE_IMAGE = "base-image"  # a Dockerfile's ``FROM``
    REQUIREMENT = "requirement"  # a requirements line
    KERNEL = "kernel"  # a CUDA kernel or registration of a ``.cu``/``.cpp`` file (``inventory.kernel_usages``)
    SETTING = "setting"  # a key's value in a configuration file (``sources/config.py``): ``api`` is ``config:<key>``


class ValueKind(Closed):
    """What a value read from the code is (``Value.kind``)."""

    STR = "str"
    FSTR = "fstr"
    DEVICE = "device"
    CHOICE = "choice"
    REF = "ref"
    INT = "int"
    FLOAT = "float"
    TENSOR = "tensor"
    OTHER = "other"


class EditKind(Closed):
    """How ``fix`` applies an ``Edit`` (``Edit.kind``)."""

    STRING = "string"
    FSTRING = "fstring"
    NAME = "name"
    METHOD = "method"
    ARGUMENT = "argument"
    TEXT = "text"


class RegistrationKind(Closed):
    """How C++ exposes a function to Python (``Registration.kind``)."""

    PYBIND11 = "pybind11"  # ``m.def`` in ``PYBIND11_MODULE``
    TORCH_LIBRARY = "torch_library"  # ``m.def`` in ``TORCH_LIBRARY``: a schema
    TORCH_LIBRARY_IMPL = "torch_library_impl"  # ``m.impl`` in ``TORCH_LIBRARY_IMPL``: a kernel for a key


class DefinitionKind(Closed):
    """What an outline's definition is (``Definition.kind``)."""

    FUNCTION = "function"
    CLASS = "class"


class EntryKind(Closed):
    """Why a call-graph node is an entry point (``EntryPoint.kind``)."""

    MAIN_BLOCK = "main-block"  # ``if __name__ == "__main__":``
    SCRIPT_NAME = "script-name"  # ``train*.py`` and the like
    #: code at the top of a file outside any package that nothing imports (ControlNet's ``gradio_canny2image.py``,
    #: ``tutorial_train_sd21.py``): run by its path
    SCRIPT = "script"
    NOTEBOOK = "notebook"
    SETUP = "setup"  # ``setup.py``: runs at build time
    CONSOLE_SCRIPT = "console-script"  # ``[project.scripts]``
    CLI = "cli"  # ``--entry``
    PUBLIC_API = "public-api"  # a library's exports, when it has no other entry point
    #: a library's training loop or step, and its module, when no other entry point reaches any: its users'
    #: runs go through it (flair's ``ModelTrainer.train_custom``), ``project/training_entries.library_training``
    LIBRARY_TRAINING = "library-training"


class NodeKind(Closed):
    """What a call-graph node is (its ``kind`` attribute, ``NodeReach.kind``)."""

    MODULE = "module"
    MAIN = "main"  # a module's ``if __name__ == "__main__":`` block
    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    REGISTRY = "registry"  # a table of functions (``{'2': f2, '3': f3}``)
    PUBLIC_API = "public-api"  # a library's exports, as one entry point
    UNPLACED = ""  # a node only an edge names


class Status(str, Enum):
    """The closed set of verdict statuses (ARCHITECTURE.md, "Verdict statuses")."""

    SUPPORTED = "supported"
    PARTIAL = "partial"
    FALLBACK = "fallback"
    REWRITE = "rewrite"
    PORT = "port"
    UNSUPPORTED = "unsupported"
    UNKNOWN = "unknown"


#: Order in which statuses are shown, worst first, for views that lead with blockers.
STATUS_SEVERITY: Tuple[Status, ...] = (
    Status.UNSUPPORTED,
    Status.PORT,
    Status.REWRITE,
    Status.UNKNOWN,
    Status.FALLBACK,
    Status.PARTIAL,
    Status.SUPPORTED,
)


class Category(str, Enum):
    DEVICE = "device"
    DISTRIBUTED = "distributed"
    AMP = "amp"
    OP = "op"
    DTYPE = "dtype"
    CUSTOM_OP = "custom-op"
    THIRD_PARTY = "third-party"
    ENVIRONMENT = "environment"
    #: runs, but stalls the device on the training step (``rules/tune/``): never counted in readiness
    TUNE = "tune"


class Confidence(str, Enum):
    RESOLVED = "resolved"
    HEURISTIC = "heuristic"
    TRACED = "traced"  # a traced run (``migrator trace``) dispatched the finding's ops at its line


class FileKind(str, Enum):
    PYTHON = "python"
    NOTEBOOK = "notebook"
    CUDA = "cuda"  # .cu / .cuh
    CPP = "cpp"  # .cpp / .cc / .h / .hpp next to extensions
    SHELL = "shell"
    DOCKERFILE = "dockerfile"
    REQUIREMENTS = "requirements"
    CONFIG = "config"  # a file that steers the scan (``.gitignore``): reported when part of it cannot be used
    #: a training configuration file (YAML, JSON, ``.deepspeed_env``: ``sources/config.py``); its values are
    #: findings only when some code, launch script or framework reads the file (``project/configs.py``)
    TRAINING_CONFIG = "training-config"
    #: a CMake build file (``CMakeLists.txt``, ``*.cmake``): the CUDA libraries it builds (``sources/cmake.py``)
    CMAKE = "cmake"
    #: a README (``README.md``): the launches its fenced shell blocks document (``sources/environment.py``:
    #: only the options of a launch of a script that parses its ``TrainingArguments``, Alpaca's ``--tf32 True``)
    MARKDOWN = "markdown"


class FileStatus(str, Enum):
    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class SourceFile:
    """A file found by discovery. ``rel`` is POSIX and relative to the scanned root."""

    path: str
    rel: str
    kind: FileKind
    size: int


@dataclass(frozen=True)
class Span:
    """1-based lines, 0-based columns; ``cell`` is the notebook cell index (lines count within it)."""

    line: Optional[int]
    col: Optional[int] = None
    end_line: Optional[int] = None
    end_col: Optional[int] = None
    cell: Optional[int] = None


@dataclass(frozen=True)
class Value:
    """What migrator knows statically about an expression used as an argument or assigned value.

    kind:
      ``str``     a string literal (``text`` is its value)
      ``fstr``    an f-string; ``text`` has ``{}`` where expressions stand (``"cuda:{}"``)
      ``device``  a ``torch.device(...)`` call; ``text`` is the device string it builds
      ``choice``  a conditional expression; ``options`` holds both branches
      ``ref``     a name bound in another module of the repo (``ref`` is its qualified name)
      ``other``   anything else; ``text`` is the source code
    ``origin`` is where the value was written when it came through a name (a constant, a local, a
    parameter default); ``via`` is that name. ``from_default`` marks a value known only as a parameter's
    default: the caller usually passes its own, so the default is reported where it is written, not at
    every use of the parameter.
    """

    kind: ValueKind
    text: Optional[str] = None
    options: Tuple["Value", ...] = ()
    ref: Optional[str] = None
    origin: Optional[Span] = None
    via: Optional[str] = None
    from_default: bool = False  # reached through a parameter's default value


class GuardKind(str, Enum):
    """Where a usage sits relative to an ``if`` that tests for CUDA (``resolve/guards.py``)."""

    #: the body of ``if device.type == "cuda":`` (or ``x.is_cuda``) that has an ``elif``/``else``: on another
    #: device the body is skipped and the other branch runs
    OTHER_BRANCH = "other-branch"
    #: the body of ``if torch.cuda.is_available():``, or of a device-type test with no other branch: the test
    #: decides what runs on the target, so its finding is the cause and the body's findings its sites
    DECIDED_BY_TEST = "decided-by-test"
    #: the test itself, of an ``if`` with another branch (``elif device.type == "npu":``, ``else:``)
    TEST = "test"


@dataclass(frozen=True)
class CudaGuard:
    kind: GuardKind
    span: "Span"  # the test
    #: the configuration key the test compares (``if cfg.device == "cuda":``: ``device``): the value is chosen
    #: outside the code, so whether the branch runs on a target is the configuration's (``project/configs``)
    key: Optional[str] = None


@dataclass(frozen=True)
class Argument:
    keyword: Optional[str]
    value: Value


@dataclass(frozen=True)
class Usage:
    """One use of a torch / CUDA-related API found in a source file (after name resolution), or of a CUDA name
    in a script, a Dockerfile, a requirements file or a kernel source; ``kind`` says how it is written
    (``UsageKind``)."""

    api: str
    kind: UsageKind
    span: Span
    snippet: str
    confidence: Confidence = Confidence.RESOLVED
    args: Tuple[Argument, ...] = ()
    context: Optional[str] = None
    scope: str = "<module>"
    guarded: bool = False  # inside ``try: ... except ImportError``
    #: inside the body of an ``if`` that tests for CUDA (the innermost), or in such a test (``GuardKind.TEST``)
    cuda_guard: Optional[CudaGuard] = None
    #: a literal's neighbours that name other devices: the other items of its set, list, tuple or dict keys
    #: (``{"cuda": "nccl", "npu": "hccl"}``), or the strings of the test that chooses it
    #: (``t if t in {"npu", "xpu"} else "cuda"``): code that already dispatches per device
    siblings: Tuple[str, ...] = ()
    #: inside ``with torch.no_grad():`` / ``torch.inference_mode()`` or a function decorated so: no backward
    no_grad: bool = False
    #: the configuration key a literal is compared with or is the default of (``cfg.dist.backend == "nccl"``:
    #: ``dist.backend``; ``add_argument("--device", default="cuda")``: ``device``); a configuration file's value:
    #: its dotted key. ``project/configs.with_config_roots`` joins the code's use to the file's line by it
    config_key: Optional[str] = None
    #: inside a branch of a test of the installed torch's version (``if _TORCH_GREATER_EQUAL_2_4: ... else:``)
    torch_gate: Optional["TorchGate"] = None
    #: a call made through a name bound to the API (``get_current_device = torch.cuda.current_device``, then
    #: ``get_current_device()``): where the name was bound, the one place a rename changes every such call
    through: Optional[Span] = None


@dataclass(frozen=True)
class TorchGate:
    """A branch that runs only where the installed torch is at least ``version`` (``at_least``), or below it:
    ``if _TORCH_GREATER_EQUAL_2_4: torch.amp.GradScaler(device) else: torch.cuda.amp.GradScaler()``."""

    version: Tuple[int, int]
    at_least: bool


@dataclass(frozen=True)
class Edit:
    """The exact source change behind a suggestion, for ``migrator fix`` to apply.

    kind:
      ``string``   a string literal whose value is ``old`` becomes ``new`` (quotes kept): ``'cuda:0'``
      ``fstring``  the literal text of an f-string: ``old`` replaced by ``new`` once (``f"cuda:{rank}"``)
      ``name``     a dotted name (the written form of API ``old``) becomes ``new``: ``torch.cuda.synchronize``
      ``method``   a method name: ``x.cuda()`` -> ``x.npu()``
      ``argument`` insert ``new`` as the first argument of the call: ``GradScaler()`` -> ``GradScaler('npu')``
      ``text``     plain text on the line (scripts, Dockerfiles, requirements): ``old`` -> ``new`` once
    ``at`` is where to apply it when that is not the finding itself (a constant the value came through).
    """

    kind: EditKind
    old: str
    new: str
    at: Optional[Span] = None


class LimitKind(str, Enum):
    """What a clause of a vendor's note is about (``maps/limits.py`` reads them)."""

    DTYPE = "dtype"  # dtypes it leaves out: bites when the project computes in one of them
    ARGUMENT = "argument"  # an argument's values: bites when the call passes it
    PRODUCT = "product"  # another card than the target's training cards
    BEHAVIOUR = "behaviour"  # runs on the host CPU, or for inference only: bites wherever used
    TEMPLATE = "template"  # the docs' lone "fp32 only" placeholder
    OTHER = "other"  # a shape or value condition no static scan can check


@dataclass(frozen=True)
class Limit:
    """One clause of a vendor's note on an API. ``dtypes``: the training dtypes it leaves out (``DTYPE``, or an
    ``ARGUMENT`` clause whose dtype list holds only when the argument is passed); ``arguments``: the arguments
    it is about (``ARGUMENT``); ``bites``: whether the call passes them, settled per call (``None`` until then)."""

    kind: LimitKind
    text: str
    dtypes: FrozenSet[str] = frozenset()
    arguments: Tuple[str, ...] = ()
    bites: Optional[bool] = None
    #: an ``ARGUMENT`` clause that bites: whether the call's own values meet its condition (a literal the
    #: clause leaves out, or an argument the clause says is not supported at all), not merely its presence
    certain: bool = False


@dataclass(frozen=True)
class DtypeChoice:
    """Where a project first says it computes in a 16-bit dtype (``project/dtypes.py``): the cause of every
    vendor note that leaves that dtype out and bites there."""

    dtype: str  # fp16 | bf16
    api: str  # what says so: torch.bfloat16, torch.Tensor.half, an autocast with no dtype, a framework import
    path: str
    span: Span
    snippet: str
    scope: str = "<module>"
    #: read off a framework's import (it may set either 16-bit dtype from its configuration), not off code that
    #: computes in the dtype: a vendor note on that dtype is then something to validate, not proof
    inferred: bool = False

    @property
    def where(self) -> str:
        """``torch.bfloat16 at evaluate.ipynb cell 3:12``"""
        cell = f" cell {self.span.cell}" if self.span.cell is not None else ""
        return f"{self.api} at {self.path}{cell}:{self.span.line}"


@dataclass(frozen=True)
class DtypeProfile:
    """The float dtypes a project computes in: fp32 always, fp16 / bf16 where its code says so."""

    dtypes: FrozenSet[str] = frozenset({"fp32"})
    #: why each 16-bit dtype is in: the place the project first says so, one per dtype (the cause a dtype
    #: bite is a site of)
    choices: Tuple[DtypeChoice, ...] = ()


@dataclass(frozen=True)
class Auto:
    """An exact rewrite ``migrator fix`` applies: it cannot change behaviour on the target."""

    suggestion: str
    edit: Edit


@dataclass(frozen=True)
class Unsafe:
    """An exact rewrite ``migrator fix`` applies only with ``--unsafe``: it may change behaviour on the target
    (a constant other code reads too, a name looked up elsewhere, an API that is not the renamed twin)."""

    suggestion: str
    edit: Edit
    #: a safe rewrite that ``fix`` holds back on this tree, and why (its group cannot change together, a guard's
    #: branches keep a call that does not run on the target: ``fix/settle.py``); ``None`` for the others
    held: Optional[str] = None


@dataclass(frozen=True)
class Manual:
    """A rewrite for a hand to make: ``suggestion`` says what to write, and ``fix`` leaves it alone."""

    suggestion: str


#: What can be done about a verdict, and by whom: a closed set (no rewrite is ``None``).
Fix = Union[Auto, Unsafe, Manual]


def fix_of(suggestion: Optional[str], edit: Optional[Edit] = None, safe: bool = False) -> Optional[Fix]:
    """A rule's rewrite as a ``Fix``: none without a suggestion, ``Manual`` without an exact edit, else ``Auto``
    when the edit is ``safe`` and ``Unsafe`` when it is not."""
    if suggestion is None:
        return None
    if edit is None:
        return Manual(suggestion)
    return Auto(suggestion, edit) if safe else Unsafe(suggestion, edit)


class Grade(Closed):
    """How strongly a piece of evidence speaks about this call on this target (``migrator/evidence.py``).

    Only ``proof`` and ``condition-met`` make a verdict something to act on; ``substitute`` and ``note`` make
    it something to validate on the card, ``gap`` a data gap."""

    PROOF = "proof"  # the target's own data: no kernel for this op, the API is absent or renamed, a run showed it
    CONDITION = "condition-met"  # a vendor note whose condition this call (its arguments, the project's dtypes) meets
    SUBSTITUTE = "substitute"  # data about another stack (Kunlun via Paddle's XPU kernels, not torch_xmlir's)
    NOTE = "note"  # an unconditional or untestable vendor line, or a pattern a run has not measured
    GAP = "gap"  # no data says


#: The grades that make a verdict active (on the worklist), strongest first.
ACTIVE_GRADES: Tuple[Grade, ...] = (Grade.PROOF, Grade.CONDITION)


@dataclass(frozen=True)
class Evidence:
    """One item a verdict rests on: how strong it is, where it comes from, what it says."""

    grade: Grade
    source: str
    quote: str


@dataclass(frozen=True)
class Verdict:
    status: Status
    message: str
    source: str
    fix: Optional[Fix] = None
    #: vendor notes still to settle against the call and the project (``maps/limits.settle``); empty in a report
    limits: Tuple[Limit, ...] = ()
    #: what the status rests on; filled by the rule where it knows, else by the judge (``evidence.judged``)
    evidence: Tuple[Evidence, ...] = ()
    #: the vendors' own words ``message`` carries verbatim (a note from an API list, a clause of one): the text
    #: view says each in English by its kind (``maps/limits.note_summary``) and quotes it with ``-v``
    quotes: Tuple[str, ...] = ()

    @property
    def suggestion(self) -> Optional[str]:
        """What to write instead, whoever writes it."""
        return self.fix.suggestion if self.fix is not None else None

    @property
    def fixable(self) -> bool:
        """Whether ``migrator fix`` applies the rewrite by default (the report's ``fixable``)."""
        return isinstance(self.fix, Auto)

    @property
    def edit(self) -> Optional[Edit]:
        """The exact source change, when there is one (``fix`` applies it: always, or with ``--unsafe``)."""
        return self.fix.edit if isinstance(self.fix, (Auto, Unsafe)) else None

    def held_back(self, by_fix: Optional[str] = None) -> "Verdict":
        """This verdict with an ``Auto`` rewrite made ``Unsafe`` (its rule knows a reason it may change
        behaviour here; ``by_fix``: ``fix`` itself would hold it back on this tree, for that reason)."""
        if isinstance(self.fix, Auto):
            return replace(self, fix=Unsafe(self.fix.suggestion, self.fix.edit, by_fix))
        return self


class Context(str, Enum):
    """What part of a project a finding sits in: only ``training`` counts in readiness and blockers."""

    TRAINING = "training"  # what a training run executes
    TEST = "test"  # test files and test-only helpers
    TOOLING = "tooling"  # packaging, benchmarks, export to other runtimes, CI and dev scripts


@dataclass(frozen=True)
class Finding:
    id: str
    rule: str
    category: Category
    path: str
    span: Span
    api: str
    snippet: str
    confidence: Confidence
    verdicts: Mapping[str, Verdict]
    ops: Tuple[str, ...] = ()
    scope: str = "<module>"
    reachable: Optional[bool] = None
    context: Context = Context.TRAINING
    #: the id of the finding at this one's cause (a device variable's binding): this one is a site of it
    root: Optional[str] = None
    #: where the value this finding judges was set, when it came through a name (``project/roots.py``)
    cause: Optional[Span] = None
    #: the repository module ``cause`` is in when that is another than the finding's (a constant imported from
    #: ``config.py``: ``from .parameters import DEVICE``); ``None``: the finding's own file
    cause_module: Optional[str] = None
    #: a ``tune`` finding's line as a traced run saw it (``scan --trace``)
    measured: Optional["StepMeasure"] = None
    #: the CUDA test (with no other branch) whose body this finding sits in: it runs only where that test holds
    guard: Optional[Span] = None
    #: the configuration key its value is read by or written at (``Usage.config_key``; not in the report)
    config_key: Optional[str] = None
    #: the verdicts before the guard analysis made them ``supported`` (a test on a configuration key, or what it
    #: decides): the configuration names the target's device once ported, and the branch is taken there
    unguarded: Optional[Mapping[str, "Verdict"]] = None
    #: a device's name in a test of the device (``device.startswith("cuda")``, ``x.device.type == "cuda"``):
    #: renamed, it changes which way the target takes (``project/roots.with_library_guard_roots``; not in the report)
    tests_device: bool = False


@dataclass(frozen=True)
class StepMeasure:
    """What a traced run showed at a ``tune`` finding's line: how often its ops ran per training step, how many
    distinct input shapes they saw (a new shape is a new compile on Ascend), and its device-to-host reads."""

    calls_per_step: float
    shapes: int
    host_transfers: int


#: A question a file's rules asked of the project index, and its answer: (attribute, question, key, answer),
#: e.g. ``("constants", "get", "pkg.cfg.DEVICE", (True, Value(...)))`` or
#: ``("extension_of", "call", "pkg._ext.fused", "pkg._ext")`` (``pipeline/reads.py``).
Read = Tuple[str, str, Any, Any]


@dataclass(frozen=True)
class RuleResults:
    """One file's findings, and what its rules read of the project index to make them: they stand for any
    index that answers those questions the same (``pipeline/reads.Answers.hold``)."""

    findings: Tuple[Finding, ...]
    reads: Tuple[Read, ...]
    #: a rule that raised on one of the file's usages: that rule's verdict is missing there, the rest stand
    errors: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Kernel:
    """A ``__global__`` function in a CUDA source."""

    name: str
    path: str
    line: int
    lines: int


@dataclass(frozen=True)
class Registration:
    """A C++ function exposed to Python: ``m.def`` in ``PYBIND11_MODULE`` or ``TORCH_LIBRARY``."""

    name: str
    kind: RegistrationKind
    path: str
    line: int
    namespace: Optional[str] = None  # TORCH_LIBRARY namespace / dispatch key for _impl
    signature: Optional[str] = None  # C++ signature of the bound function, or the schema


@dataclass(frozen=True)
class CudaFacts:
    """What the C++/CUDA reader found in one file."""

    kernels: Tuple[Kernel, ...] = ()
    registrations: Tuple[Registration, ...] = ()
    launches: int = 0
    cuda_includes: Tuple[str, ...] = ()
    includes: Tuple[str, ...] = ()  # every #include "..." (project headers)
    code_lines: int = 0
    pybind_module: Optional[str] = None


@dataclass(frozen=True)
class ExtensionBuild:
    """An extension declared in Python: ``CUDAExtension(...)``, ``load(...)``, ``load_inline(...)``."""

    name: str
    api: str
    path: str
    span: Span
    sources: Tuple[str, ...]
    #: built at run time under a ``try`` whose handler goes on (cogdl's ``except Exception: csrspmm = None``,
    #: peft's BOFT): where the build fails, as on a target's machine, the code goes on without it
    optional: bool = False


@dataclass(frozen=True)
class PythonFacts:
    """Per-module facts that later, cross-file stages need."""

    module: str
    constants: Mapping[str, Value] = field(default_factory=dict)
    triton_kernels: Tuple[str, ...] = ()
    imports_torch: bool = False
    #: of ``triton_kernels``, those decorated through a name another module binds: (kernel, that name qualified)
    kernel_sources: Tuple[Tuple[str, str], ...] = ()
    #: the module-level names an import under ``try`` binds, qualified (``pkg._triton.triton``)
    optional_imports: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Definition:
    """A function, method or class of a module; ``name`` is qualified within the module (``Trainer.step``)."""

    name: str
    kind: DefinitionKind
    line: int
    bases: Tuple[str, ...] = ()  # classes: absolute dotted names of the bases, where the imports say
    #: functions: the line of the CUDA test that decides what it returns (``return HAVE_TRITON and
    #: torch.cuda.is_available()``; ``if not torch.cuda.is_available(): return False``), 0 for none: a predicate
    #: its callers' ``if`` asks CUDA through
    cuda_answer: int = 0


@dataclass(frozen=True)
class NamedTarget:
    """A call of an absolute dotted name: ``pkg.mod.f``, ``pkg.mod.Cls`` (a construction), ``Fn.apply``."""

    name: str


@dataclass(frozen=True)
class InstanceCall:
    """Calling an instance made by ``constructor`` (``net = Net(); net(x)``): its ``forward`` / ``__call__``."""

    constructor: str


@dataclass(frozen=True)
class SelfMethod:
    """``self.name(...)`` inside class ``cls`` (qualified): the method through bases, and its overrides."""

    cls: str
    name: str


@dataclass(frozen=True)
class SuperMethod:
    """``super().name(...)`` inside class ``cls``: the first base that defines ``name``."""

    cls: str
    name: str


@dataclass(frozen=True)
class AttributeMethod:
    """``self.attr.name(...)`` inside class ``cls``: ``name`` on the class ``self.attr`` was built from."""

    cls: str
    attr: str
    name: str


@dataclass(frozen=True)
class UnknownReceiver:
    """``x.name(...)`` on a receiver of unknown type: joined by method name to the repo's methods."""

    name: str


#: What a call in an outline names; ``graph/`` turns each kind into graph nodes in its own way.
CallTarget = Union[NamedTarget, InstanceCall, SelfMethod, SuperMethod, AttributeMethod, UnknownReceiver]


@dataclass(frozen=True)
class Call:
    """A call (or a reference that will be called) made from ``scope`` of a module."""

    scope: str  # "<module>", "<main>", a qualified definition name, or "@name" for a decorator root
    target: CallTarget
    #: the line of the CUDA test whose branch the call is made in (``if torch.cuda.is_available():``,
    #: ``if x.is_cuda:``, the code after ``if not torch.cuda.is_available(): return``; the innermost), 0 for none
    cuda_test: int = 0
    #: the repository function whose call is the test of the innermost branch the call is made in (``if
    #: fused_available():``), and that test's line: a CUDA test where the function answers CUDA
    #: (``Definition.cuda_answer``, read across files by the graph)
    predicate: str = ""
    predicate_line: int = 0


@dataclass(frozen=True)
class ModuleNames:
    """What a module binds at its top level and imports there, for ``project/unimportable.py`` (read as the file
    is outlined, kept with its cached result: the cross-file stage parses nothing)."""

    bound: Tuple[str, ...] = ()  # every name its top level binds, in any block there, or by ``global`` in a function
    exports: Optional[Tuple[str, ...]] = None  # ``__all__``, where written as a list of strings and never changed
    stars: Tuple[str, ...] = ()  # the modules it star-imports at its top level (absolute)
    #: its unguarded top-level imports: (module, the names taken from it; none for ``import module``), absolute
    imports: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    #: whether it may make names its text does not show (a module ``__getattr__``, ``sys.modules``, ``globals()``,
    #: ``locals()``, ``vars()``, ``setattr``, ``exec``, ``__path__``, a lazy module)
    dynamic: bool = False


@dataclass(frozen=True)
class Outline:
    """The call-graph facts of one Python module (``sources/outline.py``)."""

    module: str
    imports: Tuple[str, ...] = ()
    #: module-level names bound by imports: ("TinyGPT", "model.transformer.TinyGPT")
    bindings: Tuple[Tuple[str, str], ...] = ()
    definitions: Tuple[Definition, ...] = ()
    calls: Tuple[Call, ...] = ()
    attributes: Tuple[Tuple[str, str], ...] = ()  # ("Cls.attr", constructor) from ``self.attr = Ctor(...)``
    main_lines: Optional[Tuple[int, int]] = None  # the ``if __name__ == "__main__":`` block
    #: of ``imports``, those only made where a library is installed (under ``try/except ImportError`` with a
    #: fallback, or ``if is_x_available():``): a module the project imports only so is optional
    optional_imports: Tuple[str, ...] = ()
    #: of ``imports``, those made only in a CUDA tensor's branch (``if x.is_cuda: from .triton_ops import ...``):
    #: never where the target's tensors are not CUDA's
    cuda_branch_imports: Tuple[str, ...] = ()
    #: whether the module loads modules by a computed name where a library may be missing (``importlib.import_module(
    #: f".{name}", package)`` under ``try/except ImportError`` with a way on: spikingjelly's provider selection)
    loads_optionally_by_name: bool = False
    #: whether the module loads a compiled op library (``torch.ops.load_library(path)``) where it may be missing
    #: (under ``try`` with a handler that goes on: torchani's ``csrc/__init__.py``), and whether unconditionally
    loads_ops_optionally: bool = False
    loads_ops: bool = False
    #: whether the module loads its package's modules by a name computed at run time, unconditionally
    #: (``importlib.import_module(".%s" % name, __name__)``: deepxde's backend loader): it reaches each of them
    loads_submodules: bool = False
    #: whether its top level imports relatively (``from . import upfirdn2d_ext``): it runs as part of its package
    #: only (run by its path, Python has no package to import from), never as a script
    imports_relatively: bool = False
    #: the lines of each block a profiling switch decides (``if args.prof >= 0:``, ``if self.profiler is not
    #: None:``: opt-in timing and NVTX ranges) or that loads an inference engine (``if trt_file is not None:
    #: from torch2trt import TRTModule``): opt-in tooling, not the run
    opt_in_lines: Tuple[Tuple[int, int], ...] = ()
    #: the lines of each block that ends in ``raise NotImplementedError`` (moco-v3's ``elif args.gpu is not None:
    #: torch.cuda.set_device(args.gpu); ...; raise NotImplementedError("Only DistributedDataParallel is
    #: supported.")``): what runs there ends in the raise, in no run that trains
    dead_end_lines: Tuple[Tuple[int, int], ...] = ()
    #: the folders the module puts on ``sys.path``, relative to its own folder (RAFT's ``train.py``:
    #: ``sys.path.append('core')`` before ``from raft import RAFT``, a module of ``core/``)
    path_folders: Tuple[str, ...] = ()
    names: ModuleNames = ModuleNames()
    shape: str = ""  # a digest of all of it but the line numbers: what the call graph reads (``outline_shape``)


class TuneKind(str, Enum):
    """What a tuning site in a module's text is (``sources/step.py``); the rest come from usages."""

    MASK_INDEX = "mask-index"  # ``x[mask]`` read with a boolean mask: its shape depends on the data
    TENSOR_BRANCH = "tensor-branch"  # ``if (x > 0).any():``: Python control flow on a tensor's value
    TENSOR_PRINT = "tensor-print"  # ``print(loss)``, ``writer.add_scalar("loss", loss)``: a tensor to the host
    PARAMETER_LOOP = "parameter-loop"  # ``for p in model.parameters(): p.mul_(d)``: one launch per parameter


@dataclass(frozen=True)
class TuneSite:
    """A tuning site read from a module's syntax (not a usage of an API): where and what."""

    kind: TuneKind
    scope: str
    span: Span
    snippet: str
    detail: str = ""  # the mask, the test, the tensor printed, the parameters looped over


@dataclass(frozen=True)
class TrainingLoop:
    """A loop that runs a training step each time round: it calls ``backward`` (``loss.backward()``,
    ``scaler.scale(loss).backward()``, ``optimizer.backward(loss)``) in its body."""

    scope: str  # the function it is in, qualified as usages' scopes are ("<module>" at the top level)
    span: Span
    #: the last name of everything its body calls (``train_one_epoch``, ``run_step``, ``step``): the functions
    #: of the repository it runs each step are those of the scope's callees with one of these names
    calls: Tuple[str, ...] = ()


@dataclass(frozen=True)
class StepFacts:
    """What one module says about a training step (``sources/step.py``)."""

    loops: Tuple[TrainingLoop, ...] = ()
    #: functions that call ``backward`` outside any loop of their own (detectron2's ``run_step``, fairseq's
    #: ``train_step``, Lightning's ``training_step``): each call of one is a step
    steps: Tuple[str, ...] = ()
    sites: Tuple[TuneSite, ...] = ()
    #: bodies of ``if step % N == 0:``: what runs there runs once every N calls
    periodic: Tuple[Span, ...] = ()
    #: branches that run only in eval mode (``if not self.training:``, the ``else`` of ``if self.training:``)
    inference: Tuple[Span, ...] = ()
    #: per scope, the names it calls only in one of those branches (``self.box_predictor.inference``,
    #: ``self.visualize_training``): what the step does not run each time
    rare_calls: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    #: functions that return a data-dependent shape (detectron2's ``nonzero_tuple``): each call of one on the
    #: step is a data-dependent shape where it is called
    shape_helpers: Tuple[str, ...] = ()
    #: whether the module says anything that puts a tensor on an accelerator (``sources/step.moves_to_a_device``):
    #: a training loop in one that does not runs on the host, where reading a value back waits for nothing
    on_device: bool = True


@dataclass(frozen=True)
class ConfigName:
    """A configuration file (or, ``folder``, a folder of them: Hydra's ``config_path``) a file names, as written,
    with the line that names it."""

    text: str
    line: int
    folder: bool = False


@dataclass(frozen=True)
class ConfigRefs:
    """What a file says about configuration files (``sources/config.py``): the names it hands on (a string
    literal ``"ds_config.json"``, a launch's ``--config_file accelerate.yaml``, Hydra's ``config_path``), and the
    frameworks it imports or launches, which read configuration files of their own (``.deepspeed_env``)."""

    names: Tuple[ConfigName, ...] = ()
    frameworks: Tuple[str, ...] = ()


@dataclass(frozen=True)
class FileResult:
    """The per-file outcome: status, and the facts or findings of that file's own kind."""

    file: SourceFile
    status: FileStatus
    reason: Optional[str] = None
    #: every use the resolver recorded (from the cache: a sequence that loads on first use)
    usages: Sequence[Usage] = ()
    python: Optional[PythonFacts] = None
    cuda: Optional[CudaFacts] = None
    outline: Optional[Outline] = None
    #: a Python file whose text names nothing a rule looks for, so it was not resolved (``analyze.RELEVANT``);
    #: ``analyze.resolve_mentioning`` resolves it after all when the project's own extensions are named in it
    prefiltered: bool = False
    #: the file's text holds a ``# migrator:`` comment: the scan reads its suppressions (``pipeline/suppress.py``)
    marked: bool = False
    #: what a Python module says about a training step: its loops, its step functions, its tuning sites
    step: Optional[StepFacts] = None
    #: the configuration files the file names, and the frameworks that read their own (``sources/config.py``)
    config_refs: Optional["ConfigRefs"] = None
    #: the few of ``usages`` the cross-file stages read, kept apart when the result comes from the cache (where
    #: ``usages`` loads only on first use: ``engine/cache.LazyUsages``); ``None``: they read ``usages`` itself
    shared_usages: Optional[Tuple[Usage, ...]] = field(default=None, compare=False)


@dataclass(frozen=True)
class CustomOp:
    """One custom operator extension: its build, kernels, registrations, wrappers and Python call sites."""

    name: str
    build: Optional[ExtensionBuild]
    files: Tuple[str, ...]
    kernels: Tuple[Kernel, ...]
    registrations: Tuple[Registration, ...]
    wrappers: Tuple[str, ...]
    call_sites: Tuple[Tuple[str, int], ...]
    kernel_lines: int
    #: whether any of its files holds CUDA code (kernels, launches, CUDA headers, .cu files); a host C++
    #: extension without any builds and runs on the host of the target as it does here
    cuda_code: bool = True
    #: (target, line) of the target runtime's own extension builder called in the same build file
    #: (``NpuExtension`` beside ``CUDAExtension`` in mmcv's setup.py): the project builds it for that target
    vendor_builds: Tuple[Tuple[str, int], ...] = ()


@dataclass(frozen=True)
class OpRoute:
    """One way to replace part of a custom op on a target: the vendor's call, or a plain-PyTorch fallback."""

    level: str  # "vendor" | "pytorch"
    family: str
    what: str
    covers: Tuple[str, ...]  # the op's functions (registrations / kernels) it replaces
    call: Optional[str]  # the vendor's call (level vendor)
    mapping: Optional[str]
    differs: Optional[str]
    code: Optional[str]  # PyTorch code to paste
    note: Optional[str]  # what the fallback costs
    source: str


@dataclass(frozen=True)
class PortPlan:
    """What porting the rest of a custom op to a target takes."""

    language: str
    kernels: Tuple[Kernel, ...]
    kernel_lines: int
    registration: str  # TORCH_LIBRARY / TORCH_LIBRARY_IMPL skeleton from the parsed C++ signatures
    build: str
    days: float
    hints: Tuple[str, ...] = ()


@dataclass(frozen=True)
class OpPlan:
    """A custom op on one target: ``rewrite`` when every function has a route, else ``port``; ``fallback`` for a
    host C++ extension with no CUDA code (built as a CppExtension, run on the host CPU); ``partial`` when the
    project builds it for the target with the target's own builder (mmcv's ``NpuExtension``)."""

    op: str
    target: str
    status: Status
    summary: str
    routes: Tuple[OpRoute, ...]
    port: Optional[PortPlan]
    uncovered: Tuple[str, ...] = ()


@dataclass(frozen=True)
class EntryPoint:
    """Where a run starts, and why (``EntryKind``)."""

    node: str
    kind: EntryKind
    path: str
    line: int


@dataclass(frozen=True)
class NodeReach:
    """How a call-graph node is reached: by how many entry points, over how many call paths, and one path."""

    node: str
    entries: int
    paths: int
    path: Tuple[str, ...]  # entry point first
    kind: NodeKind = NodeKind.UNPLACED


@dataclass(frozen=True)
class GraphSnapshot:
    """A call graph and what its entry points reach, as the cache keeps them (``graph/saved.py``): plain
    columns, so that loading one builds no object of a library's choosing, and taking one copies no string.
    Node ``i`` is ``nodes[i]`` with its kind, path and line; edge ``i`` goes from ``sources[i]`` to
    ``targets[i]``, in the order the build added the edges."""

    nodes: Tuple[str, ...]
    node_kinds: Tuple[NodeKind, ...]
    node_paths: Tuple[str, ...]
    node_lines: Tuple[int, ...]
    sources: Tuple[str, ...]
    targets: Tuple[str, ...]
    edge_kinds: Tuple[str, ...]
    entries: Tuple[EntryPoint, ...]
    unresolved_entries: Tuple[str, ...]
    reached: Tuple[Tuple[str, int, int, Tuple[str, ...], NodeKind], ...]  # ``NodeReach`` fields (loads 10x faster)
    #: edge ``i``'s ``cuda_test`` (``GraphIndex.add_edge``; 0: none)
    edge_cuda_tests: Tuple[int, ...] = ()
    #: the functions that answer CUDA for their callers (``ProjectGraph.predicates``)
    predicates: Tuple[str, ...] = ()


@dataclass(frozen=True)
class GraphSummary:
    nodes: int
    edges: int
    entries: Tuple[EntryPoint, ...]
    reached: int
    reach: Mapping[str, NodeReach]  # for the nodes that hold findings
    finding_nodes: Mapping[str, str]  # finding id -> node
    picture: Tuple[Tuple[Tuple[str, str, int, bool], ...], Tuple[Tuple[str, str], ...]] = ((), ())
    unresolved_entries: Tuple[str, ...] = ()  # --entry specs that named nothing


@dataclass(frozen=True)
class Blocker:
    """Findings that block one target, grouped (a custom op, or one API under one rule), with how they are reached."""

    key: str
    title: str
    status: Status
    findings: Tuple[str, ...]  # finding ids
    entries: int  # entry points that reach it
    paths: int  # call paths from the entry points (capped)
    path: Tuple[str, ...]  # one shortest call path, entry point first
    hours: float
    reachable: Optional[bool]
    path_of_first: str
    line_of_first: Optional[int]
    message: str
    suggestion: Optional[str] = None
    fixable: bool = False
    call_paths: Tuple[Tuple[str, ...], ...] = ()  # up to three shortest paths, from different entry points


@dataclass(frozen=True)
class TargetSummary:
    id: str
    runtime: str
    version: str
    sources: Tuple[str, ...]
    #: ``None`` when the data judges nothing in training code at its cause (an empty or torch-free project)
    readiness: Optional[float]
    counts: Mapping[str, int]
    effort: Mapping[str, Any]
    blockers: Tuple[Blocker, ...] = ()
    import_first: Optional[str] = None  # the plugin import the target needs (``import torch_npu``)
    #: counted findings whose evidence on this target does not bite (substitute data, notes): to validate on
    #: the card, apart from ``counts`` (whose ``unknown`` are the data gaps)
    to_validate: int = 0
    #: the files that already choose this target's device themselves (a table or a test that names it beside
    #: CUDA's): the project dispatches per device there, and its CUDA branches are left as they are
    selects_itself: Tuple[str, ...] = ()
    #: the target's op data is another stack's (Kunlun judged through Paddle's XPU kernel list)
    substitute: bool = False


@dataclass(frozen=True)
class PhaseStep:
    """One phase of a target's plan as the headline and the page's chart say it."""

    number: int
    title: str
    hours: float
    cumulative_hours: float  # this phase and those before it
    readiness_after: Optional[float]


@dataclass(frozen=True)
class TargetTally:
    """One target's numbers, counted once (``vocabulary.py``): every view says these and recounts nothing.
    Uses are training code at its cause (``assess.counted``), the uses that run as written among them."""

    id: str
    readiness: Optional[float]  # ``None``: nothing the data judges
    readiness_after_fix: Optional[float]
    hours: float
    days: float
    #: the effort bucket with the most hours, its hours and its share of ``hours`` (``None`` with no effort)
    dominant: Optional[str]
    dominant_hours: float
    dominant_share: float
    work_on_path: int  # findings whose evidence bites (proof, a condition met): on the training path
    work_off_path: int
    to_validate: int  # substitute data or an unconditional note: try it on the card
    data_gaps: int  # the data cannot say
    runs: int  # runs as written on this target (the uses every target runs among them)
    certain: int  # uses judged on the target's own data or on a condition the call meets (not a note, not a gap)
    substitute: int  # uses judged on another stack's data (supported or not)
    uncertain_share: float  # (data gaps + substitute) / every use judged on this target
    blockers_on_path: int
    blockers_off_path: int
    ports_on_path: int  # port blockers: one custom operator, one CUDA library, one module of triton kernels
    ports_off_path: int
    unsupported_on_path: int
    unsupported_off_path: int
    automatic: int  # findings on the path `migrator fix` applies
    manual: int  # other rewrites on the path
    #: readiness once the plan's phases before the ports are done, and their hours (its share of ``hours``)
    readiness_before_ports: Optional[float] = None
    hours_before_ports: float = 0.0
    phases: Tuple[PhaseStep, ...] = ()
    #: uses that need no change while an entry point imports the vendor's runtime patcher (``shim.through_shim``)
    through_shim: int = 0


@dataclass(frozen=True)
class Tally:
    """The report's shared numbers (``vocabulary.py``), computed once in the flow and carried on the
    ``Report``: the text, the page, the JSON (``summary``) and SARIF read them."""

    project: str  # the repository's name (the scanned folder's, resolved)
    files_scanned: int
    findings: int  # the worklist, without the tuning points
    at_cause: int  # of those: training code at its cause (what readiness, effort and blockers count)
    on_path: int  # of ``at_cause``: on the training path (reached, or every one when reach is not judged)
    off_path: int
    #: uses in training code at their cause apart from the worklist (their evidence bites on no target): to
    #: validate on the card (substitute data or notes on some target), data gaps (no target's data can say)
    to_validate: int
    data_gaps: int
    runs_as_written: int  # uses in training code at their cause every target runs as written
    tuning: int  # tuning points on the training step (never in readiness)
    left_out_tests: int
    left_out_tooling: int
    left_out_sites: int  # uses of a cause reported at another finding
    reachability_judged: bool
    targets: Tuple[TargetTally, ...]
    closest: Optional[str]  # the target id, ``None`` when nothing is assessed
    closest_why: str


@dataclass(frozen=True)
class TraceSummary:
    """What ``scan --trace`` merged: the traced command and what it confirmed or added."""

    path: str
    command: Tuple[str, ...]
    device: str
    stopped: str
    steps: int
    ops: int  # distinct aten ops the run dispatched
    calls: int
    confirmed: int  # static findings the run showed (their ops ran at their line, or a redirect happened there)
    runtime_only: int  # findings added for ops seen only at run time
    dtype_findings: int
    not_redirected: Tuple[str, ...] = ()  # compiled extensions and what stood in for them
    confirmed_by_redirects: int = 0  # of ``confirmed``: shown by the redirect log alone (a rewrite the run made)
    #: host work: the aten ops that ran under the scanned root other than on the device in the training step (a
    #: DataLoader's, a CPU-only script's, an optimizer's CPU step counters), and their calls; never findings
    host_ops: Tuple[str, ...] = ()
    host_calls: int = 0
    device_calls: int = 0  # calls under the scanned root on the device in the training step: the evidence


@dataclass(frozen=True)
class CoveredApi:
    """An API every target runs as written, and the project's uses of it (``project/coverage.py``)."""

    api: str
    rule: str
    category: Category
    uses: int
    counted: int  # uses in training code at their cause: what readiness counts
    sources: Tuple[Tuple[str, str], ...]  # (target, the data that says it runs)
    sites: Tuple[Finding, ...]


#: The migration plan's phases (``plan.py``): number, title, what is done in it.
PLAN_PHASES: Tuple[Tuple[int, str, str], ...] = (
    (1, "Apply `migrator fix`", "safe, mechanical rewrites: review the diff and commit"),
    (2, "Manual rewrites on the training path", "device, AMP and distributed code a person changes, "
                                                  "the most-reached first"),
    (3, "Validate fallbacks and partial ops", "ops that run on the host CPU, have documented limits or that the "
                                              "data cannot judge: compare outputs and speed on the device"),
    (4, "Port custom operators and libraries", "custom CUDA operators, CUDA-only libraries, triton kernels and "
                                               "unsupported APIs"),
)
#: The phase after "it runs", over the ``tune`` findings (not counted in readiness or effort).
TUNE_PHASE = (5, "Tune the training step", "what runs but stalls the device each step, module by module, core "
                                           "modules first: measure each on the device (not in readiness or effort)")


@dataclass(frozen=True)
class PlanItem:
    """One item of a plan's phase (``plan.py``): a blocker, an API to validate, a module to tune."""

    key: str
    title: str
    status: Status
    findings: int
    entries: int
    hours: float
    where: str
    message: str


@dataclass(frozen=True)
class Phase:
    number: int
    title: str
    what: str
    items: Tuple[PlanItem, ...]
    findings: Tuple[str, ...]
    hours: float
    readiness_after: Optional[float]  # ``None`` when the target has nothing to assess


@dataclass(frozen=True)
class ShimPlan:
    """A target's shim step (``shim.py``): the lines to add, and the findings it covers, covers where a value
    reaches a patched call, and leaves for a hand edit (with why, most common first)."""

    target: str
    imports: Tuple[str, ...]
    source: str
    covered: Tuple[str, ...]
    if_passed: Tuple[str, ...]
    not_covered: Tuple[str, ...]
    reasons: Tuple[Tuple[str, int], ...]  # why not covered -> how many findings
    #: swapped to a twin the vendor notes behaves otherwise here (``ShimCover.DIFFERS``): the first to read
    differs: Tuple[str, ...] = ()


@dataclass(frozen=True)
class MigrationPlan:
    """A target's migration plan, phase by phase (``plan.py``)."""

    target: str
    readiness_now: Optional[float]  # ``None``: nothing the data judges (``TargetSummary.readiness``)
    readiness_after_fix: Optional[float]
    phases: Tuple[Phase, ...]
    #: the vendor's runtime patcher as a day-one step (``fix --shim``): what it covers of the findings
    shim: Optional[ShimPlan] = None


@dataclass(frozen=True)
class TuneModule:
    """A file of the training step with its ``tune`` findings, in the one order the plan, the page and the text
    list them (``plan.tune_modules``)."""

    path: str
    findings: Tuple[Finding, ...]


@dataclass(frozen=True)
class RuleHelp:
    """A rule's documentation as SARIF's rule descriptors say it (``rules/docs.py``)."""

    name: str
    summary: str  # one line: the rule's summary, else its doc's title
    what: str  # "What it does", on one line
    text: str
    markdown: str
    category: Category


@dataclass(frozen=True)
class Report:
    root: str
    tool_version: str
    targets: Tuple[TargetSummary, ...]
    files: Tuple[FileResult, ...]
    #: what an engineer acts on: usages that are not ``supported`` on every target, and causes others point at
    findings: Tuple[Finding, ...]
    custom_ops: Tuple[CustomOp, ...]
    graph: Optional[GraphSummary] = None
    op_plans: Tuple[OpPlan, ...] = ()
    trace: Optional[TraceSummary] = None
    #: usages that run as written on every target (``project/coverage.py``): counted in readiness, not findings
    covered: Tuple[Finding, ...] = ()
    #: a rule over the whole project that raised (a bug in migrator): its findings are missing, the rest stand
    rule_errors: Tuple[str, ...] = ()
    #: usages whose only evidence does not bite (substitute data, unconditional notes, unmeasured step patterns,
    #: no data): to validate on the card, or data gaps (``evidence.py``); never on the worklist
    validate: Tuple[Finding, ...] = ()
    #: the shared numbers, counted once by the flow (``vocabulary.py``); ``None`` on a report made by hand
    tally: Optional[Tally] = None
    #: What the flow derives once from the above for every view to say (``pipeline/finish.py``; empty, and
    #: ``tally`` ``None``, on a report made by hand until ``finish`` is run on it): the plan per target (in
    #: ``targets``' order), the covered uses, those to validate and the data gaps per API, the training step's
    #: files to tune, the worklist in training code at its cause (``assess.counted``), each vendor note said in
    #: English by its kind (``maps/limits.note_summary``), the rules' documentation (SARIF's descriptors) and the
    #: folder the paths are relative to.
    plans: Tuple[MigrationPlan, ...] = ()
    coverage: Tuple[CoveredApi, ...] = ()
    validate_by_api: Tuple[CoveredApi, ...] = ()
    gaps_by_api: Tuple[CoveredApi, ...] = ()
    tuning: Tuple[TuneModule, ...] = ()
    at_cause: Tuple[Finding, ...] = ()
    notes_said: Mapping[str, str] = field(default_factory=dict)
    rules: Tuple[RuleHelp, ...] = ()
    #: the folder every path of the report is relative to (``discover.base_dir`` of ``root``): the page reads
    #: its source context there
    base: str = ""

    @property
    def judged(self) -> Tuple[Finding, ...]:
        """Every usage with a verdict: the findings, those to validate and the covered usages (what readiness
        counts)."""
        return self.findings + self.validate + self.covered
