"""Building the user's model without its weights, in the cheapest way its constructor allows.

1. ``meta``: the whole constructor under ``torch.device("meta")``: nothing is allocated.
2. ``empty weights``: the constructor runs on the CPU, but every parameter is moved to the meta device as it
   is registered (what ``accelerate.init_empty_weights`` does): a constructor that reads a value
   (``[x.item() for x in torch.linspace(0, drop_path_rate, depth)]``, as timm's ViT and many others do)
   builds, and only one parameter at a time is ever real.
3. ``cpu``: a real build, for counting only (weights allocated), when neither of the others builds.

A step is measured on fake tensors made from the empty-weights build (``to_empty`` under the fake mode),
so small real tensors the constructor keeps (masks, index tables) come along as fake tensors too.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Tuple


class BuildError(ValueError):
    """The model's constructor failed in every way of building it."""


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


@contextlib.contextmanager
def empty_weights() -> Iterator[None]:
    """Parameters go to the meta device as modules register them; buffers and other tensors stay real."""
    import torch
    from torch import nn

    original = nn.Module.register_parameter

    def register_parameter(module, name, param):
        original(module, name, param)
        if param is not None and param.device.type != "meta":
            kwargs = dict(module._parameters[name].__dict__)
            kwargs["requires_grad"] = param.requires_grad
            module._parameters[name] = type(param)(param.to("meta"), **kwargs)

    nn.Module.register_parameter = register_parameter
    try:
        with torch.device("cpu"):
            yield
    finally:
        nn.Module.register_parameter = original


def build_without_weights(factory: Callable[[], Any]) -> Tuple[Any, str]:
    """The model and how it was built (``meta``, ``empty weights (…)``, ``cpu (…)``)."""
    import torch

    try:
        with torch.device("meta"):
            return factory(), "meta"
    except Exception as meta_error:
        why = f"{type(meta_error).__name__}: {first_line(meta_error)}"
    try:
        with empty_weights():
            return factory(), f"empty weights (the meta build failed: {why})"
    except Exception as empty_error:
        why_empty = f"{type(empty_error).__name__}: {first_line(empty_error)}"
    try:
        return factory(), f"cpu (the meta build failed: {why}; with empty weights: {why_empty})"
    except Exception as exc:
        raise BuildError(f"building the model failed: {type(exc).__name__}: {first_line(exc)}") from exc


def build_for_a_step(factory: Callable[[], Any]) -> Any:
    """The model with empty weights (parameters on the meta device), ready to be made fake; where the
    constructor cannot run with empty weights (it copies a parameter's value, as timm's Swin V2 does), the
    meta build."""
    import torch

    try:
        with empty_weights():
            return factory()
    except Exception as exc:
        why = f"{type(exc).__name__}: {first_line(exc)}"
    try:
        with torch.device("meta"):
            return factory()
    except Exception as exc:
        raise BuildError(f"building the model with empty weights failed ({why}), and on the meta device: "
                         f"{type(exc).__name__}: {first_line(exc)}") from exc
