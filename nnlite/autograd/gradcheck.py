"""Finite-difference checks of analytical gradients (first and second order), in float64."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import grad as autograd_grad
from .grad_mode import enable_grad, no_grad
from .tensor import Tensor, _make

if TYPE_CHECKING:
    from .._typing import Array


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical Jacobians disagree.

    Examples:
        >>> x = nl.randn(3, dtype=nl.float64, requires_grad=True)
        >>> class Twice(nl.autograd.Function):  # its backward is off by a factor of 2
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         return grad * 4
        >>> nl.autograd.gradcheck(Twice.apply, (x,))
        Traceback (most recent call last):
            ...
        nnlite.autograd.gradcheck.GradcheckError: Jacobian mismatch ...
    """


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return x if isinstance(x, tuple) else (x,)


def _differentiable_outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[Tensor]:
    outputs = _as_tuple(fn(*inputs))
    return [o for o in outputs if isinstance(o, Tensor) and o.requires_grad]


def _numerical_jacobian(
    fn: Callable[..., Any], inputs: Sequence[Any], target: Tensor, eps: float
) -> Array:
    """Central differences, one input element at a time: columns of d(outputs)/d(target)."""
    flat = target._data.reshape(-1)  # a view: perturbing it perturbs the input
    columns: list[Array] = []
    with no_grad():
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps
            plus = [
                o._data.astype(np.float64).ravel().copy()
                for o in _as_tuple(fn(*inputs))
                if isinstance(o, Tensor)
            ]
            flat[i] = original - eps
            minus = [
                o._data.astype(np.float64).ravel().copy()
                for o in _as_tuple(fn(*inputs))
                if isinstance(o, Tensor)
            ]
            flat[i] = original
            columns.append(np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))


def _analytical_jacobian(
    fn: Callable[..., Any], inputs: Sequence[Any], targets: Sequence[Tensor]
) -> list[Array]:
    """Rows of d(outputs)/d(targets), one backward pass per output element."""
    outputs = _differentiable_outputs(fn, inputs)
    sizes = [o.numel() for o in outputs]
    total = sum(sizes)
    jac = [np.zeros((total, t.numel())) for t in targets]
    row = 0
    for o, size in zip(outputs, sizes):
        for k in range(size):
            seed = np.zeros(o.shape, dtype=o._data.dtype)
            seed.reshape(-1)[k] = 1
            grads = autograd_grad([o], targets, [_make(seed)], retain_graph=True, allow_unused=True)
            for j, g in enumerate(grads):
                if g is not None:
                    jac[j][row] = g._data.astype(np.float64).ravel()
            row += 1
    return jac


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    *,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Compare autograd's gradients of ``func`` with central finite differences.

    Inputs that require grad should be float64. The check builds the full Jacobian, so keep the
    inputs small.

    Args:
        func: a function of ``inputs`` returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of Tensors (and other arguments, passed through).
        eps: the finite-difference step.
        atol, rtol: tolerances of ``|analytical - numerical| <= atol + rtol * |numerical|``.
        raise_exception: raise ``GradcheckError`` describing the worst mismatch, else return False.
        nondet_tol: accepted (nnlite's backward is deterministic).
        check_undefined_grad: accepted.
        check_grad_dtypes: accepted.
        check_batched_grad: accepted.
        check_batched_forward_grad: must be False (no forward-mode AD).
        check_forward_ad: must be False (no forward-mode AD).
        check_backward_ad: False skips the check.
        fast_mode: accepted; the full Jacobian is always compared (PyTorch's fast mode checks a
            random projection of it).
        masked: accepted.

    Returns:
        True when every Jacobian entry agrees.

    Examples:
        >>> x = nl.randn(3, dtype=nl.float64, requires_grad=True)
        >>> nl.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
        True
    """
    _refuse_forward_ad(check_forward_ad or check_batched_forward_grad)
    if not check_backward_ad:
        return True
    inputs = _as_tuple(inputs)
    targets = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if not targets:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for t in targets:
        if t.dtype.name != "float64":
            warnings.warn(
                f"Input #{inputs.index(t)} requires gradient and is not a double precision floating "
                "point. This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                UserWarning,
                stacklevel=2,
            )
    analytical = _analytical_jacobian(func, inputs, targets)
    for j, t in enumerate(targets):
        numerical = _numerical_jacobian(func, inputs, t, eps)
        a = analytical[j]
        if a.shape != numerical.shape:
            return _fail(
                raise_exception,
                f"Jacobian shape mismatch for input {j}: analytical {a.shape} vs "
                f"numerical {numerical.shape}",
            )
        bad = np.abs(a - numerical) > atol + rtol * np.abs(numerical)
        if bad.any():
            diff = np.abs(a - numerical)
            r, c = np.unravel_index(np.argmax(np.where(bad, diff, -1)), diff.shape)
            return _fail(
                raise_exception,
                f"Jacobian mismatch for output 0 with respect to input {j}: worst at (output element "
                f"{r}, input element {c}): analytical {a[r, c]!r} vs numerical {numerical[r, c]!r} "
                f"(|diff| {diff[r, c]:.3g}; {int(bad.sum())} of {bad.size} entries outside "
                f"atol={atol}, rtol={rtol})\nnumerical:\n{numerical}\nanalytical:\n{a}",
            )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    *,
    gen_non_contig_grad_outputs: bool = False,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second-order gradients: ``gradcheck`` of the function ``(inputs, v) -> vᵀ·J(inputs)``.

    Args:
        func: a function of ``inputs`` returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of Tensors (float64 where they require grad).
        grad_outputs (sequence of Tensors, optional): the vectors ``v``; random float64 tensors
            when omitted. They are differentiated too, as PyTorch does.
        eps (float): the finite-difference step.
        atol, rtol (float): tolerances of ``|analytical - numerical| <= atol + rtol * |numerical|``.
        raise_exception (bool): raise ``GradcheckError`` on a mismatch, else return False.
        gen_non_contig_grad_outputs (bool): accepted.
        nondet_tol (float): accepted.
        check_undefined_grad (bool): accepted.
        check_grad_dtypes (bool): accepted.
        check_batched_grad (bool): accepted.
        check_fwd_over_rev (bool): must be False (no forward-mode AD).
        check_rev_over_rev (bool): False skips the check.
        fast_mode (bool): accepted; the full Jacobian is always compared.
        masked (bool): accepted.

    Returns:
        bool: True when every second-order Jacobian entry agrees.

    Examples:
        >>> x = nl.randn(3, dtype=nl.float64, requires_grad=True)
        >>> nl.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    _refuse_forward_ad(check_fwd_over_rev)
    if not check_rev_over_rev:
        return True
    inputs = _as_tuple(inputs)
    targets = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    outputs = _differentiable_outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [
            _make(rng.standard_normal(o.shape).astype(o._data.dtype)).requires_grad_()
            for o in outputs
        ]
    else:
        grad_outputs = list(_as_tuple(grad_outputs))
    n = len(inputs)

    def first_order(*args: Any) -> tuple[Tensor, ...]:
        ins, vs = args[:n], args[n:]
        with enable_grad():  # finite differences evaluate this under no_grad
            outs = _differentiable_outputs(func, ins)
            grads = autograd_grad(outs, targets, list(vs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_order,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )


def _refuse_forward_ad(asked: bool) -> None:
    if asked:
        raise NotImplementedError("gradcheck: nnlite has no forward-mode AD to check")


def _fail(raise_exception: bool, message: str) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False
