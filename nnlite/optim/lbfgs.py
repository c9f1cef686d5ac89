"""L-BFGS with PyTorch's algorithm (after minFunc): a two-loop recursion over the last
``history_size`` curvature pairs gives the direction; a fixed step or a strong-Wolfe line
search gives its length. ``step(closure)`` re-evaluates the model through ``closure``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..autograd.creation import from_numpy
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, ParamsT, check_options

if TYPE_CHECKING:
    from .._typing import Array

#: ``evaluate(t)``: the loss and the flat gradient at step length ``t``
_Evaluate = Callable[[float], "tuple[float, Array]"]

__all__ = ["LBFGS"]


def _cubic_minimum(
    x1: float,
    f1: float,
    g1: float,
    x2: float,
    f2: float,
    g2: float,
    bounds: tuple[float, float] | None = None,
) -> float:
    """The minimizer of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1`` and
    ``g2``, clipped to ``bounds`` (default: the interval); the midpoint if the cubic has no
    minimum."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2: float = np.sqrt(d2_square)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


class _Point:
    """A trial step length ``t`` with the loss ``f``, gradient ``g`` and slope ``gtd`` there."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t: float, f: float, g: Array, gtd: float) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(
    evaluate: _Evaluate,
    t: float,
    d: Array,
    f: float,
    g: Array,
    gtd: float,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Array, float, int]:
    """Line search along ``d`` from loss ``f``, gradient ``g``, slope ``gtd`` for a step ``t``
    meeting the strong Wolfe conditions (sufficient decrease ``c1``, curvature ``c2``).
    ``evaluate(t)`` returns ``(loss, flat gradient)`` at step ``t``. Returns
    ``(loss, gradient, t, evaluations)``."""
    d_norm = np.abs(d).max()
    start = _Point(0, f, g.copy(), gtd)

    def probe(step: float) -> _Point:
        f_new, g_new = evaluate(step)
        return _Point(step, f_new, g_new, g_new.dot(d))

    def decreases_enough(p: _Point) -> bool:
        return p.f <= f + c1 * p.t * gtd

    def flat_enough(p: _Point) -> bool:
        return abs(p.gtd) <= -c2 * gtd

    # 1. bracketing: grow the step until an interval holds a point meeting the conditions
    prev, new = start, probe(t)
    evaluations, iterations = 1, 0
    bracket: list[_Point] = []  # always filled by the loop below
    found = False
    while iterations < max_ls:
        if not decreases_enough(new) or (iterations > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if flat_enough(new):
            bracket, found = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, new]
            break
        step = _cubic_minimum(
            prev.t,
            prev.f,
            prev.gtd,
            new.t,
            new.f,
            new.gtd,
            bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10),
        )
        prev, new = new, probe(step)
        evaluations += 1
        iterations += 1
    if iterations == max_ls:
        bracket = [_Point(0, f, g, float("nan")), new]  # (the zoom below does not run)

    # 2. zoom: shrink the bracket by cubic interpolation until a point meets the conditions
    stuck = False
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    while not found and iterations < max_ls:
        a, b = bracket[0].t, bracket[1].t
        if abs(b - a) * d_norm < tolerance_change:
            break
        step = _cubic_minimum(a, bracket[0].f, bracket[0].gtd, b, bracket[1].f, bracket[1].gtd)
        # keep away from the ends of the bracket, or the search crawls
        lo, hi = min(a, b), max(a, b)
        margin = 0.1 * (hi - lo)
        if min(hi - step, step - lo) < margin:
            if stuck or step >= hi or step <= lo:
                step = hi - margin if abs(step - hi) < abs(step - lo) else lo + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        new = probe(step)
        evaluations += 1
        iterations += 1
        if not decreases_enough(new) or new.f >= bracket[low].f:
            bracket[high] = new
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if flat_enough(new):
                found = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = new
    best = bracket[low]
    return best.f, best.g, best.t, evaluations


def _as_float(loss: Tensor | float) -> float:
    return float(loss.item()) if isinstance(loss, Tensor) else float(loss)


class LBFGS(Optimizer):
    """L-BFGS, PyTorch's algorithm and options. One param group only; ``step`` needs a
    ``closure`` that clears the gradients, computes the loss, calls ``backward`` and returns
    the loss. Each ``step`` runs up to ``max_iter`` iterations.

    Args:
        params: tensors to optimize (one group).
        lr (float): step length scale (default 1).
        max_iter (int): iterations per ``step`` (default 20).
        max_eval (int): closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad (float): stop when the largest gradient entry is at most this (1e-7).
        tolerance_change (float): stop when the loss or the step changes less (1e-9).
        history_size (int): curvature pairs kept (default 100).
        line_search_fn (str): ``None`` (fixed step ``lr``) or ``"strong_wolfe"``.

    The state (``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``,
    ``prev_flat_grad``, ``prev_loss``, ``func_evals``, ``n_iter``) sits on the first parameter,
    as in PyTorch.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> x, y = nl.randn(8, 4), nl.randn(8, 2)
        >>> opt = nl.optim.LBFGS(model.parameters(), lr=0.8)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = F.mse_loss(model(x), y)
        ...     loss.backward()
        ...     return loss
        >>> first = float(opt.step(closure))  # the loss before the step
        >>> float(F.mse_loss(model(x), y)) < first
        True
    """

    _state_shaped_like_params = False

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: Literal["strong_wolfe"] | None = None,
    ) -> None:
        check_options(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    @property
    def _params(self) -> list[Tensor]:
        params: list[Tensor] = self.param_groups[0]["params"]
        return params

    # flat views of all parameters ------------------------------------------------

    def _flat_grad(self) -> Array:
        return np.concatenate(
            [
                p.grad._data.ravel()
                if p.grad is not None
                else np.zeros(p._data.size, p._data.dtype)
                for p in self._params
            ]
        )

    def _add_to_params(self, scale: float, direction: Array) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += scale * direction[offset : offset + n].reshape(p._data.shape)
            p._bump_version()
            offset += n

    def _evaluate_at(
        self, closure: Callable[[], Any], start: list[Array], t: float, d: Array
    ) -> tuple[float, Array]:
        """Loss and flat gradient at ``start + t * d``; the parameters are put back to ``start``."""
        self._add_to_params(t, d)
        loss = _as_float(closure())
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, start):
            p._data[...] = saved
            p._bump_version()
        return loss, flat_grad

    # the step -----------------------------------------------------------------------

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]  # L-BFGS needs the closure, as in PyTorch
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss the first closure call
        returned."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure: step(closure)")
        group = self.param_groups[0]
        lr = _as_float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = self._eval_closure(closure)
        loss = _as_float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        memory = _Memory.from_state(state)
        d, t = memory.d, memory.t
        prev_flat_grad, prev_loss = memory.prev_flat_grad, memory.prev_loss
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                memory.reset()
            else:  # an earlier iteration (of this step or a previous one) set them
                assert d is not None and t is not None and prev_flat_grad is not None
                memory.remember(flat_grad - prev_flat_grad, d * t, history_size)
                d = memory.direction(flat_grad, state, history_size)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            done_evals = 0
            if line_search_fn is not None:
                start = [p._data.copy() for p in self._params]
                loss, flat_grad, t, done_evals = _strong_wolfe(
                    functools.partial(self._evaluate_at, closure, start, d=d),
                    t,
                    d,
                    loss,
                    flat_grad,
                    gtd,
                    max_ls=max_eval - evals,
                )
                self._add_to_params(t, d)
                converged = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_to_params(t, d)
                converged = False
                if n_iter != max_iter:  # the loss of the last iteration is the next step's
                    loss = _as_float(self._eval_closure(closure))
                    flat_grad = self._flat_grad()
                    converged = np.abs(flat_grad).max() <= tolerance_grad
                    done_evals = 1
            evals += done_evals
            state["func_evals"] += done_evals

            if (
                n_iter == max_iter
                or evals >= max_eval
                or converged
                or np.abs(d * t).max() <= tolerance_change
                or abs(loss - prev_loss) < tolerance_change
            ):
                break

        memory.d, memory.t = d, t
        memory.prev_flat_grad, memory.prev_loss = prev_flat_grad, prev_loss
        memory.store(state)
        return orig_loss


class _Memory:
    """The curvature pairs (``old_dirs`` y, ``old_stps`` s, ``ro`` 1/(y·s)), the diagonal
    scaling ``H_diag`` and the last direction and step, as arrays; kept in the optimizer state
    as tensors between steps."""

    _ARRAYS = ("d", "prev_flat_grad")
    _LISTS = ("old_dirs", "old_stps", "ro")

    def __init__(self) -> None:
        self.d: Array | None = None
        self.t: float | None = None
        self.prev_flat_grad: Array | None = None
        self.prev_loss: float | None = None
        # None until ``reset`` (the first iteration) or ``from_state`` fills them
        self.old_dirs: list[Array] | None = None
        self.old_stps: list[Array] | None = None
        self.ro: list[float] | None = None
        self.H_diag: float | None = None

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> _Memory:
        m = cls()
        for key in cls._ARRAYS:
            value = state.get(key)
            setattr(m, key, value._data if isinstance(value, Tensor) else value)
        for key in cls._LISTS:
            value = state.get(key)
            setattr(
                m,
                key,
                None if value is None else [v._data if isinstance(v, Tensor) else v for v in value],
            )
        for key in ("t", "H_diag", "prev_loss"):
            value = state.get(key)
            setattr(m, key, value._data[()] if isinstance(value, Tensor) else value)
        return m

    def store(self, state: dict[str, Any]) -> None:
        for key in self._ARRAYS:
            value = getattr(self, key)
            state[key] = from_numpy(value) if isinstance(value, np.ndarray) else value
        for key in self._LISTS:
            value = getattr(self, key)
            state[key] = [from_numpy(np.asarray(v)) for v in value] if value is not None else None
        state["t"], state["H_diag"], state["prev_loss"] = self.t, self.H_diag, self.prev_loss

    def reset(self) -> None:
        self.old_dirs, self.old_stps, self.ro, self.H_diag = [], [], [], 1

    def remember(self, y: Array, s: Array, history_size: int) -> None:
        """Keep the pair ``(y, s)`` if it has positive curvature (dropping the oldest one when
        the history is full), and rescale ``H_diag``."""
        assert self.old_dirs is not None and self.old_stps is not None and self.ro is not None
        ys = y.dot(s)
        if ys > 1e-10:
            if len(self.old_dirs) == history_size:
                del self.old_dirs[0], self.old_stps[0], self.ro[0]
            self.old_dirs.append(y)
            self.old_stps.append(s)
            self.ro.append(1.0 / ys)
            self.H_diag = ys / y.dot(y)

    def direction(self, flat_grad: Array, state: dict[str, Any], history_size: int) -> Array:
        """``-H @ flat_grad`` by the two-loop recursion."""
        assert self.old_dirs is not None and self.old_stps is not None and self.ro is not None
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = -flat_grad
        for i in reversed(range(len(self.old_dirs))):
            al[i] = self.old_stps[i].dot(q) * self.ro[i]
            q -= al[i] * self.old_dirs[i]
        r = q * self.H_diag
        for i in range(len(self.old_dirs)):
            be_i = self.old_dirs[i].dot(r) * self.ro[i]
            r += (al[i] - be_i) * self.old_stps[i]
        return r
