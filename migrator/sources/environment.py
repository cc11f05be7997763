"""Launch environment: shell scripts, Dockerfiles and requirements files.

Reads each line (comments dropped, continuations joined) for what ties a job to NVIDIA hardware:
CUDA/NCCL environment variables, ``nvidia-smi``/``nvcc`` calls, NVIDIA base images, CUDA builds of
torch and CUDA-only packages. Produces ``Usage`` records like the Python resolver does, so one set
of rules gives them verdicts.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import FrozenSet, Iterable, List, Optional, Sequence, Tuple

from ..maps.load import framework_settings
from ..model import Argument, Confidence, FileKind, Span, Usage, UsageKind, Value, ValueKind

#: The prefixes of the variables CUDA, NCCL and PyTorch's CUDA and NCCL layers read (scripts and Python alike).
CUDA_ENV_PREFIXES = ("CUDA_", "NCCL_", "CUDNN_", "NVIDIA_", "PYTORCH_CUDA_", "TORCH_CUDA_", "TORCH_NCCL_", "CUBLAS_")
#: The CUDA, NCCL and PyTorch variables that only tune, debug or make deterministic what runs (NCCL's logging,
#: blocking waits, async error handling and transport switches; PyTorch's CUDA allocator; cuBLAS's workspace for
#: determinism; CUDA's synchronous launches; the architectures an extension build compiles for): a run on
#: another device goes on without them, and the target's counterpart is a choice, not a port.
CUDA_TUNING_VARIABLES = re.compile(
    r"^(?:TORCH_)?NCCL_(?:DEBUG\w*|BLOCKING_WAIT|ASYNC_ERROR_HANDLING|DESYNC_DEBUG|TRACE_BUFFER_SIZE|"
    r"ENABLE_MONITORING|HEARTBEAT_TIMEOUT_SEC|DUMP_ON_TIMEOUT|ENABLE_TIMING|TIMEOUT\w*|P2P_\w+|IB_\w+|NVLS_\w+|"
    r"SHM_DISABLE|CUMEM_ENABLE|MIN_NCHANNELS|MAX_NCHANNELS|BUFFSIZE|NTHREADS|ALGO|PROTO|LAUNCH_MODE|"
    r"AVOID_RECORD_STREAMS|USE_TENSOR_REGISTER_ALLOCATOR_HOOK)$"
    r"|^PYTORCH_CUDA_ALLOC_CONF$|^PYTORCH_NO_CUDA_MEMORY_CACHING$|^CUBLAS_WORKSPACE_CONFIG$|^CUDA_LAUNCH_BLOCKING$"
    r"|^CUDNN_LOGINFO_DBG$|^CUDNN_LOGDEST_DBG$|^TORCH_CUDA_ARCH_LIST$|^CUDA_MODULE_LOADING$")
_ENV_ASSIGN = re.compile(r"(?:^|[\s;&|(])(?:export\s+|ENV\s+|ARG\s+|set\s+|setenv\s+)?"
                         r"((?:" + "|".join(p.rstrip("_") for p in CUDA_ENV_PREFIXES) + r")_\w*)"
                         r"(?:=|\s+(?=\S))([^\s;&|]*)")
_COMMAND = re.compile(r"(?:^|[\s;&|(`$])(nvidia-smi|nvcc|nvidia-docker|nsys|ncu|nvprof)\b")
#: what ``_docker_gpus`` reads, in one pass: a container engine's name, a command separator, and the options that ask
#: for NVIDIA's cards (``docker run --gpus all``, ``--runtime=nvidia``)
_DOCKER_GPU_TOKENS = re.compile(r"\b(docker|nvidia-docker|podman)\b|([|;&])|(--gpus\b|--runtime[= ]nvidia)")
_FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)", re.IGNORECASE)
_NVIDIA_IMAGE = re.compile(r"^(nvidia/|nvcr\.io/nvidia/|.*cuda|.*cudnn)", re.IGNORECASE)
_BACKEND_ARG = re.compile(r"--(?:dist[-_])?backend[= ]+(nccl)\b")
#: a package index option and what starts its value (``\s*+`` possessive); whether the value is a CUDA wheel index
#: (``/whl/cu118``) is decided by ``_index_urls`` without rescanning the value from every option inside it
_INDEX_OPTION = re.compile(r"(?:--(?:extra-)?index-url|-f|--find-links)[= ]\s*+")
_CUDA_WHEELS = re.compile(r"/whl/cu\d")
_SPACE = re.compile(r"\s")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\s+(.*)")

#: Package names (normalised: lower case, '-' for '_') that are CUDA-only builds.
CUDA_PACKAGES = {
    "apex": "apex", "flash-attn": "flash_attn", "flash-attention": "flash_attn", "xformers": "xformers",
    "bitsandbytes": "bitsandbytes", "triton": "triton", "transformer-engine": "transformer_engine",
    "cupy": "cupy", "pycuda": "pycuda", "pynvml": "pynvml", "nvidia-ml-py": "pynvml", "nvidia-ml-py3": "pynvml",
    "mmcv-full": "mmcv.ops", "torch-scatter": "torch_scatter", "torch-sparse": "torch_sparse", "spconv": "spconv",
}
_CUDA_PACKAGE_PREFIXES = ("nvidia-", "cupy-cuda", "spconv-cu", "cuda-python", "tensorrt")
#: The import name of a CUDA-line build of a package (``cupy-cuda12x`` is ``cupy``), so that the requirement and
#: the code's uses name one library.
_CUDA_LINE_BUILDS = {"cupy-cuda": "cupy", "spconv-cu": "spconv"}


def _env_name(line: str, start: int, name: str, kind: FileKind) -> str:
    """What the line is: ``ENV NCCL_P2P_DISABLE`` in a Dockerfile, ``export NCCL_DEBUG`` or ``NCCL_DEBUG=`` in a
    script."""
    before = line[:start].split()
    if kind == FileKind.DOCKERFILE and before[:1] and before[0].upper() in ("ENV", "ARG"):
        return f"{before[0].upper()} {name}"
    if "export" in before:
        return f"export {name}"
    return f"{name}="


#: a command that starts training: a distributed launcher, or Python running a script or module
_LAUNCH = re.compile(r"(?:^|[\s;&|(])(torchrun|deepspeed|accelerate\s+launch"
                     r"|python[\d.]*\s+(?:-\S+\s+)*(?:\S+\.py\b|-m\s+torch\.distributed\.\w+))")
#: sourcing an environment script (the CANN toolkit's ``set_env.sh``, a port's ``env_npu.sh``)
_SOURCES_ENV = re.compile(r"(?:^|[\s;&|(])(?:source|\.)\s+\S*(?:set_env|env_npu|env)\w*\.sh\b")


def read_environment(text: str, kind: FileKind) -> Tuple[Usage, ...]:
    usages: List[Usage] = []
    lines = list(_logical_lines(text))
    for line_no, line in lines:
        usages.extend(scan_line(line, line_no, kind))
    if kind == FileKind.REQUIREMENTS:
        usages.extend(_torch_pin(lines))
    if kind == FileKind.SHELL:
        usages.extend(_launch_without_environment(lines))
        usages.extend(_training_arguments(lines, text.splitlines()))
    return tuple(usages)


#: a fenced code block of a README: its opening fence (its language, where written) and its closing one
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
#: the languages a README's block is a shell session in (none written: most READMEs' launch commands)
_SHELL_BLOCKS = frozenset({"", "bash", "sh", "shell", "console", "zsh", "shell-session"})
#: a shell session's prompt before a command
_PROMPT = re.compile(r"^(\s*)\$\s")


def read_markdown_launches(text: str) -> Tuple[Usage, ...]:
    """The launches a README's shell blocks document, read as a script's are for one thing only: the options of
    a launch of a script that parses its ``TrainingArguments`` (Alpaca's README trains with ``torchrun train.py
    ... --tf32 True``; it ships no script). Every other line of the file is blanked, so lines keep their numbers."""
    kept: List[str] = []
    fence: Optional[str] = None
    shell = False
    for raw in text.splitlines():
        match = _FENCE.match(raw)
        if fence is None and match:
            fence, shell = match.group(1)[:3], match.group(2).lower() in _SHELL_BLOCKS
            kept.append("")
        elif fence is not None and raw.strip().startswith(fence):
            fence, shell = None, False
            kept.append("")
        else:
            kept.append(_PROMPT.sub(r"\1", raw) if fence is not None and shell else "")
    masked = "\n".join(kept)
    return tuple(_training_arguments(list(_logical_lines(masked)), kept))


#: options only transformers' ``HfArgumentParser`` reads into ``TrainingArguments``: a launch that passes two of
#: them runs a script that builds its ``TrainingArguments`` from its command line, so the launch's own options
#: are that call's arguments (FastChat's and LLaVA's ``--tf32 True``, which transformers refuses without CUDA)
_TRAINING_ARGUMENTS_ONLY = frozenset({"per_device_train_batch_size", "per_device_eval_batch_size",
                                      "gradient_accumulation_steps", "evaluation_strategy", "eval_strategy",
                                      "save_strategy", "lr_scheduler_type", "save_total_limit", "logging_steps",
                                      "warmup_ratio", "dataloader_num_workers", "report_to"})
#: ``--name value``, ``--name=value`` or ``--name`` alone (a ``HfArgumentParser`` bool: ``True``)
_OPTION = re.compile(r"(?:^|\s)--([A-Za-z][\w-]*)(?:=([^\s'\"]+)|\s+([^\s'\"-][^\s'\"]*)|(?=\s+-|\s*$))")
#: the call a launch's options stand for
TRAINING_ARGUMENTS = "transformers.TrainingArguments"


def _training_arguments(lines: Sequence[Tuple[int, str]], physical: Sequence[str]) -> List[Usage]:
    """Per option of a launch of a ``TrainingArguments`` script (``_TRAINING_ARGUMENTS_ONLY``) that a framework
    setting reads (``curated/frameworks.yaml``: ``tf32``, ``fp16``, ``ddp_backend``...), a call of
    ``TrainingArguments`` with that keyword, at the physical line the option is written on."""
    settings = _setting_arguments()
    found: List[Usage] = []
    for line_no, line in lines:
        launch = _LAUNCH.search(line)
        if launch is None or _echoed(line, launch.start(1)):
            continue
        options = [(m.group(1).replace("-", "_"), m.group(2) or m.group(3) or "True") for m in _OPTION.finditer(line)]
        if len({name for name, _ in options} & _TRAINING_ARGUMENTS_ONLY) < 2:
            continue
        for name, value in options:
            if name in settings:
                number, column = _written_at(physical, line_no, f"--{name}")
                found.append(Usage(api=TRAINING_ARGUMENTS, kind=UsageKind.CALL,
                                   span=Span(number, column, number, column + len(name) + 2),
                                   snippet=physical[number - 1].strip()[:160], context="command-line option",
                                   args=(Argument(name, Value(ValueKind.OTHER, value)),)))
    return found


@lru_cache(maxsize=1)
def _setting_arguments() -> FrozenSet[str]:
    """The ``TrainingArguments`` fields a framework setting row reads."""
    return frozenset(row.argument for row in framework_settings() if TRAINING_ARGUMENTS in row.calls)


def _written_at(physical: Sequence[str], first: int, text: str) -> Tuple[int, int]:
    """(line, column) of ``text`` in the physical lines of a logical line that starts at ``first``."""
    for number in range(first, len(physical) + 1):
        column = physical[number - 1].find(text)
        if column >= 0:
            return number, column
        if not physical[number - 1].rstrip().endswith("\\"):
            break
    return first, 0


#: the device plugins a requirements file may pin beside torch
PLUGIN_PACKAGES = ("torch-npu", "torch-mlu", "torch-xmlir")
#: the version part of an exact pin (``==2.11.0``, ``===2.11.0+cpu``, with an environment marker or not), after
#: ``_REQUIREMENT`` has taken the name
_EXACT = re.compile(r"^===?\s*([0-9][0-9A-Za-z.]*)(\+\w+)?\s*(?:;.*)?$")


def _torch_pin(lines: Sequence[Tuple[int, str]]) -> List[Usage]:
    """An exact pin of a plain torch build (``torch==2.11.0``; a CUDA build is a ``requirement:torch``
    usage): the plugin that pairs with it must be pinned too. Its arguments are the version and the
    plugins the file pins (``torch_npu==2.11.0``), so the rule can tell a pin already paired."""
    pins = {}
    for line_no, line in lines:
        requirement = _REQUIREMENT.match(line.strip().strip("'\""))
        exact = _EXACT.match(requirement.group(3).strip()) if requirement else None
        if requirement and exact:
            pins[requirement.group(1).lower().replace("_", "-")] = (line_no, line, requirement.group(1), exact)
    if "torch" not in pins or (pins["torch"][3].group(2) or "").startswith("+cu"):
        return []
    line_no, line, name, exact = pins["torch"]
    plugins = " ".join(f"{plugin.replace('-', '_')}=={pins[plugin][3].group(1)}" for plugin in PLUGIN_PACKAGES
                       if plugin in pins)
    return [Usage(api="requirement-pin:torch", kind=UsageKind.REQUIREMENT,
                  span=Span(line_no, max(line.find(name), 0), line_no, len(line.rstrip())), snippet=line.strip()[:160],
                  context=f"torch {exact.group(1)} pinned",
                  args=(Argument(None, Value(ValueKind.STR, exact.group(1))),
                        Argument("plugins", Value(ValueKind.STR, plugins))))]


def _launch_without_environment(lines: Sequence[Tuple[int, str]]) -> List[Usage]:
    """The first training launch of a script that sources no environment script before it: a ``run`` usage
    (the rule says which vendor script to source, where the data names one). One a script, not one a line."""
    for line_no, match, line in _launches(lines):
        return [Usage(api="shell.launch", kind=UsageKind.RUN, span=Span(line_no, match.start(1), line_no, match.end(1)),
                      snippet=line.strip()[:160], context=match.group(1).split()[0])]
    return []


def _launches(lines: Sequence[Tuple[int, str]]) -> Iterable[Tuple[int, "re.Match[str]", str]]:
    """Each launch a script runs (not only prints) before it sources an environment script."""
    for line_no, line in lines:
        if _SOURCES_ENV.search(line):
            return
        match = _LAUNCH.search(line)
        if match and not _echoed(line, match.start(1)):
            yield line_no, match, line


#: the Python file a ``python [options] file.py`` launch runs
_SCRIPT_RUN = re.compile(r"^python[\d.]*\s+(?:-\S+\s+)*[\'\"]?(\S+?\.py)\b")


def launched_scripts(text: str) -> Optional[Tuple[str, ...]]:
    """The Python files a shell script launches (as written: ``build_file_list.py``, ``$DIR/train.py``) before it
    sources an environment script; ``None`` when one of its launches is a distributed launcher or a module
    (``torchrun``, ``python -m torch.distributed.run``): a run of a device job whatever file it starts."""
    scripts: List[str] = []
    for _, match, _ in _launches(list(_logical_lines(text))):
        script = _SCRIPT_RUN.match(match.group(1))
        if script is None:
            return None
        scripts.append(script.group(1))
    return tuple(scripts)


def scan_line(line: str, line_no: int, kind: FileKind, cell: Optional[int] = None) -> List[Usage]:
    """Usages on one logical line of a shell script, Dockerfile or requirements file."""
    found: List[Usage] = []

    def add(api: str, usage_kind: UsageKind, start: int, end: int, context: Optional[str] = None,
            value: Optional[str] = None, confidence: Confidence = Confidence.RESOLVED) -> None:
        args = (Argument(None, Value(ValueKind.STR, value)),) if value is not None else ()
        found.append(Usage(api=api, kind=usage_kind, span=Span(line_no, start, line_no, end, cell),
                           snippet=line.strip()[:160], confidence=confidence, args=args, context=context))

    if kind == FileKind.REQUIREMENTS:
        _requirement(line, 0, add)
        return found
    if kind == FileKind.DOCKERFILE:
        match = _FROM.match(line)
        if match and _NVIDIA_IMAGE.match(match.group(1)):
            add("docker.base-image", UsageKind.BASE_IMAGE, match.start(1), match.end(1), value=match.group(1))
    for match in _ENV_ASSIGN.finditer(line):
        add(_env_name(line, match.start(1), match.group(1), kind), UsageKind.ENV, match.start(1), match.end(2),
            context=match.group(1), value=match.group(2))
    for match in _COMMAND.finditer(line):
        if not _echoed(line, match.start(1)):
            add(match.group(1), UsageKind.COMMAND, match.start(1), match.end(1))
    gpus = _docker_gpus(line)
    if gpus:
        add("docker --gpus", UsageKind.COMMAND, *gpus)
    for match in _BACKEND_ARG.finditer(line):
        add("torch.distributed.Backend", UsageKind.LITERAL, match.start(1), match.end(1), context="command-line option",
            value=match.group(1))
    pip = _PIP_INSTALL.search(line)
    if pip:
        offset = pip.start(1)
        for token in re.finditer(r"\S+", pip.group(1)):
            if not token.group().startswith("-"):
                _requirement(token.group(), offset + token.start(), add)
        for start, end in _index_urls(line):
            add("pip.index-url", UsageKind.REQUIREMENT, start, end, context="CUDA wheel index", value=line[start:end])
    return found


def _docker_gpus(line: str) -> Optional[Tuple[int, int]]:
    """(start, end) of the first option asking for NVIDIA's cards on a container engine's command line; a
    ``--gpus`` of any other command is that program's own (LoRA's bundled Lightning scripts' ``--gpus 1``). One
    pass over the line: a lazy ``docker .*? --gpus`` rescanned it from every engine's name."""
    engine = False
    for token in _DOCKER_GPU_TOKENS.finditer(line):
        if token.group(1):
            engine = True
        elif token.group(2):
            engine = False
        elif engine:
            return token.start(3), token.end(3)
    return None


