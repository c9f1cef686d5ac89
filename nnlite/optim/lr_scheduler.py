"""Learning-rate schedulers with PyTorch's semantics.

A scheduler sets ``group["lr"]`` of its optimizer's param groups. It is created after the
optimizer and stepped once per epoch (or per iteration), after ``optimizer.step()``::

    scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(100):
        train(...)              # calls optimizer.step()
        scheduler.step()

The chainable schedulers (``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``CosineAnnealingLR``)
compute the new rate from the current one, as PyTorch does, so the values agree with PyTorch's
to the last bit.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, Literal
from weakref import ref

from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "LinearLR",
    "PolynomialLR",
    "OneCycleLR",
    "SequentialLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "ConstantLR",
    "MultiplicativeLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
]

_EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    return [group[key] for group in optimizer.param_groups]


def _warn_get_lr_outside_step(scheduler: Any) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=3,
        )


class LRScheduler:
    """Base class of the learning-rate schedulers.

    Args:
        optimizer (Optimizer): the optimizer whose learning rates are scheduled.
        last_epoch (int): index of the last epoch; ``-1`` (default) starts a new schedule and
            stores each group's ``lr`` as ``initial_lr``. A value ``>= 0`` resumes and needs
            ``initial_lr`` in every group.

    Subclasses implement ``get_lr()``, returning the new learning rate of every group, and
    optionally ``_get_closed_form_lr()``, used when ``step(epoch)`` is given an epoch.

    Examples:
        >>> class Halving(nl.optim.lr_scheduler.LRScheduler):
        ...     def get_lr(self):
        ...         return [base * 0.5 ** self.last_epoch for base in self.base_lrs]
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
        >>> scheduler = Halving(opt)
        >>> lrs = []
        >>> for epoch in range(3):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.05, 0.025]
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer

        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute but the optimizer (savable with ``nl.save``).

        Returns:
            dict: the scheduler's attributes.

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
            >>> state = nl.optim.lr_scheduler.StepLR(opt, step_size=3).state_dict()
            >>> state["step_size"], state["last_epoch"]
            (3, 0)
        """
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the scheduler's state from ``state_dict()``'s result.

        Args:
            state_dict (dict): a dict from ``state_dict()``.

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
            >>> first = nl.optim.lr_scheduler.StepLR(opt, step_size=3)
            >>> second = nl.optim.lr_scheduler.StepLR(opt, step_size=5)
            >>> second.load_state_dict(first.state_dict())
            >>> second.step_size
            3
        """
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates of the groups as set by the last ``step()``.

        Returns:
            list of float: one learning rate per param group.

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
            >>> nl.optim.lr_scheduler.StepLR(opt, step_size=1).get_last_lr()
            [0.1]
        """
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The learning rates for the current ``last_epoch`` (called by ``step``).

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
            >>> scheduler = nl.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
            >>> opt.step()
            >>> scheduler.step()
            >>> scheduler.get_last_lr()
            [0.05]
        """
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule by one epoch (or jump to ``epoch``, deprecated) and set the
        groups' learning rates.

        Args:
            epoch (int, optional): jump to this epoch instead (deprecated, as in PyTorch).

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
            >>> scheduler = nl.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
            >>> opt.step()
            >>> scheduler.step()
            >>> opt.param_groups[0]["lr"]
            0.05
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                    "result in PyTorch skipping the first value of the learning rate schedule. "
                    "See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(
                f"{type(self).__name__}.get_lr() returned {len(values)} values for "
                f"{len(groups)} param groups"
            )
        for group, lr in zip(groups, values):
            group["lr"] = lr
        self._last_lr = _group_values(self.optimizer, "lr")


