"""The user's model without memory: parameters counted without weights (``build``), one training step run
on fake tensors (shapes, no values) under ``held``'s tracker: what autograd holds over the whole step, its
maximum, with and without checkpointing the repeated blocks, and the step's FLOPs.

Runs the user's factory (their code) to build the model; no weights are allocated and nothing needs a GPU.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence, Tuple

from .build import BuildError, build_for_a_step, build_without_weights, first_line
from .held import held_tracker

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
    #: how the parameters were counted: on the meta device; with empty weights (the constructor ran on the CPU,
    #: each parameter moved to the meta device as it was registered) where it reads a value while it is built
    #: (timm's ``.item()`` in many constructors); or from a real build on the CPU where neither builds
    counted_on: str = "meta"
    #: the sequence length (image side) the step used: --seq, else 2048 tokens or the image size the model declares
    seq: Optional[int] = None


@dataclass(frozen=True)
class Activations:
    """What autograd holds over one step of one card's batch: the maximum over the whole step (forward and
    backward) of the saved tensors and temporaries, autocast's weight copies on their own line."""

    bytes: float  # activations and temporaries, the maximum over the step
    checkpointed: float  # the same with each repeated block checkpointed (never more than ``bytes``)
    weight_copies: float = 0.0  # autocast's 16-bit copies of fp32 weights, at their maximum (0 without autocast)
    with_copies: float = 0.0  # activations and weight copies at once, the maximum over the step
    checkpointed_with_copies: float = 0.0
    #: activations, weight copies and the gradients as they accumulate in the backward, at once (a single card,
    #: no DDP buckets: the gradients exist only from the backward on, ``zero_grad(set_to_none=True)``)
    with_grads: float = 0.0
    checkpointed_with_grads: float = 0.0
    flops: float = 0.0  # one step's matmul, convolution and attention FLOPs (torch's flop formulas)
    checkpointed_flops: float = 0.0  # the same with the blocks recomputed in the backward
    note: Optional[str] = None  # why checkpointing saves nothing, when it does not

    @property
    def recompute(self) -> float:
        """The compute of a checkpointed step relative to a plain one: measured, else the usual 4/3 (one more
        forward, a third of a step)."""
        return self.checkpointed_flops / self.flops if self.flops and self.checkpointed_flops else 4 / 3


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


def model_facts(factory: Callable[[], Any], batch: int, seq: Optional[int], make_input=None) -> ModelFacts:
    """Counts ``sum(p.numel())`` over the model's parameters, built without weights where it can be."""
    try:
        model, counted_on = build_without_weights(factory)
    except BuildError as exc:
        raise FactoryError(str(exc)) from exc
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    leaves = [m for m in model.modules() if not list(m.children())]
    largest = max((sum(p.numel() for p in m.parameters(recurse=False)) for m in leaves), default=0)
    container = _repeated_blocks(model)
    blocks = (f"{', '.join(container[0])}: {len(container[1])} x "
              f"{'/'.join(dict.fromkeys(type(b).__name__ for b in container[1]))}" if container else None)
    if make_input:
        description, used = "your input factory", seq or DEFAULT_TOKENS
    else:
        _, description, used = _input_plan(model, batch, seq)
    return ModelFacts(params=params, trainable=trainable, largest_layer=largest, blocks=blocks, input=description,
                      counted_on=counted_on, seq=used)


def measure_activations(factory: Callable[[], Any], batch: int, seq: Optional[int], dtype: str,
                        make_input: Optional[Callable[[int, int], Sequence[Any]]] = None) -> Activations:
    plain, plain_flops = _step(factory, batch, seq, dtype, make_input, checkpoint=False)
    checkpointed, checkpointed_flops = _step(factory, batch, seq, dtype, make_input, checkpoint=True)
    note = None
    if checkpointed.activations >= plain.activations:  # monotone: checkpointing is never counted as a cost
        note = ("checkpointing saves nothing here: " + (
            "the model has no repeated blocks to checkpoint" if _repeated_blocks(_quiet_build(factory)) is None
            else "the activations peak outside the checkpointed blocks (or the blocks' recomputation costs "
                 "what it saves)"))
        checkpointed, checkpointed_flops = plain, plain_flops
    return Activations(bytes=plain.activations, checkpointed=checkpointed.activations,
                       weight_copies=plain.weight_copies, with_copies=plain.together,
                       checkpointed_with_copies=checkpointed.together, with_grads=plain.with_grads,
                       checkpointed_with_grads=checkpointed.with_grads,
                       flops=plain_flops, checkpointed_flops=checkpointed_flops, note=note)


def _quiet_build(factory):
    try:
        return build_for_a_step(factory)
    except BuildError:
        return None


