"""The write path: every output of a run is staged beside its target, then the commit
puts them in place by rename, under a lock, with a journal and the manifest.

Its promises: each output is replaced atomically (old bytes or new, never half);
nothing of the user's is lost (a path musa-port did not write, or changed since, is
never replaced or removed without ``--force``); and a run killed at any moment, SIGKILL
included, is finished or undone by the next one (``journal.py``) before it does
anything else."""
