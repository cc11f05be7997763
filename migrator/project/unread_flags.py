"""A CUDA question bound at a module's top level to a name nothing reads: widedeep's ``use_cuda =
torch.cuda.is_available()`` at the top of ``losses.py``, read nowhere in the file and imported by no other module.

The answer decides nothing a run does: False on the target, it is dropped as it was on a machine without CUDA.
Renaming the question changes nothing either, so the finding goes to validate (a user may read the name later),
off the worklist.

Read from the module's own text and the project's imports: the name must have no load anywhere in the file (in
any function too), must not be listed in ``__all__``, and no module of the project may import it by name, import
everything from the module (``from m import *``), or import the module itself and read an attribute the scan cannot
follow (``import m``; ``m.use_cuda`` is a read of the module's attribute by a name the imports do not show).
"""

from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ..model import DefinitionKind, FileResult, Finding, Status
from ..sources.outline import MODULE
from .overridden_defaults import rewrites_on_a_note
from .reread import parse_text, read_text

#: the questions that answer without CUDA (False, 0) instead of raising
_QUESTIONS = frozenset({"torch.cuda.is_available", "torch.cuda.device_count"})
_SOURCE = "migrator module-name analysis"
#: bases that read no attribute of a subclass by name
_PLAIN_BASES = frozenset({"object", "torch.nn.Module", "torch.nn.modules.module.Module", "abc.ABC"})


def with_unread_flags(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, a CUDA question bound at a module's top level to a name nothing reads, or in a method to an
    attribute of ``self`` whose name no other line of the project holds, to validate."""
    questions = [f for f in findings if f.rule == "device-call" and f.api in _QUESTIONS
                 and any(v.status == Status.REWRITE for v in f.verdicts.values())]
    candidates = [f for f in questions if f.scope == MODULE]
    if not questions:
        return list(findings)
    by_rel = {r.file.rel: r for r in results}
    imported = _imported(results)
    texts: Dict[str, Optional[str]] = {}
    changed: Dict[str, Finding] = _unread_attributes([f for f in questions if f.scope != MODULE], results, texts)
    for path in sorted({f.path for f in candidates}):
        result = by_rel.get(path)
        module = result.outline.module if result is not None and result.outline is not None else None
        if module is None or f"{module}.*" in imported or module in imported:
            continue
        text = read_text(result, texts)
        tree = parse_text(text) if text is not None else None
        if tree is None:
            continue
        loaded = _loaded(tree)
        for finding in (f for f in candidates if f.path == path):
            names = _bound_at(tree, finding.span.line or 0)
            if names and not any(name in loaded or f"{module}.{name}" in imported for name in names):
                changed[finding.id] = rewrites_on_a_note(
                    finding, f"its answer is bound to `{', '.join(names)}`, which nothing in the project reads: it "
                    "decides nothing a run does, on the target as on a machine without CUDA", _SOURCE)
    return [changed.get(f.id, f) for f in findings]


def _unread_attributes(candidates: Sequence[Finding], results: Sequence[FileResult],
                       texts: Dict[str, Optional[str]]) -> Dict[str, Finding]:
    """improved-diffusion's ``self.sync_cuda = th.cuda.is_available()`` in ``TrainLoop.__init__``: an attribute
    bound to the question alone, in a class whose bases are the project's own (or ``object``, ``nn.Module``: no
    framework's, which may read its attributes by name), whose name is on no other line of any Python file of the
    project (no read, no ``getattr`` by name, no configuration key written in Python) is read by nothing: the
    question decides nothing a run does."""
    by_rel = {r.file.rel: r for r in results}
    own_classes = {f"{r.outline.module}.{d.name}": d.bases for r in results if r.outline is not None
                   for d in r.outline.definitions if d.kind == DefinitionKind.CLASS}
    bound: List[Tuple[Finding, str]] = []
    spaces: List[Tuple[Finding, str, str]] = []  # on a namespace: the finding, the receiver, the attribute
    for finding in candidates:
        text = read_text(by_rel.get(finding.path), texts)
        tree = parse_text(text) if text is not None else None
        receiver, attribute = _attribute_bound_at(tree, finding.span.line or 0) if tree is not None else ("", "")
        if not attribute:
            continue
        if receiver != "self":
            spaces.append((finding, receiver, attribute))
            continue
        owner = finding.scope.rpartition(".")[0]
        if owner in own_classes and all(b in own_classes or b in _PLAIN_BASES for b in own_classes[owner]):
            bound.append((finding, attribute))
    changed = _unread_on_namespaces(spaces, results, texts)
    if not bound:
        return changed
    words = re.compile(r"\b(" + "|".join(sorted({re.escape(a) for _, a in bound})) + r")\b")
    lines: Dict[str, Set[Tuple[str, int]]] = {}  # each attribute's name -> the lines that hold it, in one pass
    for result in results:
        if result.file.rel.endswith(".py"):
            for number, row in enumerate((read_text(result, texts) or "").splitlines(), 1):
                for match in words.finditer(row):
                    lines.setdefault(match.group(1), set()).add((result.file.rel, number))
    for finding, attribute in bound:
        if lines.get(attribute) == {(finding.path, finding.span.line)}:
            changed[finding.id] = rewrites_on_a_note(
                finding, f"its answer is kept as `self.{attribute}`, which nothing in the project reads: it decides "
                "nothing a run does, on the target as on a machine without CUDA", _SOURCE)
    return changed


def _unread_on_namespaces(spaces: Sequence[Tuple[Finding, str, str]], results: Sequence[FileResult],
                          texts: Dict[str, Optional[str]]) -> Dict[str, Finding]:
    """GLM's ``args.cuda = torch.cuda.is_available()`` after ``parse_args()``: an attribute of a namespace (the
    parsed arguments, an options object) that no code of the project reads, as an attribute (``args.cuda`` not
    called), by its name in a string (``getattr(args, 'cuda')``, ``opt['cuda']``, ``opt.get('cuda')``) or as a
    name (a parameter ``**vars(args)`` fills). A method's name (``x.cuda()``), a module's (``torch.cuda.``), a
    docstring's words and a store are no read. The files whose text may hold one are parsed to tell."""
    changed: Dict[str, Finding] = {}
    for attribute in sorted({a for _, _, a in spaces}):
        name = re.escape(attribute)
        # what a read looks like in the text (only such files are parsed): an attribute not called, not read further
        # (``torch.cuda.x``) and not stored, the name in a string a lookup takes, or the bare name
        maybe = re.compile(rf"\.{name}\b(?!\s*(?:\(|\.|=(?!=)))|(?:getattr|hasattr|get|pop)\([^)\n]*['\"]{name}['\"]"
                           rf"|\[\s*['\"]{name}['\"]\s*\]|(?<![\w.'\"]){name}\b(?!\s*\()")
        if any(_reads(parse_text(text), attribute) for result in results if result.file.rel.endswith(".py")
               for text in (read_text(result, texts),) if text is not None and maybe.search(text)):
            continue
        for finding, receiver, _ in (s for s in spaces if s[2] == attribute):
            changed[finding.id] = rewrites_on_a_note(
                finding, f"its answer is kept as `{receiver}.{attribute}`, which nothing in the project reads: it "
                "decides nothing a run does, on the target as on a machine without CUDA", _SOURCE)
    return changed


