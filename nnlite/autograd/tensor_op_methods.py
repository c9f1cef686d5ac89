"""Tensor methods of PyTorch that call ops nnlite has elsewhere (``hardshrink``, ``prelu``,
``index_reduce``, ``nonzero_static``, ``split_with_sizes``), the in-place forms of existing ops
(``baddbmm_``, ``bitwise_and_``, ``bitwise_or_``, ``bitwise_xor_``, ``logical_not_``,
``index_reduce_``), and PyTorch's flags and removed members (``is_distributed``, ``name``,
``volatile``, ``grad_dtype``, ``module_load``, ``reinforce``)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import indexed_reductions

if TYPE_CHECKING:
    from .tensor import Tensor

_REINFORCE_REMOVED = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def _type_name(t: Any) -> str:
    from .promotion import scalar_type_name

    return scalar_type_name(t._data.dtype)


def _functional(name: str) -> Any:
    from .providers import implementation

    return implementation(f"nn.functional.{name}")


class TensorOpMethods:
    """Op methods, in-place forms and flags of ``Tensor``."""

    __slots__ = ()

    def hardshrink(self: Any, lambd: float = 0.5) -> Tensor:
        """``nn.functional.hardshrink``: zero where ``|self| <= lambd``.

        Args:
            lambd (float): the threshold. Default: 0.5.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([-1., 0.2, 1.]).hardshrink()
            tensor([-1.,  0.,  1.])
        """
        result: Tensor = _functional("hardshrink")(self, lambd)
        return result

    def prelu(self: Any, weight: Tensor) -> Tensor:
        """``nn.functional.prelu``: slope ``weight`` (per channel, or one) for negative values.

        Args:
            weight (Tensor): the slopes.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([-1., 1.]).prelu(nl.tensor([0.5]))
            tensor([-0.5000,  1.0000])
        """
        result: Tensor = _functional("prelu")(self, weight)
        return result

    def split_with_sizes(self: Any, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Split into pieces of the lengths ``split_sizes`` along ``dim`` (views).

        Args:
            split_sizes (list of ints): the lengths, summing to the dimension's size.
            dim (int): the dimension. Default: 0.

        Returns:
            tuple of Tensors: the pieces.

        Examples:
            >>> nl.arange(3.).split_with_sizes([1, 2])
            (tensor([0.]), tensor([1., 2.]))
        """
        total = sum(split_sizes)
        size = self.shape[dim]
        if total != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={list(split_sizes)}"
            )
        return tuple(self.split(list(split_sizes), dim))

    def index_reduce(
        self: Any,
        dim: int,
        index: Tensor,
        source: Tensor,
        reduce: str,
        *,
        include_self: bool = True,
    ) -> Tensor:
        """``nl.index_reduce(self, ...)``: ``source``'s slices reduced into the slices ``index`` names.

        Args:
            dim (int): the dimension indexed.
            index (Tensor): int64 indices, one per slice of ``source``.
            source (Tensor): the slices reduced in.
            reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
            include_self (bool): reduce this tensor's values too. Default: True.

        Returns:
            Tensor: the result.

        Examples:
            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     nl.ones(2).index_reduce(0, nl.tensor([1]), nl.tensor([5.]), "amax")
            tensor([1., 5.])
        """
        result: Tensor = indexed_reductions.index_reduce(
            self, dim, index, source, reduce, include_self=include_self
        )
        return result

    def index_reduce_(
        self: Any,
        dim: int,
        index: Tensor,
        source: Tensor,
        reduce: str,
        *,
        include_self: bool = True,
    ) -> Tensor:
        """In-place ``index_reduce``.

        Args:
            dim (int): the dimension indexed.
            index (Tensor): int64 indices, one per slice of ``source``.
            source (Tensor): the slices reduced in.
            reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
            include_self (bool): reduce this tensor's values too. Default: True.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> import warnings
            >>> x = nl.ones(2)
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     _ = x.index_reduce_(0, nl.tensor([0]), nl.tensor([3.]), "prod")
            >>> x
            tensor([3., 1.])
        """
        result: Tensor = self.index_reduce(dim, index, source, reduce, include_self=include_self)
        result = self._inplace_result(result)
        return result

    def nonzero_static(self: Any, *, size: int, fill_value: int = -1) -> Tensor:
        """``nl.nonzero_static(self, size=..., fill_value=...)``.

        Args:
            size (int): the number of rows of the result.
            fill_value (int): the padding. Default: -1.

        Returns:
            Tensor: int64, ``(size, self.ndim)``.

        Examples:
            >>> nl.tensor([0, 3]).nonzero_static(size=1)
            tensor([[1]])
        """
        result: Tensor = indexed_reductions.nonzero_static(self, size=size, fill_value=fill_value)
        return result

    def baddbmm_(
        self: Any, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
    ) -> Tensor:
        """In-place ``baddbmm``: ``beta * self + alpha * batch1 @ batch2``.

        Args:
            batch1 (Tensor): ``(b, n, m)``.
            batch2 (Tensor): ``(b, m, p)``.
            beta (float): the factor of ``self``. Default: 1.
            alpha (float): the factor of the products. Default: 1.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.zeros(1, 1, 1).baddbmm_(nl.ones(1, 1, 2), nl.ones(1, 2, 1))
            tensor([[[2.]]])
        """
        result: Tensor = self._inplace_result(self.baddbmm(batch1, batch2, beta=beta, alpha=alpha))
        return result

    def _bitwise_inplace(self: Any, name: str, other: Any) -> Tensor:
        import numpy as np

        result: Tensor = getattr(self, name)(other)
        if not np.can_cast(result._data.dtype, self._data.dtype, "same_kind"):
            raise RuntimeError(
                f"result type {_type_name(result)} can't be cast to the desired output type "
                f"{_type_name(self)}"
            )
        result = self._inplace_result(result)
        return result

    def bitwise_and_(self: Any, other: Any) -> Tensor:
        """In-place ``bitwise_and``.

        Args:
            other (Tensor or int): the other operand.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.tensor([1, 2]).bitwise_and_(nl.tensor([3, 3]))
            tensor([1, 2])
        """
        result: Tensor = self._bitwise_inplace("bitwise_and", other)
        return result

    def bitwise_or_(self: Any, other: Any) -> Tensor:
        """In-place ``bitwise_or``.

        Args:
            other (Tensor or int): the other operand.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.tensor([1, 2]).bitwise_or_(4)
            tensor([5, 6])
        """
        result: Tensor = self._bitwise_inplace("bitwise_or", other)
        return result

    def bitwise_xor_(self: Any, other: Any) -> Tensor:
        """In-place ``bitwise_xor``.

        Args:
            other (Tensor or int): the other operand.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.tensor([1, 2]).bitwise_xor_(3)
            tensor([2, 1])
        """
        result: Tensor = self._bitwise_inplace("bitwise_xor", other)
        return result

    def logical_not_(self: Any) -> Tensor:
        """In-place ``logical_not``: 1 (True) where this tensor is zero, else 0, in its own dtype.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.tensor([1., 0.]).logical_not_()
            tensor([0., 1.])
        """
        result: Tensor = self._inplace_result(self.logical_not())
        return result

    def bfloat16(self: Any, memory_format: Any = None) -> Tensor:
        """PyTorch's conversion to bfloat16: raises, since nnlite has no bfloat16 (numpy has no
        bfloat16 arithmetic); the message names what to use instead.

        Args:
            memory_format: accepted for PyTorch's signature.

        Raises:
            TypeError: always.

        Examples:
            >>> nl.zeros(1).bfloat16()
            Traceback (most recent call last):
            ...
            TypeError: nnlite has no bfloat16: ...
        """
        from .bfloat16 import refuse

        refuse()

    def hash_tensor(self: Any, dim: Any = None, *, keepdim: bool = False, mode: int = 0) -> Tensor:
        """``nl.hash_tensor(self, dim, keepdim=..., mode=...)``: the xor of the elements' 64-bit patterns.

        Args:
            dim (int or tuple of ints, optional): the dimensions reduced. Default: all.
            keepdim (bool): keep the reduced dimensions with size one. Default: False.
            mode (int): the hash; only 0 (xor reduction). Default: 0.

        Returns:
            Tensor: uint64 hashes.

        Examples:
            >>> nl.tensor([1, 2]).hash_tensor()
            tensor(3, dtype=nnlite.uint64)
        """
        from .tensor_hash import hash_tensor

        result: Tensor = hash_tensor(self, dim, keepdim=keepdim, mode=mode)
        return result

    def is_distributed(self: Any) -> bool:
        """Whether the tensor is spread over processes: never.

        Returns:
            bool: False.

        Examples:
            >>> nl.zeros(1).is_distributed()
            False
        """
        return False

    def module_load(self: Any, other: Tensor, assign: bool = False) -> Tensor:
        """What ``Module.load_state_dict`` stores for this parameter or buffer given ``other``:
        ``other`` detached (``assign``), else this tensor with ``other`` copied in, detached.

        Args:
            other (Tensor): the loaded value.
            assign (bool): keep ``other`` itself. Default: False.

        Returns:
            Tensor: the value to store.

        Examples:
            >>> nl.zeros(2).module_load(nl.ones(2))
            tensor([1., 1.])
        """
        if assign:
            return other.detach()
        from .grad_mode import no_grad

        with no_grad():
            result: Tensor = self.copy_(other).detach()
            return result

    def reinforce(self: Any, reward: Any) -> None:
        """Removed from PyTorch: raises PyTorch's error, which says what to use instead
        (``distributions``).

        Args:
            reward: ignored.

        Raises:
            RuntimeError: always.

        Examples:
            >>> nl.zeros(1).reinforce(1.0)
            Traceback (most recent call last):
            ...
            RuntimeError: reinforce() was removed.
            ...
        """
        raise RuntimeError(_REINFORCE_REMOVED)

    @property
    def name(self) -> None:
        """The tensor's name: None (PyTorch's attribute for exporters; nnlite sets none).

        Examples:
            >>> nl.zeros(1).name is None
            True
        """
        return None

    @property
    def volatile(self) -> bool:
        """Removed from PyTorch (always False; warns, as PyTorch).

        Examples:
            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     nl.zeros(1).volatile
            False
        """
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
        return False

    @property
    def grad_dtype(self: Any) -> Any:
        """The dtype of ``grad``: the tensor's own (nnlite accumulates gradients in it).

        Examples:
            >>> nl.zeros(1, dtype=nl.float64).grad_dtype
            nnlite.float64
        """
        return self.dtype
