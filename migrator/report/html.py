"""One self-contained HTML page per scan: overview, target comparison, ranked blockers with call paths and
diffs, a picture of the call graph around them, every finding (filterable), custom operators, unread files.

The page needs no network: the CSS and script in ``reports/assets`` are inlined, the call graph is an
inline SVG laid out here. Everything that comes from the scanned code goes through jinja2's autoescaping;
the only markup marked safe is our own assets and the SVG, whose text is escaped as it is built.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from ..cells import read_notebook_cells
from ..data import data_dir
from ..evidence import grade
from ..model import (STATUS_SEVERITY, TUNE_PHASE, Blocker, Context, FileStatus, Finding, Report, Tally,
                     TargetSummary, Unsafe, Verdict)
from . import View, finished
from .caps import MAX_RESULTS_PER_FILE, per_file_cap
from .preview import line_rewrite
from .wording import advised, reach_text

#: Worst first: the order statuses are listed and stacked in.
STATUS_ORDER = [s.value for s in STATUS_SEVERITY]
_BLOCKERS_SHOWN = 60
#: APIs listed under "Runs as written" (most used first); the JSON keeps every one
_COVERED_SHOWN = 300
_CONTEXT_LINES = 2


def render(report: Report, out: TextIO, view: Optional[View] = None) -> None:  # a document holds all: no view
    out.write(render_page("report.html.j2", "report.js", report=report, view=_view(report)))


def render_page(template: str, script: str, **context: Any) -> str:
    """A template of ``reports/templates`` with autoescaping on, the shared CSS and ``script`` inlined."""
    env = Environment(loader=FileSystemLoader(str(data_dir("reports") / "templates")),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    assets = data_dir("reports") / "assets"
    return env.get_template(template).render(
        css=Markup((assets / "report.css").read_text(encoding="utf-8")),
        script=Markup((assets / script).read_text(encoding="utf-8")), **context)


# ------------------------------------------------------------------------------------------ view model


def _view(report: Report) -> Dict[str, Any]:
    by_id = {f.id: f for f in report.findings}
    sources = _SourceLines(Path(report.base))
    numbers = finished(report)  # the shared numbers: every view says these (vocabulary.py)
    tallies = {t.id: t for t in numbers.targets}
    targets = [{**_target(t, by_id, sources), "tally": tallies[t.id], "shimmed": tallies[t.id].through_shim}
               for t in report.targets]
    kept, left_out = per_file_cap(report.findings)
    covered = report.coverage
    blocking_nodes = {report.graph.finding_nodes[i] for t in report.targets for b in t.blockers
                      for i in b.findings if report.graph and i in report.graph.finding_nodes}
    return {
        "tally": numbers,
        "chart": readiness_chart(numbers),
        "targets": targets,
        "comparison": _comparison(report.targets, numbers),
        "findings_data": findings_data(kept, by_id, [t.id for t in report.targets]),
        "findings_shown": len(kept),
        "left_out": sorted(left_out.items()), "max_per_file": MAX_RESULTS_PER_FILE,
        "coverage": [{"api": r.api, "rule": r.rule, "uses": r.uses, "counted": r.counted, "sources": r.sources,
                      "where": _where(r.sites[0])} for r in covered[:_COVERED_SHOWN]],
        "more_covered": max(0, len(covered) - _COVERED_SHOWN),
        "filters": {
            "categories": sorted({f.category.value for f in report.findings}),
            "paths": sorted({f.path for f in report.findings}),
            "statuses": STATUS_ORDER,
        },
        "graph_svg": _graph_svg(report, blocking_nodes),
        "entries": list(report.graph.entries) if report.graph else [],
        "graph": report.graph,
        "custom_ops": [_custom_op(op, report) for op in report.custom_ops],
        "unread": [f for f in report.files if f.status != FileStatus.OK or f.reason],
        "plans": report.plans,
        "tuning": _tuning(report),
        "tune_phase": TUNE_PHASE[0],
        "apart": _apart(report),
    }


#: Rows per list of what is apart from the worklist; the JSON has them all.
_APART_SHOWN = 200


def _apart(report: Report) -> List[Dict[str, Any]]:
    """What the judge keeps apart from the worklist, per API (``evidence.py``): uses to validate on the card,
    data gaps."""
    targets = [t.id for t in report.targets]
    lists = (("validate", "To validate on the card", "substitute data, unconditional vendor notes, step patterns "
              "no run measured: try them on the device", report.validate_by_api),
             ("data-gaps", "Data gaps", "what the data cannot judge", report.gaps_by_api))
    out = []
    for key, title, what, rows in lists:
        out.append({"id": key, "title": title, "what": what, "uses": sum(r.uses for r in rows),
                    "more": max(0, len(rows) - _APART_SHOWN),
                    "rows": [{"api": r.api, "rule": r.rule, "uses": r.uses, "where": _where(r.sites[0]),
                              "verdicts": [_graded(t, r.sites[0].verdicts[t]) for t in targets
                                           if t in r.sites[0].verdicts]}
                             for r in rows[:_APART_SHOWN]]})
    return out


def _graded(target: str, verdict: Verdict) -> Tuple[str, str, str]:
    """(target, what the verdict says, its message): its status and, where evidence speaks, its grade (a
    supported verdict rests on none, and says no more)."""
    found = grade(verdict)
    said = verdict.status.value if found is None else f"{verdict.status.value}, {found.value}"
    return target, said, verdict.message


def _tuning(report: Report) -> List[Dict[str, Any]]:
    """The ``tune`` findings by module, in the plan's order (``Report.tuning``)."""
    targets = [t.id for t in report.targets]
    return [{"path": module.path, "rows": [_tune_row(f, targets) for f in module.findings],
             "summary": ", ".join(f"{n} {rule}" for rule, n in Counter(f.rule for f in module.findings).most_common())}
            for module in report.tuning]


