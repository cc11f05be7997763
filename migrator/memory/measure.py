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


def load_factory(spec: str, root: Path) -> Callable[..., Any]:
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
    blocks = (f"{', '.join(container[0])}: {len(container[1])} x "
              f"{'/'.join(dict.fromkeys(type(b).__name__ for b in container[1]))}" if container else None)
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
        args, kwargs = ((tuple(make_input(batch, seq)), {}) if make_input
                        else _input_plan(model, batch, seq)[0]())
        tracker = MemTracker()
        tracker.track_external(model)
        try:
            with tracker:
                with torch.autocast("cpu", dtype=autocast, enabled=autocast is not None):
                    loss = _loss(model(*args, **kwargs))
                loss.backward()
        except Exception as exc:
            raise FactoryError(f"one step on fake tensors failed: {type(exc).__name__}: {exc}") from exc
        peak = tracker.get_tracker_snapshot("peak")
    return float(sum(stats.get(kind, 0) for stats in peak.values() for kind in _activation_kinds(stats)))


def _activation_kinds(stats) -> Tuple[Any, ...]:
    return tuple(k for k in stats if str(k).endswith(("ACT", "TEMP")))


def _loss(output):
    """The step's loss: the model's own when it returns one (a dict's ``loss``, a 0-dim tensor in a tuple, as
    nanoGPT's ``(logits, loss)``), else the mean of its first tensor."""
    import torch

    if isinstance(output, dict):
        output = output.get("loss", next(v for v in output.values() if isinstance(v, torch.Tensor)))
    if isinstance(output, (tuple, list)):
        tensors = [v for v in output if isinstance(v, torch.Tensor)]
        output = next((v for v in tensors if v.dim() == 0), tensors[0])
    return output.float().mean()


#: forward parameters that take the training targets, and how a model names them
_TARGET_PARAMETERS = ("targets", "labels", "target", "y")


def _target_parameter(model) -> Optional[str]:
    """The forward's parameter for training targets, when it has one (nanoGPT's ``targets``, HF's ``labels``):
    a model given its targets computes what a training step computes (nanoGPT skips the full logits without)."""
    import inspect

    try:
        parameters = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return None
    return next((name for name in _TARGET_PARAMETERS if name in parameters), None)


def _input_plan(model, batch: int, seq: int):
    """A training step's input from the model's first layer: token ids for an embedding, images for a
    convolution, with targets of the same shape where the forward takes them (``_target_parameter``)."""
    import torch
    from torch import nn

    first = next((m for m in model.modules() if isinstance(m, (nn.Embedding, nn.Conv2d, nn.Conv1d, nn.Linear))), None)
    if isinstance(first, nn.Embedding):
        targets = _target_parameter(model)
        if targets is not None:
            return (lambda: ((torch.randint(0, first.num_embeddings, (batch, seq)),),
                             {targets: torch.randint(0, first.num_embeddings, (batch, seq))}),
                    f"token ids ({batch}, {seq}) below {first.num_embeddings}, with {targets} of the same shape "
                    "(a training step)")
        return (lambda: ((torch.randint(0, first.num_embeddings, (batch, seq)),), {}),
                f"token ids ({batch}, {seq}) below {first.num_embeddings} (the forward takes no targets)")
    if isinstance(first, nn.Conv2d):
        return (lambda: ((torch.randn(batch, first.in_channels, seq, seq),), {}),
                f"images ({batch}, {first.in_channels}, {seq}, {seq})")
    if isinstance(first, nn.Conv1d):
        return (lambda: ((torch.randn(batch, first.in_channels, seq),), {}),
                f"sequences ({batch}, {first.in_channels}, {seq})")
    if isinstance(first, nn.Linear):
        return (lambda: ((torch.randn(batch, seq, first.in_features),), {}),
                f"features ({batch}, {seq}, {first.in_features})")
    raise FactoryError("cannot tell the model's input from its first layer: pass --input MODULE:FUNC "
                       "(called with batch and seq, returning the forward's arguments)")


def _repeated_blocks(model):
    """Every container of repeated same-class blocks, outermost only (a transformer's layers; each of a
    ResNet's four stages): ``(names, blocks)``, or None when the model has none."""
    from torch import nn

    names, blocks, inside = [], [], []
    for name, module in model.named_modules():
        if any(name.startswith(prefix) for prefix in inside):
            continue  # within a block already taken: its own repeats are checkpointed with it
        if isinstance(module, (nn.ModuleList, nn.Sequential)):
            children = list(module.children())
            if len(children) >= 2 and len({type(c) for c in children}) == 1 and list(children[0].children()):
                names.append(name or "model")
                blocks.extend(children)
                inside.append(f"{name}." if name else "")
    return (names, blocks) if blocks else None


def _checkpoint_blocks(model) -> None:
    from torch.utils.checkpoint import checkpoint

    found = _repeated_blocks(model)
    for block in found[1] if found else ():
        block.forward = functools.partial(_checkpointed, checkpoint, block.forward)


def _checkpointed(checkpoint, forward, *args, **kwargs):
    return checkpoint(forward, *args, use_reentrant=False, **kwargs)
