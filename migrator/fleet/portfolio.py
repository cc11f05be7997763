"""The cross-repository arithmetic: shared blockers ranked, and what porting them frees, per target."""

from __future__ import annotations

from collections import defaultdict
from statistics import mean
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from .. import __version__
from .model import Portfolio, RepoBlocker, RepoRow, RepoTarget, SharedBlocker, TargetPortfolio, UnlockStep
from .summary import worse


def build_portfolio(rows: Sequence[RepoRow], scheduler: str = "", workers: int = 0,
                    seconds: float = 0.0) -> Portfolio:
    """Rows in the given order; targets in the order the first scanned repository lists them."""
    scanned = [r for r in rows if r.status == "ok"]
    target_ids: List[str] = []
    for row in scanned:
        target_ids.extend(t.id for t in row.targets if t.id not in target_ids)
    targets = tuple(_target(target_id, scanned) for target_id in target_ids)
    return Portfolio(tool_version=__version__, targets=targets, repos=tuple(rows), scheduler=scheduler,
                     workers=workers, seconds=round(seconds, 2))


def _target(target_id: str, rows: Sequence[RepoRow]) -> TargetPortfolio:
    on_target = [(row, target) for row in rows for target in (row.target(target_id),) if target is not None]
    providers = {package: row.name for row, _ in on_target for package in row.packages}
    needs = _needs({row.name: {b.key for b in t.shared_blockers} for row, t in on_target}, providers)
    first = on_target[0][1]
    blockers = shared_blockers(on_target, needs, providers)
    # a repository's own total counts the blockers on its training path (``_counted``); the rest is local edits
    local = sum(max(t.hours - sum(b.hours for b in t.shared_blockers if _counted(b)), 0.0) for _, t in on_target)
    once = sum(b.hours for b in blockers if b.counted and b.provided_by is None)
    return TargetPortfolio(
        id=target_id, runtime=first.runtime, version=first.version, scanned=len(on_target),
        free_now=tuple(name for name, keys in needs.items() if not keys),
        mean_readiness=_mean([t.readiness for _, t in on_target if t.readiness is not None]),
        hours=round(sum(t.hours for _, t in on_target), 1),
        blockers=blockers, unlock=unlock_steps(needs),
        hours_shared_once=round(local + once, 1))


def _mean(values: Sequence[float]) -> Optional[float]:
    """The mean readiness of the repositories that have one (``None``: nothing to assess in any)."""
    return round(mean(values), 1) if values else None


def shared_blockers(on_target: Sequence[Tuple[RepoRow, RepoTarget]], needs: Dict[str, Set[str]],
                    providers: Optional[Mapping[str, str]] = None) -> Tuple[SharedBlocker, ...]:
    """Ranked by how many repositories they block, then on how many training paths, then entry points.
    ``providers``: package -> the fleet repository that holds it (a library blocker it provides is its port)."""
    providers = providers or {}
    members: Dict[str, List[Tuple[str, RepoBlocker]]] = defaultdict(list)
    for row, target in on_target:
        for blocker in target.shared_blockers:
            members[blocker.key].append((row.name, blocker))
    ranked = []
    for key, found in members.items():
        status = found[0][1].status
        for _, blocker in found[1:]:
            status = worse(status, blocker.status)
        ranked.append(SharedBlocker(
            key=key, kind=found[0][1].kind, title=found[0][1].title, status=status,
            repos=tuple(name for name, _ in found),
            on_training_path=tuple(name for name, b in found if b.reachable),
            entries=sum(b.entries for _, b in found), findings=sum(b.findings for _, b in found),
            # one port serves them all: the largest estimate of a repository that counts it in its effort
            hours=round(max(b.hours for _, b in ([f for f in found if _counted(f[1])] or found)), 2),
            counted=any(_counted(b) for _, b in found),
            provided_by=_provider(key, providers, [name for name, _ in found]),
            frees_alone=tuple(name for name, _ in found if needs[name] == {key})))
    ranked.sort(key=lambda b: (-len(b.repos), -len(b.on_training_path), -b.entries, -b.hours, b.key))
    return tuple(ranked)


def _needs(own: Mapping[str, Set[str]], providers: Mapping[str, str]) -> Dict[str, Set[str]]:
    """What each repository needs ported: its shared blockers, a library the fleet holds standing for that
    repository's own blockers (porting mmcv frees mmdet's ``library:mmcv``)."""
    needs: Dict[str, Set[str]] = {}
    for name, keys in own.items():
        needs[name] = set()
        for key in keys:
            provider = _provider(key, providers, (name,))
            needs[name] |= {key} if provider is None else own[provider]
    return needs


def _provider(key: str, providers: Mapping[str, str], needed_by: Sequence[str]) -> Optional[str]:
    """The fleet repository that holds a library blocker's package, when it is not one of those it blocks."""
    kind, _, package = key.partition(":")
    provider = providers.get(package) if kind == "library" else None
    return provider if provider is not None and provider not in needed_by else None


def _counted(blocker: RepoBlocker) -> bool:
    """Whether a repository's own effort total counts this blocker: on its training path, or every blocker when
    the scan found no entry point (``reachable`` unknown), as the report's readiness formula says."""
    return blocker.reachable is not False


def unlock_steps(needs: Dict[str, Set[str]]) -> Tuple[UnlockStep, ...]:
    """A greedy order of ports: each step ports what the closest still-blocked repository lacks.

    Closest is fewest shared blockers not yet ported (ties: the one whose blockers block the most other
    repositories, then the name). Every repository whose blockers are all ported by then becomes free at
    that step, so step k reads "port these (k steps' worth of) things and this many repositories are free".
    """
    ported: Set[str] = set()
    blocked = {name: keys for name, keys in needs.items() if keys}
    spread: Dict[str, int] = defaultdict(int)
    for keys in blocked.values():
        for key in keys:
            spread[key] += 1
    free_total = len(needs) - len(blocked)
    steps: List[UnlockStep] = []
    while blocked:
        name = min(blocked, key=lambda n: (len(blocked[n] - ported), -sum(spread[k] for k in blocked[n]), n))
        port = tuple(sorted(blocked[name] - ported, key=lambda k: (-spread[k], k)))
        ported.update(port)
        freed = tuple(sorted(n for n, keys in blocked.items() if keys <= ported))
        for n in freed:
            del blocked[n]
        free_total += len(freed)
        steps.append(UnlockStep(port=port, freed=freed, ported_total=len(ported), free_total=free_total))
    return tuple(steps)
