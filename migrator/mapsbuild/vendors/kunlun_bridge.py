"""The Kunlun bridge: PaConvert's torch -> Paddle API table joined with Paddle's Kunlun XPU kernel lists.

No public torch_xmlir coverage exists. PaddlePaddle's PaConvert (``api_mapping.json``, written and tested by
PaddlePaddle) says which Paddle API does the job of each torch API; the paddlepaddle wheel's own sources say
which kernels that Paddle API calls (``paddle_source.py``: ``_C_ops.<kernel>``, following the Paddle
functions it calls, a layer's ``forward`` and a class's bases); the same wheel's ``phi_ops_map.py`` names the
legacy op of each kernel, which is the name Paddle's XPU lists use (``add`` -> ``elementwise_add``); and the
XPU2/XPU3 lists say which of those run on the card. A torch API gets a row when its Paddle API resolves to at
least one kernel:

  supported  every kernel it can call (forward) is in the generation's XPU list
  fallback   its primary kernels are not (those nearest to it: ``lerp_`` for ``Tensor.lerp_``, whatever
             conversions around them are listed): Paddle runs the op on the CPU (the list's own rule)
  partial    some others are not: the paths through them (a mode, a dtype, a dimension the call picks) run on
             the CPU

The kernels are the union over the Paddle function's branches, less those only another device's build takes
(``paddle_source.py``) and the ``out=`` path (``assign_out_``: a torch call without ``out=`` never takes it).

A torch API PaConvert lacks, or whose Paddle API resolves to no kernel, gets no row: the reviewed aten table
(``curated/kunlun_aten_to_paddle.yaml``) answers for it, or the verdict stays ``unknown``. Every row names
its PaConvert row, the Paddle API, the kernels and the list, and stays substitute evidence (Paddle's stack,
not torch_xmlir's).
"""

from __future__ import annotations

import ast
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Set, Tuple

from ..upstream import MAPS_SCHEMA, read_text, source_label

PACONVERT = "kunlun/api_mapping.paconvert-73e14f0a.json"
PACONVERT_ALIASES = "kunlun/api_alias_mapping.paconvert-73e14f0a.json"
PADDLE_API = "kunlun/paddle_api_kernels.paddlepaddle-3.3.1.json"
PHI_OPS_MAP = "kunlun/phi_ops_map.paddlepaddle-3.3.1.py"
#: how deep a Paddle API's calls are followed to find its kernels, and how many re-exports a name may pass
DEPTH = 4
HOPS = 12
#: PaConvert's prefix rule (``ChangePrefixMatcher``: ``torch.X`` -> ``paddle.X``, TORCH_PACKAGE_MAPPING)
PREFIX = ("torch.", "paddle.")
#: the modules of the kernel bindings (``from paddle._C_ops import matmul`` makes the binding the API)
KERNEL_MODULES = ("paddle._C_ops.", "paddle._legacy_C_ops.")
#: the kernel of an ``out=`` argument's path
OUT_PATH = frozenset({"assign_out_"})


@lru_cache(maxsize=None)
def _paddle(upstream: Path) -> Tuple[Mapping[str, dict], Mapping[str, Mapping[str, str]], FrozenSet[str]]:
    data = json.loads(read_text(upstream, PADDLE_API))
    return data["functions"], data["exports"], frozenset(data["tensor_methods"])


@lru_cache(maxsize=None)
def legacy_names(upstream: Path) -> Mapping[str, Tuple[str, ...]]:
    """Kernel (phi) name -> the legacy op names that stand for it in Paddle's op lists, from the wheel's
    ``phi_ops_map.py`` (generated from Paddle's ``op_compat.yaml``; read as a literal, not run)."""
    tree = ast.parse(read_text(upstream, PHI_OPS_MAP))
    op_map = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "op_map" for t in node.targets))
    names: Dict[str, List[str]] = {}
    for legacy, row in op_map.items():
        names.setdefault(str(row.get("phi_name", legacy)), []).append(str(legacy))
    return {phi: tuple(sorted(set(legacy))) for phi, legacy in names.items()}


def resolve(upstream: Path, name: str) -> Optional[str]:
    """A public Paddle name (``paddle.nn.ReLU``, ``paddle.Tensor.add``) -> the definition it stands for
    (``paddle.nn.layer.activation.ReLU``), through the modules' re-exports; ``None`` when not found within
    ``HOPS`` re-exports."""
    functions, exports, tensor_methods = _paddle(upstream)
    seen: Set[str] = set()
    name = name[: -len(".__wrapped__")] if name.endswith(".__wrapped__") else name
    for _ in range(HOPS):
        if name in functions or name.startswith(KERNEL_MODULES):
            return name
        if name in seen:
            return None
        seen.add(name)
        if name.startswith("paddle.Tensor."):
            method = name[len("paddle.Tensor."):]
            if method not in tensor_methods:
                return None
            name = f"paddle.tensor.{method}"  # Paddle binds these as Tensor methods
            continue
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module, rest = ".".join(parts[:cut]), parts[cut:]
            target = exports.get(module, {}).get(rest[0])
            if target is not None and target != module:
                name = ".".join([target, *rest[1:]])
                break
        else:
            return None
    return None


