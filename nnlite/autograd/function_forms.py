"""The ``nl.exp(t)``-style function forms of Tensor methods (kept apart: they shadow builtins).

Each form calls the method, and its docstring is the method's under one rule: a first line saying
which method it calls, ``input`` and ``out`` added to the arguments, the rest (examples included,
written as method calls) as the method has it.
"""

import inspect
from collections.abc import Callable
from typing import Any

from .out_arg import write_out
from .tensor import Tensor
from .tensor_functions import FUNCTION_NAMES
from .tensor_surface import SURFACE_FUNCTION_NAMES

__all__ = []

_INPUT = "    input (Tensor): the tensor the method is called on."
_OUT = "    out (Tensor, optional): a tensor to write the result into."


def _function_doc(name: str) -> str:
    """``Tensor.<name>``'s docstring for ``nl.<name>``: a first line naming the method, then the
    method's text with ``input`` first and ``out`` last among its arguments."""
    lines = (inspect.getdoc(getattr(Tensor, name)) or "").splitlines()
    if "Args:" not in lines:
        at = next(
            (i for i, text in enumerate(lines) if text in ("Returns:", "Examples:")), len(lines)
        )
        lines[at:at] = ["Args:", ""]
    at = lines.index("Args:") + 1
    lines.insert(at, _INPUT)
    end = at + 1
    while end < len(lines) and lines[end].startswith("    "):
        end += 1
    lines.insert(end, _OUT)
    header = f"``nl.{name}(input, ...)`` is ``input.{name}(...)``; the examples call the method."
    return header + "\n\n" + "\n".join(lines)


# PyTorch's name of the first parameter where it is not ``input``
_FIRST_PARAMETER = {"split": "tensor", "searchsorted": "sorted_sequence"}
# PyTorch's keyword of the function where the method's differs: {name: {function's: method's}}
_METHOD_KEYWORD = {"split": {"split_size_or_sections": "split_size"}}


def _function(name: str) -> Callable[..., Any]:
    first = _FIRST_PARAMETER.get(name, "input")

    def fn(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if args:
            input, args = args[0], args[1:]
        elif first in kwargs:
            input = kwargs.pop(first)
        else:
            raise TypeError(f"{name}() missing 1 required positional argument: '{first}'")
        for function_keyword, method_keyword in _METHOD_KEYWORD.get(name, {}).items():
            if function_keyword in kwargs:
                kwargs[method_keyword] = kwargs.pop(function_keyword)
        result = getattr(input, name)(*args, **kwargs)
        return result if out is None else write_out(name, result, out, (input, *args))

    fn.__name__ = name
    fn.__doc__ = _function_doc(name)
    return fn


_FUNCTION_FORMS = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "divide",
    "floor_divide",
    "remainder",
    "fmod",
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
    "unflatten",
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
_FUNCTION_FORMS += FUNCTION_NAMES + SURFACE_FUNCTION_NAMES
_FUNCTION_FORMS += [
    "inverse", "det", "logdet", "slogdet", "pinverse", "matrix_power", "matrix_exp", "cholesky",
    "cholesky_inverse", "cholesky_solve", "qr", "svd", "gcd", "lcm", "ldexp", "frexp", "copysign",
    "nextafter", "i0", "mvlgamma", "bitwise_left_shift", "bitwise_right_shift", "scatter_reduce",
    "index_put", "put", "renorm", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "zero_", "fill_", "detach_", "index_put_", "gcd_", "lcm_", "ldexp_", "i0_", "addmv_",
]  # fmt: skip
# in-place forms PyTorch also has as functions (``nl.relu_(x)``)
_FUNCTION_FORMS += [
    name + "_"
    for name in (
        "abs", "acos", "arccos", "acosh", "arccosh", "asin", "arcsin", "asinh", "arcsinh", "atan",
        "arctan", "atanh", "arctanh", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "cos",
        "cosh", "deg2rad", "erf", "erfc", "exp", "exp2", "expm1", "fix", "floor", "frac", "log",
        "log10", "log1p", "log2", "logit", "nan_to_num", "neg", "negative", "rad2deg",
        "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sin", "sinc", "sinh", "sqrt",
        "square", "tan", "tanh", "trunc", "xlogy",
    )
]  # fmt: skip

for _name in _FUNCTION_FORMS:
    globals()[_name] = _function(_name)
    __all__.append(_name)
