"""What a module's syntax says about the training step (``StepFacts``), read from CPython's ``ast``.

* **Training loops**: a ``for``/``while`` whose body calls ``backward`` (``loss.backward()``,
  ``scaler.scale(loss).backward()``, ``optimizer.backward(loss)``, ``self.manual_backward(loss)``); the
  innermost such loop, widened to its parent when the parent itself steps the optimizer (gradient
  accumulation: the micro-batch loop sits inside the step). With the names its body calls.
* **Step functions**: a function that calls ``backward`` outside any loop of its own (detectron2's
  ``run_step``): the loop that calls it is elsewhere, so each of its calls is a step.
* **Tuning sites** the usages cannot show, because they are syntax rather than an API: a boolean mask read
  (``boxes[scores > t]``), control flow on a tensor's value (``if torch.isnan(loss).any():``), a tensor
  printed or logged (``print(f"{loss}")``), a Python loop over parameters doing in-place math.

* **Rare branches**: ``if step % N == 0:`` bodies and eval-mode branches, and what a scope calls only there.
* **Shape helpers**: functions whose ``return`` holds ``nonzero``/``unique``/... (detectron2's ``nonzero_tuple``).

A tensor is known here only by what made it: the receiver of ``backward``, a name bound to a ``torch.*`` call
or a reduction (``.sum()``, ``.mean()``, ``.norm()``...), a parameter named ``loss``/``grad_norm``/``*_loss``.
Names of anything else are not guessed at: ``if step > 3`` is a Python ``int``.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

from ..model import Span, StepFacts, TrainingLoop, TuneKind, TuneSite

MapSpan = Optional[Callable[[Span], Span]]
Loop = Union[ast.For, ast.AsyncFor, ast.While]
Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]

_BACKWARD = frozenset({"backward", "manual_backward"})
#: Methods whose result is a tensor computed on the device (a reduction, a norm): a name bound to one is a tensor.
_REDUCTIONS = frozenset({"sum", "mean", "norm", "max", "min", "std", "var", "abs", "amax", "amin", "prod",
                         "logsumexp", "float", "half", "detach", "clone", "sqrt", "exp", "log"})
#: ``torch.*`` calls whose value, tested by Python, is read back from the device.
_TESTS = frozenset({"isnan", "isinf", "isfinite", "equal", "allclose", "any", "all", "is_nonzero",
                    "count_nonzero"})
#: Comparisons that build an elementwise mask.
_MASK_COMPARE = (ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.Eq, ast.NotEq)
#: Methods and ``torch.*`` functions that build a boolean mask.
_MASK_CALLS = frozenset({"bool", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not",
                         "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "isin"})
#: Host-side sinks: printing and logging a tensor reads it back.
_LOG_METHODS = frozenset({"info", "debug", "warning", "warn", "error", "log", "add_scalar", "add_scalars",
                          "set_postfix", "put_scalar", "put_scalars"})
_PARAMETER_SOURCES = frozenset({"parameters", "named_parameters"})
#: Parameter names that hold a tensor in training code whatever calls the function.
_TENSOR_PARAMETERS = frozenset({"loss", "losses", "grad_norm", "total_norm", "logits"})


def step_facts(tree: ast.Module, module: str, map_span: MapSpan = None,
               source: Optional[str] = None) -> Optional[StepFacts]:
    """The module's training loops, step functions and tuning sites; ``None`` when it has none of them. With
    the ``source`` the tree was parsed from, a statement's expressions are walked only when its text could hold
    a site (``_Gate``): most statements of a model cannot, and walking every expression costs as much again as
    parsing the file."""
    reader = _StepReader(module, map_span, _Gate(source) if source is not None else None)
    reader.scope_body(tree.body, "<module>")
    if not (reader.loops or reader.steps or reader.sites or reader.inference or reader.periodic or reader.helpers):
        return None
    return StepFacts(loops=tuple(reader.loops), steps=tuple(reader.steps), sites=tuple(reader.sites),
                     periodic=tuple(reader.periodic), inference=tuple(reader.inference),
                     rare_calls=tuple(reader.rare_calls), shape_helpers=tuple(reader.helpers),
                     on_device=source is None or moves_to_a_device(source))


#: What a module says when it puts anything on an accelerator: a device call or argument, an accelerator
#: library (``accelerate``, Lightning, DeepSpeed), a vendor's device name. A training loop in a module that says
#: none of these runs on the host: reading a value back there waits for nothing.
_DEVICE_WORDS = re.compile(r"cuda|\bdevice|gpu|\bnpu|\bmlu|\bxpu|\bmps\b|accelerat|lightning|deepspeed|Fabric")
#: ``_DEVICE_WORDS`` apart: its plain words, found by ``str``'s own search (a regular expression of alternatives
#: tries each at every position: 0.14 s over timm's files, where most modules say ``cuda`` or ``device`` early),
#: and the words it matches only at a word's start.
_DEVICE_PLAIN = ("cuda", "gpu", "accelerat", "lightning", "deepspeed", "Fabric")
_DEVICE_AT_A_WORD = re.compile(r"\bdevice|\bnpu|\bmlu|\bxpu|\bmps\b")


def moves_to_a_device(source: str) -> bool:
    """Whether a module's text says anything that puts a tensor on an accelerator (``_DEVICE_WORDS``)."""
    return any(word in source for word in _DEVICE_PLAIN) or _DEVICE_AT_A_WORD.search(source) is not None


