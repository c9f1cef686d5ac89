"""Base class of the in-memory image classification datasets."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..collate import default_collate, default_convert
from ..dataset import Dataset
from ..transforms import apply_batch

if TYPE_CHECKING:
    from ..._typing import Array, StrPath

__all__ = ["ImageClassificationDataset"]


class ImageClassificationDataset(Dataset[tuple[Any, Any]]):
    """Images in ``self.data`` (``N x H x W x C`` or ``N x H x W`` uint8), labels in
    ``self.targets`` (int64), class names in ``classes``.

    ``dataset[i]`` is ``(image, label)``: with ``transform=None`` an ``H x W x C`` uint8 numpy
    array (``H x W x 1`` for grayscale) and an int. ``__getitems__(indices)`` returns the whole
    batch already collated, ``[images, labels]``, equal to collating the items one by one: one
    fancy-indexing of ``data`` and the transform's batched path (``apply_batch``).

    Args:
        root (str): the folder of the files.
        train (bool): the training split. Default: True.
        transform (callable, optional): applied to each image.
        target_transform (callable, optional): applied to each label.

    Examples:
        >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
        >>> from nnlite.data.datasets import MNIST
        >>> data = MNIST("mnist")
        >>> image, label = data[0]
        >>> image.shape, label, data.classes[label]
        ((28, 28, 1), 0, '0 - zero')
    """

    getitems_collated = True
    classes: list[str] = []
    # the images and labels: arrays (CIFAR-10), or tensors made from them (MNIST's properties)
    data: Any
    targets: Any

    def __init__(
        self,
        root: StrPath,
        train: bool = True,
        transform: Callable[[Any], Any] | None = None,
        target_transform: Callable[[int], Any] | None = None,
    ) -> None:
        self.root = os.path.expanduser(os.fspath(root))
        self.train = train
        if transform is not None and not callable(transform):
            raise TypeError(f"transform must be callable, got {type(transform).__name__}")
        if target_transform is not None and not callable(target_transform):
            raise TypeError(
                f"target_transform must be callable, got {type(target_transform).__name__}"
            )
        self.transform = transform
        self.target_transform = target_transform

    @property
    def class_to_idx(self) -> dict[str, int]:
        """``{class name: index}``.

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> from nnlite.data.datasets import MNIST
            >>> MNIST("mnist").class_to_idx["3 - three"]
            3
        """
        return {name: i for i, name in enumerate(self.classes)}

    def image_array(self) -> Array:
        """The images as one numpy array (``data`` itself here; MNIST's ``data`` is a Tensor).

        Returns:
            numpy.ndarray: ``(N, H, W, C)`` or ``(N, H, W)`` uint8.

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> from nnlite.data.datasets import MNIST
            >>> MNIST("mnist").image_array().shape
            (3, 28, 28)
        """
        images: Array = self.data  # an array wherever a subclass does not say otherwise
        return images

    def label_array(self) -> Array:
        """The labels as one numpy array.

        Returns:
            numpy.ndarray: int64 labels.

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> from nnlite.data.datasets import MNIST
            >>> MNIST("mnist").label_array()
            array([0, 0, 0])
        """
        labels: Array = self.targets  # as image_array
        return labels

    def __len__(self) -> int:
        return len(self.image_array())

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img = self.image_array()[index]
        if img.ndim == 2:
            img = img[:, :, None]
        target: Any = int(self.label_array()[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __getitems__(self, indices: Sequence[int]) -> list[Any]:
        idx = np.asarray(indices, dtype=np.int64)
        imgs = self.image_array()[idx]
        if imgs.ndim == 3:
            imgs = imgs[:, :, :, None]
        if self.transform is None:
            images = _core.from_numpy(imgs)
        elif hasattr(self.transform, "apply_batch"):
            images = default_convert(apply_batch(self.transform, imgs))
        else:
            images = default_collate([self.transform(imgs[i]) for i in range(len(idx))])
        targets = np.asarray(self.label_array())[idx]
        if self.target_transform is None:
            labels = _core.from_numpy(targets.astype(np.int64, copy=False))
        else:
            labels = default_collate([self.target_transform(int(t)) for t in targets])
        return [images, labels]

    def extra_repr(self) -> str:
        """Extra lines for the repr, after the standard ones (none here; subclasses may add some).

        Returns:
            str: the lines, or ``""``.

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> from nnlite.data.datasets import MNIST
            >>> MNIST("mnist").extra_repr()
            ''
        """
        return ""

    def __repr__(self) -> str:
        lines = [
            f"Dataset {type(self).__name__}",
            f"    Number of datapoints: {len(self)}",
            f"    Root location: {self.root}",
            f"    Split: {'Train' if self.train else 'Test'}",
        ]
        extra = self.extra_repr()
        if extra:
            lines += ["    " + line for line in extra.splitlines()]
        if self.transform is not None:
            lines += ["    Transform: " + repr(self.transform).replace("\n", "\n    ")]
        if self.target_transform is not None:
            lines += [
                "    Target transform: " + repr(self.target_transform).replace("\n", "\n    ")
            ]
        return "\n".join(lines)


def torchvision_datasets() -> Any:  # the torchvision.datasets module, or None
    """``torchvision.datasets`` when torchvision is installed, else ``None``."""
    try:
        import torchvision.datasets as tvd
    except Exception:  # not installed, or broken (e.g. mismatched torch): use nnlite's downloader
        return None
    return tvd
