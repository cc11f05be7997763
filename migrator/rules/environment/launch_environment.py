"""The ``launch-environment`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.load import device_tools
from ...model import Category, Evidence, Grade, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid
from . import _stack


class LaunchEnvironment(Rule):
    """A training launch in a shell script that sources no runtime environment first.

    ## What it does
    Finds the first training launch of a shell script (`torchrun`, `python -m torch.distributed.launch`,
    `deepspeed`, `accelerate launch`, `python train.py`) when no line before it sources an environment
    script (`source .../set_env.sh`, a port's `env_npu.sh`). Where the vendor documents the script to
    source (CANN's `set_env.sh`, quoted from torch_npu's README), that is the suggestion; one finding a script.

    ## Why is this bad?
    The CANN toolkit's libraries and its environment variables come from `set_env.sh`: without it,
    `import torch_npu` fails to load the runtime, or picks another toolkit than the one installed. The
    vendors' ported scripts source it (or an `env_npu.sh` that does) before the launch.

    ## Fix safety
    A suggestion, never applied: the toolkit's path depends on the installation (the quoted one is the
    default). A note to validate, not work: a shell, a container's profile or a job scheduler usually
    sources the script once for every launch.
    """

    name = "launch-environment"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.RUN})
    category = Category.ENVIRONMENT
    summary = "training launched without the runtime's environment script"
    examples = (
        Invalid("#!/bin/bash\nexport OMP_NUM_THREADS=4\ntorchrun --nproc_per_node=8 train.py\n", path="run.sh",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.SUPPORTED,
                                 kunlun=Status.SUPPORTED)),
        Valid("#!/bin/bash\nsource /usr/local/Ascend/ascend-toolkit/set_env.sh\ntorchrun train.py\n", path="run.sh"),
        Valid("#!/bin/bash\npip install -r requirements.txt\necho 'then run python train.py'\n", path="run.sh"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        return per_target(ctx, _launch_verdict)


def _launch_verdict(target) -> Verdict:
    row = device_tools().get(target.id)
    if row is None:  # no curated row for the target: the data cannot say whether it has a script to source
        return Verdict(Status.UNKNOWN, f"the bundled data has no row for {target.id}'s software stack, so it cannot "
                       "say whether a launch needs an environment script sourced first",
                       "operator_maps/curated/device_tools.yaml")
    setup = row.get("env_setup")
    if setup is None:
        return Verdict(Status.SUPPORTED, f"the bundled data names no environment script to source for "
                       f"{_stack(target)} before a launch", "operator_maps/curated/device_tools.yaml")
    source = f"operator_maps/curated/device_tools.yaml ({setup['doc']})"
    said = (f"the script launches training without sourcing the environment of {_stack(target)}: `{setup['to']}` "
            "first (the default install path, as the vendor's quick start does)")
    # a shell, a container's profile or a job scheduler usually sources it once for every launch: whether this
    # one runs without it is the machine's to say, a check on the card, not a change this script proves it needs
    return Verdict(Status.REWRITE, said, source, fix=fix_of(str(setup["to"])),
                   evidence=(Evidence(Grade.NOTE, source, f"{said}; where the shell or the container's profile "
                                      "already sources it, nothing changes here"),))
