"""`migrator memory` against real training steps on the CPU, and against the rule of thumb.

    python bench/bench_memory_steps.py            # the small configurations (about a minute)
    python bench/bench_memory_steps.py --big      # and a real step of a 1.3B GPT (fp32, SGD: ~11 GB, minutes)
    python bench/bench_memory_steps.py --meta     # and 1.3B / 6.7B GPTs on fake tensors against the formulas

Each configuration is estimated the way `migrator memory` does (the model built without weights, one step
on fake tensors), then trained for real on the CPU for two steps; the second is measured by a dispatch mode
of its own that follows every storage by its data pointer (not the estimator's tracker): the activations
(everything the step allocates except parameters, gradients, optimizer states and autocast's weight copies,
at its maximum) and the step's total (everything live, at its maximum, parameters and optimizer states
included). Printed: estimate, measured and the difference, per configuration, in MB (GB for --big).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import weakref
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpt_source import GPT_SOURCE  # noqa: E402

MODELS = GPT_SOURCE + '''
import torch.nn.functional as F


def gpt_tiny():
    return GPT(256, 4, 8, vocab=8000, ctx=256)


def gpt_1_3b():
    return GPT(2048, 24, 16)


def gpt_6_7b():
    return GPT(4096, 32, 32)


class NanoGPT(GPT):
    """nanoGPT's forward: the loss inside, given targets."""

    def forward(self, idx, targets=None):
        logits = super().forward(idx)
        return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def nano_gpt():
    return NanoGPT(192, 6, 6, vocab=4000, ctx=256)


class Basic(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        return torch.relu(x + self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x))))))


