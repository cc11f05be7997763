"""What every maps reader shares: reading an upstream file (or failing with a clear ``MapsBuildError``),
parsing YAML safely, and naming a file as a verdict's source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence

import yaml

MAPS_SCHEMA = "migrator.maps/1"


class MapsBuildError(Exception):
    """The upstream folder is missing a file, or a curated row cites evidence the file lacks."""



def read_text(upstream: Path, rel: str) -> str:
    path = upstream / rel
    if not path.is_file():
        raise MapsBuildError(f"missing upstream file: {rel}")
    return path.read_text(encoding="utf-8")


def read_json(upstream: Path, rel: str) -> dict:
    return json.loads(read_text(upstream, rel))


def checked_evidence(upstream: Path, cache: Dict[str, str], evidence: Sequence[str], what: str) -> str:
    """The upstream file a curated row cites, after checking that it contains the quoted text."""
    rel, needle = evidence
    needle = unescaped(needle)
    text = cache.setdefault(rel, read_text(upstream, rel))
    if needle not in text:
        raise MapsBuildError(f"{what}: {rel} does not contain {needle!r}")
    return rel


def unescaped(quote: str) -> str:
    """A curated quote as the file's text: its escapes (``\\n``, ``\\t``) read as the characters they stand for."""
    return quote.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def checked_sources(upstream: Path, cache: Dict[str, str], evidence: Sequence, what: str) -> str:
    """The names of the upstream files a curated row cites, each quote checked (``checked_evidence``): its
    ``evidence`` is one ``[file, text]`` pair, or a list of them when its claims come from several files."""
    pairs = evidence if isinstance(evidence[0], (list, tuple)) else [evidence]
    return ", ".join(dict.fromkeys(Path(checked_evidence(upstream, cache, pair, what)).name for pair in pairs))


def parse_yaml(path_text: str) -> Any:
    return yaml.load(path_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def source_label(rel: str, meta: Optional[Mapping] = None) -> str:
    """``file (repo@commit)``: enough to find the exact upstream revision again."""
    if meta and meta.get("commit"):
        return f"{Path(rel).name} ({meta.get('repo', '?')}@{str(meta['commit'])[:12]})"
    return Path(rel).name


def is_cuda_name(name: str) -> bool:
    parts = name.split(".")
    return any(p in ("cuda", "cudnn") or "CUDA" in p or "NCCL" in p or "nccl" in p or "nvtx" in p
               or "autocast_gpu" in p for p in parts)  # torch.get_autocast_gpu_dtype: CUDA's, by its old name


def curated_environment(upstream: Path, curated: Path, target: str) -> dict:
    """The curated launch-environment renames of ``target``; a row with ``evidence`` has its quote checked
    against the upstream file it cites."""
    rows = (parse_yaml((curated / "environment.yaml").read_text(encoding="utf-8")) or {}).get(target) or {}
    cache: Dict[str, str] = {}
    for name, row in rows.items():
        if row.get("evidence"):
            checked_evidence(upstream, cache, row["evidence"], f"environment.yaml: {name} for {target}")
    env = {name: {"to": row["to"], "exact": bool(row.get("exact", True)), "note": row.get("note"),
                  "doc": row["doc"]} for name, row in sorted(rows.items())}
    return {"env": env, "env_source": "operator_maps/curated/environment.yaml (vendor documentation, quoted)"}
