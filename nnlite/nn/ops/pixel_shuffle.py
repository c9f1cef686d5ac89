"""``pixel_shuffle`` and ``pixel_unshuffle`` (channels to space and back) and ``channel_shuffle``:
reshapes and permutes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def _check(input: Tensor, name: str) -> None:
    if input.ndim < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} "
            f"dimension(s)"
        )


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``.

    Args:
        input (Tensor): ``(*, C r^2, H, W)``.
        upscale_factor (int): ``r``.

    Returns:
        Tensor: ``(*, C, H r, W r)``.

    Examples:
        >>> F.pixel_shuffle(nl.arange(4.).reshape(1, 4, 1, 1), 2).shape
        nnlite.Size([1, 1, 2, 2])
    """
    _check(input, "pixel_shuffle")
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``.

    Args:
        input (Tensor): ``(*, C, H r, W r)``.
        downscale_factor (int): ``r``.

    Returns:
        Tensor: ``(*, C r^2, H, W)``.

    Examples:
        >>> F.pixel_unshuffle(nl.ones(1, 1, 4, 4), 2).shape
        nnlite.Size([1, 4, 2, 2])
    """
    _check(input, "pixel_unshuffle")
    r = downscale_factor
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
            f"{h} is not divisible by {r}"
            if h % r
            else f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
            f"{w} is not divisible by {r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of ``groups`` groups: ``(N, g * c, *)`` read as ``(N, g, c, *)``,
    transposed to ``(N, c, g, *)`` (ShuffleNet's channel shuffle).

    Args:
        input (Tensor): ``(N, C, *)``.
        groups (int): the number of groups; divides ``C``.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.channel_shuffle(nl.arange(4.).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    if input.ndim < 3:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle
