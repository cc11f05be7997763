"""Code a project keeps per device: CUDA's own backend among its siblings.

Frameworks that already run on several accelerators keep one implementation per device side by side:
composer's ``devices/device_gpu.py`` beside ``device_hpu.py`` and ``device_mps.py``, DeepSpeed's
``accelerator/cuda_accelerator.py`` beside ``npu_accelerator.py`` and ``mlu_accelerator.py``, its ``op_builder/``
builders beside ``op_builder/npu/``. The CUDA file is CUDA's backend, not a migration: where the project has a
sibling for the target's device it serves the target (``supported``); where it has siblings for other devices
only, the work is one new sibling for the target, not renaming CUDA's (every finding in the file is a site of one
finding that says so, and ``fix`` renames nothing there).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..devices import swapped_siblings
from ..maps.load import TargetMap
from ..model import Context, DefinitionKind, Evidence, FileResult, Finding, Grade, Status, Verdict, fix_of

#: How a file or folder name says it is CUDA's.
_CUDA_TOKENS = frozenset({"cuda", "gpu", "nvidia"})
#: How it says it is another device's (a target's own among them).
_DEVICE_TOKENS = frozenset({"npu", "mlu", "hpu", "xpu", "mps", "cpu", "tpu", "neuron", "musa", "sdaa", "xla",
                            "habana", "ascend", "cambricon", "kunlun", "dcu", "rocm", "hip", "ipu", "gaudi", "supa"})
#: The names a target's own sibling may carry.
_TARGET_TOKENS = {"npu": ("npu", "ascend"), "mlu": ("mlu", "cambricon")}
_SPLIT = re.compile(r"[_\-.]")
_SOURCE = "the project's own per-device code"


def cuda_backends(paths: Sequence[str]) -> Dict[str, Tuple[str, ...]]:
    """Each file that is CUDA's member of a per-device family -> its siblings' device tokens."""
    by_folder: Dict[str, Set[str]] = {}
    for path in paths:
        folder, name = posixpath.split(path)
        by_folder.setdefault(folder, set()).add(name)
    found: Dict[str, Tuple[str, ...]] = {}
    for path in paths:
        folder, name = posixpath.split(path)
        devices = _file_siblings(name, by_folder[folder]) or _folder_siblings(folder, by_folder)
        if devices:
            found[path] = devices
    return found


def _file_siblings(name: str, names: Set[str]) -> Tuple[str, ...]:
    """``device_gpu.py`` among ``device_hpu.py``, ``device_mps.py``: the other devices' tokens."""
    stem, dot, suffix = name.rpartition(".")
    parts = _SPLIT.split(stem)
    for at, part in enumerate(parts):
        if part.lower() not in _CUDA_TOKENS:
            continue
        devices = []
        for token in sorted(_DEVICE_TOKENS):
            for spelled in (token, token.upper()):
                # ``flash_attention_dao_cuda.py`` beside ``flash_attention_npu.py``: a variant's words may go
                for kept in range(at, 0 if at else -1, -1):  # all before it, or fewer, never none
                    candidate = "_".join(parts[:kept] + [spelled] + parts[at + 1:])
                    if f"{candidate}{dot}{suffix}" in names:
                        devices.append(token)
                        break
        if devices:
            return tuple(dict.fromkeys(devices))
    return ()


def _folder_siblings(folder: str, by_folder: Dict[str, Set[str]]) -> Tuple[str, ...]:
    """A file in ``op_builder/`` (or ``op_builder/cuda/``) beside ``op_builder/npu/``, ``op_builder/hpu/``: the
    device subfolders, when there are two or more (one ``xla/`` integration folder makes no family)."""
    parent, base = posixpath.split(folder)
    here = folder if base.lower() not in _CUDA_TOKENS else parent
    subfolders = {posixpath.basename(f).lower() for f in by_folder
                  if posixpath.dirname(f) == here and f != here}
    devices = tuple(sorted(subfolders & _DEVICE_TOKENS))
    return devices if len(devices) >= 2 else ()


def _names_another_accelerator(token: str) -> bool:
    """A device word that is neither CUDA's, the CPU's nor a target's (``rocm``, ``xla``, ``hpu``)."""
    return token in _DEVICE_TOKENS and token != "cpu" and not any(
        token in spellings for spellings in _TARGET_TOKENS.values())


