"""The change log of a ``fix`` run: one line per changed line, as a terminal line and as a Markdown table in
the form Cambricon's ``torch_gpu2mlu`` writes its ``report.md`` (``| No. | File | Description |``, each row
``change "before" to "after"``), with the rule that made the change as its own column."""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

from . import FileFix


def change_lines(files: Sequence[FileFix]) -> Iterator[str]:
    """``train.py:12: device-move: x.cuda() -> x.npu()``, one per changed line."""
    for item in files:
        for change in item.changes:
            if change.before:
                yield f"{change.where(item.path)}: {', '.join(change.rules)}: {change.before} -> {change.after}"
            else:
                yield f"{change.where(item.path)}: {', '.join(change.rules)}: add {change.after}"


def markdown_log(files: Sequence[FileFix], target: str, written: bool,
                 planned: Optional[Sequence[FileFix]] = None) -> str:
    """The change log as a Markdown document; ``written`` says whether the files were changed or only shown.
    After the changes: each changed file's style, and every edit held back in ``planned`` (default ``files``)
    with its reason (issue 43: the log omitted what was held back)."""
    rows = [f"# migrator fix: changes for {target}", "",
            "Written to the files." if written else "Shown only (`--diff`): no file was changed.", "",
            "| No. | File | Rule | Description |", "|---|---|---|---|"]
    number = 0
    for item in files:
        for change in item.changes:
            number += 1
            what = (f'change "{_cell(change.before)}" to "{_cell(change.after)}"' if change.before
                    else f'add "{_cell(change.after)}"')
            rows.append(f"| {number} | {_cell(change.where(item.path))} | {', '.join(change.rules)} | {what} |")
    styles = [(item.path, item.style, item.style_note) for item in files if item.style]
    if styles:
        rows += ["", "## Style per file", "", "| File | Style | Why not portable |", "|---|---|---|"]
        rows += [f"| {_cell(path)} | {style} | {_cell(note or '')} |" for path, style, note in styles]
    held = [(item.path, skipped) for item in (files if planned is None else planned) for skipped in item.skipped]
    if held:
        rows += ["", "## Held back", "", "| File | Line | Rule | Why |", "|---|---|---|---|"]
        rows += [f"| {_cell(path)} | {skipped.line or '-'} | {skipped.rule} | {_cell(skipped.reason)} |"
                 for path, skipped in held]
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