_BACKWARD_TEXT = re.compile("backward")


def _lines_of(source: str, pattern: "re.Pattern[str]") -> Set[int]:
    """The 1-based lines ``pattern`` matches on (the newlines between matches counted in C)."""
    lines: Set[int] = set()
    line, last = 1, 0
    for match in pattern.finditer(source):
        line += source.count("\n", last, match.start())
        last = match.start()
        lines.add(line)
    return lines


class _Gate:
    """Which source lines could hold anything the reader looks for, marked once per file by one regular
    expression (C speed): a statement's expressions are walked only when one of its lines is marked (or it
    names one of its scope's masks). An ``if``'s test, a loop's header and a ``return``'s value are read from
    the statement itself, when its header says a word they need (``says``)."""

    #: a line worth walking: ``backward``, printing or logging, a mask built inside brackets (``x[x > 0]``,
    #: ``x[~m.bool()]``: no bracket in between, so that a line of many ``[`` is read once, not once from each), or a
    #: conditional expression (`` if `` and a later `` else ``, looked for from the last `` if `` before it: a
    #: line of 50,000 `` if `` took minutes when each rescanned to the end of the line)
    MARKED = re.compile(r"backward|print\(|\.(?:info|debug|warning|warn|error|log)\(|add_scalar|put_scalar|"
                        r"set_postfix|\[[^\[\]\n]*?(?:<|>|==|!=|~|\.bool\(|isnan|isinf|isfinite|logical_)|"
                        r" if (?:(?! if (?!else ))[^\n])*? else ")

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines()
        self.marked = _lines_of(source, self.MARKED)
        self.backward = _lines_of(source, _BACKWARD_TEXT)

    def opens(self, stmt: ast.stmt, masks: Set[str]) -> bool:
        end = (stmt.end_lineno if not isinstance(stmt, _COMPOUND) else stmt.lineno) or stmt.lineno
        if any(line in self.marked for line in range(stmt.lineno, end + 1)):
            return True
        return bool(masks) and any(name in line for line in self.lines[stmt.lineno - 1:end] for name in masks)

    def calls_backward(self, statements: Sequence[ast.stmt]) -> bool:
        return any(line in self.backward for stmt in statements
                   for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))

    def header(self, stmt: ast.stmt) -> str:
        """A statement's first lines, through its test (``if``/``while``/``assert``) or its iterable (``for``)."""
        part = getattr(stmt, "test", None) or getattr(stmt, "iter", None)
        end = getattr(part, "end_lineno", None) or stmt.lineno
        return "\n".join(self.lines[stmt.lineno - 1:end])


