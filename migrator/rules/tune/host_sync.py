"""The ``tune-host-sync`` rule."""

from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ...discover import read_source
from ...model import FileResult, Status, TuneKind, Usage
from ...resolve.vocabulary import Vocabulary
from ...sources.python import decode_source
from ..examples import ByRuntime, Invalid, Valid
from . import _SYNC_APIS, NOT_A_COST, TuneRule, _site_findings, _trains, _usage_findings


class HostSync(TuneRule):
    """A host-device synchronisation on every training step.

    ## What it does
    Finds, on the training step only, `.item()`, `.tolist()`, `.numpy()`, `.cpu()` / `.to("cpu")`,
    `torch.cuda.synchronize()`, printing or logging a tensor (`print(f"{loss}")`,
    `writer.add_scalar("loss", loss, step)`), and Python control flow on a tensor's value
    (`if torch.isnan(loss).any():`, `if loss > 10:`). One line gets one finding (`x.cpu().numpy()` is one
    read back). Code under `if step % N == 0:` runs once every N steps and is left alone.

    Each gets the advice of what its line does with the value (``curated/tuning.yaml``): shown or kept for the
    log (accumulate on the device, read every N steps), used in the math (keep it a tensor), a branch
    (`torch.where`), an explicit `synchronize()` (time with device events), a copy to be sent (a collective on
    the tensor, an RPC device map). A read of a tensor the function made on the host (`torch.zeros(n)` with no
    device, a NumPy array) waits for nothing, and a script that puts nothing on an accelerator has none.

    ## Why is this bad?
    The host stops queueing work until the device has run everything queued before: the device then idles
    until the host catches up. Ascend's guide asks to remove such calls from the step; PyTorch's documents the
    same for any accelerator.

    ## Fix safety
    Never applied: keeping a running sum on the device and reading it every N steps changes what is logged.
    """

    name = "tune-host-sync"
    pitfall = "host-sync"
    summary = "host-device synchronisation on every training step"
    vocabulary = Vocabulary(methods=frozenset({"item", "tolist", "numpy", "cpu", "to"}))
    examples = (
        Invalid(_trains(step="        print(f\"loss {loss.item():.3f}\")"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL, kunlun=Status.PARTIAL)),
        Invalid(_trains(step="        if torch.isnan(loss).any():\n            break"),
                expect=ByRuntime(Status.UNKNOWN, cann=Status.PARTIAL, neuware=Status.PARTIAL, kunlun=Status.PARTIAL)),
        Valid(_trains(step="        if step % 100 == 0:\n            print(loss.item())")),
        Valid("import torch\n\n\ndef evaluate(model, x):\n    return model(x).argmax(-1).cpu().tolist()\n\n\n"
              "if __name__ == \"__main__\":\n    evaluate(torch.nn.Linear(2, 2), torch.ones(2))\n"),
    )

    def reads(self, usage: Usage) -> bool:
        return usage.api in _SYNC_APIS or (usage.api == "torch.Tensor.to" and _sync(usage) is not None)

    def findings(self, results, judged, step, node_of, ctx):  # a line's sync usage comes first, then its site
        found = _usage_findings(self, results, _sync, step, node_of, ctx, pitfalls=_read_backs)
        sites = _site_findings(
            self, results, frozenset({TuneKind.TENSOR_PRINT, TuneKind.TENSOR_BRANCH}), step, node_of, ctx,
            lambda site: (f"`{site.snippet}` reads `{site.detail}` back to the host to show it"
                          if site.kind == TuneKind.TENSOR_PRINT else
                          f"`{site.detail}` is read back to the host to decide a branch"),
            lambda site: "torch.Tensor.__format__" if site.kind == TuneKind.TENSOR_PRINT else "torch.Tensor.__bool__",
            lambda site: BRANCH if site.kind == TuneKind.TENSOR_BRANCH else None)
        return found + sites


def _sync(usage: Usage) -> Optional[str]:
    if usage.api == "torch.Tensor.to":
        first = next((a.value for a in usage.args if a.keyword in (None, "device")), None)
        return "`.to(\"cpu\")` copies the tensor to the host" if first is not None and first.text == "cpu" else None
    return _SYNC_APIS.get(usage.api)


#: The pitfall rows of ``curated/tuning.yaml`` a host synchronisation takes, by what the line does with it: a
#: value shown or kept for the log (the rule's own row, ``host-sync``), a value the math goes on with, a branch
#: decided on a tensor, an explicit synchronisation (timing), a tensor copied to be sent.
LOGGED, VALUE, BRANCH, TIMING, RPC = "host-sync", "host-value", "host-branch", "host-timing", "host-rpc"

#: A statement that shows or keeps a value for the log: printing, a logger or writer, a metrics dict.
_LOGS = re.compile(r"print\(|log|writer|wandb|tensorboard|summary|set_postfix|set_description|metric|stats?\b|"
                   r"meter|tqdm|pbar|record|history|report", re.IGNORECASE)
