"""``Module``: the base class of layers and models, with PyTorch's registration rules.

Parameters, buffers and submodules live in three insertion-ordered dicts (``_parameters``,
``_buffers``, ``_modules``), so the order of ``parameters()`` and ``state_dict()`` keys is the
order of assignment in ``__init__``, in every process. Attribute access falls back to these
dicts through ``__getattr__``; built-in layers read ``self._parameters`` directly in ``forward``
because that fallback is slow on the per-step path.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

import numpy as np

from ...autograd import dtypes as _dtypes
from ...autograd.grad_mode import no_grad
from ...autograd.tensor import Tensor
from ...device import check_device
from ..parameter import Buffer, Parameter

__all__ = ["Module", "typename"]

_M = TypeVar("_M", bound="Module")


def typename(obj: object) -> str:
    """The type name PyTorch's messages use: ``nnlite.FloatTensor``, ``int``, ``mypkg.MyModule``."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find and the keys it did not use."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by ``register_*_hook``; ``remove()`` unregisters the hook."""

    _next_id = [0]

    def __init__(self, hooks_dict: dict[int, Any]) -> None:
        self._hooks = hooks_dict
        self.id = RemovableHandle._next_id[0]
        RemovableHandle._next_id[0] += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _indent(text: str, spaces: int) -> str:
    """Indent every line but the first of a multi-line repr (blank lines stay empty)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return "\n".join([lines[0]] + [pad + line if line.strip() else "" for line in lines[1:]])


def _check_member_name(kind: str, name: object, module: Module) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _forward_unimplemented(self: Module, *args: Any, **kwargs: Any) -> Any:
    """The computation of the module; every subclass defines it.

    Call the module (``module(x)``) rather than ``forward`` so that hooks run.

    Args:
        *args, **kwargs: the inputs, as the subclass defines them.

    Examples:
        >>> class Double(nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        >>> Double()(nl.tensor([1., 2.]))
        tensor([2., 4.])
    """
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


class Module:
    """Base class of all layers and models, as ``torch.nn.Module``.

    Subclasses call ``super().__init__()`` first, assign layers and ``Parameter``s as attributes,
    and define ``forward``. Calling the module runs ``forward`` (and any forward hooks).

    Examples:
        >>> class Net(nl.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nl.nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         return self.fc(x).relu()
        >>> Net()(nl.randn(3, 4)).shape
        nnlite.Size([3, 2])
    """

    training = True
    _version = 1
    # set through __dict__ by __init__ (``__setattr__`` routes attributes into them)
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_hooks: dict[int, Callable[..., Any]]
    _forward_pre_hooks: dict[int, Callable[..., Any]]
    _forward_hooks_with_kwargs: set[int]
    _forward_pre_hooks_with_kwargs: set[int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments: {given}")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_hooks"] = {}
        d["_forward_pre_hooks"] = {}
        d["_forward_hooks_with_kwargs"] = set()
        d["_forward_pre_hooks_with_kwargs"] = set()

    # ------------------------------------------------------------------ calling
    # Typed as any callable, as in PyTorch: subclasses define forward with their own arguments.
    forward: Callable[..., Any] = _forward_unimplemented

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._forward_pre_hooks or self._forward_hooks:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                            f"but got {result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` before ``forward``; a non-None result replaces the args.

        Args:
            hook (callable): ``hook(module, args)`` (with ``with_kwargs``: ``hook(module, args, kwargs)``).
            prepend (bool): run before the hooks already registered. Default: False.
            with_kwargs (bool): pass and accept keyword arguments too. Default: False.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Examples:
            >>> m = nn.Linear(2, 2)
            >>> handle = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
            >>> m(nl.ones(1, 2)).equal(m.bias.detach().unsqueeze(0))
            True
            >>> handle.remove()
        """
        return self._add_hook(
            self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs, hook, prepend, with_kwargs
        )

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after ``forward``; a non-None result replaces the output.

        Args:
            hook (callable): ``hook(module, args, output)`` (with ``with_kwargs``: ``hook(module, args, kwargs, output)``).
            prepend (bool): run before the hooks already registered. Default: False.
            with_kwargs (bool): pass keyword arguments too. Default: False.
            always_call (bool): accepted for compatibility.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Examples:
            >>> shapes = []
            >>> m = nn.Linear(2, 3)
            >>> handle = m.register_forward_hook(lambda mod, args, out: shapes.append(out.shape))
            >>> _ = m(nl.ones(4, 2))
            >>> shapes
            [nnlite.Size([4, 3])]
            >>> handle.remove()
        """
        return self._add_hook(
            self._forward_hooks, self._forward_hooks_with_kwargs, hook, prepend, with_kwargs
        )

    @staticmethod
    def _add_hook(
        hooks: dict[int, Callable[..., Any]],
        with_kwargs_set: set[int],
        hook: Callable[..., Any],
        prepend: bool,
        with_kwargs: bool,
    ) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        if prepend:
            items = list(hooks.items())
            hooks.clear()
            hooks[handle.id] = hook
            hooks.update(items)
        else:
            hooks[handle.id] = hook
        if with_kwargs:
            with_kwargs_set.add(handle.id)
        return handle

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, d, d["_buffers"], d["_modules"])
            d["_non_persistent_buffers_set"].discard(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(nnlite.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, d, params, d["_buffers"])
            d["_non_persistent_buffers_set"].discard(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(nnlite.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(nnlite.nn.Buffer, nnlite.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                if buffers is None:
                    raise AttributeError("cannot assign buffer before Module.__init__() call")
                if name in d:
                    del d[name]
                self.register_buffer(name, value, value.persistent)
            else:
                assert buffers is not None  # a plain value reaches here only for a known buffer
                buffers[name] = value
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name: str, *dicts: dict[str, Any] | None) -> None:
        for d in dicts:
            if d is not None and name in d:
                del d[name]

    def __getattr__(self, name: str) -> Tensor | Module:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            members = d.get(key)
            if members is not None and name in members:
                member: Tensor | Module = members[name]
                return member
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``) under ``name``; as assigning ``self.name = param``.

        Args:
            name (str): the attribute name.
            param (Parameter or None): the parameter.

        Examples:
            >>> m = nn.Module()
            >>> m.register_parameter("scale", nn.Parameter(nl.ones(1)))
            >>> [name for name, _ in m.named_parameters()]
            ['scale']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name, self)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(nnlite.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (e.g. BatchNorm's running mean).

        Non-persistent buffers are left out of ``state_dict()``.

        Args:
            name (str): the attribute name.
            tensor (Tensor or None): the buffer.
            persistent (bool): include it in ``state_dict()``. Default: True.

        Examples:
            >>> m = nn.Module()
            >>> m.register_buffer("steps", nl.zeros(1))
            >>> m.register_buffer("cache", nl.zeros(1), persistent=False)
            >>> list(m.state_dict())
            ['steps']
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(nnlite Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under ``name`` (as assigning ``self.name = module``).

        Args:
            name (str): the attribute name.
            module (Module or None): the child.

        Examples:
            >>> m = nn.Module()
            >>> m.add_module("fc", nn.Linear(2, 2))
            >>> m.fc
            Linear(in_features=2, out_features=2, bias=True)
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` (``""`` is the module itself).

        Args:
            target (str): a dotted path such as ``"layer1.0"``.

        Returns:
            Module: the submodule.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> model.get_submodule("1")
            BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _owner_of(self, target: str) -> tuple[Module, str]:
        """The submodule holding the attribute at dotted path ``target``, and the attribute's name."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target`` (``"layer1.0.conv1.weight"``).

        Args:
            target (str): a dotted path such as ``"0.bias"``.

        Returns:
            Parameter: the parameter.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> model.get_parameter("0.bias").shape
            nnlite.Size([3])
        """
        mod, name = self._owner_of(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor | None:
        """The buffer at dotted path ``target`` (``"bn1.running_mean"``).

        Args:
            target (str): a dotted path.

        Returns:
            Tensor: the buffer.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> model.get_buffer("1.running_mean")
            tensor([0., 0., 0.])
        """
        mod, name = self._owner_of(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ------------------------------------------------------------------ iteration
    def _named_members(
        self,
        get_members: Callable[[Module], Iterable[tuple[str, Any]]],
        prefix: str = "",
        recurse: bool = True,
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Any]]:
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (module_prefix + "." + k if module_prefix else k), v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters, in registration order (a shared parameter once).

        Args:
            recurse (bool): include the submodules' parameters. Default: True.

        Returns:
            Parameters, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> sum(p.numel() for p in model.parameters())
            15
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs, e.g. ``("layer1.0.conv1.weight", p)``.

        Args:
            prefix (str): prepended to every name. Default: ``""``.
            recurse (bool): include the submodules' parameters. Default: True.
            remove_duplicate (bool): yield a shared parameter once. Default: True.

        Returns:
            ``(name, Parameter)`` pairs, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> [name for name, _ in model.named_parameters()]
            ['0.weight', '0.bias', '1.weight', '1.bias']
        """
        return self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers (running statistics and other state), in registration order.

        Args:
            recurse (bool): include the submodules' buffers. Default: True.

        Returns:
            Tensors, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> len(list(model.buffers()))
            3
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs, as ``named_parameters`` for buffers.

        Args:
            prefix (str): prepended to every name. Default: ``""``.
            recurse (bool): include the submodules' buffers. Default: True.
            remove_duplicate (bool): yield a shared buffer once. Default: True.

        Returns:
            ``(name, Tensor)`` pairs, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> [name for name, _ in model.named_buffers()]
            ['1.running_mean', '1.running_var', '1.num_batches_tracked']
        """
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self) -> Iterator[Module]:
        """The direct submodules (each once).

        Returns:
            Modules, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> [type(m).__name__ for m in model.children()]
            ['Linear', 'BatchNorm1d']
        """
        for _, m in self.named_children():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` pairs of the direct submodules.

        Returns:
            ``(name, Module)`` pairs, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> [name for name, _ in model.named_children()]
            ['0', '1']
        """
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        """This module and every module below it, depth first (each once).

        Returns:
            Modules, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> [type(m).__name__ for m in model.modules()]
            ['Sequential', 'Linear', 'BatchNorm1d']
        """
        for _, m in self.named_modules():
            yield m

    def named_modules(
        self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """This module and all below it, depth first, with dotted names (``""`` for this one).

        Args:
            memo (set, optional): modules already visited (skipped).
            prefix (str): prepended to every name. Default: ``""``.
            remove_duplicate (bool): yield a shared module once. Default: True.

        Returns:
            ``(name, Module)`` pairs, one at a time.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
            >>> [name for name, _ in model.named_modules()]
            ['', '0', '1']
        """
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(
                memo, prefix + "." + name if prefix else name, remove_duplicate
            )

    # ------------------------------------------------------------------ state dict
    def state_dict(
        self,
        *args: Any,
        destination: dict[str, Any] | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Any]:
        """Parameters and persistent buffers by dotted name, detached tensors sharing memory.

        Keys come in PyTorch's order: a module's own parameters, then its buffers, then each child's.

        Args:
            *args: PyTorch's old positional ``destination, prefix, keep_vars``.
            destination (dict, optional): a dict to fill and return.
            prefix (str): prepended to every key. Default: ``""``.
            keep_vars (bool): return the parameters themselves instead of detached tensors. Default: False.

        Returns:
            OrderedDict: ``{dotted name: tensor}``.

        Examples:
            >>> list(nn.Linear(2, 3).state_dict())
            ['weight', 'bias']
        """
        if args:  # PyTorch's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def _save_to_state_dict(
        self, destination: dict[str, Any], prefix: str, keep_vars: bool
    ) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        skip = self._non_persistent_buffers_set
        for name, buf in self._buffers.items():
            if buf is not None and name not in skip:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` into this module, in place.

        With ``strict`` (the default) missing keys, unexpected keys and shape mismatches raise one
        RuntimeError listing them all, in PyTorch's format. Returns ``(missing_keys,
        unexpected_keys)``.

        Args:
            state_dict (dict): ``{dotted name: tensor or array}``.
            strict (bool): require exactly this module's keys and shapes. Default: True.
            assign (bool): keep the given tensors instead of copying into the existing ones. Default: False.

        Returns:
            A named tuple ``(missing_keys, unexpected_keys)``.

        Examples:
            >>> m = nn.Linear(2, 2)
            >>> m.load_state_dict({"weight": nl.zeros(2, 2)}, strict=False)
            _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []

        def load(module: Module, prefix: str) -> None:
            module._load_from_state_dict(state_dict, prefix, missing, unexpected, errors, assign)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self, "")
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)
                    ),
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)
                    ),
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)
                )
            )
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(
        self,
        state_dict: Mapping[str, Any],
        prefix: str,
        missing: list[str],
        unexpected: list[str],
        errors: list[str],
        assign: bool = False,
    ) -> None:
        skip = self._non_persistent_buffers_set
        local: list[tuple[str, Tensor]] = [
            (k, v) for k, v in self._parameters.items() if v is not None
        ]
        local += [(k, v) for k, v in self._buffers.items() if v is not None and k not in skip]
        local_names = {k for k, _ in local}
        for name, target in local:
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if isinstance(value, np.ndarray):
                value = Tensor(value)
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected nnlite.Tensor or Tensor-like '
                    f"object from checkpoint but received {type(value)}"
                )
                continue
            if value.shape != target.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                    f"the shape in current model is {target.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        self._assign_member(name, target, value)
                    else:
                        target.copy_(value)
            except Exception as ex:  # noqa: BLE001  (reported with the key, as PyTorch does)
                errors.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{target.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                    f"exception occurred : {ex.args}."
                )
        for key in state_dict.keys():
            if isinstance(key, str) and key.startswith(prefix):
                first = key[len(prefix) :].split(".", 1)[0]
                if first not in self._modules and first not in local_names:
                    unexpected.append(key)

    def _assign_member(self, name: str, target: Tensor, value: Tensor) -> None:
        if name in self._parameters:
            self._parameters[name] = Parameter(value, requires_grad=target.requires_grad)
        else:
            self._buffers[name] = value

    # ------------------------------------------------------------------ modes and gradients
    def train(self: _M, mode: bool = True) -> _M:
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) here and below.

        Args:
            mode (bool): training (True) or evaluation (False). Default: True.

        Returns:
            Module: this module.

        Examples:
            >>> m = nn.Dropout().train()
            >>> m.training
            True
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.__dict__["training"] = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: _M) -> _M:
        """Evaluation mode: ``train(False)``.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Dropout().eval().training
            False
        """
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to ``None`` by default).

        Args:
            set_to_none (bool): drop the gradients (True) or fill them with zeros. Default: True.

        Examples:
            >>> m = nn.Linear(2, 1)
            >>> m(nl.ones(1, 2)).sum().backward()
            >>> m.zero_grad()
            >>> m.weight.grad is None
            True
        """
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    g = p._grad
                    if g.grad_fn is not None:
                        g = g.detach()
                        p._grad = g
                    g._data[...] = 0

    def requires_grad_(self: _M, requires_grad: bool = True) -> _M:
        """Set ``requires_grad`` on every parameter; returns the module.

        Args:
            requires_grad (bool): the new flag. Default: True.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).requires_grad_(False).weight.requires_grad
            False
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def summary(self, input_size: Any = None, **kwargs: Any) -> Any:
        """``nl.summary(self, input_size, ...)``: the layer table (see
        ``nnlite.nn.utils.model_summary``).

        Args:
            input_size (tuple, optional): the input shape, batch included.
            **kwargs: the other arguments of ``nl.summary``.

        Returns:
            ModelStatistics: the table (printed by ``print``).

        Examples:
            >>> stats = nn.Linear(4, 2).summary((1, 4))
            >>> stats.total_params
            10
        """
        from ..utils.model_summary import summary

        return summary(self, input_size, **kwargs)

    def freeze(self: _M, *names: str) -> _M:
        """Stop gradients for the whole module, or for the named submodules or parameters.

        A frozen parameter has ``requires_grad=False``: backward computes nothing for it and
        optimizers skip it. Names are dotted paths as in ``named_modules()`` and
        ``named_parameters()`` (``"layer1"``, ``"fc.bias"``). Returns the module.

        Args:
            *names (str): dotted names of submodules or parameters; none freezes everything.

        Returns:
            Module: this module.

        Examples:
            >>> model = nl.models.resnet18().freeze()
            >>> model.fc = nl.nn.Linear(512, 10)   # a new head, trainable
        """
        for p in self._params_for(names, "freeze"):
            p.requires_grad_(False)
        return self

    def unfreeze(self: _M, *names: str) -> _M:
        """Undo ``freeze``: the whole module, or the named submodules or parameters.

        Args:
            *names (str): dotted names of submodules or parameters; none unfreezes everything.

        Returns:
            Module: this module.

        Examples:
            >>> model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)).freeze().unfreeze("1")
            >>> [p.requires_grad for p in model.parameters()]
            [False, False, True, True]
        """
        for p in self._params_for(names, "unfreeze"):
            p.requires_grad_(True)
        return self

    def _params_for(self, names: tuple[str, ...], what: str) -> list[Parameter]:
        if not names:
            return list(self.parameters())
        modules = dict(self.named_modules())
        params = dict(self.named_parameters())
        found: list[Parameter] = []
        for name in names:
            if not isinstance(name, str):
                raise TypeError(
                    f"{what}() expects submodule or parameter names (str), got {typename(name)}"
                )
            if name in modules:
                found.extend(modules[name].parameters())
            elif name in params:
                found.append(params[name])
            else:
                children = ", ".join(n for n, _ in self.named_children()) or "none"
                raise KeyError(
                    f"{what}(): {type(self).__name__} has no submodule or parameter named '{name}' "
                    f"(its children: {children})"
                )
        return found

    def apply(self: _M, fn: Callable[[Module], object]) -> _M:
        """Call ``fn`` on every submodule (children first) and on this module; returns the module.

        Args:
            fn (callable): ``fn(module)``, called on each module.

        Returns:
            Module: this module.

        Examples:
            >>> def zero_bias(m):
            ...     if isinstance(m, nn.Linear):
            ...         nn.init.zeros_(m.bias)
            >>> model = nn.Sequential(nn.Linear(2, 2), nn.ReLU()).apply(zero_bias)
            >>> model[0].bias
            Parameter containing:
            tensor([0., 0.], requires_grad=True)
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ dtype and device
    def _apply(self: _M, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> _M:
        """Convert every parameter (in place: the Parameter objects stay) and buffer with ``fn``."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                new = fn(param)
                if new._data is not param._data:
                    param._data = new._data
                    param._bump_version()
                if param._grad is not None:
                    param._grad = fn(param._grad)
            for name, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[name] = fn(buf)
        return self

    def to(self: _M, *args: Any, **kwargs: Any) -> _M:
        """Convert floating parameters and buffers to a dtype (``model.to(nl.float64)``).

        ``"cpu"`` is accepted; nnlite has no other device.

        Args:
            *args: a dtype, ``"cpu"``, or a tensor whose dtype to take.
            **kwargs: ``dtype``, ``device`` and ``non_blocking`` (ignored).

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).to(nl.float64).weight.dtype
            nnlite.float64
        """
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif (
                isinstance(a, _dtypes.dtype)
                or (isinstance(a, type) and issubclass(a, np.generic))
                or isinstance(a, np.dtype)
            ):
                dtype = a
            elif isinstance(a, bool):
                continue
            else:
                device = a
        check_device(device)
        if dtype is None:
            return self
        np_dtype = _dtypes.to_numpy_dtype(dtype)
        if np_dtype.kind not in "fc":
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={_dtypes.from_numpy_dtype(np_dtype)}"
            )
        return self._apply(lambda t: t.to(np_dtype) if t._data.dtype.kind in "fc" else t)

    def share_memory(self: _M) -> _M:
        """Move every parameter, gradient and buffer to shared memory (``Tensor.share_memory_``), so
        that processes started afterwards train this very module (the Hogwild pattern of
        ``nnlite.multiprocessing``). Returns the module.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).share_memory().weight.is_shared()
            True
        """
        return self._apply(lambda t: t.share_memory_())

    def float(self: _M) -> _M:
        """Convert floating parameters and buffers to float32.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).double().float().weight.dtype
            nnlite.float32
        """
        return self._apply(lambda t: t.float() if t._data.dtype.kind == "f" else t)

    def double(self: _M) -> _M:
        """Convert floating parameters and buffers to float64.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).double().weight.dtype
            nnlite.float64
        """
        return self._apply(lambda t: t.double() if t._data.dtype.kind == "f" else t)

    def half(self: _M) -> _M:
        """Convert floating parameters and buffers to float16.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).half().weight.dtype
            nnlite.float16
        """
        return self._apply(lambda t: t.half() if t._data.dtype.kind == "f" else t)

    def type(self: _M, dst_type: Any) -> _M:
        """Convert every parameter and buffer to ``dst_type``.

        Args:
            dst_type (nl.dtype): the type.

        Returns:
            Module: this module.

        Examples:
            >>> nn.Linear(2, 2).type(nl.float64).bias.dtype
            nnlite.float64
        """
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self: _M) -> _M:
        """The module on the CPU: itself, nnlite runs on the CPU.

        Returns:
            Module: this module.

        Examples:
            >>> m = nn.Linear(2, 2)
            >>> m.cpu() is m
            True
        """
        return self

    def cuda(self: _M, device: Any = None) -> _M:
        """Raises: nnlite has no CUDA device.

        Args:
            device (int, optional): the GPU PyTorch would use.

        Returns:
            Never returns: the call raises a ``RuntimeError`` naming the missing device.

        Examples:
            >>> nn.Linear(2, 2).cuda()
            Traceback (most recent call last):
                ...
            RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
        """
        check_device("cuda")  # raises: nnlite runs on the CPU
        return self

    # ------------------------------------------------------------------ repr
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr line (override in layers).

        Returns:
            str: the layer's settings, e.g. ``"in_features=2, out_features=3, bias=True"``.

        Examples:
            >>> nn.Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, bias=True'
        """
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({name}): " + _indent(repr(module), 2) for name, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __dir__(self) -> list[str]:
        keys = set(super().__dir__())
        keys.update(self._parameters, self._buffers, self._modules)
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
