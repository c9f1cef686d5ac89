"""Collectives on tensors, as ``torch.distributed``: every one is a non-blocking MPI operation
waited for with the group's timeout, and tensors are written in place.

``async_op=True`` returns a :class:`Work` at once (the MPI operation runs in the background);
``work.wait()`` finishes it. Without it the call returns ``None`` after the result is in place.
``src``/``dst`` are global ranks, ``group_src``/``group_dst`` ranks inside ``group``, as in
PyTorch. On a rank outside ``group`` a collective does nothing and returns ``None``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np

from ..autograd.tensor import Tensor
from ._mpi import Group, timeout_seconds
from .process_group import GroupArg, GroupMember, ProcessGroup, resolve_group

if TYPE_CHECKING:
    from datetime import timedelta
    from types import ModuleType

    from mpi4py.MPI import Op, Request, Status

    from .._typing import Array

#: the step that finishes an operation once MPI is done: the tensors it wrote
_Finish: TypeAlias = "Callable[[], list[Tensor]]"

__all__ = [
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "barrier",
    "broadcast",
    "gather",
    "irecv",
    "isend",
    "monitored_barrier",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]


class ReduceOp(enum.Enum):
    """How ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the ranks' tensors.

    ``SUM``, ``AVG`` (the sum divided by the group size; floating tensors only), ``PRODUCT``,
    ``MIN``, ``MAX``, and the bitwise ``BAND``, ``BOR``, ``BXOR`` (integer and bool tensors).

    Examples:
        >>> ReduceOp.SUM
        <RedOpType.SUM: 0>
    """

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


ReduceOp.RedOpType = ReduceOp  # type: ignore[attr-defined]  # PyTorch: dist.ReduceOp.RedOpType.SUM


class Work:
    """A collective started with ``async_op=True``, or a point-to-point operation; as
    ``torch.distributed.Work``.

    Args:
        group (Group): the group's timeout wrapper (made by the collective).
        requests (list): the running MPI requests.
        what (str): the operation's name, for the timeout message.
        finish (callable, optional): copies the result into the tensors once done.

    Examples:
        >>> work = dist.all_reduce(t, async_op=True)  # doctest: +SKIP
        >>> work.wait()  # t holds the sum now  # doctest: +SKIP
        True
    """

    def __init__(
        self,
        group: Group,
        requests: Iterable[Request],
        what: str,
        finish: _Finish | None = None,
    ) -> None:
        self._group = group
        self._requests = list(requests)
        self._what = what
        self._finish = finish
        self._done = False
        self._result: list[Tensor] | None = None

    def _complete(self) -> None:
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._result = self._finish()

    def wait(self, timeout: timedelta | float | None = None) -> Literal[True]:
        """Block until the operation is done; the result is then in place.

        Args:
            timeout (datetime.timedelta or float, optional): this wait's limit. Default: the group's timeout.

        Returns:
            bool: True.

        Raises:
            DistBackendError: another rank did not take part within the timeout.

        Examples:
            >>> dist.isend(t, dst=1).wait()  # doctest: +SKIP
            True
        """
        if not self._done:
            group = self._group
            if timeout is not None:
                group = Group(group.MPI, group.comm, timeout_seconds(timeout))
            for request in self._requests:
                group.wait(request, self._what)
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation is done (never blocks; finishes it when it is).

        Returns:
            bool: True once done.

        Examples:
            >>> work = dist.all_reduce(t, async_op=True)  # doctest: +SKIP
            >>> while not work.is_completed():  # doctest: +SKIP
            ...     pass
        """
        if not self._done and all(r.Test() for r in self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        """True once the operation completed (a failure raises in :meth:`wait` instead).

        Returns:
            bool: whether it completed.

        Examples:
            >>> work.wait() and work.is_success()  # doctest: +SKIP
            True
        """
        return self.is_completed()

    def result(self) -> list[Tensor] | None:
        """The tensors the operation wrote, after :meth:`wait`.

        Returns:
            list of Tensor: the outputs (None for operations without any).

        Examples:
            >>> work = dist.all_reduce(t, async_op=True)  # doctest: +SKIP
            >>> work.wait() and work.result()[0] is t  # doctest: +SKIP
            True
        """
        return self._result

    def exception(self) -> None:
        """Always None: a failed operation raises in :meth:`wait`.

        Returns:
            None.

        Examples:
            >>> work.exception() is None  # doctest: +SKIP
            True
        """
        return None


def _run(
    pg: ProcessGroup,
    requests: list[Request],
    what: str,
    finish: _Finish | None,
    async_op: bool,
) -> Work | None:
    work = Work(pg.group, requests, what, finish)
    if async_op:
        return work
    work.wait()
    return None


# ---------------------------------------------------------------------------------------------
# arguments


def check_tensor(param: object, name: str) -> None:
    if not isinstance(param, Tensor):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
            f"             but got {type(param)} instead."
        )


