"""A rule's examples: code it must leave alone (``Valid``) and code it must report (``Invalid``), with the
verdict each target gets and what ``migrator fix --target T`` writes.

The test suite scans every example and holds the rule to it, and the rule's documentation (``migrator
rules NAME``, SARIF help) shows them, so a rule's docs cannot drift from what it does.

    Invalid("import torch\\nx = torch.ones(2).cuda()\\n",
            expect={"cann": Status.REWRITE, "neuware": Status.REWRITE, "kunlun": Status.SUPPORTED},
            fixed={"cann": "import torch\\nimport torch_npu\\nx = torch.ones(2).npu()\\n", ...})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Union

from ..model import Status

#: The file an example is written to, unless it says otherwise.
EXAMPLE_PATH = "train.py"


@dataclass(frozen=True)
class Valid:
    """Code the rule must not report (a trap that only looks like CUDA, or the safe spelling)."""

    code: str
    path: str = EXAMPLE_PATH
    #: other files of the example project, by relative path
    files: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Invalid:
    """Code the rule reports.

    ``expect`` is the status every finding of the rule in ``path`` gets, per target id (one ``Status`` means
    the same on every target). ``fixed`` is the whole of ``path`` after ``migrator fix --target T``, per
    target; a target not named there has no safe fix, so ``fix`` must leave the file as it is.
    """

    code: str
    expect: Union[Status, Mapping[str, Status]]
    fixed: Mapping[str, str] = field(default_factory=dict)
    path: str = EXAMPLE_PATH
    files: Mapping[str, str] = field(default_factory=dict)

    def expected(self, target: str) -> Optional[Status]:
        """The status expected on ``target``; ``None`` when the example does not name that target."""
        if isinstance(self.expect, Status):
            return self.expect
        return self.expect.get(target)


Example = Union[Valid, Invalid]
