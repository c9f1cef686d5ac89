"""``ImageFolder``: images sorted into one sub-folder per class, decoded by Pillow.

The walk of a class folder takes regular files only (a FIFO named ``x.png`` would block the
first read) and follows a link to a folder only when the folder lies inside the same class
folder and has not been walked yet: links back up (``cat/up -> ..``) would list other classes'
images as this class's, and links to their own folder would make the walk endless.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._pillow import import_pillow
from ..dataset import Dataset

if TYPE_CHECKING:
    from ..._typing import Array, StrPath


__all__ = [
    "ImageFolder",
    "DatasetFolder",
    "IMG_EXTENSIONS",
    "default_loader",
    "find_classes",
    "make_dataset",
]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def default_loader(path: StrPath) -> Array:
    """Decode the image file at ``path`` into an ``H x W x 3`` uint8 RGB array (Pillow)."""
    image_module = import_pillow("ImageFolder (decoding PNG/JPEG files)")
    with open(path, "rb") as f:
        with image_module.open(f) as img:
            return np.asarray(img.convert("RGB"))


def find_classes(directory: StrPath) -> tuple[list[str], dict[str, int]]:
    """``(classes, class_to_idx)``: the sorted names of the sub-folders of ``directory``."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(
    directory: StrPath,
    class_to_idx: dict[str, int],
    extensions: str | tuple[str, ...] | None = None,
    is_valid_file: Callable[[str], bool] | None = None,
    allow_empty: bool = False,
) -> list[tuple[str, int]]:
    """``[(path, class_index), ...]`` for every valid file under each class folder (recursively,
    in sorted order)."""
    if (extensions is None) == (is_valid_file is None):
        raise ValueError(
            "Both extensions and is_valid_file cannot be None or not None at the same time"
        )
    if is_valid_file is None:
        lowered = tuple(
            e.lower() for e in ((extensions,) if isinstance(extensions, str) else extensions or ())
        )

        def is_valid_file(path: str) -> bool:
            return path.lower().endswith(lowered)

    directory = os.path.expanduser(directory)
    samples, empty = [], []
    for name in sorted(class_to_idx):
        index = class_to_idx[name]
        class_dir = os.path.join(directory, name)
        if not os.path.isdir(class_dir):
            continue
        found = False
        for path in _class_files(class_dir):
            if is_valid_file(path):
                samples.append((path, index))
                found = True
        if not found:
            empty.append(name)
    if empty and not allow_empty:
        message = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            shown = extensions if isinstance(extensions, str) else ", ".join(extensions)
            message += f"Supported extensions are: {shown}"
        raise FileNotFoundError(message)
    return samples


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _class_files(class_dir: str) -> list[str]:
    """The regular files under ``class_dir``, sorted as ``sorted(os.walk(...))`` sorts them
    (by folder, then by name), each real folder walked once and links leaving ``class_dir``
    left out with a warning."""
    boundary = os.path.realpath(class_dir)
    visited = {boundary}
    listed: list[tuple[str, list[str]]] = []
    left_out: list[str] = []
    pending = [class_dir]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:  # unreadable: skipped, as os.walk skips it
            continue
        files = []
        for entry in entries:
            try:
                if entry.is_dir():  # follows links
                    real = os.path.realpath(entry.path)
                    if not _inside(real, boundary):
                        left_out.append(f"{entry.path} -> {real}")
                    elif real not in visited:  # else a cycle, or a second way to one folder
                        visited.add(real)
                        pending.append(entry.path)
                elif entry.is_file():  # regular files only (following links): no FIFO, device
                    files.append(entry.path)
            except OSError:  # a link to itself, a vanished entry
                continue
        listed.append((folder, files))
    if left_out:
        shown = ", ".join(left_out[:3]) + (", ..." if len(left_out) > 3 else "")
        warnings.warn(
            f"ImageFolder: not following {len(left_out)} link(s) to folders outside the class "
            f"folder {class_dir}: {shown}",
            UserWarning,
            stacklevel=4,
        )
    listed.sort(key=lambda item: item[0])
    return [path for _, files in listed for path in files]