class _StepReader:
    def __init__(self, module: str, map_span: MapSpan, gate: Optional[_Gate] = None) -> None:
        self.module = module
        self.map_span = map_span
        self.gate = gate
        self.loops: List[TrainingLoop] = []
        self.steps: List[str] = []
        self.sites: List[TuneSite] = []
        self.periodic: List[Span] = []
        self.inference: List[Span] = []
        self.rare_calls: List[Tuple[str, Tuple[str, ...]]] = []
        self.helpers: List[str] = []

    # ---------------------------------------------------------------------------------------- scopes

    def scope_body(self, body: Sequence[ast.stmt], scope: str, names: Tuple[str, ...] = (),
                   params: Sequence[str] = ()) -> None:
        """One function's (or the module's) own statements, then each definition inside it as its own scope."""
        every = list(_statements(body))
        statements = [stmt for stmt in every if not isinstance(stmt, _DEFINITIONS)]
        masks = _mask_names(statements)
        own = self._own(body, statements, masks)
        tensors = _tensor_names(own, params)
        if self.gate is None or self.gate.calls_backward(statements):
            self._loops_and_steps(body, own, scope)
        self._rare_branches(body, statements, scope)
        self._sites(own, scope, tensors, masks, body)
        if scope != "<module>" and any(isinstance(n, ast.Return) and n.value is not None and self._says(n, _SHAPE_WORDS)
                                       and _data_dependent(n.value) for n in statements):
            self.helpers.append(scope)
        for node in every:
            if not isinstance(node, _DEFINITIONS):
                continue
            inner = names + (node.name,)
            arguments = [] if isinstance(node, ast.ClassDef) else _tensor_parameters(node.args)
            self.scope_body(node.body, ".".join((self.module,) + inner), inner, arguments)

    def _own(self, body: Sequence[ast.stmt], statements: Sequence[ast.stmt], masks: Set[str]) -> List[ast.AST]:
        """A scope's own statements, and the expressions of those whose text could hold a site."""
        if self.gate is None:
            return list(_own_nodes(body))
        own: List[ast.AST] = []
        for stmt in statements:
            own.append(stmt)
            if self.gate.opens(stmt, masks):
                for part in _expressions(stmt):
                    own.extend(_own_nodes([part]))  # type: ignore[list-item]
        return own

    def _loops_and_steps(self, body: Sequence[ast.stmt], own: Sequence[ast.AST], scope: str) -> None:
        backward = [n for n in own if _calls_named(n, _BACKWARD)]
        if not backward:
            return
        parents = _loop_parents(body)
        chosen: Dict[int, Loop] = {}
        outside = False
        for call in backward:
            loop = _innermost_loop(call, parents)
            if loop is None:
                outside = True
                continue
            parent = parents.get(id(loop))
            while parent is not None and _steps_optimizer_itself(parent, loop):
                loop, parent = parent, parents.get(id(parent))
            chosen[id(loop)] = loop
        for loop in sorted(chosen.values(), key=lambda n: n.lineno):
            every_n = {id(n) for branch in _rare_in_loop(loop) for stmt in branch for n in _walk(stmt)}
            called = sorted({name for n in _loop_body_nodes(loop) if isinstance(n, ast.Call) and id(n) not in every_n
                             and (name := _last_name(n.func))})
            self.loops.append(TrainingLoop(scope=scope, span=self._span(loop), calls=tuple(called)))
        if outside and scope != "<module>" and scope not in self.steps:
            self.steps.append(scope)

    def _rare_branches(self, body: Sequence[ast.stmt], statements: Sequence[ast.stmt], scope: str) -> None:
        """Branches that do not run on every call: eval mode only (``if self.training: ... else: <here>``,
        ``if not self.training: <here>``) and once every N (``if step % N == 0: <here>``). Their spans, and the
        names the scope calls only there."""
        rare: List[Tuple[List[Span], Sequence[ast.stmt]]] = []
        for block in _blocks(body, statements):
            for index, node in enumerate(block):
                if isinstance(node, ast.If):
                    branch = self._rare_branch(node, block[index + 1:])
                    if branch is not None:
                        rare.append(branch)
        for node in statements:  # an exception handler runs when a step fails (an OOM retry), not each step
            for handler in getattr(node, "handlers", None) or ():
                if isinstance(node, ast.Try) and handler.body:
                    rare.append((self.periodic, handler.body))
        for block in _blocks(body, statements):  # ``try: return f(x)`` ``except OOM: pass``, then the recovery
            for index, node in enumerate(block):
                if isinstance(node, ast.Try) and node.handlers and _leaves(node.body) and block[index + 1:]:
                    rare.append((self.periodic, block[index + 1:]))
        if rare:
            self._note_rare(rare, body, scope)

    def _rare_branch(self, node: ast.If, after: Sequence[ast.stmt]
                     ) -> Optional[Tuple[List[Span], Sequence[ast.stmt]]]:
        """The branch of ``node`` (or the statements ``after`` it) that does not run on every call, with the
        spans it goes to (eval mode, once every N); ``None`` when both run."""
        mode = _training_test(node.test)
        if _scripting_test(node.test):  # TorchScript or tracing only: an export, not the eager step
            return self.inference, node.body
        if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
                and _scripting_test(node.test.operand) and _leaves(node.body) and after:
            return self.inference, after  # ``if not is_in_onnx_export(): return <eager>`` then the export's way
        if mode is True and node.orelse:
            return self.inference, node.orelse
        if mode is True and _leaves(node.body) and after:
            return self.inference, after  # ``if self.training: return loss`` then eval
        if mode is False:
            return self.inference, node.body
        if self._says(node, ("%",)) and _every_n(node.test):
            return self.periodic, node.body
        return None

    def _note_rare(self, rare: List[Tuple[List[Span], Sequence[ast.stmt]]], body: Sequence[ast.stmt],
                   scope: str) -> None:
        """Each rare branch's span, and the names the scope calls only in one."""
        inside: Set[int] = set()
        names: Set[str] = set()
        for spans, branch in rare:
            spans.append(self._span_of(branch))
            for stmt in branch:
                for inner in _walk(stmt):
                    inside.add(id(inner))
                    if isinstance(inner, ast.Call) and (name := _last_name(inner.func)):
                        names.add(name)
        elsewhere = {name for node in _own_nodes(body) if id(node) not in inside and isinstance(node, ast.Call)
                     and (name := _last_name(node.func))}  # every call of the scope: no gate here
        if names - elsewhere:
            self.rare_calls.append((scope, tuple(sorted(names - elsewhere))))

    def _span_of(self, statements: Sequence[ast.stmt]) -> Span:
        first, last = self._span(statements[0]), self._span(statements[-1])
        return Span(line=first.line, col=first.col, end_line=last.end_line, end_col=last.end_col, cell=first.cell)

    # ----------------------------------------------------------------------------------------- sites

    def _sites(self, own: Sequence[ast.AST], scope: str, tensors: Set[str], masks: Set[str],
               body: Sequence[ast.stmt] = ()) -> None:
        numpy_only: Optional[bool] = None  # a scope that computes with NumPy and names no torch: host arrays
        for node in own:
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                mask = _mask_in(node.slice, masks)
                if mask is not None and numpy_only is None:
                    numpy_only = _numpy_only(body)
                if mask is not None and not numpy_only:
                    self._site(TuneKind.MASK_INDEX, scope, node, mask)
            elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                if not self._says(node, _TEST_WORDS, tensors):
                    continue
                tested = _tensor_test(node.test, tensors)
                if tested is not None:
                    self._site(TuneKind.TENSOR_BRANCH, scope, node.test, tested)
            elif isinstance(node, ast.Call) and _is_log_call(node.func):
                shown = _tensor_argument(node, tensors)
                if shown is not None:
                    self._site(TuneKind.TENSOR_PRINT, scope, node, shown)
            elif isinstance(node, (ast.For, ast.AsyncFor)) and self._says(node, ("parameters", "params")):
                source = _parameter_source(node.iter)
                if source is not None and _updates_in_place(node):
                    header = f"for {ast.unparse(node.target)} in {source}:"
                    self._site(TuneKind.PARAMETER_LOOP, scope, node, source, header)

    def _says(self, node: ast.AST, words: Sequence[str], names: Set[str] = frozenset()) -> bool:  # type: ignore[assignment]
        """Whether a statement's first line holds one of ``words`` or ``names`` (always, without the source)."""
        if self.gate is None or not isinstance(node, ast.stmt):
            return True
        text = self.gate.header(node)
        return any(word in text for word in words) or any(name in text for name in names)

    def _site(self, kind: TuneKind, scope: str, node: ast.AST, detail: str, snippet: str = "") -> None:
        text = snippet or ast.unparse(node)
        self.sites.append(TuneSite(kind=kind, scope=scope, span=self._span(node),
                                   snippet=text.splitlines()[0][:160], detail=detail[:120]))

    def _span(self, node: ast.AST) -> Span:
        span = Span(line=node.lineno, col=node.col_offset, end_line=node.end_lineno,  # type: ignore[attr-defined]
                    end_col=node.end_col_offset)  # type: ignore[attr-defined]
        if self.map_span is None:
            return span
        start = self.map_span(Span(line=span.line, col=span.col))
        end = self.map_span(Span(line=span.end_line, col=span.end_col))
        if end.cell != start.cell:  # a loop does not cross cells; keep the start
            return start
        return Span(line=start.line, col=start.col, end_line=end.line, end_col=end.col, cell=start.cell)


