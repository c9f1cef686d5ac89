"""Built-in differentiable ops: one ``Op`` class per op, forward and backward formula side by side."""
from .arithmetic import Add, Sub, Mul, Div, Neg, Pow, RPow
from .pointwise import Exp, Log, Sqrt, Abs, Sign, Clamp, Maximum, Minimum, ToDtype, Clone, CopyFrom
from .activation import Relu, Sigmoid, Tanh, Softmax, LogSoftmax
from .where import Where
from .reduction import Sum, SumToSize, Mean, MaxAll, MinAll, MaxDim, MinDim, Var, LogSumExp
from .shape import Reshape, Permute, Expand, Cat, Stack, GetItem, GatherAlong, IndexPut, IndexAddZeros
from .linalg import MatMul
from .vjp import sum_to

__all__ = [name for name in dir() if name[0].isupper()] + ["sum_to"]
