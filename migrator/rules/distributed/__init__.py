"""Collectives: the ``nccl`` backend in every spelling, NCCL APIs, DataParallel, DDP and FSDP."""

from __future__ import annotations
