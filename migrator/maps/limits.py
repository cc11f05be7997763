"""The vendors' notes on an API, read as clauses that either can bite this project or cannot.

A vendor's API list attaches free text to an API ("`input`仅支持fp16，fp32", "`approximate`参数仅支持设置为
`tanh`", "针对Ascend 950DT, ..."). Read whole, any note made the API ``partial``, and most notes never bite:
61 % of the dtype notes list fp32, fp16 *and* bf16; "`self`仅支持fp32" is a documentation template on
``Tensor.size`` and ``nn.Module.train``; an argument note fires on calls that leave the argument at its default.

So each note is split into clauses (``Limit``), each of one kind:

- ``dtype``: the dtypes the note leaves out bite when the project computes in one of them
  (``DtypeProfile``: fp32 always; fp16 / bf16 where the code casts to them, autocasts, or names them);
- ``argument``: bites when the call passes every argument it names (by keyword, or at its position);
- ``product``: about a card the target's default card is not (Ascend 950DT, inference cards);
- ``behaviour``: says the API runs on the host CPU, only for inference, or without a backward: bites wherever
  it is used;
- ``template``: a lone "fp32 only", the docs' placeholder (on 307 APIs of the Ascend 2.7.1 list, most with no
  dtype at all: ``Tensor.size``, ``nn.Module.train``);
- ``other``: a shape, value or feature condition no static scan can check (a precision skip of torch_npu's
  OpInfo tests is one too).

``argument`` clauses are settled per call (``apply_rules`` has the call's arguments); ``dtype`` clauses once
the project's dtypes are known (``settle``, after every file's findings). A verdict is ``partial`` through
its notes only when one clause bites; the others stay in its message, said to be notes that cannot bite here.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import FrozenSet, Iterable, List, Optional, Sequence, Tuple

from ..evidence import item
from ..model import Argument, DtypeProfile, Grade, Limit, LimitKind, Status, ValueKind, Verdict

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_FLOAT = ValueKind.FLOAT
_INT = ValueKind.INT
_OTHER = ValueKind.OTHER
_STR = ValueKind.STR

#: The float dtypes a training run computes in; a note's other dtypes (integers, fp64, complex) bear on
#: inputs the integer-input rule and the float64 rule judge on their own.
TRAINING_DTYPES: Tuple[str, ...] = ("fp32", "fp16", "bf16")
_DTYPE_NAMES = {"fp32": "fp32", "float32": "fp32", "float": "fp32", "fp16": "fp16", "float16": "fp16",
                "half": "fp16", "bf16": "bf16", "bfloat16": "bf16", "fp64": "fp64", "float64": "fp64",
                "double": "fp64"}
_DTYPE_TOKEN = r"(?:bf16|fp16|fp32|fp64|uint8|uint16|int8|int16|int32|int64|bool|complex64|complex128|double)"
#: "`input`仅支持bf16，fp16，fp32" / "`query`、`key`、`value`仅支持bf16、fp16和fp32" / "`dtype`仅支持..."
_DTYPE_LIST = (r"(?P<names>(?:`[\w.]+`[、，,和/ ]*)+)(?:参数)?\s*(?:仅|只)支持(?:输出)?(?:数据类型)?\s*"
               r"(?P<dtypes>(?:" + _DTYPE_TOKEN + r"[、，,和 ]*)+)")
_DTYPE_CLAUSE = re.compile(r"^(?:(?P<scope>[^：:`]*?)[：:]\s*)?" + _DTYPE_LIST)
#: the same list under a condition: "属性`mode`为constant时，`input`仅支持..."
_DTYPE_WITHIN = re.compile(_DTYPE_LIST)
#: Cards a clause may be about. The training cards cann runs on by default (Atlas A2: the 910B) bite.
_OTHER_PRODUCTS = re.compile(r"Ascend\s*950|Atlas\s*(?:200|300|500|800I|推理)|推理系列|Atlas\s*训练系列产品")
_DEFAULT_PRODUCT = re.compile(r"Atlas\s*A2")
_BEHAVIOUR = re.compile(r"回退至CPU|仅CPU支持|仅支持推理|不支持训练")
#: Words that make a clause a limit rather than a description ("创建序列大小为`steps`的1维向量" describes)
_LIMITING = re.compile(r"仅|只|不支持|不能|不可|需|必须|限制|不超过|大于|小于|取值|为nan|为inf|暂不")
#: Conditions on a feature the call alone does not show (graph capture, compilation modes)
_FEATURE = re.compile(r"Graph|graph|torch\.compile|jit_compile|使能场景")
#: Names in a note that are the API's tensors, not arguments a call chooses.
_TENSOR_NAMES = frozenset({"input", "self", "other", "tensor", "x", "q", "k", "v", "query", "key", "value",
                           "output", "out", "target", "index", "src", "weights", "weight", "params", "vertices",
                           "output_tensor", "log_probs", "Tensor", "Tensor.shape", "dtype"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# ------------------------------------------------------------------------------------------ reading


@lru_cache(maxsize=None)
def parse_note(note: str, parameters: Optional[Tuple[str, ...]] = None) -> Tuple[Limit, ...]:
    """A vendor's note as clauses. ``parameters``: the API's argument names, where known (``signatures``)."""
    return tuple(_clause(text, parameters) for text in _clauses(note))


def _clauses(note: str) -> Iterable[str]:
    note = re.sub(r"```.*?(```|$)", " ", note, flags=re.DOTALL)  # examples of code, not clauses
    for part in re.split(r"\n|\s/\s|；|(?<=。)", note):
        text = re.sub(r"^[\s/\-]+", "", part).strip()  # list marks and a separator at the note's start
        if text:
            yield text


def _clause(text: str, parameters: Optional[Tuple[str, ...]]) -> Limit:
    if _about_another_card(text):
        return Limit(LimitKind.PRODUCT, text)
    if _BEHAVIOUR.search(text) or ("不支持反向" in text and "`target`" not in text):  # no backward: training
        return Limit(LimitKind.BEHAVIOUR, text)
    if _FEATURE.search(text):
        return Limit(LimitKind.OTHER, text)
    match = _DTYPE_CLAUSE.match(text) or _DTYPE_WITHIN.search(text)
    if match is not None:
        names = re.findall(r"`([\w.]+)`", match.group("names"))
        allowed = {_DTYPE_NAMES.get(d, d) for d in re.findall(_DTYPE_TOKEN, match.group("dtypes"))}
        if allowed == {"fp32"} and not match.groupdict().get("scope"):
            return Limit(LimitKind.TEMPLATE, text)
        if all(name in _TENSOR_NAMES for name in names):
            # a list with no float dtype is about indices, masks or complex numbers, not what training
            # computes in (integer inputs are the integer-input check's: ``rules/ops._integer_input``)
            floats = allowed & set(TRAINING_DTYPES)
            left_out = frozenset(set(TRAINING_DTYPES) - allowed) if floats else frozenset()
            condition = _arguments_in(text[:match.start()], parameters) if match.start() else ()
            if condition and left_out:  # "属性`mode`非constant时，`input`仅支持fp16，fp32": only when mode is passed
                return Limit(LimitKind.ARGUMENT, text, dtypes=left_out, arguments=condition)
            return Limit(LimitKind.DTYPE, text, dtypes=left_out)
    arguments = _arguments_in(text, parameters) if _LIMITING.search(text) else ()
    if arguments:
        return Limit(LimitKind.ARGUMENT, text, arguments=arguments)
    return Limit(LimitKind.OTHER, text)


def _about_another_card(text: str) -> bool:
    """"针对Ascend 950DT，... 和Atlas A2 ...存在差异" is about the 950DT (the A2 is what it is compared with): the
    card a clause is about is named before its first comma or colon, else anywhere in it."""
    head = re.split(r"[，,：:]", text, maxsplit=1)[0]
    if _OTHER_PRODUCTS.search(head):
        return not _DEFAULT_PRODUCT.search(head)
    return bool(_OTHER_PRODUCTS.search(text)) and not _DEFAULT_PRODUCT.search(text)


def _arguments_in(text: str, parameters: Optional[Tuple[str, ...]]) -> Tuple[str, ...]:
    """The API's arguments a clause names: any identifier that is one of ``parameters`` (where the signature
    is known), else the back-quoted names that are not the API's tensors."""
    if parameters is not None:
        named = [name for name in _IDENTIFIER.findall(text) if name in parameters and name not in _TENSOR_NAMES]
    else:
        named = [name.strip('"') for name in re.findall(r"`([\w\"]+)`", text)
                 if name.strip('"') not in _TENSOR_NAMES and "." not in name]
    return tuple(dict.fromkeys(named))


