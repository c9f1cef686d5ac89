"""CIFAR-10, read from its python batches."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _download
from ._formats import DatasetFormatError, read_cifar_batch, read_cifar_meta
from .vision import ImageClassificationDataset, torchvision_datasets

if TYPE_CHECKING:
    from ..._typing import StrPath

__all__ = ["CIFAR10"]


class CIFAR10(ImageClassificationDataset):
    """The CIFAR-10 dataset: 50000 training and 10000 test 32x32 colour images in 10 classes.

    Reads ``root/cifar-10-batches-py/{data_batch_1..5, test_batch, batches.meta}`` (the python
    version of the dataset, as extracted from ``cifar-10-python.tar.gz``). ``.data`` is
    ``N x 32 x 32 x 3`` uint8, ``.targets`` int64. With ``download=True`` files already present
    (right MD5, or readable) are used as they are; otherwise torchvision downloads them when it is
    installed, else nnlite fetches the official archive, checks its MD5 and extracts it.

    Every batch is read by an allow-list unpickler whose memory is bounded by the file's size.
    A batch of the official size (10000 images) is one of the official files, and is checked
    against its official MD5 (as torchvision's ``check_integrity``), also with
    ``download=False``: a damaged download raises instead of training on wrong pixels. Batches of
    other sizes (your own data in the same format) have no official checksum and are only read.

    Args:
        root (str): the folder holding the files.
        train (bool): the training split (else the test split). Default: True.
        download (bool): fetch the files when missing. Default: False.
        transform (callable, optional): applied to each image.
        target_transform (callable, optional): applied to each label.
        check_integrity (bool): check official-size batches against their MD5; ``False``
            skips the check (a modified copy of the official files). Default: True.

    Examples:
        >>> data = CIFAR10("data", train=True, download=True)  # fetches 170 MB  # doctest: +SKIP
        >>> image, label = data[0]  # doctest: +SKIP
        >>> image.shape, data.classes[label]  # doctest: +SKIP
        ((32, 32, 3), 'frog')
    """

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [
        ("data_batch_1", "c99cafc152244af753f735de768cd75f"),
        ("data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"),
        ("data_batch_3", "54ebc095f3ab1f0389bbae665268c751"),
        ("data_batch_4", "634d18415352ddfa80567beed471001a"),
        ("data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"),
    ]
    test_list = [("test_batch", "40351d587109b95175f43aff81a1287e")]
    images_per_batch = 10000  # each official batch's size: such a batch is checked by its MD5
    meta = {
        "filename": "batches.meta",
        "key": "label_names",
        "md5": "5ff9c542aee3614f3951f8cda6e48888",
    }
    classes = [
        "airplane",
        "automobile",
        "bird",
        "cat",
        "deer",
        "dog",
        "frog",
        "horse",
        "ship",
        "truck",
    ]

    def __init__(
        self,
        root: StrPath,
        train: bool = True,
        download: bool = False,
        transform: Callable[[Any], Any] | None = None,
        target_transform: Callable[[int], Any] | None = None,
        check_integrity: bool = True,
    ) -> None:
        super().__init__(root, train=train, transform=transform, target_transform=target_transform)
        self.check_integrity = check_integrity
        if download:
            self.download()
        files = self.train_list if train else self.test_list
        missing = [name for name, _ in files if not os.path.isfile(self._path(name))]
        if missing:
            raise RuntimeError(self._missing_message(missing))
        datas, labels = [], []
        for name, md5 in files:
            d, lab = read_cifar_batch(self._path(name))
            if check_integrity and len(d) == self.images_per_batch:
                self._verify_md5(name, md5)
            datas.append(d)
            labels.append(lab)
        data = np.concatenate(datas) if len(datas) > 1 else datas[0]
        self.data = np.ascontiguousarray(data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        self.targets = np.concatenate(labels)
        meta_path = self._path(self.meta["filename"])
        if os.path.isfile(meta_path):
            self.classes = read_cifar_meta(meta_path, self.meta["key"])

    def _verify_md5(self, name: str, md5: str) -> None:
        path = self._path(name)
        found = _download.file_md5(path)
        if found != md5:
            raise RuntimeError(
                f"{type(self).__name__}: {path} holds {self.images_per_batch} images like the "
                f"official file but its MD5 is {found}, not the official {md5}: the file is "
                "damaged or modified. Delete it and download the dataset again (download=True), "
                "or pass check_integrity=False to use it as it is."
            )

    @property
    def folder(self) -> str:
        """The folder of the extracted batches, ``root/cifar-10-batches-py``.

        Examples:
            >>> CIFAR10("data").folder  # needs the CIFAR-10 files  # doctest: +SKIP
            'data/cifar-10-batches-py'
        """
        return os.path.join(self.root, self.base_folder)

    def _path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def _missing_message(self, missing: list[str]) -> str:
        return (
            f"{type(self).__name__}: dataset files not found: {', '.join(missing)} expected in {self.folder}. "
            f"Use download=True to download them, or download {self.url} yourself and extract it in "
            f"{self.root} (it creates {self.base_folder}/ with data_batch_1..5, test_batch and batches.meta)."
        )

    def _file_ok(self, name: str, md5: str, reader: Callable[..., object]) -> bool:
        path = self._path(name)
        if not os.path.isfile(path):
            return False
        if _download.file_md5(path) == md5:
            return True
        try:  # a copy from elsewhere that is still a valid batch
            reader(path)
        except DatasetFormatError:
            return False
        return True

    def _check_integrity(self) -> bool:
        return all(
            self._file_ok(n, m, read_cifar_batch) for n, m in self.train_list + self.test_list
        ) and self._file_ok(self.meta["filename"], self.meta["md5"], read_cifar_meta)

    def download(self) -> None:
        """Make the dataset files present under ``root`` (nothing to do if they already are).

        Examples:
            >>> CIFAR10("data", download=False).download()  # needs network access  # doctest: +SKIP
        """
        if self._check_integrity():
            return
        tvd = torchvision_datasets()
        if tvd is not None:
            try:
                tvd.CIFAR10(self.root, train=self.train, download=True)
            except Exception as e:
                raise RuntimeError(
                    f"torchvision could not download CIFAR-10 into {self.root}: {e}. "
                    + self._offline_hint()
                ) from e
            return
        try:
            _download.download_and_extract_archive(self.url, self.root, self.filename, self.tgz_md5)
        except _download.DownloadError as e:
            raise RuntimeError(f"{type(self).__name__}: {e}\n" + self._offline_hint()) from e

    def _offline_hint(self) -> str:
        return (
            f"Without network access, download {self.url} elsewhere and put it in {self.root} "
            f"(or extract it there so that {self.folder}/data_batch_1 exists)."
        )

    def extra_repr(self) -> str:
        return ""
