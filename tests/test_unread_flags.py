"""A CUDA question bound at a module's top level to a name nothing reads decides nothing: to validate, off the
worklist (``project/unread_flags.py``); any read of the name, in the module or by an import, keeps it work."""

from __future__ import annotations

import pytest

from migrator.evidence import active

# widedeep's losses.py: ``use_cuda`` bound at the top and never read in the package
LOSSES = "import torch\nfrom torch import nn\n\nuse_cuda = torch.cuda.is_available()\n\n\nclass MSELoss(nn.Module):\n" \
         "    def forward(self, x, y):\n        return ((x - y) ** 2).mean()\n"


@pytest.mark.parametrize("losses, user, work", [
    (LOSSES, "from pkg.losses import MSELoss\n", False),
    (LOSSES + "\n\ndef device():\n    return 'cuda' if use_cuda else 'cpu'\n", "", True),
    (LOSSES, "from pkg.losses import use_cuda\nprint(use_cuda)\n", True),
    (LOSSES, "from pkg.losses import *\n", True),
    (LOSSES, "import pkg.losses as L\nprint(L.use_cuda)\n", True),
    (LOSSES + "__all__ = ['MSELoss', 'use_cuda']\n", "", True),
], ids=["read-nowhere", "read-in-a-function", "imported-by-name", "star-imported", "module-imported", "exported"])
def test_a_cuda_question_bound_to_a_name_nothing_reads_is_to_validate(scan_tree, losses, user, work):
    report = scan_tree({"pkg/__init__.py": "", "pkg/losses.py": losses, "pkg/user.py": user}, ["cann"])
    found = next(f for f in (*report.findings, *report.validate)
                 if f.path == "pkg/losses.py" and f.api == "torch.cuda.is_available")
    assert active(found.verdicts["cann"]) is work, found.verdicts["cann"].message
    if not work:
        assert "`use_cuda`, which nothing in the project reads" in found.verdicts["cann"].message
