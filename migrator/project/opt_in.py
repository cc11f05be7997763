"""A mode a class turns on only in a method nobody in the project calls: Hugging Face's naive model parallelism,
vendored with every older ``modeling_t5.py`` / ``modeling_gpt2.py``. ``self.model_parallel = False`` in
``__init__``, ``True`` only in ``parallelize()``; ``if self.model_parallel: torch.cuda.set_device(...)`` in the
forward. Where no code of the project calls ``.parallelize(``, the mode is never on in its runs: what the method
and the branches on its flag do is not the training run (tooling, as a demo is), however much CUDA they hold.
A flag the class sets true anywhere else (``__init__``, a method the project calls) keeps the findings. A call is
looked for in the code (``x.parallelize(...)``), not in the text: HF's docstrings show one. Missed: a name built at
run time (``getattr(model, name)()``), and a flag set true from outside the class (``model.model_parallel = True``
in a script): only the class's own assignments are read."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ..model import Context, FileResult, Finding
from .reread import block_end, parse_text, read_text

#: ``self.model_parallel = True`` and ``if self.model_parallel``: a file worth parsing for a mode switched on by a
#: method is one whose text sets a flag true and tests the same flag
_SET_TRUE = re.compile(r"self\.(\w+)\s*=\s*True\b")
#: ``self.model_parallel = False``: a flag that may never be set true at all (torch-rechub's TIGER keeps HF's
#: branches on it and dropped ``parallelize()``)
_SET_OFF = re.compile(r"self\.(\w+)\s*=\s*False\b")
_TESTED = re.compile(r"\b(?:if|and|elif)\s+(?:not\s+)?self\.(\w+)")
_Span = Tuple[int, int]


def with_opt_in_modes(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, those in a mode no project code turns on (its switch, and the branches on its flag) in
    tooling."""
    lines: Dict[str, List[int]] = {}
    for finding in findings:
        if finding.context == Context.TRAINING and finding.path.endswith(".py") and finding.span.line:
            lines.setdefault(finding.path, []).append(finding.span.line)
    by_rel = {r.file.rel: r for r in results}
    texts: Dict[str, Optional[str]] = {}
    calls = _ProjectCalls(results, texts)
    spans: Dict[str, List[_Span]] = {}
    for path in sorted(lines):
        text = read_text(by_rel.get(path), texts)
        if text is None or not (set(_SET_TRUE.findall(text)) & set(_TESTED.findall(text))
                                or _off_flag_tested_near(text, lines[path])):
            continue
        tree = parse_text(text)
        if tree is None:
            continue
        modes = [mode for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) for mode in _modes(cls)]
        # only a mode a finding sits in is asked of the project's calls
        held = [m for m in modes if any(first <= line <= last for first, last in m.spans for line in lines[path])]
        off = [m for m in held if not (calls.made(m.switches) if m.switches else calls.sets_true(m.flag))]
        if off:
            spans[path] = [span for mode in off for span in mode.spans]
    if not spans:
        return list(findings)
    return [replace(f, context=Context.TOOLING) if f.context == Context.TRAINING and _inside(spans.get(f.path), f)
            else f for f in findings]


def _off_flag_tested_near(text: str, lines: Sequence[int]) -> bool:
    """Whether a finding's line sits in the block of an ``if self.<flag>:`` on a flag the text sets ``False``
    (read by indentation, before any parse): only then is the module parsed for a flag nothing sets true (timm
    sets and tests ``grad_checkpointing`` in every model, with no finding under it)."""
    off = set(_SET_OFF.findall(text))
    if not off or not lines:
        return False
    rows = text.splitlines()
    for number, row in enumerate(rows, 1):
        found = _IF_FLAG.match(row)
        if found is not None and found.group(1) in off:
            end = block_end(rows, number)
            if any(number < line <= end for line in lines):
                return True
    return False


#: an ``if``/``elif`` statement on a flag of ``self`` (alone, negated, or first in an ``and``)
_IF_FLAG = re.compile(r"^\s*(?:if|elif)\s+(?:not\s+)?self\.(\w+)\b")


@dataclass(frozen=True)
class _Mode:
    """A flag attribute a class sets true only in some of its methods (``switches``), and the lines that run only
    under it: those methods' bodies and the bodies of ``if self.<flag>:``."""

    switches: FrozenSet[str]
    spans: Tuple[_Span, ...]
    #: the flag (a mode with no switch is never on, unless code elsewhere sets it: ``sets_true``)
    flag: str = ""


