"""One cause, one finding: every use of a device (or backend) variable is a site of the finding at the place
the variable is set. The site keeps its verdicts (``fix`` and ``explain`` read them) and names the finding at
the cause as its ``root``; readiness, effort and blockers count roots only."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import AbstractSet, Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..evidence import Bucket, bucket, counted_status, finding_bucket, grade
from ..contexts import path_context
from ..model import Category, Context, Finding, Grade, Span, Status, Verdict
from ..devices import CUDA_AVAILABILITY
from ..resolve.modules import module_name_for
from .coverage import runs_as_written

_Place = Tuple[str, Optional[int], Optional[int]]  # path, cell, line


def with_roots(findings: Sequence[Finding]) -> List[Finding]:
    """``findings`` in their order, each site of a cause pointing at the finding there: the one written on the
    cause's line (in the module the value was set in), or else the first site (the cause itself is a plain
    assignment no rule reports)."""
    at_line: Dict[_Place, Finding] = {}
    for finding in findings:  # a device's or a backend's finding there before another rule's (an operator's)
        place = (finding.path, finding.span.cell, finding.span.line)
        there = at_line.get(place)
        if there is None or (there.category not in _VALUES and finding.category in _VALUES):
            at_line[place] = finding
    files = {module_name_for(f.path): f.path for f in findings if f.path.endswith(".py")}
    chosen: Dict[_Place, str] = {}
    roots: Dict[str, str] = {}
    for finding in findings:
        if finding.cause is None:
            continue
        # a constant imported from another module (``from .parameters import DEVICE``) is set in that file; one
        # with no finding of its own there is still one cause for every file that uses it
        path = finding.path if finding.cause_module is None else \
            files.get(finding.cause_module, f"<{finding.cause_module}>")
        place = (path, finding.cause.cell, finding.cause.line)
        if place not in chosen:
            there = _within(at_line, path, finding.cause)
            chosen[place] = there.id if there is not None and there.id != finding.id else finding.id
        if chosen[place] != finding.id:
            roots[finding.id] = chosen[place]
    return [replace(f, root=_last(roots, f.id)) if f.id in roots else f for f in findings]


#: the categories whose findings judge a value a site's argument came through (``rules._FLOWS``)
_VALUES = frozenset({Category.DEVICE, Category.DISTRIBUTED, Category.AMP})


def _within(at_line: Dict[_Place, Finding], path: str, cause: Span) -> Optional[Finding]:
    """The finding written on the cause's first line, or else on a later line of it (a test over several lines:
    ``if (... and self._device.type == "cuda"):``)."""
    last = min(cause.end_line or cause.line or 0, (cause.line or 0) + 50)
    for line in range((cause.line or 0), last + 1):
        found = at_line.get((path, cause.cell, line))
        if found is not None:
            return found
    return None


def _last(roots: Dict[str, str], start: str) -> str:
    """The root at the end of a chain (a binding set from another binding), never a cycle."""
    seen = {start}
    current = roots[start]
    while current in roots and roots[current] not in seen:
        seen.add(current)
        current = roots[current]
    return current


#: The most lines a statement's finding may span and still take the findings within it as its sites (a call
#: written over a few lines, not a function or a block).
_STATEMENT_LINES = 6


def with_line_roots(findings: Sequence[Finding]) -> List[Finding]:
    """One line, one item of work: where several rules report the same work on one line (``torch.device("cuda"
    if torch.cuda.is_available() else "cpu")``: the string, the test and the device call, each a rewrite `fix`
    applies), or within one statement written over a few lines (``dist.init_process_group(`` then
    ``backend="nccl")``), the first of them is the item and the others are its sites. Only findings that every
    target settles the same way are joined (the same status, `fix` applying them or not), so the plan's phases
    resolve an item whole. A finding already the site of a cause elsewhere keeps its root; what is not work (to
    validate, a data gap) is not joined."""
    roots: Dict[str, str] = {}
    statement: Optional[Finding] = None  # the first finding of the statement the walk is in
    heads: Dict[_Settles, Finding] = {}  # per way of settling, its item there
    work = _items_of_work(findings)
    _arguments_at_their_literal(findings, work, roots)
    statement_of: Dict[str, str] = {}  # each item's statement: the first finding of it
    for finding in sorted(work, key=lambda f: (f.path, f.span.cell or 0, f.span.line or 0, f.span.col or 0)):
        if finding.id in roots:
            continue
        if statement is None or statement.path != finding.path or statement.span.cell != finding.span.cell \
                or (finding.span.line or 0) > _last_line(statement):
            statement, heads = finding, {}
        statement_of[finding.id] = statement.id
        head = heads.setdefault(_settles(finding), finding)
        if head is not finding:
            roots[finding.id] = head.id
    _one_item_a_statement(work, roots, statement_of)
    if not roots:
        return list(findings)
    roots = {site: _last(roots, site) for site in roots}  # an argument's string that joined its statement's item
    # a site of a finding that has just become a site itself points at the item
    return [replace(f, root=roots[f.id]) if f.id in roots else
            replace(f, root=roots[f.root]) if f.root in roots else f for f in findings]


_Settles = Tuple[Tuple[str, str, bool], ...]


def _one_item_a_statement(work: Sequence[Finding], roots: Dict[str, str], statement_of: Mapping[str, str]) -> None:
    """Items left in one statement that every target gives the same status, one a `fix` edit and one by hand
    (poutyne's ``[f"cuda:{d}" for d in range(torch.cuda.device_count())]``: the f-string by hand, the count
    renamed; sgm's ``torch.cuda.amp.autocast(`` / ``dtype=torch.get_autocast_gpu_dtype(),`` / ``)``): one item,
    at the one done by hand, since the statement needs a hand after `fix` too."""
    statements: Dict[Tuple[str, int, str, Tuple[Tuple[str, str], ...]], List[Finding]] = {}
    for finding in work:
        if finding.id not in roots:
            statuses = tuple(sorted((t, counted_status(v).value) for t, v in finding.verdicts.items()))
            statements.setdefault((finding.path, finding.span.cell or 0, statement_of.get(finding.id, finding.id),
                                   statuses), []).append(finding)
    for items in statements.values():
        if len(items) > 1:
            head = next((f for f in items if not all(v.fixable for v in f.verdicts.values())), items[0])
            roots.update((f.id, head.id) for f in items if f is not head)


def _items_of_work(findings: Sequence[Finding]) -> List[Finding]:
    """The findings that are items of work so far: on the worklist, at a line, no one's site."""
    return [f for f in findings if f.root is None and f.span.line is not None and finding_bucket(f) == Bucket.WORK]


def _settles(finding: Finding) -> _Settles:
    """How every target settles a finding (its status as counted, whether `fix` applies it): findings joined into
    one item must agree on it, so the plan's phases resolve the item whole."""
    return tuple(sorted((t, counted_status(v).value, v.fixable) for t, v in finding.verdicts.items()))


def _arguments_at_their_literal(findings: Sequence[Finding], work: Sequence[Finding], roots: Dict[str, str]) -> None:
    """``torch.device(`` / ``f"cuda:{rank}" if ... else "cpu"`` / ``)``: the call's device argument is the string
    written in it, one edit, whatever `fix` does with each: the call is a site of the string's item (of the
    item the string is a site of, where it is one: the availability test that decides it). So is a process
    group's backend argument and its ``"nccl"`` (funasr's ``init_process_group(backend=kwargs.get("backend",
    "nccl"))``)."""
    items = {f.id for f in work}
    literals: Dict[str, List[Tuple[Finding, str]]] = {}
    for finding in findings:
        item = finding.root or finding.id
        if _is_literal(finding) and item in items and finding.span.line is not None:
            literals.setdefault(finding.path, []).append((finding, item))
    for finding in work:
        if _is_literal(finding) or finding.rule not in _TAKES_A_LITERAL or finding.path not in literals:
            continue
        first, last = finding.span.line or 0, _last_line(finding)
        inside = [item for f, item in literals[finding.path] if f.span.cell == finding.span.cell
                  and f.rule == _TAKES_A_LITERAL[finding.rule] and first <= (f.span.line or 0) <= last
                  and item != finding.id]
        if inside:
            roots[finding.id] = inside[0]


#: the rules whose call finding judges the string written in it: the string's rule, by the call's
_TAKES_A_LITERAL = {"device-argument": "device-string", "collective-backend": "collective-backend"}
#: the API of a backend string (``collective-backend`` reports the literal and the call that receives it)
_BACKEND_LITERAL = "torch.distributed.Backend"


def _is_literal(finding: Finding) -> bool:
    return finding.rule == "device-string" or (finding.rule == "collective-backend" and finding.api == _BACKEND_LITERAL)


def _last_line(finding: Finding) -> int:
    """The last line a finding's statement takes (its first when it spans more than a statement would)."""
    first = finding.span.line or 0
    last = finding.span.end_line or first
    return last if last - first < _STATEMENT_LINES else first


#: A custom op's finding that stands for the whole op, in this order of preference: its build declares it.
_OP_CAUSE_RULES = ("extension-build", "cuda-kernel", "torch-library-cuda")


def with_op_roots(findings: Sequence[Finding], op_of: Callable[[Finding], Optional[str]]) -> List[Finding]:
    """A custom operator is one cause: its kernels, registrations and call sites are sites of the finding at
    its build (else its first kernel file, else its first finding), which carries the op's plan. ``op_of``
    names the op a finding belongs to (``inventory.OpMembership``)."""
    members: Dict[str, List[Finding]] = {}
    for finding in findings:
        op = op_of(finding)
        if op is not None:
            members.setdefault(op, []).append(finding)
    roots: Dict[str, str] = {}
    for found in members.values():
        cause = min(found, key=lambda f: (_OP_CAUSE_RULES.index(f.rule) if f.rule in _OP_CAUSE_RULES
                                          else len(_OP_CAUSE_RULES), f.path, f.span.line or 0))
        roots.update((f.id, cause.id) for f in found if f is not cause and f.root is None)
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


#: Rules whose findings are a use of a CUDA library in code.
LIBRARY_USE_RULES = ("cuda-library", "triton-launch")


def with_requirement_roots(findings: Sequence[Finding], library_of: Callable[[str], Optional[str]]) -> List[Finding]:
    """A requirement on a CUDA library (``triton`` in ``requirements-sparse_attn.txt``) is one cause with the
    code that uses the library: a site of the first use (which carries the port), so the library is not
    counted twice. A requirement nothing in the code uses stays its own finding (drop it); the CUDA requirements
    left in one file that every target judges alike are one item there. ``library_of`` names the library of an
    API (``third_party().library_of``)."""
    first_use: Dict[str, str] = {}
    for finding in findings:  # a use that runs as written (plain PyTorch, optional) is no cause to join
        if finding.rule in LIBRARY_USE_RULES and finding.root is None and not runs_as_written(finding):
            first_use.setdefault(library_of(finding.api) or finding.api.split(".", 1)[0], finding.id)
    by_id = {f.id: f for f in findings}
    roots: Dict[str, str] = {}
    for finding in findings:  # the requirement names the library's import name (``sources/environment``)
        if finding.rule == "cuda-requirement" and finding.root is None and finding.api.startswith("requirement:"):
            use = first_use.get(finding.api.split(":", 1)[1])
            if use is not None and finding_bucket(by_id[use]) == Bucket.WORK:
                roots[finding.id] = use
            elif use is not None and finding_bucket(finding) == Bucket.WORK:
                # the bundled example's `flash_attn_func` behind its SDPA fallback is advice, not work, while its
                # `flash-attn==2.6.3` pin fails to install on the target: the pin is the cause, the use its site
                roots.update((f.id, finding.id) for f in findings if f.id == use or f.root == use)
    # the rest of one requirements file's CUDA wheels (a lock file's nvidia-* pins) are one change of that file:
    # sites of its first that every target says the same of; a pin that carries its library's uses is a cause of
    # its own (the bundled example's `flash-attn==2.6.3` beside its CUDA index and torch pin: another change)
    causes = set(roots.values())
    heads: Dict[Tuple[str, Tuple[Tuple[str, str], ...]], str] = {}
    for finding in findings:
        if finding.rule == "cuda-requirement" and finding.root is None and finding.id not in roots \
                and finding.id not in causes:
            statuses = tuple((t, v.status.value) for t, v in finding.verdicts.items())
            head = heads.setdefault((finding.path, statuses), finding.id)
            if head != finding.id:
                roots[finding.id] = head
    return [replace(f, root=_end_of(roots, f.id)) if f.id in roots else f for f in findings]


def _end_of(roots: Mapping[str, str], found: str) -> str:
    """The root at the end of ``found``'s chain: roots are heads, never sites of another."""
    seen = {found}
    while found in roots and roots[found] not in seen:
        found = roots[found]
        seen.add(found)
    return found



def with_library_guard_roots(findings: Sequence[Finding], op_wrappers: AbstractSet[str] = frozenset()) -> List[Finding]:
    """A test for CUDA in a function that uses a CUDA-only library (``if not torch.cuda.is_available(): raise``
    before ``nvidia_smi.getInstance()``) guards that use: renamed alone it would let the library run where it
    cannot, so it is a site of the function's first library finding, whose port is the work. So is a device in
    the methods of a class the function defines (Lightning's bitsandbytes layers, built inside
    ``_import_bitsandbytes()``: ``device = device or torch.device("cuda")`` before ``bnb``'s quantization): the
    class exists for the library, and changes with its port. A device the function itself uses beside the library
    (a training step calling ``flash_attn_func``) is its own work. A library use that runs as written (optional,
    or a plain-PyTorch member: ``scatter(src, index)``) has no port for a test to join. A count's or an
    availability's test in a function that wraps a model in ``DataParallel`` (learn2learn's Lightning algorithms:
    ``if self.data_parallel and torch.cuda.device_count() > 1:``) is a site of the wrap, where the wrap is work
    wherever the test is: renamed alone it would turn on the wrap the target does not support. So is a test of the
    device's name there (widedeep's ``use_multi_gpu = ... and self.device.startswith("cuda")``), at the wrap's
    own cause where it has one.

    The repository's own compiled CUDA extension is such a library too (theseus' ``if not
    torch.cuda.is_available(): raise`` before ``CusolverLUSolver(...)``), and a class whose name says it is the CUDA
    implementation (``LUCudaSparseSolver``, ``FusedLayerNormCUDA``), or an autograd ``Function`` (``op_wrappers``:
    openpoints' ``KNNQuery``, whose forward allocates ``torch.cuda.IntTensor(m, nsample)`` for
    ``pointops_cuda.knnquery_cuda``), that uses one is that use's CUDA side whole: its tests, allocations and moves
    change with the port, or go with the class where the target takes another implementation."""
    findings = _wraps_at_their_cause(findings)
    library: Dict[Tuple[str, str], str] = {}
    cuda_classes = _cuda_implementations(findings, op_wrappers)
    wrapped: Dict[Tuple[str, str], Finding] = {}  # a data-parallel wrap per function: a count's test guards it
    wraps: Dict[Tuple[str, str], Finding] = {}  # ... and a test of the device's name, whatever the wrap's cause
    for finding in findings:
        if finding.rule in _PORTED_USES and finding.scope != "<module>" and not runs_as_written(finding):
            library.setdefault((finding.path, finding.scope), finding.root or finding.id)
        elif finding.rule == "data-parallel" and finding.scope != "<module>":
            wraps.setdefault((finding.path, finding.scope), finding)
            if finding.root is None:
                wrapped.setdefault((finding.path, finding.scope), finding)
    if not library and not wraps and not cuda_classes:
        return list(findings)
    scopes: Dict[str, List[str]] = {}
    for path, scope in library:
        scopes.setdefault(path, []).append(scope)

    def root_of(finding: Finding) -> Optional[str]:
        if finding.root is not None or finding.rule in _PORTED_USES:
            return None
        named = _implementation_scope(finding.scope, op_wrappers)
        if named is not None and finding.category in _IMPLEMENTATION_CATEGORIES \
                and (finding.path, named) in cuda_classes:
            return cuda_classes[finding.path, named]
        if finding.tests_device:  # widedeep's ``use_multi_gpu = ... and self.device.startswith("cuda")``
            wrap = wraps.get((finding.path, finding.scope))
            # (a wrap already a site of this test, torchdistill's ``if ... device.type.startswith('cuda')``: the
            # test stays the cause, never its own site)
            if wrap is not None and _work_wherever(wrap, finding) and (wrap.root or wrap.id) != finding.id:
                return wrap.root or wrap.id
        if finding.api in CUDA_AVAILABILITY:
            wrap = wrapped.get((finding.path, finding.scope))
            if wrap is not None and _work_wherever(wrap, finding):
                return wrap.id  # ``if torch.cuda.device_count() > 1: model = DataParallel(model)``: one change
            return library.get((finding.path, finding.scope))
        if finding.category != Category.DEVICE:
            return None
        around = [s for s in scopes.get(finding.path, ()) if finding.scope.startswith(s + ".")
                  and finding.scope.count(".") - s.count(".") >= 2]  # ``<function>.<Class>.<method>``
        return library[finding.path, max(around, key=len)] if around else None

    roots = {f.id: root for f in findings for root in (root_of(f),) if root is not None and root != f.id}
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


#: the uses whose port is the work: a CUDA-only library's, the repository's own compiled CUDA extension's
_PORTED_USES = frozenset({"cuda-library", "extension-call"})


#: what an implementation's class does around its port beside its device handling: its autocast decorators
#: (``@torch.cuda.amp.custom_fwd`` on the wrapper's ``forward``)
_IMPLEMENTATION_CATEGORIES = frozenset({Category.DEVICE, Category.AMP})


def _implementation_scope(scope: str, op_wrappers: AbstractSet[str]) -> Optional[str]:
    """The class around ``scope`` that is a CUDA implementation by its name, or an autograd ``Function``."""
    owner = scope.rpartition(".")[0]
    return owner if owner in op_wrappers else _cuda_class_scope(scope)


def _cuda_implementations(findings: Sequence[Finding],
                          op_wrappers: AbstractSet[str] = frozenset()) -> Dict[Tuple[str, str], str]:
    """(path, the scope of a class named for CUDA or of an autograd ``Function``) -> the root of the first port
    use in that class."""
    out: Dict[Tuple[str, str], str] = {}
    for finding in findings:
        named = _implementation_scope(finding.scope, op_wrappers) if finding.rule in _PORTED_USES else None
        if named is not None and not runs_as_written(finding):
            out.setdefault((finding.path, named), finding.root or finding.id)
    return out


#: the words of a camel-case or snake-case name (``LUCudaSparseSolver``: ``LU``, ``Cuda``, ``Sparse``, ``Solver``)
_CAMEL_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+")


def _cuda_class_scope(scope: str) -> Optional[str]:
    """The prefix of ``scope`` up to the innermost class whose name says it is a CUDA implementation, if any."""
    parts = scope.split(".")
    named = [i for i, part in enumerate(parts) if part[:1].isupper()
             and any(word.lower() == "cuda" for word in _CAMEL_WORD.findall(part))]
    return ".".join(parts[:named[-1] + 1]) if named else None


def _wraps_at_their_cause(findings: Sequence[Finding]) -> Sequence[Finding]:
    """A data-parallel wrap in the body of a CUDA test that runs as written everywhere (widedeep's ``if
    use_multi_gpu and torch.cuda.device_count() > 1: model = DataParallel(model)``) is the cause, not the test's
    site: the test is right as written (the target is kept out of the wrap it does not support) and the wrap is the
    work (DDP). The test and what else sits at it become sites of the wrap."""
    by_id = {f.id: f for f in findings}
    moved: Dict[str, str] = {}  # the test's id -> the wrap's
    for finding in findings:
        test = by_id.get(finding.root) if finding.rule == "data-parallel" and finding.root else None
        # (a wrap the test keeps out as written, ``project/kept_guards``, is to validate: no cause of work)
        if test is not None and test.root is None and runs_as_written(test) and not runs_as_written(finding) \
                and any(bucket(v) == Bucket.WORK for v in finding.verdicts.values()) and test.id not in moved:
            moved[test.id] = finding.id
    if not moved:
        return findings
    wraps = set(moved.values())
    return [replace(f, root=None) if f.id in wraps else replace(f, root=moved[f.id]) if f.id in moved
            else replace(f, root=moved[f.root]) if f.root in moved else f for f in findings]


def _work_wherever(item: Finding, site: Finding) -> bool:
    """Whether ``item`` is work on every target ``site`` is: a site of it is counted with it there."""
    return all(verdict.status == Status.SUPPORTED or item.verdicts.get(target) is not None
               and item.verdicts[target].status != Status.SUPPORTED for target, verdict in site.verdicts.items())


#: the rules whose findings are uses of a CUDA library, with the library when the rule names it
_LIBRARY_USES: Dict[str, Optional[str]] = {"cuda-library": None, "triton-launch": "triton"}


def with_module_library_roots(findings: Sequence[Finding], library_of: Callable[[str], Optional[str]],
                              row_of: Callable[[str], Optional[str]] = lambda api: None) -> List[Finding]:
    """A CUDA library's uses in one file are one cause: a Triton kernel module's ``import triton``,
    ``@triton.jit``, every ``tl.*`` name and every ``kernel[grid](...)`` launch are one port of that module, not
    one finding a name; a library the target's own build of the package serves (``partial``: mmcv built for the
    NPU) is one cause in the project.
    Each use after the file's first use of the library that says the same on every target (the import, where
    there is one) is a site of that first use (an optional use, judged apart, keeps its own; a use that runs as
    written, optional or a plain-PyTorch member, is no site). A ``torch.library`` registration for CUDA in such a
    module is a site of its port too."""
    first: Dict[Tuple[str, str, Tuple[Tuple[str, str], ...], Optional[str]], Finding] = {}
    roots: Dict[str, str] = {}
    # the head of a project-wide cause is a use in training code where there is one: a cause whose head sits in a
    # tooling script (mmrotate's tools/analysis_tools) would leave the worklist with it
    ordered = sorted(findings, key=lambda f: path_context(f.path) != Context.TRAINING)
    for finding in ordered:
        if finding.rule not in _LIBRARY_USES or finding.root is not None or runs_as_written(finding):
            continue  # a use that runs as written (optional, plain PyTorch) is no part of a port
        # a ``kernel[grid](...)`` launch is a use of Triton in its file, as the ``import triton`` above it is
        library = _LIBRARY_USES[finding.rule] or library_of(finding.api) or finding.api.split(".", 1)[0]
        # a library the target's build of the package serves (mmcv built with FORCE_NPU=1: ``partial``) is one
        # change for the whole project, wherever it is imported; its ops are each checked on the card
        where = "" if any(v.status == Status.PARTIAL for v in finding.verdicts.values()) else finding.path
        statuses = tuple((t, v.status.value) for t, v in finding.verdicts.items())
        # in a file, by the data's row that judges each use (``row_of``): swav's ``apex.amp`` uses and its
        # ``apex.parallel.convert_syncbn_model`` are two rewrites, each with its own replacement, not one port
        row = row_of(finding.api) if where else None
        head = first.setdefault((where, library, statuses, row), finding)
        if head is not finding:
            roots[finding.id] = head.id
    # torchtitan's ``fused_swiglu``: a ``torch.library`` registration for CUDA in a Triton kernel module registers
    # those kernels; its key changes with their port, not before it
    ported = {head.path: head.id for (where, _, _, _), head in first.items() if where}
    for finding in findings:
        if finding.rule == "torch-library-cuda" and finding.root is None and finding.path in ported:
            roots[finding.id] = ported[finding.path]
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


_KERNEL_SOURCE = "migrator kernel-module analysis"
_NAMED_SOURCE = "migrator library-scope analysis"


def with_library_named_scopes(findings: Sequence[Finding], library_of: Callable[[str], Optional[str]],
                              spellings: Mapping[str, AbstractSet[str]]) -> List[Finding]:
    """A module or class named for a CUDA-only library the project uses (alibi-detect's ``cd/keops/`` detectors
    on pykeops, rl-games' ``CuleEnv`` on torchcule) is that library's backend: its device handling (``if
    self.device.type == 'cuda':``, ``kwargs.pop('device', 'cuda:0')`` handed to the emulator) serves the library.
    Where the library is work (a port), each such finding is a site of the library's first use there (in the
    file, else in the project); where every use of it runs as written (an optional backend the project goes on
    without), a target never takes that backend, and its device handling is no work either. ``spellings``: each
    library's names a module, package or class may carry (its import name, aliases, the name without a ``py`` or
    ``torch`` prefix)."""
    uses: Dict[str, List[Finding]] = {}
    for finding in findings:
        library = library_of(finding.api) if finding.rule == "cuda-library" else None
        if library is not None and library in spellings:
            uses.setdefault(library, []).append(finding)
    if not uses:
        return list(findings)
    out = []
    for finding in findings:
        library = _named_library(finding, uses, spellings) if finding.category == Category.DEVICE \
            and finding.root is None and not runs_as_written(finding) else None
        if library is None:
            out.append(finding)
            continue
        ported = [u for u in uses[library] if _ported_wherever(u, finding)]
        if ported:
            head = next((u for u in ported if u.path == finding.path), ported[0])
            out.append(replace(finding, root=head.root or head.id))
        elif all(runs_as_written(u) for u in uses[library]):
            text = (f"the device handling of a backend named for `{library}`, which this project uses only where it "
                    "is installed (it goes on without it): a target never takes that backend, and its port is a "
                    "choice, not work")
            out.append(replace(finding, verdicts={t: v if v.status == Status.SUPPORTED else
                                                  Verdict(Status.SUPPORTED, text, _NAMED_SOURCE)
                                                  for t, v in finding.verdicts.items()}))
        else:
            out.append(finding)
    return out


def _ported_wherever(use: Finding, site: Finding) -> bool:
    """Whether ``use`` is a port (no path on the target) on every target ``site`` is work on."""
    return all(verdict.status == Status.SUPPORTED or use.verdicts.get(target) is not None
               and use.verdicts[target].status == Status.PORT for target, verdict in site.verdicts.items())


def _named_library(finding: Finding, uses: Mapping[str, Sequence[Finding]],
                   spellings: Mapping[str, AbstractSet[str]]) -> Optional[str]:
    """The library among ``uses`` a module, package or class around ``finding`` is named for, if any."""
    scope = finding.scope if finding.scope != "<module>" else module_name_for(finding.path)
    words = [[w.lower() for w in _CAMEL_WORD.findall(part)] for part in scope.split(".")]
    for library in uses:
        names = spellings[library]
        if any("".join(part[i:j]) in names for part in words for i in range(len(part))
               for j in range(i + 1, len(part) + 1)):
            return library
    return None


def library_spellings(libraries: Mapping[str, Mapping[str, Any]]) -> Dict[str, FrozenSet[str]]:
    """Each library's names a module or class named for it carries: the import name (underscores dropped),
    its aliases, and the name without a ``py`` or ``torch`` prefix (``pykeops`` -> ``keops``, ``torchcule`` ->
    ``cule``) where at least four letters remain; never a word shorter than three letters, nor one that names
    the device rather than a library (``pycuda`` is not ``cuda``). Only a library that is a package of its own:
    a part of a larger one (``mmcv.ops``, ``deepspeed.ops``) shares its name with the rest of that package
    (Swin's ``mmcv_custom/`` is no backend of mmcv's kernels)."""
    out = {}
    for name, info in libraries.items():
        if "." in name:
            continue
        root = name
        spelled = {root.replace("_", "").lower()}
        aliases: Sequence[object] = info.get("aliases") or ()
        spelled.update(str(a).replace("_", "").lower() for a in aliases)
        for prefix in ("py", "torch"):
            if root.startswith(prefix) and "_" not in root and len(root) - len(prefix) >= 4:
                spelled.add(root[len(prefix):].lower())
        out[name] = frozenset(w for w in spelled if len(w) >= 3 and w not in _DEVICE_NAMES)
    return out


#: words that name the device, not a library named for it
_DEVICE_NAMES = frozenset({"cuda", "gpu", "gpus"})


def with_kernel_protocol(findings: Sequence[Finding], kernel_modules: AbstractSet[str]) -> List[Finding]:
    """A Triton kernel module's device handling (DeepSpeed's ``triton_ops``: ``if x.device.type != "cuda":
    raise`` before its kernels, ``with torch.cuda.device(x.device):`` around a launch) is the kernels' launch
    protocol: renamed alone it sends the target's tensors into kernels built for CUDA. It changes with their
    port (to triton-ascend, or to torch operators), so each such finding is a site of the module's Triton port;
    where the module's kernels are optional (every Triton use there runs as written: a guarded import with a
    way on without it), the target never launches them and their protocol runs as written too.
    ``kernel_modules`` are the files that define Triton kernels or launch them."""
    heads: Dict[str, str] = {}
    for finding in findings:
        if finding.path in kernel_modules and finding.rule in _LIBRARY_USES and finding.root is None \
                and (_LIBRARY_USES[finding.rule] or finding.api.split(".", 1)[0]) == "triton" \
                and not runs_as_written(finding):
            heads.setdefault(finding.path, finding.id)
    out = []
    for finding in findings:
        if finding.category != Category.DEVICE or finding.path not in kernel_modules or finding.root is not None \
                or runs_as_written(finding):
            out.append(finding)
        elif finding.path in heads:
            out.append(replace(finding, root=heads[finding.path]))
        else:
            text = ("the launch protocol of this module's Triton kernels, which are optional here (the module goes "
                    "on without Triton): a target never launches them, and their port is a choice, not work")
            out.append(replace(finding, verdicts={t: v if v.status == Status.SUPPORTED else
                                                  Verdict(Status.SUPPORTED, text, _KERNEL_SOURCE)
                                                  for t, v in finding.verdicts.items()}))
    return out


def with_clause_roots(findings: Sequence[Finding]) -> List[Finding]:
    """One vendor clause, one item: the calls of an operator that all meet the same condition of the target's
    note (trl's twenty ``F.kl_div(..., log_target=True)`` against cann's "`log_target` only False") are one
    decision (rewrite the argument, or check it on the card once), not one per call. Each is a site of the first,
    in training code where there is one; only calls whose every verdict that is work rests on a condition met
    (no proof), judged alike on every target, are joined."""
    heads: Dict[Tuple[str, Tuple[Tuple[str, str, Tuple[str, ...]], ...]], str] = {}
    roots: Dict[str, str] = {}
    ordered = sorted(findings, key=lambda f: (f.context != Context.TRAINING, f.path, f.span.line or 0))
    for finding in ordered:
        if finding.root is not None or finding.category != Category.OP or finding_bucket(finding) != Bucket.WORK:
            continue
        key = _clauses(finding)
        if key is None:
            continue
        head = heads.setdefault((finding.api, key), finding.id)
        if head != finding.id:
            roots[finding.id] = head
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


def _clauses(finding: Finding) -> Optional[Tuple[Tuple[str, str, Tuple[str, ...]], ...]]:
    """Per target, the status and the quotes of the conditions met its verdict rests on; ``None`` where a
    verdict that is work rests on anything else (proof: a kernel missing for this call)."""
    out: List[Tuple[str, str, Tuple[str, ...]]] = []
    for target, verdict in sorted(finding.verdicts.items()):
        if bucket(verdict) != Bucket.WORK:
            out.append((target, verdict.status.value, ()))
            continue
        if grade(verdict) != Grade.CONDITION:
            return None
        out.append((target, verdict.status.value,
                    tuple(sorted(e.quote for e in verdict.evidence if e.grade == Grade.CONDITION))))
    return tuple(out)


#: the most lines apart two uses of one API may be and still be one run (a statement written over lines, a few
#: moves in a row)
_RUN_GAP = 2


#: the rules whose change is the operator or the wrapper itself, made once for every call of it in a function
#: (gfpgan's four ``roi_align`` calls in one step: one swap of the imported op; widedeep's ``DataParallel`` wrap per
#: component in one block: one move to DDP), however far apart the calls are
_ONE_CHANGE_PER_FUNCTION = frozenset({"vision-op", "data-parallel", "torch-op"})

#: CUDA's stream, event and graph APIs: a side stream's protocol (make it, wait for the current one, enter it)
_STREAM_APIS = frozenset({"torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.current_stream",
                          "torch.cuda.default_stream", "torch.cuda.set_stream", "torch.cuda.Event",
                          "torch.cuda.CUDAGraph", "torch.cuda.graph", "torch.cuda.StreamContext"})
#: CUDA's autocast state asked with no device (``rules/amp/amp_device``): ``if torch.is_autocast_enabled(): w =
#: w.to(torch.get_autocast_gpu_dtype())`` (mamba's fused functions) is one question, asked of the target at once
_AUTOCAST_STATE_APIS = frozenset({"torch.is_autocast_enabled", "torch.get_autocast_gpu_dtype",
                                  "torch.set_autocast_gpu_dtype"})
#: the APIs of one protocol, one run wherever they sit next to each other
_PROTOCOLS = {**dict.fromkeys(_STREAM_APIS, "streams"), **dict.fromkeys(_AUTOCAST_STATE_APIS, "autocast-state")}


def with_run_roots(findings: Sequence[Finding]) -> List[Finding]:
    """One run of the same work, one item: the same API judged the same way on lines next to each other in one
    function (pythae's ``lgamma`` three times in one log-binomial written over three lines; ``x = x.cuda()`` then
    ``y = y.cuda()``) is one change there; each after the first is a site of the run's first. A vision
    operator's, a data-parallel wrapper's or a torch operator's calls judged alike in one function are one change
    wherever they are (``_ONE_CHANGE_PER_FUNCTION``: pyro's ``lgamma`` four times in one log-probability, one
    decision to rewrite it or take the host fallback). CUDA's stream,
    event and graph calls in one function are one run whatever their APIs and however far apart (DeepSpeed's
    CUDA-graph capture: ``torch.cuda.Stream()``, ``wait_stream(torch.cuda.current_stream())``, ``with
    torch.cuda.stream(s):``; Deformable-DETR's prefetcher asking ``torch.cuda.current_stream()`` before each
    ``record_stream``): one protocol, changed at once; so are CUDA's autocast state's (``_AUTOCAST_STATE_APIS``)."""
    runs: Dict[Tuple[str, Optional[int], str, str, str, _Settles], Finding] = {}
    last_line: Dict[str, int] = {}
    roots: Dict[str, str] = {}
    work = _items_of_work(findings)
    for finding in sorted(work, key=lambda f: (f.path, f.span.cell or 0, f.span.line or 0, f.span.col or 0)):
        what = ("", _PROTOCOLS[finding.api]) if finding.api in _PROTOCOLS else (finding.rule, finding.api)
        key = (finding.path, finding.span.cell, finding.scope, *what, _settles(finding))
        head = runs.get(key)
        line = finding.span.line or 0
        if head is not None and (line - last_line[head.id] <= _RUN_GAP
                                 or finding.rule in _ONE_CHANGE_PER_FUNCTION or finding.api in _PROTOCOLS):
            roots[finding.id] = head.id
            last_line[head.id] = line
        else:
            runs[key] = finding
            last_line[finding.id] = _last_line(finding)
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


def with_import_roots(findings: Sequence[Finding]) -> List[Finding]:
    """A library imported where it is used, one item: ``from apex import amp`` then ``amp.initialize(...)`` in one
    function (ART's estimators), ``from bitsandbytes.optim import Adam8bit`` then ``Adam8bit(...)``: the use is
    the work, and the import goes with it (a site of the first use after it, by the same rule, in the same
    function). Where a target settles them apart (Kunlunxin ports apex itself, and rewrites the call), the
    import is the item and the use its site: the heavier work is what the plan counts. An import no finding
    uses keeps its own item."""
    uses: Dict[Tuple[str, str, str], List[Finding]] = {}
    for finding in findings:
        uses.setdefault((finding.path, finding.scope, finding.rule), []).append(finding)
    roots: Dict[str, str] = {}
    for finding in findings:
        if finding.root is not None or not _is_import(finding) or finding.scope == "<module>":
            continue  # (a module's own imports are the module's: a Triton kernel module's ``import triton``)
        line = finding.span.line or 0
        use = min((f for f in uses[(finding.path, finding.scope, finding.rule)]
                   if (f.api == finding.api or f.api.startswith(finding.api + ".")) and (f.span.line or 0) > line
                   and f.id not in roots and not _is_import(f)),
                  key=lambda f: f.span.line or 0, default=None)
        if use is None:
            continue
        # (an import that is no work itself, a note its uses carry the work of, is theirs whatever they say)
        if _settles(use) == _settles(finding) or finding_bucket(finding) != Bucket.WORK:
            if (use.root or use.id) != finding.id:  # (a use already a site of this import stays one)
                roots[finding.id] = use.root or use.id
        elif use.root is None:
            roots[use.id] = finding.id
    if not roots:
        return list(findings)
    roots = {site: _last(roots, site) for site in roots}
    return [replace(f, root=roots[f.id]) if f.id in roots else
            replace(f, root=roots[f.root]) if f.root in roots else f for f in findings]


def with_copy_roots(findings: Sequence[Finding]) -> List[Finding]:
    """One file shipped twice, one item: DeepSpeed's sdist carries ``csrc/`` and a copy under
    ``deepspeed/ops/csrc/``; a finding in the copy (its path the original's under more folders) on the same line,
    by the same rule, of the same code is a site of the original's item: one port, made once and copied."""
    originals: Dict[Tuple[str, int, str, str], List[Finding]] = {}
    for finding in findings:
        originals.setdefault(_copy_key(finding), []).append(finding)
    roots: Dict[str, str] = {}
    for group in originals.values():
        by_path: Dict[str, List[Finding]] = {}
        for finding in group:
            by_path.setdefault(finding.path, []).append(finding)
        if len(by_path) < 2:
            continue  # one file's findings (a notebook's cells share line 1): no copy among them, read once
        shortest_first = sorted(by_path, key=len)
        for path, found in by_path.items():
            originals_of = [p for p in shortest_first if path.endswith("/" + p)]
            for finding in found:
                original = next((f for p in originals_of for f in by_path[p] if f.context == finding.context), None)
                if original is not None and finding.root is None:
                    roots[finding.id] = original.root or original.id
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


def with_vendored_roots(findings: Sequence[Finding]) -> List[Finding]:
    """A library shipped inside the project's tree (bagua's ``third_party/cub-1.8.0/``, NVIDIA's CUB), one item:
    its kernels are that library's, CUDA's own; what the project does about it is one decision (replace what uses
    it, or find the target's twin), not a port of every kernel it ships. The first kernel found in the vendored
    folder is the item, the rest its sites."""
    first: Dict[str, str] = {}
    roots: Dict[str, str] = {}
    for finding in findings:
        folder = _vendored(finding.path) if finding.rule == "cuda-kernel" and finding.root is None else None
        if folder is None:
            continue
        if folder in first:
            roots[finding.id] = first[folder]
        else:
            first[folder] = finding.id
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


#: the folders a project keeps other projects' sources in
_VENDOR_DIRS = frozenset({"third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored", "extern",
                          "external"})


def _vendored(path: str) -> Optional[str]:
    """The vendored library a path lies in (``.../third_party/cub-1.8.0``), or ``None``."""
    parts = path.split("/")
    for index, part in enumerate(parts[:-2]):
        if part.lower() in _VENDOR_DIRS:
            return "/".join(parts[:index + 2])
    return None


def _copy_key(finding: Finding) -> Tuple[str, int, str, str]:
    """What a finding and its copy share: the rule, the line, the code, and the file's name (an API that names
    its file, a kernel's ``csrc/adam/x.cuh::kernel``, by its last part)."""
    return (finding.rule, finding.span.line or 0, finding.snippet, finding.path.rsplit("/", 1)[-1])


def with_import_only_roots(findings: Sequence[Finding], library_of: Callable[[str], Optional[str]]) -> List[Finding]:
    """A file that only imports a CUDA library, and uses it for nothing the rules judge (tsl's
    ``from torch_sparse import SparseTensor`` for ``isinstance`` checks and type hints; a package re-exporting it):
    the import needs the package installed, which the project's first real use of the library already asks; it is
    a site of that use (in training code where there is one). A project with no real use keeps its imports."""
    def library(finding: Finding) -> str:  # as ``with_module_library_roots`` names it
        return _LIBRARY_USES[finding.rule] or library_of(finding.api) or finding.api.split(".", 1)[0]

    only_imports: Dict[Tuple[str, str], bool] = {}
    for finding in findings:  # every use in the file, those its import heads included, but one that runs as
        if finding.rule in _LIBRARY_USES:  # written (an ``isinstance`` check, a plain-PyTorch member)
            key = (finding.path, library(finding))
            only_imports[key] = only_imports.get(key, True) and (_is_import(finding) or runs_as_written(finding))
    uses = [f for f in findings if f.rule in _LIBRARY_USES and f.root is None]
    first_use: Dict[str, Finding] = {}
    for finding in sorted(uses, key=lambda f: path_context(f.path) != Context.TRAINING):
        if not only_imports[(finding.path, library(finding))]:
            first_use.setdefault(library(finding), finding)
    roots: Dict[str, str] = {}
    for finding in uses:
        head = first_use.get(library(finding))
        if head is not None and only_imports[(finding.path, library(finding))] and _settles(head) == _settles(finding):
            roots[finding.id] = head.id
    return [replace(f, root=roots[f.id]) if f.id in roots else f for f in findings]


def _is_import(finding: Finding) -> bool:
    """Whether a library finding is on an import statement (its snippet is the statement's text)."""
    return finding.snippet.lstrip().startswith(("import ", "from "))

