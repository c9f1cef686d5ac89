"""``nl.nn.DataParallel``: data parallelism over CPU worker processes, with PyTorch's interface.

Per call the batch is split along ``dim`` with ``chunk``'s sizes, each chunk runs through a
replica of the module in its own worker process, and the outputs are gathered in order into
Tensors that belong to the caller's autograd graph (through the ``Gather`` function below). Its
backward sends each worker its slice of the output gradient; the workers backpropagate through
the graphs they kept, and the parameter gradients of all replicas are summed into the wrapped
module's parameters' ``.grad`` by the ordinary autograd engine, so any optimizer steps unchanged.

How parameters, buffers and arrays move between the processes is described in ``_pool`` and
``_worker``.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy as np

from ..._runtime.nested import Slot, from_slots, to_slots
from ..._runtime.threads import usable_cpus
from ...autograd import grad_mode
from ...autograd.engine import backward_retains_graph
from ...autograd.function import _SECOND_BACKWARD, Function, _modified_message
from ...autograd.tensor import Tensor, _make
from ..modules.module import Module
from . import _pool

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..._typing import Array
    from ...autograd.function import FunctionNode
    from ...device import device

__all__ = ["DataParallel"]

#: how one tensor is cut into chunks: (dimension, chunk boundaries along it)
_Split: TypeAlias = "tuple[int, NDArray[np.int64]]"

_SCALAR_GATHER = (
    "Was asked to gather along dimension 0, but all input tensors were scalars; will instead "
    "unsqueeze and return a vector."
)


def chunk_sizes(n: int, chunks: int) -> list[int]:
    """The sizes ``chunk`` gives when splitting ``n`` items into at most ``chunks`` pieces:
    ``ceil(n / chunks)`` each, the last one smaller (30 in 4 -> 8, 8, 8, 6; 10 in 4 -> 3, 3, 3, 1;
    5 in 4 -> 2, 2, 1)."""
    if n <= 0:
        return []
    step = -(-n // chunks)
    return [min(step, n - start) for start in range(0, n, step)]


class DataParallel(Module):
    r"""Run a module on several CPU worker processes, splitting each batch between them.

    The interface is PyTorch's ``nn.DataParallel``: calling the wrapper splits every Tensor
    argument along ``dim`` (other arguments are passed to every replica as they are), runs the
    pieces in parallel and returns the gathered outputs. ``backward`` through them sums the
    replicas' parameter gradients into ``module``'s parameters' ``.grad``.

    Args:
        module: the module to parallelize (``.module`` gives it back).
        device_ids: accepted for compatibility; on the CPU only its length matters (the number of
            workers when ``workers`` is not given).
        output_device: accepted for compatibility (the output is always on the CPU).
        dim (int): the dimension to split and gather along (default 0).
        workers (int): worker processes (default: the number of usable CPUs). ``0`` runs the
            module in this process.
        threads (int): BLAS and numba threads per worker (default: CPUs // workers, at least 1).
        timeout (float): seconds to wait for the workers' replies in a forward or backward before
            giving up (default 300; ``None`` waits as long as the workers live). Start-up and the
            first call of each kind, which may compile numba kernels, get at least 10 minutes. A
            dead worker is reported at once.

        start_method (str): ``"fork"`` or ``"forkserver"``; by default ``fork``, or, for
            replicas of more than one thread, the fork server when numba's GNU OpenMP thread
            pool already runs in this process (it does not survive ``fork``, so a forked replica
            runs one thread; with the fork server the module must be picklable).

    What the replicas share:

    * Parameters and buffers live in one shared-memory block that the wrapped module's tensors
      also use, so optimizer updates and ``load_state_dict`` reach the workers without a copy.
      ``requires_grad``, ``train()``/``eval()`` and replaced tensors are passed on at every call;
      a changed module structure (a new submodule, a new shape or dtype) restarts the workers.
      Other attribute changes made after the workers started are not seen by them.
    * Gradients: every replica backpropagates its slice of the output gradient, and the
      replicas' parameter gradients are summed (a parameter no replica produced a gradient for
      keeps ``.grad`` as it was). With a loss computed on the gathered output this is exactly the
      full-batch gradient.
    * BatchNorm normalises each chunk with its own batch statistics, as PyTorch's DataParallel
      does; the running statistics (and ``num_batches_tracked``) are replica 0's update, i.e.
      computed from the first chunk, and are written back to the module after every call.
    * Random numbers (dropout) come from a generator per worker, seeded from nnlite's generator
      when the workers start.

    Workers start at the first forward and stop at ``close()``, at the end of a ``with`` block, on
    garbage collection or at interpreter exit. An exception in a replica is raised again here
    with the worker's traceback; a worker that dies, a timeout or a ``KeyboardInterrupt`` stops
    all workers and frees their shared memory, and the next call starts new ones.

    Examples:
        >>> net = nn.Linear(4, 2)
        >>> model = nl.nn.DataParallel(net, workers=2)
        >>> x, y = nl.randn(30, 4), nl.randn(30, 2)
        >>> loss = F.mse_loss(model(x), y)   # x of 30 rows: two chunks of 15
        >>> loss.backward()               # gradients of both replicas summed into net's .grad
        >>> net.weight.grad.shape
        nnlite.Size([2, 4])
        >>> model.close()
    """

    # kept in __dict__ (not module state): the worker pool and what closes it when self goes
    _runtime: _Runtime
    _finalizer: weakref.finalize[[], None]

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[int | str | device] | None = None,
        output_device: int | str | device | None = None,
        dim: int = 0,
        *,
        workers: int | None = None,
        threads: int | None = None,
        timeout: float | None = 300.0,
        start_method: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DataParallel expects an nnlite.nn.Module, got {type(module).__name__}"
            )
        for d in list(device_ids or []) + ([] if output_device is None else [output_device]):
            if not (isinstance(d, int) or str(d).split(":")[0] == "cpu"):
                raise RuntimeError(f"nnlite runs on the CPU only; device '{d}' is not available")
        if workers is None:
            workers = len(device_ids) if device_ids else usable_cpus()
        workers = int(workers)
        if workers < 0:
            raise ValueError(f"workers must be >= 0, got {workers}")
        if threads is None:
            threads = max(1, usable_cpus() // max(workers, 1))
        threads = int(threads)
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        if start_method not in (None, "fork", "spawn", "forkserver"):
            raise ValueError(f"unknown start method {start_method!r}")
        self.module = module
        self.dim = dim
        self.workers = workers
        self.threads = threads
        self.timeout = timeout
        self.start_method = start_method
        self.device_ids = list(range(workers))
        self.output_device = "cpu"
        self._init_runtime()

    def _init_runtime(self) -> None:
        runtime = _Runtime()
        self.__dict__["_runtime"] = runtime
        self.__dict__["_finalizer"] = weakref.finalize(self, runtime.close)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop the worker processes and free the shared memory (the wrapped module keeps its
        current parameter values). The next forward starts new workers.

        Examples:
            >>> model = nn.DataParallel(nn.Linear(4, 2), workers=2)
            >>> _ = model(nl.randn(6, 4))
            >>> len(model.pids)
            2
            >>> model.close()
            >>> model.pids
            []
        """
        self._runtime.close()

    def __enter__(self) -> DataParallel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_runtime", None)
        state.pop("_finalizer", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._init_runtime()

    @property
    def pids(self) -> list[int]:
        """Process ids of the running workers (empty before the first forward and after close).

        Examples:
            >>> model = nn.DataParallel(nn.Linear(4, 2), workers=2)
            >>> model.pids
            []
        """
        pool = self._runtime.pool
        if pool is None or pool.closed:
            return []
        return [p.pid for p in pool.procs if p.pid is not None]  # started: each has a pid

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self.workers == 0:
            return self.module(*inputs, **kwargs)
        structure, tensors = to_slots((inputs, kwargs), lambda x: isinstance(x, Tensor))
        dim = self.dim
        if tensors:
            for t in tensors:
                if t.ndim == 0:
                    raise ValueError(
                        "DataParallel cannot split a 0-dimensional tensor argument "
                        "(every tensor argument is split along dimension "
                        f"{dim}; pass scalars as Python numbers)"
                    )
            d0 = dim % tensors[0].ndim
            sizes = chunk_sizes(tensors[0].shape[d0], self.workers)
            splits: list[_Split] = []
            for t in tensors:
                d = dim % t.ndim
                s = chunk_sizes(t.shape[d], self.workers)
                if len(s) != len(sizes):
                    raise ValueError(
                        f"DataParallel splits every tensor argument along dimension {dim} into the "
                        f"same number of chunks; got {len(sizes)} chunks for a tensor of shape "
                        f"{tuple(tensors[0].shape)} and {len(s)} for one of shape {tuple(t.shape)}"
                    )
                splits.append((d, np.cumsum([0] + s)))
            chunks: list[list[Array]] = []
            for r in range(len(sizes)):
                arrays: list[Array] = []
                for t, (d, bounds) in zip(tensors, splits):
                    index = (slice(None),) * d + (slice(int(bounds[r]), int(bounds[r + 1])),)
                    arrays.append(t._data[index])
                chunks.append(arrays)
            if not chunks:
                raise ValueError(f"DataParallel got an empty batch (size 0 along dimension {dim})")
        else:
            chunks = [[]]  # nothing to split: one replica runs the call
        grad_enabled = grad_mode.is_grad_enabled()
        pool = self._runtime.pool_for(self, max(sum(a.nbytes for a in c) for c in chunks))
        diff_inputs = [i for i, t in enumerate(tensors) if grad_enabled and t.requires_grad]
        param_indices = [i for i, p in enumerate(pool.params) if grad_enabled and p.requires_grad]
        job = _Job(
            pool,
            self.dim,
            structure,
            chunks,
            [tensors[i].requires_grad for i in range(len(tensors))],
            grad_enabled,
            diff_inputs,
            [splits[i] for i in diff_inputs] if tensors else [],
            param_indices,
        )
        outputs = Gather.apply(
            job, *[tensors[i] for i in diff_inputs], *[pool.params[i] for i in param_indices]
        )
        return from_slots(job.out_structure, outputs)


class _Runtime:
    """The current worker pool of one DataParallel (rebuilt when the module's layout changes)."""

    def __init__(self) -> None:
        self.pool: _pool.WorkerPool | None = None

    def pool_for(self, dp: DataParallel, inbox_bytes: int) -> _pool.WorkerPool:
        pool = self.pool
        if (
            pool is not None
            and not pool.closed
            and pool.module is dp.module
            and pool.n == dp.workers
        ):
            if pool.sync():
                return pool
        self.close()
        self.pool = _pool.WorkerPool(
            dp.module, dp.workers, dp.threads, dp.timeout, dp.start_method, inbox_bytes
        )
        return self.pool

    def close(self) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()


class _Job:
    """One DataParallel call: what the forward sent and what backward needs to answer it."""

    # set by the forward: the pool's key of the call, and how to cut the output gradients
    key: tuple[Any, ...]
    out_structure: Any
    ranks: int
    out_splits: list[_Split | None]
    out_requires_grad: list[list[bool]]

    def __init__(
        self,
        pool: _pool.WorkerPool,
        dim: int,
        structure: Any,
        chunks: list[list[Array]],
        input_requires_grad: list[bool],
        grad_enabled: bool,
        diff_inputs: list[int],
        input_splits: list[_Split],
        param_indices: list[int],
    ) -> None:
        self.pool = pool
        self.dim = dim
        self.structure = structure
        self.chunks = chunks
        self.input_requires_grad = input_requires_grad
        self.grad_enabled = grad_enabled
        self.diff_inputs = diff_inputs
        self.input_splits = input_splits
        self.param_indices = param_indices
        self.params = [pool.params[i] for i in param_indices]
        self.param_versions = [p._version for p in self.params]
        self.call_id = -1  # the pool's id of the forward call, set by forward
        self.kept = False
        self.released = False
        self.freed = False

    def run_forward(self) -> tuple[list[Array], list[bool]]:
        with self.pool.lock:  # the outputs are read out of the workers' outboxes below
            return self._run_forward()

    def _run_forward(self) -> tuple[list[Array], list[bool]]:
        pool = self.pool
        self.call_id, results, self.key = pool.forward(
            self.chunks, self.input_requires_grad, self.structure, self.grad_enabled
        )
        structures = [s for s, _, _ in results]
        counts = {len(a) for _, a, _ in results}
        if len(counts) != 1:
            raise RuntimeError("DataParallel replicas returned different numbers of tensors")
        self.kept = any(any(rg) for _, _, rg in results)
        self.out_structure = _merge_structures(structures)
        self.ranks = len(results)
        gathered, differentiable, self.out_splits = [], [], []
        for k in range(counts.pop()):
            # a replica's outputs are arrays (only gradients can be missing)
            parts = [cast("Array", arrays[k]) for _, arrays, _ in results]
            if all(p.ndim == 0 for p in parts):
                if len(parts) > 1:
                    warnings.warn(_SCALAR_GATHER, UserWarning, stacklevel=4)
                out = np.stack(parts)
                self.out_splits.append(None)
            else:
                d = self.dim % parts[0].ndim
                out = np.concatenate(parts, axis=d)
                self.out_splits.append((d, np.cumsum([0] + [p.shape[d] for p in parts])))
            gathered.append(out)
            differentiable.append([rg[k] for _, _, rg in results])
        self.out_requires_grad = differentiable
        return gathered, [any(flags) for flags in differentiable]

    def run_backward(
        self, grads: Sequence[Tensor | None], retain: bool
    ) -> tuple[list[Tensor | None], list[Tensor | None]]:
        pool = self.pool
        if pool.closed:
            raise RuntimeError(
                "the DataParallel workers that computed this output were shut down (close(), a "
                "fault or a change of the module) before backward"
            )
        per_rank: list[list[Array | None]] = []
        for r in range(self.ranks):
            arrays: list[Array | None] = []
            for k, g in enumerate(grads):
                if g is None or not self.out_requires_grad[k][r]:
                    arrays.append(None)
                    continue
                split = self.out_splits[k]
                if split is None:
                    arrays.append(g._data[r])
                else:
                    d, bounds = split
                    index = (slice(None),) * d + (slice(int(bounds[r]), int(bounds[r + 1])),)
                    arrays.append(g._data[index])
            per_rank.append(arrays)
        with pool.lock:
            param_grads, input_grads = pool.backward(
                self.call_id, per_rank, self.param_indices, self.key, retain
            )
            inputs = self._input_grads(input_grads)
        return inputs, [None if g is None else _make(g) for g in param_grads]

    def _input_grads(self, input_grads: list[list[Array | None]]) -> list[Tensor | None]:
        """Concatenate the workers' input-gradient chunks (zeros where a worker has none)."""
        inputs: list[Tensor | None] = []
        for j, (d, bounds) in enumerate(self.input_splits):
            parts = [input_grads[r][j] for r in range(self.ranks)]
            if all(p is None for p in parts):
                inputs.append(None)
                continue
            like = next(p for p in parts if p is not None)
            filled = []
            for r, p in enumerate(parts):
                if p is None:
                    shape = list(like.shape)
                    shape[d] = int(bounds[r + 1] - bounds[r])
                    p = np.zeros(shape, dtype=like.dtype)
                filled.append(p)
            inputs.append(_make(np.concatenate(filled, axis=d)))
        return inputs

    def release(self) -> None:
        """The caller's graph is freed or gone: the workers drop theirs with the next command
        (a message of its own would cost a pipe round per step)."""
        if self.kept and not self.released:
            self.released = True
            try:
                self.pool.defer_free(self.call_id, range(self.ranks))
            except Exception:  # noqa: BLE001  (during interpreter shutdown)
                pass

    def __del__(self) -> None:
        self.release()


def _merge_structures(structures: list[Any]) -> Any:
    """The gathered output structure: replica 0's, with each non-tensor, non-None leaf replaced by
    the list of every replica's value."""
    first = structures[0]
    if type(first) is Slot:
        return first
    if isinstance(first, (tuple, list)):
        items = [_merge_structures([s[i] for s in structures]) for i in range(len(first))]
        if isinstance(first, list):
            return items
        return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
    if isinstance(first, dict):
        merged = {k: _merge_structures([s[k] for s in structures]) for k in first}
        try:
            return type(first)(merged)
        except TypeError:
            return merged
    if first is None:
        return None
    return [s for s in structures]


class Gather(Function):
    """Joins the replicas' outputs into the caller's graph.

    ``apply(job, *inputs)`` takes the tensor arguments that require grad and the parameters that
    require grad; the forward runs the replicas, the backward returns the gathered input
    gradients and the summed parameter gradients.
    """

    @staticmethod
    def forward(ctx: Any, job: _Job, *tensors: Tensor) -> tuple[Tensor, ...]:
        ctx.job = job
        ctx.set_materialize_grads(False)
        arrays, differentiable = job.run_forward()
        outs = tuple(_make(a) for a in arrays)
        frozen = [t for t, d in zip(outs, differentiable) if not d]
        if frozen:
            ctx.mark_non_differentiable(*frozen)
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Tensor | None) -> tuple[Tensor | None, ...]:
        job = ctx.job
        if job.freed:
            raise RuntimeError(_SECOND_BACKWARD)
        if grad_mode.is_grad_enabled():
            raise RuntimeError(
                "DataParallel does not support create_graph=True (higher-order gradients)"
            )
        for p, version in zip(job.params, job.param_versions):
            if p._version != version:
                raise RuntimeError(_modified_message(p, version))
        n_inputs = len(job.diff_inputs) + len(job.param_indices)
        if all(g is None for g in grads):
            return (None,) * (1 + n_inputs)
        inputs, params = job.run_backward(grads, backward_retains_graph())
        return (None, *inputs, *params)


# the node class made for Gather at class creation (a base known only at run time; to the type
# checker, the FunctionNode it derives from)
if TYPE_CHECKING:
    _GatherNode = FunctionNode
else:
    _GatherNode = Gather._node_cls


class _GatherBackward(_GatherNode):
    """``Gather``'s graph node: freeing it (backward without ``retain_graph``) also frees the
    workers' graphs."""

    __slots__ = ()

    def _free(self) -> None:
        super()._free()
        job = self.__dict__.get("job")
        if job is not None:
            job.freed = True
            job.release()


_GatherBackward.__name__ = _GatherBackward.__qualname__ = "GatherBackward"
Gather._node_cls = _GatherBackward
