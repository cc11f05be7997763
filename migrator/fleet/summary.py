"""One repository's ``migrator.report/1`` document reduced to a ``RepoRow``: the contract in, nothing else."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from ..model import STATUS_SEVERITY
from .model import RepoBlocker, RepoRow, RepoTarget

#: Blocker statuses that need a port or another way, whatever the rule.
_PORT_STATUSES = ("port", "unsupported")


def summarise_report(document: Mapping[str, Any], name: str, path: str, seconds: float = 0.0,
                     report: Optional[str] = None) -> RepoRow:
    """The fleet row of one scanned repository."""
    families = _custom_op_families(document.get("custom_ops", ()))
    targets = tuple(_target(t, families) for t in document.get("targets", ()))
    files = document.get("files", ())
    return RepoRow(name=name, path=path, status="ok", seconds=round(seconds, 2), files=len(files),
                   unreadable_files=sum(1 for f in files if f.get("status") != "ok"),
                   findings=len(document.get("findings", ())), targets=targets, report=report,
                   packages=_packages(files))


def _packages(files: Sequence[Mapping[str, Any]]) -> Tuple[str, ...]:
    """The top-level packages a repository holds: folders at its root with an ``__init__.py``."""
    return tuple(sorted({f["path"].split("/", 1)[0] for f in files
                         if f.get("path", "").count("/") == 1 and f["path"].endswith("/__init__.py")}))


def classify(blocker: Mapping[str, Any], families: Mapping[str, str]) -> RepoBlocker:
    """The portfolio key and kind of one report blocker.

    Custom operators are keyed by their family (two repositories vendoring mmcv's ``roi_align`` share it)
    when the custom-op plans name one, else by the operator's name; a CUDA library by its top-level package.
    """
    key, status = blocker["key"], blocker["status"]
    rule, _, api = key.partition(":")
    if rule == "custom-op":
        family = families.get(api)
        kind, shared_key = "custom operator", f"custom-op:{family or api}"
        title = f"custom operator {family}" if family else blocker["title"]
    elif rule == "cuda-library":
        top = api.split(".", 1)[0]
        kind, shared_key, title = "CUDA library", f"library:{top}", top
    elif rule == "triton-launch":
        kind, shared_key, title = "triton kernel", key, blocker["title"]
    elif rule == "torch-op" and status in _PORT_STATUSES:
        kind, shared_key, title = "unsupported op", f"op:{api}", api
    elif status in _PORT_STATUSES:
        kind, shared_key, title = "unsupported API", key, blocker["title"]
    else:
        kind, shared_key, title = "rewrite", key, blocker["title"]
    return RepoBlocker(key=shared_key, kind=kind, title=title, status=status, shared=kind != "rewrite",
                       reachable=blocker.get("reachable"), entries=int(blocker.get("entries") or 0),
                       findings=len(blocker.get("findings", ())), hours=float(blocker.get("hours") or 0.0),
                       fixable=bool(blocker.get("fixable")))


def _target(target: Mapping[str, Any], families: Mapping[str, str]) -> RepoTarget:
    merged: Dict[str, RepoBlocker] = {}
    for raw in target.get("blockers", ()):
        blocker = classify(raw, families)
        before = merged.get(blocker.key)
        merged[blocker.key] = blocker if before is None else _merge(before, blocker)
    return RepoTarget(id=target["id"], runtime=target["runtime"], version=target["version"],
                      readiness=None if target.get("readiness") is None else float(target["readiness"]),
                      counts=dict(target.get("counts", {})),
                      hours=float(target.get("effort", {}).get("total_hours") or 0.0),
                      blockers=tuple(merged.values()))


def _merge(a: RepoBlocker, b: RepoBlocker) -> RepoBlocker:
    """Two report blockers under one portfolio key (``flash_attn.flash_attn_func`` and ``flash_attn.bert_padding``)."""
    reachable = True if (a.reachable or b.reachable) else (None if a.reachable is None and b.reachable is None
                                                            else False)
    return RepoBlocker(key=a.key, kind=a.kind, title=a.title, status=worse(a.status, b.status), shared=a.shared,
                       reachable=reachable, entries=max(a.entries, b.entries), findings=a.findings + b.findings,
                       hours=round(a.hours + b.hours, 2), fixable=a.fixable and b.fixable)


def worse(a: str, b: str) -> str:
    """The more severe of two status values."""
    return min(a, b, key=SEVERITY.index)


#: Status values, worst first.
SEVERITY = [s.value for s in STATUS_SEVERITY]


def _custom_op_families(ops: Sequence[Mapping[str, Any]]) -> Dict[str, str]:
    """Custom op name -> the family every route of its plans names (one family only; else none)."""
    families: Dict[str, str] = {}
    for op in ops:
        named = {route.get("family") for plan in op.get("plans", {}).values() for route in plan.get("routes", ())}
        named.discard(None)
        if len(named) == 1:
            families[op["name"]] = named.pop()
    return families
