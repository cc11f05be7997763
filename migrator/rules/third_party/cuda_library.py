"""The ``cuda-library`` rule."""

from __future__ import annotations

from typing import Optional

from ...model import Category, Status, Usage, UsageKind
from ...resolve.vocabulary import Vocabulary
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid
from . import library_verdict

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_IMPORT = UsageKind.IMPORT


class CudaLibrary(Rule):
    """Imports and uses of CUDA-only libraries.

    ## What it does
    Finds imports, calls, decorators, subclasses and attributes of the libraries in
    `operator_maps/third_party.json`: apex, flash-attn, xformers, bitsandbytes, TransformerEngine, triton, NVML
    bindings, DeepSpeed's CUDA ops and more. Each use gets the replacement the data names for the target (every row
    checked against the vendor file it cites), or the plain-PyTorch path, or a `port`; a class with a plain-PyTorch
    twin imported by its own name (`from apex.normalization import FusedLayerNorm as LayerNorm`) is one swap at the
    import, which its uses take; NVML's driver queries are host code, a manual rewrite (the runtime's own queries or
    its `smi` tool), never a port. A member the library's own source writes in plain PyTorch (torch_scatter's
    `scatter_sum`, `scatter_mean`, `scatter` with reduce `sum`/`add`/`mean`; bitsandbytes' `StableEmbedding`: the
    `plain` rows, each quoting the released file) runs as written: `supported`, and so is the library's import in a
    file whose every use of it is such a member (`project/plain_imports`). Code that runs only on an object of the
    library a caller hands in (the body of `if isinstance(edge_index, SparseTensor):`, a function whose parameter is
    annotated `adj_t: SparseTensor`, PyG's `message_and_aggregate`) runs no kernel where the project makes no such
    object: a note to validate; so is an import whose file only handles the library's objects so, or names them only
    in annotations and type checks. An import guarded by `try/except ImportError` whose handler goes on (a fallback,
    not a `raise`) is optional and is not reported; a use of such an import runs only where it worked, so it is
    `supported` (the code's fallback runs on the target).

    ## Why is this bad?
    These libraries ship CUDA kernels (or drive NVIDIA's driver): they do not install, or do not run, on
    the targets. The scanned repo's own copy of a library (scanning mmcv itself) is not reported here:
    its kernels are found as custom operators.

    ## Fix safety
    Never applied: a replacement's arguments and layout differ (`flash_attn_func` takes BSND tensors,
    `torch_npu.npu_fusion_attention` needs `head_num` and `input_layout`), so each suggestion is a manual
    rewrite to check against the mapping in its message.
    """

    name = "cuda-library"
    claim = Claim.LIBRARY
    kinds = frozenset({UsageKind.IMPORT, UsageKind.CALL, UsageKind.ATTRIBUTE, UsageKind.DECORATOR, UsageKind.SUBCLASS,
                       UsageKind.ASSIGN})
    category = Category.THIRD_PARTY
    summary = "CUDA-only third-party libraries"
    #: libraries whose own calls are never the repo's module loaders (``load_ext('_ext')``)
    vocabulary = Vocabulary(library_roots=frozenset(
        {"apex", "flash_attn", "xformers", "triton", "deepspeed", "transformers", "timm", "mmengine"}))
    examples = (
        Invalid("from flash_attn import flash_attn_func\n",
                expect=ByRuntime(Status.PORT, cann=Status.REWRITE, neuware=Status.REWRITE)),
        # NVML queries are host code: a rewrite on every target (Ascend's data names the call), never a port
        Invalid("import pynvml\npynvml.nvmlInit()\n", expect=Status.REWRITE),
        Invalid("import triton\n@triton.jit\ndef k(x_ptr):\n    pass\n", expect=Status.PORT),
        # a triton helper class is no kernel: a manual guard, not a port
        Invalid("from triton.runtime.cache import FileCacheManager\n\n\nclass Cache(FileCacheManager):\n    pass\n",
                expect=Status.REWRITE),
        # plain PyTorch in torch_scatter/scatter.py: the default reduce "sum" is scatter_sum, out.scatter_add_
        Invalid("from torch_scatter import scatter\nout = scatter(src, index, dim=0, dim_size=n)\n",
                expect=Status.SUPPORTED),
        # reduce "max" calls torch.ops.torch_scatter.scatter_max, the compiled kernel
        Invalid("from torch_scatter import scatter\nout = scatter(src, index, dim=0, reduce='max')\n",
                expect=Status.PORT),
        # a class with a plain-PyTorch twin: the import is the one swap, its uses take what it binds
        Invalid("from apex.normalization import FusedLayerNorm as LayerNorm\n", expect=Status.REWRITE),
        Valid("import numpy as np\nx = np.zeros(3)\n"),
        Valid("try:\n    import apex\nexcept ImportError:\n    apex = None\n"),
        # an import the handler requires is not optional
        Invalid("try:\n    from apex import amp\nexcept ImportError:\n    raise ImportError('install apex')\n",
                expect=ByRuntime(Status.PORT, cann=Status.REWRITE, neuware=Status.REWRITE)),
        Valid("from mypkg.apex_utils import helper\n", files={"mypkg/__init__.py": "", "mypkg/apex_utils.py": ""}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.kind not in self.kinds:
            return None
        library = ctx.third_party.library_of(usage.api)
        if library is None or ctx.project.is_repo_module(library):
            return None  # the repo's own code (scanning mmcv itself): its kernels are found as custom ops
        verdicts = per_target(ctx, lambda t: library_verdict(t, usage, ctx, library))
        if usage.kind == _IMPORT and usage.guarded and all(v.status == Status.SUPPORTED for v in verdicts.values()):
            return None  # an optional import with a fallback is not a finding
        return verdicts
