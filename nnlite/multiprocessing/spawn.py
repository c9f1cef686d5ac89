"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes and report the first
failure in the parent, as ``torch.multiprocessing.spawn``."""

import multiprocessing
import multiprocessing.connection
import sys
import traceback

from .._runtime.processes import signal_name, stop_processes


class ProcessException(Exception):
    """A process started by ``spawn`` failed."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process started by ``spawn`` raised an exception (its traceback is in the message).

    Args:
        msg (str): the message, with the process's traceback.
        error_index (int): the failed process's rank.
        error_pid (int): its pid.

    Examples:
        >>> def fail(rank):
        ...     raise ValueError("bad input")
        >>> start_processes(fail, nprocs=1, start_method="fork")
        Traceback (most recent call last):
            ...
        nnlite.multiprocessing.spawn.ProcessRaisedException: ...
    """


class ProcessExitedException(ProcessException):
    """A process started by ``spawn`` exited with a non-zero code or was killed by a signal.

    Args:
        msg (str): the message.
        error_index (int): the process's rank.
        error_pid (int): its pid.
        exit_code (int): its exit code.
        signal_name (str, optional): the signal that killed it.

    Examples:
        >>> import os
        >>> def crash(rank):
        ...     os._exit(3)
        >>> start_processes(crash, nprocs=1, start_method="fork")
        Traceback (most recent call last):
            ...
        nnlite.multiprocessing.spawn.ProcessExitedException: process 0 terminated with exit code 3
    """

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent handles Ctrl-C
    except Exception:  # noqa: BLE001  (reported to the parent, which raises it)
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes`` started; ``join()`` waits for them.

    Args:
        processes (list of multiprocessing.Process): the started processes.
        error_queues (list): one queue per process, carrying its error.

    Examples:
        >>> from nnlite.multiprocessing.spawn import start_processes
        >>> def work(rank):
        ...     pass
        >>> context = start_processes(work, nprocs=2, join=False, start_method="fork")
        >>> len(context.pids())
        2
        >>> while not context.join():  # True once every process has ended
        ...     pass
    """

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The process ids, in rank order.

        Returns:
            list of int: the pids.

        Examples:
            >>> from nnlite.multiprocessing.spawn import start_processes
            >>> def work(rank):
            ...     pass
            >>> context = start_processes(work, nprocs=2, join=False, start_method="fork")
            >>> len(context.pids())
            2
            >>> while not context.join():  # True once every process has ended
            ...     pass
        """
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Wait up to ``timeout`` seconds (``None``: for ever) for the processes.

        Returns True once all have ended successfully, False if some are still running. When one
        fails, the others are stopped and its error is raised: ``ProcessRaisedException`` with
        its traceback, or ``ProcessExitedException`` with its exit code or signal.

        Args:
            timeout (float, optional): seconds to wait; None waits until they end.

        Returns:
            bool: True when all ended successfully, False if some still run.

        Examples:
            >>> from nnlite.multiprocessing.spawn import start_processes
            >>> def work(rank):
            ...     pass
            >>> context = start_processes(work, nprocs=2, join=False, start_method="fork")
            >>> while not context.join(timeout=30):  # False while some still run
            ...     pass
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        stop_processes([p for p in self.processes if p.is_alive()], 0.0)
        failed = self.processes[error_index]
        queue = self.error_queues[error_index]
        if queue.empty():
            code = failed.exitcode
            if code < 0:
                name = signal_name(code)
                raise ProcessExitedException(
                    f"process {error_index} terminated with signal {name}",
                    error_index,
                    failed.pid,
                    code,
                    name,
                )
            raise ProcessExitedException(
                f"process {error_index} terminated with exit code {code}",
                error_index,
                failed.pid,
                code,
            )
        trace = queue.get()
        msg = f"\n\n-- Process {error_index} terminated with the following error:\n{trace}"
        raise ProcessRaisedException(msg, error_index, failed.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``i`` in ``0..nprocs-1``.

    Args:
        fn: a function importable by name (``spawn`` pickles it).
        args (tuple): further arguments of ``fn``.
        nprocs (int): the number of processes.
        join (bool): wait for them (default) or return their ``ProcessContext``.
        daemon (bool): start them as daemon processes.
        start_method (str): ``"spawn"``, ``"fork"`` or ``"forkserver"``.

    Returns:
        ``None`` when ``join`` is true, else the ``ProcessContext``.

    Examples:
        >>> model = nn.Linear(4, 1).share_memory()
        >>> def train(rank, model):
        ...     with nl.no_grad():
        ...         model.bias.fill_(rank + 1.0)
        >>> start_processes(train, args=(model,), nprocs=1, start_method="fork")
        >>> model.bias
        Parameter containing:
        tensor([1.], requires_grad=True)
    """
    ctx = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for i in range(nprocs):
        error_queue = ctx.SimpleQueue()
        process = ctx.Process(target=_wrap, args=(fn, i, args, error_queue), daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the "spawn" start method by default, as ``torch.multiprocessing.spawn``.

    Args:
        fn (callable): ``fn(rank, *args)``, importable (the processes are spawned).
        args (tuple): the further arguments.
        nprocs (int): the number of processes. Default: 1.
        join (bool): wait for them. Default: True.
        daemon (bool): start them as daemons. Default: False.
        start_method (str): Default: ``"spawn"``.

    Returns:
        ``None`` when ``join`` is true, else the ``ProcessContext``.

    Examples:
        >>> import math
        >>> spawn(math.sqrt, nprocs=2)  # runs math.sqrt(0) and math.sqrt(1) in two new processes
    """
    return start_processes(fn, args, nprocs, join, daemon, start_method)
