"""Constraints: which values a parameter or a sample may take, as PyTorch's
``torch.distributions.constraints`` (the ones nnlite's distributions use)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "Constraint",
    "boolean",
    "dependent",
    "greater_than",
    "integer_interval",
    "interval",
    "lower_cholesky",
    "positive",
    "positive_definite",
    "real",
    "real_vector",
    "simplex",
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
        return (data == 0) | (data == 1)


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
        return (data % 1 == 0) & super().check(value)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        return (data >= 0).all(-1) & (np.abs(data.sum(-1) - 1) < 1e-6)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        lower = (np.triu(data, 1) == 0).all((-2, -1))
        return lower & (np.diagonal(data, axis1=-2, axis2=-1) > 0).all(-1)


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value: Any) -> np.ndarray:
        data = _array(value)
        symmetric = np.isclose(data, np.swapaxes(data, -1, -2), atol=1e-6).all((-2, -1))
        return symmetric & (np.linalg.eigvalsh(data) > 0).all(-1)


dependent = _Dependent()
real = _Real()
real_vector = _RealVector()
boolean = _Boolean()
positive = _GreaterThan(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
greater_than = _GreaterThan
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