def function_backends(results: Sequence[FileResult]) -> Dict[str, Tuple[str, ...]]:
    """Each function (module-qualified) that is CUDA's member of a per-device family in its module
    (accelerate's ``is_cuda_available`` beside ``is_npu_available``, ``_gpu_gather`` beside ``_tpu_gather``)
    -> its siblings' device tokens; and each function named for another accelerator (``is_rocm_available``,
    ``_xla_gather``) -> ``("",)``, with that device's token after it: what it does with CUDA's API is that
    device's (ROCm answers to ``torch.cuda``), never run for the target."""
    found: Dict[str, Tuple[str, ...]] = {}
    for result in results:
        outline = result.outline
        if outline is None:
            continue
        names = {d.name for d in outline.definitions if d.kind == DefinitionKind.FUNCTION}
        by_owner: Dict[str, Set[str]] = {}
        for name in names:
            owner, _, last = name.rpartition(".")
            by_owner.setdefault(owner, set()).add(last)
        for name in names:
            owner, _, last = name.rpartition(".")
            other = next((part.lower() for part in last.split("_") if _names_another_accelerator(part.lower())), None)
            if other is not None:
                found[f"{outline.module}.{name}"] = ("", other)
                continue
            devices = swapped_siblings(last, _CUDA_TOKENS, _DEVICE_TOKENS, by_owner[owner].__contains__)
            if devices == ("cpu",) and last.lower() in _CUDA_TOKENS:
                continue  # d2l's ``gpu(i)`` beside ``cpu()``: the device itself, no implementation the host's mirrors
            if devices:
                found[f"{outline.module}.{name}"] = devices
    return found


#: Folder and file words that name one accelerator's code and little else: the device words but the CPU's and those
#: that name other things in paths too (spiking neurons, pose joints, data-center units)
_PATH_DEVICES = _DEVICE_TOKENS - {"cpu", "neuron", "hip", "ipu", "dcu"}


def device_of_path(path: str) -> Optional[str]:
    """The accelerator a file's folders or name say it is written for (liger's ``ops/backends/_ascend/``, a
    ``hpu_utils.py``), or ``None``: none, or CUDA's as well (a family's CUDA member is ``cuda_backends``')."""
    folder, name = posixpath.split(path)
    words = [word.lower() for part in (*folder.split("/"), name.rpartition(".")[0] or name)
             for word in _SPLIT.split(part) if word]
    if any(word in _CUDA_TOKENS for word in words):
        return None
    return next((word for word in words if word in _PATH_DEVICES), None)


def with_other_devices_code(findings: Sequence[Finding], targets: Sequence[TargetMap]) -> List[Finding]:
    """``findings``, those in a file written for one accelerator (its folder or name says which) judged as that
    device's code on every target: the target's own where it names the target's device (liger's Triton kernels in
    ``backends/_ascend/``, for triton-ascend), else another device's, which the target never loads."""
    out = []
    for finding in findings:
        device = device_of_path(finding.path)
        if device is None or finding.context != Context.TRAINING:
            out.append(finding)
            continue
        verdicts = dict(finding.verdicts)
        for target in targets:
            verdict = verdicts.get(target.id)
            if verdict is None or verdict.status == Status.SUPPORTED:
                continue
            own = device in _TARGET_TOKENS.get(target.device_to, ())
            text = (f"in `{finding.path}`, the project's own code for {device} ({target.id}'s device): it serves "
                    f"{target.id} as written; validate it there" if own else
                    f"in `{finding.path}`, the project's code for {device}: a path {target.id} never loads")
            # a file's name says what it is for, it proves nothing: a note (to validate), not proof
            verdicts[target.id] = Verdict(Status.SUPPORTED, text, _SOURCE,
                                          evidence=(Evidence(Grade.NOTE, _SOURCE, text),))
        out.append(replace(finding, verdicts=verdicts))
    return out


