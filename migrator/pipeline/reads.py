"""What a file's rules read of the project index, so that their findings are reused for as long as it holds.

A file's findings depend on its own usages, the targets, and a few cross-file facts (``ProjectIndex``): a
constant another module defines, whether a name is one of the repo's extensions or modules, a TORCH_LIBRARY
namespace, a triton kernel. The rules read those through ``recording(index)``, which notes each question
and its answer. The findings then stand for any index that answers the same (``Answers.hold``), which gives
two things:

* after an edit that changes the index (a constant added in one module), the other files' cached findings
  are kept: only a file whose own questions get a new answer runs its rules again (a digest of the whole
  index, the key before, sent every file's rules again);
* in a cold scan, the pool worker that analyses a file runs its rules too, before the index exists, on
  what is known of it then (the repository's modules, from the file names): checked once the index is
  built, almost every file's findings stand, and the rules' time is spent beside the other worker instead
  of after the pool.

A question is about one collection (membership, lookup, size, the whole of it) or is one of the index's
query methods asked as a whole (``extension_of``, ``is_repo_module``). Anything else raises
``AttributeError``: a rule cannot read past the record.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence, Tuple

from ..model import Read
from ..rules.base import ProjectIndex

_ABSENT = object()


def recording(index: ProjectIndex) -> Tuple[ProjectIndex, "Answers"]:
    """``index`` behind a view that notes every question the rules ask of it, and the answers noted: each
    question once (the rules ask ``extension_of`` of every usage). ``Answers.reads`` are the rows a
    ``RuleResults`` keeps."""
    answers = Answers(index)
    return _RecordedIndex(answers), answers  # type: ignore[return-value]


class Answers:
    """An index's answers, each question asked once and noted: per file, what its rules asked (``recording``);
    per scan, the whole index's answers to every file's questions (``hold``: many files ask the same)."""

    __slots__ = ("index", "notes")

    def __init__(self, index: ProjectIndex) -> None:
        self.index = index
        self.notes: Dict[Tuple[str, str, Any], Any] = {}

    def ask(self, attribute: str, question: str, key: Any = None) -> Any:
        note = (attribute, question, key)
        answer = self.notes.get(note, _ABSENT)
        if answer is _ABSENT:
            answer = self.notes[note] = _answer(self.index, attribute, question, key)
        return answer

    def hold(self, reads: Sequence[Read]) -> bool:
        """True when this index answers every one of ``reads`` as the index they were noted on did."""
        return all(self.ask(attribute, question, key) == answer for attribute, question, key, answer in reads)

    @property
    def reads(self) -> Tuple[Read, ...]:
        return tuple((attribute, question, key, answer) for (attribute, question, key), answer in self.notes.items())


def _answer(index: ProjectIndex, attribute: str, question: str, key: Any) -> Any:
    """The one definition of each question: what the views note and what ``Answers.hold`` asks again.

    ``call``: a query method of the index (``extension_of``, ``is_repo_module``), asked as one question, so
    that its own shortcuts (no extension at all) do not become questions every file depends on. The others
    ask one collection: membership, lookup, size, or the whole of it.
    """
    if question == "call":
        return getattr(index, attribute)(key)
    collection = getattr(index, attribute)
    if question == "in":
        return key in collection
    if question == "get":
        value = collection.get(key, _ABSENT)
        return (False, None) if value is _ABSENT else (True, value)
    if question == "len":
        return len(collection)
    if question == "all":  # in the collection's order, which is the index build's: a new order is a new answer
        return tuple(collection.items()) if isinstance(collection, Mapping) else tuple(sorted(collection))
    raise ValueError(f"not a question of the project index: {question}")


class _RecordedIndex:
    """A ``ProjectIndex`` as the rules see it: each collection a ``_Recorded`` view, each query method one
    noted question; anything else is not there (``AttributeError``)."""

    def __init__(self, answers: Answers) -> None:
        self._ask = answers.ask  # the views hold ``answers``, not this view: no cycle
        for f in dataclasses.fields(answers.index):
            setattr(self, f.name, _Recorded(f.name, getattr(answers.index, f.name), self._ask))

    def extension_of(self, api: str) -> Optional[str]:
        return self._ask("extension_of", "call", api)

    def is_repo_module(self, qualname: str) -> bool:
        return self._ask("is_repo_module", "call", qualname)


class _Recorded:
    """A read-only view of one of the index's collections (a mapping or a frozenset) that notes every
    question asked of it."""

    __slots__ = ("_name", "_inner", "_ask_index")

    def __init__(self, name: str, inner: Any, ask: Any) -> None:
        self._name, self._inner, self._ask_index = name, inner, ask

    def _ask(self, question: str, key: Any = None) -> Any:
        return self._ask_index(self._name, question, key)

    def __contains__(self, key: object) -> bool:
        return self._ask("in", key)

    def get(self, key: object, default: Any = None) -> Any:
        found, value = self._ask("get", key)
        return value if found else default

    def __getitem__(self, key: object) -> Any:
        found, value = self._ask("get", key)
        if not found:
            raise KeyError(key)
        return value

    def __len__(self) -> int:
        return self._ask("len")

    def __bool__(self) -> bool:
        return self._ask("len") > 0

    def __iter__(self) -> Iterator[Any]:
        items = self._ask("all")
        return iter([key for key, _ in items] if isinstance(self._inner, Mapping) else items)

    def items(self) -> Tuple[Tuple[Any, Any], ...]:
        if not isinstance(self._inner, Mapping):
            raise AttributeError("items")
        return self._ask("all")
