"""Memory estimates against what people use today, and against a real peak.

    python bench/bench_memory.py

For GPT-style models of 124M, 350M and 1.3B parameters (built on the meta device / fake tensors, no
weights) this prints, in GB per card:

    migrator    model states (ZeRO accounting) for DDP on 1 card, ZeRO-2 and ZeRO-3 on 8 cards, and the
                measured activations of one batch (batch 8, sequence 1024, bf16)
    accelerate  `accelerate estimate-memory`'s "training using Adam (peak vRAM)": the largest line of
                `estimate_training_usage` (no activations), from the size `calculate_maximum_sizes` reports
    DeepSpeed   `estimate_zero2_model_states_mem_needs` / `estimate_zero3_model_states_mem_needs` per GPU
                (8 GPUs, no offload; the `_all_live` functions print the same numbers)

Then, for a small model trained for real on the CPU (fp32 AdamW), the peak of live tensor storage
(counted with a TorchDispatchMode; the parameters are included) against migrator's DDP estimate.
Without accelerate or deepspeed installed their columns read "-".
"""

from __future__ import annotations

import sys
import tempfile
import weakref
from pathlib import Path

GB = 1e9
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpt_source import GPT_SOURCE  # noqa: E402

GPT = GPT_SOURCE + '''

def gpt_124m():
    return GPT(768, 12, 12)


def gpt_350m():
    return GPT(1024, 24, 16)


def gpt_1_3b():
    return GPT(2048, 24, 16)


def tiny():
    return GPT(256, 4, 8, vocab=8000, ctx=128)
'''


def others(model, params: int, largest: int):
    try:
        from accelerate.commands.estimate import estimate_training_usage
        from accelerate.utils import calculate_maximum_sizes

        total_size, _ = calculate_maximum_sizes(model)
        accelerate = max(estimate_training_usage(total_size, "bfloat16").values()) / GB
    except ImportError:
        accelerate = None
    try:
        from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
        from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

        z2 = estimate_zero2_model_states_mem_needs(params, 8, 1, cpu_offload=False)[1] / GB
        z3 = estimate_zero3_model_states_mem_needs(params, largest, 8, 1, cpu_offload=False,
                                                   cpu_offload_params=False)[1] / GB
    except ImportError:
        z2 = z3 = None
    return accelerate, z2, z3


def fmt(value) -> str:
    return "-" if value is None else f"{value:.2f}"


class LiveStorage:
    """Peak bytes of live tensor storage while a block runs (the storages that exist before are counted in)."""

    def __init__(self, existing: int) -> None:
        self.live, self.now, self.peak = {}, existing, existing

    def __enter__(self):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_leaves

        tracker = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for t in tree_leaves(out):
                    if isinstance(t, torch.Tensor):
                        storage = t.untyped_storage()
                        key = storage.data_ptr()
                        if key and key not in tracker.live:
                            tracker.live[key] = storage.nbytes()
                            tracker.now += storage.nbytes()
                            weakref.finalize(storage, tracker.drop, key)
                tracker.peak = max(tracker.peak, tracker.now)
                return out
        self.mode = Mode()
        self.mode.__enter__()
        return self

    def drop(self, key) -> None:
        self.now -= self.live.pop(key, 0)

    def __exit__(self, *exc) -> None:
        self.mode.__exit__(*exc)


def _plan(plans, strategy: str):
    return next(c for c in plans if c.strategy == strategy and not c.checkpointing)


def main() -> None:
    import torch

    from migrator.memory.fit import configurations
    from migrator.memory.measure import load_factory, measure_activations, model_facts

    folder = Path(tempfile.mkdtemp())
    (folder / "gpts.py").write_text(GPT, encoding="utf-8")
    print(f"{'model':<10}{'params':>9} | {'migrator DDP x1':>16}{'ZeRO-2 x8':>11}{'ZeRO-3 x8':>11}{'activations':>12} "
          f"| {'accelerate':>11} | {'DeepSpeed Z2 x8':>16}{'Z3 x8':>8}   (GB per card)")
    for name in ("gpt_124m", "gpt_350m", "gpt_1_3b"):
        factory = load_factory(f"gpts:{name}", folder)
        facts = model_facts(factory, 8, 1024)
        acts = measure_activations(factory, 8, 1024, "bf16")
        ddp1 = _plan(configurations(facts, acts, "bf16", "adamw", 1), "ddp").states.total / GB
        eight = configurations(facts, acts, "bf16", "adamw", 8)
        z2, z3 = _plan(eight, "zero2").states.total / GB, _plan(eight, "zero3").states.total / GB
        with torch.device("meta"):
            model = factory()
        accelerate, ds2, ds3 = others(model, facts.params, facts.largest_layer)
        print(f"{name:<10}{facts.params / 1e6:>8.0f}M | {ddp1:>16.2f}{z2:>11.2f}{z3:>11.2f}{acts.bytes / GB:>12.2f} "
              f"| {fmt(accelerate):>11} | {fmt(ds2):>16}{fmt(ds3):>8}")

    factory = load_factory("gpts:tiny", folder)
    batch, seq = 4, 128
    facts = model_facts(factory, batch, seq)
    acts = measure_activations(factory, batch, seq, "fp32")
    estimate = _plan(configurations(facts, acts, "fp32", "adamw", 1), "ddp").total
    model = factory()
    optimizer = torch.optim.AdamW(model.parameters())
    data = torch.randint(0, 8000, (batch, seq))
    existing = sum(p.numel() * p.element_size() for p in model.parameters())
    with LiveStorage(existing) as live:
        for _ in range(2):  # the second step has the optimizer states from the first
            model(data).float().mean().backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=False)
    print(f"\nreal CPU step of a {facts.params / 1e6:.1f}M GPT (batch {batch}, seq {seq}, fp32 AdamW): peak live "
          f"storage {live.peak / 1e6:.1f} MB; migrator's DDP estimate {estimate / 1e6:.1f} MB "
          f"({100 * (estimate / live.peak - 1):+.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
