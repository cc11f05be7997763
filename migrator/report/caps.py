"""What one file may carry into the reports that list every result (SARIF, the page); the JSON has all."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from ..model import Finding

#: Results one file may carry into SARIF and the page: a generated file with 70,000 `.cuda()` calls made a
#: 300 MB SARIF document; past this, a file's results are counted in a notification instead.
MAX_RESULTS_PER_FILE = 1000


def per_file_cap(findings: Sequence[Finding]) -> Tuple[List[Finding], Dict[str, int]]:
    """The findings, at most ``MAX_RESULTS_PER_FILE`` a file (the first ones), and how many each file had over."""
    seen: Dict[str, int] = {}
    kept: List[Finding] = []
    left_out: Dict[str, int] = {}
    for finding in findings:
        seen[finding.path] = seen.get(finding.path, 0) + 1
        if seen[finding.path] <= MAX_RESULTS_PER_FILE:
            kept.append(finding)
        else:
            left_out[finding.path] = left_out.get(finding.path, 0) + 1
    return kept, left_out