def check_tensor_list(param: object, name: str) -> None:
    if not isinstance(param, list):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
            f"             but got {type(param)} instead."
        )
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
            f"             but got {type(param)} with elements of type {[type(p) for p in param]}."
        )


def _peer(
    pg: ProcessGroup,
    global_rank: int | None,
    group_rank: int | None,
    what: str,
    default: int | None = None,
) -> int:
    """The group rank of ``src``/``dst`` (PyTorch's global rank) or ``group_src``/``group_dst``."""
    if global_rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if group_rank is not None:
        rank = int(group_rank)
        if not 0 <= rank < pg.size():
            raise ValueError(f"Group rank {rank} is not part of group {pg}")
        return rank
    if global_rank is None:
        if default is None:
            raise ValueError(f"Must specify global_rank or group_rank ({what})")
        return default
    if int(global_rank) not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg.ranks.index(int(global_rank))


def _check_count(tensors: Sequence[Tensor], pg: ProcessGroup, name: str) -> None:
    if len(tensors) != pg.size():
        raise ValueError(
            f"`{name}` must hold one tensor per rank of the group ({pg.size()}), got {len(tensors)}"
        )


# ---------------------------------------------------------------------------------------------
# buffers: MPI works on contiguous numpy arrays; bool and float16 travel in types MPI reduces


def _wire(array: Array) -> Array:
    """A contiguous array MPI can carry for ``array`` (itself when possible)."""
    if array.dtype == np.bool_:
        return array.view(np.uint8) if array.flags.c_contiguous else array.astype(np.uint8)
    if array.dtype == np.float16:
        return array.astype(np.float32)
    return array if array.flags.c_contiguous and array.flags.writeable else array.copy()


def _unwire(wire: Array, array: Array) -> None:
    if wire is not array and not (array.dtype == np.bool_ and wire.base is array):
        np.copyto(array, wire.reshape(array.shape), casting="unsafe")


def _mpi_op(MPI: ModuleType, op: ReduceOp | Op, dtype: np.dtype[Any]) -> Op:
    if isinstance(op, MPI.Op):
        given: Op = op
        return given
    if not isinstance(op, ReduceOp):
        raise ValueError(f"op must be a dist.ReduceOp, got {op!r}")
    if op is ReduceOp.AVG and dtype.kind != "f":
        raise ValueError(f"ReduceOp.AVG needs a floating-point tensor, got {dtype}")
    if dtype == np.bool_:  # torch: SUM and MAX of bools are OR, PRODUCT and MIN are AND
        table: dict[ReduceOp, Op] = {
            ReduceOp.SUM: MPI.MAX,
            ReduceOp.MAX: MPI.MAX,
            ReduceOp.PRODUCT: MPI.MIN,
        }
        table.update({ReduceOp.MIN: MPI.MIN, ReduceOp.BOR: MPI.BOR, ReduceOp.BAND: MPI.BAND})
        table[ReduceOp.BXOR] = MPI.BXOR
        return table[op]
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "iu":
        raise ValueError(f"{op.name} needs an integer or bool tensor, got {dtype}")
    ops: dict[ReduceOp, Op] = {
        ReduceOp.SUM: MPI.SUM,
        ReduceOp.AVG: MPI.SUM,
        ReduceOp.PRODUCT: MPI.PROD,
        ReduceOp.MIN: MPI.MIN,
        ReduceOp.MAX: MPI.MAX,
        ReduceOp.BAND: MPI.BAND,
        ReduceOp.BOR: MPI.BOR,
        ReduceOp.BXOR: MPI.BXOR,
    }
    return ops[op]


def _written(*tensors: Tensor) -> None:
    """Mark tensors as changed in place (their version counter, for autograd's checks)."""
    for t in tensors:
        t._bump_version()


