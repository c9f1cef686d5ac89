"""Tensor methods that checked programs reached for: the in-place shape methods
(``unsqueeze_``, ``squeeze_``, ``transpose_``) and ``histogram``, as PyTorch's.

Each in-place shape method computes the out-of-place view and takes it over: the tensor gets the view's array and, when
autograd records, the view's history, so gradients flow as through the out-of-place method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .node import Node
    from .tensor import Tensor


class TensorExtras:
    """In-place shape methods and ``histogram`` of ``Tensor``."""

    __slots__ = ()
    if TYPE_CHECKING:  # the attributes of Tensor that these methods set
        _data: np.ndarray
        _grad_fn: Node | None
        _output_nr: int
        _vc: list[int]

    def _take_view(self: Any, view: Tensor) -> Tensor:
        self._check_inplace()
        self._data = view._data
        self._vc[0] += 1
        if view._grad_fn is not None:
            self._grad_fn = view._grad_fn
            self._output_nr = view._output_nr
        result: Tensor = self
        return result

    def unsqueeze_(self: Any, dim: int) -> Tensor:
        """In-place ``unsqueeze``: a dimension of size one inserted at ``dim``.

        Args:
            dim (int): where the new dimension goes.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.zeros(3)
            >>> x.unsqueeze_(-1).shape
            nnlite.Size([3, 1])
        """
        result: Tensor = self._take_view(self.unsqueeze(dim))
        return result

    def squeeze_(self: Any, dim: Any = None) -> Tensor:
        """In-place ``squeeze``: dimensions of size one removed (all, or those of ``dim``).

        Args:
            dim (int or tuple of ints, optional): the dimensions to remove if of size one.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.zeros(1, 3, 1)
            >>> x.squeeze_().shape
            nnlite.Size([3])
        """
        view = self.squeeze() if dim is None else self.squeeze(dim)
        result: Tensor = self._take_view(view)
        return result

    def transpose_(self: Any, dim0: int, dim1: int) -> Tensor:
        """In-place ``transpose``: dimensions ``dim0`` and ``dim1`` swapped.

        Args:
            dim0 (int): the first dimension.
            dim1 (int): the second dimension.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.zeros(2, 3)
            >>> x.transpose_(0, 1).shape
            nnlite.Size([3, 2])
        """
        result: Tensor = self._take_view(self.transpose(dim0, dim1))
        return result

    def swapaxes_(self: Any, axis0: int, axis1: int) -> Tensor:
        """Alias of ``transpose_``."""
        result: Tensor = self.transpose_(axis0, axis1)
        return result

    def swapdims_(self: Any, dim0: int, dim1: int) -> Tensor:
        """Alias of ``transpose_``."""
        result: Tensor = self.transpose_(dim0, dim1)
        return result

    def histogram(
        self: Any,
        bins: Any = 100,
        *,
        range: tuple[float, float] | None = None,
        weight: Any = None,
        density: bool = False,
    ) -> Any:
        """Counts of the values in bins, and the bins' edges: see ``nnlite.histogram``.

        Args:
            bins (int or Tensor): the number of equal bins, or their edges. Default: 100.
            range (tuple of float, optional): the span of the equal bins.
            weight (Tensor, optional): a weight per value.
            density (bool): normalise to a density.

        Returns:
            (Tensor, Tensor): ``hist`` and ``bin_edges``.

        Examples:
            >>> nl.tensor([1.0, 2.0, 1.0]).histogram(2).hist
            tensor([2., 1.])
        """
        from .histogram import histogram

        return histogram(self, bins, range=range, weight=weight, density=density)
