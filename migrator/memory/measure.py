"""The user's model without memory: parameters counted on the meta device, activations measured on fake
tensors with PyTorch's own memory tracker (``torch.distributed._tools.mem_tracker.MemTracker``).

Runs the user's factory (their code) to build the model; no weights are allocated and nothing needs a GPU.
"""

from __future__ import annotations

import functools
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Tuple

INSTALL_HINT = "migrator memory needs torch: pip install torch==2.13.0 (the CPU build is enough)"


class TorchMissing(RuntimeError):
    pass


class FactoryError(ValueError):
    """MODULE:FACTORY names nothing callable, or the model it builds cannot run a step on fake tensors."""


@dataclass(frozen=True)
class ModelFacts:
    params: int
    trainable: int
    largest_layer: int  # parameters of the largest leaf module (what ZeRO-3 / FSDP gathers at once)
    blocks: Optional[str]  # the repeated blocks activation checkpointing wraps ("blocks": 12 x Block)
    input: str  # how the sample input was made
    #: how the parameters were counted: on the meta device, or from a real build on the CPU where the model
    #: reads a tensor's value while it is built (timm's ``.item()`` in some constructors)
    counted_on: str = "meta"


@dataclass(frozen=True)
class Activations:
    """Peak activation bytes (activations and temporaries at the step's memory peak) for one card's batch."""

    bytes: float
    checkpointed: float  # the same with each repeated block checkpointed (== bytes when there are none)


def require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise TorchMissing(INSTALL_HINT) from exc


def load_factory(spec: str, root: Path) -> Callable[[], Any]:
    """``pkg.module:function`` (or ``:Class``) under ``root``."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise FactoryError(f"--model takes MODULE:FACTORY (e.g. model.gpt:build), not {spec!r}")
    sys.path.insert(0, str(Path(root).resolve()))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's import failing is theirs to see, as data
        raise FactoryError(f"importing {module_name}: {type(exc).__name__}: {exc}") from exc
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise FactoryError(f"{module_name} has no callable {attribute!r}")
    return factory


def model_facts(factory: Callable[[], Any], batch: int, seq: int, make_input=None) -> ModelFacts:
    """Counts on the meta device: ``sum(p.numel())`` over the model's parameters."""
    import torch

    counted_on = "meta"
    try:
        with torch.device("meta"):
            model = factory()
    except Exception as meta_error:  # the constructor reads a value (``.item()``): build it for real, on the CPU
        counted_on = f"cpu (the meta build failed: {type(meta_error).__name__}: {_first_line(meta_error)})"
        model = _built(factory, "on the CPU")
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    leaves = [m for m in model.modules() if not list(m.children())]
    largest = max((sum(p.numel() for p in m.parameters(recurse=False)) for m in leaves), default=0)
    container = _repeated_blocks(model)
    blocks = f"{container[0]}: {len(container[1])} x {type(container[1][0]).__name__}" if container else None
    description = "your input factory" if make_input else _input_plan(model, batch, seq)[1]
    return ModelFacts(params=params, trainable=trainable, largest_layer=largest, blocks=blocks, input=description,
                      counted_on=counted_on)


def _built(factory: Callable[[], Any], where: str) -> Any:
    """``factory()``, its failure a ``FactoryError`` that says where it was built and why (not a traceback)."""
    try:
        return factory()
    except Exception as exc:
        raise FactoryError(f"building the model {where} failed: {type(exc).__name__}: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


def measure_activations(factory: Callable[[], Any], batch: int, seq: int, dtype: str,
                        make_input: Optional[Callable[[int, int], Sequence[Any]]] = None) -> Activations:
    plain = _peak_activations(factory, batch, seq, dtype, make_input, checkpoint=False)
    checkpointed = _peak_activations(factory, batch, seq, dtype, make_input, checkpoint=True)
    return Activations(bytes=plain, checkpointed=min(plain, checkpointed))


def _peak_activations(factory, batch: int, seq: int, dtype: str, make_input, checkpoint: bool) -> float:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.distributed._tools.mem_tracker import MemTracker

    autocast = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dtype)
    with FakeTensorMode():
        model = _built(factory, "under fake tensors (to measure a step without memory)")
        if checkpoint:
            _checkpoint_blocks(model)
        inputs = tuple(make_input(batch, seq)) if make_input else _input_plan(model, batch, seq)[0]()
        tracker = MemTracker()
        tracker.track_external(model)
        try:
            with tracker:
                with torch.autocast("cpu", dtype=autocast, enabled=autocast is not None):
                    loss = _loss(model(*inputs))
                loss.backward()
        except Exception as exc:
            raise FactoryError(f"one step on fake tensors failed: {type(exc).__name__}: {exc}") from exc
        peak = tracker.get_tracker_snapshot("peak")
    return float(sum(stats.get(kind, 0) for stats in peak.values() for kind in _activation_kinds(stats)))


def _activation_kinds(stats) -> Tuple[Any, ...]:
    return tuple(k for k in stats if str(k).endswith(("ACT", "TEMP")))


def _loss(output):
    import torch

    if isinstance(output, dict):
        output = output.get("loss", next(v for v in output.values() if isinstance(v, torch.Tensor)))
    if isinstance(output, (tuple, list)):
        output = next(v for v in output if isinstance(v, torch.Tensor))
    return output.float().mean()


def _input_plan(model, batch: int, seq: int):
    """A sample input from the model's first layer: token ids for an embedding, images for a convolution."""
    import torch
    from torch import nn

    first = next((m for m in model.modules() if isinstance(m, (nn.Embedding, nn.Conv2d, nn.Conv1d, nn.Linear))), None)
    if isinstance(first, nn.Embedding):
        return (lambda: (torch.randint(0, first.num_embeddings, (batch, seq)),),
                f"token ids ({batch}, {seq}) below {first.num_embeddings}")
    if isinstance(first, nn.Conv2d):
        return (lambda: (torch.randn(batch, first.in_channels, seq, seq),),
                f"images ({batch}, {first.in_channels}, {seq}, {seq})")
    if isinstance(first, nn.Conv1d):
        return lambda: (torch.randn(batch, first.in_channels, seq),), f"sequences ({batch}, {first.in_channels}, {seq})"
    if isinstance(first, nn.Linear):
        return (lambda: (torch.randn(batch, seq, first.in_features),),
                f"features ({batch}, {seq}, {first.in_features})")
    raise FactoryError("cannot tell the model's input from its first layer: pass --input MODULE:FUNC "
                       "(called with batch and seq, returning the forward's arguments)")


def _repeated_blocks(model):
    """The container of repeated same-class blocks holding the most parameters (a transformer's layers)."""
    from torch import nn

    best = None
    for name, module in model.named_modules():
        if isinstance(module, (nn.ModuleList, nn.Sequential)):
            children = list(module.children())
            if len(children) >= 2 and len({type(c) for c in children}) == 1 and list(children[0].children()):
                size = sum(p.numel() for p in module.parameters())
                if best is None or size > best[2]:
                    best = (name or "model", children, size)
    return best[:2] if best else None


def _checkpoint_blocks(model) -> None:
    from torch.utils.checkpoint import checkpoint

    found = _repeated_blocks(model)
    for block in found[1] if found else ():
        block.forward = functools.partial(_checkpointed, checkpoint, block.forward)


def _checkpointed(checkpoint, forward, *args, **kwargs):
    return checkpoint(forward, *args, use_reentrant=False, **kwargs)