def skip_limit(skipped: Sequence[str], test: str) -> Optional[Limit]:
    """An OpInfo test torch_npu skips for some training dtypes: ``test_dtypes`` (the dtypes an op claims do not
    hold) as a dtype clause; ``test_compare_cpu`` (results differ from the CPU's) as a precision note."""
    dtypes = frozenset(_DTYPE_NAMES[d] for d in skipped if _DTYPE_NAMES.get(d) in TRAINING_DTYPES)
    if not dtypes:
        return None
    if test == "test_dtypes":
        return Limit(LimitKind.DTYPE, f"torch_npu skips its OpInfo dtype test for {', '.join(sorted(dtypes))} on "
                     "NPU", dtypes=dtypes)
    return Limit(LimitKind.OTHER, f"torch_npu skips its OpInfo test {test} for {', '.join(sorted(dtypes))} on NPU "
                 "(results differ from the CPU's: precision, or a random op)")


# ------------------------------------------------------------------------------------------ settling


def for_call(verdict: Verdict, args: Sequence[Argument], parameters: Optional[Tuple[str, ...]]) -> Verdict:
    """``verdict`` with its argument clauses settled by what the call passes: every argument a clause names,
    by keyword, or positionally at the parameter's place in ``parameters`` (which leaves out a method's
    receiver, as a method call's ``args`` do); and, where the clause is about values, by the literal the call
    passes (``certain``)."""
    if not any(limit.kind == LimitKind.ARGUMENT and limit.bites is None for limit in verdict.limits):
        return verdict
    values = []
    for place, arg in enumerate(a for a in args if a.keyword is None):
        if parameters is not None and place < len(parameters):
            values.append((parameters[place], _literal(arg)))
    values.extend((a.keyword, _literal(a)) for a in args if a.keyword)
    keywords = {name for name, _ in values}
    for alias, (name, value) in ALIASES.items():
        literal = dict(values).get(alias, "False")
        if name not in keywords and literal in (None, "True"):  # ``use_cuda=True`` passes ``use_device='cuda'``
            values.append((name, value if literal == "True" else None))
    return _settled_for(verdict, frozenset(values), parameters)


