"""``migrator trace``: record the aten ops one real training step runs. The one part of migrator that runs
user code (with ``migrator memory``); everything else reads code without executing it.

The parent (``run``) starts the user's own command with a bootstrap ``sitecustomize`` on ``PYTHONPATH``;
in every Python process of that command the ``session`` installs a ``TorchDispatchMode`` (``recorder``),
the CUDA-to-CPU redirection (``redirect``) and stubs for compiled CUDA extensions (``stubs``), stops
after N optimizer steps or a wall-clock limit, and writes its ``migrator.trace/1`` document
(``document``). ``join`` merges a trace into a static report (``migrator scan --trace``).
"""