def calls_of(tree: ast.Module, module: str, names: Set[str]) -> List[Tuple[str, str, Span, str]]:
    """(called name, scope, span, snippet) of every call whose last name is in ``names``: where a project's
    own helper is called (``rules/tune/`` reads the few files that call one)."""
    found: List[Tuple[str, str, Span, str]] = []

    def visit(body: Sequence[ast.stmt], scope: str, path: Tuple[str, ...]) -> None:
        for node in _own_nodes(body):
            if isinstance(node, ast.Call) and _last_name(node.func) in names:
                span = Span(line=node.lineno, col=node.col_offset, end_line=node.end_lineno,
                            end_col=node.end_col_offset)
                found.append((str(_last_name(node.func)), scope, span, ast.unparse(node).splitlines()[0][:160]))
        for definition in _definitions(body):
            inner = path + (definition.name,)
            visit(definition.body, ".".join((module,) + inner), inner)

    visit(tree.body, "<module>", ())
    return found


_SHAPE_METHODS = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive"})
#: What a ``return`` line must say to be read for a data-dependent shape; a test's line, for a tensor's value.
_SHAPE_WORDS = tuple(_SHAPE_METHODS) + ("where",)
_TEST_WORDS = (".any(", ".all(", "torch.")


def _data_dependent(value: ast.expr) -> bool:
    """Whether a returned expression holds a call whose output size depends on the data (``x.nonzero()``,
    ``torch.where(mask)``), so that the function returns a data-dependent shape."""
    for node in _walk(value):
        if isinstance(node, ast.Call):
            name = _last_name(node.func)
            if name in _SHAPE_METHODS or (name == "where" and len(node.args) == 1 and not node.keywords):
                return _root_name(node.func) not in ("np", "numpy")
    return False


