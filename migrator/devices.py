"""The names of devices and collective backends, as code writes them: one vocabulary for the readers (a literal's
siblings, the accelerators an if/elif chain tests for) and the rules (a ``"cuda"`` listed beside other devices)."""

from __future__ import annotations

import re
from typing import Callable, Collection, Tuple

#: Accelerators other than CUDA (and the CPU) that a device string, an availability test or a table may name.
ACCELERATORS = frozenset({"npu", "mlu", "xpu", "hpu", "musa", "mps", "xla", "tpu", "ipu", "rocm", "hip",
                          "privateuseone", "sdaa", "neuron", "gcu", "mtia"})
#: Collective backends, CUDA's and the others'.
BACKENDS = frozenset({"nccl", "hccl", "cncl", "gloo", "bkcl", "xccl", "mpi", "ucc"})
#: A device (``cuda:0``, ``npu``, ``cpu``, ``meta``) or backend name, whole: what sits beside a literal says
#: which device it chooses among.
#: CUDA's availability questions: whether a device is there, and how many (``torch.cuda.device_count() > 0``)
CUDA_AVAILABILITY = frozenset({"torch.cuda.is_available", "torch.cuda.device_count"})
DEVICE_WORD = re.compile(r"^(?:%s)(?::\d{1,4})?$" % "|".join(sorted({"cuda", "cpu", "meta"} | ACCELERATORS | BACKENDS)))


def swapped_siblings(name: str, cuda_words: Collection[str], devices: Collection[str],
                     exists: Callable[[str], bool]) -> Tuple[str, ...]:
    """The devices whose sibling of ``name`` exists: ``name``'s first word (``_``-separated) in ``cuda_words``
    swapped for the device's (``dtw_cuda`` -> ``dtw_cpu``, ``_gpu_gather`` -> ``_tpu_gather``), sorted; ``()``
    when no word is CUDA's or no sibling exists. One reading of a per-device family for files' functions and
    modules' functions alike."""
    parts = name.split("_")
    for at, part in enumerate(parts):
        if part.lower() in cuda_words:
            return tuple(d for d in sorted(devices) if exists("_".join([*parts[:at], d, *parts[at + 1:]])))
    return ()