def with_device_backends(findings: Sequence[Finding], results: Sequence[FileResult],
                         targets: Sequence[TargetMap]) -> List[Finding]:
    """``findings``, those in CUDA's member of a per-device family (a file, or a function of a module) judged as
    such on each target that renames the device: ``supported`` where the project has the target's sibling, else
    sites of one finding asking for it; those in a function named for another accelerator are that device's."""
    renamed = [t for t in targets if t.device_to in _TARGET_TOKENS]
    if not renamed:
        return list(findings)
    families = cuda_backends([r.file.rel for r in results])
    functions = function_backends(results)
    if not families and not functions:
        return list(findings)
    heads: Dict[str, Finding] = {}
    out = []
    for finding in findings:
        where = finding.path if finding.path in families else finding.scope
        devices = families.get(finding.path) or functions.get(finding.scope)
        if devices is None or finding.context != Context.TRAINING or not _needs_change(finding, renamed):
            out.append(finding)
            continue
        if devices[0] == "":  # a function named for another accelerator: that device's code
            out.append(replace(finding, verdicts=_anothers(finding, devices[1], renamed)))
            continue
        head = heads.setdefault(where, finding)
        verdicts = dict(finding.verdicts)
        for target in renamed:
            verdict = verdicts.get(target.id)
            if verdict is not None and verdict.status != Status.SUPPORTED:
                verdicts[target.id] = _judged(where, devices, target, verdict, finding.path not in families)
        root = head.id if head is not finding and finding.root is None else finding.root
        out.append(replace(finding, verdicts=verdicts, root=root))
    return out


def _anothers(finding: Finding, device: str, targets: Sequence[TargetMap]) -> Dict[str, Verdict]:
    verdicts = dict(finding.verdicts)
    name = finding.scope.rpartition(".")[2]
    for target in targets:
        verdict = verdicts.get(target.id)
        if verdict is not None and verdict.status != Status.SUPPORTED:
            text = (f"inside `{name}`, named for {device}: CUDA's API serves that device here (its runtime answers "
                    f"to it), a path {target.id} never takes: nothing to change")
            verdicts[target.id] = Verdict(Status.SUPPORTED, text, _SOURCE, evidence=(Evidence(Grade.PROOF, _SOURCE,
                                                                                                text),))
    return verdicts


def _needs_change(finding: Finding, targets: Sequence[TargetMap]) -> bool:
    return any(t.id in finding.verdicts and finding.verdicts[t.id].status != Status.SUPPORTED for t in targets)


def _judged(path: str, devices: Tuple[str, ...], target: TargetMap, verdict: Verdict, function: bool) -> Verdict:
    own = [d for d in devices if d in _TARGET_TOKENS[target.device_to]]
    others = ", ".join(devices[:5])
    if own:
        text = (f"{path} is CUDA's backend among the project's per-device ones ({others}); its {own[0]} backend "
                f"serves {target.id}: nothing to change here")
        return Verdict(Status.SUPPORTED, text, _SOURCE, evidence=(Evidence(Grade.PROOF, _SOURCE, text),))
    suggestion = _sibling_name(path, target.device_to)
    if function and devices == ("cpu",):  # ``dtw_cuda`` beside ``dtw_cpu``: other devices take the host's
        text = (f"{path} is CUDA's fast path beside the project's CPU one, which the other devices take: on "
                f"{target.id} that runs on the host; whether one for {target.device_to} ({suggestion}) is worth "
                f"adding is for a measurement to say; what it does here: {verdict.message}")
        return Verdict(verdict.status, text, f"{_SOURCE}; {verdict.source}", fix=fix_of(f"add {suggestion}"),
                       evidence=(Evidence(Grade.NOTE, _SOURCE, f"{path} beside cpu"),), quotes=verdict.quotes)
    text = (f"{path} is CUDA's backend among the project's per-device ones ({others}): add one for "
            f"{target.device_to} beside it ({suggestion}), rather than renaming this one (which would drop CUDA); "
            f"what it does here: {verdict.message}")
    return Verdict(verdict.status, text, f"{_SOURCE}; {verdict.source}", fix=fix_of(f"add {suggestion}"),
                   evidence=(Evidence(Grade.PROOF, _SOURCE, f"{path} beside {others}"),), quotes=verdict.quotes)


def _sibling_name(path: str, device: str) -> str:
    folder, name = posixpath.split(path)
    renamed: Optional[str] = None
    for token in _CUDA_TOKENS:
        pattern = re.compile(rf"(?<![a-z]){token}(?![a-z])", re.IGNORECASE)
        if pattern.search(name):
            renamed = pattern.sub(device, name, count=1)
            break
    return posixpath.join(folder, renamed) if renamed else posixpath.join(folder, device, name)
