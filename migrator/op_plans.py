"""Per-target plans for the repository's own custom operators: a vendor equivalent, a plain-PyTorch fallback,
or a port plan (kernels to rewrite, the registration skeleton, the build change, the effort).

An op is split into the functions Python calls (its registrations; its kernels when nothing is registered).
Each function is matched to a family (``curated/custom_op_families.yaml``) by its own name, its C++ name and,
for a small op that is one family as a whole (``_fused_rmsnorm``), by the op's names. A function is covered
on a target when the family has the vendor's call there (checked against the vendor's data) or a PyTorch
fallback; an op whose functions are all covered needs a rewrite, not a port.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .assess import port_days
from .inventory import OpMembership
from .maps.load import OpFamily, TargetMap, op_families, runtime
from .model import (CustomOp, Evidence, Finding, Grade, Kernel, OpPlan, OpRoute, PortPlan, Registration,
                    RegistrationKind, Status, Verdict, fix_of)

SOURCE = "custom_op_families.yaml"
#: Words that say nothing about what a function computes (``forward``, ``fwd_kernel``, ``backward_cuda``).
_GENERIC_WORDS = frozenset({"forward", "backward", "fwd", "bwd", "run", "apply", "compute", "launch", "op", "impl",
                            "main", "cuda", "kernel", "gpu", "cpu", "grad", "cu", "launcher", "func", "fn"})


def _is_generic(name: str) -> bool:
    return all(word in _GENERIC_WORDS for word in re.split(r"[_\W]+", name.lower()) if word)


def plan_custom_ops(ops: Sequence[CustomOp], targets: Sequence[TargetMap]) -> Tuple[OpPlan, ...]:
    families = op_families()
    return tuple(plan_op(op, target.id, families) for op in ops for target in targets)


def plan_op(op: CustomOp, target: str, families: Sequence[OpFamily]) -> OpPlan:
    built = dict(op.vendor_builds).get(target)
    if built is not None:
        builder = runtime(target).build_api
        where = f"{op.build.path}:{built}" if op.build is not None else f"line {built}"
        return OpPlan(op=op.name, target=target, status=Status.PARTIAL, routes=(), port=None,
                      summary=f"built for {target} by the project itself: {builder} at {where}, beside the CUDA "
                              f"build (a build switch, not a port); whether its {target} kernels cover every "
                              "function the code calls is not in the data: check each on the card")
    if not op.cuda_code:
        return OpPlan(op=op.name, target=target, status=Status.FALLBACK, routes=(), port=None,
                      summary=f"a host C++ extension: none of its {len(op.files)} files holds CUDA code, so nothing "
                              "is ported; it is built as a CppExtension (CUDAExtension needs the CUDA toolkit) and "
                              "its ops run on the host CPU, as they do on a CUDA machine")
    default = _op_family(op, families)
    by_family: Dict[str, List[str]] = {}
    uncovered: List[Tuple[str, Optional[OpFamily]]] = []  # functions with no route, and the family they are
    family_by_name = {f.name: f for f in families}
    for unit, names in _units(op):
        family = _family_of(names, families, default)
        if family is None or not (target in family.targets or family.pytorch):
            uncovered.append((unit, family))
        else:
            by_family.setdefault(family.name, []).append(unit)
    routes = tuple(_route(family_by_name[name], target, tuple(covered)) for name, covered in sorted(by_family.items()))
    vendor_families = {r.family for r in routes if r.level == "vendor"}
    kernel_family = {k.name: _family_of([k.name], families, default) for k in op.kernels}
    port_kernels = tuple(k for k in op.kernels for family in (kernel_family[k.name],)
                         if family is None or family.name not in vendor_families)
    names_uncovered = [unit for unit, _ in uncovered]
    port = _port_plan(op, target, port_kernels, names_uncovered, kernel_family) if port_kernels or uncovered \
        else None
    status = Status.PORT if uncovered or not routes else Status.REWRITE
    return OpPlan(op=op.name, target=target, status=status, summary=_summary(op, target, routes, uncovered, port),
                  routes=routes, port=port, uncovered=tuple(names_uncovered))


def _units(op: CustomOp) -> List[Tuple[str, List[str]]]:
    """(function name, names to match) for what Python calls: registrations, else kernels, else the op."""
    if op.registrations:
        seen: Dict[str, List[str]] = {}
        for registration in op.registrations:
            names = [registration.name]
            cpp = _cpp_name(registration.signature)
            if cpp:
                names.append(cpp)
            seen.setdefault(registration.name, names)
        return list(seen.items())
    if op.kernels:
        return [(k.name, [k.name]) for k in op.kernels]
    return [(op.name, [op.name])]


def _match(names: Iterable[str], families: Sequence[OpFamily]) -> Optional[OpFamily]:
    for family in families:
        if any(not _is_generic(n) and family.matches(n) for n in names if n):
            return family
    return None


def _family_of(names: Sequence[str], families: Sequence[OpFamily], default: Optional[OpFamily]) -> Optional[OpFamily]:
    """A function's family by its own names; the op's family only when those names say nothing themselves
    (``forward`` of ``_fused_rmsnorm``), never for a named function the families do not know (``prefix_scan``)."""
    found = _match(names, families)
    if found is None and all(_is_generic(n) for n in names if n):
        return default
    return found


def _op_family(op: CustomOp, families: Sequence[OpFamily]) -> Optional[OpFamily]:
    """The family of the whole op when its names point at exactly one (a small, single-purpose extension)."""
    names = [op.name, *op.wrappers, *(k.name for k in op.kernels), *(f.rsplit("/", 1)[-1] for f in op.files)]
    found = {f.name: f for n in names for f in families if f.matches(n)}
    return next(iter(found.values())) if len(found) == 1 else None


def _route(family: OpFamily, target: str, covers: Tuple[str, ...]) -> OpRoute:
    vendor = family.targets.get(target)
    if vendor is not None:
        return OpRoute(level="vendor", family=family.name, what=family.what, covers=covers, call=vendor.to,
                       mapping=vendor.mapping, differs=vendor.differs, code=family.pytorch,
                       note=family.pytorch_note, source=vendor.source)
    return OpRoute(level="pytorch", family=family.name, what=family.what, covers=covers, call=None, mapping=None,
                   differs=None, code=family.pytorch, note=family.pytorch_note, source=SOURCE)


def _port_plan(op: CustomOp, target: str, kernels: Sequence[Kernel], uncovered: Sequence[str],
               kernel_family: Mapping[str, Optional[OpFamily]]) -> PortPlan:
    lines = sum(k.lines for k in kernels)
    involved = {family.name: family for family in (kernel_family[k.name] for k in kernels) if family is not None}
    hints = [f"{family.what}: the {target} kernel library has `{hint[0]}` ({hint[1]}, substitute evidence): call it "
             "from the port rather than writing the kernel"
             for family in involved.values() for hint in [family.kernel_hints.get(target)] if hint]
    registrations = [r for r in op.registrations if r.name in uncovered] or list(op.registrations)
    return PortPlan(language=runtime(target).kernel_language, kernels=tuple(kernels),
                    kernel_lines=lines, registration=registration_skeleton(op, target, registrations),
                    build=runtime(target).build_change, days=round(port_days(lines), 1), hints=tuple(sorted(hints)))


def _summary(op: CustomOp, target: str, routes: Sequence[OpRoute],
             uncovered: Sequence[Tuple[str, Optional[OpFamily]]], port: Optional[PortPlan]) -> str:
    parts = []
    for route in routes:
        covers = ", ".join(route.covers)
        if route.level == "vendor":
            parts.append(f"{covers}: {route.what}, use `{route.call}` ({route.source})")
        else:
            parts.append(f"{covers}: {route.what}, no {target} equivalent in the data; the PyTorch fallback runs it")
    unknown = [unit for unit, family in uncovered if family is None]
    if unknown:
        parts.append(f"{', '.join(unknown)}: no known family; port")
    for unit, family in uncovered:
        if family is not None:
            parts.append(f"{unit}: {family.what}, but neither a {target} equivalent in the data nor a PyTorch "
                         "fallback; port")
    if port is not None and port.kernels:
        parts.append(f"kernels to write in {port.language}: {len(port.kernels)} ({port.kernel_lines} lines, "
                     f"~{port.days} days)")
    return "; ".join(parts) or f"{op.name}: nothing to judge"


# ------------------------------------------------------------------------------------------ skeleton

_CPP_SIGNATURE = re.compile(r"^\s*(?P<ret>.+?)\s+(?P<name>[A-Za-z_]\w*)\s*\((?P<args>.*)\)\s*$", re.S)


def _cpp_name(signature: Optional[str]) -> Optional[str]:
    match = _CPP_SIGNATURE.match(signature or "")
    return match.group("name") if match else None


def registration_skeleton(op: CustomOp, target: str, registrations: Sequence[Registration]) -> str:
    """``TORCH_LIBRARY`` / ``TORCH_LIBRARY_IMPL(..., PrivateUse1, ...)`` for the functions to port, with schemas
    derived from the existing C++ signatures."""
    namespace = next((r.namespace for r in registrations if r.kind.startswith("torch_library") and r.namespace),
                     None) or _identifier(op.name.rsplit(".", 1)[-1].strip("/")) or "my_ops"
    device = runtime(target).kernel_device
    suffix = device
    defs, impls, decls = [], [], []
    for registration in registrations:
        name = registration.name
        if registration.kind == RegistrationKind.TORCH_LIBRARY and registration.signature:
            schema = registration.signature if "(" in registration.signature else f"{name}(...) -> ..."
        else:
            schema = cpp_to_schema(name, registration.signature)
        if registration.kind != RegistrationKind.TORCH_LIBRARY_IMPL:
            defs.append(f'  m.def("{schema}");')
        cpp = _cpp_name(registration.signature) or name
        decl = _declaration(registration.signature, f"{cpp}_{suffix}")
        decls.append(decl + ";  // " + runtime(target).kernel_language + " kernel launch inside")
        impls.append(f'  m.impl("{name}", &{cpp}_{suffix});')
    return "\n".join([
        f"// {op.name}: the functions to port, registered for the PrivateUse1 key (the {device} device)",
        *([f"// {runtime(target).dispatch_note}"] if runtime(target).dispatch_note else []),
        "#include <torch/library.h>",
        "",
        *decls,
        "",
        f"TORCH_LIBRARY({namespace}, m) {{",
        *defs,
        "}",
        "",
        f"TORCH_LIBRARY_IMPL({namespace}, PrivateUse1, m) {{",
        *impls,
        "}",
        f"// Python: torch.ops.{namespace}.<name>(...) in place of the pybind11 module's functions",
    ])


def _identifier(text: str) -> str:
    return re.sub(r"\W", "_", text).strip("_")


def _declaration(signature: Optional[str], name: str) -> str:
    match = _CPP_SIGNATURE.match(signature or "")
    if not match:
        return f"at::Tensor {name}(/* the arguments of the CUDA version */)"
    return f"{match.group('ret').strip()} {name}({' '.join(match.group('args').split())})"


def cpp_to_schema(name: str, signature: Optional[str]) -> str:
    """``torch::Tensor f(torch::Tensor x, double eps)`` -> ``f(Tensor x, float eps) -> Tensor``."""
    match = _CPP_SIGNATURE.match(signature or "")
    if not match:
        return f"{name}(...) -> ..."
    args = []
    for raw in _split_args(match.group("args")):
        raw = raw.split("=")[0].strip()
        if not raw:
            continue
        type_text, _, arg_name = raw.replace("&", "& ").replace("*", "* ").rpartition(" ")
        args.append(f"{_schema_type(type_text or raw)} {arg_name.strip() or 'arg'}")
    return f"{name}({', '.join(args)}) -> {_schema_return(match.group('ret'))}"


def _split_args(text: str) -> List[str]:
    parts: List[str] = []
    depth = 0
    current: List[str] = []
    for char in text:
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return [p.strip() for p in parts]


def _schema_type(cpp: str) -> str:
    t = cpp.replace("const", "").replace("&", "").replace("c10::", "").replace("at::", "").replace("torch::", "")
    t = t.replace("std::", "").replace(" ", "")
    optional = t.startswith("optional<")
    inner = t[len("optional<"):-1] if optional else t
    if inner in ("Tensor",):
        base = "Tensor"
    elif inner in ("vector<Tensor>", "TensorList", "ArrayRef<Tensor>"):
        base = "Tensor[]"
    elif inner in ("double", "float"):
        base = "float"
    elif inner in ("int64_t", "int", "long", "int32_t", "size_t", "uint32_t"):
        base = "int"
    elif inner in ("vector<int64_t>", "IntArrayRef", "vector<int>"):
        base = "int[]"
    elif inner == "bool":
        base = "bool"
    elif inner in ("string", "string_view"):
        base = "str"
    elif inner == "Scalar":
        base = "Scalar"
    else:
        return f"/* map {cpp.strip()} */"
    return base + ("?" if optional else "")


def _schema_return(cpp: str) -> str:
    t = cpp.replace("std::", "").replace("torch::", "").replace("at::", "").strip()
    if t == "void":
        return "()"
    if t.startswith("tuple<") and t.endswith(">"):
        return "(" + ", ".join(_schema_type(p) for p in _split_args(t[len("tuple<"):-1])) + ")"
    return _schema_type(t)


# ------------------------------------------------------------------------------------------ verdicts


def apply_plans(findings: Sequence[Finding], ops: Sequence[CustomOp], plans: Sequence[OpPlan]) -> List[Finding]:
    """Custom-op findings take their op's plan. A call to one function of the op (``ext.nms(...)``) takes the
    route that covers that function, if any; the op's other findings (kernels, build, imports) are a rewrite
    where every function is covered on the target, and a port, with what is covered named, otherwise."""
    member = OpMembership(ops)
    by_key = {(p.op, p.target): p for p in plans}
    optional = {o.name for o in ops if o.build is not None and o.build.optional}
    out = []
    for finding in findings:
        op = member.op_of(finding)
        if op is None:
            out.append(finding)
            continue
        if op in optional:
            out.append(replace(finding, verdicts={t: _optional(v, op) for t, v in finding.verdicts.items()}))
            continue
        function = _function_called(finding.api, op)
        verdicts = dict(finding.verdicts)
        for target, verdict in finding.verdicts.items():
            plan = by_key.get((op, target))
            if plan is not None and plan.status == Status.PARTIAL:  # the project's own build for the target
                verdicts[target] = Verdict(Status.PARTIAL, f"custom operator {plan.op} is {plan.summary}", _INVENTORY)
            elif plan is not None and plan.status == Status.FALLBACK:
                verdicts[target] = _host_verdict(plan, finding)
            elif plan is not None and verdict.status == Status.PORT:
                verdicts[target] = _planned_verdict(plan, verdict, function)
        out.append(replace(finding, verdicts=verdicts))
    return out


def sourceless_builds(findings: Sequence[Finding]) -> List[Finding]:
    """In a repository that ships no C++ or CUDA source, an extension build compiles nothing it could port
    (Restormer's and NAFNet's BasicSR ``setup.py``: ``make_cuda_ext(... sources=['src/deform_conv_ext.cpp'])`` for
    folders the repository does not have, installed with ``--no_cuda_ext``): nothing to port, to validate.
    ``load_inline`` compiles the sources its call holds."""
    out = []
    for finding in findings:
        if finding.rule != "extension-build" or finding.api.endswith("load_inline") \
                or not any(v.status in (Status.PORT, Status.FALLBACK) for v in finding.verdicts.values()):
            out.append(finding)
            continue
        why = ("the repository ships no C++ or CUDA source for this build to compile: no kernel of the project's own "
               "to port, and, as shipped, nothing for the build to find on a CUDA machine either; install without it "
               "(the project's own switch, such as `--no_cuda_ext`) or drop it")
        verdicts = {t: Verdict(Status.REWRITE, why, _INVENTORY, fix=fix_of("drop this extension build"),
                               evidence=(Evidence(Grade.NOTE, _INVENTORY, why),))
                    if v.status in (Status.PORT, Status.FALLBACK) else v for t, v in finding.verdicts.items()}
        out.append(replace(finding, verdicts=verdicts))
    return out


def _optional(verdict: Verdict, op: str) -> Verdict:
    """A finding of an operator built at run time with a fallback: the build fails on the target's machine and the
    project's own code runs instead; the port is for speed, to validate on the card."""
    if verdict.status == Status.SUPPORTED:
        return verdict
    why = (f"custom operator {op} is built at run time under a `try` whose handler goes on and binds again what the "
           "`try` defines: where the build fails, as without nvcc on the target's machine, the code goes on without "
           "it; check that its callers take their other way there (porting it is then for speed)")
    return Verdict(Status.SUPPORTED, why, _INVENTORY, evidence=(Evidence(Grade.NOTE, _INVENTORY, why),))


