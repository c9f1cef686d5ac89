"""``swap_in_optimizer_params_and_state``: step an optimizer on other parameters and state.

Inside the context, the optimizer's groups hold the given tensors and the given state dict's
hyperparameters, and its ``state`` is the given state re-keyed by those tensors; on exit the live
groups and state come back unchanged. ``step()`` inside the context therefore updates the given
parameters and, in place, the given state's tensors (a copy of a model, a candidate update).
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ..autograd.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _checked_state(state: Any) -> dict[Any, Any]:
    """``state`` must map packed parameter ids to per-parameter dicts."""
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter "
            f"ids to per-param state dicts, got {type(state).__name__}."
        )
    if any(isinstance(key, Tensor) for key in state):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids."
        )
    if any(isinstance(key, int) and not isinstance(value, dict) for key, value in state.items()):
        raise RuntimeError(
            f"{_NAME} requires per-parameter optimizer state entries to be dictionaries."
        )
    return state


def _checked_group_ids(index: int, live: dict[str, Any], swapin: Any) -> list[int]:
    """The packed parameter ids of one swapped-in group, after checking it fits the live group."""
    if not isinstance(swapin, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries "
            "keyed by packed parameter ids."
        )
    if len(live["params"]) != len(ids):
        raise RuntimeError(
            f"swapin_optim_state param group {index} has a different number of params than the "
            "live optimizer param group."
        )
    swapin_only = [k for k in swapin if k not in live]
    live_only = [k for k in live if k not in swapin]
    if swapin_only or live_only:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match the "
            f"live optimizer group keys for group {index}. Keys only in swap-in: {swapin_only}. "
            f"Keys only in live: {live_only}."
        )
    return ids


def _plan(
    optimizer: Optimizer, parameters: dict[str, Tensor], optim_state: Any
) -> tuple[dict[Any, Any], list[tuple[dict[str, Any], dict[str, Any], list[Tensor]]]]:
    """Check the arguments; return the packed state and, per group, (live group, swapped-in
    group, the tensors that replace the live group's parameters)."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(optim_state.get("state"))
    groups = optim_state.get("param_groups")
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group "
            f"dicts, got {type(groups).__name__}."
        )
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError(
            "swapin_optim_state has a different number of parameter groups than the live optimizer."
        )
    tensors = list(parameters.values())
    offset, seen, plan = 0, set(), []
    for index, (live, swapin) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _checked_group_ids(index, live, swapin)
        seen.update(ids)
        if offset + len(ids) > len(tensors):
            raise RuntimeError(
                f"{_NAME} requires the explicit parameter state to match optimizer.param_groups "
                "ordering."
            )
        plan.append((live, swapin, tensors[offset : offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter "
            f"ids from param_groups[*]['params']; got extra keys {extra!r}."
        )
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(
    optimizer: Optimizer,
    swapin_parameters: dict[str, Tensor],
    swapin_optim_state: dict[str, Any],
) -> Iterator[None]:
    """Replace an optimizer's parameters and state by the given ones for the duration of the
    context, then restore them.

    Unlike ``load_state_dict`` (which changes the state only), the parameters are swapped too, so
    ``optimizer.step()`` inside the context updates ``swapin_parameters``. In-place changes to
    the state's tensors reach ``swapin_optim_state``; other changes to the state are dropped.

    Args:
        optimizer (Optimizer): the live optimizer; its state must already exist (one ``step``).
        swapin_parameters (dict): name to tensor, in the order of the optimizer's parameters
            (``model.named_parameters()`` order).
        swapin_optim_state (dict): an ``optimizer.state_dict()``-shaped dict whose groups have
            the live groups' keys.

    Yields:
        None: the optimizer is swapped while the ``with`` block runs.

    Raises:
        RuntimeError: when the optimizer has no state yet or the arguments do not fit its groups.

    Examples:
        >>> import copy
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
        >>> twin = {n: p.detach().clone().requires_grad_() for n, p in model.named_parameters()}
        >>> for p, q in zip(twin.values(), model.parameters()):
        ...     p.grad = q.grad.clone()
        >>> saved = copy.deepcopy(opt.state_dict())
        >>> with nl.optim.swap_in_optimizer_params_and_state(opt, twin, saved):
        ...     opt.step()
        >>> bool((twin["weight"] != model.weight).all())
        True
    """
    state, plan = _plan(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    snapshots = [dict(group) for group in optimizer.param_groups]
    try:
        swapped: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for live, swapin, tensors in plan:
            live["params"] = tensors
            live.update({k: v for k, v in swapin.items() if k != "params"})
            for tensor, packed_id in zip(tensors, swapin["params"]):
                # a shallow copy: in-place tensor updates reach the caller's dict, new keys do not
                swapped[tensor] = dict(state.get(packed_id, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = live_state
