"""Constraints: which values a parameter or a sample may take, as PyTorch's
``torch.distributions.constraints`` (the ones nnlite's distributions use)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "Constraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


def _array(value: Any) -> np.ndarray:
    return np.asarray(value._data if hasattr(value, "_data") else value)


class Constraint:
    """A set of valid values; ``check(value)`` says, per event, whether ``value`` belongs to it.

    ``event_dim`` is the number of rightmost dimensions that together form one event.
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> np.ndarray:
        """A bool array: whether each event of ``value`` satisfies the constraint.

        Args:
            value (Tensor): the values.

        Returns:
            numpy.ndarray: bools, ``value``'s shape without the event dimensions.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A support that depends on other parameters (not checked)."""

    def check(self, value: Any) -> np.ndarray:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is (an instance of) the unchecked ``dependent`` constraint."""
    return isinstance(constraint, _Dependent)


class dependent_property(property):
    """A property whose value is a constraint depending on the instance (a distribution's
    ``support`` that depends on its parameters); on the class it reads as ``dependent``."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        super().__init__(fn)
        self._is_discrete, self._event_dim = is_discrete, event_dim

    def __call__(self, fn: Any) -> dependent_property:
        return dependent_property(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _Real(Constraint):
    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        return np.asarray(data == data)  # False for nan


class _RealVector(_Real):
    event_dim = 1

    def check(self, value: Any) -> np.ndarray:
        return np.asarray(super().check(value).all(-1))


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        valid: np.ndarray = (data == 0) | (data == 1)
        return valid


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        valid: np.ndarray = ((data == 0) | (data == 1)).all(-1) & (data.sum(-1) == 1)
        return valid


class _IndependentConstraint(Constraint):
    """``base_constraint`` over events of ``reinterpreted_batch_ndims`` more dimensions."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> np.ndarray:
        result = np.asarray(self.base_constraint.check(value))
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            raise ValueError(
                f"Expected value.dim() >= {self.base_constraint.event_dim + n} but got "
                f"{_array(value).ndim}"
            )
        return np.asarray(result.reshape(result.shape[: result.ndim - n] + (-1,)).all(-1))

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _GreaterThanEq(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> np.ndarray:
        return _array(self.lower_bound) <= _array(value)

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound: float) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> np.ndarray:
        return _array(value) < _array(self.upper_bound)

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: int) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        valid: np.ndarray = (data % 1 == 0) & (data >= self.lower_bound)
        return valid

    def __repr__(self) -> str:
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _Multinomial(Constraint):
    """Non-negative integer counts summing to at most ``upper_bound`` (PyTorch's weaker check)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: int) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        valid: np.ndarray = (data >= 0).all(-1) & (data.sum(-1) <= self.upper_bound)
        return valid


class _Cat(Constraint):
    """Pieces of ``lengths`` along ``dim``, each under its own constraint."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        event_dim: int = max(c.event_dim for c in self.cseq)
        return event_dim

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        bounds = np.cumsum([0] + self.lengths)
        pieces = [
            np.asarray(c.check(np.take(data, range(lo, hi), self.dim)))
            for c, lo, hi in zip(self.cseq, bounds[:-1], bounds[1:])
        ]
        return np.concatenate(pieces, self.dim)


class _Stack(Constraint):
    """Slices along ``dim``, each under its own constraint."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        self.cseq, self.dim = list(cseq), dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        event_dim: int = dim + 1 if self.dim + dim < 0 else dim
        return event_dim

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        slices = [np.take(data, i, self.dim) for i in range(data.shape[self.dim])]
        return np.stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound: float) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> np.ndarray:
        return _array(value) > self.lower_bound

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        return (_array(self.lower_bound) <= data) & (data <= _array(self.upper_bound))

    def __repr__(self) -> str:
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        return (_array(self.lower_bound) <= data) & (data < _array(self.upper_bound))

    def __repr__(self) -> str:
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        valid: np.ndarray = (data % 1 == 0) & super().check(value)
        return valid

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        valid: np.ndarray = (data >= 0).all(-1) & (np.abs(data.sum(-1) - 1) < 1e-6)
        return valid


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        lower = (np.triu(data, 1) == 0).all((-2, -1))
        valid: np.ndarray = lower & (np.diagonal(data, axis1=-2, axis2=-1) > 0).all(-1)
        return valid


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Any) -> np.ndarray:
        valid: np.ndarray = (np.triu(_array(value), 1) == 0).all((-2, -1))
        return valid


class _CorrCholesky(Constraint):
    """Lower Cholesky factors whose rows have unit length (of correlation matrices)."""

    event_dim = 2

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        tol = np.finfo(data.dtype).eps * data.shape[-1] * 10
        unit_rows = (np.abs(np.linalg.norm(data, axis=-1) - 1.0) <= tol).all(-1)
        valid: np.ndarray = _LowerCholesky().check(value) & unit_rows
        return valid


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        return np.full(data.shape[:-2], data.shape[-1] == data.shape[-2], dtype=bool)


class _Symmetric(_Square):
    def check(self, value: Any) -> np.ndarray:
        square = super().check(value)
        if not square.all():
            return square
        data = _array(value)
        valid: np.ndarray = np.isclose(data, np.swapaxes(data, -1, -2), atol=1e-6).all((-2, -1))
        return valid


class _PositiveSemidefinite(_Symmetric):
    def check(self, value: Any) -> np.ndarray:
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return np.asarray((np.linalg.eigvalsh(_array(value)) >= 0).all(-1))


class _PositiveDefinite(_Symmetric):
    def check(self, value: Any) -> np.ndarray:
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return np.asarray((np.linalg.eigvalsh(_array(value)) > 0).all(-1))


dependent = _Dependent()
independent = _IndependentConstraint
real = _Real()
real_vector = _RealVector()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
one_hot = _OneHot()
lower_triangular = _LowerTriangular()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
cat = _Cat
stack = _Stack
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
greater_than = _GreaterThan
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
