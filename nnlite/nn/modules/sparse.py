"""``Embedding``: a lookup table of learned vectors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.random import default_generator
from .. import functional as F
from ..parameter import Parameter
from .linear import factory_dtype
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor


__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    """``num_embeddings`` vectors of size ``embedding_dim``, looked up by index.

    Args:
        num_embeddings (int): table size.
        embedding_dim (int): vector size.
        padding_idx (int, optional): this row starts at zero and gets no gradient.
        max_norm (float, optional): rows looked up are renormalised to at most this ``norm_type``-norm.

    Examples:
        >>> emb = nl.nn.Embedding(10, 3, padding_idx=0)
        >>> emb(nl.tensor([[1, 0]])).shape
        nnlite.Size([1, 2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Any = None,
        _freeze: Any = False,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(
                np.empty((num_embeddings, embedding_dim), dtype=factory_dtype(dtype)),
                requires_grad=not _freeze,
            )
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)  # shares _weight's memory

    def reset_parameters(self) -> None:
        """Draw the table from N(0, 1) (the ``padding_idx`` row set to zeros).

        Examples:
            >>> emb = nn.Embedding(4, 2, padding_idx=0)
            >>> emb.reset_parameters()
            >>> emb.weight.detach()[0]
            tensor([0., 0.])
        """
        data = self.weight._data
        data[...] = default_generator.standard_normal(data.shape).astype(data.dtype)
        if self.padding_idx is not None:
            data[self.padding_idx] = 0

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        if self.sparse:
            text += ", sparse=True"
        return text

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Any,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Any:
        """An ``Embedding`` holding ``embeddings`` (a 2-D tensor); ``freeze`` turns its gradient off.

        Args:
            embeddings (Tensor): the ``(num_embeddings, embedding_dim)`` table.
            freeze (bool): turn the table's gradient off. Default: True.
            padding_idx (int, optional): a row that gets no gradient.
            max_norm (float, optional): renormalise looked-up rows to at most this norm.
            norm_type (float): the norm for ``max_norm``. Default: 2.
            scale_grad_by_freq (bool): accepted for compatibility.
            sparse (bool): accepted for compatibility.

        Returns:
            Embedding: the new layer.

        Examples:
            >>> emb = nn.Embedding.from_pretrained(nl.eye(3))
            >>> emb(nl.tensor([2]))
            tensor([[0., 0., 1.]])
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(
            rows,
            cols,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight=embeddings,
            _freeze=freeze,
        )


class EmbeddingBag(Embedding):
    """Sums, means or maxima of bags of embeddings, without building the looked-up rows' tensor
    per bag (see ``F.embedding_bag``).

    Args:
        num_embeddings (int): the number of rows.
        embedding_dim (int): the size of each row.
        max_norm (float, optional): renormalise looked-up rows to at most this norm.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): not supported (raises if True when called).
        mode (str): ``"sum"``, ``"mean"`` or ``"max"``. Default: ``"mean"``.
        sparse (bool): not supported (raises if True when called).
        include_last_offset (bool): ``offsets`` ends with the total length. Default: False.
        padding_idx (int, optional): an index left out of every bag (its row starts at zero).

    Examples:
        >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag
        EmbeddingBag(10, 3, mode='sum')
        >>> bag(nl.tensor([[1, 2], [3, 4]])).shape
        nnlite.Size([2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Any = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__(
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight,
            device=device,
            dtype=dtype,
        )
        self.mode, self.include_last_offset = mode, include_last_offset

    def forward(
        self,
        input: Tensor,
        offsets: Tensor | None = None,
        per_sample_weights: Tensor | None = None,
    ) -> Tensor:
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text
