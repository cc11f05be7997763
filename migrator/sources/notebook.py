"""Jupyter notebooks: code cells become one Python module, with positions mapped back to (cell, line).

IPython syntax is not Python: line magics (``%time``), shell escapes (``!nvidia-smi``) and cell magics
(``%%bash``) are blanked out of the Python text, keeping line numbers, and shell lines are handed to
the environment reader instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

from ..cells import code_cells
from ..model import Span

_SHELL_CELL_MAGICS = ("%%bash", "%%sh", "%%script bash", "%%script sh", "%%system")
#: line magics that run the Python after them (and their options): the code is read, blanked of the magic only,
#: so that a device call timed in a notebook is not passed over (issue 42: ``check`` read it as nothing)
_CODE_MAGIC = re.compile(r"%(?:time|timeit|prun)(?:[ \t]++-[nrpqoc](?:[ \t]++\d++)?+|[ \t]++-[A-Za-z]++)*+"
                         r"[ \t]++(?=\S)")


@dataclass(frozen=True)
class NotebookCode:
    python: str
    #: for each line of ``python`` (0-based index): (cell index, 1-based line within the cell)
    origins: Tuple[Tuple[int, int], ...]
    #: shell commands found in the notebook: (cell index, 1-based line, command text)
    shell: Tuple[Tuple[int, int, str], ...]

    def map_span(self, span: Span) -> Span:
        if span.line is None or not 0 < span.line <= len(self.origins):
            return span
        cell, line = self.origins[span.line - 1]
        end_line = None
        if span.end_line is not None and 0 < span.end_line <= len(self.origins):
            end_cell, end_in_cell = self.origins[span.end_line - 1]
            end_line = end_in_cell if end_cell == cell else None
        return Span(line, span.col, end_line, span.end_col if end_line is not None else None, cell)


def read_notebook(text: str) -> Union[NotebookCode, str]:
    """The notebook's code, or a human reason why it cannot be read."""
    cells = code_cells(text)
    if isinstance(cells, str):
        return cells
    lines: List[str] = []
    origins: List[Tuple[int, int]] = []
    shell: List[Tuple[int, int, str]] = []
    for index, source in cells:
        cell_lines, cell_shell = python_lines(source)
        lines.extend(cell_lines)
        origins.extend((index, number) for number in range(1, len(cell_lines) + 1))
        shell.extend((index, number, command) for number, command in cell_shell)
    return NotebookCode("\n".join(lines) + "\n", tuple(origins), tuple(shell))


def python_lines(source: str) -> Tuple[List[str], List[Tuple[int, str]]]:
    """A cell's lines with IPython syntax blanked (same count), and its shell commands as (line, command)."""
    cell_lines = source.splitlines() or [""]
    first = cell_lines[0].strip()
    shell_cell = first.startswith(_SHELL_CELL_MAGICS)
    other_cell_magic = first.startswith("%%") and not shell_cell
    lines: List[str] = []
    shell: List[Tuple[int, str]] = []
    for number, line in enumerate(cell_lines, start=1):
        stripped = line.lstrip()
        if shell_cell:
            if number > 1:
                shell.append((number, line))
            line = ""
        elif other_cell_magic and number == 1:
            line = ""
        elif stripped.startswith("!"):
            shell.append((number, stripped[1:]))
            line = ""
        elif stripped.startswith("%") and not stripped.startswith("%%") and _shell_magic(stripped):
            shell.append((number, _shell_magic(stripped) or ""))
            line = ""
        elif (magic := _CODE_MAGIC.match(stripped)) is not None:  # ``%time y = f()`` runs its code: read it
            indent = len(line) - len(stripped)
            line = line[:indent] + "0;" + " " * (magic.end() - 2) + stripped[magic.end():]  # columns kept
        elif stripped.startswith("%") or stripped.startswith("?") or stripped.endswith("?") and \
                not stripped.startswith("#") and stripped.rstrip("?").isidentifier():
            line = ""
        elif "= !" in line or "=!" in line:
            target, _, command = line.partition("!")
            shell.append((number, command))
            line = ""
        lines.append(line)
    return lines, shell


def _shell_magic(line: str) -> Optional[str]:
    """The shell text a line magic stands for: ``%pip install x`` -> ``pip install x`` (as ``!pip``),
    ``%env CUDA_VISIBLE_DEVICES=0`` / ``%set_env X 0`` -> ``CUDA_VISIBLE_DEVICES=0`` (an assignment, as in a
    script), ``%system cmd`` / ``%sx cmd`` -> ``cmd``; ``None`` for a magic that runs no command."""
    name, _, rest = line[1:].partition(" ")
    rest = rest.strip()
    if name in ("pip", "conda", "mamba"):
        return f"{name} {rest}"
    if name in ("system", "sx"):
        return rest
    if name in ("env", "set_env") and rest:
        key, sep, value = rest.partition("=")
        if not sep:
            key, _, value = rest.partition(" ")
        key = key.strip()
        return f"{key}={value.strip()}" if key.isidentifier() and value.strip() else None
    return None
