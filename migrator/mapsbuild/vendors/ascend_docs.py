"""Ascend's PyTorch-API support lists (``docs/zh/api/native_api/pytorch_<line>/*.md`` of Ascend/pytorch) as the
TSV the cann reader takes (``cann/torch_api_support.ascend-docs-pytorch-<line>.tsv``).

    python -m migrator.mapsbuild.vendors.ascend_docs DOCS_DIR OUT.tsv --line 2.13.0 --commit SHA

Each API is a ``### name`` heading (``### <code><i>class</i></code> name`` for a class; a class's methods and
attributes follow as ``> <font size="3">name</font>``), with its NPU name, a support table (one row per
product: ✔ / ✘) and its limits (``**限制与说明**``, one line or a list). Read as text, line by line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

PRODUCTS = ("Atlas A2 训练系列产品", "Atlas A3 训练系列产品", "Ascend 950DT", "Atlas 训练系列产品")
COLUMNS = ("api", "kind", "doc_page", "npu_name", *(p.replace(" ", "_") for p in PRODUCTS), "limitations")

_HEADING = re.compile(r"^###\s+(?:<code><i>(\w+)</i></code>\s*)?(\S+)\s*$")
_MEMBER = re.compile(r'^>\s*<font size="3">([^<]+)</font>\s*$')
_SUPPORT = re.compile(r"^\|\s*<term>([^<]+)</term>\s*\|\s*(✔|✘)\s*\|")
_NPU_NAME = re.compile(r"^\*\*NPU\s*形式名称\*\*[：:]\s*(.+?)\s*$")
_LIMITS = re.compile(r"^\*\*限制与说明\*\*[：:]\s*(.*?)\s*$")
#: markup inside a limit's text (``<term>Ascend 950DT</term>``, ``2<sup>24</sup>``): dropped, its text kept
_TAG = re.compile(r"<[^>]+>")
_NATIVE_DOC = re.compile(r"^\*\*原生文档\*\*[：:]\s*\[([^\]]+)\]")


@dataclass
class Entry:
    api: str
    kind: str
    page: str
    npu_name: str = ""
    support: Dict[str, str] = field(default_factory=dict)
    limits: List[str] = field(default_factory=list)

    def row(self) -> List[str]:
        marks = [{"✔": "Y", "✘": "N"}.get(self.support.get(p, ""), "") for p in PRODUCTS]
        limits = list(self.limits)
        while limits and not limits[-1]:
            limits.pop()
        return [self.api, self.kind, self.page, self.npu_name, *marks, re.sub(r"\s+", " ", " / ".join(limits))]


def parse_page(text: str, page: str) -> List[Entry]:
    entries: List[Entry] = []
    current: Optional[Entry] = None
    owner: Optional[str] = None  # the class whose members follow
    in_limits = False
    for raw in text.splitlines():
        line = raw.strip()
        heading, member = _HEADING.match(line), _MEMBER.match(line)
        if heading:
            kind = heading.group(1) or ""
            current = Entry(heading.group(2), kind if kind in ("class", "function") else "", page)
            owner = current.api if kind == "class" else None
            entries.append(current)
            in_limits = False
        elif member and owner:
            current = Entry(f"{owner}.{member.group(1).strip().rstrip('()')}", "member", page)
            entries.append(current)
            in_limits = False
        elif current is None:
            continue
        elif (match := _NATIVE_DOC.match(line)) and current.kind == "member":
            current.api = match.group(1).strip()  # a member is named as its PyTorch page names it
        elif (match := _NPU_NAME.match(line)):
            current.npu_name = match.group(1)
        elif (match := _SUPPORT.match(line)):
            current.support[match.group(1).strip()] = match.group(2)
        elif (match := _LIMITS.match(line)):
            in_limits = True
            if match.group(1):
                current.limits.append(_TAG.sub("", match.group(1)))
        elif in_limits and line.startswith("</div>"):
            in_limits = False
        elif in_limits and (line or current.limits):
            current.limits.append(_TAG.sub("", line))
    return entries


def extract(docs: Path) -> List[List[str]]:
    rows: List[List[str]] = []
    for path in sorted(docs.glob("*.md")):
        rows.extend(entry.row() for entry in parse_page(path.read_text(encoding="utf-8"), path.stem)
                    if entry.support)
    return rows


def write(docs: Path, out: Path, line: str, commit: str) -> int:
    rows = extract(docs)
    folder = f"pytorch_{line.replace('.', '-')}"
    header = [
        f"# Extracted from Ascend/pytorch (branch master, commit {commit}) docs/zh/api/native_api/{folder}/*.md",
        "# Docs license: CC-BY-4.0 (docs/LICENSE). Columns: Y = supported (✔), N = not supported (✘), empty = not "
        "stated. kind: class/function/member(method or attribute of the preceding class) when the docs mark it.",
        "# APIs absent from this list were NOT verified by Ascend (per the docs' own note), not necessarily "
        "unsupported.",
        "\t".join(COLUMNS),
    ]
    out.write_text("\n".join(header + ["\t".join(r) for r in rows]) + "\n", encoding="utf-8")
    return len(rows)


def main(argv: List[str]) -> int:
    if len(argv) != 6 or argv[2] != "--line" or argv[4] != "--commit":
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    count = write(Path(argv[0]), Path(argv[1]), argv[3], argv[5])
    print(f"{count} APIs -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
