"""The ``nl.exp(t)``-style function forms of Tensor methods (kept apart: they shadow builtins)."""

from .out_arg import write_out
from .tensor_functions import FUNCTION_NAMES

__all__ = []


def _function(name):
    def fn(input, *args, out=None, **kwargs):
        result = getattr(input, name)(*args, **kwargs)
        return result if out is None else write_out(name, result, out, (input, *args))

    fn.__name__ = name
    fn.__doc__ = f"``nl.{name}(t, ...)`` is ``t.{name}(...)``; ``out=`` writes the result into a given tensor."
    return fn


_FUNCTION_FORMS = [
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "matmul",
    "mm",
    "neg",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sign",
    "relu",
    "sigmoid",
    "tanh",
    "clamp",
    "clip",
    "sum",
    "mean",
    "var",
    "std",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "logsumexp",
    "softmax",
    "log_softmax",
    "reshape",
    "flatten",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "t",
    "narrow",
    "select",
    "chunk",
    "split",
    "gather",
    "maximum",
    "minimum",
    "all",
    "any",
    "isnan",
    "isinf",
    "isfinite",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "allclose",
    "equal",
    "masked_fill",
    "square",
    "rsqrt",
    "reciprocal",
    "numel",
    "clone",
    "detach",
]
_FUNCTION_FORMS += FUNCTION_NAMES

for _name in _FUNCTION_FORMS:
    globals()[_name] = _function(_name)
    __all__.append(_name)
