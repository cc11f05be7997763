"""The ``environment-variable`` rule."""

from __future__ import annotations

from typing import Optional

from dataclasses import replace

from ...model import Category, Edit, EditKind, Evidence, Grade, Status, Usage, UsageKind, Verdict, fix_of
from ...resolve.modules import ENV_KEY
from ...resolve.vocabulary import Vocabulary
from ...sources.environment import CUDA_ENV_PREFIXES, CUDA_TUNING_VARIABLES
from ..base import Claim, Rule, RuleContext, Verdicts, cuda_names, per_target
from ..examples import ByRuntime, Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_ENV_READ = UsageKind.ENV_READ


class EnvironmentVariable(Rule):
    """CUDA and NCCL environment variables, set or read.

    ## What it does
    Finds `CUDA_*`, `NCCL_*`, `CUDNN_*`, `NVIDIA_*`, `PYTORCH_CUDA_*`, `TORCH_CUDA_*` and `CUBLAS_*`
    variables set or read from Python (`os.environ[...]`, `os.environ.get`, `os.getenv`, `setdefault`,
    `putenv`), and set in shell scripts (`export X=`, `X=... cmd`) and Dockerfiles (`ENV`, `ARG`). Each
    target's verdict is the equivalent variable the vendor documents, if the bundled data has one.

    ## Why is this bad?
    The targets ignore CUDA's variables: `CUDA_VISIBLE_DEVICES` selects nothing on Ascend, so every process
    sees every card, and an NCCL tuning variable has no effect on HCCL. Where the data names no
    equivalent the verdict is `unknown`: the variable is inert, and its purpose needs the runtime's docs.

    ## Fix safety
    Exact where the vendor documents a one-to-one variable (`MLU_VISIBLE_DEVICES` on Cambricon): the name
    is replaced where it is written. A variable that only tunes or debugs the run (NCCL's logging and
    blocking waits, the CUDA allocator's configuration, cuBLAS's workspace) is a note to validate: the run
    goes on without it. An equivalent with different semantics (Ascend's
    `ASCEND_RT_VISIBLE_DEVICES` takes ascending device ids only) is a suggestion, not applied by `fix`.
    """

    name = "environment-variable"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.ENV, UsageKind.ENV_READ})
    category = Category.ENVIRONMENT
    summary = "CUDA and NCCL environment variables"
    vocabulary = Vocabulary(
        environment_readers=frozenset({"os.environ.get", "os.getenv", "os.environ.pop"}),
        environment_writers=frozenset({"os.environ.setdefault", "os.putenv", "os.environ.update"}),
        environment_prefixes=CUDA_ENV_PREFIXES)
    examples = (
        # Kunlunxin's launches name its devices with XPU_VISIBLE_DEVICES (FlagPerf): a rewrite, never applied alone
        Invalid("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0,1'\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.REWRITE),
                fixed=dict(neuware="import torch_mlu\nimport os\nos.environ['MLU_VISIBLE_DEVICES'] = '0,1'\n")),
        Invalid("export CUDA_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node=2 train.py\n", path="run.sh",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.REWRITE),
                fixed=dict(neuware="export MLU_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node=2 train.py\n")),
        # a logging switch: no one-to-one name on any target (on kunlun the message names the BKCL_* family that
        # does the job), and the run goes on without it: to validate, not work
        Invalid("import os\nos.environ.setdefault('NCCL_DEBUG', 'INFO')\n", expect=Status.UNKNOWN),
        # sample-factory's gpu_utils: the variable's name kept in a constant, changed where it is set
        Invalid("import os\nCUDA_ENVVAR = 'CUDA_VISIBLE_DEVICES'\nos.environ[CUDA_ENVVAR] = '0'\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.REWRITE)),
        Invalid("export TORCH_NCCL_BLOCKING_WAIT=1\ntorchrun --nproc_per_node=8 train.py\n", path="run.sh",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE),
                fixed=dict(cann="export TORCH_HCCL_BLOCKING_WAIT=1\ntorchrun --nproc_per_node=8 train.py\n")),
        # the bootstrap's network interface: HCCL_SOCKET_IFNAME on Ascend (its own page; a suggestion, the
        # precedence differs), the BKCL_* family on Kunlunxin, no Cambricon name in the data
        Invalid("import os\nos.environ.setdefault('NCCL_SOCKET_IFNAME', 'eth0')\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE)),
        Valid("import os\nrank = os.environ.get('LOCAL_RANK', '0')\n"),
        Valid("export OMP_NUM_THREADS=4\npython train.py\n", path="run.sh"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        # os.environ from Python; ``ENV X`` / ``export X`` / ``X=`` from Dockerfiles and scripts
        if usage.kind not in self.kinds or not usage.context:
            return None
        name = usage.context
        action = "reads" if usage.kind == _ENV_READ else "sets"
        held = next((a.value.via for a in usage.args if a.keyword == ENV_KEY and a.value.via), None)

        def verdict(target) -> Verdict:
            found = target.environment(name)
            if found is not None:
                entry, source = found
                if entry.get("to"):
                    note = f" ({entry['note']})" if entry.get("note") else ""
                    doc = f"; documented at {entry['doc']}" if entry.get("doc") else ""
                    if held is not None:  # ``os.environ[CUDA_ENVVAR]``: the name is written where it is set
                        return Verdict(Status.REWRITE, f"{action} {name} through `{held}`: use {entry['to']} on "
                                       f"{target.id}, changed where `{held}` is set{note}{doc}", source,
                                       fix=fix_of(f'{held.rsplit(".", 1)[-1]} = "{entry["to"]}"'))
                    return Verdict(Status.REWRITE, f"{action} {name}: use {entry['to']} on {target.id}{note}{doc}",
                                   source, fix=fix_of(usage.snippet.replace(name, str(entry["to"])),
                                                      Edit(EditKind.STRING, name, str(entry["to"])),
                                                      safe=bool(entry.get("exact", True))))
                return Verdict(Status.UNSUPPORTED, f"{action} {name}: the vendor lists no {target.id} equivalent",
                               source)
            family = target.environment(name.split("_", 1)[0] + "_*")  # NCCL_* -> BKCL_*: the job, not the name
            if family is not None:
                entry, source = family
                return Verdict(Status.UNKNOWN, f"{action} {name}: on {target.id} use the {entry['to']} variable that "
                               f"does its job ({entry['note']}); see {entry['doc']}", source)
            return cuda_names(target).unlisted_variable(target, action, name)

        if CUDA_TUNING_VARIABLES.match(name):
            return per_target(ctx, lambda t: _a_knob(verdict(t), name))
        return per_target(ctx, verdict)


def _a_knob(verdict: Verdict, name: str) -> Verdict:
    """A variable that only tunes or debugs (``NCCL_ASYNC_ERROR_HANDLING``, ``PYTORCH_CUDA_ALLOC_CONF``,
    ``CUBLAS_WORKSPACE_CONFIG``): the run goes on without it, so what the target needs is a choice to make on the
    card, not work; the verdict keeps its counterpart, as a note."""
    if verdict.status == Status.SUPPORTED:
        return verdict
    why = f"{name} only tunes or debugs the run: training goes on without it; set the counterpart if you need it"
    return replace(verdict, evidence=(Evidence(Grade.NOTE, verdict.source, why),))
