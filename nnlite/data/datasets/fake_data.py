"""``FakeData``: random images with random labels, for trying a pipeline without a dataset."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..dataset import Dataset

__all__ = ["FakeData"]


class FakeData(Dataset[tuple[Any, Any]]):
    """``size`` random images of ``image_size = (C, H, W)`` with labels in ``[0, num_classes)``, as
    ``torchvision.datasets.FakeData``.

    Item ``i`` is the same on every access and in every process (drawn from a generator seeded with
    ``i + random_offset``; nnlite's global random state is not touched). Without a transform the
    image is an ``H x W x C`` uint8 array, as nnlite's other datasets give (torchvision gives a PIL
    image), and the label an int. The values differ from torchvision's, which come from torch's
    generator.

    Args:
        size (int): the number of samples. Default: 1000.
        image_size (tuple): ``(C, H, W)``. Default: ``(3, 224, 224)``.
        num_classes (int): labels are below it. Default: 10.
        transform (callable, optional): applied to each image.
        target_transform (callable, optional): applied to each label.
        random_offset (int): shifts every item's seed. Default: 0.

    Examples:
        >>> from nnlite.data import transforms
        >>> data = FakeData(size=100, image_size=(1, 28, 28), transform=transforms.ToTensor())
        >>> image, label = data[0]; image.shape
        nnlite.Size([1, 28, 28])
    """

    def __init__(
        self,
        size: int = 1000,
        image_size: Sequence[int] = (3, 224, 224),
        num_classes: int = 10,
        transform: Callable[[Any], Any] | None = None,
        target_transform: Callable[[int], Any] | None = None,
        random_offset: int = 0,
    ) -> None:
        if len(image_size) != 3:
            raise ValueError(f"FakeData: image_size must be (C, H, W), got {image_size!r}")
        self.size = int(size)
        self.image_size = tuple(int(s) for s in image_size)
        self.num_classes = int(num_classes)
        self.transform = transform
        self.target_transform = target_transform
        self.random_offset = int(random_offset)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if not -self.size <= index < self.size:
            raise IndexError(f"{type(self).__name__} index out of range")
        index %= self.size
        rng = np.random.default_rng(index + self.random_offset)
        channels, height, width = self.image_size
        image: Any = rng.integers(0, 256, size=(height, width, channels), dtype=np.uint8)
        target: Any = int(rng.integers(0, self.num_classes))
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __repr__(self) -> str:
        return f"Dataset {type(self).__name__}\n    Number of datapoints: {self.size}"