def _tune_row(finding: Finding, targets: Sequence[str]) -> Dict[str, Any]:
    shown = (advised(finding) or next(iter(finding.verdicts.items())))[1]
    guides = [(target, title, url) for target in targets if target in finding.verdicts
              for title, url in _guides(finding.verdicts[target].source)]
    span = finding.span  # the module's heading says the path: the row says where in it
    line = (f"cell {span.cell} " if span.cell is not None else "") + str(span.line or "-")
    return {"line": line, "rule": finding.rule, "snippet": finding.snippet, "message": shown.message,
            "suggestion": shown.suggestion, "guides": guides, "measured": finding.measured,
            "statuses": [finding.verdicts[t].status.value if t in finding.verdicts else "-" for t in targets]}


def _guides(source: str) -> List[Tuple[str, Optional[str]]]:
    """``title <https://...>; title <https://...>`` as (title, url) pairs; a url that is not http(s) is dropped."""
    pairs = []
    for part in source.split("; "):
        title, _, rest = part.partition(" <")
        url = rest[:-1] if rest.endswith(">") else ""
        pairs.append((title, url if url.startswith(("https://", "http://")) else None))
    return pairs


def _target(target: TargetSummary, by_id: Mapping[str, Finding], sources: "_SourceLines") -> Dict[str, Any]:
    total = sum(target.counts.values())
    bar = [{"status": s, "count": target.counts.get(s, 0), "pct": round(100.0 * target.counts.get(s, 0) / total, 2)}
           for s in STATUS_ORDER if target.counts.get(s, 0)]
    blockers = [_blocker(b, target, by_id, sources) for b in target.blockers[:_BLOCKERS_SHOWN]]
    return {"summary": target, "bar": bar, "blockers": blockers, "total": total,
            "judged": total - target.counts.get("unknown", 0),
            "more_blockers": max(0, len(target.blockers) - _BLOCKERS_SHOWN),
            "effort": target.effort, "inputs": target.effort.get("readiness_inputs", {})}


