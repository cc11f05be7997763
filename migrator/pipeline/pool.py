"""Every file's result, from the cache or analysed anew, in this process or in a pool of worker processes.

``analyze_all`` is the pipeline's analyse stage as it runs: cache hits load in this process (cheaper than
sending results back from workers); only misses go to the pool. A pool worker also runs the rules on the files
it analysed, on the project index as far as it is known before every file is in (the repository's modules),
and stores their findings with what they read of it (``pipeline/memo.RuleMemo`` takes them when the whole index
answers the same), so the rules' time is spent beside the other worker instead of after the pool.
"""

from __future__ import annotations

import gc
import itertools
import os
from functools import partial
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Tuple

from ..analyze import analyze_file, analyze_new, cached_result, content_key
from ..maps.load import TargetMap, third_party
from ..model import FileKind, FileResult, FileStatus, SourceFile
from ..resolve import module_name_for
from ..rules import ProjectIndex, RuleContext
from ..engine.cache import AnalysisCache
from ..engine.collector import DEFAULT as DEFAULT_COLLECTOR, Collector
from .memo import has_rule_input, rule_results, rules_key

Progress = Optional[Callable[[int, int], None]]

#: Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 40

#: Results received between two ``Collector.kept_so_far`` calls while the files are analysed.
_FREEZE_EVERY = 64

#: (the content key of the bytes analysed, or ``None``; the result)
Analysed = Tuple[Optional[str], FileResult]


def analyze_all(files: Sequence[SourceFile], jobs: Optional[int] = None, progress: Progress = None,
                cache: Optional[AnalysisCache] = None, keys: Optional[Dict[str, Optional[str]]] = None,
                targets: Sequence[TargetMap] = (), collector: Collector = DEFAULT_COLLECTOR) -> List[FileResult]:
    """Every file's result, in order. ``keys`` receives each file's content key (read once here, reused for the
    rule and report keys); a key already in it is taken as read. With a cache, pool workers store the rule
    results for ``targets``."""
    jobs = jobs or os.cpu_count() or 1
    results: List[Optional[FileResult]] = [None] * len(files)
    todo = list(range(len(files)))
    if cache is not None:
        todo = []
        for index, source in enumerate(files):
            key = keys[source.rel] if keys is not None and source.rel in keys else content_key(source, cache)
            if keys is not None:
                keys[source.rel] = key
            hit = cached_result(source, cache, key) if key is not None else None
            if hit is None:
                todo.append(index)
            else:
                results[index] = hit
    done = len(files) - len(todo)
    if progress and done:
        progress(done, len(files))
    computed: Iterable[Tuple[int, Analysed]]
    if jobs <= 1 or len(todo) < _POOL_THRESHOLD:
        computed = zip(todo, map(partial(_analyze_here, cache=cache), (files[i] for i in todo)))
    else:
        modules = frozenset(module_name_for(f.rel) for f in files if f.kind in (FileKind.PYTHON, FileKind.NOTEBOOK))
        # largest first: a worker parses its largest trees before its memory is fragmented by what it keeps
        # (timm: 186 -> 174 MiB at a worker's peak), and the small files at the end even out the two workers
        todo.sort(key=lambda i: -files[i].size)
        computed = FilePool(jobs, tuple(targets) if cache is not None else (), modules).map(files, todo, cache)
    with collector.keeping():  # the results are kept: kept as they come, so that the collections while the pool
        for index, (key, result) in computed:  # runs walk only what came since (1 s on transformers)
            results[index] = result
            if keys is not None and key is not None:  # the bytes analysed: what the rule and report keys use
                keys[files[index].rel] = key
            done += 1
            if done % _FREEZE_EVERY == 0:
                collector.kept_so_far()
            if progress:
                progress(done, len(files))
    return results  # type: ignore[return-value]  # every index was filled, by a hit or by ``computed``


def _analyze_here(source: SourceFile, cache: Optional[AnalysisCache]) -> Analysed:
    """``_analyze_in_worker`` in this process: the result, and the key of the bytes analysed."""
    if cache is None:
        return None, analyze_file(source, look_up=False)
    new = analyze_new(source, cache)
    return new.key, new.result


