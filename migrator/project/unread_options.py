"""A command-line option nobody reads: ``parser.add_argument("--device", default="cuda")`` in a script whose parsed
options are read as ``args.steps`` and ``args.batch_size`` but never ``args.device``.

The default's ``"cuda"`` reaches nothing the script runs: the device comes from somewhere else (the bundled
example's ``torch.device("cuda", local_rank)``, which is its own finding). Renaming the option changes nothing on
the target, so the finding goes to validate (a user may read the option later), off the worklist.

Read from the script's own text only, and only where the namespace can be followed: the result of
``parse_args()`` / ``parse_known_args()`` bound to a name, directly or through a function of the module that
returns it, and handed on only positionally to functions of the module. Any other use of the namespace (passed
to another module's function, ``vars(args)``, ``getattr(args, name)``, returned, stored) or a read of the option
by its name anywhere in the file keeps the finding: what reads it is not known.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..model import FileResult, Finding, Status
from .overridden_defaults import rewrites_on_a_note
from .reread import parse_text, read_text

_RULES = frozenset({"device-string"})
_SOURCE = "migrator command-line analysis"
_PARSE = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
_Scope = ast.AST  # a function or the module: where a name is bound and read
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def with_unread_options(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, a device default of an option the script never reads to validate instead of work."""
    candidates = [f for f in findings if f.rule in _RULES
                  and any(v.status == Status.REWRITE and not v.evidence for v in f.verdicts.values())]
    if not candidates:
        return list(findings)
    by_rel = {r.file.rel: r for r in results}
    texts: Dict[str, Optional[str]] = {}
    changed: Dict[str, Finding] = {}
    for path in sorted({f.path for f in candidates}):
        text = read_text(by_rel.get(path), texts)
        if text is None or "add_argument" not in text:
            continue
        tree = parse_text(text)
        if tree is None:
            continue
        options = _options(tree)
        namespaces: Optional[_Namespaces] = None
        for finding in (f for f in candidates if f.path == path):
            dest = options.get((finding.span.line or 0, finding.span.col or 0))
            if dest is None:
                continue
            namespaces = namespaces or _Namespaces(tree)
            if namespaces.never_read(dest):
                changed[finding.id] = _unread(finding, dest)
    return [changed.get(f.id, f) for f in findings]


def _options(tree: ast.Module) -> Dict[Tuple[int, int], str]:
    """(line, column) of each string in an ``add_argument(...)``'s ``default=`` -> the option's ``dest``."""
    found: Dict[Tuple[int, int], str] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        dest = _dest(node)
        if default is None or dest is None:
            continue
        for inner in ast.walk(default):
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                found[inner.lineno, inner.col_offset] = dest
    return found


def _dest(call: ast.Call) -> Optional[str]:
    """Where argparse stores the option: ``dest=``, else the first long name, else the first name."""
    for keyword in call.keywords:
        if keyword.arg == "dest":
            return keyword.value.value if isinstance(keyword.value, ast.Constant) \
                and isinstance(keyword.value.value, str) else None
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    chosen = next((n for n in names if n.startswith("--")), names[0] if names else None)
    return chosen.lstrip("-").replace("-", "_") if chosen else None


class _Namespaces:
    """A module's parsed command-line namespaces, followed once: the attributes read off them, and whether every
    one could be followed (bound to a name, handed on only positionally to the module's own functions)."""

    def __init__(self, tree: ast.Module) -> None:
        self._parents = _parents(tree)
        self._functions = {f.name: f for f in tree.body if isinstance(f, _FUNCTIONS)}
        self.read: Set[str] = set()
        bound = list(_namespaces(tree, self._parents))
        self.followed = bool(bound) and all(ns is not None and self._follow(*ns, depth=3) for ns in bound)

    def never_read(self, dest: str) -> bool:
        return self.followed and dest not in self.read

    def _follow(self, scope: _Scope, name: str, depth: int) -> bool:
        """Whether every use of ``name`` in ``scope`` is an attribute of it (recorded in ``read``), or a positional
        argument to a function of the module whose parameter is followed in turn (``main(args)``)."""
        if depth == 0:
            return False
        for node in ast.walk(scope):
            if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
                continue
            parent = self._parents.get(id(node))
            if isinstance(parent, ast.Attribute):
                self.read.add(parent.attr)
                continue
            if not (isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name)
                    and parent.func.id in self._functions):
                return False
            callee = self._functions[parent.func.id]
            params = [*callee.args.posonlyargs, *callee.args.args]
            index = parent.args.index(node)
            if index >= len(params) or any(isinstance(a, ast.Starred) for a in parent.args[:index + 1]) \
                    or not self._follow(callee, params[index].arg, depth - 1):
                return False
        return True


def _namespaces(tree: ast.Module, parents: Dict[int, ast.AST]) -> Iterable[Optional[Tuple[_Scope, str]]]:
    """(scope, name) each parse result is bound to; ``None`` for one that cannot be followed."""
    returning = {f.name for f in tree.body if isinstance(f, _FUNCTIONS) and _returns_a_parse(f)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        parses = isinstance(func, ast.Attribute) and func.attr in _PARSE
        wrapper = isinstance(func, ast.Name) and func.id in returning
        if not (parses or wrapper):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Return) and parses:
            continue  # a wrapper's ``return parser.parse_args()``: followed where the wrapper is called
        yield _bound(node, parent, parents)


def _returns_a_parse(function: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Call)
               and isinstance(n.value.func, ast.Attribute) and n.value.func.attr in _PARSE for n in ast.walk(function))


def _bound(call: ast.Call, parent: Optional[ast.AST], parents: Dict[int, ast.AST]) -> Optional[Tuple[_Scope, str]]:
    """``args = parse()`` or ``args, rest = parser.parse_known_args()``: the scope and the name."""
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
        return None
    target = parent.targets[0]
    if isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    if not isinstance(target, ast.Name):
        return None
    scope: Optional[ast.AST] = parent
    while scope is not None and not isinstance(scope, (*_FUNCTIONS, ast.Module)):
        scope = parents.get(id(scope))
    return (scope, target.id) if scope is not None else None


def _parents(tree: ast.AST) -> Dict[int, ast.AST]:
    found: Dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            found[id(child)] = node
    return found


def _unread(finding: Finding, dest: str) -> Finding:
    return rewrites_on_a_note(finding, f"the option `{dest}` is never read: the script's parsed options are read at "
                              "other names only, so this default reaches no run (the device comes from elsewhere)",
                              _SOURCE, held="the option is never read: renaming its default changes nothing the "
                              "script runs")