def kernels(upstream: Path, definition: str) -> Tuple[Set[str], Set[str]]:
    """(every kernel a definition calls, its primary kernels). Every kernel: its own ``_C_ops`` calls, those of
    the Paddle functions it calls (to ``DEPTH``), and for a class without its own entry method, its bases'.
    Primary: the kernels found nearest to it (its own, else those one call away, ...): the op the API is
    about, where the others serve a mode or a dtype conversion."""
    functions, _, _ = _paddle(upstream)
    found: Set[str] = set()
    primary: Set[str] = set()
    seen: Set[str] = set()
    layer = [definition]
    for _ in range(DEPTH + 1):
        following: List[str] = []
        here: Set[str] = set()
        for name in layer:
            if name in seen:
                continue
            seen.add(name)
            if name.startswith(KERNEL_MODULES):  # the Paddle API is the kernel's own binding
                here.add(name.rsplit(".", 1)[1])
                continue
            info = functions.get(name) or {}
            here |= set(info.get("ops", ()))
            targets = list(info.get("calls", ()))
            if "bases" in info and info.get("entry") is None:
                targets += info["bases"]
            following += [t for t in (resolve(upstream, c) for c in targets) if t is not None]
        found |= here
        primary = primary or here
        layer = following
    return found, primary


def listed(kernel: str, xpu: Mapping[str, List[str]], legacy: Mapping[str, Tuple[str, ...]]) -> Optional[str]:
    """The name under which ``kernel`` is in the XPU list (itself, its legacy op, or for an in-place
    ``relu_`` the out-of-place kernel), or ``None``."""
    for name in (kernel, kernel.rstrip("_")):
        for candidate in (name, *legacy.get(name, ())):
            if candidate in xpu:
                return candidate
    return None


def paddle_api(torch_api: str, row: Mapping[str, Any]) -> Optional[str]:
    """The Paddle API PaConvert maps ``torch_api`` to: its ``paddle_api``, or by the prefix rule."""
    if row.get("paddle_api"):
        return str(row["paddle_api"])
    if row.get("Matcher") == "ChangePrefixMatcher" and torch_api.startswith(PREFIX[0]):
        return PREFIX[1] + torch_api[len(PREFIX[0]):]
    return None


def bridge_rows(upstream: Path, xpu_file: str, xpu: Mapping[str, List[str]]) -> dict:
    """{torch API: row} for one XPU generation's list."""
    mapping = json.loads(read_text(upstream, PACONVERT))
    aliases = json.loads(read_text(upstream, PACONVERT_ALIASES))
    legacy = legacy_names(upstream)
    rows: Dict[str, dict] = {}
    keys = sorted(set(mapping) | {alias for alias, canonical in aliases.items() if canonical in mapping})
    for torch_api in keys:
        if not torch_api.startswith("torch."):
            continue
        canonical = aliases.get(torch_api, torch_api) if torch_api not in mapping else torch_api
        row = mapping[canonical]
        target = paddle_api(canonical, row)
        definition = resolve(upstream, target) if target else None
        found, primary = kernels(upstream, definition) if definition else (set(), set())
        names = {k: listed(k, xpu, legacy) for k in sorted(found - OUT_PATH)}
        if not names:
            continue
        unlisted = sorted(k for k, name in names.items() if name is None)
        primary -= OUT_PATH
        status = "supported" if not unlisted else "fallback" if (set(unlisted) >= primary) else "partial"
        via = f"{canonical} -> {target}" + (f" ({row['Matcher']})" if row.get("Matcher") else "")
        rows[torch_api] = {
            "status": status,
            "paddle_api": target, "definition": definition, "paconvert": via,
            "kernels": sorted(f"{k} ({n})" if n and n != k else k for k, n in names.items()),
            "unlisted": unlisted, "primary": sorted(primary),
        }
    return {"schema": MAPS_SCHEMA, "target": "kunlun", "xpu_list": source_label(xpu_file),
            "sources": [source_label(PACONVERT) + " (PaddlePaddle/PaConvert@73e14f0a11d1, torch -> Paddle API)",
                        source_label(PADDLE_API) + " (kernels each Paddle API calls, read from the wheel's source)",
                        source_label(PHI_OPS_MAP) + " (the legacy op name of each kernel)",
                        source_label(xpu_file) + " (substitute: Paddle's Kunlun kernel list)"],
            "apis": rows}