def _blocker(blocker: Blocker, summary: TargetSummary, by_id: Mapping[str, Finding],
             sources: "_SourceLines") -> Dict[str, Any]:
    target, plugin = summary.id, summary.import_first
    members = [by_id[i] for i in blocker.findings if i in by_id]
    first = next((m for m in members if m.path == blocker.path_of_first and m.span.line == blocker.line_of_first),
                 members[0] if members else None)
    context = sources.around(first) if first is not None else []
    return {"blocker": blocker, "reach": reach_text(blocker),
            "where": [_where(m) for m in members[:12]], "more_where": max(0, len(members) - 12),
            "context": context, "diff": _diff(first, target, sources, plugin) if first is not None else []}


def _diff(finding: Finding, target: str, sources: "_SourceLines", plugin: Optional[str]) -> List[Tuple[str, str]]:
    """The line ``migrator fix`` changes for this finding, as a unified diff; a suggestion that is not an exact
    replacement of the finding's text is shown as a note. (Textual, from the finding's own span: rendering
    must stay fast on big repositories, so it does not re-parse files.)"""
    verdict = finding.verdicts.get(target)
    if verdict is None or not verdict.suggestion:
        return []
    rewrite, line = line_rewrite(finding, target), sources.line(finding)
    new = rewrite.applied_to(line) if rewrite is not None and line is not None else None
    if rewrite is None or new is None:
        return [("note", verdict.suggestion)]
    cell = f" cell {rewrite.cell}" if rewrite.cell is not None else ""
    lines = [("file", f"--- a/{rewrite.path}"), ("file", f"+++ b/{rewrite.path}"),
             ("hunk", f"@@ -{rewrite.line} +{rewrite.line} @@{cell}"), ("del", f"-{line}"), ("add", f"+{new}")]
    if plugin and plugin not in (sources.text(finding.path) or ""):
        lines.append(("note", f"and once per file, after `import torch`: {plugin}"))
    if isinstance(rewrite.fix, Unsafe):
        lines.append(("note", "not applied by default: `migrator fix --unsafe` applies it"))
    return lines


def _where(finding: Finding) -> str:
    if finding.span.cell is not None:
        return f"{finding.path} cell {finding.span.cell} line {finding.span.line}"
    return f"{finding.path}:{finding.span.line}" if finding.span.line else finding.path


#: ``Context`` as the page's script spells it (an index into this tuple)
_CONTEXTS = tuple(context.value for context in Context)


