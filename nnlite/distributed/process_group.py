"""Process groups on MPI: ``init_process_group`` and the questions about ranks and groups.

The processes of one MPI job (started by ``python -m nnlite.distributed.run``,
``nnlite.multiprocessing.spawn`` or ``mpirun``) are the ranks; ``init_process_group`` makes
``MPI.COMM_WORLD`` the default group after checking that what the script says about its rank and
world size matches the job. ``new_group`` splits it. MPI did the rendezvous when it started the
job, so ``init_method``, ``MASTER_ADDR`` and ``MASTER_PORT`` only have to agree with it; the
backend names ``"gloo"`` and ``"mpi"`` (and ``None``) both mean nnlite's MPI engine.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import warnings
from collections.abc import Iterable
from datetime import timedelta
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, overload

from ._mpi import (
    DEFAULT_TIMEOUT,
    Group,
    abort_on_exception,
    import_mpi,
    timeout_seconds,
)

if TYPE_CHECKING:
    from mpi4py.MPI import Comm

    from ..device import device

__all__ = [
    "Backend",
    "GroupMember",
    "ProcessGroup",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_default_backend_for_device",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "new_group",
]

default_pg_timeout = DEFAULT_TIMEOUT

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)
_ENGINES = ("gloo", "mpi")  # both run on MPI here


class Backend(str):
    """A backend name, as ``torch.distributed.Backend``: ``Backend("GLOO") == "gloo"``.

    ``"gloo"`` and ``"mpi"`` both run on MPI; ``"nccl"`` needs GPUs and is refused by
    ``init_process_group``.

    Examples:
        >>> Backend("GLOO")
        'gloo'
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), None)
        return str.__new__(cls, value if isinstance(value, str) else name.lower())


class ProcessGroup:
    """A set of ranks that run collectives together (an MPI communicator).

    Made by ``init_process_group`` (all ranks) and ``new_group``; pass it as ``group=`` to the
    collectives or as ``process_group=`` to ``DistributedDataParallel``.

    Args:
        comm: the mpi4py communicator.
        ranks (list of int): the global ranks, in group-rank order.
        backend (str): ``"gloo"`` or ``"mpi"``.
        timeout (float or None): seconds a collective waits (None: 30 minutes).

    Examples:
        >>> pg = dist.new_group([0, 1])  # doctest: +SKIP
        >>> pg.rank(), pg.size()  # doctest: +SKIP
        (0, 2)
    """

    def __init__(
        self,
        comm: Comm,
        ranks: Iterable[int],
        backend: str,
        timeout: timedelta | float | None,
    ) -> None:
        self.comm = comm  # the mpi4py communicator
        self.ranks = list(ranks)  # global ranks, in group-rank order
        self.backend = Backend(backend)
        self.group = Group(import_mpi("nnlite.distributed"), comm, timeout)

    def rank(self) -> int:
        """This process's rank in the group.

        Returns:
            int: the rank.

        Examples:
            >>> dist.group.WORLD.rank()  # doctest: +SKIP
            0
        """
        return self.group.rank

    def size(self) -> int:
        """The number of ranks in the group.

        Returns:
            int: the size.

        Examples:
            >>> dist.group.WORLD.size()  # doctest: +SKIP
            2
        """
        return self.group.size

    @property
    def timeout(self) -> float:
        """Seconds a collective of this group waits for the other ranks.

        Examples:
            >>> dist.group.WORLD.timeout  # doctest: +SKIP
            1800.0
        """
        return self.group.timeout

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self.backend!r}, ranks={self.ranks})"


class GroupMember:
    """``GroupMember.WORLD`` is the default group once ``init_process_group`` ran (else ``None``);
    ``NON_GROUP_MEMBER`` is what ``new_group`` returns on ranks outside the group.

    Examples:
        >>> GroupMember.WORLD is None  # before init_process_group
        True
    """

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER: Final = -100


