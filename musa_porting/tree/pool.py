"""A pool of forked workers that always ends, and never makes the run wait on a worker
without bound.

``multiprocessing.Pool.terminate`` ends a pool by holding the task queue's lock and
sending each worker SIGTERM, then joining it. A worker the scheduler had not yet run
past its fork when the SIGTERM came lost it (it arrived while the child still had the
parent's Python handler, and the fork's signal reset cleared it): the worker then waited
for ever on the lock, and the run joined it for ever, seen under load in CI. So:

- a pool whose work is done is closed, not terminated: each worker reads the sentinel
  the pool sends and exits, with nothing to lose;
- workers are forked with the stop signals blocked, and unblock them only once their
  own handlers are set (``interrupts.worker_init``): a SIGTERM sent to a worker at any
  moment is either pending or acted on, never lost (for a pool ended in the middle,
  by Ctrl-C or an error);
- every wait on a worker has a bound: the pool is ended in a helper thread, and a
  worker still there after ``GRACE`` seconds is killed (SIGKILL cannot be lost or
  held), which nothing of the run needs any more, its results being in or unwanted;
  and a pool once ended is never ended again (a worker that died may have held the
  task queue's lock, which ``Pool``'s finalizer would wait on for ever).
"""

from __future__ import annotations

import os
import threading

from ..interrupts import prepare_death_signal, stop_signals_held, worker_init
from ..write.faults import prepare as prepare_faults

# How long an ending pool's workers have to exit before they are killed: an idle
# worker reads its sentinel in microseconds; the rest is for a loaded machine (and an
# idle worker killed loses nothing).
GRACE = 2.0


def forked_pool(processes: int):
    """A fork-context ``multiprocessing.Pool`` of ``processes`` workers; end it with
    ``end_pool``."""
    import multiprocessing

    prepare_death_signal()
    prepare_faults()  # one count of the fault points for the workers too (the tests')
    pool = None
    try:
        with stop_signals_held():  # a signal held meanwhile is raised as the block ends
            pool = multiprocessing.get_context("fork").Pool(processes, worker_init, (os.getpid(),))
    except BaseException:
        if pool is not None:
            end_pool(pool, False)
        raise
    return pool


def end_pool(pool, done: bool) -> None:
    """End ``pool``: ``done`` (every result is in), closed, each worker exiting on its
    sentinel; else terminated. Either way the wait is bounded (see the module)."""
    ender = threading.Thread(target=_close_and_join if done else pool.terminate,
                             args=(pool,) if done else (), daemon=True,
                             name="musa-port-pool-end")
    ender.start()
    ender.join(GRACE)
    if ender.is_alive():
        for worker in list(pool._pool):  # the pool's processes (it has no public list)
            if worker.exitcode is None:
                try:
                    worker.kill()
                except OSError:
                    pass  # gone meanwhile
        ender.join(GRACE)  # the workers are dead: what is left of the pool ends now
    # The pool is ended: its finalizer (run when it is collected, or at exit) must not
    # end it again. It would take the task queue's lock, which a worker that died while
    # waiting for a task (killed above, or by the OOM killer) holds for good.
    pool._terminate.cancel()


def _close_and_join(pool) -> None:
    pool.close()
    pool.join()
