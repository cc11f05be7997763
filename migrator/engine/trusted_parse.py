"""A fast path of the parse: libcst's parser output built without re-validating each node.

Only for text CPython's own parser has accepted (``sources/python.parse_python(valid=True)``): the tree is the
same, built a sixth faster. The switch patches a private libcst method for the duration of a block, which is
why it lives here, apart from what the parse means.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator

_trusting = threading.Lock()
_trusted_parses = 0
_checked_post_init: Any = None  # libcst's own ``CSTNode.__post_init__`` while a block has it replaced


@contextmanager
def parser_output_trusted() -> Iterator[None]:
    """libcst nodes are built without their ``_validate`` while the block runs (in any thread of the process).

    Every libcst node checks its own fields as it is built (``CSTNode.__post_init__``): right for trees a
    codemod assembles (``fix`` keeps it), redundant for the parser's output on source CPython has accepted,
    and a sixth of the parse (timm: 10.1 s -> 8.5 s in one process); libcst's comment on ``__post_init__``
    names the same waste. Nested and concurrent blocks share one switch, counted under a lock: the check is
    back once the last block ends.
    """
    global _trusted_parses, _checked_post_init
    from libcst._nodes.base import CSTNode

    with _trusting:
        if _trusted_parses == 0:
            _checked_post_init = CSTNode.__post_init__
            CSTNode.__post_init__ = _built_unchecked  # type: ignore[method-assign]
        _trusted_parses += 1
    try:
        yield
    finally:
        with _trusting:
            _trusted_parses -= 1
            if _trusted_parses == 0:
                CSTNode.__post_init__ = _checked_post_init  # type: ignore[method-assign]


def _built_unchecked(self: object) -> None:
    """``CSTNode.__post_init__`` while the parser's output is trusted: the node is not validated."""
