"""Which rules a run reports, as ruff's ``--select`` / ``--ignore`` say it: by rule name (``device-call``) or
by category (``device``, ``op``, ``environment``). Readiness, blockers and the plan are over what is
selected, as `check` fails only on it; ``fix`` edits only it.

    Selection.parse(select=["device", "amp"], ignore=["device-string"])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import FrozenSet, Iterable, List, Sequence

from .model import Category, Finding

#: Rules made outside the rule set (a joined trace's findings).
_TRACE_RULES = ("traced-op", "traced-dtype")


class SelectionError(ValueError):
    """A selector that is no rule and no category."""


@dataclass(frozen=True)
class Selection:
    select: FrozenSet[str] = frozenset()  # empty: every rule
    ignore: FrozenSet[str] = frozenset()

    @classmethod
    def parse(cls, select: Iterable[str] = (), ignore: Iterable[str] = (),
              options: Sequence[str] = ("--select", "--ignore")) -> "Selection":
        """From comma-separated or listed selectors; an unknown one is an error naming where it was written
        (``options``: the names of the two settings)."""
        chosen = [frozenset(_split(select)), frozenset(_split(ignore))]
        known = known_selectors()
        for selectors, option in zip(chosen, options):
            unknown = sorted(selectors - known)
            if unknown:
                raise SelectionError(f"{option}: {unknown[0]!r} is no rule or category (rules: `migrator rules`; "
                                     f"categories: {', '.join(c.value for c in Category)})")
        return cls(*chosen)

    def __bool__(self) -> bool:
        return bool(self.select or self.ignore)

    def keeps(self, finding: Finding) -> bool:
        names = (finding.rule, finding.category.value)
        if self.select and not any(n in self.select for n in names):
            return False
        return not any(n in self.ignore for n in names)

    def apply(self, findings: Sequence[Finding]) -> List[Finding]:
        """The findings selected; a site whose cause is not selected stands on its own (no ``root``)."""
        kept = [f for f in findings if self.keeps(f)]
        ids = {f.id for f in kept}
        return [replace(f, root=None) if f.root is not None and f.root not in ids else f for f in kept]


def known_selectors() -> FrozenSet[str]:
    from .rules import DOCUMENTED_RULES

    return frozenset({r.name for r in DOCUMENTED_RULES} | {c.value for c in Category} | set(_TRACE_RULES))


def _split(values: Iterable[str]) -> List[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
