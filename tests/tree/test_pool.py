"""The pool of forked workers always ends, and nothing waits on a worker without bound
(issue 47 item 1; the whole-run test is tests/reliability/test_rel_round5.py)."""

from __future__ import annotations

import gc
import threading

from musa_porting.tree import pool as pools


def _square(x: int) -> int:
    return x * x


def test_a_done_pool_ends_and_its_workers_exit():
    pool = pools.forked_pool(2)
    workers = list(pool._pool)
    assert pool.map(_square, range(40)) == [x * x for x in range(40)]
    pools.end_pool(pool, done=True)
    assert [w.exitcode for w in workers] == [0, 0]  # each read its sentinel


def test_a_pool_whose_queue_lock_is_lost_is_never_waited_on_again(monkeypatch):
    """An idle worker waits for its next task holding the task queue's lock: killed
    then (by the OOM killer, or by the grace below), it leaves the lock taken for good.
    The workers the pool starts in its place cannot read their sentinels, so they are
    killed after the grace; and the pool, once ended, must never wait on that lock
    again (its finalizer, run when it is collected or at exit, takes it)."""
    monkeypatch.setattr(pools, "GRACE", 0.3)
    pool = pools.forked_pool(2)
    assert pool.map(_square, range(8)) == [x * x for x in range(8)]
    for worker in list(pool._pool):  # one of them holds the lock, waiting for a task
        worker.kill()
        worker.join()
    pools.end_pool(pool, done=True)
    assert all(w.exitcode is not None for w in pool._pool)
    held = [pool]
    del pool

    def drop() -> None:  # the last reference: the pool is collected in this thread
        held.clear()
        gc.collect()

    collected = threading.Thread(target=drop, daemon=True)
    collected.start()
    collected.join(10)
    assert not collected.is_alive(), "collecting the ended pool waits on its lock for ever"
