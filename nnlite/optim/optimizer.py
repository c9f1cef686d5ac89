"""``Optimizer``: the base class of nnlite's optimizers, with PyTorch's interface.

Parameters live in ``param_groups`` (a list of dicts, each with its own options) and per-parameter
state in ``state`` (a dict keyed by the parameter tensor). ``state_dict()`` replaces tensors by
their position in the groups, so a state dict can be saved with ``nl.save`` and loaded into an
optimizer built over other tensors of the same shapes.

Each algorithm is a pure function of ``(params, grads, states, **options)`` (``sgd``, ``adam``, ...)
that updates numpy arrays in place and reads like the math; ``Optimizer.step`` gathers the
parameters that have a gradient and hands them over, as PyTorch's ``torch/optim/sgd.py`` does.
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from ..autograd.creation import from_numpy
from ..autograd.tensor import Tensor

if TYPE_CHECKING:
    from ..autograd.tensor import Tensor


__all__ = ["Optimizer", "ArrayState", "check_options", "required"]


#: what optimizers take: tensors, or dicts of options with a "params" entry (parameter groups)
ParamsT: TypeAlias = "Iterable[Tensor] | Iterable[dict[str, Any]]"


def check_options(lr: float, differentiable: bool = False, **non_negative: Any) -> None:
    """PyTorch's argument checks shared by the optimizers: a one-element (or number) ``lr``
    >= 0, ``differentiable`` off, and each keyword argument >= 0 (``ValueError: Invalid
    epsilon value: -1``)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    for name, value in non_negative.items():
        if not 0.0 <= value:
            label = "epsilon" if name == "eps" else name
            raise ValueError(f"Invalid {label} value: {value}")
    if differentiable:
        raise ValueError("nnlite optimizers do not support differentiable=True")