#: keywords that stand for another argument's value (torch's profilers take the deprecated ``use_cuda=True`` as
#: ``use_device='cuda'``): a vendor's clause about the argument bites a call that passes the alias
ALIASES = {"use_cuda": ("use_device", "cuda")}


def _literal(arg: Argument) -> Optional[str]:
    """The literal an argument passes (``'tanh'``, ``True``, ``1``), or ``None`` when the code computes it."""
    value = arg.value
    if value.kind in (_STR, _INT, _FLOAT):
        return value.text
    if value.kind == _OTHER and value.text in ("True", "False", "None"):
        return value.text
    return None


@lru_cache(maxsize=8192)
def _settled_for(verdict: Verdict, values: FrozenSet[Tuple[str, Optional[str]]],
                 parameters: Optional[Tuple[str, ...]]) -> Verdict:
    """``for_call``'s answer, one object per verdict and call shape: a repository's calls share a few."""
    passed = dict(values)
    registered = verdict.status == Status.SUPPORTED and not verdict.evidence  # the target's own kernels run it

    def settled(limit: Limit) -> Limit:
        if not all(name in passed for name in limit.arguments):
            return replace(limit, bites=False)
        found = [value_bites(limit.text, name, passed[name]) for name in limit.arguments]
        if any(f is False for f in found):
            return replace(limit, bites=False)
        # "不支持`scale_factor`" of a call whose kernels the target registers: the vendor's word against its own
        # kernel list, which does not see arguments: whether it errs or differs is for the card (a note)
        contradicted = registered and all(_denies_whole(limit.text, name) for name in limit.arguments)
        return replace(limit, bites=True, certain=all(f is True for f in found) and not contradicted)

    return replace(verdict, limits=tuple(settled(limit) if limit.kind == LimitKind.ARGUMENT and limit.bites is None
                                         else limit for limit in verdict.limits))


