"""The ``data-parallel`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, cuda_names, documented_verdict, per_target
from ...resolve.vocabulary import Vocabulary
from ..examples import ByRuntime, Invalid, Valid


#: the class, by both its names
_DATA_PARALLEL = frozenset({"torch.nn.DataParallel", "torch.nn.parallel.DataParallel"})


class DataParallel(Rule):
    """`torch.nn.DataParallel`: one process driving several devices.

    ## What it does
    Finds `nn.DataParallel(...)` and `nn.parallel.DataParallel(...)`, and a class that subclasses it; each
    target's verdict is the vendor's API list entry for it.

    ## Why is this bad?
    The vendors support one process per device (DistributedDataParallel under torchrun); where their list
    marks DataParallel unsupported, or does not list it, the model does not spread over the devices.

    ## Fix safety
    Manual: moving to DDP means a launcher, a process group and a sampler per rank, so `fix` only prints
    the suggested `DistributedDataParallel(model, device_ids=[local_rank])`.
    """

    name = "data-parallel"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL, UsageKind.SUBCLASS})
    vocabulary = Vocabulary(subclassed=_DATA_PARALLEL)
    category = Category.DISTRIBUTED
    summary = "torch.nn.DataParallel"
    examples = (
        Invalid("import torch.nn as nn\nm = nn.DataParallel(nn.Linear(2, 2))\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
        Valid("import torch.nn as nn\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"),
        # yolact's trainer: a subclass that scatters its own batches is DataParallel all the same
        Invalid("import torch.nn as nn\n\n\nclass CustomDataParallel(nn.DataParallel):\n"
                "    def scatter(self, inputs, kwargs, device_ids):\n        return inputs, kwargs\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds or usage.api not in _DATA_PARALLEL:
            return None
        subclass = f"a subclass of DataParallel (`{usage.context}`): " if usage.kind == UsageKind.SUBCLASS else ""

        def verdict(target) -> Verdict:
            doc = documented_verdict(target, "torch.nn.DataParallel", "DataParallel")
            if doc.status in (Status.UNSUPPORTED, Status.UNKNOWN) and cuda_names(target).rewritten:
                return Verdict(Status.REWRITE, f"{subclass}{doc.message}; use DistributedDataParallel with one process "
                               f"per device (torchrun) and the '{target.backend_to}' backend", doc.source,
                               fix=fix_of("torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])"),
                               quotes=doc.quotes)
            return doc
        return per_target(ctx, verdict)
