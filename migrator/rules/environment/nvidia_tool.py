"""The ``nvidia-tool`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.load import device_tools
from ...model import Category, Status, Usage, UsageKind, Verdict, fix_of
from ...resolve.modules import PROGRAM_PROBED
from ...resolve.vocabulary import Vocabulary
from ..base import Claim, Rule, RuleContext, Verdicts, per_target, runs_on_a_note
from ..examples import Invalid, Valid
from . import _stack


class NvidiaTool(Rule):
    """NVIDIA command-line tools in scripts and notebooks.

    ## What it does
    Finds `nvidia-smi`, `nvcc`, `nsys`, `ncu`, `nvprof`, `nvidia-docker` and `docker --gpus` run from shell
    scripts, Dockerfiles and notebook `!` lines, including inside `$(...)`, and from Python through
    `subprocess` (`run`, `Popen`, `check_output`, ...), `os.system` and `os.popen`: the program of an
    argument list, or a command of a shell string. A tool name that is only printed (`echo "run
    nvidia-smi"`, a log message) or passed as an argument is not a command, and a launch in a `try` whose
    handler goes on where the program is missing is a probe that works on the target too.

    ## Why is this bad?
    The tools need NVIDIA's driver, which target machines do not have: the script fails at that line, or
    a check built on its output (counting GPUs with `nvidia-smi -L`) gives zero.

    ## Fix safety
    A suggestion, never applied: the vendor's tool (`npu-smi info`, `cnmon`) where the bundled data names
    one, but its options and output differ, so scripts that parse the output need a look.
    """

    name = "nvidia-tool"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.COMMAND})
    category = Category.ENVIRONMENT
    summary = "NVIDIA command-line tools"
    vocabulary = Vocabulary(
        process_launchers=frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call",
                                     "subprocess.check_output", "subprocess.Popen", "subprocess.getoutput",
                                     "subprocess.getstatusoutput", "os.system", "os.popen"}),
        command_tools=frozenset({"nvidia-smi", "nvcc", "nsys", "ncu", "nvprof", "nvidia-docker"}))
    examples = (
        Invalid("#!/bin/bash\nnvidia-smi\ntorchrun --nproc_per_node=8 train.py\n", path="run.sh",
                expect=Status.REWRITE),
        Invalid("#!/bin/bash\nGPUS=$(nvidia-smi -L | wc -l)\n", path="run.sh", expect=Status.REWRITE),
        Valid("#!/bin/bash\necho 'check the nvidia-smi output first'\n", path="run.sh"),
        Invalid("#!/bin/bash\ndocker run --rm --gpus all -v $PWD:/ws trainer:latest python train.py\n", path="run.sh",
                expect=Status.REWRITE),
        # a training script's own option of that name (LoRA's bundled Lightning scripts): no container asks for cards
        Valid("#!/bin/bash\npython finetune.py --data_dir $DATA --gpus 1 --fp16\n", path="run.sh"),
        # launched from Python: the program of an argument list, or a command of a shell string
        Invalid("import subprocess\nout = subprocess.run(['nvidia-smi', '-L'], capture_output=True).stdout\n",
                expect=Status.REWRITE),
        Invalid("import os\nos.system('nvidia-smi --query-gpu=memory.used --format=csv | tail -n 1')\n",
                expect=Status.REWRITE),
        Valid("import subprocess\nsubprocess.run(['echo', 'nvidia-smi is not run here'])\n"),
        # a probe: the handler answers where the program is missing, as on the target's machines
        Invalid("import subprocess\ndef toolkit_available():\n    try:\n        subprocess.call(['nvcc'])\n"
                "        return True\n    except FileNotFoundError:\n        return False\n", expect=Status.SUPPORTED),
        Valid("import logging\nlogging.info('run nvidia-smi to see the cards')\n"),
        # a notebook's shell escape and its %env / %pip magics are commands too
        Invalid('{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ["!nvidia-smi\\n"]}], '
                '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}', path="explore.ipynb", expect=Status.REWRITE),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        if usage.context == PROGRAM_PROBED:
            return per_target(ctx, lambda t: _probed(t, usage.api))
        return per_target(ctx, lambda t: _tool_verdict(t, usage.api))


def _probed(target, tool: str) -> Verdict:
    """A launch whose handler covers the program's absence (a probe): on the target's machine the handler runs."""
    return runs_on_a_note(f"`{tool}` is launched in a `try` whose handler goes on where it is missing: on "
                          f"{target.id} machines the handler runs (a probe that answers no; the code after it is "
                          f"what to check)", "Python's subprocess (a missing program raises FileNotFoundError)")


def _tool_verdict(target, tool: str) -> Verdict:
    known = device_tools().get(target.id, {})
    entry = (known.get("tools") or {}).get(tool)
    if entry is not None:
        return Verdict(Status.REWRITE, f"`{tool}` needs an NVIDIA driver and is absent on {target.id} machines; "
                       f"use `{entry['to']}`", f"operator_maps/curated/device_tools.yaml ({entry['doc']})",
                       fix=fix_of(str(entry["to"])))
    return Verdict(Status.REWRITE, f"`{tool}` needs an NVIDIA driver and is absent on {target.id} machines; the "
                   f"bundled data names no {_stack(target)} equivalent, so find it in the vendor's tool documentation",
                   "migrator environment rules")
