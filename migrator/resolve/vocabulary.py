"""What the rules need the resolver to notice, declared by the rules themselves.

The resolver knows Python (scopes, values, receivers); it does not know CUDA. Each rule that reads
something the resolver would otherwise drop says so in its ``vocabulary`` (``rules/base.Rule``): the device
rule declares that ``"cuda:0"`` literals are usages, the collective rule that ``init_process_group`` keeps
its arguments' text, the environment rule which variables count. ``rules.VOCABULARY`` is their union and
is what ``analyze`` hands to ``resolve_module``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Dict, FrozenSet, Iterable, Pattern, Tuple


@dataclass(frozen=True)
class LiteralRole:
    """String literals matching ``pattern`` are recorded as ``literal`` usages of ``api``, or, with no ``api``, of
    the API their text names (``'torch.cuda.FloatTensor'``)."""

    api: str
    pattern: Pattern[str]
    fstrings: bool = True  # whether an f-string's text (``f"cuda:{rank}"``) may match too

    def matches(self, text: str, is_fstring: bool) -> bool:
        return (self.fstrings or not is_fstring) and bool(self.pattern.match(text))


@dataclass(frozen=True)
class Vocabulary:
    text_arguments: FrozenSet[str] = frozenset()  # calls whose unmodelled arguments keep their source text
    module_loaders: FrozenSet[str] = frozenset()  # calls returning a compiled module named by ``name=``
    library_roots: FrozenSet[str] = frozenset()  # third-party roots whose calls are never module loaders
    methods: FrozenSet[str] = frozenset()  # methods recorded on any receiver, besides the maps' tensor methods
    #: ``Class.method`` calls recorded on an object built by ``Class(...)``: ``lib.impl(...)`` after
    #: ``lib = torch.library.Library(...)`` is a call of ``torch.library.Library.impl``
    instance_methods: FrozenSet[str] = frozenset()
    #: classes whose subclass's ``super().__init__(...)`` is recorded as a call of the class itself (Lightning's
    #: ``Trainer``, subclassed to add defaults: ``class TUTrainer(Trainer)``)
    inherited_calls: FrozenSet[str] = frozenset()
    #: torch classes whose subclass is a use of the class itself (yolact's ``class CustomDataParallel(nn.
    #: DataParallel)``): a ``subclass`` usage, as a third-party base's is
    subclassed: FrozenSet[str] = frozenset()
    tensor_attributes: FrozenSet[str] = frozenset()  # attributes recorded on a receiver that may be a tensor
    kernel_decorators: FrozenSet[str] = frozenset()  # decorators that make a function a device kernel
    environment_readers: FrozenSet[str] = frozenset()  # ``os.getenv`` ...: an ``env-read`` usage
    environment_writers: FrozenSet[str] = frozenset()  # ``os.putenv`` ...: an ``env`` usage
    environment_prefixes: Tuple[str, ...] = ()  # variables worth a usage: ``CUDA_``, ``NCCL_`` ...
    #: calls that run a command (``subprocess.run``, ``os.system``): a ``command`` usage when it runs one of
    #: ``command_tools`` (``subprocess.run(["nvidia-smi", "-L"])``)
    process_launchers: FrozenSet[str] = frozenset()
    command_tools: FrozenSet[str] = frozenset()
    literals: Tuple[LiteralRole, ...] = ()

    def literal_api(self, text: str, is_fstring: bool) -> str:
        """The API a literal's text stands for (``torch.device`` for ``"cuda:0"``), or ``""``."""
        return next((role.api or text for role in self.literals if role.matches(text, is_fstring)), "")

    def names_an_api(self, text: str) -> bool:
        """Whether a string's text is itself the name of an API a rule judges (``'torch.cuda.FloatTensor'``)."""
        return any(not role.api and role.matches(text, False) for role in self.literals)

    def watches_variable(self, name: str) -> bool:
        return name.startswith(self.environment_prefixes)

    @staticmethod
    def union(parts: Iterable["Vocabulary"]) -> "Vocabulary":
        """Every part's entries: sets are joined, sequences concatenated in order without repeats."""
        parts = tuple(parts)
        joined: Dict[str, Any] = {}
        for f in fields(Vocabulary):
            values = [getattr(p, f.name) for p in parts]
            joined[f.name] = frozenset().union(*values) if isinstance(f.default, frozenset) \
                else tuple(dict.fromkeys(x for value in values for x in value))
        return Vocabulary(**joined)
