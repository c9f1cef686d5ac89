"""``nl.hub``: PyTorch's hub cache layout for weight files, read locally (nnlite downloads
nothing), and ``tqdm`` where ``torch.hub.tqdm`` is.

``load_state_dict_from_url(url)`` reads ``<hub dir>/checkpoints/<file name of url>``, the file
PyTorch would have downloaded there; if it is absent, the error says in one line where to put
which file. The hub directory is ``$TORCH_HOME/hub`` (``~/.cache/torch/hub`` by default), as
PyTorch's, so files PyTorch already downloaded are found.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlparse

from tqdm.auto import tqdm

__all__ = ["get_dir", "set_dir", "load_state_dict_from_url", "checkpoint_path", "tqdm"]

_hub_dir: str | None = None


def get_dir() -> str:
    """The hub directory: ``set_dir``'s, else ``$TORCH_HOME/hub``, else
    ``$XDG_CACHE_HOME/torch/hub``, else ``~/.cache/torch/hub`` (PyTorch's order).

    Returns:
        str: the directory (not created).

    Examples:
        >>> nl.hub.get_dir().endswith("hub")
        True
    """
    if _hub_dir is not None:
        return _hub_dir
    torch_home = os.environ.get("TORCH_HOME")
    if torch_home is None:
        cache = os.environ.get("XDG_CACHE_HOME", os.path.join("~", ".cache"))
        torch_home = os.path.join(cache, "torch")
    return os.path.join(os.path.expanduser(torch_home), "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    """Use ``d`` as the hub directory.

    Args:
        d (str or PathLike): the directory.

    Examples:
        >>> old = nl.hub.get_dir()
        >>> nl.hub.set_dir("/tmp/hub")
        >>> nl.hub.get_dir()
        '/tmp/hub'
        >>> nl.hub.set_dir(old)
    """
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def checkpoint_path(
    url: str, model_dir: str | os.PathLike[str] | None = None, file_name: str | None = None
) -> str:
    """Where PyTorch's hub keeps the file of ``url``: ``<model_dir or hub dir/checkpoints>/<name>``.

    Args:
        url (str): the file's address.
        model_dir (str, optional): the directory. Default: ``get_dir()/checkpoints``.
        file_name (str, optional): the name. Default: the last part of ``url``'s path.

    Returns:
        str: the path.

    Examples:
        >>> nl.hub.checkpoint_path("https://x.org/m/resnet18-f37072fd.pth", "/w")
        '/w/resnet18-f37072fd.pth'
    """
    directory = (
        os.fspath(model_dir) if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    )
    name = file_name or os.path.basename(urlparse(url).path)
    return os.path.join(directory, name)


def load_state_dict_from_url(
    url: str,
    model_dir: str | os.PathLike[str] | None = None,
    map_location: Any = None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> Any:
    """The state dict of ``url``'s file, read from the hub cache (never downloaded).

    Args:
        url (str): the file's address, which names it.
        model_dir (str, optional): where the file is. Default: ``get_dir()/checkpoints``.
        map_location: accepted for PyTorch's signature (everything is on the CPU).
        progress (bool): accepted for PyTorch's signature.
        check_hash (bool): check the file against the hash prefix in its name
            (``name-<sha256 prefix>.ext``, PyTorch's convention). Default: False.
        file_name (str, optional): the file's name, if not the last part of ``url``.
        weights_only (bool): accepted; nnlite's loader never runs code from a file.

    Returns:
        dict: the loaded object (a state dict).

    Raises:
        FileNotFoundError: the file is not in the cache (the message says what to put where).

    Examples:
        >>> nl.save({"w": nl.ones(1)}, "/tmp/tiny-0.pth")
        >>> nl.hub.load_state_dict_from_url("https://x.org/tiny-0.pth", model_dir="/tmp")
        {'w': tensor([1.])}
    """
    path = checkpoint_path(url, model_dir, file_name)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{path} not found: nnlite does not download; fetch {url} and save it there"
        )
    if check_hash:
        _check_hash(path)
    from .serialization import load

    return load(path, weights_only=True)


def _check_hash(path: str) -> None:
    import hashlib
    import re

    match = re.search(r"-([a-f0-9]+)\.", os.path.basename(path))
    if match is None:
        return
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    prefix = match.group(1)
    if not digest.hexdigest().startswith(prefix):
        raise RuntimeError(
            f'invalid hash value (expected "{prefix}", got "{digest.hexdigest()}") for {path}'
        )
