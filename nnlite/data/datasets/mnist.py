"""MNIST and Fashion-MNIST, read from their IDX files."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...autograd.creation import from_numpy
from . import _download
from ._formats import DatasetFormatError, read_idx_images, read_idx_labels
from .vision import ImageClassificationDataset, torchvision_datasets

if TYPE_CHECKING:
    from ..._typing import Array, StrPath
    from ...autograd.tensor import Tensor

__all__ = ["MNIST", "FashionMNIST"]


class MNIST(ImageClassificationDataset):
    """The MNIST handwritten digits: 60000 training and 10000 test 28x28 grayscale images.

    Reads the four IDX files (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
    ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``, each gzipped ``.gz`` or not) found
    directly under ``root`` or in torchvision's layout ``root/MNIST/raw/``. As in torchvision,
    ``.data`` is an ``N x 28 x 28`` uint8 Tensor and ``.targets`` an int64 Tensor (both sharing the
    arrays' memory); items are ``(28 x 28 x 1 uint8 array, int)``.
    With ``download=True`` files already present (right MD5, or valid IDX files) are used as they
    are; otherwise torchvision downloads them when installed, else nnlite fetches them from the
    official mirrors into ``root/MNIST/raw/`` and checks their MD5.

    Args:
        root (str): the folder holding the files.
        train (bool): the training split (else the test split). Default: True.
        download (bool): fetch the files when missing. Default: False.
        transform (callable, optional): applied to each image.
        target_transform (callable, optional): applied to each label.

    Examples:
        >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
        >>> data = MNIST("mnist", train=True)
        >>> image, label = data[0]
        >>> len(data), image.shape, label
        (3, (28, 28, 1), 0)
    """

    mirrors = [
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "http://yann.lecun.com/exdb/mnist/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]

    def __init__(
        self,
        root: StrPath,
        train: bool = True,
        download: bool = False,
        transform: Callable[[Any], Any] | None = None,
        target_transform: Callable[[int], Any] | None = None,
    ) -> None:
        super().__init__(root, train=train, transform=transform, target_transform=target_transform)
        self._read_cache: dict[
            str, Array
        ] = {}  # arrays already read while checking the files for download
        if download:
            self.download()
        prefix = "train" if train else "t10k"
        images_path = self._find(f"{prefix}-images-idx3-ubyte")
        labels_path = self._find(f"{prefix}-labels-idx1-ubyte")
        if images_path is None or labels_path is None:
            missing = [
                s
                for s, p in (
                    (f"{prefix}-images-idx3-ubyte", images_path),
                    (f"{prefix}-labels-idx1-ubyte", labels_path),
                )
                if p is None
            ]
            raise RuntimeError(self._missing_message(missing))
        cache, self._read_cache = self._read_cache, {}
        self._images = cache[images_path] if images_path in cache else read_idx_images(images_path)
        self._labels = (
            cache[labels_path]
            if labels_path in cache
            else read_idx_labels(labels_path, len(self.classes))
        )
        if len(self._images) != len(self._labels):
            raise DatasetFormatError(
                f"{images_path} holds {len(self._images)} images but {labels_path} holds "
                f"{len(self._labels)} labels"
            )
        self.files = (images_path, labels_path)

    # torchvision's MNIST holds tensors here; made on each access so that pickling the dataset
    # (spawned workers) carries only the arrays
    @property
    def data(self) -> Tensor:  # a Tensor made on access, as torchvision's
        """The images, a ``(N, 28, 28)`` uint8 tensor.

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> MNIST("mnist").data.shape
            nnlite.Size([3, 28, 28])
        """
        return from_numpy(self._images)

    @property
    def targets(self) -> Tensor:  # a Tensor made on access
        """The labels, an int64 tensor.

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> MNIST("mnist").targets
            tensor([0, 0, 0])
        """
        return from_numpy(self._labels)

    def image_array(self) -> Array:
        return self._images

    def label_array(self) -> Array:
        return self._labels

    @property
    def raw_folder(self) -> str:
        """torchvision's folder for the raw files, ``root/<Class>/raw`` (nnlite also reads them
        directly under ``root``).

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> MNIST("mnist").raw_folder
            'mnist/MNIST/raw'
        """
        return os.path.join(self.root, type(self).__name__, "raw")

    def _find(self, stem: str) -> str | None:
        """The path of ``stem`` (raw or ``.gz``) under ``root`` or ``root/<Name>/raw``, or None."""
        for folder in (self.root, self.raw_folder):
            for name in (stem, stem + ".gz"):
                path = os.path.join(folder, name)
                if os.path.isfile(path):
                    return path
        return None

    def _missing_message(self, missing: list[str]) -> str:
        names = ", ".join(f"{s}[.gz]" for s in missing)
        return (
            f"{type(self).__name__}: dataset files not found: {names} expected directly in {self.root} or "
            f"in {self.raw_folder}. Use download=True to download them, or download "
            f"{', '.join(f for f, _ in self.resources)} from {self.mirrors[0]} and put them in one of "
            f"these folders."
        )

    def _file_ok(self, stem: str, md5: str) -> bool:
        path = self._find(stem)
        if path is None:
            return False
        if path.endswith(".gz") and _download.file_md5(path) == md5:
            return True
        try:  # uncompressed, or compressed by someone else: fine if it is a valid IDX file
            if "-images-" in stem:
                arr = read_idx_images(path)
            else:
                arr = read_idx_labels(path, len(self.classes))
        except DatasetFormatError:
            return False
        if stem.startswith("train" if self.train else "t10k"):
            self._read_cache[path] = arr
        return True

    def _check_integrity(self) -> bool:
        return all(self._file_ok(f[:-3], md5) for f, md5 in self.resources)

    def download(self) -> None:
        """Make the four IDX files present (nothing to do if they already are).

        Examples:
            >>> write_fake_mnist("mnist", train=3, test=2)  # tiny MNIST files
            >>> MNIST("mnist").download()  # the files are there: nothing to fetch
        """
        if self._check_integrity():
            return
        tvd = torchvision_datasets()
        if tvd is not None:
            try:
                getattr(tvd, type(self).__name__)(self.root, train=self.train, download=True)
            except Exception as e:
                raise RuntimeError(
                    f"torchvision could not download {type(self).__name__} into {self.root}: {e}. "
                    + self._offline_hint()
                ) from e
            return
        for filename, md5 in self.resources:
            if self._file_ok(filename[:-3], md5):
                continue
            try:
                _download.download_url(
                    [m + filename for m in self.mirrors], self.raw_folder, filename, md5
                )
            except _download.DownloadError as e:
                raise RuntimeError(f"{type(self).__name__}: {e}\n" + self._offline_hint()) from e

    def _offline_hint(self) -> str:
        return (
            f"Without network access, download {', '.join(f for f, _ in self.resources)} from "
            f"{self.mirrors[0]} elsewhere and put them in {self.root} or {self.raw_folder}."
        )


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: MNIST's format and sizes, 10 classes of clothing.

    Files as for ``MNIST``, found directly under ``root`` or in ``root/FashionMNIST/raw/``.

    Args:
        root (str): the folder holding the files.
        train (bool): the training split (else the test split). Default: True.
        download (bool): fetch the files when missing. Default: False.
        transform (callable, optional): applied to each image.
        target_transform (callable, optional): applied to each label.

    Examples:
        >>> write_fake_mnist("fashion", train=3, test=2)  # tiny MNIST files
        >>> len(FashionMNIST("fashion", train=False))
        2
    """

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]
