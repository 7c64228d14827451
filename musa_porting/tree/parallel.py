"""Planning many files in forked worker processes, with results in input order.

Only source files that must be ported go to the workers (forked, so they share the
compiled rules); the rest is planned in the parent while they run. Each worker also
writes its files' temp files (staging): creating files costs kernel time, often as
much as porting them, and one writer in the parent made the parent the bottleneck of
a cold port. Steps come back in ``files`` order, so the output and the report are the
same for any number of jobs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from .plan import Planner, Step
from .pool import end_pool, forked_pool
from .walk import Entry

# Below this many files a pool costs more than it saves.
MIN_PARALLEL_FILES = 64
CHUNK = 16
_ACTIVE: tuple[Planner, list[Entry]] | None = None  # while a pool runs; inherited by workers


def _fork_available() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _plan_chunk(indices: list[int]) -> list[tuple[int, Step]]:
    planner, files = _ACTIVE  # type: ignore[misc]
    return [(i, planner.plan(files[i])) for i in indices]


def plan_all(planner: Planner, files: list[Entry], jobs: int | None,
             progress: Callable[[int, int], None] | None = None) -> Iterator[Step]:
    """Plan every file, in ``files`` order, in this process or ``jobs`` processes."""
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    todo = len(files)
    heavy = [i for i, e in enumerate(files) if planner.needs_port(e)]
    if jobs <= 1 or len(heavy) < MIN_PARALLEL_FILES or not _fork_available():
        for i, e in enumerate(files):
            yield planner.plan(e)
            if progress is not None:
                progress(i + 1, todo)
        return
    global _ACTIVE
    _ACTIVE = (planner, files)
    if planner.stage is not None and planner.before_workers is not None:
        planner.before_workers()  # e.g. the journal: written once, by the parent
    chunks = [heavy[i:i + CHUNK] for i in range(0, len(heavy), CHUNK)]
    results: dict[int, Step] = {}
    pool, done = None, False
    try:
        pool = forked_pool(min(jobs, len(chunks)))
        pending = pool.imap_unordered(_plan_chunk, chunks)
        heavy_set = set(heavy)
        for i, e in enumerate(files):  # the light ones while the workers run
            if i not in heavy_set:
                results[i] = planner.plan(e)
        for steps in pending:
            for i, step in steps:
                if step.planned is not None:
                    step.planned.entry = files[i]  # not the worker's copy: one per file
                results[i] = step
            if progress is not None:
                progress(len(results), todo)
        done = True
    finally:
        _ACTIVE = None
        if pool is not None:
            end_pool(pool, done)
    for i in range(todo):
        yield results[i]


_MAPPED: Callable | None = None  # the function map_forked runs (inherited by the workers)


def _map_chunk(items: list) -> list:
    return [_MAPPED(x) for x in items]  # type: ignore[misc]


def map_forked(func: Callable, items: list, jobs: int | None) -> Callable[[], list]:
    """Start ``[func(x) for x in items]`` in forked workers; the returned function waits
    for the results, in order. ``func`` may be a closure over unpicklable state (it is
    inherited, not sent); only results travel. The caller works on in the meantime."""
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs <= 1 or len(items) < MIN_PARALLEL_FILES or not _fork_available():
        results = [func(x) for x in items]
        return lambda: results
    global _MAPPED
    _MAPPED = func
    chunks = [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]
    try:
        pool = forked_pool(min(jobs, len(chunks)))
    finally:
        _MAPPED = None  # the workers have it; the parent does not need it
    pending = pool.map_async(_map_chunk, chunks)

    def wait() -> list:
        done = False
        try:
            results = [r for part in pending.get() for r in part]
            done = True
            return results
        finally:
            end_pool(pool, done)

    return wait