class _RequiredParameter:
    """Marks an option without default: every param group must then give a value."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> Any:
    """Name of ``obj``'s type as PyTorch's ``torch.typename`` prints it."""
    if isinstance(obj, Tensor):
        type_method = getattr(obj, "type", None)
        if callable(type_method):
            try:
                return type_method()
            except Exception:
                pass
        return f"{type(obj).__module__}.{type(obj).__qualname__}"
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__ or ""
    if module in ("", "builtins"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (param groups:
            ``{"params": [...], "lr": ..., ...}``; options missing from a group take the value
            in ``defaults``).
        defaults: the default value of every optimization option.

    Subclasses implement ``step(closure=None)``.

    Examples:
        >>> class PlainSGD(nl.optim.Optimizer):
        ...     def __init__(self, params, lr=0.1):
        ...         super().__init__(params, {"lr": lr})
        ...     def step(self, closure=None):
        ...         with nl.no_grad():
        ...             for group in self.param_groups:
        ...                 for p in group["params"]:
        ...                     if p.grad is not None:
        ...                         p.sub_(group["lr"] * p.grad)
        >>> w = nl.tensor([1., 2.], requires_grad=True)
        >>> opt = PlainSGD([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups: list[Any] = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ------------------------------------------------------------------ groups

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a param group (a dict with key ``"params"`` and optional options) to
        ``param_groups``; useful to start training layers that were frozen until now.

        Args:
            param_group (dict): ``{"params": [...], option: value, ...}``; missing options take the defaults.

        Examples:
            >>> body, head = nn.Linear(2, 2), nn.Linear(2, 1)
            >>> opt = nl.optim.SGD(head.parameters(), lr=0.1)
            >>> opt.add_param_group({"params": body.parameters(), "lr": 0.01})
            >>> [g["lr"] for g in opt.param_groups]
            [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)

        tensors, names = [], []
        for param in params:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or getattr(param, "retains_grad", False)
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )

        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ gradients and step

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors: set them to ``None`` (default), or,
        with ``set_to_none=False``, fill the existing gradient tensors with zeros in place.

        Args:
            set_to_none (bool): drop the gradients (True) or zero them in place. Default: True.

        Examples:
            >>> model = nn.Linear(2, 1)
            >>> opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            >>> model(nl.ones(1, 2)).sum().backward()
            >>> opt.zero_grad()
            >>> model.weight.grad is None
            True
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if getattr(grad, "grad_fn", None) is not None or grad.requires_grad:
                    detach_ = getattr(grad, "detach_", None)
                    if detach_ is not None:
                        detach_()
                    else:
                        grad = from_numpy(grad._data)
                        p.grad = grad
                grad._data.fill(0)
                grad._bump_version()

    # The pure update function of the algorithm: ``update(params, grads, states, **options)``
    # with lists of numpy arrays and per-parameter ``ArrayState`` views; its keyword-only
    # arguments name the group options it reads.
    _update: Callable[..., Any] | None = None

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step. ``closure``, if given, re-evaluates the model and
        returns the loss, which ``step`` returns.

        For each param group, the parameters that have a gradient (frozen ones are skipped and
        get no state), their gradients and their state go to the algorithm's pure update
        function, as arrays that it changes in place.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            The closure's loss, or None without a closure.

        Examples:
            >>> model = nn.Linear(2, 1)
            >>> opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            >>> before = model.weight.clone()
            >>> model(nl.ones(1, 2)).sum().backward()
            >>> opt.step()
            >>> bool((model.weight != before).all())
            True
        """
        loss = self._eval_closure(closure)
        update = type(self)._update
        if update is None:  # a subclass with neither an update function nor its own step
            raise NotImplementedError(f"{type(self).__name__} does not implement step()")
        options = _option_names(update)
        all_states = self.state
        for group in self.param_groups:
            # optimized tensors are leaves (or retain their grad): ``_grad`` is what ``.grad`` reads
            tensors = [p for p in group["params"] if p._grad is not None]
            if not tensors:
                continue
            params = [p._data for p in tensors]
            grads = [p._grad._data for p in tensors]
            states = [ArrayState(all_states, p) for p in tensors]
            kwargs = {name: group[name] for name in options}
            if isinstance(kwargs.get("lr"), Tensor):
                kwargs["lr"] = kwargs["lr"].item()
            update(params, grads, states, **kwargs)
            for p in tensors:
                p._vc[0] += 1  # an in-place change (``_bump_version``)
        return loss

    def _eval_closure(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad

        with enable_grad():
            return closure()

    # ------------------------------------------------------------------ state dict

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as a dict with two entries, in PyTorch's layout:

        * ``"state"``: ``{index: {name: value}}`` per parameter that has state, where ``index``
          counts the parameters of all groups in order;
        * ``"param_groups"``: the groups' options, with ``"params"`` the list of indices.

        Tensors in it are the optimizer's own (not copies): save it or ``copy.deepcopy`` it
        before the next ``step`` if you need a snapshot.

        Returns:
            dict: ``{"state": ..., "param_groups": ...}``.

        Examples:
            >>> model = nn.Linear(2, 1)
            >>> opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            >>> model(nl.ones(1, 2)).sum().backward()
            >>> opt.step()
            >>> sd = opt.state_dict()
            >>> list(sd["state"]), sd["param_groups"][0]["params"]
            ([0, 1], [0, 1])
        """
        index_of: dict[int, int] = {}
        start = 0
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index_of.setdefault(id(p), i)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {
            (index_of[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        return {"state": packed_state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state dict made by ``state_dict()`` (possibly saved and loaded with
        ``nl.save``/``nl.load``). Group count and group sizes must match; state tensors are
        copied (floating ones cast to their parameter's dtype).

        Args:
            state_dict (dict): a dict from ``state_dict()``.

        Examples:
            >>> model = nn.Linear(2, 1)
            >>> opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            >>> model(nl.ones(1, 2)).sum().backward()
            >>> opt.step()
            >>> fresh = nl.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
            >>> fresh.load_state_dict(opt.state_dict())
            >>> fresh.param_groups[0]["lr"], sorted(fresh.state[model.weight])
            (0.1, ['momentum_buffer'])
        """
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, sg in zip(groups, saved_groups):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )

        id_map = {}
        for g, sg in zip(groups, saved_groups):
            for saved_id, p in zip(sg["params"], g["params"]):
                id_map[saved_id] = p

        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v, k, None, self._state_shaped_like_params)
            else:
                state[k] = v

        for g, sg in zip(groups, saved_groups):
            sg["params"] = g["params"]
            if "param_names" in g and "param_names" not in sg:
                sg["param_names"] = g["param_names"]

        self.state = state
        self.param_groups = saved_groups
        self._after_load()

    # Whether every state array has its parameter's shape (checked on load); LBFGS keeps flat
    # vectors of all parameters instead.
    _state_shaped_like_params = True

    # Options a loaded state dict may lack (saved by an older version), with the values to fill in.
    _load_defaults: dict[str, Any] = {}

    def _after_load(self) -> None:
        """Fill in the ``_load_defaults`` options missing from the loaded groups, and turn a
        plain-number ``step`` (older state dicts) into the float32 scalar tensor of today."""
        for group in self.param_groups:
            for key, value in self._load_defaults.items():
                group.setdefault(key, value)
            for p in group["params"]:
                pstate = self.state.get(p)
                if pstate and "step" in pstate and not isinstance(pstate["step"], Tensor):
                    pstate["step"] = from_numpy(np.array(float(pstate["step"]), np.float32))

    # ------------------------------------------------------------------ pickling, repr

    def __getstate__(self) -> Any:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: Any) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n"
            text += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        text += ")"
        return text


