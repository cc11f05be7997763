"""The change log of a ``fix`` run: one line per changed line, as a terminal line and as a Markdown table in
the form Cambricon's ``torch_gpu2mlu`` writes its ``report.md`` (``| No. | File | Description |``, each row
``change "before" to "after"``), with the rule that made the change as its own column."""

from __future__ import annotations

from typing import Iterator, Sequence

from . import FileFix


def change_lines(files: Sequence[FileFix]) -> Iterator[str]:
    """``train.py:12: device-move: x.cuda() -> x.npu()``, one per changed line."""
    for item in files:
        for change in item.changes:
            if change.before:
                yield f"{change.where(item.path)}: {', '.join(change.rules)}: {change.before} -> {change.after}"
            else:
                yield f"{change.where(item.path)}: {', '.join(change.rules)}: add {change.after}"


def markdown_log(files: Sequence[FileFix], target: str, written: bool) -> str:
    """The change log as a Markdown document; ``written`` says whether the files were changed or only shown."""
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
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
