"""A Jupyter notebook's code cells, read from its JSON (nbformat 4, and 3's worksheets): what the analysis
reads (``sources/notebook.py``, ``pipeline/suppress.py``) and what the page shows a cell's lines from
(``report/html.py``). Reading only: nothing here judges the code."""

from __future__ import annotations

import json
from typing import List, Optional, Tuple, Union


def read_notebook_cells(text: str) -> Optional[List[Tuple[int, str]]]:
    """(cell index, source) for every code cell, or None when the text is not a readable notebook."""
    cells = code_cells(text)
    return None if isinstance(cells, str) else cells


def code_cells(text: str) -> Union[List[Tuple[int, str]], str]:
    """(index among all cells, source) of each code cell (nbformat 4, and 3's worksheets), or a reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not a valid notebook: JSON error at line {exc.lineno}, column {exc.colno}: {exc.msg}"
    cells = data.get("cells") if isinstance(data, dict) else None
    if cells is None and isinstance(data, dict) and isinstance(data.get("worksheets"), list):
        cells = [c for sheet in data["worksheets"] if isinstance(sheet, dict) for c in sheet.get("cells", [])]
    if not isinstance(cells, list):
        return "not a valid notebook: no 'cells' list"
    found = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(str(s) for s in source)
        if not isinstance(source, str):
            return f"not a valid notebook: cell {index} has a source of type {type(source).__name__}"
        found.append((index, source))
    return found
