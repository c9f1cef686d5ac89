"""``DataLoader``: batches from a dataset, in the main process or in worker processes."""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import numbers
import sys
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

import numpy as np

from .._runtime.errors import ExceptionWrapper
from .._runtime.processes import signal_name, stop_processes
from .._runtime.worker_channel import WorkerChannel, wait
from . import _core, _worker
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

if TYPE_CHECKING:
    from .dataset import Dataset
    from .sampler import Sampler

#: a function building a batch from samples (``collate_fn``), or converting a single sample
_Collate = Callable[[Any], Any]

__all__ = ["DataLoader", "get_worker_info"]

get_worker_info = _worker.get_worker_info

# How long shutdown waits for workers to exit on their own before terminating them.
JOIN_TIMEOUT = 5.0


_T_co = TypeVar("_T_co", covariant=True)


class _Fetcher:
    """Turns a list of indices (or one index, without auto-batching) into a batch."""

    def __init__(
        self,
        auto_collation: bool,
        collate_fn: _Collate,
        custom_collate: bool,
        use_getitems: bool,
        getitems_collated: bool,
    ) -> None:
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.custom_collate = custom_collate
        self.use_getitems = use_getitems
        self.getitems_collated = getitems_collated

    def __call__(self, dataset: Any, indices: Any) -> Any:
        # ``indices``: a list of indices, or (without auto-batching) one index
        if not self.auto_collation:
            return self.collate_fn(dataset[indices])
        if self.use_getitems:
            data = dataset.__getitems__(indices)
            if self.getitems_collated or (not self.custom_collate and not isinstance(data, list)):
                return default_convert(data)
            return self.collate_fn(data)
        return self.collate_fn([dataset[i] for i in indices])

    def begin_epoch(self, dataset: object) -> None:
        """Nothing to do for a map-style dataset (see ``_IterableFetcher``)."""


class _IterableFetcher:
    """Takes the next sample (or ``batch_size`` samples) from this process's iterator over an
    ``IterableDataset``; raises ``StopIteration`` once it is exhausted."""

    def __init__(self, auto_collation: bool, collate_fn: _Collate, drop_last: bool) -> None:
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self._iterator: Iterator[Any] = iter(())  # until the first epoch begins
        self._ended = False

    def begin_epoch(self, dataset: Any) -> None:  # an IterableDataset
        self._iterator = iter(dataset)
        self._ended = False

    def __call__(self, dataset: object, indices: Any) -> Any:
        if self._ended:
            raise StopIteration
        if not self.auto_collation:
            try:
                return self.collate_fn(next(self._iterator))
            except StopIteration:
                self._ended = True
                raise
        data: list[Any] = []
        for _ in indices:  # a batch of placeholders: only its length counts
            try:
                data.append(next(self._iterator))
            except StopIteration:
                self._ended = True
                break
        if not data or (self.drop_last and len(data) < len(indices)):
            raise StopIteration
        return self.collate_fn(data)


class _InfiniteConstantSampler:
    """The sampler of an ``IterableDataset``: ``None`` for ever (the dataset decides when to stop)."""

    def __iter__(self) -> Iterator[None]:
        return itertools.repeat(None)


def _check_int(name: str, value: object, minimum: int, message: str | None = None) -> None:
    if (
        not isinstance(value, (numbers.Integral, np.integer))
        or isinstance(value, bool)
        or value < minimum
    ):
        raise ValueError(
            message or f"{name} should be an integer >= {minimum}, but got {name}={value!r}"
        )


