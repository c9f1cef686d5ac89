"""Recording a model's forward pass through nnlite's public API, for export.

While a ``Tracer`` is active, the public functions and Tensor methods that have an ONNX conversion
are wrapped so that each outermost call is recorded (its arguments bound to the function's
signature, and its result); the forward of every module with a conversion of its own is recorded
as one call and what runs inside it is not. Anything computed from the input by a path that was not
recorded is caught afterwards through the autograd graph (its result has a ``grad_fn``), so an
untraced op can never be baked into the export as a constant.

A value that leaves the graph for Python (``.item()``, ``.tolist()``, ``.numpy()``, ``bool(t)``
as in ``if t:``, ``int(t)``, ``float(t)``) on a tensor computed from the inputs is reported: a
``TracerWarning``, or an ``ExportError`` under ``strict=True``. The tracer knows such tensors by
their ``grad_fn`` (the inputs require grad) or, for results without one (comparisons, integer
casts, ``detach``), by following every op applied to them while tracing.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from ..autograd.op import Op
from ..autograd.tensor import Tensor
from ..nn.modules.module import Module, RemovableHandle

if TYPE_CHECKING:
    from .export import _Graph

_MISSING = object()


class TracerWarning(UserWarning):
    """A value computed from the inputs left the graph for Python while a model was exported:
    the file holds the value this example input gave, as a constant.

    Examples:
        >>> import warnings
        >>> class Gate(nl.nn.Module):
        ...     def forward(self, x):
        ...         return x * 2 if x.sum() > 0 else x  # a Python branch on a tensor
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     nl.onnx.export(Gate(), nl.ones(3), "gate.onnx")
        >>> [type(w.message).__name__ for w in caught]
        ['TracerWarning']
    """


# Tensor methods through which a value leaves the graph, and what Python gets from each.
_LEAVING = {
    "item": "a Python number",
    "tolist": "a Python list",
    "numpy": "a NumPy array",
    "__bool__": "a Python boolean",
    "__int__": "a Python integer",
    "__float__": "a Python float",
    "__index__": "a Python index",
}

# Tensor methods whose results carry no grad_fn (comparisons, masks, indices, integer casts):
# followed so that what they compute from the inputs is still known as such.
_WITHOUT_GRAD = (
    "__eq__ __ne__ __lt__ __le__ __gt__ __ge__ eq ne lt le gt ge "
    "__and__ __rand__ __or__ __ror__ __xor__ __rxor__ __invert__ bitwise_and bitwise_or "
    "bitwise_xor logical_not isnan isinf isfinite all any argmax argmin max min sort topk "
    "__floordiv__ __rfloordiv__ to long int bool byte type"
).split()


#: an op's ONNX conversion: adds the nodes of one recorded call to the graph
Conversion: TypeAlias = "Callable[[_Graph, Call], None]"
_M = TypeVar("_M", bound=Module)


@dataclass
class Call:
    """One recorded call: ``target`` is a module instance or the conversion of the op that ran."""

    target: Module | Conversion
    args: dict[str, Any]
    result: Any
    module_name: str = ""

    def module(self, kind: type[_M]) -> _M:
        """The module called, checked to be a ``kind`` (the type its conversion is registered for)."""
        if not isinstance(self.target, kind):
            raise TypeError(f"not a call of {kind.__name__}: {self.target!r}")
        return self.target


@dataclass
class Tracer:
    """Patches the given ``(owner, attribute, conversion)`` entries and hooks the given module types.

    Use as a context manager; ``calls`` holds the records in execution order.
    """

    patches: list[tuple[object, str, Conversion]]
    module_types: tuple[type[Module], ...]
    model: Module | None = None
    strict: bool = False
    calls: list[Call] = field(default_factory=list)
    _depth: int = 0
    # id -> tensor computed from the inputs without a grad_fn (kept alive so ids stay unique)
    _derived: dict[int, Tensor] = field(default_factory=dict)

    def mark(self, tensor: Tensor) -> None:
        """Record ``tensor`` (a graph input) as a value computed from the inputs."""
        self._derived[id(tensor)] = tensor

    def from_inputs(self, value: Tensor) -> bool:
        """Whether the tensor ``value`` was computed from the graph inputs."""
        return value.grad_fn is not None or id(value) in self._derived

    def __enter__(self) -> Tracer:
        # (owner, attribute, what it was: its own entry, or _MISSING), restored on exit
        self._saved: list[tuple[Any, str, object]] = []
        self._patch(Op, "apply", classmethod(self._following(Op.__dict__["apply"].__func__)))
        for attr in ("detach", *_WITHOUT_GRAD):
            if hasattr(Tensor, attr):
                self._patch(Tensor, attr, self._following(getattr(Tensor, attr)))
        for attr, what in _LEAVING.items():
            self._patch(Tensor, attr, self._watching(getattr(Tensor, attr), what))
        for owner, attr, convert in self.patches:
            original = (
                owner.__dict__.get(attr, _MISSING)
                if isinstance(owner, type)
                else getattr(owner, attr, _MISSING)
            )
            if original is _MISSING and not hasattr(owner, attr):
                continue
            function = getattr(owner, attr)
            self._saved.append((owner, attr, original))
            setattr(owner, attr, self._wrap(function, convert))
        self._handles: list[RemovableHandle] = []
        names = (
            {id(m): name for name, m in self.model.named_modules()}
            if self.model is not None
            else {}
        )
        for module in self.model.modules() if self.model is not None else ():
            if isinstance(module, self.module_types):
                name = names.get(id(module), "")
                self._handles.append(module.register_forward_pre_hook(self._enter_module))
                self._handles.append(
                    module.register_forward_hook(
                        lambda m, args, kwargs, out, _name=name: self._leave_module(
                            m, args, kwargs, out, _name
                        ),
                        with_kwargs=True,
                    )
                )
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        for handle in self._handles:
            handle.remove()
        for owner, attr, original in reversed(self._saved):
            if original is _MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, original)
        return False

    def _patch(self, owner: type, attr: str, replacement: object) -> None:
        self._saved.append((owner, attr, owner.__dict__.get(attr, _MISSING)))
        setattr(owner, attr, replacement)

    def _following(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` (an op's apply or ``detach``), whose result counts as computed from the
        inputs when any tensor it was given does."""
        tracer = self

        def follow(first: Any, *args: Any, **kwargs: Any) -> Any:
            result = function(first, *args, **kwargs)
            given = (first, *args) if isinstance(first, Tensor) else args
            if any(isinstance(a, Tensor) and tracer.from_inputs(a) for a in given):
                for leaf in result if isinstance(result, tuple) else (result,):
                    if isinstance(leaf, Tensor) and leaf.grad_fn is None:
                        tracer.mark(leaf)
            return result

        return follow

    def _watching(self, method: Callable[..., Any], what: str) -> Callable[..., Any]:
        """``method`` (a Tensor method handing a value to Python), reported on tensors computed
        from the inputs when the model's own code calls it."""
        tracer = self

        def watched(tensor: Tensor, *args: Any, **kwargs: Any) -> Any:
            if not tracer._depth and tracer.from_inputs(tensor):
                message = (
                    f"converting a tensor computed from the inputs to {what} while exporting: "
                    "the ONNX graph cannot follow a Python value, so it keeps the one this example "
                    "input gave as a constant, and the exported model may disagree with the model "
                    "on other inputs"
                )
                if tracer.strict:
                    from .nodes import ExportError

                    raise ExportError(message + " (strict=True)")
                warnings.warn(message, TracerWarning, stacklevel=2)
            return method(tensor, *args, **kwargs)

        return functools.update_wrapper(watched, method, assigned=(), updated=())  # __wrapped__

    def _enter_module(self, module: Module, args: tuple[Any, ...]) -> None:
        self._depth += 1

    def _leave_module(
        self,
        module: Module,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        output: object,
        name: str,
    ) -> None:
        """Record the call: ``input`` is the positional argument (a tuple when there are several),
        keyword arguments keep their names."""
        self._depth -= 1
        if self._depth == 0:
            recorded = {"input": args[0] if len(args) == 1 else args, **kwargs}
            self.calls.append(Call(module, recorded, output, name))

    def _wrap(self, function: Callable[..., Any], convert: Conversion) -> Callable[..., Any]:
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            signature = None
        tracer = self

        def traced(*args: Any, **kwargs: Any) -> Any:
            if tracer._depth:
                return function(*args, **kwargs)
            tracer._depth += 1
            try:
                result = function(*args, **kwargs)
            finally:
                tracer._depth -= 1
            bound = _bind(signature, args, kwargs)
            tracer.calls.append(Call(convert, bound, result))
            return result

        return functools.update_wrapper(traced, function, assigned=(), updated=())  # __wrapped__


def _bind(
    signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Arguments by name, defaults filled in; ``*args`` parameters keep their tuple."""
    if signature is None:
        return {"args": args, **kwargs}
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def is_tensor(value: object) -> bool:
    return isinstance(value, Tensor)


def leaf_module_types(module_converters: Iterable[object]) -> tuple[type[Module], ...]:
    return tuple(t for t in module_converters if isinstance(t, type) and issubclass(t, Module))
