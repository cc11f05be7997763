"""A rule's documentation, in ruff's sections, read from its docstring and rendered with its examples.

A rule's docstring is a one-line title and three sections::

    ## What it does
    ## Why is this bad?
    ## Fix safety

The ``Example`` section is not written by hand: it is the rule's first ``Invalid`` example, the verdict
per target and the output of ``fix``, all of which the test suite checks. ``migrator rules NAME`` prints
the result, and SARIF's rule help is rendered from it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Type, TypeVar

from ..maps.load import target_ids
from ..model import Status
from .examples import Example, Invalid, Valid

E = TypeVar("E", Valid, Invalid)

WHAT, WHY, FIX_SAFETY = "What it does", "Why is this bad?", "Fix safety"
SECTIONS: Tuple[str, ...] = (WHAT, WHY, FIX_SAFETY)


@dataclass(frozen=True)
class RuleDoc:
    name: str
    title: str
    category: str
    sections: Tuple[Tuple[str, str], ...]  # (heading, text) in the order written
    examples: Tuple[Example, ...]

    def section(self, heading: str) -> str:
        return next((text for name, text in self.sections if name == heading), "")

    @property
    def missing(self) -> Tuple[str, ...]:
        """The required sections the docstring lacks or leaves empty."""
        return tuple(heading for heading in SECTIONS if not self.section(heading))

    def markdown(self) -> str:
        return _render(self, _fence_markdown)

    def text(self) -> str:
        return _render(self, _fence_text)


def rule_doc(rule) -> RuleDoc:
    """The documentation of ``rule`` (any object with ``name``, ``category``, ``examples`` and a docstring)."""
    title, sections = parse_docstring(inspect.getdoc(rule) or "")
    return RuleDoc(rule.name, title or getattr(rule, "summary", "") or rule.name, rule.category.value,
                   sections, tuple(rule.examples))


def parse_docstring(doc: str) -> Tuple[str, Tuple[Tuple[str, str], ...]]:
    """``(title, ((heading, text), ...))``: the text before the first ``## `` heading is the title."""
    title_lines: List[str] = []
    sections: List[Tuple[str, str]] = []
    heading: Optional[str] = None
    body: List[str] = []
    for line in doc.splitlines():
        if line.startswith("## "):
            if heading is not None:
                sections.append((heading, "\n".join(body).strip()))
            heading, body = line[3:].strip(), []
        elif heading is None:
            title_lines.append(line)
        else:
            body.append(line)
    if heading is not None:
        sections.append((heading, "\n".join(body).strip()))
    return " ".join(" ".join(title_lines).split()), tuple(sections)


# ------------------------------------------------------------------------------------------ rendering


def _render(doc: RuleDoc, fence) -> str:
    parts = [f"{doc.name}: {doc.title}", f"Category: {doc.category}"]
    for heading in (WHAT, WHY):
        parts += [f"## {heading}", doc.section(heading)]
    example = _first(doc.examples, Invalid)
    if example is not None:
        parts += ["## Example", fence(example.code, example.path), f"Verdicts: {_verdicts(example)}"]
        for target, fixed in example.fixed.items():
            parts += [f"`migrator fix --target {target}` writes:", fence(fixed, example.path)]
    parts += [f"## {FIX_SAFETY}", doc.section(FIX_SAFETY)]
    valid = _first(doc.examples, Valid)
    if valid is not None:
        parts += ["## Not reported", fence(valid.code, valid.path)]
    extra = [(heading, text) for heading, text in doc.sections if heading not in SECTIONS]
    for heading, text in extra:
        parts += [f"## {heading}", text]
    return "\n\n".join(part for part in parts if part) + "\n"


def _first(examples: Sequence[Example], kind: Type[E]) -> Optional[E]:
    return next((example for example in examples if isinstance(example, kind)), None)


def _verdicts(example: Invalid) -> str:
    if isinstance(example.expect, Status):
        return f"{example.expect.value} on every target"
    return " · ".join(f"{target}: {example.expected(target).value}" for target in target_ids())


_LANGUAGE: Dict[str, str] = {".py": "python", ".ipynb": "json", ".sh": "bash", ".cu": "cuda", ".txt": "text",
                             "Dockerfile": "dockerfile"}


def _fence_markdown(code: str, path: str) -> str:
    language = next((name for suffix, name in _LANGUAGE.items() if path.endswith(suffix)), "")
    fence = "````" if "```" in code else "```"
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def _fence_text(code: str, path: str) -> str:
    return "\n".join("    " + line for line in code.rstrip().splitlines())