_ECHO = re.compile(r"^\s*(?:echo|printf)\s")
#: what starts a new command on a line: a pipe, a separator, a substitution
_NEW_COMMAND = re.compile(r"[|;&`]|\$\(")


def _echoed(line: str, start: int) -> bool:
    """Whether the text at ``start`` is only printed (``echo "run nvidia-smi first"``), not run."""
    return bool(_ECHO.match(line)) and not _NEW_COMMAND.search(line, 0, start)


def _requirement(spec: str, offset: int, add) -> None:
    for url_start, url_end in _index_urls(spec):
        add("pip.index-url", UsageKind.REQUIREMENT, offset + url_start, offset + url_end, context="CUDA wheel index",
            value=spec[url_start:url_end])
        return
    match = _REQUIREMENT.match(spec.strip().strip("'\""))
    if not match:
        return
    name = match.group(1).lower().replace("_", "-")
    version = match.group(3) or ""
    start, end = offset, offset + len(spec)
    if name in ("torch", "torchvision", "torchaudio") and re.search(r"\+cu\d+", version):
        add(f"requirement:{name}", UsageKind.REQUIREMENT, start, end, context="CUDA build of " + name,
            value=spec.strip())
    elif name in CUDA_PACKAGES or name.startswith(_CUDA_PACKAGE_PREFIXES):
        library = CUDA_PACKAGES.get(name) or next(
            (lib for prefix, lib in _CUDA_LINE_BUILDS.items() if name.startswith(prefix)), name)
        add(f"requirement:{library}", UsageKind.REQUIREMENT, start, end, context=name, value=spec.strip())
    if _UPPER_BOUND.search(version):
        # ``deepspeed==0.8.3``, ``accelerate<0.20``: a rule knows the release each library first serves a device in
        add(f"requirement-version:{re.sub(r'[-_.]+', '-', name)}", UsageKind.REQUIREMENT, start, end, context=name,
            value=version.split(";", 1)[0].strip())