_LOGGED_WORDS = r"loss|acc|metric|stat|log|avg|mean|total|running|score|reward|ppl|perplexity|norm|frac|kl|entrop|ratio"
#: A name a statement assigns that holds a value for the log (``loss_value = loss.item()``).
_LOGGED_NAMES = re.compile(_LOGGED_WORDS, re.IGNORECASE)
#: A list of such values grown each step (``losses.append(loss.item())``), not any list.
_LOGGED_APPEND = re.compile(r"(?:" + _LOGGED_WORDS + r")\w*(?:\[[^\]\n]*\])*\.append\(", re.IGNORECASE)
#: A value read back and kept whole in a list each step (``ent_coefs.append(ent_coef.item())``): a record for
#: the log, not an input of the math (``F.pad(t, tuple(pad.tolist()))`` inside an append is one)
_KEPT = re.compile(r"[\w.\[\]'\"]+\.append\([\w.\[\]'\"]+\.(?:item|tolist)\(\)\)$")
#: A scope that exists to log: a logger's, a message hub's, a meter's method.
_LOG_SCOPE = re.compile(r"log|message_hub|MessageHub|meter|Meter|metric|Metric|report", re.IGNORECASE)
#: ``torch.*`` factories that make a tensor on the host unless given a device.
_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "arange", "tensor", "as_tensor", "from_numpy",
                        "linspace", "eye", "rand", "randn", "randint", "randperm"})
#: A statement that sends what it copies to the host: RPC, an object collective, a queue or pipe.
_SENDS = re.compile(r"\brpc\b|rpc_sync|rpc_async|remote\(|_object(?:_list)?\(|\.send\(|\.put\(|isend\(")


def _read_backs(result: FileResult, usages: Sequence[Usage]) -> List[Optional[str]]:
    """Each usage's row, from the statement it is in (the file read again; a file that cannot be read or is
    not Python text leaves each its own row); ``NOT_A_COST`` for a read of a tensor the scope made on the host."""
    lines = {u.span.line for u in usages if u.span.line and u.span.cell is None}
    statements, host = _statements_at(result, lines)
    return [NOT_A_COST if _receiver(usage) in host.get(usage.span.line or 0, ()) else
            _row(usage, statements.get(usage.span.line or 0)) for usage in usages]


def _receiver(usage: Usage) -> Optional[str]:
    """The name a read back starts from: ``pad`` in ``pad[idx].tolist()``."""
    try:
        node = ast.parse(usage.snippet.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _row(usage: Usage, statement: Optional[Tuple[str, str]]) -> Optional[str]:
    if usage.api.endswith(".synchronize"):
        return TIMING
    if _LOG_SCOPE.search(usage.scope):  # a logger's or a metric's own method: what it reads, it logs
        return LOGGED
    if statement is None:
        return None
    text, assigned = statement
    if not text or text.startswith("assert"):
        return BRANCH
    if _SENDS.search(text):
        return RPC
    if _LOGS.search(text) or _LOGGED_APPEND.search(text) or _KEPT.match(text.strip()) \
            or (assigned and _LOGGED_NAMES.search(assigned)):
        return LOGGED
    return VALUE


def _statements_at(result: FileResult, lines: set) -> Tuple[Dict[int, Tuple[str, str]], Dict[int, Set[str]]]:
    """line -> (the text of the innermost simple statement over it, the names it assigns); and line -> the
    names its function binds only to a host tensor (``pad = torch.zeros(n, 2)``)."""
    if not lines or not result.file.rel.endswith(".py"):
        return {}, {}
    try:
        decoded = decode_source(read_source(result.file.path))
        tree = ast.parse(decoded) if isinstance(decoded, str) else None
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return {}, {}
    if tree is None or not isinstance(decoded, str):
        return {}, {}
    text: str = decoded
    found: Dict[int, Tuple[str, str]] = {}
    host: Dict[int, Set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside = [line for line in range(node.lineno, (node.end_lineno or node.lineno) + 1) if line in lines]
            names = _host_tensors(node) if inside else set()
            for line in inside:
                host[line] = names  # the innermost function's, as ast.walk reaches it last
        if isinstance(node, (ast.If, ast.While)):  # ``if loss.item() > 10:``: a branch on the value
            for line in range(node.test.lineno, (node.test.end_lineno or node.test.lineno) + 1):
                if line in lines:
                    found[line] = ("", "")
        elif isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND):
            over = [line for line in range(node.lineno, (node.end_lineno or node.lineno) + 1) if line in lines]
            if over:
                segment = ast.get_source_segment(text, node) or ""
                assigned = " ".join(ast.unparse(t) for t in _targets(node))
                for line in over:
                    found[line] = (segment, assigned)
    return found, host


def _host_tensors(function: ast.AST) -> Set[str]:
    """Names a function binds only to ``torch.zeros(...)``-like factories given no device, or to NumPy arrays."""
    made: Set[str] = set()
    other: Set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    (made if _host_factory(node.value) else other).add(target.id)
    return made - other


def _host_factory(value: ast.expr) -> bool:
    """``torch.zeros(n)`` with no device, or anything NumPy makes (``np.frombuffer(b).reshape(s)``)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and isinstance(value.func.value, ast.Call):  # ``np.frombuffer(...).reshape(...)``: its first call
        value = value.func.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name)):
        return False
    if value.func.value.id in ("np", "numpy"):
        return True
    return value.func.value.id in ("torch", "th") and value.func.attr in _FACTORIES \
        and not any(k.arg == "device" for k in value.keywords)


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.Match)


def _targets(node: ast.stmt) -> List[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []
