"""The launch environment: CUDA/NCCL variables (in scripts, Dockerfiles and from Python), NVIDIA tools,
base images and CUDA-only packages."""

from __future__ import annotations

import re
from typing import Optional

from ..model import Category, Edit, Status, Usage, Verdict
from ..resolve.vocabulary import Vocabulary
from ..sources.environment import CUDA_ENV_PREFIXES
from .base import Rule, RuleContext, Verdicts, cuda_names, per_target
from ..maps.load import Pairing, device_tools, paired, pairings, runtime, torch_lines
from .examples import Invalid, Valid
from .third_party import library_verdict


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
    is replaced where it is written. An equivalent with different semantics (Ascend's
    `ASCEND_RT_VISIBLE_DEVICES` takes ascending device ids only) is a suggestion, not applied by `fix`.
    """

    name = "environment-variable"
    priority = 210
    kinds = frozenset({"env", "env-read"})
    category = Category.ENVIRONMENT
    summary = "CUDA and NCCL environment variables"
    vocabulary = Vocabulary(
        environment_readers=frozenset({"os.environ.get", "os.getenv", "os.environ.pop"}),
        environment_writers=frozenset({"os.environ.setdefault", "os.putenv", "os.environ.update"}),
        environment_prefixes=CUDA_ENV_PREFIXES)
    examples = (
        # Kunlunxin's launches name its devices with XPU_VISIBLE_DEVICES (FlagPerf): a rewrite, never applied alone
        Invalid("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0,1'\n",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.REWRITE),
                fixed=dict(neuware="import torch_mlu\nimport os\nos.environ['MLU_VISIBLE_DEVICES'] = '0,1'\n")),
        Invalid("export CUDA_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node=2 train.py\n", path="run.sh",
                expect=dict(cann=Status.REWRITE, neuware=Status.REWRITE, kunlun=Status.REWRITE),
                fixed=dict(neuware="export MLU_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node=2 train.py\n")),
        # no one-to-one name on any target; on kunlun the message names the BKCL_* family that does the job
        Invalid("import os\nos.environ.setdefault('NCCL_DEBUG', 'INFO')\n", expect=Status.UNKNOWN),
        Invalid("export TORCH_NCCL_BLOCKING_WAIT=1\ntorchrun --nproc_per_node=8 train.py\n", path="run.sh",
                expect=dict(cann=Status.REWRITE, neuware=Status.UNKNOWN, kunlun=Status.UNKNOWN),
                fixed=dict(cann="export TORCH_HCCL_BLOCKING_WAIT=1\ntorchrun --nproc_per_node=8 train.py\n")),
        Valid("import os\nrank = os.environ.get('LOCAL_RANK', '0')\n"),
        Valid("export OMP_NUM_THREADS=4\npython train.py\n", path="run.sh"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        # os.environ from Python; ``ENV X`` / ``export X`` / ``X=`` from Dockerfiles and scripts
        if usage.kind not in self.kinds or not usage.context:
            return None
        name = usage.context
        action = "reads" if usage.kind == "env-read" else "sets"

        def verdict(target) -> Verdict:
            found = target.environment(name)
            if found is not None:
                entry, source = found
                if entry.get("to"):
                    note = f" ({entry['note']})" if entry.get("note") else ""
                    doc = f"; documented at {entry['doc']}" if entry.get("doc") else ""
                    return Verdict(Status.REWRITE, f"{action} {name}: use {entry['to']} on {target.id}{note}{doc}",
                                   source, suggestion=usage.snippet.replace(name, str(entry["to"])),
                                   fixable=bool(entry.get("exact", True)), edit=Edit("string", name, str(entry["to"])))
                return Verdict(Status.UNSUPPORTED, f"{action} {name}: the vendor lists no {target.id} equivalent",
                               source)
            family = target.environment(name.split("_", 1)[0] + "_*")  # NCCL_* -> BKCL_*: the job, not the name
            if family is not None:
                entry, source = family
                return Verdict(Status.UNKNOWN, f"{action} {name}: on {target.id} use the {entry['to']} variable that "
                               f"does its job ({entry['note']}); see {entry['doc']}", source)
            return cuda_names(target).unlisted_variable(target, action, name)
        return per_target(ctx, verdict)


class NvidiaTool(Rule):
    """NVIDIA command-line tools in scripts and notebooks.

    ## What it does
    Finds `nvidia-smi`, `nvcc`, `nsys`, `ncu`, `nvprof`, `nvidia-docker` and `docker --gpus` run from shell
    scripts, Dockerfiles and notebook `!` lines, including inside `$(...)`. A tool name that is only
    printed (`echo "run nvidia-smi"`) is not a command.

    ## Why is this bad?
    The tools need NVIDIA's driver, which target machines do not have: the script fails at that line, or
    a check built on its output (counting GPUs with `nvidia-smi -L`) gives zero.

    ## Fix safety
    A suggestion, never applied: the vendor's tool (`npu-smi info`, `cnmon`) where the bundled data names
    one, but its options and output differ, so scripts that parse the output need a look.
    """

    name = "nvidia-tool"
    priority = 220
    kinds = frozenset({"command"})
    category = Category.ENVIRONMENT
    summary = "NVIDIA command-line tools"
    examples = (
        Invalid("#!/bin/bash\nnvidia-smi\ntorchrun --nproc_per_node=8 train.py\n", path="run.sh",
                expect=Status.REWRITE),
        Invalid("#!/bin/bash\nGPUS=$(nvidia-smi -L | wc -l)\n", path="run.sh", expect=Status.REWRITE),
        Valid("#!/bin/bash\necho 'check the nvidia-smi output first'\n", path="run.sh"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        return per_target(ctx, lambda t: _tool_verdict(t, usage.api))


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
    default).
    """

    name = "launch-environment"
    priority = 225
    kinds = frozenset({"run"})
    category = Category.ENVIRONMENT
    summary = "training launched without the runtime's environment script"
    examples = (
        Invalid("#!/bin/bash\nexport OMP_NUM_THREADS=4\ntorchrun --nproc_per_node=8 train.py\n", path="run.sh",
                expect=dict(cann=Status.REWRITE, neuware=Status.SUPPORTED, kunlun=Status.SUPPORTED)),
        Valid("#!/bin/bash\nsource /usr/local/Ascend/ascend-toolkit/set_env.sh\ntorchrun train.py\n", path="run.sh"),
        Valid("#!/bin/bash\npip install -r requirements.txt\necho 'then run python train.py'\n", path="run.sh"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        return per_target(ctx, _launch_verdict)


def _launch_verdict(target) -> Verdict:
    setup = device_tools().get(target.id, {}).get("env_setup")
    if setup is None:
        return Verdict(Status.SUPPORTED, f"the bundled data names no environment script to source for "
                       f"{_stack(target)} before a launch", "operator_maps/curated/device_tools.yaml")
    return Verdict(Status.REWRITE, f"the script launches training without sourcing the environment of "
                   f"{_stack(target)}: `{setup['to']}` first (the default install path, as the vendor's quick start "
                   "does)",
                   f"operator_maps/curated/device_tools.yaml ({setup['doc']})", suggestion=str(setup["to"]))


def _tool_verdict(target, tool: str) -> Verdict:
    known = device_tools().get(target.id, {})
    entry = (known.get("tools") or {}).get(tool)
    if entry is not None:
        return Verdict(Status.REWRITE, f"`{tool}` needs an NVIDIA driver and is absent on {target.id} machines; "
                       f"use `{entry['to']}`", f"operator_maps/curated/device_tools.yaml ({entry['doc']})",
                       suggestion=str(entry["to"]))
    return Verdict(Status.REWRITE, f"`{tool}` needs an NVIDIA driver and is absent on {target.id} machines; the "
                   f"bundled data names no {_stack(target)} equivalent, so find it in the vendor's tool documentation",
                   "migrator environment rules")


def _stack(target) -> str:
    """The target's software stack by name (``torch_npu and the CANN toolkit``), not its runtime label."""
    return str(device_tools().get(target.id, {}).get("stack") or target.id)


class BaseImage(Rule):
    """A Dockerfile built on an NVIDIA or CUDA image.

    ## What it does
    Finds `FROM` lines whose image carries CUDA: `nvidia/...`, `nvcr.io/nvidia/...`, and any image whose
    name mentions CUDA or cuDNN (`pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime`).

    ## Why is this bad?
    The image ships CUDA and a CUDA build of torch, not the target's driver stack and plugin: the
    container cannot see the target's cards.

    ## Fix safety
    A suggestion, never applied: the bundled data names no base image per target, so the report asks for
    one with the target's stack installed.
    """

    name = "nvidia-base-image"
    priority = 230
    kinds = frozenset({"base-image"})
    category = Category.ENVIRONMENT
    summary = "NVIDIA container base images"
    examples = (
        Invalid("FROM nvidia/cuda:12.1.0-cudnn8-devel-ubuntu22.04\nRUN pip install torch\n", path="Dockerfile",
                expect=Status.REWRITE),
        Valid("FROM python:3.11-slim\nRUN pip install torch\n", path="Dockerfile"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        image = usage.args[0].value.text if usage.args else usage.snippet
        return per_target(ctx, lambda t: Verdict(
            Status.REWRITE, f"base image {image} carries CUDA, not {_stack(t)}: start from an image with "
            f"{_stack(t)} installed (the bundled data names no image)", "migrator environment rules",
            suggestion=f"FROM <an image with {_stack(t)}>"))


def _plain_torch_verdict(target, usage: Usage) -> Verdict:
    """A CUDA build of torch with no pairing to go by: the plain build of the line the target's release runs,
    where the data names one (kunlun's does not)."""
    plugin = target.import_first.split()[-1] if target.import_first else _stack(target)
    if target.torch_line is None:
        return Verdict(Status.REWRITE, f"{usage.context}: install the torch build {_stack(target)} is released with "
                       "(which torch version that is, the public data does not say)", "migrator environment rules")
    return Verdict(
        Status.REWRITE, f"{usage.context}: install the plain torch {target.id} supports, then {plugin}",
        "migrator environment rules",
        suggestion=f"torch {target.torch_line} (the line {_stack(target)} supports)")


def _index_verdict(target, usage: Usage) -> Verdict:
    """A CUDA wheel index: torch's plain build (and the plugin) come from the default index. Which torch to pin
    is the pin's finding (``_cuda_torch_verdict``, ``TorchPin``), so this one names no version."""
    if target.torch_line is None:
        return Verdict(Status.REWRITE, f"{usage.context}: it serves NVIDIA's CUDA builds of torch; install the torch "
                       f"build {_stack(target)} is released with instead (which one, the public data does not say)",
                       "migrator environment rules", suggestion="(remove the CUDA wheel index)")
    return Verdict(Status.REWRITE, f"{usage.context}: it serves CUDA builds of torch, which {_stack(target)} do not "
                   "run with: drop it (the torch pin's finding says which torch to install)",
                   "migrator environment rules", suggestion="(remove the CUDA wheel index)")


def _cuda_torch_verdict(target, usage: Usage, version: Optional[str]) -> Verdict:
    """A CUDA build of torch: the plain build of the same version, with the plugin the vendor pairs with it."""
    pairing = paired(target.id, version) if version else None
    if pairing is None:
        return _plain_torch_verdict(target, usage)
    return Verdict(Status.REWRITE, f"{usage.context}: install the plain torch build, then {_pair_text(pairing)}"
                   + _other_line(target, pairing), pairing.source, suggestion=_pair_pins(pairing))


def _pair_text(pairing: Pairing) -> str:
    return f"{pairing.package} {pairing.version} ({pairing.runtime}), built for torch {pairing.torch}"


def _pair_pins(pairing: Pairing) -> str:
    return f"torch=={pairing.torch}\n{pairing.package}=={pairing.version}"


def _other_line(target, pairing: Pairing) -> str:
    """When the pin is on another torch line than the release this scan judged: how to judge that line."""
    if target.torch_line in (None, pairing.torch_line):
        return ""
    judged = f"; this scan judged {target.id}@{target.version} (torch {target.torch_line}): "
    if pairing.torch_line in torch_lines(target.id):
        return judged + f"`--target {target.id}@{pairing.torch_line}` judges the pinned line"
    return judged + (f"the maps hold no release on torch {pairing.torch_line} "
                     f"(`migrator maps update {pairing.torch_line}`)")


class TorchPin(Rule):
    """A torch pin with no device plugin paired with it.

    ## What it does
    Reads an exact pin of a plain torch build in a requirements file (`torch==2.11.0`) against the vendor's
    pairing table: on Ascend, the torch_npu release built for that torch version (Ascend's compatibility
    table, or the torch a torch_npu wheel requires). A file that already pins that plugin version is left
    alone; a plugin pinned for another torch version is reported. On a runtime with no published pairing
    table, the pin is checked against the torch lines its releases in the data run.

    ## Why is this bad?
    The plugin is built against one torch version: installed beside another, `import torch_npu` fails or
    its kernels do not register. A pin with no plugin beside it installs a machine that has no device.

    ## Example
    `torch==2.11.0` alone becomes `torch==2.11.0` and `torch_npu==2.11.0` (CANN 9.1.0).

    ## Fix safety
    A suggestion, never applied: the CANN toolkit on the machines must match the plugin release too.
    """

    name = "torch-pin"
    priority = 235
    kinds = frozenset({"requirement"})
    category = Category.ENVIRONMENT
    summary = "torch pins with no device plugin paired with them"
    examples = (
        Invalid("numpy>=1.24\ntorch==2.11.0\n", path="requirements.txt",
                expect={"cann": Status.REWRITE, "neuware": Status.REWRITE, "kunlun": Status.UNKNOWN}),
        Invalid("torch==2.11.0\ntorch_npu==2.9.0.post6\n", path="requirements.txt",
                expect={"cann": Status.REWRITE, "neuware": Status.REWRITE, "kunlun": Status.UNKNOWN}),
        Valid("torch>=2.1\n", path="requirements.txt"),
        Valid("torch==2.1.0+cu121\n", path="requirements.txt"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.api != "requirement-pin:torch":
            return None
        version = usage.args[0].value.text
        plugins = dict(p.split("==", 1) for p in usage.args[1].value.text.split())
        return per_target(ctx, lambda t: _pin_verdict(t, version, plugins))


def _pin_verdict(target, version: str, plugins) -> Verdict:
    pairing = paired(target.id, version)
    if pairing is not None:
        pinned = plugins.get(pairing.package)
        if pinned is not None and paired_version(target.id, pinned) == pairing.torch:
            return Verdict(Status.SUPPORTED, f"{pairing.package} {pinned} is built for torch {pairing.torch}",
                           pairing.source)
        if pinned is not None:
            return Verdict(Status.REWRITE, f"{pairing.package} {pinned} is not built for torch {version}: pin "
                           f"{_pair_text(pairing)}" + _other_line(target, pairing), pairing.source,
                           suggestion=_pair_pins(pairing))
        exact = "" if pairing.torch == version else f" (no {pairing.package} release is built for torch {version})"
        return Verdict(Status.REWRITE, f"torch {version} is pinned with no {pairing.package}: pin "
                       f"{_pair_text(pairing)}{exact}" + _other_line(target, pairing), pairing.source,
                       suggestion=_pair_pins(pairing))
    lines = torch_lines(target.id)
    if runtime(target.id).cuda_names == "kept":
        return Verdict(Status.UNKNOWN, f"no public data says which torch version {target.id}'s plugin "
                       f"({_stack(target)}) is built for", "migrator environment rules")
    line = ".".join(version.split(".")[:2])
    if line in lines:
        return Verdict(Status.SUPPORTED, f"torch {line} is a line {target.id}'s releases run",
                       "operator_maps/targets.json")
    return Verdict(Status.REWRITE, f"torch {version} is not a line {target.id}'s releases in the data run "
                   f"({', '.join(lines)}): pin one of those", "operator_maps/targets.json",
                   suggestion=f"torch=={lines[0]}.*" if lines else None)


def paired_version(target_id: str, plugin_version: str) -> Optional[str]:
    """The torch version a plugin release is built for, by the pairing table."""
    return next((p.torch for p in pairings(target_id) if p.version == plugin_version), None)


class CudaRequirement(Rule):
    """CUDA builds and CUDA-only packages in requirements.

    ## What it does
    Finds, in requirements files and `pip install` lines, CUDA builds of torch (`torch==2.1.0+cu121`), the
    CUDA wheel indexes (`download.pytorch.org/whl/cu121`), and packages that are CUDA-only (flash-attn,
    apex, xformers, bitsandbytes, cupy-cuda*, nvidia-* wheels).

    ## Why is this bad?
    A CUDA build of torch does not load the target's plugin, and a CUDA-only package either fails to build
    or installs kernels that cannot run. A package for which the data names a replacement is a `rewrite`
    (drop it once its uses are replaced), else a `port`.

    ## Fix safety
    A suggestion, never applied: the torch line must match the version the target's plugin is built for.
    """

    name = "cuda-requirement"
    priority = 240
    kinds = frozenset({"requirement"})
    category = Category.ENVIRONMENT
    summary = "CUDA builds and CUDA-only packages in requirements"
    examples = (
        Invalid("torch==2.1.0+cu121\n", path="requirements.txt", expect=Status.REWRITE),
        Invalid("cupy-cuda12x\n", path="requirements.txt", expect=Status.PORT),
        Invalid("nvidia-ml-py\n", path="requirements.txt", expect=Status.REWRITE),
        Valid("numpy>=1.24\ntorch==2.1.0\n", path="requirements.txt"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        if usage.api.startswith("requirement-pin:"):
            return None  # a plain pin: TorchPin's
        if usage.api == "requirement:torch":
            pinned = re.search(r"===?\s*(\d+\.\d+\.\d+)", usage.args[0].value.text if usage.args else "")
            return per_target(ctx, lambda t: _cuda_torch_verdict(t, usage, pinned.group(1) if pinned else None))
        if usage.api == "pip.index-url":
            return per_target(ctx, lambda t: _index_verdict(t, usage))
        if usage.api.startswith("requirement:torch"):  # torchvision, torchaudio
            return per_target(ctx, lambda t: _plain_torch_verdict(t, usage))
        library = usage.api.split(":", 1)[1]
        if library in ctx.third_party.libraries:
            return per_target(ctx, lambda t: library_verdict(t, usage, ctx, library))
        return per_target(ctx, lambda t: Verdict(
            Status.PORT, f"{usage.context} is an NVIDIA/CUDA package with no {t.id} build",
            "migrator environment rules"))
