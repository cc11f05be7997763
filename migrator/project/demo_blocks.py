"""The ``if __name__ == "__main__":`` block of a library module: a usage example or self-check
(``denoising_diffusion_pytorch/classifier_free_guidance.py`` ends with one that builds a model on ``.cuda()`` and
samples). A run imports the module, and its main block never runs. A library module is one the project's training
code imports, or, in a packaged project (``pyproject.toml``, ``setup.py``, ``setup.cfg``), any module of a
package (a folder with an ``__init__.py``; ``tools/eval.py`` beside none is a script); a module named for a run
(``train*.py``, ``main.py``, ``run_*.py``, ``cli.py``, ``__main__.py``), or one that holds a training step, keeps its
main block as its entry."""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Set, Tuple

from ..contexts import path_context
from ..graph.entries import named_as_a_script
from ..model import Context, FileResult, Span

_ENTRY_FILES = frozenset({"__main__.py", "cli.py"})


def demo_blocks(results: Sequence[FileResult], packaged: bool = False) -> Dict[str, Tuple[int, int]]:
    """Each library module's main block lines, by the module's path; ``packaged``: the project declares a
    distribution (``graph/packaging.PACKAGING_FILES``)."""
    imported: Set[str] = set()  # every prefix of every import a training module makes
    for result in results:
        outline = result.outline
        if outline is not None and outline.main_lines is None and path_context(result.file.rel) == Context.TRAINING:
            for name in outline.imports:
                parts = name.split(".")
                imported.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    packages = {r.file.rel.rpartition("/")[0] for r in results if r.file.rel.endswith("__init__.py")}
    return {r.file.rel: r.outline.main_lines for r in results
            if r.outline is not None and r.outline.main_lines is not None
            and (r.outline.module in imported or (packaged and "/" in r.file.rel
                                                   and r.file.rel.rpartition("/")[0] in packages))
            and not named_as_a_script(r.file.rel) and r.file.rel.rsplit("/", 1)[-1] not in _ENTRY_FILES
            and not _trains(r)}


def _trains(result: FileResult) -> bool:
    """Whether the module holds a training step (a loop that calls ``backward``, or a step function): its main
    block is a run (cleanrl's ``apex_dqn_atari_visual.py``, a package module that is a training script)."""
    step = result.step
    return step is not None and bool(step.loops or step.steps)


def in_demo_block(blocks: Dict[str, Tuple[int, int]], path: str, span: Span) -> bool:
    lines: Optional[Tuple[int, int]] = blocks.get(path)
    return lines is not None and span.line is not None and lines[0] <= span.line <= lines[1]
