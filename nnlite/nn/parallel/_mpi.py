"""MPI plumbing for ``DistributedDataParallel``: the lazy mpi4py import, the abort-on-exception
hook, and pickle-free collectives on numbers, arrays, Tensors and strings.

Nothing here imports mpi4py at import time: ``import nnlite`` never loads MPI, and importing this
module works on machines without MPI. mpi4py is loaded on the first call that needs it.
"""
import hashlib
import os
import sys
import traceback

import numpy as np

from ...autograd.tensor import Tensor

INSTALL_HINT = (
    "install an MPI library from your system's packages (Debian/Ubuntu: "
    "`apt-get install openmpi-bin libopenmpi-dev`) and then mpi4py with `pip install 'nnlite[mpi]'`, "
    "and launch the script with `mpirun -n N python script.py`")


def import_mpi(what="DistributedDataParallel"):
    """Return ``mpi4py.MPI`` (which initializes MPI), or raise an ImportError that says what to install."""
    try:
        from mpi4py import MPI
    except (ImportError, RuntimeError, OSError) as ex:
        raise ImportError(f"{what} needs mpi4py and an MPI library, which could not be loaded ({ex}): "
                          f"{INSTALL_HINT}.", name="mpi4py") from ex
    return MPI


# ---------------------------------------------------------------------------------------------
# A failing rank must end the whole job.
#
# Without this, a rank that raises would run MPI_Finalize at interpreter exit and wait there for
# the other ranks, which wait for it inside a collective: the job hangs. MPI_Abort ends every
# process of the job, and mpirun exits with a non-zero status.

_hook_state = {"installed": False, "pid": None, "previous": None}


def _abort_hook(exc_type, exc, tb):
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


def abort_on_exception():
    """Make an uncaught exception on any rank end the whole MPI job instead of hanging it.

    Installs a ``sys.excepthook`` that prints the traceback (prefixed with the rank) to stderr and
    then calls ``MPI.COMM_WORLD.Abort(1)``, so ``mpirun`` kills the other ranks and exits with a
    non-zero status. Calling it again does nothing. ``DistributedDataParallel`` calls it when it is
    constructed; call it yourself earlier (e.g. before loading data) to cover that code too.
    Processes forked from a rank (DataLoader workers) keep the ordinary behaviour.

    Only uncaught exceptions are covered: a rank that calls ``sys.exit(code)`` while the others
    wait in a collective still hangs the job; raise an exception instead.
    """
    import_mpi("abort_on_exception")
    if _hook_state["installed"] and sys.excepthook is _abort_hook:
        return
    _hook_state["previous"] = sys.excepthook if sys.excepthook is not _abort_hook else None
    _hook_state["pid"] = os.getpid()
    _hook_state["installed"] = True
    sys.excepthook = _abort_hook


# ---------------------------------------------------------------------------------------------
# Collectives on plain values (no pickle: numbers, arrays and Tensors go as typed buffers).

_OPS = ("sum", "mean", "max", "min", "prod")


