"""Index samplers: sequential, random, subset-random, batch and distributed."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from . import _core

if TYPE_CHECKING:
    from .dataset import Dataset


_T_co = TypeVar("_T_co", covariant=True)

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "WeightedRandomSampler",
]


class Sampler(Generic[_T_co]):
    """Iterates over dataset indices (or lists of indices, for batch samplers).

    Args:
        data_source (Dataset, optional): accepted for compatibility.

    Examples:
        >>> from nnlite.data import Sampler
        >>> class EvenFirst(Sampler):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter([*range(0, self.n, 2), *range(1, self.n, 2)])
        ...     def __len__(self):
        ...         return self.n
        >>> list(EvenFirst(5))
        [0, 2, 4, 1, 3]
    """

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


def _check_int(name: Any, value: Any, minimum: Any) -> None:
    if (
        not isinstance(value, (numbers.Integral, np.integer))
        or isinstance(value, bool)
        or value < minimum
    ):
        raise ValueError(f"{name} should be an integer >= {minimum}, but got {name}={value!r}")


def _make_rng(generator: Any) -> Any:
    if generator is None:
        return np.random.default_rng(_core.draw_seed())
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, (numbers.Integral, np.integer)) and not isinstance(generator, bool):
        return np.random.default_rng(int(generator))
    raise TypeError(
        f"generator must be a numpy Generator, an int seed or None, got {type(generator).__name__}"
    )


class SequentialSampler(Sampler[int]):
    """Indices ``0 .. len(data_source) - 1`` in order.

    Args:
        data_source (Dataset): gives the length.

    Examples:
        >>> from nnlite.data import SequentialSampler
        >>> list(SequentialSampler(range(3)))
        [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Indices in random order (a permutation, or draws with replacement).

    ``generator`` may be a numpy ``Generator`` (used as is) or an int seed. ``seed`` makes every
    pass's order a function of ``(seed, epoch)``: a pass uses ``numpy.random.default_rng([seed,
    epoch])`` and then advances ``epoch`` by one (``set_epoch`` sets it).
    With neither, each pass draws a fresh seed from nnlite's generator (``nl.manual_seed``).

    Args:
        data_source (Dataset): gives the length.
        replacement (bool): draw with replacement. Default: False.
        num_samples (int, optional): how many indices per pass. Default: the length.
        generator (numpy.random.Generator or int, optional): the generator or its seed.
        seed (int, optional): a seed for reproducible passes (nnlite's addition).

    Examples:
        >>> from nnlite.data import RandomSampler
        >>> sorted(RandomSampler(range(4), seed=0))
        [0, 1, 2, 3]
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
        seed: int | None = None,
    ) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement!r}"
            )
        if generator is not None and seed is not None:
            raise ValueError("RandomSampler: pass either generator or seed, not both")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        self.seed = seed
        self.epoch = 0
        if num_samples is not None:
            _check_int("num_samples", num_samples, 1)

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields.

        Examples:
            >>> from nnlite.data import RandomSampler
            >>> RandomSampler(range(10), replacement=True, num_samples=4).num_samples
            4
        """
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def set_epoch(self, epoch: int) -> None:
        """Make the next ``iter`` use ``epoch``'s order (only meaningful with ``seed``).

        Args:
            epoch (int): the epoch of the next pass.

        Examples:
            >>> from nnlite.data import RandomSampler
            >>> sampler = RandomSampler(range(5), seed=0)
            >>> sampler.set_epoch(1)
            >>> first = list(sampler)
            >>> sampler.set_epoch(1)
            >>> list(sampler) == first
            True
        """
        self.epoch = int(epoch)

    def _rng(self) -> Any:
        if self.seed is None:
            return _make_rng(self.generator)
        epoch = self.epoch
        self.epoch += 1
        return np.random.default_rng([int(self.seed), epoch])

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = self._rng()
        if n == 0:
            return iter(())
        # lazily, a chunk at a time: num_samples may be far larger than memory allows
        if self.replacement:
            return _draws_with_replacement(rng, n, self.num_samples)
        return _permutations(rng, n, self.num_samples)

    def __len__(self) -> int:
        return self.num_samples


_CHUNK = 32  # indices drawn at a time with replacement (PyTorch's chunk)


def _draws_with_replacement(rng: Any, n: int, count: int) -> Iterator[int]:
    """``count`` indices below ``n`` drawn with replacement, ``_CHUNK`` at a time."""
    for start in range(0, count, _CHUNK):
        yield from rng.integers(0, n, size=min(_CHUNK, count - start)).tolist()


def _permutations(rng: Any, n: int, count: int) -> Iterator[int]:
    """``count`` indices: whole permutations of ``range(n)``, the last one cut short."""
    while count > 0:
        order = rng.permutation(n)
        yield from order[: min(n, count)].tolist()
        count -= n


class SubsetRandomSampler(Sampler[int]):
    """The given indices in random order.

    Args:
        indices (sequence of ints): the indices.
        generator (numpy.random.Generator, optional): draws the order.

    Examples:
        >>> from nnlite.data import SubsetRandomSampler
        >>> sorted(SubsetRandomSampler([5, 7, 9]))
        [5, 7, 9]
    """

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        rng = _make_rng(self.generator)
        return iter([self.indices[i] for i in rng.permutation(len(self.indices)).tolist()])

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter unless
    ``drop_last``).

    Args:
        sampler (Sampler or iterable): yields indices.
        batch_size (int): indices per batch.
        drop_last (bool): drop the last incomplete batch.

    Examples:
        >>> from nnlite.data import BatchSampler, SequentialSampler
        >>> list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(
        self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        _check_int("batch_size", batch_size, 1)
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last!r}"
            )
        self.sampler = sampler
        self.batch_size = int(batch_size)
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        bs = self.batch_size
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == bs:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]  # a sampler with a length
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def _mpi_world() -> Any:
    from ..distributed.process_group import GroupMember

    world = GroupMember.WORLD
    if world is not None:  # init_process_group ran: its group decides
        return world.size(), world.rank()
    try:
        from mpi4py import MPI
    except ImportError:
        raise RuntimeError(
            "DistributedSampler needs num_replicas and rank: pass them explicitly, or install mpi4py "
            "(pip install 'nnlite[mpi]', with Open MPI from your system's packages) and launch with "
            "mpirun to take them from MPI.COMM_WORLD"
        ) from None
    comm = MPI.COMM_WORLD
    return comm.Get_size(), comm.Get_rank()


class DistributedSampler(Sampler[int]):
    """The shard of the dataset's indices that belongs to one of ``num_replicas`` processes.

    As PyTorch's: the (optionally shuffled, by ``seed + epoch``) index list is padded by repeating
    its head to a multiple of ``num_replicas`` (or, with ``drop_last``, cut to one), and rank ``r``
    takes ``indices[r::num_replicas]``; every rank gets the same number of samples. Call
    ``set_epoch(epoch)`` before each epoch to get a new order. ``num_replicas``/``rank`` default to
    the size and rank of ``nnlite.distributed``'s default group (after ``init_process_group``),
    else ``MPI.COMM_WORLD``'s when mpi4py is installed.

    Args:
        dataset (Dataset): gives the length.
        num_replicas (int, optional): the number of processes. Default: the world size.
        rank (int, optional): this process's rank. Default: this process's rank.
        shuffle (bool): shuffle by ``seed + epoch``. Default: True.
        seed (int): the shuffling seed, the same on every rank. Default: 0.
        drop_last (bool): cut instead of padding. Default: False.

    Examples:
        >>> from nnlite.data import DistributedSampler
        >>> list(DistributedSampler(range(10), num_replicas=2, rank=0, shuffle=False))
        [0, 2, 4, 6, 8]
    """

    def __init__(
        self,
        dataset: Dataset[Any],
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            size, world_rank = _mpi_world()
            num_replicas = size if num_replicas is None else num_replicas
            rank = world_rank if rank is None else rank
        _check_int("num_replicas", num_replicas, 1)
        if not isinstance(rank, (numbers.Integral, np.integer)) or rank >= num_replicas or rank < 0:  # type: ignore[operator]  # numpy and Python integers
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = int(num_replicas)
        self.rank = int(rank)
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = int(seed)
        n = len(dataset)  # type: ignore[arg-type]  # map-style datasets define __len__
        if drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)  # type: ignore[arg-type]  # map-style datasets define __len__
        if self.shuffle:
            indices = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            indices = np.arange(n)
        if not self.drop_last:
            pad = self.total_size - n
            if pad > 0:
                indices = np.concatenate([indices, np.resize(indices, pad)])
        else:
            indices = indices[: self.total_size]
        assert len(indices) == self.total_size
        shard = indices[self.rank : self.total_size : self.num_replicas]
        assert len(shard) == self.num_samples
        return iter(shard.tolist())

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch; with ``shuffle=True`` each epoch has its own order (same on every rank).

        Args:
            epoch (int): the epoch about to start.

        Examples:
            >>> from nnlite.data import DistributedSampler
            >>> sampler = DistributedSampler(range(10), num_replicas=2, rank=1)
            >>> sampler.set_epoch(3)
            >>> len(list(sampler))
            5
        """
        self.epoch = int(epoch)