#: "不支持`sorted=False`", "`approximate`参数仅支持设置为`tanh`", "参数sorted只支持True", "`dilation`仅支持1":
#: a value a clause allows or leaves out, after the argument's name; a word ends where a Latin letter, digit or
#: underscore does not follow ("sum/amin/amax模式": a CJK character is a word character to ``\b``)
_VALUE = re.compile(r"""(?:[`"'](?P<q>[^`"'，,。；;、\s]{1,40})[`"']"""
                    r"""|(?P<w>True|False|None|-?\d+(?:\.\d+)?|[a-z_]{2,20}(?![A-Za-z0-9_])))""")
_ALLOWS = re.compile(r"仅支持|只支持|只能|仅可")
_DENIES = re.compile(r"不支持|不能|不可|暂不")
_RANGE = re.compile(r"大于|小于|超过|不超过|以上|以下|≤|≥|<|>|非负|负数|取值范围|的情况下")
#: A condition on the input's shape, rank or size besides the value ("mode为reflect时不支持三维填充"): the call's
#: own value meets it only on inputs a static scan cannot see.
_SHAPE = re.compile(r"维|形状|尺寸|长度|shape|dim\b|rank|[1-9]D")


def value_bites(text: str, name: str, literal: Optional[str]) -> Optional[bool]:
    """Whether a clause about argument ``name`` bites a call that passes ``literal``: ``True`` when the call
    passes a value the clause leaves out (or the clause says the argument is not supported at all), ``False``
    when it passes a value the clause allows, ``None`` when the call's value or the clause's condition cannot
    be read (a computed value, a range)."""
    at = text.find(name)
    if at < 0:
        return None
    if _RANGE.search(text) or _SHAPE.search(text):
        return None
    tail = text[at + len(name):at + len(name) + 80]
    values = {m.group("q") or m.group("w") for m in _VALUE.finditer(tail.split("，")[0].split("；")[0])}
    values.discard(name)
    values -= {"bf16", "fp16", "fp32", "fp64"}
    allows = _ALLOWS.search(text) is not None
    denies = _DENIES.search(text) is not None and not allows
    if denies and not values:
        return True  # "不支持`scale_factor`", "不支持driver参数": passing the argument is what is not supported
    if not values or literal is None or not (allows or denies):
        return None
    inside = _norm(literal) in {_norm(v) for v in values}
    return inside if denies else not inside


def _denies_whole(text: str, name: str) -> bool:
    """A clause that says argument ``name`` is not supported at all ("不支持`scale_factor`"), naming no value."""
    at = text.find(name)
    if at < 0 or _ALLOWS.search(text) or not _DENIES.search(text):
        return False
    tail = text[at + len(name):at + len(name) + 80]
    values = {m.group("q") or m.group("w") for m in _VALUE.finditer(tail.split("，")[0].split("；")[0])}
    return not (values - {name, "bf16", "fp16", "fp32", "fp64"})


def _norm(value: str) -> str:
    text = value.strip().strip("'\"`")
    try:
        return repr(float(text))
    except ValueError:
        return text.lower()