def findings_data(findings: Sequence[Finding], by_id: Mapping[str, Finding], targets: Sequence[str]) -> Markup:
    """The findings as the page's script reads them (``report.js``): JSON in a ``<script type=
    "application/json">``, rendered file by file as the reader opens them, so that a repository with 40,000
    findings is a page of a few MB, not of 40,000 table rows. Every string is stored once (``strings``;
    findings share a few hundred messages), each distinct set of verdicts once (``verdicts``), and each
    finding is a row of numbers:

        [path, line, col, cell, rule, category, api, snippet, context, root_where, reachable, confidence,
         verdicts]

    (strings as indices, -1 for none; ``reachable`` 1, 0 or -1 for not judged). A verdict is
    ``[status, message, suggestion, fixable, source]``, one per target in ``targets`` order (``null``
    where a target has none). ``<``, ``>`` and ``&`` are written as ``\\u`` escapes: nothing in the data can
    close the script element or start markup."""
    strings: Dict[str, int] = {}
    verdict_sets: Dict[Tuple[Any, ...], int] = {}

    def text(value: Optional[str]) -> int:
        return -1 if value is None else strings.setdefault(value, len(strings))

    rows = []
    for finding in findings:
        key = tuple(_verdict_row(finding.verdicts.get(t), text) for t in targets)
        root = by_id.get(finding.root) if finding.root else None
        span = finding.span
        rows.append([text(finding.path), span.line, span.col, span.cell, text(finding.rule),
                     text(finding.category.value), text(finding.api), text(finding.snippet),
                     _CONTEXTS.index(finding.context.value), text(_where(root)) if root is not None else -1,
                     -1 if finding.reachable is None else int(finding.reachable), text(finding.confidence.value),
                     verdict_sets.setdefault(key, len(verdict_sets))])
    document = {"targets": list(targets), "contexts": list(_CONTEXTS), "strings": list(strings),
                "verdicts": [list(key) for key in verdict_sets], "rows": rows}
    encoded = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return Markup(encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _verdict_row(verdict: Optional[Verdict], text) -> Optional[Tuple[Any, ...]]:
    if verdict is None:
        return None
    return (verdict.status.value, text(verdict.message), text(verdict.suggestion), int(verdict.fixable),
            text(verdict.source))


def _comparison(targets: Sequence[TargetSummary], numbers: Tally) -> Dict[str, Any]:
    """The targets side by side, every number from the tally; what differs, blocker by blocker."""
    if not targets:
        return {"rows": [], "differences": []}
    tallies = [next(t for t in numbers.targets if t.id == target.id) for target in targets]
    rows: List[Tuple[str, str, List[Any]]] = [
        ("readiness", "readiness", [t.readiness for t in tallies]),
        ("estimated effort (days)", "days", [t.days for t in tallies]),
        ("blockers on the training path", "blockers_on_path", [t.blockers_on_path for t in tallies]),
        ("blockers off the training path", "blockers_off_path", [t.blockers_off_path for t in tallies]),
        ("ports on the training path", "ports_on_path", [t.ports_on_path for t in tallies]),
        ("ports off the training path", "ports_off_path", [t.ports_off_path for t in tallies]),
        ("automatic rewrites (on the path)", "automatic", [t.automatic for t in tallies]),
        ("manual rewrites (on the path)", "manual", [t.manual for t in tallies]),
        ("uses to validate on the card", "to_validate", [t.to_validate for t in tallies]),
        ("data gaps", "data_gaps", [t.data_gaps for t in tallies]),
        ("uses judged on substitute data", "substitute", [t.substitute for t in tallies]),
    ]
    keys: Dict[str, Dict[str, str]] = {}
    titles: Dict[str, str] = {}
    for t in targets:
        for b in t.blockers:
            keys.setdefault(b.key, {})[t.id] = b.status.value
            titles[b.key] = b.title
    differences = [{"title": titles[k], "statuses": [by_target.get(t.id, "ok") for t in targets]}
                   for k, by_target in sorted(keys.items()) if len(by_target) != len(targets)
                   or len(set(by_target.values())) > 1]
    return {"rows": [{"name": name, "key": key, "values": [(t.id, v) for t, v in zip(tallies, values)]}
                     for name, key, values in rows], "differences": differences}


def _custom_op(op, report: Report) -> Dict[str, Any]:
    plans = [p for p in report.op_plans if p.op == op.name]
    return {"op": op, "plans": plans}


# ------------------------------------------------------------------------------------------ source context


class _SourceLines:
    """Lines of the scanned files (a notebook's per cell) under ``root`` (``Report.base``), read on demand for
    context; a file that cannot be read just gives no context."""

    def __init__(self, root: Path):
        self.root = root
        self.cache: Dict[Tuple[str, Optional[int]], Optional[List[str]]] = {}
        self._raw: Dict[str, str] = {}

    def _lines(self, rel: str, cell: Optional[int] = None) -> Optional[List[str]]:
        key = (rel, cell if rel.endswith(".ipynb") else None)
        if key not in self.cache:
            self.cache[key] = self._read(rel, key[1])
        return self.cache[key]

    def _read(self, rel: str, cell: Optional[int]) -> Optional[List[str]]:
        try:
            text = (self.root / rel).resolve().read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        if len(text) >= 2_000_000:
            return None
        if rel.endswith(".ipynb"):
            cells = dict(read_notebook_cells(text) or [])
            return cells[cell].splitlines() if cell in cells else None
        self._raw[rel] = text
        return text.splitlines()

    def text(self, rel: str) -> Optional[str]:
        """A whole file's text (plain source files only)."""
        return self._raw.get(rel) if self._lines(rel) is not None else None

    def line(self, finding: Finding) -> Optional[str]:
        lines = self._lines(finding.path, finding.span.cell)
        if lines is None or not finding.span.line or finding.span.line > len(lines):
            return None
        return lines[finding.span.line - 1]

    def around(self, finding: Finding) -> List[Tuple[int, str, bool]]:
        lines = self._lines(finding.path, finding.span.cell)
        line = finding.span.line
        if lines is None or not line or line > len(lines):
            return []
        lo, hi = max(1, line - _CONTEXT_LINES), min(len(lines), line + _CONTEXT_LINES)
        return [(n, lines[n - 1], n == line) for n in range(lo, hi + 1)]


# ------------------------------------------------------------------------------------------ call-graph picture

_BOX_W, _BOX_H, _COL_GAP, _ROW_GAP, _PAD = 230, 26, 60, 10, 12


def _graph_svg(report: Report, blocking_nodes: set) -> Optional[Markup]:
    """A layered drawing of the graph around the blockers: columns by call depth from the entry points."""
    if report.graph is None or not report.graph.picture[0]:
        return None
    nodes, edges = report.graph.picture
    entries = {e.node for e in report.graph.entries}
    columns: Dict[int, List[str]] = {}
    for node, _kind, depth, _reached in sorted(nodes, key=lambda n: (n[2], n[0])):
        columns.setdefault(depth, []).append(node)
    position: Dict[str, Tuple[float, float]] = {}
    for depth, members in columns.items():
        for row, node in enumerate(members):
            position[node] = (_PAD + depth * (_BOX_W + _COL_GAP), _PAD + row * (_BOX_H + _ROW_GAP))
    width = _PAD * 2 + (max(columns) + 1) * (_BOX_W + _COL_GAP)
    height = _PAD * 2 + max(len(m) for m in columns.values()) * (_BOX_H + _ROW_GAP)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="callgraph" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="call graph around the blockers">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#8a94a6"/></marker></defs>']
    for source, target in edges:
        (x1, y1), (x2, y2) = position[source], position[target]
        back = x2 <= x1
        sx, sy = x1 + _BOX_W, y1 + _BOX_H / 2
        tx, ty = (x2 + _BOX_W if back else x2), y2 + _BOX_H / 2
        bend = 40 if back else (tx - sx) / 2
        parts.append(f'<path class="edge{" back" if back else ""}" d="M {sx} {sy} C {sx + bend} {sy}, '
                     f'{tx + (bend if back else -bend)} {ty}, {tx} {ty}" marker-end="url(#arrow)"/>')
    for node, kind, _depth, reached in nodes:
        x, y = position[node]
        classes = ["node", kind]
        if not reached:
            classes.append("unreached")
        if node in blocking_nodes:
            classes.append("blocker")
        if node in entries:
            classes.append("entry")
        label = _short(node)
        parts.append(f'<g class="{" ".join(classes)}" transform="translate({x},{y})"><title>{escape(node)} '
                     f'({escape(kind)}'
                     f'{"" if reached else ", not reached from an entry point"})</title>'
                     f'<rect width="{_BOX_W}" height="{_BOX_H}" rx="5"/>'
                     f'<text x="8" y="17">{escape(label)}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _short(node: str, width: int = 32) -> str:
    parts = node.split(".")
    label = ".".join(parts[-2:]) if len(parts) > 1 else node
    return label if len(label) <= width else "…" + label[-(width - 1):]


# ------------------------------------------------------------------------------------------ readiness chart

_CHART_W, _CHART_H, _CHART_LEFT, _CHART_RIGHT, _CHART_TOP, _CHART_BOTTOM = 660, 240, 48, 170, 14, 36
#: one colour a target, in the order of the report's targets (then again)
_CHART_COLOURS = ("#2451a6", "#d63b3b", "#2e9d5b", "#8e44ad", "#e67e22")


def readiness_chart(numbers: Tally) -> Optional[Markup]:
    """Readiness against the hours done, over the plan's phases, one line a target: where a target starts,
    how far the first cheap phases take it and how many hours the last points cost. An inline SVG; every
    text in it is escaped as it is built. ``None`` when no target has estimated work."""
    drawn = [t for t in numbers.targets if t.readiness is not None and t.hours]
    if not drawn:
        return None
    most = max(t.hours for t in drawn)
    least = min(float(t.readiness or 0.0) for t in drawn)
    low = 75 if least >= 75 else 50 if least >= 50 else 0  # the readiness axis starts where the lines are
    width, height = _CHART_W - _CHART_LEFT - _CHART_RIGHT, _CHART_H - _CHART_TOP - _CHART_BOTTOM

    def x(hours: float) -> float:
        return round(_CHART_LEFT + width * hours / most, 1)

    def y(readiness: float) -> float:
        return round(_CHART_TOP + height * (100.0 - readiness) / (100.0 - low), 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{_CHART_W}" height="{_CHART_H}" '
             f'viewBox="0 0 {_CHART_W} {_CHART_H}" role="img" aria-label="readiness against cumulative hours, '
             'phase by phase">']
    for tick in (low + (100 - low) * step / 4 for step in range(5)):
        parts.append(f'<line class="grid" x1="{_CHART_LEFT}" x2="{_CHART_LEFT + width}" y1="{y(tick)}" '
                     f'y2="{y(tick)}"/><text class="tick" x="{_CHART_LEFT - 6}" y="{y(tick) + 4}" '
                     f'text-anchor="end">{tick:.0f}%</text>')
    for share in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<text class="tick" x="{x(most * share)}" y="{_CHART_TOP + height + 16}" '
                     f'text-anchor="middle">{most * share:.3g} h</text>')
    parts.append(f'<text class="axis" x="{_CHART_LEFT + width / 2}" y="{_CHART_H - 4}" text-anchor="middle">'
                 'estimated hours done, phase by phase</text>')
    for index, target in enumerate(drawn):
        colour = _CHART_COLOURS[index % len(_CHART_COLOURS)]
        points = [(0.0, float(target.readiness or 0.0), "now")]
        points += [(p.cumulative_hours, float(p.readiness_after), f"after phase {p.number}, {p.title}")
                   for p in target.phases if p.hours and p.readiness_after is not None]
        path = " ".join(f"{x(h)},{y(r)}" for h, r, _ in points)
        parts.append(f'<g class="series" data-target="{escape(target.id)}"><polyline points="{path}" fill="none" '
                     f'stroke="{colour}" stroke-width="2"/>')
        for hours, readiness, what in points:
            parts.append(f'<circle cx="{x(hours)}" cy="{y(readiness)}" r="3.5" fill="{colour}"><title>'
                         f'{escape(target.id)} {escape(what)}: {readiness:g}% at ~{hours:g} h</title></circle>')
        legend_y = _CHART_TOP + 14 + 18 * index
        parts.append(f'<line x1="{_CHART_W - _CHART_RIGHT + 14}" x2="{_CHART_W - _CHART_RIGHT + 34}" '
                     f'y1="{legend_y - 4}" y2="{legend_y - 4}" stroke="{colour}" stroke-width="3"/>'
                     f'<text class="legend" x="{_CHART_W - _CHART_RIGHT + 40}" y="{legend_y}">'
                     f'{escape(target.id)} ~{target.hours:g} h</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))
