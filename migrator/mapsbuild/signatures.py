"""Build ``operator_maps/signatures.json`` (``migrator maps signatures``, which needs torch): the argument names of
the APIs the vendors' notes are about, read from the installed torch. A scan reads the table through
``maps/signatures.api_parameters``."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from ..maps.load import load_json, maps_dir
from ..maps.signatures import SIGNATURES

#: "round(input, *, decimals=0, out=None) -> Tensor": the first line of a builtin's docstring
_DOC_SIGNATURE = re.compile(r"^\s*[\w.]+\((?P<params>[^)]*)\)", re.DOTALL)


def build_signatures(apis: Iterable[str]) -> Dict[str, List[str]]:
    """Each API's argument names, read from the installed torch (``inspect``, or a builtin's docstring);
    APIs torch does not have, or whose signature it does not say, are left out."""
    import importlib
    import warnings

    importlib.import_module("torch")
    warnings.simplefilter("ignore")  # deprecation notices of the APIs looked at
    found: Dict[str, List[str]] = {}
    for api in sorted(set(apis)):
        obj = _resolve(api)
        names = _parameters(obj) if obj is not None else None
        if names and names != ["*"]:  # an empty list is a ``*args, **kwargs`` wrapper: it says nothing of the names
            found[api] = names
    return found


def write_signatures(apis: Iterable[str], out: Optional[Path] = None) -> Path:
    path = out or maps_dir() / SIGNATURES
    import torch

    data = {"schema": "migrator.maps/1", "source": f"inspect.signature / docstrings of torch {torch.__version__}",
            "apis": build_signatures(apis)}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def noted_apis() -> List[str]:
    """The APIs some vendor's list attaches a note to: the ones whose argument names a scan may need."""
    from ..maps.load import available_targets

    apis = set()
    for entry in available_targets():
        support = entry.get("api_support")
        if support:
            for api, row in load_json(str(support))["apis"].items():
                if row.get("limitations"):
                    apis.add(api)
    return sorted(apis)


def _resolve(api: str):
    import importlib

    parts = api.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - not a module (or one that fails to import here): try shorter
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - absent, or a lazy attribute that needs a device (cuda.matmul)
            return None
        return obj
    return None


def _parameters(obj) -> Optional[List[str]]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        names = []
        for p in inspect.signature(target).parameters.values():
            if p.kind == p.KEYWORD_ONLY and "*" not in names:
                names.append("*")  # what follows is passed by keyword only
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                names.append(p.name)
    except (TypeError, ValueError):
        match = _DOC_SIGNATURE.match((getattr(obj, "__doc__", None) or "").lstrip())
        if match is None:
            return None
        names = [p.split("=")[0].split(":")[0].strip() for p in match.group("params").split(",")]
        # ``resize_(*sizes, memory_format=...)``: what follows a ``*sizes`` is passed by keyword only, as after ``*``
        names = ["*" if n.startswith("*") else n for n in names if n and n != "/" and not n.startswith("**")]
        names = [n for i, n in enumerate(names) if n != "*" or "*" not in names[:i]]
    return [n for n in names if n != "self"]
