"""The runtime toolkit under everything else: thread pools, worker processes and shared memory.

* ``threads``: ``nl.set_num_threads``/``get_num_threads``, numba's threading layer, thread limits
  for worker processes;
* ``threads_matmul``: big matrix products split into blocks over nnlite's threads;
* ``errors``: an exception raised in a worker, carried to the parent with its traceback;
* ``processes``: stopping worker processes (join, terminate, kill) and describing how one ended;
* ``worker_channel``: the one transport between a parent and its workers (the DataLoader's,
  DataParallel's): a pipe pair per worker, whole messages, one wait with a deadline;
* ``watchdog``: a worker noticing that its parent is gone;
* ``seeding``: seeding a worker's random generators;
* ``nested``: walking nested tuples, lists and dicts of tensors or arrays;
* ``shared_memory``: arrays in memory that child processes share (``Tensor.share_memory_``,
  DataParallel's segments).
* ``atomic_file``: replacing a file atomically (temporary file, fsync, rename), for every file
  nnlite writes over.

Nothing here imports from the rest of nnlite at import time.
"""
