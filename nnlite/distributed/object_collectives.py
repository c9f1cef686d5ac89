"""Collectives on Python objects, as ``torch.distributed``: objects travel as pickles.

Each object is pickled on its rank and unpickled on the others, exactly as PyTorch does. Unpickling
runs code named by the pickle, so these calls are for the ranks of one job, which run the same
trusted program; never feed them data from elsewhere. The pickles travel as byte buffers through
the same MPI operations (with the group's timeout) as the tensor collectives.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .collectives import _peer
from .process_group import GroupArg, GroupMember, ProcessGroup, resolve_group

if TYPE_CHECKING:
    from .._typing import Array
    from ..device import device

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _to_bytes(obj: object) -> Array:
    return np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=np.uint8)


def _from_bytes(buf: Array) -> Any:
    return pickle.loads(buf.tobytes())  # noqa: S301  (objects from the ranks of this job; see module doc)


def _allgather_bytes(pg: ProcessGroup, data: Array, what: str) -> list[Array]:
    """Every rank's byte array, in rank order (sizes first, then one Allgatherv)."""
    group = pg.group
    sizes = np.empty(pg.size(), dtype=np.int64)
    group.allgather(np.array([data.size], dtype=np.int64), sizes, f"{what} (sizes)")
    recv = np.empty(int(sizes.sum()), dtype=np.uint8)
    counts = [int(s) for s in sizes]
    group.wait(pg.comm.Iallgatherv(data, [recv, counts]), what)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    return [recv[offsets[i] : offsets[i + 1]] for i in range(pg.size())]


def _bcast_bytes(pg: ProcessGroup, data: Array | None, root: int, what: str) -> Array:
    group = pg.group
    size = np.array([0 if data is None else data.size], dtype=np.int64)
    group.bcast(size, f"{what} (size)", root=root)
    buf = data if pg.rank() == root else np.empty(int(size[0]), dtype=np.uint8)
    assert buf is not None  # the root passes its data
    group.bcast(buf, what, root=root)
    return buf


def _root(pg: ProcessGroup, global_rank: int | None, group_rank: int | None) -> int:
    return _peer(pg, global_rank, group_rank, "rank", default=0)


def all_gather_object(object_list: list[Any], obj: Any, group: GroupArg = None) -> None:
    """Every rank's ``obj`` (any picklable object) into ``object_list`` (one slot per rank).

    Args:
        object_list (list): as long as the group; filled in rank order.
        obj: this rank's object.
        group (ProcessGroup, optional): default: the default group.

    Examples:
        >>> out = [None] * dist.get_world_size()  # doctest: +SKIP
        >>> dist.all_gather_object(out, {"rank": dist.get_rank()})  # doctest: +SKIP
        >>> out  # doctest: +SKIP
        [{'rank': 0}, {'rank': 1}]
    """
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return
    if len(object_list) != pg.size():
        raise ValueError(
            f"all_gather_object: object_list must have one slot per rank ({pg.size()}), "
            f"got {len(object_list)}"
        )
    for i, part in enumerate(_allgather_bytes(pg, _to_bytes(obj), "all_gather_object")):
        object_list[i] = _from_bytes(part)


def broadcast_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: GroupArg = None,
    device: device | None = None,
    group_src: int | None = None,
) -> None:
    """Replace ``object_list``'s items on every rank by rank ``src``'s (default 0), in place.
    Every rank passes a list of the same length; the objects travel as pickles.

    Args:
        object_list (list): the objects on ``src``, the output elsewhere.
        src (int, optional): global rank that sends. Default: 0.
        group (ProcessGroup, optional): Default: the default group.
        device: accepted for PyTorch scripts.
        group_src (int, optional): ``src`` as a rank inside ``group``.

    Examples:
        >>> objs = [{"lr": 0.1}, "run-7"] if dist.get_rank() == 0 else [None, None]  # doctest: +SKIP
        >>> dist.broadcast_object_list(objs, src=0)  # doctest: +SKIP
    """
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return
    root = _root(pg, src, group_src)
    data = _to_bytes(list(object_list)) if pg.rank() == root else None
    received = _from_bytes(_bcast_bytes(pg, data, root, "broadcast_object_list"))
    if len(received) != len(object_list):
        raise ValueError(
            f"broadcast_object_list: the source sent {len(received)} objects, this rank's list "
            f"has {len(object_list)} slots"
        )
    object_list[:] = received


def gather_object(
    obj: Any,
    object_gather_list: list[Any] | None = None,
    dst: int | None = None,
    group: GroupArg = None,
    group_dst: int | None = None,
) -> None:
    """Every rank's ``obj`` into ``object_gather_list`` on rank ``dst`` (default 0), as pickles.

    Args:
        obj: this rank's object (picklable).
        object_gather_list (list, optional): one slot per rank, on ``dst`` only.
        dst (int, optional): global rank that receives. Default: 0.
        group (ProcessGroup, optional): Default: the default group.
        group_dst (int, optional): ``dst`` as a rank inside ``group``.

    Examples:
        >>> out = [None] * n if dist.get_rank() == 0 else None  # doctest: +SKIP
        >>> dist.gather_object(score, out, dst=0)  # doctest: +SKIP
    """
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return
    root = _root(pg, dst, group_dst)
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError(
            "Argument ``object_gather_list`` must be specified on destination rank, with one "
            f"slot per rank ({pg.size()})."
        )
    # an allgather of the pickles keeps this short; the objects are small messages
    parts = _allgather_bytes(pg, _to_bytes(obj), "gather_object")
    if pg.rank() == root:
        assert object_gather_list is not None  # checked above
        for i, part in enumerate(parts):
            object_gather_list[i] = _from_bytes(part)


def scatter_object_list(
    scatter_object_output_list: list[Any],
    scatter_object_input_list: Sequence[Any] | None = None,
    src: int | None = None,
    group: GroupArg = None,
    group_src: int | None = None,
) -> None:
    """Rank ``src``'s ``scatter_object_input_list[i]`` into ``scatter_object_output_list[0]``
    on rank ``i``, as pickles.

    Args:
        scatter_object_output_list (list): at least one slot; slot 0 receives.
        scatter_object_input_list (list, optional): one object per rank, on ``src`` only.
        src (int, optional): global rank that sends. Default: 0.
        group (ProcessGroup, optional): Default: the default group.
        group_src (int, optional): ``src`` as a rank inside ``group``.

    Examples:
        >>> out = [None]  # doctest: +SKIP
        >>> dist.scatter_object_list(out, ["a", "b"] if dist.get_rank() == 0 else None)  # doctest: +SKIP
    """
    pg = resolve_group(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError(
            "Expected argument scatter_object_output_list to be a list of size at least 1."
        )
    root = _root(pg, src, group_src)
    data = None
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != pg.size():
            raise ValueError(
                "Argument ``scatter_object_input_list`` must be specified on source rank, with "
                f"one object per rank ({pg.size()})."
            )
        data = _to_bytes(list(scatter_object_input_list))
    everything = _from_bytes(_bcast_bytes(pg, data, root, "scatter_object_list"))
    scatter_object_output_list[0] = everything[pg.rank()]
