"""The short-time Fourier transform in its real form, as ``torch.stft(..., return_complex=False)``.

nnlite has no complex tensors, so ``stft`` gives what PyTorch gives with ``return_complex=False``
(deprecated there, still supported for real input): the real and imaginary parts in a last
dimension of 2. It is a composite (frames by ``unfold``, the DFT as products with cosine and sine
matrices), so it is differentiable to any order. ``istft`` takes only complex input in PyTorch,
so for every nnlite tensor it raises PyTorch's own error.

Examples:
    >>> nl.stft(nl.ones(8), 4, window=nl.ones(4), return_complex=False).shape
    nnlite.Size([3, 9, 2])
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .autograd import op as _op

if TYPE_CHECKING:
    from .autograd.tensor import Tensor


def _describe(input: Tensor, n_fft: int, hop: int, win: int, window: Any, **flags: Any) -> str:
    shape = ", ".join(str(s) for s in input.shape)
    options = ", ".join(f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in flags.items())
    return (
        f"stft({input.type()}[{shape}], n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={'None' if window is None else 'Tensor'}, {options})"
    )


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """The short-time Fourier transform, as real and imaginary parts (``return_complex=False``).

    Args:
        input (Tensor): ``(L,)`` or ``(B, L)`` floating signals.
        n_fft (int): the size of each Fourier transform.
        hop_length (int, optional): the step between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's size (at most ``n_fft``; centred in the frame).
            Default: ``n_fft``.
        window (Tensor, optional): ``(win_length,)``. Default: ones (PyTorch warns).
        center (bool): pad the signal by ``n_fft // 2`` on both sides first. Default: True.
        pad_mode (str): the padding (``"reflect"``, ``"constant"``, ``"replicate"``,
            ``"circular"``). Default: ``"reflect"``.
        normalized (bool): multiply by ``n_fft ** -0.5``. Default: False.
        onesided (bool, optional): only the ``n_fft // 2 + 1`` non-negative frequencies.
            Default: True.
        return_complex (bool, optional): must be False: nnlite has no complex tensors (PyTorch
            requires it for real input too).
        align_to_window (bool, optional): with ``center=False``, start each frame where its window
            starts. Default: False.

    Returns:
        Tensor: ``(B?, n_freq, n_frames, 2)``.

    Examples:
        >>> nl.stft(nl.tensor([1., 0., 0., 0.]), 4, window=nl.ones(4), center=False, return_complex=False)[:, 0, 0]
        tensor([1., 1., 1.])
    """
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if return_complex is None:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release."
        )
    if return_complex:
        raise RuntimeError(
            "stft(return_complex=True): nnlite has no complex tensors; return_complex=False gives "
            "the real and imaginary parts in a last dimension of size 2"
        )
    flags = dict(
        normalized=normalized,
        onesided=onesided,
        return_complex=return_complex,
        align_to_window=align_to_window,
    )
    if input.ndim not in (1, 2):
        raise RuntimeError(
            f"{_describe(input, n_fft, hop, win, window, **flags)} : expected a 1D or 2D tensor"
        )
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            f"{_describe(input, n_fft, hop, win, window, **flags)} : expected a tensor of floating "
            "point or complex values"
        )
    if align_to_window and center:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    warnings.warn(
        "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
        "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
        "Note: you can still call torch.view_as_real on the complex output to recover the old "
        "return format.",
        UserWarning,
        stacklevel=2,
    )
    dtype = input._data.dtype
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
            "device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
        window = _op.make_tensor(np.ones(win, dtype=dtype))
    signal = input if input.ndim == 2 else input.unsqueeze(0)
    left = (n_fft - win) // 2
    if center:
        from .nn.functional import pad

        half = n_fft // 2
        signal = pad(signal.unsqueeze(1), (half, half), mode=pad_mode).squeeze(1)
    if align_to_window and win < n_fft:
        from .nn.functional import pad

        signal = pad(signal, (left, n_fft - win - left))
        frames = signal.unfold(-1, n_fft, hop)[:, : 1 + (signal.shape[-1] - n_fft) // hop]
    else:
        frames = signal.unfold(-1, n_fft, hop)  # (B, n_frames, n_fft)
    full_window = _op.make_tensor(np.zeros(n_fft, dtype=dtype))
    if win < n_fft:
        from .autograd.creation import cat

        pieces = [
            _op.make_tensor(np.zeros(left, dtype)),
            window,
            _op.make_tensor(np.zeros(n_fft - win - left, dtype)),
        ]
        full_window = cat(pieces)
    else:
        full_window = window
    sided = True if onesided is None else onesided
    n_freq = n_fft // 2 + 1 if sided else n_fft
    # (n f mod n_fft) keeps the angles exact; values that are exactly 0 in theory are set to 0
    angle = 2 * np.pi * (np.outer(np.arange(n_fft), np.arange(n_freq)) % n_fft) / n_fft
    scale = n_fft**-0.5 if normalized else 1.0
    cos_values, sin_values = np.cos(angle), -np.sin(angle)
    cos_values[np.abs(cos_values) < 1e-12] = 0.0
    sin_values[np.abs(sin_values) < 1e-12] = 0.0
    cosine = _op.make_tensor((cos_values * scale).astype(dtype))
    sine = _op.make_tensor((sin_values * scale).astype(dtype))
    windowed = frames * full_window
    from .autograd.creation import stack

    # + 0.0 turns the -0.0 of sin(0) products into PyTorch's 0.0
    result = stack([(windowed @ cosine).mT, (windowed @ sine).mT + 0.0], -1)
    return result if input.ndim == 2 else result.squeeze(0)


def istft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """The inverse short-time Fourier transform: PyTorch takes only complex input, which nnlite
    has not, so this raises PyTorch's error for every input.

    Args:
        input (Tensor): what ``stft(return_complex=True)`` returns in PyTorch.
        n_fft (int): the size of each Fourier transform.
        hop_length, win_length, window, center, normalized, onesided, length, return_complex:
            PyTorch's arguments.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.istft(nl.zeros(3, 3, 2), 4)
        Traceback (most recent call last):
        ...
        RuntimeError: istft requires a complex-valued input tensor matching the output from stft with return_complex=True.
    """
    raise RuntimeError(
        "istft requires a complex-valued input tensor matching the output from stft with "
        "return_complex=True."
    )
