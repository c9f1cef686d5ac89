"""``StackDataset``: several datasets of one length read together, as a tuple or a dict per
sample (PyTorch's ``torch.utils.data.StackDataset``)."""

from __future__ import annotations

from typing import Any

from .dataset import Dataset

__all__ = ["StackDataset"]


class StackDataset(Dataset[tuple[Any, ...] | dict[str, Any]]):
    """Sample ``i`` is ``(d[i] for d in args)`` or ``{k: d[i] for k, d in kwargs}``.

    Args:
        *args (Dataset): datasets of one length, read into tuples.
        **kwargs (Dataset): datasets of one length, read into dicts.

    Examples:
        >>> from nnlite.data import StackDataset
        >>> StackDataset(image=[1, 2], label=[0, 1])[1]
        {'image': 2, 'label': 1}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        datasets = list(args) if args else list(kwargs.values())
        self._length = len(datasets[0])
        if any(self._length != len(dataset) for dataset in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = args if args else kwargs

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length
