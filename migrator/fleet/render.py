"""The portfolio as text, ``migrator.fleet/1`` JSON or one HTML page; every renderer is ``render(portfolio, out)``."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Callable, Dict, List, TextIO

from .model import Portfolio, RepoBlocker, RepoRow
from .summary import SEVERITY

SCHEMA = "migrator.fleet/1"

#: What the portfolio's words mean; the JSON and the page carry them so a reader need not guess.
DEFINITIONS = {
    "shared": "a shared blocker is ported once for every repository: a custom operator family, a CUDA-only "
              "library, an unsupported op or API, a triton kernel. Device calls, AMP and distributed settings "
              "are edits local to each repository: they count in its effort, not here.",
    "free": "a repository is free of blockers on a target when it has no shared blocker there; what remains "
            "is local edits (`migrator fix` applies the mechanical ones).",
    "unlock": "the unlock order is greedy: each step ports what the closest still-blocked repository lacks.",
}

_TOP = 10


def to_dict(portfolio: Portfolio) -> Dict[str, Any]:
    return {
        "schema": SCHEMA,
        "tool": {"name": "migrator", "version": portfolio.tool_version},
        "scheduler": portfolio.scheduler, "workers": portfolio.workers, "seconds": portfolio.seconds,
        "definitions": DEFINITIONS,
        "repositories": [asdict(row) for row in portfolio.repos],
        "targets": [asdict(target) for target in portfolio.targets],
    }


def render_json(portfolio: Portfolio, out: TextIO) -> None:
    json.dump(to_dict(portfolio), out, indent=1, ensure_ascii=False)
    out.write("\n")


def render_text(portfolio: Portfolio, out: TextIO) -> None:
    ok = [r for r in portfolio.repos if r.status == "ok"]
    out.write(f"migrator {portfolio.tool_version} fleet: {len(portfolio.repos)} repositories, {len(ok)} scanned, "
              f"on {portfolio.scheduler} in {portfolio.seconds:g} s\n\n")
    ids = [t.id for t in portfolio.targets]
    width = max([len(r.name) for r in portfolio.repos] + [10])
    out.write(f"{'repository':<{width}}  " + "  ".join(f"{t:>16}" for t in ids) + "\n")
    for row in portfolio.repos:
        if row.status != "ok":
            out.write(f"{row.name:<{width}}  {row.status}: {row.reason}\n")
            continue
        cells = []
        for target_id in ids:
            on = row.target(target_id)
            score = "    -" if on is None or on.readiness is None else f"{on.readiness:5.1f}%"
            cells.append(f"{score} {len(on.shared_blockers):2d} shared" if on else "-")
        unread = f"  ({row.unreadable_files} files unread)" if row.unreadable_files else ""
        out.write(f"{row.name:<{width}}  " + "  ".join(f"{c:>16}" for c in cells) + unread + "\n")
    for target in portfolio.targets:
        out.write(f"\n{target.id}@{target.version} ({target.runtime}): {len(target.free_now)} of {target.scanned} "
                  f"free of shared blockers now; mean readiness {target.mean_readiness}%, "
                  f"effort ~{target.hours_shared_once:g} hours with each shared blocker ported once "
                  f"(~{target.hours:g} if each repository ports alone)\n")
        for blocker in target.blockers[:_TOP]:
            alone = f", alone frees {len(blocker.frees_alone)}" if blocker.frees_alone else ""
            if blocker.provided_by:
                alone += f"; the fleet's {blocker.provided_by} provides it: ported with it"
            out.write(f"  {blocker.status:<11} {blocker.title} [{blocker.kind}]: blocks {len(blocker.repos)} "
                      f"({len(blocker.on_training_path)} on the training path{alone})\n")
        if len(target.blockers) > _TOP:
            out.write(f"  ... {len(target.blockers) - _TOP} more shared blockers\n")
        for step in target.unlock:
            out.write(f"  port {step.ported_total} thing{'s' if step.ported_total != 1 else ''} "
                      f"(+{', '.join(step.port)}) -> {step.free_total} of {target.scanned} free "
                      f"(+{', '.join(step.freed)})\n")
    out.write(f"\n{DEFINITIONS['shared']}\n")


def render_html(portfolio: Portfolio, out: TextIO) -> None:
    from ..report.html import render_page

    out.write(render_page("fleet.html.j2", "fleet.js", fleet=portfolio, definitions=DEFINITIONS,
                          target_ids=[t.id for t in portfolio.targets],
                          tops={row.name: _top_blockers(row) for row in portfolio.repos}))


def _top_blockers(row: RepoRow, count: int = 4) -> List[RepoBlocker]:
    """A repository's shared blockers over all targets, once each, worst first."""
    seen: Dict[str, RepoBlocker] = {}
    for target in row.targets:
        for blocker in target.shared_blockers:
            seen.setdefault(blocker.key, blocker)
    return sorted(seen.values(), key=lambda b: (SEVERITY.index(b.status), -b.entries, b.key))[:count]


RENDERERS: Dict[str, Callable[[Portfolio, TextIO], None]] = {
    "text": render_text, "json": render_json, "html": render_html,
}
