"""The ``torch-library-cuda`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind, ValueKind, Verdict, fix_of
from ...resolve.vocabulary import Vocabulary
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_STR = ValueKind.STR


class TorchLibraryCuda(Rule):
    """A Python `torch.library` registration for the CUDA dispatch key.

    ## What it does
    Finds `torch.library.impl('ns::op', 'CUDA')`, `Library(...).impl(name, fn, 'CUDA')`,
    `torch.library.custom_op(..., device_types='cuda')` and `register_kernel(..., 'cuda')`.

    ## Why is this bad?
    The implementation is registered for CUDA only, so on the target the op has no kernel for its device
    and raises. An implementation in torch operators runs unchanged: only the key is wrong. One that launches
    the module's own Triton kernels is part of that module's port (the registration is a site of its finding).
    Where the public data does not say which key the runtime uses (Kunlunxin), the verdict is `unknown`.

    ## Fix safety
    A suggestion, not applied by `fix`: a registration for the target's key (`PrivateUse1`, or the device
    name in `device_types`) beside CUDA's, never in its place (CUDA keeps its kernel). It is exact for the
    registration, but the implementation may launch kernels built for CUDA (Triton, Warp) or call CUDA-only code
    that the other rules report: there the target's registration takes the op's plain-PyTorch path.
    """

    name = "torch-library-cuda"
    claim = Claim.PROJECT_OPERATOR
    kinds = frozenset({UsageKind.CALL, UsageKind.DECORATOR})
    category = Category.CUSTOM_OP
    summary = "torch.library registrations for CUDA"
    vocabulary = Vocabulary(instance_methods=frozenset({"torch.library.Library.impl"}))
    examples = (
        Invalid("import torch\n@torch.library.custom_op('mylib::f', mutates_args=(), device_types='cuda')\n"
                "def f(x: torch.Tensor) -> torch.Tensor:\n    return x\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE)),
        Invalid("import torch\nlib = torch.library.Library('mylib', 'IMPL')\n\ndef f_cuda(x):\n    return x\n\n"
                "lib.impl('f', f_cuda, 'CUDA')\n",
                expect=ByRuntime(Status.UNKNOWN, cann=Status.REWRITE, neuware=Status.REWRITE)),
        Valid("import torch\n@torch.library.impl('mylib::f', 'CPU')\ndef f(x):\n    return x\n"),
        Valid("import torch\nlib = torch.library.Library('mylib', 'IMPL')\nlib.impl('f', lambda x: x, 'CPU')\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if not usage.api.startswith("torch.library.") or usage.kind not in self.kinds:
            return None
        key = next((a.value.text for a in usage.args if a.value.kind == _STR and a.value.text in ("CUDA", "cuda")),
                   None)
        if key is None:
            return None

        def verdict(target) -> Verdict:
            dispatch_key = target.runtime_facts.dispatch_key
            if dispatch_key is None:
                return Verdict(Status.UNKNOWN, f"a CUDA-key registration; {target.runtime_facts.dispatch_note}",
                               target.device_source)
            new = dispatch_key if key == "CUDA" else target.device_to
            # spikingjelly's and matgl's registrations: CUDA's kernel stays CUDA's; the target needs one of its own
            return Verdict(Status.REWRITE, f"keep the registration for '{key}' and register the op for '{new}' "
                           f"beside it ({target.id} is the {dispatch_key} backend '{target.device_to}'): with the "
                           "same implementation where it calls torch operators only, or with the op's plain-PyTorch "
                           "path where it launches kernels built for CUDA (Triton, Warp, a CUDA library); read the "
                           "implementation: only the libraries migrator knows have findings of their own",
                           target.device_source,
                           # the registration to add beside this one
                           fix=fix_of(usage.snippet.replace(f"'{key}'", f"'{new}'").replace(f'"{key}"', f'"{new}"')))
        return per_target(ctx, verdict)
