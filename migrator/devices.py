"""The names of devices and collective backends, as code writes them: one vocabulary for the readers (a literal's
siblings, the accelerators an if/elif chain tests for) and the rules (a ``"cuda"`` listed beside other devices)."""

from __future__ import annotations

import re

#: Accelerators other than CUDA (and the CPU) that a device string, an availability test or a table may name.
ACCELERATORS = frozenset({"npu", "mlu", "xpu", "hpu", "musa", "mps", "xla", "tpu", "ipu", "rocm", "hip",
                          "privateuseone", "sdaa", "neuron", "gcu", "mtia"})
#: Collective backends, CUDA's and the others'.
BACKENDS = frozenset({"nccl", "hccl", "cncl", "gloo", "bkcl", "xccl", "mpi", "ucc"})
#: A device (``cuda:0``, ``npu``, ``cpu``, ``meta``) or backend name, whole: what sits beside a literal says
#: which device it chooses among.
DEVICE_WORD = re.compile(r"^(?:%s)(?::\d{1,4})?$" % "|".join(sorted({"cuda", "cpu", "meta"} | ACCELERATORS | BACKENDS)))