def settle(verdict: Verdict, profile: DtypeProfile, here: Optional[FrozenSet[str]] = None) -> Verdict:
    """The verdict a project reads: ``partial`` when a clause bites (a dtype it computes in, an argument the
    call passes, a behaviour), its own status otherwise; every clause named in the message either way.
    ``here``: the 16-bit dtypes the call's own function (or its module's top level) computes in (``None``: every
    dtype of the profile is)."""
    if not verdict.limits:
        return verdict
    biting: List[Limit] = []
    idle: List[Limit] = []
    for limit in verdict.limits:
        (biting if _bites(limit, profile) else idle).append(limit)
    status = Status.PARTIAL if biting and verdict.status == Status.SUPPORTED else verdict.status
    parts = [verdict.message]
    if biting:
        parts.append("vendor notes that bite here: " + "; ".join(clip(limit.text) + _why(limit, profile)
                                                                 for limit in biting))
    if idle:
        parts.append("vendor notes that cannot bite here: " + "; ".join(
            f"{clip(limit.text)} ({_why_not(limit, profile)})" for limit in idle))
    evidence = verdict.evidence
    if biting and verdict.status == Status.SUPPORTED:  # the notes alone make it partial: they are its evidence
        evidence = tuple(item(clause_grade(limit, profile, here), verdict.source, limit.text) for limit in biting)
    quoted = tuple(clip(limit.text) for limit in biting + idle if not _ours(limit))
    return replace(verdict, status=status, message="; ".join(parts), limits=(), evidence=evidence,
                   quotes=verdict.quotes + quoted)


def _ours(limit: Limit) -> bool:
    """A clause this tool wrote in English (``skip_limit``'s), not a vendor's words."""
    return limit.text.startswith("torch_npu skips")


def read_clauses(verdict: Verdict, profile: DtypeProfile) -> Tuple[Tuple[Limit, bool, str], ...]:
    """Each clause ``settle`` would name in ``verdict``'s message: whether it bites this project, and why
    (where the project computes in the dtype it leaves out) or why not, as the message says it."""
    read = []
    for limit in verdict.limits:
        bites = _bites(limit, profile)
        why = _why(limit, profile)[2:-1] if bites else _why_not(limit, profile)  # _why: " (...)" or ""
        read.append((limit, bites, why))
    return tuple(read)


def clause_grade(limit: Limit, profile: DtypeProfile, here: Optional[FrozenSet[str]] = None) -> Grade:
    """How strongly a biting clause speaks about this call: ``condition-met`` for a dtype the call's own function
    computes in (or fp32, always) or a value the call itself passes; ``note`` for a behaviour said of every use
    ("may fall back to the CPU"), a dtype the project computes in only elsewhere (the layers a model cast to
    bf16 elsewhere runs are sites of that choice, which is the work) or read only off a framework's import, or
    an argument whose value the call computes."""
    if limit.kind == LimitKind.DTYPE or (limit.kind == LimitKind.ARGUMENT and limit.dtypes):
        used = limit.dtypes & profile.dtypes
        local = "fp32" in used or here is None or bool(used & here)
        chosen = [c for c in profile.choices if c.dtype in used]
        real = local and (any(not c.inferred for c in chosen) or not chosen)
        return Grade.CONDITION if real and (limit.kind == LimitKind.DTYPE or limit.certain) else Grade.NOTE
    if limit.kind == LimitKind.ARGUMENT:
        return Grade.CONDITION if limit.certain else Grade.NOTE
    return Grade.NOTE


def dtype_bite(verdict: Verdict, profile: DtypeProfile) -> FrozenSet[str]:
    """The project's dtypes that make ``verdict`` (unsettled) ``partial``, when only dtype clauses bite: such a
    use is a site of the place the project chooses that dtype (``project/dtype_roots.py``). Empty when nothing
    bites, or when a clause of another kind bites too (an argument the call passes is this call's own)."""
    if verdict.status != Status.SUPPORTED:
        return frozenset()
    biting = [limit for limit in verdict.limits if _bites(limit, profile)]
    if not biting or any(limit.kind != LimitKind.DTYPE for limit in biting):
        return frozenset()
    return frozenset().union(*(limit.dtypes & profile.dtypes for limit in biting))


