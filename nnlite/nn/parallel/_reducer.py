"""Gradient averaging for ``DistributedDataParallel`` while backward runs (PyTorch's reducer).

The trainable parameters are grouped, in reverse registration order (about the order in which
backward produces their gradients), into buckets of at most ``bucket_cap_mb`` (the first one
smaller, 1 MiB by default, so that communication starts early). A hook after each parameter's
gradient accumulation copies the gradient into its bucket's flat buffer; when every gradient of a
bucket is in, the bucket's sum over the ranks starts as a non-blocking all-reduce and backward goes
on. Buckets start in a fixed order (bucket ``i`` only after bucket ``i - 1``), so every rank issues
the same collectives in the same sequence. One callback at the end of backward waits for the
outstanding all-reduces and writes the averages into ``.grad``.

Each bucket buffer also carries one "has a gradient" flag per parameter, summed by the same
all-reduce: a parameter whose gradient is ``None`` on some ranks counts as zero there, and keeps
``None`` (is left untouched) when no rank has a gradient for it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.engine import queue_callback
from ...autograd.node import AccumulateGrad
from ...autograd.tensor import Tensor, _make
from ...distributed._mpi import check_same_on_all_ranks

if TYPE_CHECKING:
    from mpi4py.MPI import Request
    from numpy.typing import NDArray

    from ..._typing import Array
    from ...autograd.tensor import _RemovableEntry
    from ...distributed._mpi import Group
    from ..modules.module import Module

DEFAULT_BUCKET_CAP_MB = 25
FIRST_BUCKET_BYTES = 1024 * 1024  # PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES
_MB = 1024 * 1024

_MARKED_TWICE = (
    "Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
    "1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not "
    "shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a "
    "workaround if this module graph does not change during training loop.2) Reused parameters in multiple "
    "reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part "
    "of your model, it would result in the same set of parameters been used by different reentrant backward "
    "passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use "
    "cases in default. You can try to use _set_static_graph() as a workaround if your module graph does not "
    "change over iterations.\nParameter at index {index} with name {name} has been marked as ready twice. This "
    "means that multiple autograd engine  hooks have fired for this particular parameter during this iteration."
)

_PRIOR_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. "
)
_ENABLE_FIND_UNUSED = (
    "You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` "
    "to `torch.nn.parallel.DistributedDataParallel`, and by \n"
)
_FIND_UNUSED_ENABLED = (
    "Since `find_unused_parameters=True` is enabled, this likely  means that not all `forward` outputs "
    "participate in computing loss. You can fix this by "
)
_OUTPUTS_IN_LOSS = "making sure all `forward` function outputs participate in calculating loss. "
_LOCATE_OUTPUTS = (
    "\nIf you already have done the above, then the distributed data parallel module wasn't able to locate the "
    "output tensors in the return value of your module's `forward` function. Please include the loss function "
    "and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, "
    "dict, iterable)."
)


def model_layout(module: Module) -> str:
    """A text describing the parameters and buffers: equal on all ranks iff the models match."""
    lines = [
        f"P {name} {tuple(p._data.shape)} {p._data.dtype.str} {bool(p._requires_grad)}"
        for name, p in module.named_parameters()
    ]
    lines += [
        f"B {name} {tuple(b._data.shape)} {b._data.dtype.str}" for name, b in module.named_buffers()
    ]
    return "\n".join(lines)


class _Bucket:
    """Parameters whose gradients travel in one all-reduce: ``buffer`` holds their gradients
    flattened one after the other, then one has-a-gradient flag per parameter."""

    __slots__ = ("buffer", "index", "members", "numel", "offsets", "request", "waiting", "written")

    def __init__(self, index: int, members: list[int], params: Sequence[Tensor]) -> None:
        self.index = index
        self.members = members  # parameter indices
        sizes = [params[i]._data.size for i in members]
        self.offsets: NDArray[np.int64] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.numel = int(self.offsets[-1])
        self.buffer: Array = np.empty(
            self.numel + len(members), dtype=params[members[0]]._data.dtype
        )
        self.waiting = len(members)  # gradients not yet copied in this backward
        self.request: Request | None = None  # the running all-reduce
        self.written: list[Tensor | None] | None = None  # the .grad objects the last averaging left

    def averaged(self, params: Sequence[Tensor]) -> bool:
        """Whether every member's ``.grad`` is still what the last averaging wrote (gradients are
        replaced, never changed in place, by backward and by ``p.grad = ...``)."""
        return self.written is not None and all(
            params[i]._grad is g for i, g in zip(self.members, self.written)
        )


def assign_buckets(
    params: Sequence[Tensor], bucket_cap_bytes: int, first_bucket_bytes: int
) -> list[list[int]]:
    """Group parameter indices into buckets: reverse registration order, one dtype per bucket, a
    bucket closed once it reaches its byte limit (``first_bucket_bytes`` for the first, then
    ``bucket_cap_bytes``)."""
    buckets: list[list[int]] = []
    open_buckets: dict[str, tuple[list[int], int]] = {}
    limits: dict[str, int] = {}
    for i in reversed(range(len(params))):
        data = params[i]._data
        key = data.dtype.str
        members, size = open_buckets.get(key, ([], 0))
        members.append(i)
        size += data.nbytes
        limit = limits.setdefault(key, first_bucket_bytes)
        if size >= limit:
            buckets.append(members)
            open_buckets.pop(key, None)
            limits[key] = bucket_cap_bytes
        else:
            open_buckets[key] = (members, size)
    buckets.extend(members for members, _ in open_buckets.values())
    return buckets


def _output_tensors(obj: object, found: list[Tensor]) -> list[Tensor]:
    """Every Tensor inside a forward's return value (tuples, lists, dicts, namedtuples)."""
    if isinstance(obj, Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _output_tensors(x, found)
    elif isinstance(obj, dict):
        for x in obj.values():
            _output_tensors(x, found)
    return found


def _reachable_leaves(outputs: object) -> set[int]:
    """ids of the leaf tensors whose gradient accumulators the outputs' graph reaches."""
    leaves: set[int] = set()
    seen: set[int] = set()
    stack: list[Any] = []  # graph nodes (Node declares its next_functions only in __slots__)
    for t in _output_tensors(outputs, []):
        if t._grad_fn is not None:
            stack.append(t._grad_fn)
        elif t._requires_grad:
            leaves.add(id(t))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is AccumulateGrad:
            leaves.add(id(node.variable))
            continue
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                stack.append(child)
    return leaves


class Reducer:
    """Averages the gradients of ``module``'s trainable parameters over ``group`` during backward."""

    def __init__(
        self,
        module: Module,
        group: Group,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        gradient_as_bucket_view: bool = False,
    ) -> None:
        self.module = module
        self.group = group
        cap = DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        if not isinstance(cap, (int, float)) or isinstance(cap, bool) or not cap > 0:
            raise ValueError(f"bucket_cap_mb must be a positive number, got {bucket_cap_mb!r}")
        self.bucket_cap_bytes = int(cap * _MB)
        # PyTorch uses the small first bucket only with the default capacity
        self.first_bucket_bytes = (
            FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_cap_bytes
        )
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.params: list[Tensor] = []
        self.names: list[str] = []
        self.buckets: list[_Bucket] = []
        self.where: dict[int, tuple[_Bucket, int]] = {}  # parameter index -> (bucket, slot)
        self._key: tuple[tuple[int, tuple[int, ...], str], ...] | None = None
        self._handles: list[_RemovableEntry] = []
        self.expect_hooks = False  # a forward prepared this backward (grad sync on)
        self.require_finalize = False
        self._reset_iteration()
        self.refresh()

    # ------------------------------------------------------------------ layout
    def refresh(self) -> None:
        """Rebuild the buckets if the set of trainable parameters changed (freeze/unfreeze).

        A collective: every rank checks that the others have the same trainable parameters.
        """
        named: list[tuple[str, Tensor]] = []
        seen: set[int] = set()
        for name, p in self.module.named_parameters():
            if p._requires_grad and id(p) not in seen:
                seen.add(id(p))
                named.append((name, p))
        key = tuple((id(p), p._data.shape, p._data.dtype.str) for _, p in named)
        if key == self._key:
            return
        if self._key is not None:
            check_same_on_all_ranks(self.group, model_layout(self.module), "trainable parameters")
        self._key = key
        for handle in self._handles:
            handle.remove()
        self.names = [name for name, _ in named]
        self.params = [p for _, p in named]
        self.buckets, self.where = [], {}
        for b, members in enumerate(
            assign_buckets(self.params, self.bucket_cap_bytes, self.first_bucket_bytes)
        ):
            bucket = _Bucket(b, members, self.params)
            self.buckets.append(bucket)
            for slot, i in enumerate(members):
                self.where[i] = (bucket, slot)
        me = weakref.ref(self)
        self._handles = [
            p.register_post_accumulate_grad_hook(_make_hook(me, i))
            for i, p in enumerate(self.params)
        ]
        self._reset_iteration()

    def _reset_iteration(self) -> None:
        n = len(self.params)
        self.ready = [False] * n
        self.next_bucket = 0
        self.launched: list[_Bucket] = []
        self.unused: Sequence[int] = ()
        self.marked_unused = False
        self.finalize_queued = False
        for bucket in self.buckets:
            bucket.waiting = len(bucket.members)
            bucket.request = None

    # ------------------------------------------------------------------ forward side
    def ensure_prior_reduction_finished(self) -> None:
        """PyTorch's error when the previous backward left gradients that never became ready."""
        if not self.require_finalize:
            return
        missing = [i for i, r in enumerate(self.ready) if not r]
        message = _PRIOR_REDUCTION + (
            _FIND_UNUSED_ENABLED if self.find_unused_parameters else _ENABLE_FIND_UNUSED
        )
        message += _OUTPUTS_IN_LOSS + _LOCATE_OUTPUTS
        # PyTorch's detailed form (TORCH_DISTRIBUTED_DEBUG=INFO): names, then indices
        message += (
            f"\nParameters which did not receive grad for rank {self.group.rank}: "
            f"{', '.join(self.names[i] for i in missing)}"
        )
        message += (
            f"\nParameter indices which did not receive grad for rank {self.group.rank}: "
            f"{' '.join(map(str, missing))}"
        )
        raise RuntimeError(message)

    def prepare_for_backward(self, outputs: object) -> None:
        """Called at the end of a forward that gradients will be averaged for."""
        self.ensure_prior_reduction_finished()
        self._reset_iteration()
        self.expect_hooks = True
        if self.find_unused_parameters:
            used = _reachable_leaves(outputs)
            self.unused = [i for i, p in enumerate(self.params) if id(p) not in used]

    # ------------------------------------------------------------------ backward side
    def on_gradient(self, index: int) -> None:
        """A parameter's ``.grad`` was just accumulated (post-accumulate-grad hook)."""
        if not self.expect_hooks:
            return  # no_sync(), or a backward not started from this wrapper's forward
        if not self.finalize_queued:
            self.finalize_queued = True
            queue_callback(self._finalize)
        if not self.marked_unused:
            self.marked_unused = True
            for i in self.unused:
                self._mark_ready(i)
        self._mark_ready(index)
        # give the running all-reduces a chance to progress (MPI advances only inside MPI calls)
        for b in self.launched:
            if b.request is not None:
                b.request.Test()

    def _mark_ready(self, index: int) -> None:
        if self.ready[index]:
            raise RuntimeError(_MARKED_TWICE.format(index=index, name=self.names[index]))
        self.ready[index] = True
        self.require_finalize = True
        bucket, slot = self.where[index]
        self._copy_in(bucket, slot)
        bucket.waiting -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].waiting == 0:
            launch = self.buckets[self.next_bucket]
            launch.request = self.group.start_allreduce(launch.buffer)
            self.launched.append(launch)
            self.next_bucket += 1

    def _copy_in(self, bucket: _Bucket, slot: int) -> None:
        p = self.params[bucket.members[slot]]
        lo, hi = bucket.offsets[slot], bucket.offsets[slot + 1]
        g = p._grad
        if g is None:
            bucket.buffer[lo:hi] = 0
            bucket.buffer[bucket.numel + slot] = 0
        else:
            bucket.buffer[lo:hi] = g._data.reshape(-1)
            bucket.buffer[bucket.numel + slot] = 1

    def _finalize(self) -> None:
        """End of backward: wait for the all-reduces that were started and write the averages."""
        self.expect_hooks = False
        for bucket in self.launched:
            assert bucket.request is not None  # a launched bucket's all-reduce runs
            self.group.wait(bucket.request, f"allreduce of gradient bucket {bucket.index}")
            bucket.request = None
            self._copy_out(bucket)
        self.launched = []
        if self.next_bucket == len(self.buckets):
            self.require_finalize = False

    def _copy_out(self, bucket: _Bucket) -> None:
        buf = bucket.buffer
        np.divide(buf[: bucket.numel], self.group.size, out=buf[: bucket.numel])
        for slot, i in enumerate(bucket.members):
            if buf[bucket.numel + slot] == 0:
                continue  # no rank has a gradient: leave .grad as it is (None)
            p = self.params[i]
            view = buf[bucket.offsets[slot] : bucket.offsets[slot + 1]].reshape(p._data.shape)
            p._grad = _make(view if self.gradient_as_bucket_view else view.copy())
        bucket.written = [self.params[i]._grad for i in bucket.members]

    # ------------------------------------------------------------------ explicit form
    def allreduce_remaining(self) -> None:
        """Average the gradients of every bucket whose ``.grad`` tensors changed since they were averaged.

        Every rank must call it at the same point. Does nothing when backward already averaged
        everything, so calling it after ``loss.backward()`` never averages twice.
        """
        self.refresh()
        if self.launched:  # an all-reduce still running: only inside a backward
            raise RuntimeError(
                "allreduce_gradients() cannot run while backward is averaging gradients"
            )
        todo = [b for b in self.buckets if not b.averaged(self.params)]
        for bucket in todo:
            for slot in range(len(bucket.members)):
                self._copy_in(bucket, slot)
            bucket.request = self.group.start_allreduce(bucket.buffer)
        for bucket in todo:
            assert bucket.request is not None  # started just above
            self.group.wait(bucket.request, f"allreduce of gradient bucket {bucket.index}")
            bucket.request = None
            self._copy_out(bucket)
        self.require_finalize = False
        self.expect_hooks = False

    def remove_hooks(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def __del__(self) -> None:
        try:
            self.remove_hooks()
        except Exception:  # noqa: BLE001  (interpreter shutdown: nothing left to clean)
            pass


def _make_hook(reducer_ref: weakref.ref[Reducer], index: int) -> Callable[[Tensor], None]:
    def hook(param: Tensor) -> None:
        reducer = reducer_ref()
        if reducer is not None:
            reducer.on_gradient(index)

    return hook