def resolve_op(MPI, op):
    """``"sum"``/``"mean"``/``"max"``/``"min"``/``"prod"`` or an ``MPI.Op`` -> (MPI.Op, is_mean)."""
    if isinstance(op, MPI.Op):
        return op, False
    if not isinstance(op, str) or op.lower() not in _OPS:
        raise ValueError(f"allreduce: op must be one of {', '.join(repr(o) for o in _OPS)} or an MPI.Op, "
                         f"got {op!r}")
    op = op.lower()
    table = {"sum": MPI.SUM, "mean": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
    return table[op], op == "mean"


def allreduce_value(MPI, comm, value, op="sum"):
    """Reduce ``value`` over all ranks of ``comm`` and return the result on every rank.

    Python floats reduce in float64 and come back as ``float``; ints and bools as ``int`` (``mean``
    of ints gives a ``float``); numpy arrays and scalars keep their dtype (``mean`` of an integer
    array gives float64); Tensors come back as new Tensors; lists and tuples of numbers come back
    as lists.
    """
    mpi_op, mean = resolve_op(MPI, op)
    size = comm.Get_size()
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
        raise TypeError(f"allreduce: expected a number, numpy array, Tensor or list of numbers, "
                        f"got {type(value).__name__}")
    if array.dtype.kind == "b":
        array = array.astype(np.int64)
    send = np.ascontiguousarray(array).reshape(-1)
    result = np.empty_like(send)
    comm.Allreduce(send, result, op=mpi_op)
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


def broadcast_value(MPI, comm, value, root=0):
    """Return rank ``root``'s ``value`` on every rank (no pickle).

    Supported: ``str``, ``bytes``, ``int``, ``float``, ``bool``, ``None``, numpy arrays and
    Tensors (copied in place into the Tensor/array given on the other ranks when its shape and
    dtype match, else returned as new objects). Every rank must pass a value of the same kind;
    only the root's content matters.
    """
    rank = comm.Get_rank()
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
            dtype_code = np.frombuffer(array.dtype.str.encode().ljust(8, b" ")[:8], dtype=np.int64)[0]
            header[:] = (code, array.size, array.ndim, dtype_code)
        elif code in (4, 5):
            data = value.encode("utf-8") if code == 4 else value
            header[:2] = (code, len(data))
        else:
            header[0] = code
    comm.Bcast(header, root=root)
    root_code = int(header[0])
    if root_code != code:
        raise TypeError(f"broadcast: rank {rank} passed a {type(value).__name__} but the root passed a "
                        f"different kind of value")
    if code == 0:
        return None
    if code in (1, 2, 3):
        dtype = {1: np.bool_, 2: np.int64, 3: np.float64}[code]
        buf = np.asarray(value if rank == root else 0, dtype=dtype).reshape(1)
        buf = np.ascontiguousarray(buf)
        comm.Bcast(buf, root=root)
        return {1: bool, 2: int, 3: float}[code](buf[0])
    if code in (4, 5):
        n = int(header[1])
        if rank == root:
            data = value.encode("utf-8") if code == 4 else value
            buf = np.frombuffer(data, dtype=np.uint8).copy()
        else:
            buf = np.empty(n, dtype=np.uint8)
        comm.Bcast(buf, root=root)
        raw = buf.tobytes()
        return raw.decode("utf-8") if code == 4 else raw
    # arrays and tensors: shape, then data
    ndim = int(header[2])
    dtype = np.dtype(header[3:4].tobytes().decode().strip())
    shape = np.asarray(array.shape if rank == root else [0] * ndim, dtype=np.int64).reshape(ndim)
    shape = np.ascontiguousarray(shape)
    if ndim:
        comm.Bcast(shape, root=root)
    shape = tuple(int(s) for s in shape)
    if rank == root:
        buf = np.ascontiguousarray(array)
        comm.Bcast(buf, root=root)
        return value
    if array.shape == shape and array.dtype == dtype:
        buf = np.empty(shape, dtype=dtype)
        comm.Bcast(buf, root=root)
        np.copyto(array, buf)
        return value
    buf = np.empty(shape, dtype=dtype)
    comm.Bcast(buf, root=root)
    return Tensor(buf) if code == 7 else buf


def check_same_on_all_ranks(MPI, comm, description, what):
    """Raise RuntimeError on every rank if ``description`` (a str) differs between the ranks.

    Only a 20-byte digest travels (one Allgather), so ranks with different models cannot start
    collectives of different sizes (which corrupts memory or hangs instead of failing).
    """
    digest = np.frombuffer(hashlib.sha1(description.encode("utf-8")).digest(), dtype=np.uint8).copy()
    size = comm.Get_size()
    gathered = np.empty((size, digest.size), dtype=np.uint8)
    comm.Allgather(digest, gathered)
    differ = [r for r in range(size) if not np.array_equal(gathered[r], gathered[0])]
    if differ:
        raise RuntimeError(f"DistributedDataParallel: the {what} differ between ranks (rank(s) "
                           f"{', '.join(map(str, differ))} differ from rank 0); every rank must build the same "
                           f"model and freeze the same parameters")