def _bites(limit: Limit, profile: DtypeProfile) -> bool:
    if limit.kind == LimitKind.DTYPE:
        return bool(limit.dtypes & profile.dtypes)
    if limit.kind == LimitKind.ARGUMENT:  # passed, and (for a dtype list under it) in a dtype the project uses
        return limit.bites is not False and (not limit.dtypes or bool(limit.dtypes & profile.dtypes))
    return limit.kind == LimitKind.BEHAVIOUR


def _why(limit: Limit, profile: DtypeProfile) -> str:
    """Where the project computes in a dtype a biting clause leaves out (``DtypeProfile.choices``)."""
    used = limit.dtypes & profile.dtypes
    if not used:
        return ""
    where = [choice.where for choice in profile.choices if choice.dtype in used]
    return f" (the project computes in {', '.join(sorted(used))}{': ' + '; '.join(where) if where else ''})"


def describe(profile: DtypeProfile) -> str:
    return ", ".join(d for d in TRAINING_DTYPES if d in profile.dtypes)


def _why_not(limit: Limit, profile: DtypeProfile) -> str:
    if limit.kind == LimitKind.DTYPE and not re.search(r"fp32|fp16|bf16", limit.text):
        return "about indices, masks or complex inputs, not a float dtype the project computes in"
    if limit.kind == LimitKind.DTYPE:
        return f"the project computes in {describe(profile)}"
    if limit.kind == LimitKind.ARGUMENT and limit.bites is not False:
        return f"the project computes in {describe(profile)}"
    if limit.kind == LimitKind.ARGUMENT:
        return f"this call leaves {', '.join(f'`{a}`' for a in limit.arguments)} at the default"
    if limit.kind == LimitKind.PRODUCT:
        return "about another card than the target's training cards"
    if limit.kind == LimitKind.TEMPLATE:
        return "the docs' lone 'fp32 only' placeholder, which stands on Tensor.size and nn.Module.train too"
    if _ours(limit):
        return "a test skip on precision, not a limit"
    return "a shape, value or feature condition a static scan cannot check"


def clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------------------------------ saying


#: What a ``behaviour`` clause says, by the words that made it one (``_BEHAVIOUR``, "不支持反向").
_BEHAVIOURS = ((re.compile(r"回退至CPU|仅CPU支持"), "runs on the host CPU"),
               (re.compile(r"仅支持推理|不支持训练"), "inference only"),
               (re.compile(r"不支持反向"), "no backward"))


def note_summary(note: str) -> str:
    """A vendor's note said in English by what its clauses are (``parse_note``'s kinds), never translated:
    "dtype limit (no bf16), argument limit (`memory_format`)"; the note itself is the quote."""
    said = [clause_summary(limit) for limit in parse_note(note)]
    return ", ".join(dict.fromkeys(s for s in said if s)) or "a note"


def clause_summary(limit: Limit) -> str:
    """One clause said by its kind (``note_summary``'s words for each)."""
    if limit.kind == LimitKind.DTYPE:
        if limit.dtypes:
            return f"dtype limit (no {', '.join(d for d in TRAINING_DTYPES if d in limit.dtypes)})"
        floats = re.search(r"fp32|fp16|bf16", limit.text)
        return "dtype list (every training dtype)" if floats else "dtype limit on integer, mask or complex inputs"
    if limit.kind == LimitKind.ARGUMENT:
        named = ", ".join(f"`{a}`" for a in limit.arguments)
        return f"argument limit ({named})" + (f" in {', '.join(sorted(limit.dtypes))}" if limit.dtypes else "")
    if limit.kind == LimitKind.PRODUCT:
        return "about another card"
    if limit.kind == LimitKind.BEHAVIOUR:
        return next((said for pattern, said in _BEHAVIOURS if pattern.search(limit.text)), "a behaviour limit")
    if limit.kind == LimitKind.TEMPLATE:
        return "the docs' fp32-only placeholder"
    if _FEATURE.search(limit.text):
        return "a graph-mode or compile condition"
    return "a condition a static scan cannot check" if _LIMITING.search(limit.text) else "a description, no limit"
