"""A CUDA question bound at a module's top level to a name nothing reads (or kept as an attribute no line reads)
decides nothing: to validate, off the worklist (``project/unread_flags.py``); any read of the name, in the module
or by an import, keeps it work."""

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


# improved-diffusion's TrainLoop: ``self.sync_cuda = th.cuda.is_available()``, read nowhere
TRAIN_LOOP = "import torch as th\n\n\nclass TrainLoop:\n    def __init__(self, model):\n        self.model = model\n" \
             "        self.sync_cuda = th.cuda.is_available()\n\n    def step(self, batch):\n" \
             "        return self.model(batch)\n"


@pytest.mark.parametrize("loop, user, work", [
    pytest.param(TRAIN_LOOP, "", False, id="an-attribute-read-nowhere"),
    pytest.param(TRAIN_LOOP + "\n    def sync(self):\n        if self.sync_cuda:\n            th.cuda.synchronize()\n",
                 "", True, id="read-by-a-method"),
    pytest.param(TRAIN_LOOP, "from pkg.loop import TrainLoop\nloop = TrainLoop(None)\nprint(loop.sync_cuda)\n", True,
                 id="read-by-another-module"),
    pytest.param(TRAIN_LOOP, "def flag(loop):\n    return getattr(loop, 'sync_cuda')\n", True, id="read-by-name"),
    # a framework's base class may read its subclass's attributes by name
    pytest.param(TRAIN_LOOP.replace("import torch as th\n", "import torch as th\nfrom lightning import Module\n")
                 .replace("class TrainLoop:", "class TrainLoop(Module):"), "", True, id="a-frameworks-subclass"),
])
def test_a_cuda_question_kept_as_an_attribute_nothing_reads_is_to_validate(scan_tree, loop, user, work):
    report = scan_tree({"pkg/__init__.py": "", "pkg/loop.py": loop, "pkg/user.py": user}, ["cann"])
    found = next(f for f in (*report.findings, *report.validate)
                 if f.path == "pkg/loop.py" and f.api == "torch.cuda.is_available")
    assert active(found.verdicts["cann"]) is work, found.verdicts["cann"].message


# GLM's arguments.py: ``args.cuda = torch.cuda.is_available()`` after parsing, and no code reads ``args.cuda``; the
# word is everywhere else (``.cuda()`` moves, the ``torch.cuda`` module, a docstring, a device string)
ARGUMENTS = ('import argparse\nimport torch\n\n\ndef get_args():\n    """Arguments for cuda training."""\n'
             '    parser = argparse.ArgumentParser()\n    parser.add_argument("--lr", type=float)\n'
             '    args = parser.parse_args()\n    args.cuda = torch.cuda.is_available()\n    return args\n')
TRAIN = ("import torch\nfrom pkg.arguments import get_args\n\n\ndef main():\n    args = get_args()\n"
         "    model = torch.nn.Linear(2, 2).cuda()\n    torch.cuda.manual_seed(0)\n"
         "    return model(torch.ones(2, device='cuda')), args.lr\n")


@pytest.mark.parametrize("train, work", [
    pytest.param(TRAIN, False, id="read-nowhere"),
    pytest.param(TRAIN.replace("args.lr", "args.lr if args.cuda else 0"), True, id="read-as-an-attribute"),
    pytest.param(TRAIN.replace("args.lr", "getattr(args, 'cuda')"), True, id="read-by-name"),
    pytest.param(TRAIN.replace("args.lr", "vars(args)['cuda']"), True, id="read-as-a-key"),
    pytest.param(TRAIN + "\n\ndef run(lr=0.1, cuda=False):\n    return lr\n\n\nrun(**vars(get_args()))\n", True,
                 id="a-parameter-it-may-fill"),
])
def test_a_cuda_question_kept_on_a_namespace_nothing_reads_is_to_validate(scan_tree, train, work):
    report = scan_tree({"pkg/__init__.py": "", "pkg/arguments.py": ARGUMENTS, "pkg/train.py": train}, ["cann"])
    found = next(f for f in (*report.findings, *report.validate)
                 if f.path == "pkg/arguments.py" and f.api == "torch.cuda.is_available")
    assert active(found.verdicts["cann"]) is work, found.verdicts["cann"].message
    if not work:
        assert "`args.cuda`, which nothing in the project reads" in found.verdicts["cann"].message
