"""``migrator maps show``: what the bundled data covers, per target and version."""

from __future__ import annotations

from typing import Any, Dict, List

from ..maps.load import available_targets, load_target, torch_api_table
from .ops_build import count_statuses


def maps_summary() -> Dict[str, Any]:
    targets: List[Dict[str, Any]] = []
    for entry in available_targets():
        target = load_target(str(entry["id"]), str(entry["version"]))
        op_map = target.op_map()
        reasons: Dict[str, int] = {}
        for reason in op_map["ops"].values():
            reasons[reason] = reasons.get(reason, 0) + 1
        targets.append({
            "id": target.id, "version": target.version, "default": bool(entry["default"]),
            "runtime": target.runtime, "torch_line": target.torch_line, "substitute": target.substitute,
            "sources": list(target.sources), "aten_source": op_map.get("aten_source"),
            "aten_ops": len(op_map["ops"]), "by_status": count_statuses(op_map["ops"]),
            "by_reason": dict(sorted(reasons.items())),
        })
    table = torch_api_table()
    by_source: Dict[str, int] = {}
    for row in table.values():
        by_source[str(row["source"])] = by_source.get(str(row["source"]), 0) + 1
    return {"targets": targets, "torch_api": {"apis": len(table), "by_source": dict(sorted(by_source.items()))}}


def render_summary(summary: Dict[str, Any]) -> str:
    lines = []
    for t in summary["targets"]:
        default = " (default)" if t["default"] else ""
        lines.append(f"{t['id']}@{t['version']}{default}: {t['runtime']}")
        lines.append(f"  aten ops ({t['aten_source']}): {t['aten_ops']}: "
                     + ", ".join(f"{n} {s}" for s, n in t["by_status"].items()))
        lines.append("  by reason: " + ", ".join(f"{n} {r}" for r, n in t["by_reason"].items()))
        for source in t["sources"]:
            lines.append(f"  source: {source}")
    api = summary["torch_api"]
    lines.append(f"torch API table: {api['apis']} APIs ("
                 + ", ".join(f"{n} from {s}" for s, n in api["by_source"].items()) + ")")
    return "\n".join(lines) + "\n"
