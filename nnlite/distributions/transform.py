"""``Transform``: an invertible map with a log-Jacobian (PyTorch's
``torch.distributions.transforms.Transform``), its inverse, and the transforms that combine others:
``ComposeTransform`` (``identity_transform`` is the empty one), ``IndependentTransform``,
``ReshapeTransform``, ``CatTransform`` and ``StackTransform``."""

from __future__ import annotations

from functools import reduce
from operator import add
from typing import Any

import numpy as np

from ..autograd.sizes import Size
from ..autograd.tensor import Tensor
from . import constraints
from .utils import sum_rightmost

__all__ = [
    "CatTransform",
    "ComposeTransform",
    "IndependentTransform",
    "ReshapeTransform",
    "StackTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """An invertible (or pseudo-invertible) map ``x -> y`` with ``log |dy/dx|``.

    Subclasses implement ``_call`` and/or ``_inverse`` and, when ``bijective``,
    ``log_abs_det_jacobian``. ``domain`` and ``codomain`` are the constraints of inputs and
    outputs; ``sign`` is the sign of the derivative of a monotone univariate transform.

    Args:
        cache_size (int): ``0`` (no cache) or ``1``: remember the last ``(x, y)`` pair, so
            ``t.inv(t(x))`` returns ``x`` itself.

    Examples:
        >>> t = nl.distributions.ExpTransform()
        >>> t.inv(t(nl.tensor([0.5])))
        tensor([0.5000])
    """

    bijective = False
    domain: Any = constraints.real
    codomain: Any = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        self._cache_size = cache_size
        self._inv: Transform | None = None
        if cache_size == 1:
            self._cached_x_y: tuple[Any, Any] = (None, None)
        elif cache_size != 0:
            raise ValueError("cache_size must be 0 or 1")

    @property
    def event_dim(self) -> int:
        """The number of rightmost dimensions forming one event (when domain and codomain agree)."""
        if self.domain.event_dim == self.codomain.event_dim:
            event_dim: int = self.domain.event_dim
            return event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian's determinant (+1 or -1) of a bijective transform."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with a cache of ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            result: Tensor = y_old
            return result
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            result: Tensor = x_old
            return result
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |dy/dx|`` at the pair ``(x, y = t(x))``.

        Args:
            x (Tensor): inputs.
            y (Tensor): the outputs ``t(x)``.

        Returns:
            Tensor: one value per event.
        """
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The input shape for an output of ``shape``."""
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform (reached through ``Transform.inv``)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def _forward(self) -> Transform:
        assert self._inv is not None
        return self._inv

    @property
    def domain(self) -> Any:
        return self._forward.codomain

    @property
    def codomain(self) -> Any:
        return self._forward.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._forward.bijective

    @property
    def sign(self) -> Any:
        return self._forward.sign

    @property
    def inv(self) -> Transform:
        return self._forward

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._forward.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._forward == other._forward

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        return self._forward._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._forward.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        return self._forward.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._forward.forward_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._forward!r})"


def _widened(constraint: Any, event_dim: int) -> Any:
    """``constraint`` over events of ``event_dim`` dimensions (never fewer than its own)."""
    if event_dim > constraint.event_dim:
        return constraints.independent(constraint, event_dim - constraint.event_dim)
    return constraint


class ComposeTransform(Transform):
    """The transforms ``parts`` applied in order; with no parts, the identity.

    Args:
        parts (list of Transform): the transforms, first applied first.
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> D = nl.distributions
        >>> t = D.ComposeTransform([D.AffineTransform(0.0, 2.0), D.ExpTransform()])
        >>> t(nl.tensor(0.5))
        tensor(2.7183)
    """

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self) -> Any:
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        return _widened(self.parts[0].domain, event_dim)

    @property
    def codomain(self) -> Any:
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        return _widened(self.parts[-1].codomain, event_dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(part.bijective for part in self.parts)

    @property
    def sign(self) -> Any:
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self) -> Transform:
        if self._inv is None:
            inverse = ComposeTransform([part.inv for part in reversed(self.parts)])
            inverse._inv = self
            self._inv = inverse
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return x.detach() * 0
        values = [x]
        for part in self.parts[:-1]:
            values.append(part(values[-1]))
        values.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, before, after in zip(self.parts, values[:-1], values[1:]):
            term = part.log_abs_det_jacobian(before, after)
            terms.append(sum_rightmost(term, event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return reduce(add, terms)

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(part) for part in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dimensions in each
    event: the map is unchanged, ``log_abs_det_jacobian`` sums over them.

    Args:
        base_transform (Transform): the transform.
        reinterpreted_batch_ndims (int): how many more dimensions form one event.
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> D = nl.distributions
        >>> t = D.IndependentTransform(D.ExpTransform(), 1)
        >>> x = nl.tensor([0.5, 1.0])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor(1.5000)
    """

    def __init__(
        self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0
    ) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @property
    def domain(self) -> Any:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> Any:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return sum_rightmost(result, self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: Any) -> Any:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dimensions to ``out_shape`` (unit Jacobian).

    Args:
        in_shape (Size): the input event shape.
        out_shape (Size): the output event shape, of as many elements.
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> nl.distributions.ReshapeTransform((4,), (2, 2))(nl.zeros(3, 4)).shape
        nnlite.Size([3, 2, 2])
    """

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if int(np.prod(self.in_shape)) != int(np.prod(self.out_shape)):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self) -> Any:
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> Any:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch = tuple(x.shape[: x.ndim - len(self.in_shape)])
        return x.reshape(*batch, *self.out_shape)

    def _inverse(self, y: Tensor) -> Tensor:
        batch = tuple(y.shape[: y.ndim - len(self.out_shape)])
        return y.reshape(*batch, *self.in_shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from ..autograd.creation import zeros

        return zeros(*x.shape[: x.ndim - len(self.in_shape)], dtype=x.dtype)

    @staticmethod
    def _swap(shape: Any, given: Size, wanted: Size) -> Any:
        if len(shape) < len(given):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(given)
        if tuple(shape[cut:]) != tuple(given):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {given}")
        return Size(tuple(shape[:cut]) + tuple(wanted))

    def forward_shape(self, shape: Any) -> Any:
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._swap(shape, self.out_shape, self.in_shape)


def _check_dim(dim: int, value: Tensor, name: str) -> None:
    if not -value.ndim <= dim < value.ndim:
        raise AssertionError(f"dim {dim} out of range for {name} with {value.ndim} dimensions")


class CatTransform(Transform):
    """The transforms ``tseq`` applied to consecutive pieces of ``lengths`` along ``dim`` (as
    ``cat`` joins them).

    Args:
        tseq (list of Transform): one transform per piece.
        dim (int): the dimension cut into pieces.
        lengths (list of int, optional): the pieces' lengths (default: 1 each).
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> D = nl.distributions
        >>> t = D.CatTransform([D.ExpTransform(), D.identity_transform], 0, [1, 1])
        >>> t(nl.tensor([0.0, 0.0]))
        tensor([1., 0.])
    """

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @property
    def event_dim(self) -> int:
        event_dim: int = max(t.event_dim for t in self.transforms)
        return event_dim

    @property
    def length(self) -> int:
        """The total length along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, value: Tensor, name: str) -> list[Tensor]:
        _check_dim(self.dim, value, "tensor" if name in "xy" else name)
        if value.shape[self.dim] != self.length:
            raise AssertionError(
                f"{name}.size({self.dim}) = {value.shape[self.dim]} must equal length {self.length}"
            )
        starts = np.cumsum([0] + self.lengths[:-1])
        return [value.narrow(self.dim, int(s), n) for s, n in zip(starts, self.lengths)]

    def _call(self, x: Tensor) -> Tensor:
        from ..autograd.creation import cat

        pieces = self._pieces(x, "x")
        return cat([t(p) for t, p in zip(self.transforms, pieces)], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        from ..autograd.creation import cat

        pieces = self._pieces(y, "y")
        return cat([t.inv(p) for t, p in zip(self.transforms, pieces)], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from ..autograd.creation import cat

        terms = []
        for t, xs, ys in zip(self.transforms, self._pieces(x, "x"), self._pieces(y, "y")):
            term = t.log_abs_det_jacobian(xs, ys)
            terms.append(sum_rightmost(term, self.event_dim - t.event_dim))
        dim = (self.dim - x.ndim if self.dim >= 0 else self.dim) + self.event_dim
        return cat(terms, dim) if dim < 0 else reduce(add, terms)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> Any:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """The transforms ``tseq`` applied to the slices along ``dim`` (as ``stack`` joins them).

    Args:
        tseq (list of Transform): one transform per slice.
        dim (int): the dimension sliced.
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> D = nl.distributions
        >>> t = D.StackTransform([D.ExpTransform(), D.identity_transform], 1)
        >>> t(nl.zeros(1, 2))
        tensor([[1., 0.]])
    """

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value: Tensor, name: str) -> list[Tensor]:
        _check_dim(self.dim, value, "tensor" if name in "xy" else name)
        if value.shape[self.dim] != len(self.transforms):
            raise AssertionError(
                f"{name}.size({self.dim}) = {value.shape[self.dim]} must equal len(transforms) "
                f"{len(self.transforms)}"
            )
        return [value.select(self.dim, i) for i in range(value.shape[self.dim])]

    def _call(self, x: Tensor) -> Tensor:
        from ..autograd.creation import stack

        return stack([t(s) for t, s in zip(self.transforms, self._slices(x, "x"))], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        from ..autograd.creation import stack

        return stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y, "y"))], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from ..autograd.creation import stack

        pairs = zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))
        return stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in pairs], self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> Any:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