class DataLoader(Generic[_T_co]):
    """Iterates over a dataset in batches, as ``torch.utils.data.DataLoader``.

    Arguments as PyTorch's; ``pin_memory`` is accepted and has no effect (CPU only). ``seed``
    (nnlite's addition) makes the batch order reproducible: with ``shuffle=True`` epoch ``e``
    (the ``e``-th ``iter`` of this loader) is ordered by ``numpy.random.default_rng([seed, e])``,
    the same for any ``num_workers``, and the workers' seeds derive from ``(seed, e)`` too.

    If the dataset has ``__getitems__(indices)`` the loader fetches each batch with one call
    (see ``Dataset``). With ``num_workers > 0`` batches are produced by worker processes
    (``fork`` where available), each with ``prefetch_factor`` batches in flight, single-threaded
    BLAS/numba and numpy seeded with ``base_seed + worker_id``; batches come back in order. A
    worker's exception is raised here with the worker's traceback, after the workers have been
    shut down (that iteration ends with it; PyTorch's iterator could go on); a worker that dies
    raises a RuntimeError naming it and its exit code. Workers stop when the iterator is exhausted,
    deleted or interrupted (Ctrl-C), and at interpreter exit; with ``persistent_workers`` they
    serve every epoch of the loader and stop when neither the loader nor the iterator is
    referenced any more.

    With an ``IterableDataset`` each worker iterates its own copy of the dataset (split the
    stream with ``get_worker_info()``), batches come from the workers in turn, and ``shuffle``,
    ``sampler`` and ``batch_sampler`` are refused, as in PyTorch.

    Args:
        dataset (Dataset or IterableDataset): where samples come from.
        batch_size (int or None): samples per batch; None yields single samples. Default: 1.
        shuffle (bool): a new random order every epoch. Default: False.
        sampler (Sampler or iterable, optional): the order of indices.
        batch_sampler (Sampler, optional): yields whole lists of indices.
        num_workers (int): worker processes; 0 loads in this process. Default: 0.
        collate_fn (callable, optional): builds a batch from samples. Default: ``default_collate``.
        pin_memory (bool): accepted; no effect on the CPU.
        drop_last (bool): drop the last incomplete batch. Default: False.
        timeout (float): seconds to wait for a worker's batch; 0 waits forever. Default: 0.
        worker_init_fn (callable, optional): called with the worker id in each worker.
        multiprocessing_context (str, optional): ``"fork"``, ``"spawn"`` or ``"forkserver"``.
        generator (numpy.random.Generator, optional): the generator of the shuffling.
        prefetch_factor (int): batches loaded ahead per worker. Default: 2.
        persistent_workers (bool): keep the workers between epochs. Default: False.
        seed (int, optional): makes the batch order reproducible (nnlite's addition).

    Examples:
        >>> from nnlite.data import TensorDataset
        >>> dataset = TensorDataset(nl.randn(100, 3, 8, 8), nl.arange(100) % 10)
        >>> loader = DataLoader(dataset, batch_size=64, shuffle=True, seed=0, num_workers=2)
        >>> [tuple(images.shape) for images, labels in loader]
        [(64, 3, 8, 8), (36, 3, 8, 8)]
    """

    dataset: Dataset[_T_co]
    batch_size: int | None
    drop_last: bool
    num_workers: int
    persistent_workers: bool
    seed: int | None
    sampler: Any
    _epoch: int
    _iterator: _MultiProcessIter | None
    _iterable: bool
    _own_random_sampler: bool
    batch_sampler: Any
    prefetch_factor: int
    timeout: float
    worker_init_fn: Callable[[int], None] | None
    multiprocessing_context: Any
    generator: Any
    _custom_collate: bool

    def __init__(
        self,
        dataset: Dataset[_T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = False,
        sampler: Sampler[Any] | Iterable[Any] | None = None,
        batch_sampler: Sampler[Any] | Iterable[Any] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[_T_co]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = 2,
        persistent_workers: bool = False,
        seed: int | None = None,
    ) -> None:
        _check_int(
            "num_workers",
            num_workers,
            0,
            "num_workers option should be non-negative; "
            "use num_workers=0 to disable multiprocessing.",
        )
        if not isinstance(timeout, numbers.Real) or timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if prefetch_factor is None:
            prefetch_factor = 2
        _check_int("prefetch_factor", prefetch_factor, 1)
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"collate_fn must be callable, got {type(collate_fn).__name__}")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError(f"worker_init_fn must be callable, got {type(worker_init_fn).__name__}")
        if seed is not None:
            _check_int("seed", seed, 0)
            if generator is not None:
                raise ValueError("DataLoader: pass either seed or generator, not both")
        if pin_memory:
            warnings.warn(
                "pin_memory=True has no effect: nnlite runs on the CPU only", stacklevel=2
            )
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (False, None):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                    f"shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                    f"sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
            sampler = _InfiniteConstantSampler()
        shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError(
                    "batch_size=None option disables auto-batching and is mutually exclusive "
                    "with drop_last"
                )
        else:
            _check_int("batch_size", batch_size, 1)

        self._own_random_sampler = False
        if sampler is None:
            if shuffle:
                sampler = RandomSampler(dataset, generator=generator, seed=seed)
                self._own_random_sampler = True
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, bool(drop_last))

        self.dataset = dataset
        self._iterable = iterable
        self.batch_size = batch_size
        self.drop_last = bool(drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = int(num_workers)
        self.prefetch_factor = int(prefetch_factor)
        self.persistent_workers = bool(persistent_workers)
        self.pin_memory = False
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.seed = seed
        self._custom_collate = collate_fn is not None
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn: _Collate = collate_fn
        self._epoch = 0
        self._iterator = None

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:  # the batch sampler, or the sampler without auto-batching
        return self.batch_sampler if self._auto_collation else self.sampler

    def _make_fetcher(self) -> _Fetcher | _IterableFetcher:
        if self._iterable:
            return _IterableFetcher(self._auto_collation, self.collate_fn, self.drop_last)
        getitems = callable(getattr(self.dataset, "__getitems__", None))
        collated = bool(getattr(self.dataset, "getitems_collated", False))
        # A dataset whose __getitems__ returns ready batches can't serve a custom collate_fn,
        # which expects a list of samples: that case goes sample by sample.
        use_getitems = self._auto_collation and getitems and not (self._custom_collate and collated)
        return _Fetcher(
            self._auto_collation,
            self.collate_fn,
            self._custom_collate,
            use_getitems,
            collated and use_getitems,
        )

    def _base_seed(self, epoch: int) -> int:
        if self.seed is not None:
            rng = np.random.default_rng([self.seed, epoch, 0x5EED])
        elif isinstance(self.generator, np.random.Generator):
            rng = self.generator
        else:
            return _core.draw_seed()
        return int(rng.integers(0, 2**62))

    def __iter__(self) -> Iterator[Any]:
        epoch = self._epoch
        self._epoch += 1
        if self.seed is not None and self._own_random_sampler:
            self.sampler.set_epoch(epoch)
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None or self._iterator._closed:
                self._iterator = _MultiProcessIter(self, epoch)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self, epoch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # type: ignore[arg-type]  # TypeError without __len__, as in PyTorch
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    # No __del__ shutting down a persistent iterator: a loop may still hold the iterator after the
    # loader is gone (``for x in DataLoader(..., persistent_workers=True)``); the iterator stops
    # its workers when it is itself released.


def _len_or_none(obj: object) -> int | None:
    try:
        return len(obj)  # type: ignore[arg-type]  # anything with __len__; TypeError otherwise
    except TypeError:  # a sampler without __len__
        return None


class _BaseIter:
    _length: int | None

    def __iter__(self) -> _BaseIter:
        return self

    def __next__(self) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        if self._length is None:
            raise TypeError("this DataLoader's sampler has no len()")
        return self._length


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader[Any]) -> None:
        self._dataset = loader.dataset
        self._fetch = loader._make_fetcher()
        self._fetch.begin_epoch(self._dataset)
        self._indices = iter(loader._index_sampler)
        self._length = _len_or_none(loader)

    def __next__(self) -> Any:
        return self._fetch(self._dataset, next(self._indices))