def _reduced(
    op: ReduceOp | Op | None,
    pg: ProcessGroup,
    wire: Array,
    tensors_and_arrays: list[tuple[Tensor, Array]],
) -> _Finish:
    """The finishing step of a reduction: AVG divides, results go back into the tensors."""

    def finish() -> list[Tensor]:
        if op is ReduceOp.AVG:
            np.divide(wire, pg.size(), out=wire, casting="unsafe")
        for tensor, part in tensors_and_arrays:
            _unwire(part, tensor._data)
            _written(tensor)
        return [t for t, _ in tensors_and_arrays]

    return finish


# ---------------------------------------------------------------------------------------------
# collectives


def all_reduce(
    tensor: Tensor,
    op: ReduceOp | Op = ReduceOp.SUM,
    group: GroupArg = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``tensor`` over the ranks of ``group``; every rank gets the result, in place.

    Args:
        tensor (Tensor): input and output.
        op (ReduceOp): how to combine. Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> t = nl.tensor([float(dist.get_rank() + 1)])  # doctest: +SKIP
        >>> dist.all_reduce(t)  # doctest: +SKIP
        >>> t  # with 2 ranks  # doctest: +SKIP
        tensor([3.])
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    MPI = pg.group.MPI
    wire = _wire(tensor._data)
    request = pg.comm.Iallreduce(MPI.IN_PLACE, wire, op=_mpi_op(MPI, op, tensor._data.dtype))
    return _run(pg, [request], "all_reduce", _reduced(op, pg, wire, [(tensor, wire)]), async_op)


def reduce(
    tensor: Tensor,
    dst: int | None = None,
    op: ReduceOp | Op = ReduceOp.SUM,
    group: GroupArg = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Reduce ``tensor`` over the ranks; only rank ``dst`` gets the result (in place).

    Args:
        tensor (Tensor): input, and the output on ``dst``.
        dst (int): global rank that receives the result.
        op (ReduceOp): how to combine. Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.
        group_dst (int, optional): ``dst`` as a rank inside ``group``.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> dist.reduce(t, dst=0)  # rank 0's t holds the sum  # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    root = _peer(pg, dst, group_dst, "dst")
    MPI = pg.group.MPI
    wire = _wire(tensor._data)
    mpi_op = _mpi_op(MPI, op, tensor._data.dtype)
    if pg.rank() == root:
        request = pg.comm.Ireduce(MPI.IN_PLACE, wire, op=mpi_op, root=root)
        finish = _reduced(op, pg, wire, [(tensor, wire)])
    else:
        request = pg.comm.Ireduce(wire, None, op=mpi_op, root=root)
        finish = None
    return _run(pg, [request], "reduce", finish, async_op)


def broadcast(
    tensor: Tensor,
    src: int | None = None,
    group: GroupArg = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank.

    Args:
        tensor (Tensor): the data on ``src``, the output elsewhere.
        src (int): global rank that sends.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.
        group_src (int, optional): ``src`` as a rank inside ``group``.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> dist.broadcast(weights, src=0)  # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    root = _peer(pg, src, group_src, "src")
    wire = _wire(tensor._data)
    request = pg.comm.Ibcast(wire, root=root)
    finish = None if pg.rank() == root else _reduced(None, pg, wire, [(tensor, wire)])
    return _run(pg, [request], "broadcast", finish, async_op)


def _gathered(pg: ProcessGroup, tensor: Tensor, what: str) -> tuple[Request, Array]:
    """Start an allgather of ``tensor`` into a (size, *shape) array; returns (request, array)."""
    send = _wire(tensor._data)
    recv = np.empty((pg.size(),) + send.shape, dtype=send.dtype)
    return pg.comm.Iallgather(send, recv), recv


def _fill(tensors: list[Tensor], rows: Iterable[Array]) -> _Finish:
    def finish() -> list[Tensor]:
        for t, row in zip(tensors, rows):
            _unwire(np.ascontiguousarray(row), t._data)
            _written(t)
        return tensors

    return finish


def _check_same(tensors: Iterable[Tensor], like: Tensor, name: str) -> None:
    for t in tensors:
        if t.shape != like.shape or t.dtype != like.dtype:
            raise ValueError(
                f"`{name}`: every tensor must have the shape {tuple(like.shape)} and dtype "
                f"{like.dtype} of the input, got {tuple(t.shape)} {t.dtype}"
            )


def all_gather(
    tensor_list: list[Tensor],
    tensor: Tensor,
    group: GroupArg = None,
    async_op: bool = False,
) -> Work | None:
    """Every rank's ``tensor`` into ``tensor_list`` (one tensor per rank, rank order) on all ranks.

    Args:
        tensor_list (list of Tensor): one output per rank, each shaped like ``tensor``.
        tensor (Tensor): this rank's input.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> out = [nl.zeros(2) for _ in range(dist.get_world_size())]  # doctest: +SKIP
        >>> dist.all_gather(out, nl.full((2,), float(dist.get_rank())))  # doctest: +SKIP
    """
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    _check_count(tensor_list, pg, "tensor_list")
    _check_same(tensor_list, tensor, "tensor_list")
    request, recv = _gathered(pg, tensor, "all_gather")
    return _run(pg, [request], "all_gather", _fill(tensor_list, recv), async_op)


def all_gather_into_tensor(
    output_tensor: Tensor,
    input_tensor: Tensor,
    group: GroupArg = None,
    async_op: bool = False,
) -> Work | None:
    """Every rank's ``input_tensor`` into ``output_tensor``: concatenated along dim 0
    (``world_size * n`` rows) or stacked (shape ``(world_size, *input.shape)``).

    Args:
        output_tensor (Tensor): the output.
        input_tensor (Tensor): this rank's input.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> out = nl.zeros(2 * dist.get_world_size())  # doctest: +SKIP
        >>> dist.all_gather_into_tensor(out, nl.ones(2))  # doctest: +SKIP
    """
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    _check_into_shape(output_tensor, input_tensor, pg, "output_tensor")
    request, recv = _gathered(pg, input_tensor, "all_gather_into_tensor")
    return _run(pg, [request], "all_gather_into_tensor", _fill([output_tensor], [recv]), async_op)


def _check_into_shape(big: Tensor, small: Tensor, pg: ProcessGroup, name: str) -> None:
    n = pg.size()
    stacked = (n,) + tuple(small.shape)
    concatenated = (n * small.shape[0],) + tuple(small.shape[1:]) if small.ndim else None
    if tuple(big.shape) not in (stacked, concatenated) or big.dtype != small.dtype:
        raise ValueError(
            f"`{name}` must have shape {concatenated or stacked} or {stacked} and dtype "
            f"{small.dtype} for a group of {n} ranks, got {tuple(big.shape)} {big.dtype}"
        )


def gather(
    tensor: Tensor,
    gather_list: list[Tensor] | None = None,
    dst: int | None = None,
    group: GroupArg = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (default 0).

    Args:
        tensor (Tensor): this rank's input.
        gather_list (list of Tensor, optional): one output per rank, on ``dst`` only.
        dst (int, optional): global rank that receives. Default: 0.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.
        group_dst (int, optional): ``dst`` as a rank inside ``group``.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Raises:
        ValueError: ``gather_list`` missing on ``dst`` (PyTorch's message).

    Examples:
        >>> out = [nl.zeros(2) for _ in range(n)] if dist.get_rank() == 0 else None  # doctest: +SKIP
        >>> dist.gather(t, out, dst=0)  # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    root = _peer(pg, dst, group_dst, "dst", default=0)
    is_root = pg.rank() == root
    if is_root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        check_tensor_list(gather_list, "gather_list")
        _check_count(gather_list, pg, "gather_list")
        _check_same(gather_list, tensor, "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    send = _wire(tensor._data)
    recv = np.empty((pg.size(),) + send.shape, dtype=send.dtype) if is_root else None
    request = pg.comm.Igather(send, recv, root=root)
    finish = None
    if is_root:  # gather_list was checked above
        assert gather_list is not None and recv is not None
        finish = _fill(gather_list, recv)
    return _run(pg, [request], "gather", finish, async_op)


def scatter(
    tensor: Tensor,
    scatter_list: list[Tensor] | None = None,
    src: int | None = None,
    group: GroupArg = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Rank ``src``'s ``scatter_list[i]`` into ``tensor`` on rank ``i`` (default ``src`` 0).

    Args:
        tensor (Tensor): this rank's output.
        scatter_list (list of Tensor, optional): one input per rank, on ``src`` only.
        src (int, optional): global rank that sends. Default: 0.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.
        group_src (int, optional): ``src`` as a rank inside ``group``.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Raises:
        ValueError: ``scatter_list`` missing on ``src`` (PyTorch's message).

    Examples:
        >>> parts = [nl.full((2,), float(i)) for i in range(n)] if dist.get_rank() == 0 else None  # doctest: +SKIP
        >>> dist.scatter(t, parts, src=0)  # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    root = _peer(pg, src, group_src, "src", default=0)
    is_root = pg.rank() == root
    if is_root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        check_tensor_list(scatter_list, "scatter_list")
        _check_count(scatter_list, pg, "scatter_list")
        _check_same(scatter_list, tensor, "scatter_list")
        send = np.stack([_wire(t._data) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        send = None
    recv = np.empty_like(_wire(tensor._data))
    request = pg.comm.Iscatter(send, recv, root=root)
    return _run(pg, [request], "scatter", _fill([tensor], [recv]), async_op)


def _reduce_scatter_rows(
    pg: ProcessGroup,
    output: Tensor,
    rows: Array,
    op: ReduceOp | Op,
    what: str,
    async_op: bool,
) -> Work | None:
    """Reduce ``rows`` (size x n) over the ranks, rank ``i`` keeping row ``i`` in ``output``."""
    MPI = pg.group.MPI
    mpi_op = _mpi_op(MPI, op, output._data.dtype)
    recv = np.empty(rows.shape[1:], dtype=rows.dtype)
    request = pg.comm.Ireduce_scatter_block(rows, recv, op=mpi_op)
    return _run(pg, [request], what, _reduced(op, pg, recv, [(output, recv)]), async_op)


def reduce_scatter(
    output: Tensor,
    input_list: list[Tensor],
    op: ReduceOp | Op = ReduceOp.SUM,
    group: GroupArg = None,
    async_op: bool = False,
) -> Work | None:
    """Reduce ``input_list[i]`` over the ranks into ``output`` on rank ``i``.

    Args:
        output (Tensor): this rank's output.
        input_list (list of Tensor): one input per rank.
        op (ReduceOp): how to combine. Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> dist.reduce_scatter(out, [nl.ones(2) for _ in range(n)])  # out == n everywhere  # doctest: +SKIP
    """
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    _check_count(input_list, pg, "input_list")
    _check_same(input_list, output, "input_list")
    rows = np.stack([_wire(t._data) for t in input_list])
    return _reduce_scatter_rows(pg, output, rows, op, "reduce_scatter", async_op)


def reduce_scatter_tensor(
    output: Tensor,
    input: Tensor,
    op: ReduceOp | Op = ReduceOp.SUM,
    group: GroupArg = None,
    async_op: bool = False,
) -> Work | None:
    """Like :func:`reduce_scatter` with the inputs concatenated (or stacked) in one tensor.

    Args:
        output (Tensor): this rank's output.
        input (Tensor): ``world_size`` outputs' worth, concatenated along dim 0 or stacked.
        op (ReduceOp): how to combine. Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> dist.reduce_scatter_tensor(out, nl.ones(2 * n))  # doctest: +SKIP
    """
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    _check_into_shape(input, output, pg, "input")
    rows = np.ascontiguousarray(_wire(input._data)).reshape((pg.size(),) + tuple(output.shape))
    return _reduce_scatter_rows(pg, output, rows, op, "reduce_scatter_tensor", async_op)


def barrier(
    group: GroupArg = None,
    async_op: bool = False,
    device_ids: Sequence[int] | None = None,
    timeout: timedelta | None = None,
) -> Work | None:
    """Wait until every rank of ``group`` gets here.

    Args:
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        async_op (bool): return a :class:`Work` instead of waiting. Default: False.
        device_ids: accepted for PyTorch scripts.
        timeout (datetime.timedelta, optional): this call's limit. Default: the group's timeout.

    Returns:
        Work if ``async_op``, else None (None on a rank outside ``group``).

    Examples:
        >>> dist.barrier()  # doctest: +SKIP
    """
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    request = pg.comm.Ibarrier()
    if timeout is not None and not async_op:
        return Work(pg.group, [request], "barrier").wait(timeout) and None
    return _run(pg, [request], "barrier", None, async_op)


def monitored_barrier(
    group: GroupArg = None, timeout: timedelta | None = None, wait_all_ranks: bool = False
) -> None:
    """A barrier that raises ``DistBackendError`` after ``timeout`` (default: the group's).

    Args:
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        timeout (datetime.timedelta, optional): the limit.
        wait_all_ranks (bool): accepted for PyTorch scripts.

    Returns:
        None.

    Examples:
        >>> dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))  # doctest: +SKIP
    """
    barrier(group, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# point to point


def _check_peer_not_self(pg: ProcessGroup, rank: int, kind: str) -> None:
    if pg.rank() == rank:
        raise ValueError(
            f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the current process."
        )


def isend(
    tensor: Tensor,
    dst: int | None = None,
    group: GroupArg = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> Work | None:
    """Start sending ``tensor`` to rank ``dst``; ``wait()`` the returned :class:`Work`.

    Args:
        tensor (Tensor): the data (copied when the send starts).
        dst (int): global rank that receives.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        tag (int): matches sends with receives. Default: 0.
        group_dst (int, optional): ``dst`` as a rank inside ``group``.

    Returns:
        Work (None on a rank outside ``group``).

    Examples:
        >>> work = dist.isend(t, dst=1)  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    peer = _peer(pg, dst, group_dst, "dst")
    _check_peer_not_self(pg, peer, "destination")
    send = _wire(tensor._data)
    if send is tensor._data:
        send = send.copy()  # the caller may change its tensor before the send completes
    return Work(pg.group, [pg.comm.Isend(send, dest=peer, tag=tag)], f"send to rank {dst}")


def irecv(
    tensor: Tensor,
    src: int | None = None,
    group: GroupArg = None,
    tag: int = 0,
    group_src: int | None = None,
) -> Work | None:
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); the returned
    :class:`Work`'s ``wait()`` fills ``tensor``.

    Args:
        tensor (Tensor): the output, shaped as what is sent.
        src (int, optional): global rank that sends. Default: any.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        tag (int): matches sends with receives. Default: 0.
        group_src (int, optional): ``src`` as a rank inside ``group``.

    Returns:
        Work (None on a rank outside ``group``).

    Examples:
        >>> work = dist.irecv(t, src=0)  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return None
    MPI = pg.group.MPI
    if src is None and group_src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(pg, src, group_src, "src")
        _check_peer_not_self(pg, peer, "source")
    wire = _wire(tensor._data)
    request = pg.comm.Irecv(wire, source=peer, tag=tag)

    def finish() -> list[Tensor]:
        _unwire(wire, tensor._data)
        _written(tensor)
        return [tensor]

    return Work(pg.group, [request], f"recv from rank {'any' if src is None else src}", finish)


def send(
    tensor: Tensor,
    dst: int | None = None,
    group: GroupArg = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> None:
    """Send ``tensor`` to rank ``dst`` and wait until MPI has it.

    Args:
        tensor (Tensor): the data.
        dst (int): global rank that receives.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        tag (int): matches sends with receives. Default: 0.
        group_dst (int, optional): ``dst`` as a rank inside ``group``.

    Examples:
        >>> dist.send(nl.ones(2), dst=1)  # doctest: +SKIP
    """
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(
    tensor: Tensor,
    src: int | None = None,
    group: GroupArg = None,
    tag: int = 0,
    group_src: int | None = None,
) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None).

    Args:
        tensor (Tensor): the output, shaped as what is sent.
        src (int, optional): global rank that sends. Default: any.
        group (ProcessGroup, optional): the group to work on. Default: the default group.
        tag (int): matches sends with receives. Default: 0.
        group_src (int, optional): ``src`` as a rank inside ``group``.

    Returns:
        int: the sender's global rank (-1 outside ``group``).

    Examples:
        >>> t = nl.zeros(2)  # doctest: +SKIP
        >>> dist.recv(t, src=0)  # doctest: +SKIP
        0
    """
    check_tensor(tensor, "tensor")
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return -1
    MPI = pg.group.MPI
    if src is None and group_src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(pg, src, group_src, "src")
        _check_peer_not_self(pg, peer, "source")
    wire = _wire(tensor._data)
    status: Status = MPI.Status()
    request = pg.comm.Irecv(wire, source=peer, tag=tag)
    pg.group.wait(request, f"recv from rank {'any' if src is None else src}", status)
    _unwire(wire, tensor._data)
    _written(tensor)
    source: int = status.Get_source()
    return pg.ranks[source]
