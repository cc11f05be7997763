"""A rule's examples: code it must leave alone (``Valid``) and code it must report (``Invalid``), with the
verdict each target gets and what ``migrator fix --target T`` writes.

The test suite scans every example and holds the rule to it, and the rule's documentation (``migrator
rules NAME``, SARIF help) shows them, so a rule's docs cannot drift from what it does.

    Invalid("import torch\\nx = torch.ones(2).cuda()\\n",
            expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED),
            fixed={"cann": "import torch\\nimport torch_npu\\nx = torch.ones(2).npu()\\n", ...})

An example expects a status per kind of runtime (``ByRuntime``), with the targets whose own curated rows move
them off it named as exceptions, so that a target added as a folder (``operator_maps/targets/<id>/``) is
expected something without an edit here (``tests/test_new_target.py`` runs every example against one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Union

from ..maps.load import runtime
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


@dataclass(frozen=True, init=False)
class ByRuntime:
    """The status a target gets from its runtime's facts and its device table alone, by the kind of runtime
    (``cuda_names`` in its folder's ``target.json``): ``renamed`` where the runtime names its device apart
    (``npu``, ``mlu``), ``kept`` where it presents itself as CUDA. ``exceptions``: the targets whose own curated
    rows (a vendor's API list, a performance guide, a framework's table) give another status, and only those
    (the rule-doc test holds each exception to differ from its kind's default). A target no row speaks of gets
    the default, which is ``unknown`` wherever the verdict rests on such rows."""

    renamed: Status
    kept: Status
    exceptions: Mapping[str, Status]

    def __init__(self, default: Optional[Status] = None, *, renamed: Optional[Status] = None,
                 kept: Optional[Status] = None, **exceptions: Status) -> None:
        if (renamed or default) is None or (kept or default) is None:
            raise TypeError("ByRuntime needs a default, or both renamed= and kept=")
        object.__setattr__(self, "renamed", renamed or default)
        object.__setattr__(self, "kept", kept or default)
        object.__setattr__(self, "exceptions", dict(exceptions))

    def default(self, target: str) -> Status:
        """The status ``target``'s kind of runtime gets, exceptions aside."""
        return self.kept if runtime(target).cuda_names == "kept" else self.renamed

    def on(self, target: str) -> Status:
        return self.exceptions.get(target) or self.default(target)


@dataclass(frozen=True)
class Invalid:
    """Code the rule reports.

    ``expect`` is the status every finding of the rule in ``path`` gets: one ``Status`` the same on every
    target, whatever its data, or ``ByRuntime``. ``fixed`` is the whole of ``path`` after ``migrator fix
    --target T``, per bundled target; a bundled target not named there has no safe fix, so ``fix`` must leave
    the file as it is.
    """

    code: str
    expect: Union[Status, ByRuntime]
    fixed: Mapping[str, str] = field(default_factory=dict)
    path: str = EXAMPLE_PATH
    files: Mapping[str, str] = field(default_factory=dict)

    def expected(self, target: str) -> Status:
        """The status expected on ``target``, any target the maps know."""
        return self.expect if isinstance(self.expect, Status) else self.expect.on(target)


Example = Union[Valid, Invalid]
