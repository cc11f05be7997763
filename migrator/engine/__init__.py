"""How a scan runs fast: the analysis cache and its memos, the process pool, the collector policy.

Nothing here decides what a scan finds: every stage in ``migrator/pipeline/`` gives the same answer without it
(``cache=None``, ``jobs=1``, ``Collector()``), only slower. See docs/performance.md for what each part saves.
"""
