"""Uses of a CUDA library's plain-PyTorch members (``third_party.json`` ``plain``): which uses take the path the
library's own source writes in torch operators (``torch_scatter.scatter(src, index, dim=0)``, reduce "sum" by
default), and the verdict such a use gets: it runs as written, on the source that shows it."""

from __future__ import annotations

from typing import FrozenSet, Iterable, Optional, Sequence

from ...evidence import item, with_evidence
from ...maps.load import PlainCondition, PlainImport, PlainMember, ThirdParty
from ...model import Grade, Status, Usage, UsageKind, Value, ValueKind, Verdict
from ..base import ProjectIndex, resolve_value

#: how a use of a member is written for it to be the member's own code running: called, read (``fn = scatter_sum``
#: handed on whole) or subclassed (``class Emb(bnb.nn.StableEmbedding)``)
_USES = frozenset({UsageKind.CALL, UsageKind.ATTRIBUTE, UsageKind.SUBCLASS})
_STR = ValueKind.STR
_CHOICE = ValueKind.CHOICE


def plain_use(usage: Usage, table: ThirdParty, project: ProjectIndex) -> Optional[PlainMember]:
    """The plain-PyTorch member ``usage`` runs, when it takes the plain path: a member with no condition used in
    any of ``_USES``; a conditional one only called, with the argument omitted (its default) or passed as a
    literal of the plain values (through a constant, or a conditional expression whose every branch is one)."""
    member = table.plain_member(usage.api)
    if member is None or usage.kind not in _USES:
        return None
    if member.when is None:
        return member
    return member if usage.kind == UsageKind.CALL and _takes_plain_path(usage, member.when, project) else None


def _takes_plain_path(usage: Usage, when: PlainCondition, project: ProjectIndex) -> bool:
    """Whether the call's value of ``when.argument`` is one of ``when.values``; a call that may pass it unseen
    (``*args``, ``**kwargs``) or passes a value the code computes is not judged plain."""
    positional = 0
    passed = None
    for argument in usage.args:
        if argument.keyword in ("*", "**"):
            return False
        if argument.keyword is None:
            if positional == when.position:
                passed = argument.value
            positional += 1
        elif argument.keyword == when.argument:
            passed = argument.value
    if passed is None:
        return when.default is not None and when.default in when.values
    return _plain_value(resolve_value(passed, project), when.values)


def _plain_value(value: Value, values: FrozenSet[str]) -> bool:
    """Whether ``value`` is one of ``values`` whichever way the code goes: a literal, or a conditional expression
    whose every branch is one."""
    if value.from_default:  # a parameter's default: the caller may pass another
        return False
    if value.kind == _STR:
        return value.text in values
    if value.kind == _CHOICE:
        return bool(value.options) and all(_plain_value(option, values) for option in value.options)
    return False


def plain_verdict(target_id: str, member: PlainMember, library: str) -> Verdict:
    """A use of a plain-PyTorch member: it runs as written on ``target_id``, quoting the library's source."""
    when = member.when
    taken = f" for {when.argument} {_either(when.values)}, as this call has it" if when is not None else ""
    message = (f"`{member.name}` is plain PyTorch in {library}'s own source{taken}: {member.runs}; no {library} "
               f"kernel runs, so it runs on {target_id} as written, on torch's operators (the package itself is "
               "judged at its import)")
    return with_evidence(Verdict(Status.SUPPORTED, message, member.source),
                         item(Grade.PROOF, member.source, member.quote))


def imports_plain(usage: Usage, table: ThirdParty, target_id: str) -> Optional[Verdict]:
    """An import of one plain-PyTorch member with no condition (``from bitsandbytes.nn import StableEmbedding``):
    the name it binds runs as written, so the import needs the package, none of its kernels. An import of the
    library, or of a member plain only for some arguments, is judged by the file's uses of it (``project/
    plain_imports``)."""
    member = table.plain_member(usage.api)
    if member is None or member.when is not None:
        return None
    imported = table.plain_import(member.library)
    return import_verdict(target_id, imported, (member.name,)) if imported is not None else None


def import_verdict(target_id: str, imported: PlainImport, members: Sequence[str]) -> Verdict:
    """An import of ``imported.library`` whose every use is one of the plain-PyTorch ``members``: it runs on
    ``target_id`` with the package installed, quoting what its import needs."""
    named = ", ".join(f"`{m}`" for m in sorted(set(members)))
    message = (f"the {imported.library} import is used only for its plain-PyTorch members here ({named}), which "
               f"run on {target_id} as written: {imported.note}")
    return with_evidence(Verdict(Status.SUPPORTED, message, imported.source),
                         item(Grade.PROOF, imported.source, imported.quote))


def _either(values: Iterable[str]) -> str:
    """``'add', 'mean' or 'sum'``."""
    quoted = [repr(v) for v in sorted(values)]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
