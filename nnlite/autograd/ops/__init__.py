"""Built-in differentiable ops, one ``Function`` per op, forward and backward side by side."""
from .arithmetic import Add, Sub, Mul, Div, Neg, Pow, RPow, sum_to
from .pointwise import (Exp, Log, Sqrt, Abs, Sign, Clamp, Relu, Sigmoid, Tanh, Maximum, Minimum, Where, ToDtype,
                        Clone, CopyFrom)
from .reduction import Sum, SumToSize, Mean, MaxAll, MinAll, MaxDim, MinDim, Var, LogSumExp
from .shape import Reshape, Permute, Expand, Cat, Stack, GetItem, GatherAlong, IndexPut, IndexAddZeros
from .linalg import MatMul

__all__ = [name for name in dir() if name[0].isupper()] + ["sum_to"]