class group:  # noqa: N801  (PyTorch's name: dist.group.WORLD)
    """``dist.group.WORLD``: the default group (``None`` before ``init_process_group``).

    Examples:
        >>> group.WORLD is None  # before init_process_group
        True
    """

    WORLD: ProcessGroup | None = None


#: what ``new_group`` returns on the ranks outside the new group (``GroupMember.NON_GROUP_MEMBER``)
NonGroupMember: TypeAlias = Literal[-100]
#: a ``group=`` argument: a group, ``None`` (the default group) or ``NON_GROUP_MEMBER``
GroupArg: TypeAlias = "ProcessGroup | NonGroupMember | None"


def _set_world(pg: ProcessGroup | None) -> None:
    GroupMember.WORLD = group.WORLD = pg


def is_available() -> bool:
    """Whether ``nnlite.distributed`` can run here: mpi4py is installed.

    Returns:
        bool: True when mpi4py can be imported (the MPI library is loaded only by
        ``init_process_group``).

    Examples:
        >>> isinstance(is_available(), bool)
        True
    """
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    """Same as :func:`is_available`: the MPI backend is nnlite's engine.

    Returns:
        bool: whether mpi4py is installed.

    Examples:
        >>> is_mpi_available() == is_available()
        True
    """
    return is_available()


def is_gloo_available() -> bool:
    """Same as :func:`is_available`: ``"gloo"`` runs on MPI here.

    Returns:
        bool: whether mpi4py is installed.

    Examples:
        >>> is_gloo_available() == is_available()
        True
    """
    return is_available()


def is_nccl_available() -> bool:
    """Always False: NCCL needs GPUs and nnlite runs on the CPU.

    Returns:
        bool: False.

    Examples:
        >>> is_nccl_available()
        False
    """
    return False


