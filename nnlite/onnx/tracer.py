"""Recording a model's forward pass through nnlite's public API, for export.

While a ``Tracer`` is active, the public functions and Tensor methods that have an ONNX conversion
are wrapped so that each outermost call is recorded (its arguments bound to the function's
signature, and its result); the forward of every module with a conversion of its own is recorded
as one call and what runs inside it is not. Anything computed from the input by a path that was not
recorded is caught afterwards through the autograd graph (its result has a ``grad_fn``), so an
untraced op can never be baked into the export as a constant.
"""

import inspect
from dataclasses import dataclass, field

from .. import nn
from ..autograd.tensor import Tensor

_MISSING = object()


@dataclass
class Call:
    """One recorded call: ``target`` is a module instance or the conversion of the op that ran."""

    target: object
    args: dict
    result: object
    module_name: str = ""


@dataclass
class Tracer:
    """Patches the given ``(owner, attribute, conversion)`` entries and hooks the given module types.

    Use as a context manager; ``calls`` holds the records in execution order.
    """

    patches: list
    module_types: tuple
    model: object = None
    calls: list = field(default_factory=list)
    _depth: int = 0

    def __enter__(self):
        self._saved = []
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
        self._handles = []
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

    def __exit__(self, *exc):
        for handle in self._handles:
            handle.remove()
        for owner, attr, original in reversed(self._saved):
            if original is _MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, original)
        return False

    def _enter_module(self, module, args):
        self._depth += 1

    def _leave_module(self, module, args, kwargs, output, name):
        """Record the call: ``input`` is the positional argument (a tuple when there are several),
        keyword arguments keep their names."""
        self._depth -= 1
        if self._depth == 0:
            recorded = {"input": args[0] if len(args) == 1 else args, **kwargs}
            self.calls.append(Call(module, recorded, output, name))

    def _wrap(self, function, convert):
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            signature = None
        tracer = self

        def traced(*args, **kwargs):
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

        traced.__wrapped__ = function
        return traced


def _bind(signature, args, kwargs):
    """Arguments by name, defaults filled in; ``*args`` parameters keep their tuple."""
    if signature is None:
        return {"args": args, **kwargs}
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def is_tensor(value):
    return isinstance(value, Tensor)


def leaf_module_types(module_converters):
    return tuple(t for t in module_converters if isinstance(t, type) and issubclass(t, nn.Module))