#: what reads an attribute by a name given as a string: ``getattr(args, 'cuda')``, ``opt.get('cuda')``
_BY_NAME = frozenset({"getattr", "hasattr", "get", "pop"})


def _reads(tree: Optional[ast.Module], name: str) -> bool:
    """Whether code in ``tree`` reads ``name`` (an unparsable file may)."""
    if tree is None:
        return True
    # a method called (``x.cuda()``) and a module or object read further (``torch.cuda.is_available``) are no read
    passed = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)} \
        | {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ast.Load) \
                and id(node) not in passed \
                or isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) \
                or isinstance(node, ast.arg) and node.arg == name:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == name:
            return True
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value == name for a in node.args[:2]):
            func = node.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in _BY_NAME:
                return True
    return False


def _attribute_bound_at(tree: ast.Module, line: int) -> Tuple[str, str]:
    """The receiver and the attribute a one-line assignment at ``line`` binds alone to a call (``self.sync_cuda =
    th.cuda.is_available()``, ``args.cuda = torch.cuda.is_available()``), else empty strings."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno == line == node.end_lineno and len(node.targets) == 1 \
                and isinstance(node.value, ast.Call):
            target = node.targets[0]
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                return target.value.id, target.attr
    return "", ""


def _imported(results: Iterable[FileResult]) -> FrozenSet[str]:
    """Every dotted name a module of the project imports (``pkg.losses.use_cuda``, ``pkg.losses.*``, ``pkg.losses``)."""
    names: Set[str] = set()
    for result in results:
        if result.outline is not None:
            names.update(result.outline.imports)
            names.update(target for _, target in result.outline.bindings)
    return frozenset(names)


def _loaded(tree: ast.Module) -> FrozenSet[str]:
    """The names the module reads anywhere, and those its ``__all__`` lists."""
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names.update(e.value for e in ast.walk(node.value)
                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return frozenset(names)


def _bound_at(tree: ast.Module, line: int) -> List[str]:
    """The plain names a top-level assignment spanning ``line`` binds (``use_cuda = torch.cuda.is_available()``),
    or none where it binds anything else (an attribute, a subscript, a tuple)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if all(isinstance(t, ast.Name) for t in node.targets):
                return [t.id for t in node.targets if isinstance(t, ast.Name)]
            return []
    return []