class FilePool:
    """A process pool for the files the cache lacks, ``jobs`` workers, each set up by ``_worker_init``."""

    def __init__(self, jobs: int, targets: Tuple[TargetMap, ...], modules: FrozenSet[str]) -> None:
        self._jobs = jobs
        self._initargs = (targets, modules)

    def map(self, files: Sequence[SourceFile], todo: List[int],
            cache: Optional[AnalysisCache]) -> Iterator[Tuple[int, Analysed]]:
        """(index, worker result) for each of ``todo``. A worker that dies (a native parser fault, the memory
        limit) takes one file down, not the scan: the files not yet back are analysed again one worker at a
        time, in order, so the one that kills it again is known, reported with the reason, and passed."""
        from concurrent.futures import ProcessPoolExecutor  # multiprocessing: 14 ms a `check` never needs
        from concurrent.futures.process import BrokenProcessPool

        work = partial(_analyze_in_worker, cache=cache)
        back = set()
        pool = ProcessPoolExecutor(max_workers=self._jobs, initializer=_worker_init, initargs=self._initargs)
        try:
            chunk = max(1, min(32, len(todo) // (self._jobs * 8)))
            for index, item in zip(todo, pool.map(work, (files[i] for i in todo), chunksize=chunk)):
                back.add(index)
                yield index, item
            return
        except BrokenProcessPool:
            pass
        finally:
            pool.shutdown()
        queue = [i for i in todo if i not in back]
        while queue:
            single = ProcessPoolExecutor(max_workers=1, initializer=_worker_init, initargs=self._initargs)
            done = 0
            try:
                for index, item in zip(queue, single.map(work, (files[i] for i in queue))):
                    done += 1
                    yield index, item
            except BrokenProcessPool:
                culprit = queue[done]
                yield culprit, (None, FileResult(files[culprit], FileStatus.ERROR, "the analysis of this file "
                                                 "killed its worker process (a fault in the native parser, or the "
                                                 "memory limit); the rest of the scan went on"))
                done += 1
            finally:
                single.shutdown()
            queue = queue[done:]


def _worker_init(targets: Tuple[TargetMap, ...], modules: FrozenSet[str]) -> None:
    """A pool worker runs the cyclic collector by hand, once a file (``_analyze_in_worker``), over what that
    file left: the collector's own schedule walks each file's live syntax trees again and again (5 to 9% of
    the analysis). What the worker imported is frozen out of every walk. ``targets`` (inherited with the
    fork, or pickled once per worker) are what its rules judge against, and ``modules`` the repository's
    Python modules, known from the file names before any file is read."""
    global _WORKER_RULES
    _WORKER_RULES = (RuleContext(targets=targets, third_party=third_party(), project=ProjectIndex(modules=modules))
                     if targets else None)
    gc.disable()
    gc.freeze()


#: A worker's rules context: the targets and the project index as far as it is known before every file is in
#: (the repository's modules; no constants, extensions or kernels yet). ``None`` outside a pool worker.
_WORKER_RULES: Optional[RuleContext] = None


def _analyze_in_worker(source: SourceFile, cache: Optional[AnalysisCache]) -> Analysed:
    """One file the cache lacks, analysed, stored, and sent on as stored (its usages still pickled), with the
    content key of the very bytes analysed (a file edited since the main process keyed it is known by these).
    With a cache, its rules run here too, and their results are stored with what they read of the index."""
    try:
        if cache is None:
            return None, analyze_file(source, look_up=False)
        new = analyze_new(source, cache)
        ctx = _WORKER_RULES
        if ctx is not None and new.key is not None and has_rule_input(new.result):
            cache.put(rules_key(cache, source.rel, new.key, ctx.targets), rule_results(new.result, ctx))
        return new.key, new.stored
    finally:
        gc.collect(0)  # the few cycles a file leaves (``ast.literal_eval``'s closures): its tree is freed as the
        # pass returns, since nothing in it is held in a cycle (``test_the_pass_leaves_no_cycle...``)
        if next(_FILES_IN_THIS_WORKER) % 100 == 0:
            gc.collect()  # anything that became garbage after surviving one of the above


_FILES_IN_THIS_WORKER = itertools.count(1)
