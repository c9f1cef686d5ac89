"""MPI plumbing for ``nnlite.distributed``, ``DistributedDataParallel`` and ``SyncBatchNorm``: the lazy mpi4py import, the
abort-on-exception hook, collectives that give up after a timeout, and pickle-free collectives on
numbers, arrays, Tensors and strings.

Nothing here imports mpi4py at import time: ``import nnlite`` never loads MPI, and importing this
module works on machines without MPI. mpi4py is loaded on the first call that needs it.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
import time
import traceback
from collections.abc import Callable
from datetime import timedelta
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

import numpy as np

from ..autograd.tensor import Tensor

if TYPE_CHECKING:
    from mpi4py.MPI import Comm, Op, Request, Status

    from .._typing import Array

INSTALL_HINT = (
    "install an MPI library from your system's packages (Debian/Ubuntu: "
    "`apt-get install openmpi-bin libopenmpi-dev`) and then mpi4py with `pip install 'nnlite[mpi]'`, "
    "and launch the script with `mpirun -n N python script.py`"
)


def import_mpi(what: str = "DistributedDataParallel") -> ModuleType:
    """Return ``mpi4py.MPI`` (which initializes MPI), or raise an ImportError that says what to install."""
    try:
        from mpi4py import MPI
    except (ImportError, RuntimeError, OSError) as ex:
        raise ImportError(
            f"{what} needs mpi4py and an MPI library, which could not be loaded ({ex}): "
            f"{INSTALL_HINT}.",
            name="mpi4py",
        ) from ex
    mpi: ModuleType = MPI  # typed without mpi4py installed too
    return mpi


# ---------------------------------------------------------------------------------------------
# A failing rank must end the whole job.
#
# Without this, a rank that raises would run MPI_Finalize at interpreter exit and wait there for
# the other ranks, which wait for it inside a collective: the job hangs. MPI_Abort ends every
# process of the job, and mpirun exits with a non-zero status.

_ExceptHook: TypeAlias = "Callable[[type[BaseException], BaseException, TracebackType | None], Any]"


class _HookState(TypedDict):
    installed: bool
    pid: int | None  # the process that installed the hook (forked children inherit it)
    previous: _ExceptHook | None  # the hook to chain to (None: sys.__excepthook__)


_hook_state: _HookState = {"installed": False, "pid": None, "previous": None}


def _abort_hook(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    previous = _hook_state["previous"] or sys.__excepthook__
    if os.getpid() != _hook_state["pid"]:
        # a forked child (a DataLoader worker) is not an MPI process: it must not call MPI_Abort
        previous(exc_type, exc, tb)
        return
    try:
        from mpi4py import MPI

        rank = MPI.COMM_WORLD.Get_rank()
        usable = MPI.Is_initialized() and not MPI.Is_finalized()
    except Exception:  # noqa: BLE001  (MPI unusable: fall back to the ordinary report)
        previous(exc_type, exc, tb)
        return
    try:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(f"[rank {rank}] uncaught exception; aborting the MPI job:\n{text}")
        sys.stderr.flush()
        sys.stdout.flush()
    except Exception:  # noqa: BLE001  (a broken stream must not prevent the abort)
        pass
    if usable:
        MPI.COMM_WORLD.Abort(1)
    previous(exc_type, exc, tb)


def abort_on_exception() -> None:
    """Make an uncaught exception on any rank end the whole MPI job instead of hanging it.

    Installs a ``sys.excepthook`` that prints the traceback (prefixed with the rank) to stderr and
    then calls ``MPI.COMM_WORLD.Abort(1)``, so ``mpirun`` kills the other ranks and exits with a
    non-zero status. Calling it again does nothing. ``DistributedDataParallel`` calls it when it is
    constructed; call it yourself earlier (e.g. before loading data) to cover that code too.
    Processes forked from a rank (DataLoader workers) keep the ordinary behaviour.

    Only uncaught exceptions are covered: a rank that calls ``sys.exit(code)`` while the others
    wait in a collective still hangs the job; raise an exception instead.

    Examples:
        >>> abort_on_exception()  # first thing in a script started by mpirun  # doctest: +SKIP
    """
    import_mpi("abort_on_exception")
    if _hook_state["installed"] and sys.excepthook is _abort_hook:
        return
    _hook_state["previous"] = sys.excepthook if sys.excepthook is not _abort_hook else None
    _hook_state["pid"] = os.getpid()
    _hook_state["installed"] = True
    sys.excepthook = _abort_hook


# ---------------------------------------------------------------------------------------------
# Collectives with a timeout.
#
# MPI's blocking collectives wait forever for a rank that never arrives. Every collective here is
# started non-blocking and waited for by polling, so a rank that stopped or hangs makes the others
# raise after the timeout; the uncaught error then aborts the whole job (abort_on_exception).

DEFAULT_TIMEOUT = timedelta(minutes=30)  # PyTorch's process groups wait this long by default

# polling a pending request: spin this long first (a partner that is about to arrive), then sleep
# between tests, doubling the pause up to the cap (a waiting rank leaves the cores to the others)
_SPIN_SECONDS = 0.02
_MAX_PAUSE_SECONDS = 5e-4


class DistBackendError(RuntimeError):
    """A collective failed or timed out (the name of PyTorch's error for the same case).

    Examples:
        >>> issubclass(DistBackendError, RuntimeError)
        True
    """


def timeout_seconds(timeout: timedelta | float | None) -> float:
    """``None`` (30 minutes), a ``datetime.timedelta`` or a number of seconds -> positive float seconds."""
    if timeout is None:
        return DEFAULT_TIMEOUT.total_seconds()
    if isinstance(timeout, timedelta):
        seconds = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        seconds = float(timeout)
    else:
        raise TypeError(
            f"timeout must be a datetime.timedelta or a number of seconds, got {type(timeout).__name__}"
        )
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"timeout must be a positive, finite duration, got {timeout!r}")
    return seconds


def _format_seconds(seconds: float) -> str:
    return f"{seconds:.1f}" if seconds >= 1 else f"{seconds:g}"


class Group:
    """An mpi4py communicator whose collectives raise ``DistBackendError`` after ``timeout``.

    Every rank of ``comm`` must make the same collective calls in the same order. ``what`` names
    the operation in the timeout message (e.g. ``"allreduce of gradient bucket 2"``).
    """

    def __init__(
        self, MPI: ModuleType, comm: Comm, timeout: timedelta | float | None = None
    ) -> None:
        self.MPI = MPI
        self.comm = comm
        self.timeout = timeout_seconds(timeout)
        self.rank: int = comm.Get_rank()
        self.size: int = comm.Get_size()

    def wait(self, request: Request, what: str, status: Status | None = None) -> None:
        """Wait for ``request``; raise ``DistBackendError`` naming ``what`` once the timeout has
        passed. ``status`` (an ``MPI.Status``) receives the completed request's status."""
        test: Callable[[], bool] = (
            request.Test if status is None else (lambda: request.Test(status))
        )
        if test():
            return
        start = time.monotonic()
        deadline = start + self.timeout
        pause = 1e-5
        while not test():
            now = time.monotonic()
            if now > deadline:
                raise DistBackendError(
                    f"[rank {self.rank}] {what} timed out after {_format_seconds(self.timeout)} s: another rank "
                    f"never joined it (it stopped, hangs or is far behind); the MPI job cannot continue"
                )
            if now - start > _SPIN_SECONDS:
                time.sleep(pause)
                pause = min(pause * 2, _MAX_PAUSE_SECONDS)

    def start_allreduce(self, buf: Array) -> Request:
        """Start an in-place sum of ``buf`` over the ranks; returns the request (see :meth:`wait`)."""
        return self.comm.Iallreduce(self.MPI.IN_PLACE, buf, op=self.MPI.SUM)

    def allreduce(self, buf: Array, what: str, op: Op | None = None) -> None:
        """Reduce ``buf`` in place over the ranks (``MPI.SUM`` unless ``op``)."""
        self.wait(
            self.comm.Iallreduce(self.MPI.IN_PLACE, buf, op=self.MPI.SUM if op is None else op),
            what,
        )

    def allreduce_into(self, send: Array, recv: Array, what: str, op: Op | None = None) -> None:
        self.wait(self.comm.Iallreduce(send, recv, op=self.MPI.SUM if op is None else op), what)

    def bcast(self, buf: Array, what: str, root: int = 0) -> None:
        self.wait(self.comm.Ibcast(buf, root=root), what)

    def allgather(self, send: Array, recv: Array, what: str) -> None:
        self.wait(self.comm.Iallgather(send, recv), what)

    def barrier(self, what: str = "barrier") -> None:
        self.wait(self.comm.Ibarrier(), what)


# ---------------------------------------------------------------------------------------------
# Collectives on plain values (no pickle: numbers, arrays and Tensors go as typed buffers).

_OPS = ("sum", "mean", "max", "min", "prod")


def resolve_op(MPI: ModuleType, op: str | Op) -> tuple[Op, bool]:
    """``"sum"``/``"mean"``/``"max"``/``"min"``/``"prod"`` or an ``MPI.Op`` -> (MPI.Op, is_mean)."""
    if isinstance(op, MPI.Op):
        return op, False
    if not isinstance(op, str) or op.lower() not in _OPS:
        raise ValueError(
            f"allreduce: op must be one of {', '.join(repr(o) for o in _OPS)} or an MPI.Op, "
            f"got {op!r}"
        )
    op = op.lower()
    table = {"sum": MPI.SUM, "mean": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
    return table[op], op == "mean"


def allreduce_value(group: Group, value: Any, op: str | Op = "sum") -> Any:
    """Reduce ``value`` over all ranks of ``comm`` and return the result on every rank.

    Python floats reduce in float64 and come back as ``float``; ints and bools as ``int`` (``mean``
    of ints gives a ``float``); numpy arrays and scalars keep their dtype (``mean`` of an integer
    array gives float64); Tensors come back as new Tensors; lists and tuples of numbers come back
    as lists.
    """
    mpi_op, mean = resolve_op(group.MPI, op)
    size = group.size
    kind = "array"
    if isinstance(value, Tensor):
        kind, array = "tensor", value._data
    elif isinstance(value, np.ndarray):
        array = value
    elif isinstance(value, (bool, np.bool_)):
        kind, array = "int", np.asarray(int(value), dtype=np.int64)
    elif isinstance(value, np.generic):
        kind, array = "scalar", np.asarray(value)
    elif isinstance(value, int):
        kind, array = "int", np.asarray(value, dtype=np.int64)
    elif isinstance(value, float):
        kind, array = "float", np.asarray(value, dtype=np.float64)
    elif isinstance(value, (list, tuple)):
        kind, array = "list", np.asarray(value)
        if array.dtype.kind == "b":
            array = array.astype(np.int64)
        if array.dtype.kind not in "iuf":
            raise TypeError(f"allreduce: a list must hold numbers, got dtype {array.dtype}")
    else:
        raise TypeError(
            f"allreduce: expected a number, numpy array, Tensor or list of numbers, "
            f"got {type(value).__name__}"
        )
    if array.dtype.kind == "b":
        array = array.astype(np.int64)
    send = np.ascontiguousarray(array).reshape(-1)
    result = np.empty_like(send)
    group.allreduce_into(send, result, "allreduce", op=mpi_op)
    result = result.reshape(array.shape)
    if mean:
        result = result / size if result.dtype.kind == "f" else result.astype(np.float64) / size
    if kind == "tensor":
        return Tensor(result)
    if kind == "float":
        return float(result)
    if kind == "int":
        return float(result) if mean else int(result)
    if kind == "scalar":
        return result[()]
    if kind == "list":
        return result.tolist()
    return result


def broadcast_value(group: Group, value: Any, root: int = 0) -> Any:
    """Return rank ``root``'s ``value`` on every rank (no pickle).

    Supported: ``str``, ``bytes``, ``int``, ``float``, ``bool``, ``None``, numpy arrays and
    Tensors (copied in place into the Tensor/array given on the other ranks when its shape and
    dtype match, else returned as new objects). Every rank must pass a value of the same kind;
    only the root's content matters.
    """
    rank = group.rank
    codes = {type(None): 0, bool: 1, int: 2, float: 3, str: 4, bytes: 5, np.ndarray: 6, Tensor: 7}
    if isinstance(value, Tensor):
        code, array = 7, value._data
    elif isinstance(value, np.ndarray):
        code, array = 6, value
    else:
        code = codes.get(type(value))
        if code is None:
            raise TypeError(f"broadcast: unsupported type {type(value).__name__}")
        array = None
    if array is not None and array.dtype.hasobject:
        raise TypeError("broadcast: arrays of Python objects are not supported")
    header = np.zeros(4, dtype=np.int64)
    if rank == root:
        if code in (6, 7):
            assert array is not None  # codes 6 and 7 are the array kinds
            dtype_code = np.frombuffer(array.dtype.str.encode().ljust(8, b" ")[:8], dtype=np.int64)[
                0
            ]
            header[:] = (code, array.size, array.ndim, dtype_code)
        elif code in (4, 5):
            data = value.encode("utf-8") if code == 4 else value
            header[:2] = (code, len(data))
        else:
            header[0] = code
    group.bcast(header, "broadcast", root=root)
    root_code = int(header[0])
    if root_code != code:
        raise TypeError(
            f"broadcast: rank {rank} passed a {type(value).__name__} but the root passed a "
            f"different kind of value"
        )
    if code == 0:
        return None
    if code in (1, 2, 3):
        dtype = {1: np.bool_, 2: np.int64, 3: np.float64}[code]
        buf: Array = np.asarray(value if rank == root else 0, dtype=dtype).reshape(1)
        buf = np.ascontiguousarray(buf)
        group.bcast(buf, "broadcast", root=root)
        return {1: bool, 2: int, 3: float}[code](buf[0])
    if code in (4, 5):
        n = int(header[1])
        if rank == root:
            data = value.encode("utf-8") if code == 4 else value
            buf = np.frombuffer(data, dtype=np.uint8).copy()
        else:
            buf = np.empty(n, dtype=np.uint8)
        group.bcast(buf, "broadcast", root=root)
        raw = buf.tobytes()
        return raw.decode("utf-8") if code == 4 else raw
    # arrays and tensors: shape, then data
    assert array is not None  # every other code returned above
    ndim = int(header[2])
    dtype = np.dtype(header[3:4].tobytes().decode().strip())
    shape = np.asarray(array.shape if rank == root else [0] * ndim, dtype=np.int64).reshape(ndim)
    shape = np.ascontiguousarray(shape)
    if ndim:
        group.bcast(shape, "broadcast", root=root)
    shape = tuple(int(s) for s in shape)
    if rank == root:
        buf = np.ascontiguousarray(array)
        group.bcast(buf, "broadcast", root=root)
        return value
    if array.shape == shape and array.dtype == dtype:
        buf = np.empty(shape, dtype=dtype)
        group.bcast(buf, "broadcast", root=root)
        np.copyto(array, buf)
        return value
    buf = np.empty(shape, dtype=dtype)
    group.bcast(buf, "broadcast", root=root)
    return Tensor(buf) if code == 7 else buf


def check_same_on_all_ranks(group: Group, description: str, what: str) -> None:
    """Raise RuntimeError on every rank if ``description`` (a str) differs between the ranks.

    Only a 20-byte digest travels (one Allgather), so ranks with different models cannot start
    collectives of different sizes (which corrupts memory or hangs instead of failing).
    """
    digest = np.frombuffer(
        hashlib.sha1(description.encode("utf-8")).digest(), dtype=np.uint8
    ).copy()
    size = group.size
    gathered = np.empty((size, digest.size), dtype=np.uint8)
    group.allgather(digest, gathered, f"check that the {what} match on every rank")
    differ = [r for r in range(size) if not np.array_equal(gathered[r], gathered[0])]
    if differ:
        raise RuntimeError(
            f"DistributedDataParallel: the {what} differ between ranks (rank(s) "
            f"{', '.join(map(str, differ))} differ from rank 0); every rank must build the same "
            f"model and freeze the same parameters"
        )
