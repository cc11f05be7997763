"""The fleet's results: frozen, built only from data (a repository's report, or the reason it has none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Tuple


@dataclass(frozen=True)
class RepoBlocker:
    """One blocker of one repository on one target, under the key it shares with other repositories.

    ``shared`` blockers are things a platform team ports once for every repository (a custom operator
    family, a CUDA-only library, an unsupported op or API, a triton kernel); the others are edits local to
    the repository (a device call, an AMP setting), counted in its effort but not in the portfolio ranking.
    """

    key: str  # custom-op:rms_norm, library:flash_attn, op:torch.nn.functional.ctc_loss, or the report's key
    kind: str  # custom operator | CUDA library | unsupported op | triton kernel | unsupported API | rewrite
    title: str
    status: str
    shared: bool
    reachable: Optional[bool]
    entries: int
    findings: int
    hours: float
    fixable: bool = False


@dataclass(frozen=True)
class RepoTarget:
    """One repository on one target, from its report."""

    id: str
    runtime: str
    version: str
    readiness: Optional[float]  # ``None``: nothing to assess
    counts: Mapping[str, int]
    hours: float
    blockers: Tuple[RepoBlocker, ...] = ()

    @property
    def shared_blockers(self) -> Tuple[RepoBlocker, ...]:
        return tuple(b for b in self.blockers if b.shared)


@dataclass(frozen=True)
class RepoRow:
    """One repository of the fleet: scanned (``ok``) with its per-target summary, or ``failed``/``timeout``."""

    name: str
    path: str
    status: str
    reason: Optional[str] = None
    seconds: float = 0.0
    files: int = 0
    unreadable_files: int = 0
    findings: int = 0
    targets: Tuple[RepoTarget, ...] = ()
    report: Optional[str] = None  # the repository's own HTML report, relative to the portfolio page
    #: the top-level Python packages it holds (``mmcv``): another repository's blocker on that library is its port
    packages: Tuple[str, ...] = ()

    def target(self, target_id: str) -> Optional[RepoTarget]:
        return next((t for t in self.targets if t.id == target_id), None)


@dataclass(frozen=True)
class SharedBlocker:
    """A blocker across the fleet on one target: which repositories it blocks and how much of their training path."""

    key: str
    kind: str
    title: str
    status: str  # the worst status it has in any repository
    repos: Tuple[str, ...]
    on_training_path: Tuple[str, ...]  # the repositories where a training entry point reaches it
    entries: int  # entry points reaching it, summed over the repositories
    findings: int
    hours: float  # ported once: the largest estimate of a repository whose effort counts it (else of any)
    frees_alone: Tuple[str, ...] = ()  # repositories it is the only shared blocker of
    #: some repository's effort counts it (it is on that repository's training path): in ``hours_shared_once``
    counted: bool = True
    #: a CUDA library the fleet's own repository of that package provides (mmdet's ``mmcv``, with mmcv scanned
    #: too): porting that repository ports it, so its hours are that repository's, not counted again
    provided_by: Optional[str] = None


@dataclass(frozen=True)
class UnlockStep:
    """Port ``port`` (after the steps before it) and ``freed`` become free of shared blockers."""

    port: Tuple[str, ...]
    freed: Tuple[str, ...]
    ported_total: int
    free_total: int


@dataclass(frozen=True)
class TargetPortfolio:
    id: str
    runtime: str
    version: str
    scanned: int
    free_now: Tuple[str, ...]  # no shared blocker today (only local edits remain)
    mean_readiness: Optional[float]
    hours: float  # the repositories' own totals, summed: each team porting alone
    blockers: Tuple[SharedBlocker, ...]
    unlock: Tuple[UnlockStep, ...]
    #: each shared blocker ported once for the fleet, plus every repository's local edits
    hours_shared_once: float = 0.0


@dataclass(frozen=True)
class Portfolio:
    tool_version: str
    targets: Tuple[TargetPortfolio, ...]
    repos: Tuple[RepoRow, ...]
    scheduler: str  # "LocalCluster (2 workers)" or the address given
    workers: int
    seconds: float
