"""``nl.device``: PyTorch's device objects, on a framework that runs on the CPU only.

Any device name PyTorch knows can be written down (``nl.device("cuda:1")``), so that scripts can
build their device line; only the CPU can hold data. ``check_device`` is the one place that
turns a request for another device into a clear error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

# The device types PyTorch 2.13 parses, in the order its error message lists them.
_DEVICE_TYPES = (
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
)


class device:
    """A device, as ``torch.device``: ``device("cpu")``, ``device("cpu", 0)``, ``device("cuda:1")``
    or ``device(other_device)``.

    Args:
        type: a device type (``"cpu"``, ``"cuda"``, ``"mps"``, ...), optionally with ``":index"``,
            or another ``device``.
        index: the device ordinal, or ``None``.

    Only ``"cpu"`` devices can hold tensors and modules; the others exist so that device lines
    written for PyTorch run, and moving data to them raises an error saying nnlite runs on the CPU.

    Examples:
        >>> nl.device("cuda" if nl.cuda.is_available() else "cpu")
        device(type='cpu')
    """

    __slots__ = ("_type", "_index")
    _type: str
    _index: int | None

    def __init__(self, type: str | device | int, index: int | None = None) -> None:
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): when a device is given, index must not be passed")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # a bare ordinal means "this index on the current accelerator": there is none
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type.__class__.__name__})"
            )
        name, _, ordinal = type.partition(":")
        if name not in _DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                f"string: {type}"
            )
        if ordinal:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if not ordinal.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(ordinal)
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(
                    f"device(): argument 'index' (position 2) must be int, not "
                    f"{index.__class__.__name__}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self._type, self._index = name, index

    @property
    def type(self) -> str:
        """The device type, ``"cpu"`` (or the name of a device nnlite refuses).

        Examples:
            >>> nl.device("cpu").type
            'cpu'
        """
        return self._type

    @property
    def index(self) -> int | None:
        """The device index, ``None`` when the name gave none.

        Examples:
            >>> nl.device("cpu:0").index, nl.device("cpu").index
            (0, None)
        """
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self) -> tuple[Callable[[str, int | None], device], tuple[str, int | None]]:
        return device, (self._type, self._index)

    # ``with nl.device("cpu"):`` sets PyTorch's default device; the CPU is always the default here
    def __enter__(self) -> device:
        check_device(self)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False


CPU = device("cpu")


def check_device(d: str | device | int | None) -> None:
    """Accept ``None``, ``"cpu"``, ``"cpu:N"`` or a cpu ``device``; refuse every other device.

    Args:
        d (None, str or nl.device): the device an argument names.

    Raises:
        RuntimeError: for a device other than the CPU, saying that nnlite runs on the CPU (a
            malformed name raises as PyTorch does).

    Examples:
        >>> check_device("cpu")
        >>> check_device("cuda")
        Traceback (most recent call last):
            ...
        RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
    """
    if d is None:
        return
    if not isinstance(d, device):
        d = device(d)
    if d._type != "cpu":
        raise RuntimeError(
            f"nnlite runs on the CPU only; device '{d}' is not available "
            f"(use nl.device('cpu'): nl.cuda.is_available() is False)"
        )


def set_default_device(device: str | device | int | None) -> None:
    """Set the device new tensors are made on: only the CPU (or ``None``) is accepted.

    Args:
        device (None, str or nl.device): the default device.

    Raises:
        RuntimeError: for any device but the CPU (nnlite runs on the CPU).

    Examples:
        >>> nl.set_default_device("cpu")
        >>> nl.get_default_device()
        device(type='cpu')
    """
    check_device(device)


def get_default_device() -> device:
    """The device new tensors are made on: the CPU.

    Returns:
        nl.device: ``device(type='cpu')``.

    Examples:
        >>> nl.get_default_device()
        device(type='cpu')
    """
    return CPU
