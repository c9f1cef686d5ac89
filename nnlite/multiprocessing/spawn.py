"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes and report the first
failure in the parent, as ``torch.multiprocessing.spawn``.

With the "spawn" start method, and when mpi4py and ``mpirun`` are installed, the processes are
started as one MPI job (``mpirun -n nprocs``), so that ``nnlite.distributed.init_process_group``
inside ``fn`` finds them as its ranks: process ``i`` is MPI rank ``i``. ``fn`` and ``args`` reach
them as multiprocessing's spawned children get them (pickled; shared-memory tensors as handles to
the same memory; ``fn`` importable by name, the main script re-imported as ``__mp_main__``).
Without MPI, or with "fork"/"forkserver", they are plain ``multiprocessing`` processes.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import multiprocessing.connection
import multiprocessing.spawn
import os
import pickle
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.reduction import ForkingPickler
from typing import TYPE_CHECKING, Literal

from .._runtime.processes import signal_name, stop_processes

#: the start methods of ``multiprocessing``
StartMethod = Literal["spawn", "fork", "forkserver"]

if TYPE_CHECKING:
    import subprocess
    from multiprocessing.process import BaseProcess
    from multiprocessing.queues import SimpleQueue


class ProcessException(Exception):
    """A process started by ``spawn`` failed."""

    def __init__(self, msg: str, error_index: int, error_pid: int | None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = error_pid

    def __reduce__(self) -> tuple[type[ProcessException], tuple[object, ...]]:
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

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int | None,
        exit_code: int,
        signal_name: str | None = None,
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> tuple[type[ProcessException], tuple[object, ...]]:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(
    fn: Callable[..., object], i: int, args: Sequence[object], error_queue: SimpleQueue[str]
) -> None:
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

    def __init__(self, processes: list[BaseProcess], error_queues: list[SimpleQueue[str]]) -> None:
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels: dict[int, int] = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list[int | None]:
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

    def join(self, timeout: float | None = None) -> bool:
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
        # the sentinels given are ints, and ``wait`` gives back those that are ready
        for sentinel in (s for s in ready if isinstance(s, int)):
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
            assert code is not None  # the process was joined above
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


class MPIProcessContext(ProcessContext):
    """The ranks of an MPI job that ``start_processes`` started through ``mpirun``.

    Each rank records in a private folder that it started (its pid), and then that it finished or
    the traceback of its error; ``join()`` waits for ``mpirun`` and raises the first rank's error
    as ``ProcessRaisedException``. A rank that raises ends the job (MPI_Abort), so the others
    cannot wait for it for ever.

    Args:
        process (subprocess.Popen): the running ``mpirun``.
        folder (str): the folder the ranks report in.
        nprocs (int): the number of ranks.
    """

    # after the first error, how long mpirun may take to end the other ranks
    _ERROR_GRACE_SECONDS = 5.0

    def __init__(self, process: subprocess.Popen[bytes], folder: str, nprocs: int) -> None:
        self.process = process
        self.folder = folder
        self.nprocs = nprocs
        self.processes = []
        self.error_queues = []
        self.sentinels = {}
        self._first_error_seen: float | None = None
        self._final_pids: list[int | None] | None = (
            None  # kept when the job ends and its folder is removed
        )

    def _reports(self, kind: str) -> dict[int, str]:
        found = {}
        for name in os.listdir(self.folder):
            if name.startswith(kind + "-") and not name.endswith(".tmp"):
                path = os.path.join(self.folder, name)
                found[int(name.split("-", 1)[1])] = path
        return found

    def _read(self, path: str) -> str:
        with open(path, encoding="utf-8") as f:
            return f.read()

    def pids(self) -> list[int | None]:
        """The pids of the ranks that have started so far, in rank order.

        Returns:
            list of int: the pids.

        Examples:
            >>> context = spawn(train, nprocs=2, join=False)  # doctest: +SKIP
            >>> while not context.join():  # doctest: +SKIP
            ...     pass
            >>> len(context.pids())  # doctest: +SKIP
            2
        """
        if self._final_pids is not None:
            return list(self._final_pids)
        started = self._reports("started")
        return [int(self._read(started[r])) for r in sorted(started)]

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (``None``: until the job ends) and raise the first failure.

        Args:
            timeout (float, optional): seconds to wait; None waits until the job ends.

        Returns:
            bool: True once every rank ended successfully, False while the job runs.

        Examples:
            >>> context = spawn(train, nprocs=2, join=False)  # doctest: +SKIP
            >>> while not context.join(timeout=30):  # doctest: +SKIP
            ...     pass
        """
        from ..distributed import _mpirun

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.process.poll() is None:
            if self._reports("error"):
                now = time.monotonic()
                self._first_error_seen = self._first_error_seen or now
                if now - self._first_error_seen > self._ERROR_GRACE_SECONDS:
                    _mpirun.stop(self.process)
                    break
            if deadline is not None and time.monotonic() >= deadline:
                return False
            try:
                self.process.wait(0.05)
            except Exception:  # noqa: BLE001  (subprocess.TimeoutExpired: poll again)
                pass
        try:
            self._raise_failure()
        finally:
            self._final_pids = self.pids()
            shutil.rmtree(self.folder, ignore_errors=True)
        return True

    def _raise_failure(self) -> None:
        errors = self._reports("error")
        if errors:
            # the first rank to fail: the oldest error report
            index = min(errors, key=lambda r: os.stat(errors[r]).st_mtime_ns)
            started = self._reports("started")
            pid = int(self._read(started[index])) if index in started else None
            msg = f"\n\n-- Process {index} terminated with the following error:\n{self._read(errors[index])}"
            raise ProcessRaisedException(msg, index, pid)
        code = self.process.returncode
        if code == 0:
            return
        done, started = self._reports("done"), self._reports("started")
        missing = [r for r in range(self.nprocs) if r not in done]
        index = missing[0] if missing else 0
        pid = int(self._read(started[index])) if index in started else None
        if code < 0:
            name = signal_name(code)
            raise ProcessExitedException(
                f"process {index} terminated with signal {name}", index, pid, code, name
            )
        raise ProcessExitedException(
            f"process {index} terminated with exit code {code}", index, pid, code
        )


def _can_start_mpi_job() -> bool:
    """mpi4py and mpirun are there, and this process is not itself an MPI rank (mpirun inside an
    MPI job is not supported by Open MPI)."""
    from ..distributed import _mpirun

    return (
        importlib.util.find_spec("mpi4py") is not None
        and _mpirun.find_mpirun() is not None
        and "OMPI_COMM_WORLD_SIZE" not in os.environ
        and "PMI_SIZE" not in os.environ
    )


def _start_mpi_job(
    fn: Callable[..., object], args: Sequence[object], nprocs: int
) -> MPIProcessContext:
    from ..distributed import _mpirun

    folder = tempfile.mkdtemp(prefix="nnlite-spawn-")
    try:
        # what multiprocessing's spawned children get first: sys.path, the main script, the key
        # that lets them fetch shared-memory handles from this process
        preparation = multiprocessing.spawn.get_preparation_data("SpawnProcess")
        # the key as plain bytes (the folder is readable by this user only, as mkdtemp makes it)
        preparation["authkey"] = bytes(preparation["authkey"])
        with open(os.path.join(folder, "preparation"), "wb") as f:
            pickle.dump(preparation, f, protocol=pickle.HIGHEST_PROTOCOL)
        for rank in range(nprocs):  # one pickle per rank: a shared-memory handle is fetched once
            with open(os.path.join(folder, f"call-{rank}"), "wb") as f:
                f.write(ForkingPickler.dumps((fn, tuple(args)), pickle.HIGHEST_PROTOCOL))
        argv = _mpirun.python_argv("nnlite.multiprocessing._spawned_rank", folder)
        cmd = _mpirun.mpirun_command(nprocs, argv)
        process = _mpirun.start(cmd, dict(os.environ))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return MPIProcessContext(process, folder, nprocs)


def start_processes(
    fn: Callable[..., object],
    args: Sequence[object] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: StartMethod = "spawn",
) -> ProcessContext | None:
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``i`` in ``0..nprocs-1``.

    With ``start_method="spawn"`` and MPI installed (mpi4py and ``mpirun``), they are one MPI
    job, rank ``i`` running ``fn(i, *args)``, so that ``nnlite.distributed.init_process_group``
    works inside ``fn``; ``daemon`` is then unused.

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
    if start_method == "spawn" and _can_start_mpi_job():
        context = _start_mpi_job(fn, args, nprocs)
        if not join:
            return context
        while not context.join():
            pass
        return None
    ctx = multiprocessing.get_context(start_method)
    processes: list[BaseProcess] = []
    error_queues: list[SimpleQueue[str]] = []
    for i in range(nprocs):
        error_queue = ctx.SimpleQueue()
        # typeshed types get_context(str) as BaseContext, which lacks the Process that every
        # real context has
        process = ctx.Process(  # type: ignore[attr-defined]
            target=_wrap, args=(fn, i, args, error_queue), daemon=daemon
        )
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(
    fn: Callable[..., object],
    args: Sequence[object] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: StartMethod = "spawn",
) -> ProcessContext | None:
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