class ResNet(nn.Module):
    def __init__(self, width=32, classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.layer1 = nn.Sequential(*[Basic(width) for _ in range(2)])
        self.layer2 = nn.Sequential(*[Basic(width) for _ in range(2)])
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        return self.fc(self.layer2(self.layer1(self.stem(x))).mean((2, 3)))


def resnet():
    return ResNet()


class ViTBlock(nn.Module):
    def __init__(self, d, heads, drop_path):
        super().__init__()
        self.drop_path = drop_path
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    """timm's layout, and its constructor: the drop-path rates read with .item() (no meta build)."""

    def __init__(self, img_size=96, patch=8, d=192, depth=6, heads=3, classes=100):
        super().__init__()
        self.img_size = img_size
        self.patch_embed = nn.Conv2d(3, d, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.zeros(1, (img_size // patch) ** 2 + 1, d))
        rates = [x.item() for x in torch.linspace(0, 0.1, depth)]
        self.blocks = nn.Sequential(*[ViTBlock(d, heads, r) for r in rates])
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], 1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


def vit():
    return ViT()


def mlp():
    return nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10))


class Audio(nn.Module):
    def __init__(self, c=64):
        super().__init__()
        self.convs = nn.Sequential(*[nn.Sequential(nn.Conv1d(c if i else 1, c, 9, padding=4), nn.GELU())
                                     for i in range(6)])
        self.head = nn.Linear(c, 35)

    def forward(self, x):
        return self.head(self.convs(x).mean(-1))


def audio():
    return Audio()
'''

#: name, factory, batch, seq, dtype, optimizer, checkpointing
SMALL = [
    ("GPT 7M fp32 AdamW b4x128", "gpt_tiny", 4, 128, "fp32", "adamw", False),
    ("GPT 7M bf16-autocast AdamW b4x128", "gpt_tiny", 4, 128, "bf16", "adamw", False),
    ("GPT 7M fp32 AdamW b8x256 checkpointed", "gpt_tiny", 8, 256, "fp32", "adamw", True),
    ("nanoGPT 3M (loss inside) fp32 AdamW b8x256", "nano_gpt", 8, 256, "fp32", "adamw", False),
    ("ResNet 0.1M fp32 SGD-momentum b32 64px", "resnet", 32, 64, "fp32", "sgd-momentum", False),
    ("ViT 2.8M (.item() in ctor) bf16 AdamW b16", "vit", 16, None, "bf16", "adamw", False),
    ("MLP 5.3M fp32 SGD b64x16", "mlp", 64, 16, "fp32", "sgd", False),
    ("Conv1d audio 0.1M bf16 AdamW b16x4000", "audio", 16, 4000, "bf16", "adamw", False),
]
BIG = [("GPT 1.3B fp32 SGD b1x512", "gpt_1_3b", 1, 512, "fp32", "sgd", False)]


class Timeline:
    """Every storage a block of real ops allocates, by data pointer, and when it is freed."""

    def __init__(self) -> None:
        self.events: list = []  # (+1 | -1, id, bytes)
        self.live: dict = {}  # data pointer -> (id, bytes)
        self.ids = itertools.count()
        self.copy_ids: set = set()
        self.param_ptrs: set = set()

    def existing(self, tensor) -> int:
        return self._add(tensor)

    def id_of(self, tensor):
        entry = self.live.get(tensor.untyped_storage().data_ptr())
        return entry[0] if entry else None

    def _add(self, tensor):
        storage = tensor.untyped_storage()
        pointer = storage.data_ptr()
        if not pointer or pointer in self.live:
            return self.live.get(pointer, (None,))[0]
        number = next(self.ids)
        self.live[pointer] = (number, storage.nbytes())
        self.events.append((1, number, storage.nbytes()))
        weakref.finalize(storage, self._free, pointer, number)
        return number

    def _free(self, pointer, number) -> None:
        entry = self.live.get(pointer)
        if entry and entry[0] == number:
            del self.live[pointer]
            self.events.append((-1, number, entry[1]))

    def mode(self):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_leaves

        timeline = self
        to_copy = torch.ops.aten._to_copy.default

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                copy = (func is to_copy and isinstance(args[0], torch.Tensor)
                        and args[0].untyped_storage().data_ptr() in timeline.param_ptrs)
                for tensor in tree_leaves(out):
                    if isinstance(tensor, torch.Tensor):
                        number = timeline._add(tensor)
                        if copy and number is not None:
                            timeline.copy_ids.add(number)
                return out
        return Mode()

    def peaks(self, kept: set):
        """(maximum of everything live, maximum of what is not in ``kept`` nor a weight copy, of the copies)."""
        now = activations = copies = 0
        peak_total = peak_act = peak_copies = 0
        for sign, number, size in self.events:
            now += sign * size
            if number in self.copy_ids:
                copies += sign * size
            elif number not in kept:
                activations += sign * size
            peak_total, peak_act, peak_copies = max(peak_total, now), max(peak_act, activations), max(peak_copies,
                                                                                                        copies)
        return peak_total, peak_act, peak_copies


def optimizer_for(name, parameters):
    import torch

    if name in ("adam", "adamw"):
        return torch.optim.AdamW(parameters, foreach=True)  # a device's default (foreach), not the CPU's loop
    return torch.optim.SGD(parameters, lr=0.01, momentum=0.9 if name == "sgd-momentum" else 0.0, foreach=True)


def measured_step(factory, batch, seq, dtype, optimizer_name, checkpointing):
    """Two real CPU steps; the second's peaks: (total, activations, weight copies), in bytes."""
    import torch

    from migrator.memory.measure import _checkpoint_blocks, _input_plan, _loss

    torch.manual_seed(0)
    model = factory()
    if checkpointing:
        _checkpoint_blocks(model)
    optimizer = optimizer_for(optimizer_name, model.parameters())
    autocast = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dtype)
    make = _input_plan(model, batch, seq)[0]

    def step():
        args, kwargs = make()
        with torch.autocast("cpu", dtype=autocast, enabled=autocast is not None):
            loss = _loss(model(*args, **kwargs))
        loss.backward()
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        optimizer.step()
        optimizer.zero_grad()  # set_to_none=True, PyTorch's default
        return grads

    step()
    timeline = Timeline()
    kept = set()
    for tensor in list(model.parameters()) + list(model.buffers()):
        kept.add(timeline.existing(tensor))
        timeline.param_ptrs.add(tensor.untyped_storage().data_ptr())
    for state in optimizer.state.values():
        for value in state.values():
            if isinstance(value, torch.Tensor):
                kept.add(timeline.existing(value))
    with timeline.mode():
        grads = step()
        kept.update(timeline.id_of(g) for g in grads)
    del grads
    return timeline.peaks(kept)


def estimated(factory, batch, seq, dtype, optimizer_name, checkpointing):
    """(total of the single-card plan, activations, weight copies) as `migrator memory` computes them."""
    from migrator.memory.fit import configurations
    from migrator.memory.measure import measure_activations, model_facts

    facts = model_facts(factory, batch, seq)
    acts = measure_activations(factory, batch, seq, dtype)
    plan = next(c for c in configurations(facts, acts, dtype, optimizer_name, 1)
                if c.strategy == "ddp" and c.checkpointing == checkpointing)
    activations = acts.checkpointed if checkpointing else acts.bytes
    return plan.total, activations, acts.weight_copies, facts.params


def pct(estimate, measured) -> str:
    return f"{100 * (estimate / measured - 1):+.1f}%" if measured else "-"


def compare(rows, unit, scale) -> None:
    from migrator.memory.measure import load_factory

    folder = Path(tempfile.mkdtemp())
    (folder / "bench_models.py").write_text(MODELS, encoding="utf-8")
    print(f"{'configuration':<46}{'activations est/meas':>24}{'diff':>8}{'total est/meas':>22}{'diff':>8}"
          f"{'copies est/meas':>20}   ({unit})")
    for name, factory_name, batch, seq, dtype, optimizer_name, checkpointing in rows:
        factory = load_factory(f"bench_models:{factory_name}", folder)
        total, acts, copies, _ = estimated(factory, batch, seq, dtype, optimizer_name, checkpointing)
        real_total, real_acts, real_copies = measured_step(factory, batch, seq, dtype, optimizer_name, checkpointing)
        print(f"{name:<46}{f'{acts / scale:.1f} / {real_acts / scale:.1f}':>24}{pct(acts, real_acts):>8}"
              f"{f'{total / scale:.1f} / {real_total / scale:.1f}':>22}{pct(total, real_total):>8}"
              f"{f'{copies / scale:.1f} / {real_copies / scale:.1f}':>20}", flush=True)


def formulas() -> None:
    """Fake-tensor estimates of GPTs above 1B parameters against 16 bytes a parameter and Korthikanti et al.'s
    activations (2022, section 4.1: s*b*h*(34 + 5*a*s/h) bytes a layer in 16-bit, no recomputation), in full
    and as this model runs: no dropout (its masks are 2 s*b*h and the a*s^2*b attention-dropout mask) and a
    fused attention that keeps no a*s^2 scores (32 s*b*h a layer); both plus the logits (16-bit, their fp32
    copy for the loss and its gradient: 10 bytes a logit)."""
    from migrator.memory.fit import configurations
    from migrator.memory.measure import load_factory, measure_activations, model_facts

    folder = Path(tempfile.mkdtemp())
    (folder / "bench_models.py").write_text(MODELS, encoding="utf-8")
    print(f"\n{'model (bf16 AdamW, 1 card)':<30}{'params':>8}{'16 B/param':>12}{'ours: states':>14}"
          f"{'acts':>8}{'Korthikanti':>13}{'as it runs':>12}{'copies':>8}{'ckpt acts':>11}{'total':>8}   (GB)")
    for name, d, layers, heads, batch, seq in (("gpt_1_3b", 2048, 24, 16, 1, 2048),
                                               ("gpt_6_7b", 4096, 32, 32, 1, 2048)):
        factory = load_factory(f"bench_models:{name}", folder)
        facts = model_facts(factory, batch, seq)
        acts = measure_activations(factory, batch, seq, "bf16")
        plan = next(c for c in configurations(facts, acts, "bf16", "adamw", 1) if c.strategy == "ddp"
                    and not c.checkpointing)
        sbh = seq * batch * d
        logits = 10 * seq * batch * 50257
        korthikanti = layers * sbh * (34 + 5 * heads * seq / d) + logits
        as_it_runs = layers * sbh * 32 + logits
        print(f"{name + f' b{batch}x{seq}':<30}{facts.params / 1e9:>7.2f}B{16 * facts.params / 1e9:>12.1f}"
              f"{plan.states.total / 1e9:>14.1f}{acts.bytes / 1e9:>8.2f}{korthikanti / 1e9:>13.2f}"
              f"{as_it_runs / 1e9:>12.2f}"
              f"{acts.weight_copies / 1e9:>8.2f}{acts.checkpointed / 1e9:>11.2f}{plan.total / 1e9:>8.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--big", action="store_true", help="also a real step of a 1.3B GPT (about 11 GB)")
    parser.add_argument("--meta", action="store_true", help="also 1.3B and 6.7B GPTs on fake tensors")
    options = parser.parse_args()
    compare(SMALL, "MB", 1e6)
    if options.big:
        print()
        compare(BIG, "GB", 1e9)
    if options.meta:
        formulas()


if __name__ == "__main__":
    sys.exit(main())