# ------------------------------------------------------------------------------------------ walking


#: Statements whose header is what their own line holds (their bodies are statements of their own).
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body``, nested in compound ones too, in order; a function or class is yielded but
    not entered (it is a scope of its own)."""
    stack: List[ast.stmt] = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, _COMPOUND):
            stack.extend(reversed(_bodies(stmt)))


def _definitions(body: Sequence[ast.stmt]) -> Iterator[Union[Function, ast.ClassDef]]:
    """Functions and classes defined in ``body`` (under ``if``/``try``/``with`` too), not inside another one."""
    return (stmt for stmt in _statements(body) if isinstance(stmt, _DEFINITIONS))


def _bodies(stmt: ast.stmt) -> List[ast.stmt]:
    """The statements a compound statement holds, in order: body, handlers, cases, else, finally."""
    inner: List[ast.stmt] = list(getattr(stmt, "body", None) or ())
    for handler in getattr(stmt, "handlers", None) or ():
        inner.extend(handler.body)
    for case in getattr(stmt, "cases", None) or ():
        inner.extend(case.body)
    for name in ("orelse", "finalbody"):
        inner.extend(getattr(stmt, name, None) or ())
    return inner


def _expressions(stmt: ast.stmt) -> List[ast.AST]:
    """A statement's own expressions: all of a simple one, the header of a compound one."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    if isinstance(stmt, ast.Try):
        return []
    return [child for child in _children(stmt)]


def _children(node: ast.AST) -> List[ast.AST]:
    """``ast.iter_child_nodes(node)``, in its order, as a list: the fields read by name, without its two
    generators (the reader's walks cost half as much)."""
    found: List[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if type(value) is list:
            found.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)``, in its order (breadth first), on ``_children``."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        todo.extend(_children(node))
        yield node


