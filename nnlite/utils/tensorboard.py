"""``nnlite.utils.tensorboard.SummaryWriter`` (PyTorch's ``torch.utils.tensorboard``): TensorBoard
event files through tensorboardX (the optional extra ``tensorboard``), with nnlite tensors given to
any ``add_*`` method turned into numpy arrays first."""

from __future__ import annotations

from typing import Any

__all__ = ["SummaryWriter"]

INSTALL_HINT = "pip install 'nnlite[tensorboard]' (or pip install tensorboardX)"


def _plain(value: Any) -> Any:
    """nnlite tensors (also inside lists, tuples and dicts) as numpy arrays; 0-d ones as numbers."""
    from ..autograd.tensor import Tensor

    if isinstance(value, Tensor):
        array = value.detach().numpy()
        return array.item() if array.ndim == 0 else array
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


class SummaryWriter:
    """Writes TensorBoard event files (``add_scalar``, ``add_scalars``, ``add_histogram``,
    ``add_image``, ``add_text``, ``add_hparams``, ...: every method of tensorboardX's writer).

    Args:
        log_dir (str, optional): the run directory. Default: ``runs/<time>_<host>``.
        *args, **kwargs: as ``tensorboardX.SummaryWriter`` (``comment``, ``flush_secs``, ...).

    Raises:
        ImportError: tensorboardX is not installed (the message names the extra).

    Examples:
        >>> from nnlite.utils.tensorboard import SummaryWriter  # doctest: +SKIP
        >>> writer = SummaryWriter("runs/demo")  # doctest: +SKIP
        >>> writer.add_scalar("loss", nl.tensor(0.5), 1)  # doctest: +SKIP
        >>> writer.close()  # doctest: +SKIP
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            from tensorboardX import SummaryWriter as Writer
        except ImportError:
            raise ImportError(
                f"nnlite.utils.tensorboard.SummaryWriter needs tensorboardX: {INSTALL_HINT}"
            ) from None
        self._writer = Writer(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._writer, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            return attribute(*_plain(args), **_plain(kwargs))

        return call

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._writer.close()
