"""The repository's call graph (networkx): entry points, reachability, and how findings are reached.

Nodes are modules (``pkg.mod``), their ``if __name__ == "__main__":`` blocks (``pkg.mod.<main>``), classes and
functions (``pkg.mod.Cls.method``). Edges are calls and imports, resolved across files from the per-file
outlines (``sources/outline.py``):

* a name reached through imports and re-exports (``from .transformer import TinyGPT`` in ``model/__init__.py``);
* ``self.m()`` through the class's repo bases, and the overrides in its repo subclasses;
* ``self.block(x)`` where ``self.block = Block(...)``: ``Block.forward`` (an ``nn.Module``'s ``__call__``);
* constructing a class reaches its ``__init__``, ``forward``, ``__call__`` and ``backward`` (a module that
  is built is called; ``Fn.apply`` runs an ``autograd.Function``'s ``forward`` and ``backward``);
* a method on a receiver of unknown type reaches the repo methods of that name (when few define it);
* importing a module runs its body; a repo function or a bound method passed as an argument (``mp.spawn(worker)``,
  ``retry_call(model.train)``) is called by that scope; a decorator's root (``@cli.command()``,
  ``@register_model``) reaches what it decorates along a ``registers`` edge (a registry calls it later, a wrapper
  returns it);
* imports are read the way a script sees them: ``from model import Net`` in ``proj/train.py`` is
  ``proj.model.Net`` when the scan started above ``proj/``.

The resolution over-approximates on purpose: code wrongly marked reachable costs a look, a training path
wrongly marked dead hides a blocker. Entry points: ``__main__`` blocks, scripts named like ``train*.py`` /
``main.py``, notebooks, ``setup.py`` (pip runs it), console scripts in ``pyproject.toml`` / ``setup.cfg`` /
``setup.py``, and ``--entry MODULE[:FUNC]``. Test files are never entry points.

One module per step: ``build`` (outlines to nodes and edges), ``names`` (what a name or a call target
stands for), ``entries`` (where runs start), ``reach`` (what they reach) and ``export`` (JSON, Graphviz,
the HTML subgraph).
"""

from .build import ProjectGraph, build_graph
from .export import graph_document, subgraph_around, to_dot
from .reach import call_paths, mark_reachable, reach, summarise

__all__ = ["ProjectGraph", "build_graph", "call_paths", "graph_document", "mark_reachable", "reach",
           "subgraph_around", "summarise", "to_dot"]