def _own_nodes(body: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``body`` that is not inside a nested function, class or lambda."""
    stack: List[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(_children(node))


def _loop_parents(body: Sequence[ast.stmt]) -> Dict[int, Optional[Loop]]:
    """id(node) -> the innermost loop around it, for every own node of ``body``."""
    parents: Dict[int, Optional[Loop]] = {}
    stack: List[Tuple[ast.AST, Optional[Loop]]] = [(node, None) for node in reversed(body)]
    while stack:
        node, loop = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        parents[id(node)] = loop
        inner = node if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else loop
        for child in _children(node):
            if isinstance(node, (ast.For, ast.AsyncFor)) and child is node.iter:
                stack.append((child, loop))  # the iterable is evaluated once, outside the loop
            else:
                stack.append((child, inner))
    return parents


def _innermost_loop(node: ast.AST, parents: Dict[int, Optional[Loop]]) -> Optional[Loop]:
    return parents.get(id(node))


def _steps_optimizer_itself(parent: Loop, inner: Loop) -> bool:
    """Whether ``parent`` steps an optimizer outside ``inner`` while ``inner`` does not (the accumulation loop
    sits inside the step). An epoch loop that steps its learning-rate scheduler, or zeroes the gradients once
    before its batches, is not a step: its inner loop, which steps the optimizer, is."""
    if any(_steps_an_optimizer(n) for n in _loop_body_nodes(inner)):
        return False
    inside = {id(n) for n in _walk(inner)}
    return any(_steps_an_optimizer(n) for n in _walk(parent) if id(n) not in inside)


def _steps_an_optimizer(node: ast.AST) -> bool:
    """``optimizer.step()``, ``scaler.step(opt)``, ``self.optimizer_step()``: not a scheduler's ``step``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    attr = node.func.attr
    if attr == "step":
        owner = (_last_name(node.func.value) or "").lower() if isinstance(node.func.value, (ast.Attribute, ast.Name)) \
            else ""
        return not any(word in owner for word in ("sched", "lr", "warmup", "progress", "env"))
    return "optimizer_step" in attr or "optim_step" in attr


def _loop_body_nodes(loop: Loop) -> Iterator[ast.AST]:
    """What runs each time round: the body (and a ``while``'s test), not a ``for``'s iterable."""
    for stmt in loop.body:
        yield from _walk(stmt)
    if isinstance(loop, ast.While):
        yield from _walk(loop.test)


def _rare_in_loop(loop: Loop) -> Iterator[Sequence[ast.stmt]]:
    """The bodies inside the loop that do not run each time round: ``if step % 100 == 0:`` (and
    ``if i % log_every == 0 and rank == 0:``), and exception handlers."""
    for node in _walk(loop):
        if isinstance(node, ast.If) and _every_n(node.test):
            yield node.body
        elif isinstance(node, ast.Try):
            for handler in node.handlers:
                yield handler.body


def _every_n(test: ast.expr) -> bool:
    """A test with a modulo in it (``step % N == 0``), not a %-formatted string."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
               and not isinstance(n.left, (ast.Constant, ast.JoinedStr)) for n in _walk(test))


def _blocks(body: Sequence[ast.stmt], statements: Sequence[ast.stmt]) -> Iterator[Sequence[ast.stmt]]:
    """Every statement list of a scope: its body, and each of its statements' bodies."""
    yield body
    for node in statements:
        if not isinstance(node, _COMPOUND):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _leaves(block: Sequence[ast.stmt]) -> bool:
    """Whether a block always leaves its function (ends in ``return`` or ``raise``)."""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))


#: the questions true only while a model is exported: scripted, traced, or exported to ONNX; the last two names
#: are also a library's own wrappers' (PyG's ``torch_geometric.is_in_onnx_export``), called by the bare name
_EXPORTING = ("jit.is_scripting", "jit.is_tracing", "onnx.is_in_onnx_export")
_EXPORTING_NAMES = frozenset({"is_scripting", "is_in_onnx_export"})


def _scripting_test(test: ast.expr) -> bool:
    """``torch.jit.is_scripting()`` / ``torch.jit.is_tracing()`` / ``torch.onnx.is_in_onnx_export()``: true only
    while a model is scripted, traced or exported (gliner's ONNX-only ``scatter_reduce_`` branches)."""
    name = (_dotted(test.func) or "") if isinstance(test, ast.Call) else ""
    return name.endswith(_EXPORTING) or name.rpartition(".")[2] in _EXPORTING_NAMES


def _training_test(test: ast.expr) -> Optional[bool]:
    """True for ``self.training`` (or ``model.training``) and ``mode == "train"``, False for ``not self.training``
    and a mode that evaluates (``mode in ["dev", "test"]``, ``split != "train"``: s3prl's experts), else None."""
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _training_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _mode_test(test.left, test.ops[0], test.comparators[0])
    return None


#: the names a run's mode goes by, and the modes that train and that only evaluate
_MODE_NAMES = frozenset({"mode", "split", "stage", "phase"})
_TRAINING_MODES = frozenset({"train", "training", "fit"})
_EVALUATION_MODES = frozenset({"dev", "test", "eval", "evaluate", "evaluation", "valid", "val", "validation",
                               "validate", "inference", "predict", "infer"})


