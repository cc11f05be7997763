"""Our offset-based positions agree with libcst's PositionProvider on every node."""
import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.positions import Positions

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
    checked = 0
    for node, where in expected.items():
        if not isinstance(node, (cst.BaseExpression, cst.BaseStatement, cst.BaseSmallStatement, cst.ImportAlias,
                                 cst.Decorator, cst.Arg, cst.Param)):
            continue  # whitespace and punctuation: never reported
        checked += 1
        span = ours.span(node)
        assert (span.line, span.col, span.end_line, span.end_col) == (
            where.start.line, where.start.column, where.end.line, where.end.column), node
    assert checked > 80