class ArrayState:
    """One parameter's optimizer state as the update functions see it: numpy arrays.

    ``state["exp_avg"]`` is the array behind the stored tensor; assigning an array stores it as
    a tensor sharing that memory. The entry in ``Optimizer.state`` is created on the first
    assignment only, so an algorithm that keeps no state (SGD without momentum) leaves none.
    """

    __slots__ = ("_states", "_param")

    def __init__(self, states: dict[Tensor, dict[str, Any]], param: Tensor) -> None:
        self._states, self._param = states, param

    def _own(self) -> Any:
        return self._states.get(self._param)

    def __len__(self) -> Any:
        own = self._own()
        return 0 if own is None else len(own)

    def __contains__(self, key: Any) -> Any:
        own = self._own()
        return own is not None and key in own

    def get(self, key: Any, default: Any = None) -> Any:
        own = self._states.get(self._param)
        if own is None:
            return default
        value = own.get(key, own)  # the dict itself marks a missing key
        if value is own:
            return default
        return value._data if isinstance(value, Tensor) else value

    def __getitem__(self, key: Any) -> Any:
        value = self._states[self._param][key]
        return value._data if isinstance(value, Tensor) else value

    def __setitem__(self, key: Any, value: Any) -> None:
        own = self._states[self._param]
        old = own.get(key)
        if isinstance(old, Tensor) and old._data is value:
            return  # updated in place (``state["step"] += 1``)
        own[key] = from_numpy(value) if isinstance(value, np.ndarray) else value


_OPTION_NAMES: dict[type, Any] = {}


def _option_names(update: Any) -> Any:
    """The group options an update function reads: its keyword-only arguments."""
    names = _OPTION_NAMES.get(update)
    if names is None:
        import inspect

        names = _OPTION_NAMES[update] = tuple(
            n for n, p in inspect.signature(update).parameters.items() if p.kind is p.KEYWORD_ONLY
        )
    return names


def _cast_state(param: Any, value: Any, index: Any, key: Any, check_shape: Any = True) -> Any:
    """Deep copy of one parameter's loaded state. Arrays and tensors become tensors of their own
    (floating ones take the parameter's dtype, except ``step``); containers are copied."""
    if isinstance(value, (Tensor, np.ndarray)):
        arr = value._data if isinstance(value, Tensor) else value
        pdata = param._data
        if check_shape and key != "step" and arr.ndim != 0 and arr.shape != pdata.shape:
            raise ValueError(
                f"loaded state dict has state '{key}' of shape {tuple(arr.shape)} for parameter "
                f"{index} of shape {tuple(pdata.shape)}"
            )
        if key != "step" and pdata.dtype.kind == "f" and arr.dtype.kind == "f":
            arr = arr.astype(pdata.dtype, copy=True)
        else:
            arr = arr.copy()
        return from_numpy(arr)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, index, k, check_shape) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, index, key, check_shape) for v in value)
    return value
