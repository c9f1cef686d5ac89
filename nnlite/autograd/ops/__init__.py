"""Built-in differentiable ops: one ``Op`` class per op, forward and backward formula side by side."""

from .activation import LogSoftmax, Relu, Sigmoid, Softmax, Tanh
from .arithmetic import Add, Div, DivRounded, Fmod, Mul, Neg, Pow, Remainder, RPow, Sub
from .linalg import MatMul
from .pointwise import Abs, Clamp, Clone, CopyFrom, Exp, Log, Maximum, Minimum, Sign, Sqrt, ToDtype
from .reduction import (
    Amax,
    Amin,
    LogSumExp,
    MaxAll,
    MaxDim,
    Mean,
    MinAll,
    MinDim,
    Sum,
    SumToSize,
    Var,
)
from .shape import (
    Cat,
    Expand,
    GatherAlong,
    GetItem,
    IndexAddZeros,
    IndexPut,
    Permute,
    Reshape,
    Stack,
)
from .vjp import sum_to
from .where import Where

__all__ = [name for name in dir() if name[0].isupper()] + ["sum_to"]