def _step(factory, batch: int, seq: Optional[int], dtype: str, make_input, checkpoint: bool):
    """One forward and backward on fake tensors: what autograd held (``HeldPeaks``) and the FLOPs."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    try:
        model = build_for_a_step(factory)
    except BuildError as exc:
        raise FactoryError(f"{exc} (to measure a step without memory)") from exc
    if checkpoint:
        _checkpoint_blocks(model)
    model.train()
    autocast = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dtype)
    with FakeTensorMode(allow_non_fake_inputs=True):
        try:
            _to_fake(model)
        except Exception as exc:
            raise FactoryError(f"cannot estimate, because its parameters cannot be made fake tensors: "
                               f"{type(exc).__name__}: {first_line(exc)}") from exc
        try:
            args, kwargs = ((tuple(make_input(batch, seq or DEFAULT_TOKENS)), {}) if make_input
                            else _input_plan(model, batch, seq)[0]())
        except FactoryError:
            raise
        except Exception as exc:  # the user's input factory, or a first layer's odd attributes
            raise FactoryError(f"cannot estimate, because making the step's input failed: {type(exc).__name__}: "
                               f"{first_line(exc)}") from exc
        tracker = held_tracker()
        tracker.watch(model, (args, kwargs))
        try:
            with tracker, _quiet_fake_tensor_log():
                with torch.autocast("cpu", dtype=autocast, enabled=autocast is not None):
                    loss = _loss(model(*args, **kwargs))
                loss.backward()
        except Exception as exc:
            raise FactoryError(cannot_estimate(exc)) from exc
        finally:
            tracker.close()
    peaks = tracker.peaks()
    return peaks, peaks.flops


@contextlib.contextmanager
def _quiet_fake_tensor_log() -> Iterator[None]:
    """The fake mode logs a traceback for every op whose shapes do not match before raising it; the raised
    error is what the report says (``cannot_estimate``), once."""
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _to_fake(model) -> None:
    """Every parameter and buffer replaced by an empty tensor of its shape on the CPU, made under the active
    fake mode (so fake); tied parameters stay tied. ``to_empty`` would swap tensors in place, which fails on a
    parameter something holds a weak reference to."""
    import torch
    from torch import nn

    made: dict = {}
    for module in model.modules():
        for table in (module._parameters, module._buffers):
            for name, tensor in list(table.items()):
                if tensor is None:
                    continue
                if id(tensor) not in made:
                    empty = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu")
                    made[id(tensor)] = (nn.Parameter(empty, requires_grad=tensor.requires_grad)
                                        if isinstance(tensor, nn.Parameter) else empty)
                table[name] = made[id(tensor)]


def cannot_estimate(exc: BaseException) -> str:
    """Why a step on fake tensors failed, as the user can act on it: the value-reading line of their code."""
    import traceback

    from torch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException

    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "/torch/" not in f.filename and "/migrator/" not in f.filename]
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} ({(frames[-1].line or '').strip()})" \
        if frames else ""
    if isinstance(exc, DataDependentOutputException):
        return (f"cannot estimate, because the forward reads a tensor's value{where}: a step without memory "
                "has shapes but no values (run it with --input data the step does not branch on, or measure a "
                "real step)")
    if isinstance(exc, DynamicOutputShapeException):
        return (f"cannot estimate, because an output's shape depends on the data{where} "
                f"({type(exc).__name__}: {first_line(exc)})")
    return f"cannot estimate, because one step on fake tensors failed{where}: {type(exc).__name__}: {first_line(exc)}"


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


#: the sequence length when --seq is not given and the model's first layer is an embedding or a 1-d convolution
DEFAULT_TOKENS = 2048
#: the image side when --seq is not given and the model declares none
DEFAULT_IMAGE = 224


def declared_image_size(model) -> Optional[Tuple[int, int]]:
    """The image size the model says it takes: timm's ``pretrained_cfg``/``default_cfg`` ``input_size``, or a
    patch embedding's ``img_size`` (a ViT asserts its input matches it)."""
    for cfg in (getattr(model, "pretrained_cfg", None), getattr(model, "default_cfg", None)):
        size = cfg.get("input_size") if isinstance(cfg, dict) else None
        if isinstance(size, (tuple, list)) and len(size) == 3 and all(isinstance(v, int) for v in size):
            return int(size[1]), int(size[2])
    for module in model.modules():
        size = getattr(module, "img_size", None)
        if isinstance(size, int):
            return size, size
        if isinstance(size, (tuple, list)) and len(size) == 2 and all(isinstance(v, int) for v in size):
            return int(size[0]), int(size[1])
    return None


def _input_plan(model, batch: int, seq: Optional[int]):
    """A training step's input from the model's first layer: token ids for an embedding, images for a
    convolution (of the size the model declares, unless --seq says), with targets of the same shape where the
    forward takes them (``_target_parameter``)."""
    import torch
    from torch import nn

    first = next((m for m in model.modules() if isinstance(m, (nn.Embedding, nn.Conv2d, nn.Conv1d, nn.Linear))), None)
    tokens = seq or DEFAULT_TOKENS
    if isinstance(first, nn.Embedding):
        targets = _target_parameter(model)
        if targets is not None:
            return (lambda: ((torch.randint(0, first.num_embeddings, (batch, tokens)),),
                             {targets: torch.randint(0, first.num_embeddings, (batch, tokens))}),
                    f"token ids ({batch}, {tokens}) below {first.num_embeddings}, with {targets} of the same shape "
                    "(a training step)", tokens)
        return (lambda: ((torch.randint(0, first.num_embeddings, (batch, tokens)),), {}),
                f"token ids ({batch}, {tokens}) below {first.num_embeddings} (the forward takes no targets)", tokens)
    if isinstance(first, nn.Conv2d):
        declared = declared_image_size(model)
        height, width = (seq, seq) if seq else declared or (DEFAULT_IMAGE, DEFAULT_IMAGE)
        said = "" if seq else (" (the size the model declares)" if declared else " (no size declared: the default)")
        return (lambda: ((torch.randn(batch, first.in_channels, height, width),), {}),
                f"images ({batch}, {first.in_channels}, {height}, {width}){said}", height)
    if isinstance(first, nn.Conv1d):
        return (lambda: ((torch.randn(batch, first.in_channels, tokens),), {}),
                f"sequences ({batch}, {first.in_channels}, {tokens})", tokens)
    if isinstance(first, nn.Linear):
        return (lambda: ((torch.randn(batch, tokens, first.in_features),), {}),
                f"features ({batch}, {tokens}, {first.in_features})", tokens)
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