class DatasetFolder(Dataset[tuple[Any, Any]]):
    """Samples arranged as ``root/<class>/.../<file>``, read by ``loader``, as torchvision's.

    Attributes: ``classes`` (sorted folder names), ``class_to_idx``, ``samples``
    (``[(path, class_index)]``), ``targets`` (the class indices).

    Unlike torchvision, which follows every link, the walk of a class folder lists regular files
    only (no FIFO or device) and follows a link to a folder only inside the same class folder,
    each folder once; links leaving it are left out with a warning.

    Args:
        root (str): the folder of class folders.
        loader (callable): reads a path into a sample.
        extensions (tuple of str, optional): the file endings to take.
        transform (callable, optional): applied to each sample.
        target_transform (callable, optional): applied to each class index.
        is_valid_file (callable, optional): a test on paths, instead of ``extensions``.
        allow_empty (bool): accept class folders without files. Default: False.

    Examples:
        >>> import os
        >>> for name in ("a", "b"):
        ...     os.makedirs(f"notes/{name}", exist_ok=True)
        ...     with open(f"notes/{name}/1.txt", "w") as f:
        ...         _ = f.write(name * 3)
        >>> data = DatasetFolder("notes", loader=lambda p: open(p).read(), extensions=(".txt",))
        >>> data.classes, data[1]
        (['a', 'b'], ('bbb', 1))
    """

    def __init__(
        self,
        root: StrPath,
        loader: Callable[[str], Any],
        extensions: tuple[str, ...] | None = None,
        transform: Callable[[Any], Any] | None = None,
        target_transform: Callable[[int], Any] | None = None,
        is_valid_file: Callable[[str], bool] | None = None,
        allow_empty: bool = False,
    ) -> None:
        self.root = os.path.expanduser(os.fspath(root))
        if not os.path.isdir(self.root):
            raise FileNotFoundError(f"{type(self).__name__}: the folder {self.root} does not exist")
        self.loader = loader
        self.extensions = extensions
        self.transform = transform
        self.target_transform = target_transform
        self.classes, self.class_to_idx = self.find_classes(self.root)
        self.samples = self.make_dataset(
            self.root, self.class_to_idx, extensions, is_valid_file, allow_empty
        )
        self.targets = [index for _, index in self.samples]

    @staticmethod
    def make_dataset(
        directory: StrPath,
        class_to_idx: dict[str, int],
        extensions: tuple[str, ...] | None = None,
        is_valid_file: Callable[[str], bool] | None = None,
        allow_empty: bool = False,
    ) -> list[tuple[str, int]]:
        """The ``(path, class index)`` of every file to take under ``directory``, sorted.

        Args:
            directory (str): the root folder.
            class_to_idx (dict): ``{class name: index}``.
            extensions (tuple of str, optional): the file endings to take.
            is_valid_file (callable, optional): a test on paths, instead of ``extensions``.
            allow_empty (bool): accept class folders without files. Default: False.

        Returns:
            list of ``(path, int)`` pairs.

        Examples:
            >>> import os
            >>> os.makedirs("pets/cat", exist_ok=True)
            >>> open("pets/cat/1.png", "wb").close()
            >>> DatasetFolder.make_dataset("pets", {"cat": 0}, extensions=(".png",))
            [('pets/cat/1.png', 0)]
        """
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty)

    def find_classes(self, directory: StrPath) -> tuple[list[str], dict[str, int]]:
        """The class names (the sorted sub-folders of ``directory``) and their indices.

        Args:
            directory (str): the root folder.

        Returns:
            tuple: ``(classes, class_to_idx)``.

        Examples:
            >>> import os
            >>> for name in ("dog", "cat"):
            ...     os.makedirs(f"pets/{name}", exist_ok=True)
            >>> DatasetFolder.find_classes(DatasetFolder, "pets")
            (['cat', 'dog'], {'cat': 0, 'dog': 1})
        """
        return find_classes(directory)

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def __repr__(self) -> str:
        lines = [
            f"Dataset {type(self).__name__}",
            f"    Number of datapoints: {len(self)}",
            f"    Root location: {self.root}",
        ]
        if self.transform is not None:
            lines.append("    StandardTransform")
            lines.append("Transform: " + repr(self.transform).replace("\n", "\n    "))
        return "\n".join(lines)


class ImageFolder(DatasetFolder):
    """Images in one sub-folder per class (``root/cat/001.png``, ``root/dog/xyz.jpg``), as
    ``torchvision.datasets.ImageFolder``.

    Args:
        root: the folder holding one sub-folder per class (classes are the sorted folder names).
        transform: applied to each image; without one, an item's image is an ``H x W x 3`` uint8
            RGB array (torchvision gives a PIL image; ``transforms.ToPILImage`` makes one).
        target_transform: applied to each class index.
        loader: reads a path into an image (default: Pillow, RGB).
        is_valid_file: a test on paths, instead of the image extensions.
        allow_empty: accept class folders without images.

    Decoding needs Pillow: ``pip install 'nnlite[vision]'``.

    Examples:
        >>> import os
        >>> from PIL import Image
        >>> from nnlite.data import transforms
        >>> for name in ("cat", "dog"):  # photos/cat/0.png, photos/dog/0.png
        ...     os.makedirs(f"photos/{name}", exist_ok=True)
        ...     Image.new("RGB", (48, 40)).save(f"photos/{name}/0.png")
        >>> data = ImageFolder("photos", transform=transforms.Compose([transforms.Resize(32),
        ...                    transforms.CenterCrop(32), transforms.ToTensor()]))
        >>> image, label = data[1]
        >>> image.shape, data.classes[label]
        (nnlite.Size([3, 32, 32]), 'dog')
    """

    def __init__(
        self,
        root: StrPath,
        transform: Callable[[Any], Any] | None = None,
        target_transform: Callable[[int], Any] | None = None,
        loader: Callable[[str], Any] = default_loader,
        is_valid_file: Callable[[str], bool] | None = None,
        allow_empty: bool = False,
    ) -> None:
        super().__init__(
            root,
            loader,
            IMG_EXTENSIONS if is_valid_file is None else None,
            transform=transform,
            target_transform=target_transform,
            is_valid_file=is_valid_file,
            allow_empty=allow_empty,
        )
        self.imgs = self.samples
