"""Our offset-based positions agree with libcst's PositionProvider on every node."""
import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.resolve.positions import Positions

SOURCE = '''\
# -*- coding: utf-8 -*-
from torch.cuda.amp import (
    autocast,
    GradScaler,  # trailing comment
)
import torch as T


@T.no_grad()
def step(model, x: "T.Tensor", *, device="cuda:0") -> None:
    """Docstring with cuda in it."""
    with autocast(dtype=T.float16):
        y = (model(x)
             .to(device, non_blocking=True))
    T.cuda.synchronize(); z = [i for i in range(3)]
    s = f"{x!r:>10} café"
    return y if y is not None else (lambda: 0)()
'''


def test_positions_match_libcst_provider():
    module = cst.parse_module(SOURCE)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = Positions(module)
    # what migrator reports positions for: expressions, import names, arguments, parameters
    nodes = [n for n in expected if isinstance(n, (cst.BaseExpression, cst.ImportAlias, cst.Arg, cst.Param))]
    pending = [(node, ours.pending(node)) for node in nodes]
    ours.resolve()
    assert len(pending) > 50
    for node, placeholder in pending:
        span, where = ours.span_of(placeholder), expected[node]
        assert (span.line, span.col, span.end_line, span.end_col) == (
            where.start.line, where.start.column, where.end.line, where.end.column), node