class WeightedRandomSampler(Sampler[int]):
    """Indices drawn with probabilities proportional to ``weights`` (with replacement by
    default), lazily a chunk at a time.

    Args:
        weights (sequence of float): one non-negative weight per index.
        num_samples (int): how many indices per pass.
        replacement (bool): draw with replacement. Default: True.
        generator (numpy.random.Generator or int, optional): the generator or its seed.

    Examples:
        >>> from nnlite.data import WeightedRandomSampler
        >>> list(WeightedRandomSampler([0.0, 0.0, 1.0], 3))
        [2, 2, 2]
    """

    def __init__(
        self,
        weights: Any,
        num_samples: int,
        replacement: bool = True,
        generator: Any = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        data = weights._data if hasattr(weights, "_data") else weights
        array = np.asarray(data, dtype=np.float64)
        if array.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {array.shape}"
            )
        from ..autograd.creation import tensor

        self.weights = tensor(array)
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        weights = self.weights._data
        if weights.min(initial=0.0) < 0 or not np.isfinite(weights).all():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)"
            )
        total = weights.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = _make_rng(self.generator)
        probabilities = weights / total
        if not self.replacement:
            if self.num_samples > int((weights > 0).sum()):
                raise RuntimeError(
                    "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
                )
            picks = rng.choice(weights.size, size=self.num_samples, replace=False, p=probabilities)
            return iter(picks.tolist())
        return _weighted_draws(rng, probabilities.cumsum(), self.num_samples)

    def __len__(self) -> int:
        return self.num_samples


def _weighted_draws(rng: Any, cumulative: Any, count: int) -> Iterator[int]:
    """``count`` indices drawn with replacement from the cumulative distribution, by chunks."""
    last = len(cumulative) - 1
    for start in range(0, count, _CHUNK):
        draws = rng.random(min(_CHUNK, count - start)) * cumulative[-1]
        yield from np.minimum(np.searchsorted(cumulative, draws, side="right"), last).tolist()