_live_iterators: weakref.WeakSet[Any] = weakref.WeakSet()


def _shutdown_all() -> None:
    for it in list(_live_iterators):
        try:
            it._shutdown()
        except Exception:
            pass


atexit.register(_shutdown_all)


def _default_context() -> Any:  # a multiprocessing context
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "is no longer running"
    if code < 0:
        return f"exited unexpectedly with exit code {code} (killed by {signal_name(code)})"
    return f"exited unexpectedly with exit code {code}"


class _MultiProcessIter(_BaseIter):
    """Worker processes, each with a channel of its own (``_runtime.worker_channel``); batches are
    read in order."""

    def __init__(self, loader: DataLoader[Any], epoch: int) -> None:
        self._closed = True  # until the workers exist, nothing to shut down
        self._persistent = loader.persistent_workers
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers
        self._timeout = loader.timeout
        ctx: Any = loader.multiprocessing_context  # a multiprocessing context, or its name
        if ctx is None:
            ctx = _default_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        fetch = loader._make_fetcher()
        base_seed = loader._base_seed(epoch)
        self._done_event = ctx.Event()
        self._tag = ctx.Value("q", 0, lock=False)
        self._channels: list[WorkerChannel] = []
        self._workers: list[Any] = []  # the context's Process objects
        self._closed = False
        _live_iterators.add(self)
        try:
            for worker_id in range(self._num_workers):
                channel = WorkerChannel()
                self._channels.append(channel)
                w = ctx.Process(
                    target=_worker.worker_loop,
                    args=(
                        loader.dataset,
                        fetch,
                        channel.worker_end,
                        self._done_event,
                        self._tag,
                        base_seed + worker_id,
                        worker_id,
                        self._num_workers,
                        loader.worker_init_fn,
                    ),
                    daemon=True,
                )
                w.start()
                channel.started(w)
                self._workers.append(w)
        except BaseException:
            self._shutdown()
            raise
        self._reset(loader)

    def _reset(self, loader: DataLoader[Any]) -> None:
        self._indices = iter(loader._index_sampler)
        self._length = _len_or_none(loader)
        self._tag.value += 1  # results of an abandoned epoch are dropped
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker: dict[int, int] = {}
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._active = [
            True
        ] * self._num_workers  # False once a worker's IterableDataset copy ended
        for _ in range(self._prefetch):
            self._put_task()

    def _put_task(self) -> None:
        try:
            indices = next(self._indices)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._active[worker_id]:
                break
        else:
            return  # every worker's iterator is exhausted
        try:
            self._channels[worker_id].send((self._tag.value, self._send_idx, indices))
        except OSError:  # the worker is gone: reported when its result is awaited
            pass
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1

    def __next__(self) -> Any:
        try:
            while True:
                if self._closed or self._rcvd_idx == self._send_idx:
                    if not self._persistent:
                        self._shutdown()
                    raise StopIteration
                worker_id = self._task_worker.pop(self._rcvd_idx)
                while True:
                    tag, task_id, payload = self._get(worker_id)
                    if tag == self._tag.value:
                        break
                assert task_id == self._rcvd_idx, (task_id, self._rcvd_idx)
                self._rcvd_idx += 1
                if isinstance(payload, _worker.IterationEnd):
                    self._active[worker_id] = False
                    self._put_task()
                    continue
                self._put_task()
                break
        except KeyboardInterrupt:
            self._shutdown()
            raise
        if isinstance(payload, ExceptionWrapper):
            # the workers end before the error reaches the caller, who may keep its traceback
            # (and with it this iterator) for long; the iteration ends with them
            self._shutdown()
            payload.reraise()
        return _worker.unpack(payload)

    def _get(self, worker_id: int) -> Any:  # the (tag, task id, payload) a worker sent
        """The next message from worker ``worker_id``; an error if it dies or the timeout passes.
        Tasks that did not fit in a task pipe are written while waiting."""
        channel = self._channels[worker_id]
        deadline = time.monotonic() + self._timeout if self._timeout else None
        if not wait([channel], deadline, flushing=self._channels):
            self._shutdown()
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        try:
            return channel.receive()
        except (EOFError, OSError):
            self._worker_died(worker_id)
        except Exception as e:
            self._shutdown()
            raise RuntimeError(
                f"DataLoader could not unpickle a batch sent by worker {worker_id}: {e!r}"
            ) from e

    def _worker_died(self, worker_id: int) -> NoReturn:
        w = self._workers[worker_id]
        w.join(timeout=JOIN_TIMEOUT)
        pid, code = w.pid, w.exitcode
        self._shutdown()
        raise RuntimeError(
            f"DataLoader worker {worker_id} (pid {pid}) {_describe_exit(code)}. A worker killed by a signal is "
            f"often the out-of-memory killer or a crash in native code (a forked worker must not run "
            f"OpenMP/numba parallel code the parent already ran: use multiprocessing_context='spawn' for "
            f"that); run with num_workers=0 to load the data in the main process and see the error there."
        )

    def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        _live_iterators.discard(self)
        try:
            self._done_event.set()
            # end of file on the task pipes, EPIPE on the result pipes: workers stop at once
            for channel in self._channels:
                channel.close()
            stop_processes(self._workers, JOIN_TIMEOUT)
        finally:
            for channel in self._channels:
                channel.close()

    def __del__(self) -> None:
        try:
            self._shutdown()
        except Exception:
            pass
