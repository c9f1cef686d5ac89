"""``biject_to`` and ``transform_to``: registries from a constraint to a transform that maps
unconstrained reals onto it (PyTorch's ``torch.distributions.constraint_registry``).
``biject_to(c)`` is bijective (for reparameterising and its log-Jacobian);
``transform_to(c)`` need only land in ``c`` (for optimising constrained parameters)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from . import constraints
from .elementwise_transforms import AffineTransform, ExpTransform, SigmoidTransform
from .transform import (
    CatTransform,
    ComposeTransform,
    IndependentTransform,
    StackTransform,
    Transform,
    identity_transform,
)
from .vector_transforms import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StickBreakingTransform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]

#: ``factory(constraint) -> Transform``; registering hands the factory back unchanged
_Factory = TypeVar("_Factory", bound=Callable[[Any], Transform])

#: what ``register`` takes: a ``Constraint`` subclass, or an instance of one
_ConstraintKind = constraints.Constraint | type[constraints.Constraint]


class ConstraintRegistry:
    """Constraint types mapped to factories ``factory(constraint) -> Transform``.

    Examples:
        >>> t = nl.distributions.transform_to(nl.distributions.constraints.positive)
        >>> t(nl.tensor(0.0))
        tensor(1.)
    """

    def __init__(self) -> None:
        self._registry: dict[type, Callable[[Any], Transform]] = {}

    @overload
    def register(
        self, constraint: _ConstraintKind, factory: None = None
    ) -> Callable[[_Factory], _Factory]: ...
    @overload
    def register(self, constraint: _ConstraintKind, factory: _Factory) -> _Factory: ...
    def register(
        self, constraint: _ConstraintKind, factory: _Factory | None = None
    ) -> _Factory | Callable[[_Factory], _Factory]:
        """Register ``factory`` for ``constraint`` (a ``Constraint`` subclass or an instance of
        one); without ``factory``, a decorator.

        Args:
            constraint (type or Constraint): the constraint's class, or an instance of it.
            factory (callable, optional): ``factory(constraint)`` returns the transform.

        Returns:
            the factory (or the decorator).
        """
        if factory is None:
            return lambda fn: self.register(constraint, fn)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError(
                "Expected constraint to be either a Constraint subclass or instance, but got "
                f"{constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> Transform:
        """The transform from unconstrained reals onto ``constraint``.

        Raises:
            NotImplementedError: no transform is registered for the constraint's type.
        """
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints"
            ) from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register_both(*kinds: _ConstraintKind) -> Callable[[_Factory], _Factory]:
    def decorator(factory: _Factory) -> _Factory:
        for kind in kinds:
            biject_to.register(kind, factory)
            transform_to.register(kind, factory)
        return factory

    return decorator


@_register_both(constraints.real)
def _to_real(constraint: Any) -> Transform:
    return identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint: Any) -> Transform:
    base = biject_to(constraint.base_constraint)
    return IndependentTransform(base, constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint: Any) -> Transform:
    base = transform_to(constraint.base_constraint)
    return IndependentTransform(base, constraint.reinterpreted_batch_ndims)


@_register_both(constraints.greater_than, constraints.greater_than_eq)
def _to_greater_than(constraint: Any) -> Transform:
    # positive and nonnegative are instances of these types, so they take this path too
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])


@_register_both(constraints.less_than)
def _to_less_than(constraint: Any) -> Transform:
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])


@_register_both(constraints.interval, constraints.half_open_interval)
def _to_interval(constraint: Any) -> Transform:
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, (int, float)) and low == 0 and isinstance(high, (int, float)) and high == 1:
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(low, high - low)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint: Any) -> Transform:
    return StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint: Any) -> Transform:
    return SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint: Any) -> Transform:
    return LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint: Any) -> Transform:
    return PositiveDefiniteTransform()


@_register_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint: Any) -> Transform:
    return CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint: Any) -> Transform:
    parts = [biject_to(c) for c in constraint.cseq]
    return CatTransform(parts, constraint.dim, constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint: Any) -> Transform:
    parts = [transform_to(c) for c in constraint.cseq]
    return CatTransform(parts, constraint.dim, constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint: Any) -> Transform:
    return StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint: Any) -> Transform:
    return StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