def _track_step_calls(optimizer: Any) -> None:
    """Wrap ``optimizer.step`` (once) so that schedulers can tell whether it has been called."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(optimizer)
    func = optimizer.step.__func__

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        assert opt is not None  # the wrapper lives on the optimizer
        opt._opt_called = True
        return func(opt, *args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]  # a marker on the function
    optimizer.step = wrapper


class LambdaLR(LRScheduler):
    """Set each group's learning rate to ``initial_lr * lr_lambda(epoch)``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (callable or list of callables): one function of the epoch, or one per group.
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
        >>> scheduler = nl.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
        >>> lrs = []
        >>> for epoch in range(4):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.05, 0.03333, 0.025]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state. Plain functions are stored as ``None``; callable objects
        contribute their ``__dict__``."""
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "lr_lambdas")
        }
        state["lr_lambdas"] = [None] * len(self.lr_lambdas)
        for i, fn in enumerate(self.lr_lambdas):
            if not isinstance(fn, types.FunctionType):
                state["lr_lambdas"][i] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for i, fn_state in enumerate(lr_lambdas):
            if fn_state is not None:
                self.lr_lambdas[i].__dict__.update(fn_state)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


class StepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        step_size (int): period of the decay, in epochs.
        gamma (float): multiplicative factor (default 0.1).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> scheduler = StepLR(optimizer, step_size=2, gamma=0.1)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     optimizer.step()
        ...     scheduler.step()
        >>> lrs
        [0.05, 0.05, 0.005, 0.005, 0.0005, 0.0005]
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> Any:
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


class MultiStepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` at each milestone epoch (a milestone
    listed twice applies ``gamma`` twice).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        milestones (iterable of int): epoch indices.
        gamma (float): multiplicative factor (default 0.1).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
        >>> scheduler = nl.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(4):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.05, 0.05, 0.025]
    """

    def __init__(
        self, optimizer: Optimizer, milestones: list[int], gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        # a saved and reloaded Counter comes back as a plain dict
        self.milestones = Counter(dict(self.milestones))

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        return [
            group["lr"] * self.gamma ** self.milestones[self.last_epoch]
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> Any:
        milestones = sorted(self.milestones.elements())
        return [
            base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
            for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        gamma (float): multiplicative factor.
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
        >>> scheduler = nl.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(3):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.05, 0.025]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> Any:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing (SGDR without restarts): the learning rate follows

    .. math:: \eta_t = \eta_{min} + \frac{1}{2}(\eta_{max} - \eta_{min})
              \left(1 + \cos\left(\frac{t\pi}{T_{max}}\right)\right)

    computed, as in PyTorch, by the recursive form from the previous rate, so other changes
    to the rate carry over; past ``T_max`` the rate climbs back (period ``2 * T_max``).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_max (int): half period, in epochs.
        eta_min (float): minimum learning rate (default 0).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
        >>> scheduler = nl.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.08536, 0.05, 0.01464, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min
                + (base_lr - self.eta_min)
                * (1 + math.cos(self.last_epoch * math.pi / self.T_max))
                / 2
                for base_lr in self.base_lrs
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in groups
        ]

    def _get_closed_form_lr(self) -> Any:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """Scale each group's learning rate by a factor going linearly from ``start_factor`` to
    ``end_factor`` over ``total_iters`` steps, then keep it (a warm-up when used first).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        start_factor (float): factor at the first epoch, in (0, 1] (default 1/3).
        end_factor (float): factor from ``total_iters`` on, in [0, 1] (default 1).
        total_iters (int): steps of the ramp (default 5).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> scheduler = LinearLR(optimizer, start_factor=0.5, total_iters=4)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     optimizer.step()
        ...     scheduler.step()
        >>> lrs
        [0.025, 0.03125, 0.0375, 0.04375, 0.05, 0.05]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less "
                "or equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        # the ratio of this step's factor to the previous one
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        )
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> Any:
        change = self.end_factor - self.start_factor
        return [
            base_lr
            * (
                self.start_factor
                + change * min(self.total_iters, self.last_epoch) / self.total_iters
            )
            for base_lr in self.base_lrs
        ]


class PolynomialLR(LRScheduler):
    """Decay each group's learning rate as ``base_lr * (1 - t / total_iters) ** power`` over
    ``total_iters`` steps; zero from then on.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        total_iters (int): steps until the rate reaches zero (default 5).
        power (float): power of the polynomial (default 1.0: linear).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> scheduler = PolynomialLR(optimizer, total_iters=4, power=2.0)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     optimizer.step()
        ...     scheduler.step()
        >>> lrs
        [0.05, 0.02813, 0.0125, 0.00312, 0.0, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        t, n = self.last_epoch, self.total_iters
        decay = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> Any:
        return [
            base_lr
            * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base_lr in self.base_lrs
        ]


def _per_group(name: Any, optimizer: Optimizer, value: Any) -> Any:
    """``value`` for each param group: a list of one value per group, or one value for all."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(value)} values, param_groups has {len(optimizer.param_groups)}."
            )
        return list(value)
    return [value] * len(optimizer.param_groups)


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin): the learning rate climbs from ``max_lr /
    div_factor`` to ``max_lr`` over the first ``pct_start`` of the steps, then anneals to
    ``initial_lr / final_div_factor``; momentum (or Adam's beta1) moves the opposite way between
    ``max_momentum`` and ``base_momentum``. Stepped once per batch in PyTorch's recipe.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        max_lr (float or list): peak learning rate(s).
        total_steps (int): steps of the cycle; or give ``epochs`` and ``steps_per_epoch``.
        epochs (int), steps_per_epoch (int): ``total_steps = epochs * steps_per_epoch``.
        pct_start (float): share of the steps spent climbing (default 0.3).
        anneal_strategy (str): ``"cos"`` (default) or ``"linear"``.
        cycle_momentum (bool): cycle the momentum too (default True).
        base_momentum, max_momentum (float or list): momentum bounds (0.85, 0.95).
        div_factor (float): ``initial_lr = max_lr / div_factor`` (default 25).
        final_div_factor (float): ``min_lr = initial_lr / final_div_factor`` (default 1e4).
        three_phase (bool): a third phase annihilates the rate (default False).
        last_epoch (int): index of the last step (default -1).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> scheduler = OneCycleLR(optimizer, max_lr=0.1, steps_per_epoch=3, epochs=2)
        >>> lrs = []
        >>> for batch in range(6):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     optimizer.step()
        ...     scheduler.step()
        >>> lrs
        [0.004, 0.09944, 0.08117, 0.04626, 0.01335, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        def phase(
            end_step: Any, lr_from: Any, lr_to: Any, momentum_from: Any, momentum_to: Any
        ) -> Any:
            return {
                "end_step": end_step,
                "start_lr": lr_from,
                "end_lr": lr_to,
                "start_momentum": momentum_from,
                "end_momentum": momentum_to,
            }

        climb_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                phase(climb_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(
                    float(2 * pct_start * self.total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),
                phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                phase(climb_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy

        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for peak, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            highs = _per_group("max_momentum", optimizer, max_momentum)
            lows = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(highs, lows, optimizer.param_groups):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: Any, value: Any) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start: Any, end: Any, pct: Any) -> Any:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is {self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step - start_step) / (end_step - start_step)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        self._set_momentum(
                            group,
                            self._anneal(
                                group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                            ),
                        )
                    break
                start_step = end_step
        return lrs


def _check_schedulers(owner: Any, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
    """The checks SequentialLR and ChainedScheduler make of their schedulers (PyTorch's
    messages)."""
    name = type(owner).__name__
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                "kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {i} has {scheduler.optimizer}, which is "
                f"different from {type(optimizer).__name__}."
            )


class _Composite(LRScheduler):
    """A scheduler made of other schedulers: its state dict holds theirs under
    ``_schedulers``."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, inner):
            scheduler.load_state_dict(saved)


class SequentialLR(_Composite):
    """Run ``schedulers`` one after the other, switching at the ``milestones`` epochs (a
    warm-up, then a decay). The schedulers must have been created on ``optimizer``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        schedulers (list): the schedulers, in order.
        milestones (list of int): epochs at which the next scheduler takes over (one fewer than
            schedulers).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> warmup = LinearLR(optimizer, start_factor=0.1, total_iters=2)
        >>> decay = ExponentialLR(optimizer, gamma=0.9)
        >>> scheduler = SequentialLR(optimizer, [warmup, decay], milestones=[2])
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     optimizer.step()
        ...     scheduler.step()
        >>> lrs
        [0.005, 0.0275, 0.05, 0.045, 0.0405]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: Sequence[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler, but got no scheduler."
            )
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the "
                f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                f"number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # start over: the schedulers' own first steps are undone and only the first one's redone
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._rewind(self)
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    @staticmethod
    def _rewind(scheduler: Any) -> None:
        if hasattr(scheduler, "_schedulers"):
            for inner in scheduler._schedulers:
                SequentialLR._rewind(inner)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]  # PyTorch's signature: no epoch
        """Advance one epoch with the scheduler whose turn it is (a scheduler starts from its
        own epoch 0 at its milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step several schedulers together at each ``step()``; their changes compose (e.g. a
    constant warm-up factor times an exponential decay).

    Args:
        schedulers (list): the schedulers, all on one optimizer.
        optimizer (Optimizer): that optimizer (default: the first scheduler's).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> scheduler = ChainedScheduler(
        ...     [LinearLR(optimizer, 0.5, total_iters=3), ExponentialLR(optimizer, 0.9)]
        ... )
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     optimizer.step()
        ...     scheduler.step()
        >>> lrs
        [0.025, 0.03, 0.03375, 0.03645, 0.03281]
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, "
                "but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]  # PyTorch's signature: no epoch
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rates by ``factor`` when a metric has stopped improving for
    ``patience`` epochs. ``step(metric)`` takes the metric (e.g. the validation loss).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        mode (str): ``"min"`` (default: lower is better) or ``"max"``.
        factor (float): multiplier of the rate, < 1 (default 0.1).
        patience (int): epochs without improvement tolerated (default 10).
        threshold (float): least change counted as an improvement (default 1e-4).
        threshold_mode (str): ``"rel"`` (default: relative to the best) or ``"abs"``.
        cooldown (int): epochs to wait after a reduction (default 0).
        min_lr (float or list): lower bound of the rate(s) (default 0).
        eps (float): a reduction smaller than this is skipped (default 1e-8).

    Examples:
        >>> optimizer = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.05)
        >>> scheduler = ReduceLROnPlateau(optimizer, patience=2)
        >>> for validation_loss in [1.0, 0.9, 0.9, 0.9, 0.9]:
        ...     scheduler.step(validation_loss)
        >>> optimizer.param_groups[0]["lr"]  # three epochs without improvement: lr * 0.1
        0.005...
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: Literal["min", "max"] = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: Literal["rel", "abs"] = "rel",
        cooldown: int = 0,
        min_lr: float | list[float] = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._set_comparison(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _set_comparison(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    @property
    def in_cooldown(self) -> Any:
        """Whether the scheduler is waiting out its ``cooldown`` after a reduction.

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
            >>> scheduler = nl.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, cooldown=2)
            >>> for loss in [1.0, 1.0]:
            ...     scheduler.step(loss)
            >>> scheduler.in_cooldown
            True
        """
        return self.cooldown_counter > 0

    def _is_better(self, a: Any, best: Any) -> Any:
        if self.mode == "min":
            return a < (
                best * (1.0 - self.threshold)
                if self.threshold_mode == "rel"
                else best - self.threshold
            )
        return a > (
            best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold
        )

    def step(self, metrics: float, epoch: int | None = None) -> None:  # type: ignore[override]  # PyTorch's signature
        """Record this epoch's ``metrics`` value and reduce the rates after ``patience`` bad
        epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                    f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to "
                    "a new param group being added to the optimizer. Please modify the `min_lrs` "
                    "field to match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_comparison(self.mode, self.threshold, self.threshold_mode)


class ConstantLR(LRScheduler):
    """Scale each group's learning rate by ``factor`` for the first ``total_iters`` steps, then
    restore it.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        factor (float): the scale, in [0, 1] (default 1/3).
        total_iters (int): steps at the reduced rate (default 5).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.3)
        >>> scheduler = nl.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = []
        >>> for epoch in range(4):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.15, 0.15, 0.3, 0.3]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> Any:
        return [
            base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base_lr in self.base_lrs
        ]


class MultiplicativeLR(LambdaLR):
    """Multiply each group's learning rate by ``lr_lambda(epoch)`` at every step.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (callable or list of callables): the factor as a function of the epoch, or one
            per group.
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)
        >>> scheduler = nl.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
        >>> lrs = []
        >>> for epoch in range(3):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.05, 0.025]
    """

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [
            group["lr"] * lmbda(self.last_epoch)
            for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from each group's initial rate to ``eta_min`` over ``T_i`` steps, then a
    restart, with ``T_i`` multiplied by ``T_mult`` after each restart (SGDR, Loshchilov and
    Hutter). ``step(epoch)`` accepts fractional epochs (a step per batch).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_0 (int): steps before the first restart.
        T_mult (int): growth of the period after each restart (default 1).
        eta_min (float): the smallest learning rate (default 0).
        last_epoch (int): index of the last epoch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=1.0)
        >>> scheduler = nl.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = []
        >>> for epoch in range(4):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0, self.T_mult = T_0, T_mult
        self.T_i: float = T_0
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base_lr in self.base_lrs
        ]

    def step(self, epoch: float | None = None) -> None:
        """Advance one step, or go to ``epoch`` (fractional epochs allowed: one step per batch).

        Args:
            epoch (float, optional): the (fractional) epoch to go to.
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _group_values(self.optimizer, "lr")


class CyclicLR(LRScheduler):
    """Cycle each group's learning rate between ``base_lr`` and ``max_lr`` (Smith, 2017), one
    step per batch: up over ``step_size_up`` steps, down over ``step_size_down``; with
    ``cycle_momentum`` the momentum (or Adam's beta1) cycles the opposite way.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        base_lr (float or list): the lower rate, per group.
        max_lr (float or list): the upper rate, per group.
        step_size_up (int): steps of the rising half (default 2000).
        step_size_down (int, optional): steps of the falling half (default ``step_size_up``).
        mode (str): ``"triangular"``, ``"triangular2"`` (halve the height each cycle) or
            ``"exp_range"`` (scale by ``gamma ** step``). Default: ``"triangular"``.
        gamma (float): the base of ``"exp_range"`` (default 1.0).
        scale_fn (callable, optional): a custom scale of the height (overrides ``mode``).
        scale_mode (str): ``scale_fn``'s argument: ``"cycle"`` or ``"iterations"``.
        cycle_momentum (bool): cycle the momentum too (default True).
        base_momentum (float or list): the lower momentum (default 0.8).
        max_momentum (float or list): the upper momentum (default 0.9).
        last_epoch (int): index of the last batch (default -1).

    Examples:
        >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        >>> scheduler = nl.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, step_size_up=2)
        >>> lrs = []
        >>> for batch in range(5):
        ...     lrs.append(round(scheduler.get_last_lr()[0], 5))
        ...     opt.step()
        ...     scheduler.step()
        >>> lrs
        [0.1, 0.3, 0.5, 0.3, 0.1]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.8,
        max_momentum: float | list[float] = 0.9,
        last_epoch: int = -1,
    ) -> None:
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The height's scale at cycle (or step) ``x``: the custom function, or the mode's.

        Args:
            x (float): the cycle (``scale_mode="cycle"``) or the step.

        Returns:
            float: the scale.

        Examples:
            >>> opt = nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
            >>> nl.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, mode="triangular2").scale_fn(3)
            0.25
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        # float ** float is typed Any (a negative base gives a complex): both bases are positive
        scale: float = 1.0
        if self.mode == "triangular2":
            scale = 1 / (2.0 ** (x - 1))
        elif self.mode == "exp_range":
            scale = self.gamma**x
        return scale

    def _set_momentum(self, group: Any, value: Any) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def get_lr(self) -> list[float]:
        _warn_get_lr_outside_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [
            base + (top - base) * scale * self.scale_fn(at)
            for base, top in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for low, high, group in zip(
                self.base_momentums, self.max_momentums, self.optimizer.param_groups
            ):
                self._set_momentum(group, high - (high - low) * scale * self.scale_fn(at))
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state; a custom ``scale_fn`` is left out (it may not be savable)."""
        state = super().state_dict()
        state.pop("_scale_fn_custom", None)
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state; the custom ``scale_fn`` given at construction is kept."""
        custom = self._scale_fn_custom
        super().load_state_dict(state_dict)
        self._scale_fn_custom = custom