def _modes(cls: ast.ClassDef) -> Iterable[_Mode]:
    methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    set_true: Dict[str, Set[str]] = {}
    set_elsewhere: Set[str] = set()
    for name, method in methods.items():
        for node in ast.walk(method):
            for attr, value in _self_assignments(node):
                if isinstance(value, ast.Constant) and value.value is True and name != "__init__":
                    set_true.setdefault(attr, set()).add(name)
                elif not (isinstance(value, ast.Constant) and value.value in (False, None)):
                    set_elsewhere.add(attr)  # ``self.model_parallel = device_map is not None``: decided by data
    set_off = {attr for method in methods.values() for node in ast.walk(method)
               for attr, value in _self_assignments(node)
               if isinstance(value, ast.Constant) and value.value is False}
    for attr in sorted(set_off - set(set_true) - set_elsewhere):
        set_true[attr] = set()  # set off and never on in the class: on only if code elsewhere sets it
    for attr, switches in sorted(set_true.items()):
        if attr in set_elsewhere:
            continue
        branches = [_body_span(node) for node in ast.walk(cls) if isinstance(node, ast.If) and _tests(node.test, attr)]
        own = [(methods[m].lineno, methods[m].end_lineno or methods[m].lineno) for m in sorted(switches)]
        if branches or own:
            yield _Mode(frozenset(switches), tuple(branches + own), attr)


def _self_assignments(node: ast.AST) -> Iterable[Tuple[str, ast.expr]]:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                yield target.attr, node.value


def _tests(test: ast.expr, attr: str) -> bool:
    """``if self.model_parallel:`` (alone or in an ``and``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_tests(value, attr) for value in test.values)
    return isinstance(test, ast.Attribute) and test.attr == attr and isinstance(test.value, ast.Name) \
        and test.value.id == "self"


def _body_span(node: ast.If) -> _Span:
    return node.body[0].lineno, max(getattr(s, "end_lineno", None) or s.lineno for s in node.body)


class _ProjectCalls:
    """The names the project's code calls, each with the functions it is called in, read once per file that
    holds the name (a docstring's example is no call)."""

    def __init__(self, results: Sequence[FileResult], texts: Dict[str, Optional[str]]) -> None:
        self._results = [r for r in results if r.file.rel.endswith(".py")]
        self._texts = texts
        self._calls: Dict[str, Optional[Dict[str, List[FrozenSet[str]]]]] = {}

    def made(self, switches: FrozenSet[str]) -> bool:
        """Whether a switch is called outside the switches themselves (a model's ``parallelize`` calls its
        encoder's: the mode is still off until something else turns it on); a file that cannot be read may."""
        for result in self._results:
            text = read_text(result, self._texts)
            if text is None or not any(name in text for name in switches):
                continue
            found = self._of(result.file.rel, text)
            if found is None:
                return True
            if any(not (around & switches) for name in switches for around in found.get(name, ())):
                return True
        return False

    def sets_true(self, flag: str) -> bool:
        """Whether any project code may set ``flag`` on from outside its class: any value but ``False`` given to
        the name (``model.model_parallel = True``, ``model_parallel=args.mp`` handed to a constructor); a file
        that cannot be read may."""
        pattern = re.compile(r"\b%s\s*=(?!=)[ \t]*(?![ \t]|False\b)" % re.escape(flag))
        return any(text is None or pattern.search(text) is not None
                   for text in (read_text(result, self._texts) for result in self._results))

    def _of(self, rel: str, text: str) -> Optional[Dict[str, List[FrozenSet[str]]]]:
        if rel not in self._calls:
            tree = parse_text(text)
            self._calls[rel] = None if tree is None else _calls_in(tree)
        return self._calls[rel]


def _calls_in(tree: ast.Module) -> Dict[str, List[FrozenSet[str]]]:
    """Each called name, with the names of the functions around each call."""
    found: Dict[str, List[FrozenSet[str]]] = {}
    stack: List[Tuple[ast.AST, FrozenSet[str]]] = [(tree, frozenset())]
    while stack:
        node, around = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = around | {child.name} if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else around
            if isinstance(child, ast.Call):
                func = child.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) \
                    else None
                if name is not None:
                    found.setdefault(name, []).append(around)
            stack.append((child, inner))
    return found


def _inside(spans: Optional[List[_Span]], finding: Finding) -> bool:
    line = finding.span.line or 0
    return bool(spans) and any(first <= line <= last for first, last in spans or ())