#: a version specifier that caps the releases a requirement allows (``==``, ``<``, ``<=``, ``~=``)
_UPPER_BOUND = re.compile(r"(?:^|,)\s*(?:===?|<=?|~=)\s*\d")


def _index_urls(line: str) -> Iterable[Tuple[int, int]]:
    r"""(start, end) of each CUDA wheel index a package index option names: what
    ``(?:--(?:extra-)?index-url|-f|--find-links)[= ]\s*(\S*/whl/cu\d+\S*)`` finds, in linear time. That expression
    rescanned a long word from every ``-f`` inside it (``-f=-f=-f=...``: minutes for 200 KB); here the wheel
    indexes and the word ends are found once, and an option takes the rest of its word when a ``/whl/cu`` lies
    in it."""
    wheels = [match.start() for match in _CUDA_WHEELS.finditer(line)]
    if not wheels:
        return
    spaces = [match.start() for match in _SPACE.finditer(line)]
    done = 0
    for option in _INDEX_OPTION.finditer(line):
        start = option.end()
        if start < done:
            continue
        later = bisect_left(spaces, start)
        end = spaces[later] if later < len(spaces) else len(line)
        wheel = bisect_left(wheels, start)
        if wheel < len(wheels) and wheels[wheel] < end:
            yield start, end
            done = end


#: a comment after a command or a requirement (``\s#``, not ``\s+#.*$``, which rescanned a run of spaces from each)
_TRAILING_COMMENT = re.compile(r"\s#")


def _logical_lines(text: str) -> Iterable[Tuple[int, str]]:
    """(first line number, text) with comments dropped and backslash continuations joined."""
    pending: List[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw
        if line.lstrip().startswith("#"):
            line = ""
        else:
            comment = _TRAILING_COMMENT.search(line)
            if comment:
                line = line[:comment.start()].rstrip()
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        pending.append(line)
        joined = " ".join(pending)
        pending = []
        if joined.strip():
            yield start, joined
    if pending:
        yield start, " ".join(pending)
