"""One cause, one finding: a use of a device variable set elsewhere is a site of the finding at the binding."""

from __future__ import annotations

from typing import List, Sequence

from ..model import Finding


def with_roots(findings: Sequence[Finding]) -> List[Finding]:
    return list(findings)