def _mode_test(left: ast.expr, op: ast.cmpop, right: ast.expr) -> Optional[bool]:
    """``mode == "train"``: True; ``mode in ("dev", "test")``, ``mode != "train"``: False; else None."""
    name = left.attr if isinstance(left, ast.Attribute) else left.id if isinstance(left, ast.Name) else None
    if name not in _MODE_NAMES:
        return None
    values = [right] if isinstance(op, (ast.Eq, ast.NotEq)) else \
        list(right.elts) if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.List, ast.Tuple, ast.Set)) \
        else []
    words = {v.value.lower() for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    if not values or len(words) != len(values):
        return None
    trains = True if words <= _TRAINING_MODES else False if words <= _EVALUATION_MODES else None
    if trains is None:
        return None
    return trains if isinstance(op, (ast.Eq, ast.In)) else (False if trains else None)


def _calls_named(node: ast.AST, names: frozenset) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


def _last_name(func: ast.expr) -> Optional[str]:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _root_name(node: ast.expr) -> Optional[str]:
    """The name an expression chain starts from: ``np`` in ``np.isnan(a).any``."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.expr) -> Optional[str]:
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


# ------------------------------------------------------------------------------------------ tensors


def _tensor_parameters(args: ast.arguments) -> List[str]:
    """The parameters that may hold a tensor: not one whose default is a number, a string or a flag
    (``compute_aux_loss=False`` is a switch, whatever its name says)."""
    positional = args.posonlyargs + args.args
    defaults: Dict[str, ast.expr] = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):],
                                             args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return [a.arg for a in positional + args.kwonlyargs
            if not (isinstance(defaults.get(a.arg), ast.Constant)
                    and isinstance(defaults[a.arg].value, (bool, int, float, str)))]  # type: ignore[attr-defined]


#: What turns a tensor into a Python value (``t.item()``, ``float(t)``): a name bound to one holds a number.
_TO_PYTHON = frozenset({"item", "tolist"})
_TO_PYTHON_BUILTINS = frozenset({"float", "int", "bool"})


def _tensor_names(own: Sequence[ast.AST], params: Sequence[str] = ()) -> Set[str]:
    """Names known to hold a device tensor: the receiver of ``backward`` (``loss``), names bound to a ``torch.*``
    call or a reduction method, and parameters named as a loss or a gradient norm is (``loss``, ``grad_norm``,
    ``ctc_loss``: what a training step hands a helper)."""
    names: Set[str] = {p for p in params if p in _TENSOR_PARAMETERS or p.endswith("_loss")}
    for node in own:
        if (_calls_named(node, frozenset({"backward"})) and isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)):
            names.add(node.func.value.id)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _makes_tensor(node.value):
                names.add(node.targets[0].id)
    # a name also bound to a value read back (``n = mask.sum().item()``) is a Python number where it is tested
    return names - {node.targets[0].id for node in own if isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and _to_python(node.value)}


def _to_python(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name):
        return value.func.id in _TO_PYTHON_BUILTINS
    return isinstance(value.func, ast.Attribute) and value.func.attr in _TO_PYTHON


def _makes_tensor(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return False
    dotted = _dotted(value.func) or ""
    if dotted.startswith("torch.") and not dotted.startswith(("torch.cuda.", "torch.distributed.")):
        return value.func.attr not in ("is_available", "device", "device_count", "get_rank", "numel")
    return value.func.attr in _REDUCTIONS and not isinstance(value.func.value, ast.Constant)


def _tensor_test(test: ast.expr, tensors: Set[str]) -> Optional[str]:
    """What in ``test`` is a tensor value read back to decide a branch, if anything."""
    for node in _walk(test):
        if isinstance(node, ast.Call):
            name = _last_name(node.func)
            if name == "item":
                return None  # the ``.item()`` is the sync, reported as such
            dotted = _dotted(node.func) or ""
            if name in ("any", "all") and isinstance(node.func, ast.Attribute) and not node.args \
                    and _root_name(node.func) not in ("np", "numpy"):
                return ast.unparse(node)
            if dotted.startswith("torch.") and name in _TESTS:
                return ast.unparse(node)
    if _names_in_value(test) & tensors:
        return ast.unparse(test)
    return None


def _names_in_value(test: ast.expr) -> Set[str]:
    """Names whose value ``test`` uses (not ``x.shape``, ``len(x)``, ``x is None``, ``isinstance(x, ...)``)."""
    if isinstance(test, ast.Name):
        return {test.id}
    if isinstance(test, ast.UnaryOp):
        return _names_in_value(test.operand)
    if isinstance(test, ast.BoolOp):
        return set().union(*(_names_in_value(v) for v in test.values))
    if isinstance(test, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
            return set()
        return set().union(*(_names_in_value(v) for v in [test.left, *test.comparators]))
    if isinstance(test, ast.BinOp):
        return _names_in_value(test.left) | _names_in_value(test.right)
    return set()


def _is_log_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "print"
    if isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS:
        owner = _dotted(func.value) or ""
        last = owner.rpartition(".")[2].lower()
        return any(word in last for word in ("log", "writer", "storage", "tb", "summary", "pbar", "bar", "wandb")) \
            or func.attr in ("add_scalar", "add_scalars", "put_scalar", "put_scalars")
    return False


def _tensor_argument(call: ast.Call, tensors: Set[str]) -> Optional[str]:
    """The tensor a print or log call shows (not through ``.item()``, which is its own finding)."""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for node in _shown(arg):
            if isinstance(node, ast.Name) and node.id in tensors:
                return node.id
    return None


def _shown(node: ast.expr) -> Iterator[ast.expr]:
    """The values a print or log argument shows: itself, an f-string's fields, a %-format's or dict's values."""
    if isinstance(node, ast.JoinedStr):
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                yield from _shown(value.value)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from _shown(element)
    elif isinstance(node, ast.Dict):
        for value in node.values:
            yield from _shown(value)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        yield from _shown(node.right)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        for arg in node.args:
            yield from _shown(arg)
    else:
        yield node


# -------------------------------------------------------------------------------------------- masks


def _mask_names(own: Sequence[ast.AST]) -> Set[str]:
    """Names bound to a boolean mask in this scope (``keep = scores > thresh``)."""
    names: Set[str] = set()
    for node in own:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _is_mask(node.value, names):
                names.add(node.targets[0].id)
    return names


def _is_mask(node: ast.expr, masks: Set[str]) -> bool:
    if isinstance(node, ast.Compare):
        return (len(node.ops) == 1 and isinstance(node.ops[0], _MASK_COMPARE)
                and not any(isinstance(v, ast.Constant) and isinstance(v.value, (str, type(None)))
                            for v in [node.left, *node.comparators])
                and not any(isinstance(v, ast.Call) and _last_name(v.func) in ("len", "size", "dim", "numel")
                            for v in [node.left, *node.comparators])
                and not all(isinstance(v, ast.Constant) for v in [node.left, *node.comparators]))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _is_mask(node.operand, masks) or (isinstance(node.operand, ast.Name) and node.operand.id in masks)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return any(_is_mask(side, masks) or (isinstance(side, ast.Name) and side.id in masks)
                   for side in (node.left, node.right))
    if isinstance(node, ast.Call):
        name = _last_name(node.func)
        dotted = _dotted(node.func) or ""
        if name in _MASK_CALLS and (dotted.startswith("torch.") or isinstance(node.func, ast.Attribute)):
            return not dotted.startswith(("np.", "numpy.", "os.", "math."))
    return False


def _mask_in(index: ast.expr, masks: Set[str]) -> Optional[str]:
    """The boolean mask ``index`` selects with (``x[m]``, ``x[m, :]``, ``x[:, a > 0]``), if any."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, ast.Name) and part.id in masks:
            return part.id
        if not isinstance(part, (ast.Name, ast.Slice, ast.Constant)) and _is_mask(part, masks) \
                and not _made_on_the_host(part):
            return ast.unparse(part)
    return None


def _numpy_only(body: Sequence[ast.stmt]) -> bool:
    """Whether a scope's own code calls NumPy and names no torch (a SciPy-free assignment solver): its arrays,
    and so its masks, live on the host."""
    names = {node.id for node in _own_nodes(body) if isinstance(node, ast.Name)}
    return bool(names & {"np", "numpy"}) and not names & {"torch", "th", "F", "nn"}


def _made_on_the_host(mask: ast.expr) -> bool:
    """A mask computed from ``torch.arange(n)`` (no device) and numbers: the host has it, its count included."""
    calls = [n for n in _walk(mask) if isinstance(n, ast.Call)]
    if not calls or not all(_dotted(c.func) in ("torch.arange", "torch.tensor")
                            and not any(k.arg == "device" for k in c.keywords) for c in calls):
        return False
    inside = {id(a) for c in calls for a in _walk(c)}
    return not any(isinstance(n, ast.Name) and n.id not in ("torch", "self") and id(n) not in inside
                   for n in _walk(mask))


# --------------------------------------------------------------------------------------- parameters


def _parameter_source(iterable: ast.expr) -> Optional[str]:
    """``model.parameters()``, ``group["params"]``, ``zip(ema.parameters(), model.parameters())``: what the
    loop walks parameter by parameter."""
    for node in _walk(iterable):
        if isinstance(node, ast.Call) and _last_name(node.func) in _PARAMETER_SOURCES:
            return ast.unparse(iterable)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "params":
            return ast.unparse(iterable)
    return None


def _updates_in_place(loop: Union[ast.For, ast.AsyncFor]) -> bool:
    """Whether the loop body does tensor math in place (``p.mul_(d)``, ``p.data.add_(...)``, ``torch._foreach``
    aside): one small kernel launch per parameter per step."""
    for node in _walk(loop):
        if node is loop.iter:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr.endswith("_") and not attr.startswith("_") and attr not in ("requires_grad_", "share_memory_"):
                return True
    return False
