"""The launch environment: CUDA/NCCL variables (in scripts, Dockerfiles and from Python), NVIDIA tools,
base images and CUDA-only packages.
"""


from __future__ import annotations

from ...maps.load import Pairing, device_tools, torch_lines


def _stack(target) -> str:
    """The target's software stack by name (``torch_npu and the CANN toolkit``), not its runtime label."""
    return str(device_tools().get(target.id, {}).get("stack") or target.id)


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
