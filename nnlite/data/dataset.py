"""Datasets: map-style ``Dataset``, ``TensorDataset``, ``Subset``, ``ConcatDataset``, ``random_split``;
stream-style ``IterableDataset`` and ``ChainDataset``."""

from __future__ import annotations

import bisect
import math
import numbers
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from . import _core

if TYPE_CHECKING:
    from ..autograd.tensor import Tensor

_T_co = TypeVar("_T_co", covariant=True)

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "ChainDataset",
    "random_split",
]


class Dataset(Generic[_T_co]):
    """A map from indices to samples, as ``torch.utils.data.Dataset``.

    Subclasses implement ``__getitem__(index)`` and ``__len__()``. A subclass may also implement
    ``__getitems__(indices)`` to fetch a whole batch in one call; ``DataLoader`` then uses it
    instead of one ``__getitem__`` per sample. ``__getitems__`` returns either a list of samples
    (which the loader collates, PyTorch's contract) or, when the class sets
    ``getitems_collated = True``, the batch already collated exactly as ``default_collate`` would
    have collated the samples (the built-in datasets do this with vectorised numpy indexing and
    batched transforms).

    Examples:
        >>> from nnlite.data import Dataset
        >>> class Squares(Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return i * i
        >>> [Squares()[i] for i in range(len(Squares()))]
        [0, 1, 4, 9]
    """

    #: ``__getitems__`` returns a ready batch rather than a list of samples.
    getitems_collated = False

    def __getitem__(self, index: int) -> _T_co:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: Any) -> Any:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """A stream of samples, as ``torch.utils.data.IterableDataset``: subclasses implement
    ``__iter__``.

    With ``num_workers > 0`` every DataLoader worker iterates its own copy of the dataset, so
    without care each sample comes once per worker. Split the stream in ``__iter__`` with
    ``get_worker_info()``, which returns the worker's ``id``, ``num_workers``, ``seed`` and its
    copy of the ``dataset`` (``None`` in the main process). A ``DataLoader`` over an
    ``IterableDataset`` takes no ``shuffle``, ``sampler`` or ``batch_sampler``; its batches come
    from the workers in turn, and a worker whose iterator ends drops out.

    Examples:
        >>> from nnlite.data import DataLoader, get_worker_info
        >>> class Range(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         info = get_worker_info()
        ...         if info is None:                  # loading in the main process
        ...             return iter(range(self.n))
        ...         return iter(range(info.id, self.n, info.num_workers))
        >>> sorted(int(x) for x in DataLoader(Range(6), num_workers=2))
        [0, 1, 2, 3, 4, 5]
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: Any) -> Any:
        return ChainDataset([self, other])


class ChainDataset(IterableDataset[Any]):  # items of whichever datasets it chains
    """The samples of several ``IterableDataset``s, one after the other.

    Args:
        datasets (iterable of IterableDatasets): the parts, in order.

    Examples:
        >>> from nnlite.data import ChainDataset, IterableDataset
        >>> class Count(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(ChainDataset([Count(2), Count(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]  # map-style datasets define __len__
        return total


def _is_int_index(index: object) -> bool:
    return isinstance(index, (numbers.Integral, np.integer)) and not isinstance(index, bool)


class TensorDataset(Dataset[tuple["Tensor", ...]]):
    """Samples are the i-th rows of the given tensors (numpy arrays are accepted and wrapped).

    Examples:
        >>> from nnlite.data import TensorDataset
        >>> ds = TensorDataset(nl.arange(6.), nl.arange(6) % 2)
        >>> ds[1], len(ds)
        ((tensor(1.), tensor(1)), 6)
    """

    getitems_collated = True

    def __init__(self, *tensors: Any) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        wrapped = []
        for i, t in enumerate(tensors):
            if isinstance(t, np.ndarray):
                t = _core.from_numpy(t)
            elif not _core.is_tensor(t):
                raise TypeError(
                    f"TensorDataset: argument {i} must be a Tensor or a numpy array, "
                    f"got {type(t).__name__}"
                )
            if t.ndim == 0:
                raise ValueError(
                    f"TensorDataset: argument {i} is a 0-d tensor; every tensor needs a "
                    f"first (sample) dimension"
                )
            wrapped.append(t)
        n = wrapped[0].shape[0]
        if any(t.shape[0] != n for t in wrapped):
            sizes = [t.shape[0] for t in wrapped]
            raise ValueError(f"Size mismatch between tensors: first dimensions are {sizes}")
        self.tensors = tuple(wrapped)

    def __getitem__(self, index: int) -> Any:
        return tuple(t[index] for t in self.tensors)

    def __getitems__(self, indices: Sequence[int]) -> Any:
        idx = np.asarray(indices, dtype=np.int64)
        out = []
        for t in self.tensors:
            if t.requires_grad:  # keep the graph: stack the per-row views
                out.append(_core.stack_with_grad([t[int(i)] for i in idx]))
            else:
                out.append(_core.from_numpy(_core.array_of(t)[idx]))
        return out

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset[_T_co]):
    """The samples of ``dataset`` at ``indices``.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence of ints): the positions to keep.

    Examples:
        >>> from nnlite.data import TensorDataset
        >>> ds = TensorDataset(nl.arange(6.), nl.arange(6) % 2)
        >>> from nnlite.data import Subset
        >>> Subset(ds, [0, 2])[1]
        (tensor(2.), tensor(0))
    """

    def __init__(self, dataset: Dataset[_T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    @property
    def getitems_collated(self) -> bool:  # type: ignore[override]  # follows the wrapped dataset
        """Whether ``__getitems__`` returns ready batches: when the wrapped dataset's does.

        Examples:
            >>> from nnlite.data import TensorDataset
            >>> ds = TensorDataset(nl.arange(6.), nl.arange(6) % 2)
            >>> from nnlite.data import Subset
            >>> Subset(ds, [0, 2]).getitems_collated
            True
        """
        return bool(getattr(self.dataset, "getitems_collated", False)) and hasattr(
            self.dataset, "__getitems__"
        )

    def __getitem__(self, idx: int) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: Sequence[int]) -> Any:
        mapped = [self.indices[i] for i in indices]
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[_T_co]):
    """The concatenation of several datasets.

    Args:
        datasets (iterable of Datasets): the parts, in order.

    Examples:
        >>> from nnlite.data import ConcatDataset, TensorDataset
        >>> both = ConcatDataset([TensorDataset(nl.zeros(2)), TensorDataset(nl.ones(3))])
        >>> len(both), both[2]
        (5, (tensor(1.),))
    """

    def __init__(self, datasets: Iterable[Dataset[_T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)  # type: ignore[arg-type]  # map-style datasets define __len__
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        if idx >= len(self):
            raise IndexError(
                f"index {idx} is out of range for a ConcatDataset of length {len(self)}"
            )
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


def _generator(generator: Any, seed: int | None) -> Any:
    """A numpy Generator from ``generator`` (Generator, int seed or None) or ``seed``."""
    if generator is not None and seed is not None:
        raise ValueError("pass either generator or seed, not both")
    if generator is None:
        generator = seed
    if generator is None:
        return np.random.default_rng(_core.draw_seed())
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, np.random.RandomState):
        return np.random.default_rng(generator.randint(0, 2**63 - 1, dtype=np.int64))
    if _is_int_index(generator):
        return np.random.default_rng(int(generator))
    raise TypeError(
        f"generator must be a numpy Generator, an int seed or None, got {type(generator).__name__}"
    )


def random_split(
    dataset: Dataset[Any],
    lengths: Sequence[int | float],
    generator: Any = None,
    seed: int | None = None,
) -> Any:
    """Split ``dataset`` into non-overlapping random ``Subset``s of the given lengths.

    ``lengths`` are sizes summing to ``len(dataset)`` or fractions summing to 1 (the remainder
    of the floored sizes goes round-robin to the first subsets, as in PyTorch). The permutation
    comes from ``generator`` (a numpy ``Generator`` or an int seed) or ``seed``; without either,
    from nnlite's generator (seeded by ``nl.manual_seed``).

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence of ints or floats): the sizes, or fractions summing to 1.
        generator (numpy.random.Generator, optional): draws the permutation.
        seed (int, optional): seeds the permutation (nnlite's addition).

    Returns:
        list of Subset: one per length.

    Examples:
        >>> from nnlite.data import TensorDataset
        >>> ds = TensorDataset(nl.arange(6.), nl.arange(6) % 2)
        >>> from nnlite.data import random_split
        >>> train, val = random_split(ds, [0.5, 0.5], seed=0)
        >>> len(train), len(val), sorted(list(train.indices) + list(val.indices))
        (3, 3, [0, 1, 2, 3, 4, 5])
    """
    lengths = list(lengths)
    n = len(dataset)  # type: ignore[arg-type]  # map-style datasets define __len__
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
        lengths = sizes
    for i, size in enumerate(lengths):
        if not _is_int_index(size) or size < 0:
            raise ValueError(
                f"random_split: length at index {i} must be a non-negative int "
                f"(or all lengths fractions summing to 1), got {size!r}"
            )
    if sum(lengths) != n:
        raise ValueError(
            f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input "
            f"dataset ({n})!"
        )
    perm = _generator(generator, seed).permutation(n).tolist()
    out, offset = [], 0
    for size in lengths:
        out.append(Subset(dataset, perm[offset : offset + size]))
        offset += size
    return out
