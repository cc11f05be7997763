"""The ``extension-call`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind, Verdict
from ..base import Claim, Rule, RuleContext, Verdicts, per_target, runs_on_a_note
from ..examples import Invalid, Valid
from . import _KERNEL, _SETUP, _SOURCE, _port


class ExtensionCall(Rule):
    """A call into one of the repo's compiled CUDA extensions.

    ## What it does
    Finds imports, attributes and calls of a module the repo builds as an extension, joined by its module
    name across files: `import fused_ops` then `fused_ops.forward(x)`, `from fastops import _C`, a module
    returned by `cpp_extension.load(name=...)`, and the repo's own loader helpers (`load_ext('_ext', ...)`).

    ## Why is this bad?
    The call lands in CUDA kernels that do not exist on the target until the extension is ported; each call
    site is a place the port must keep working, and a reason to look for a vendor op that does the same.

    ## Fix safety
    No automatic fix: the call stays as it is once the extension is ported under the same name, or moves to
    the vendor op the custom-op plan names (`torch_npu.npu_rms_norm`), whose arguments may differ.
    """

    name = "extension-call"
    claim = Claim.PROJECT_OPERATOR
    kinds = frozenset({UsageKind.CALL, UsageKind.IMPORT, UsageKind.ATTRIBUTE})
    category = Category.CUSTOM_OP
    summary = "calls into compiled CUDA extensions"
    examples = (
        # nothing in this file names torch or CUDA: only the build in setup.py says `fused_ops` is an extension
        Invalid("import fused_ops\n\ndef scale(x):\n    return fused_ops.scale(x, 2.0)\n",
                files={"setup.py": _SETUP, "csrc/fused.cu": _KERNEL}, expect=Status.PORT),
        Invalid("from torch.utils.cpp_extension import load\nwarp = load(name='warp', sources=['warp.cu'])\n"
                "y = warp.forward(1)\n", expect=Status.PORT),
        Valid("import other_ops\ny = other_ops.scale(1)\n", files={"setup.py": _SETUP}),
        # torchopt's fused Adam: the extension imported where it was built, its pure-PyTorch twin elsewhere
        Invalid("try:\n    from fused_ops import scale\nexcept ImportError:\n    from pkg.plain import scale\n",
                files={"setup.py": _SETUP, "csrc/fused.cu": _KERNEL}, expect=Status.SUPPORTED),
        # uni-core's fused norms: the calls run only where the import worked, the flag sends the rest elsewhere
        Invalid("import torch\ntry:\n    import fused_ops\n    HAS_FUSED = True\nexcept ImportError:\n"
                "    HAS_FUSED = False\n\n\ndef scale(x):\n    if HAS_FUSED:\n        return fused_ops.scale(x, 2.0)\n"
                "    return x * 2.0\n", files={"setup.py": _SETUP, "csrc/fused.cu": _KERNEL}, expect=Status.SUPPORTED),
        # ... but a module that raises without it has no other way
        Invalid("try:\n    import fused_ops\nexcept ImportError:\n    fused_ops = None\n\n\ndef scale(x):\n"
                "    if fused_ops is None:\n        raise ImportError('build fused_ops')\n"
                "    return fused_ops.scale(x, 2.0)\n", files={"setup.py": _SETUP, "csrc/fused.cu": _KERNEL},
                expect=Status.PORT),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        extension = ctx.project.extension_of(usage.api)
        if extension is None:
            return None
        build = ctx.project.extensions[extension]
        what = f"uses `{usage.api}` from the compiled extension `{extension}` (built at {build.path}:{build.span.line})"
        if usage.guarded:  # torchopt's ``except ImportError: ... _src``; uni-core's ``HAS_RMS_NORM = False``
            imported = "imported" if usage.kind == UsageKind.IMPORT else "whose import sits"
            return per_target(ctx, lambda t: runs_on_a_note(
                f"{what}, {imported} under `try` with a handler that goes on: where the extension is not built for "
                f"{t.id}, the code's other way runs; porting it is a speed-up to weigh", _SOURCE))
        if build.api.endswith("CppExtension"):
            return per_target(ctx, lambda t: Verdict(Status.FALLBACK, f"{what}: a CPU extension; its ops run on "
                                                     "the host", _SOURCE))
        return per_target(ctx, lambda t: _port(t, what))