def _function_called(api: str, op: str) -> Optional[str]:
    """``scanlib._rms.rms_norm`` or ``<loaded>._ext.nms`` (a loader's module) -> the op's function it names."""
    parts, module = api.split("."), op.rsplit(".", 1)[-1]
    if module in parts[:-1]:
        return parts[parts.index(module) + 1]
    return None


def _host_verdict(plan: OpPlan, finding: Finding) -> Verdict:
    """A custom op with no CUDA code: its build becomes a CppExtension; its calls run on the host CPU."""
    if finding.rule == "extension-build" and finding.api.endswith("CUDAExtension"):
        return Verdict(Status.REWRITE, f"custom operator {plan.op} is {plan.summary}", _INVENTORY,
                       fix=fix_of(finding.snippet.replace("CUDAExtension", "CppExtension")))
    return Verdict(Status.FALLBACK, f"custom operator {plan.op} is {plan.summary}; device tensors passed to it are "
                   "copied to the host and back", _INVENTORY)


_INVENTORY = "migrator custom-op inventory (the extension's sources)"


def _planned_verdict(plan: OpPlan, verdict: Verdict, function: Optional[str]) -> Verdict:
    route = next((r for r in plan.routes if function in r.covers), None) if function else None
    if route is not None or plan.status == Status.REWRITE:
        route = route or next((r for r in plan.routes if r.level == "vendor"), plan.routes[0])
        if route.level == "vendor":
            suggestion, how = route.call, f"use `{route.call}` ({route.mapping}; {route.differs})"
        else:
            suggestion, how = "the PyTorch fallback in the custom-operator plan", "no vendor call in the data; " \
                "paste the PyTorch fallback from the custom-operator plan"
        scope = f"`{function}` of {plan.op}" if function else f"custom operator {plan.op}"
        return Verdict(Status.REWRITE, f"{scope} is {route.what} on {plan.target}: {how}. Plan: {plan.summary}",
                       route.source,
                       fix=fix_of(suggestion))
    return replace(verdict, message=f"{verdict.message}. Plan: {plan.summary}")