def is_torchelastic_launched() -> bool:
    """Whether this process was started by ``python -m nnlite.distributed.run`` (torchrun's check).

    Returns:
        bool: whether ``TORCHELASTIC_RUN_ID`` is set.

    Examples:
        >>> isinstance(is_torchelastic_launched(), bool)
        True
    """
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def get_default_backend_for_device(device: str | device) -> str:
    """The default backend for a device, as PyTorch's: ``"gloo"`` for the CPU (nnlite's only
    device; ``"nccl"`` for ``"cuda"``, which ``init_process_group`` then refuses).

    Args:
        device (str or nl.device): the device.

    Returns:
        str: the backend's name.

    Examples:
        >>> get_default_backend_for_device("cpu")
        'gloo'
    """
    device_type = getattr(device, "type", None) or str(device).split(":")[0]
    backend = {"cpu": Backend.GLOO, "cuda": Backend.NCCL}.get(device_type)
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return str(backend)


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` not yet).

    Returns:
        bool: True inside an initialized job.

    Examples:
        >>> is_initialized()
        False
    """
    return GroupMember.WORLD is not None


def _default_group() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


@overload
def resolve_group(pg: ProcessGroup | None) -> ProcessGroup: ...
@overload
def resolve_group(pg: GroupArg) -> ProcessGroup | NonGroupMember: ...
def resolve_group(pg: GroupArg) -> ProcessGroup | NonGroupMember:
    """``None`` or ``GroupMember.WORLD`` -> the default group; a ProcessGroup stays; raises
    before ``init_process_group``."""
    world = _default_group()
    if pg is None or pg is GroupMember.WORLD:
        return world
    if pg is GroupMember.NON_GROUP_MEMBER or isinstance(pg, ProcessGroup):
        return pg
    raise TypeError(
        f"group must be a ProcessGroup made by init_process_group or new_group, got {type(pg).__name__}"
    )


def not_in_group(pg: GroupArg) -> bool:
    """Whether this rank is outside ``pg`` (collectives on it then do nothing, as in PyTorch)."""
    return resolve_group(pg) is GroupMember.NON_GROUP_MEMBER


def _parse_backend(backend: str | None) -> str:
    if backend is None:
        return Backend.GLOO
    if not isinstance(backend, str):
        raise ValueError("Backend constructor parameter must be string-ish")
    name = backend.lower()
    if ":" in name:  # PyTorch's per-device form "cpu:gloo,cuda:nccl": the CPU's entry counts
        pairs = dict(part.split(":", 1) for part in name.split(",") if ":" in part)
        name = pairs.get("cpu", "")
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name not in _ENGINES:
        raise ValueError(
            f"Invalid backend: {backend!r}; nnlite.distributed runs 'gloo' and 'mpi' (both on MPI)"
        )
    return Backend(name)


def _check_timeout(timeout: timedelta | None) -> float | None:
    if timeout is None:
        return None
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout}"
        )
    return timeout_seconds(timeout)


def _claimed(value: int | None, variable: str) -> int | None:
    """What the script says (an argument >= 0, else the environment variable), or None."""
    if value is not None and value >= 0:
        return int(value)
    text = os.environ.get(variable)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"Error initializing nnlite.distributed: environment variable {variable} must be an "
            f"integer, got {text!r}"
        ) from None


def _check_matches_job(comm: Comm, rank: int | None, world_size: int | None, backend: str) -> None:
    size, me = comm.Get_size(), comm.Get_rank()
    if backend == Backend.MPI:
        if (world_size is not None and world_size != -1) or (rank is not None and rank != -1):
            warnings.warn(
                f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored since "
                f"they are assigned by the MPI runtime.",
                stacklevel=3,
            )
        return
    claimed_size, claimed_rank = _claimed(world_size, "WORLD_SIZE"), _claimed(rank, "RANK")
    how = (
        "start the ranks with `python -m nnlite.distributed.run --nproc-per-node=N script.py`, "
        "`nnlite.multiprocessing.spawn(fn, nprocs=N)` or `mpirun -n N python script.py`"
    )
    if claimed_size is not None and claimed_size != size:
        raise RuntimeError(
            f"init_process_group: world_size is {claimed_size} but this process belongs to an MPI "
            f"job of {size} process(es): {how}"
        )
    if claimed_rank is not None and claimed_rank != me:
        raise RuntimeError(
            f"init_process_group: rank is {claimed_rank} but MPI started this process as rank "
            f"{me} of {size}: the ranks are MPI's; {how}"
        )


_WATCHDOG = """
import os, select, signal, sys, time
parent, seconds, message = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
ready, _, _ = select.select([sys.stdin], [], [], seconds)
if not ready:  # the parent is still starting MPI: end it, so that mpirun ends the job
    sys.stderr.write(message + "\\n")
    sys.stderr.flush()
    os.kill(parent, signal.SIGTERM)
    time.sleep(2)
    os.kill(parent, signal.SIGKILL)
"""


def _start_mpi(seconds: float) -> ModuleType:
    """``mpi4py.MPI``, started within ``seconds``, else this process is ended with a message.

    Open MPI's ``MPI_Init`` waits, without a limit and holding Python's lock, until every rank of
    the job has called it: a rank that hangs before ``init_process_group`` would hang the others
    there. A small watchdog process ends this rank (SIGTERM, then SIGKILL) if MPI has not started
    after the timeout; mpirun then ends the whole job.
    """
    if "mpi4py.MPI" in sys.modules:
        return import_mpi("nnlite.distributed.init_process_group")
    rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "?"))
    message = (
        f"[rank {rank}] init_process_group timed out after {seconds:g} s waiting for the other "
        f"ranks to start (a rank never called init_process_group: it stopped, hangs or is far "
        f"behind); ending this rank, and with it the job"
    )
    watchdog = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(os.getpid()), repr(seconds), message],
        stdin=subprocess.PIPE,
    )
    assert watchdog.stdin is not None  # opened as a pipe
    try:
        return import_mpi("nnlite.distributed.init_process_group")
    finally:
        watchdog.stdin.close()  # MPI started (or failed to load): the watchdog ends
        watchdog.wait()


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: object | None = None,
    group_name: str = "",
    pg_options: Any | None = None,
    device_id: device | int | None = None,
) -> None:
    """Join the default process group: every process of the MPI job, as ``torch.distributed``.

    The ranks are the processes of the MPI job this process belongs to (started by
    ``python -m nnlite.distributed.run``, ``nnlite.multiprocessing.spawn`` or ``mpirun``).
    ``rank`` and ``world_size`` (or the ``RANK``/``WORLD_SIZE`` environment variables) are
    checked against the job's: a mismatch is an error that says how to launch. Ends with a
    barrier: a rank that never calls this makes the others raise after ``timeout``.

    Args:
        backend (str, optional): ``"gloo"``, ``"mpi"`` or ``None`` (all three run on MPI);
            ``"nccl"`` raises (no GPUs). Per-device strings (``"cpu:gloo,cuda:nccl"``) use the
            CPU's entry.
        init_method (str, optional): accepted (``"env://"``, ``"tcp://..."``, ``"file://..."``);
            MPI has already brought the ranks together.
        timeout (datetime.timedelta, optional): how long a collective waits for the other ranks
            before raising ``DistBackendError`` (default 30 minutes, PyTorch's).
        world_size (int): the number of ranks, or -1 (from ``WORLD_SIZE`` or the job).
        rank (int): this process's rank, or -1 (from ``RANK`` or the job).
        store: not supported (MPI does the rendezvous); passing one raises.
        group_name, pg_options, device_id: accepted for PyTorch scripts; ``device_id`` must be
            ``None`` or the CPU.

    Raises:
        ValueError: called twice (PyTorch's message), or an unknown backend.
        RuntimeError: ``"nccl"``, or rank/world size differ from the MPI job's.
        ImportError: mpi4py or the MPI library is missing (says what to install).

    Examples:
        >>> import nnlite.distributed as dist
        >>> dist.init_process_group("gloo")  # in a script started by the launcher  # doctest: +SKIP
        >>> dist.get_rank(), dist.get_world_size()  # doctest: +SKIP
        (0, 2)
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        raise ValueError(
            "init_process_group: a store is not supported; MPI brings the ranks together (start "
            "them with python -m nnlite.distributed.run, nnlite.multiprocessing.spawn or mpirun)"
        )
    if device_id is not None and str(getattr(device_id, "type", device_id)) != "cpu":
        raise ValueError(
            f"device_id {device_id} is not the CPU: nnlite runs on the CPU only; pass None"
        )
    backend = _parse_backend(backend)
    seconds = _check_timeout(timeout)
    MPI = _start_mpi(DEFAULT_TIMEOUT.total_seconds() if seconds is None else seconds)
    # from here on MPI runs: a rank that raises (even in the checks below) must end the job, or
    # it would wait in MPI_Finalize for ranks that wait for it
    abort_on_exception()
    comm = MPI.COMM_WORLD
    _check_matches_job(comm, rank, world_size, backend)
    pg = ProcessGroup(comm, range(comm.Get_size()), backend, seconds)
    pg.group.barrier("init_process_group (waiting for every rank to join)")
    _set_world(pg)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave the default group (``group=None``), or free a group made by ``new_group``.

    After the default group is destroyed, ``init_process_group`` may be called again.

    Args:
        group (ProcessGroup, optional): the group to free. Default: the default group.

    Examples:
        >>> dist.destroy_process_group()  # doctest: +SKIP
    """
    world = _default_group()
    if group is None or group is world:
        _set_world(None)
        return
    if isinstance(group, ProcessGroup) and group.comm is not world.comm:
        group.comm.Free()


def get_rank(group: GroupArg = None) -> int:
    """This process's rank in ``group``.

    Args:
        group (ProcessGroup, optional): Default: the default group.

    Returns:
        int: the rank, or -1 outside the group.

    Raises:
        ValueError: before ``init_process_group`` (PyTorch's message).

    Examples:
        >>> dist.get_rank()  # doctest: +SKIP
        0
    """
    pg = resolve_group(group)
    return -1 if pg == GroupMember.NON_GROUP_MEMBER else pg.rank()


def get_world_size(group: GroupArg = None) -> int:
    """The number of ranks in ``group``.

    Args:
        group (ProcessGroup, optional): Default: the default group.

    Returns:
        int: the size, or -1 outside the group.

    Examples:
        >>> dist.get_world_size()  # doctest: +SKIP
        2
    """
    pg = resolve_group(group)
    return -1 if pg == GroupMember.NON_GROUP_MEMBER else pg.size()


def get_backend(group: GroupArg = None) -> Backend:
    """The backend name of ``group``, as given to ``init_process_group``.

    Args:
        group (ProcessGroup, optional): Default: the default group.

    Returns:
        str: ``"gloo"`` or ``"mpi"``.

    Examples:
        >>> dist.get_backend()  # doctest: +SKIP
        'gloo'
    """
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return pg.backend


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The global ranks in ``group``, in group-rank order.

    Args:
        group (ProcessGroup): the group (None: the default group).

    Returns:
        list of int: the global ranks.

    Examples:
        >>> dist.get_process_group_ranks(dist.new_group([0, 2]))  # doctest: +SKIP
        [0, 2]
    """
    return list(resolve_group(group).ranks)


def get_global_rank(group: ProcessGroup | None, group_rank: int) -> int:
    """The global rank of ``group``'s rank ``group_rank``.

    Args:
        group (ProcessGroup): the group.
        group_rank (int): a rank inside it.

    Returns:
        int: the global rank.

    Examples:
        >>> dist.get_global_rank(dist.new_group([1, 2]), 0)  # doctest: +SKIP
        1
    """
    pg = resolve_group(group)
    if not 0 <= group_rank < len(pg.ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg.ranks[group_rank]


def get_group_rank(group: ProcessGroup | None, global_rank: int) -> int:
    """The rank inside ``group`` of the process with global rank ``global_rank``.

    Args:
        group (ProcessGroup): the group.
        global_rank (int): a global rank in it.

    Returns:
        int: the rank inside the group.

    Examples:
        >>> dist.get_group_rank(dist.new_group([1, 2]), 2)  # doctest: +SKIP
        1
    """
    pg = resolve_group(group)
    if global_rank not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg.ranks.index(global_rank)


def new_group(
    ranks: Iterable[int] | None = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any | None = None,
    use_local_synchronization: bool = False,
    group_desc: str | None = None,
    device_id: device | None = None,
    sort_ranks: bool = True,
) -> ProcessGroup | NonGroupMember:
    """A group of some of the ranks; every rank of the default group must call it.

    Args:
        ranks (list of int, optional): global ranks of the members (default: all). Their
            group ranks follow the sorted global ranks (as given when ``sort_ranks=False``).
        timeout (datetime.timedelta, optional): the group's collective timeout (default: the
            default group's).
        backend (str, optional): ``"gloo"``/``"mpi"`` (default: the default group's).
        pg_options, use_local_synchronization, group_desc, device_id: accepted for PyTorch scripts.

    Returns:
        ProcessGroup on the members, ``GroupMember.NON_GROUP_MEMBER`` on the other ranks.

    Examples:
        >>> evens = dist.new_group([0, 2])  # doctest: +SKIP
        >>> dist.all_reduce(t, group=evens)  # only ranks 0 and 2 take part  # doctest: +SKIP
    """
    world = _default_group()
    size = world.size()
    members = list(range(size)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        members = sorted(members)
    if len(set(members)) != len(members):
        raise ValueError(f"new_group: ranks must be distinct, got {ranks}")
    for r in members:
        if not 0 <= r < size:
            raise ValueError(
                f"The new group's rank should be within the world_size set by init_process_group, "
                f"got rank {r} with world_size {size}"
            )
    seconds = world.timeout if timeout is None else _check_timeout(timeout)
    backend = world.backend if backend is None else _parse_backend(backend)
    MPI = world.group.MPI
    me = world.rank()
    # Split is collective over the default group: every rank takes part, non-members get nothing
    color = 0 if me in members else MPI.UNDEFINED
    key = members.index(me) if me in members else 0
    comm = world.comm.Split(color, key)
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, members, backend, seconds)
