"""``einsum``: a sum of products over named indices; its gradient is another einsum per operand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from . import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from ..._typing import Array, Gradient
    from ..tensor import Tensor


def parse_equation(equation: str, operands: Sequence[Array]) -> tuple[list[str], str]:
    """``"ij,jk->ik"`` -> (["ij", "jk"], "ik"); the implicit form gets numpy's output (letters seen once, sorted)."""
    equation = equation.replace(" ", "")
    if "." in equation:
        raise RuntimeError("einsum(): ellipsis ('...') in the equation is not supported by nnlite")
    inputs, arrow, output = equation.partition("->")
    subscripts = inputs.split(",")
    if len(subscripts) != len(operands):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(operands) > len(subscripts)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    for sub, operand in zip(subscripts, operands):
        if len(sub) != np.ndim(operand):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(sub)}) does not match "
                f"the number of dimensions ({np.ndim(operand)}) for operand "
                f"{subscripts.index(sub)} and no ellipsis was given"
            )
    if not arrow:
        letters = "".join(subscripts)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return subscripts, output


class Einsum(Op):
    """Inputs are the operands; ``subscripts`` and ``output`` come from ``parse_equation``."""

    if TYPE_CHECKING:  # parameters every caller gives
        subscripts: list[str]
        # a parameter named like ``Op.output()``: Einsum saves no output, so it never calls that
        output: str  # type: ignore[assignment]
    else:
        subscripts = output = None
    saved_inputs = (0,)  # non-empty so that save() runs; it keeps every operand

    def save(self, inputs: Sequence[object]) -> list[object]:
        return list(inputs)

    def forward(self, *arrays: Array) -> Array:
        self.shapes = [a.shape for a in arrays]
        spec = ",".join(self.subscripts) + "->" + self.output
        out: Array = np.einsum(spec, *arrays, optimize=len(arrays) > 2)
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        operands = self.inputs()
        grads: list[Gradient | None] = []
        for k, sub in enumerate(self.subscripts):
            if not needs[k]:
                grads.append(None)
                continue
            if len(set(sub)) != len(sub):
                raise RuntimeError(
                    f"einsum(): the gradient for an operand with a repeated index ('{sub}') is not "
                    "supported by nnlite"
                )
            others = [s for j, s in enumerate(self.subscripts) if j != k]
            seen = set(self.output).union(*others)
            kept = "".join(
                c for c in sub if c in seen
            )  # letters only in this operand were summed out
            g = vjp.call(
                Einsum,
                grad,
                *[o for j, o in enumerate(operands) if j != k],
                subscripts=[self.output] + others,
                output=kept,
            )
            if kept != sub:
                shape = self.shapes[k]
                g = vjp.expand(
                    g.reshape(tuple(shape[i] if c in seen else 1 for i, c in enumerate(sub))), shape
                )
            grads.append(g)
        return tuple(grads)


def einsum(equation: str, *operands: Tensor | Sequence[Tensor]) -> Tensor:
    """Sum of products of ``operands`` over the indices ``equation`` names (numpy's notation).

    Args:
        equation (str): e.g. ``"bij,bjk->bik"``; without ``->`` the output is the indices seen once, sorted.
        *operands (Tensor): one per comma-separated term (a single list of tensors also works).

    Returns:
        Tensor

    Examples:
        >>> a, b = nl.randn(2, 3), nl.randn(3, 4)
        >>> nl.einsum("ij,jk->ik", a, b).shape
        nnlite.Size([2, 4])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    arrays = [o._data if vjp.is_tensor(o) else np.asarray(o) for o in operands]
    subscripts, output = parse_equation(equation, arrays)
    operands = list(operands)
    for k, sub in enumerate(subscripts):
        if len(set(sub)) != len(sub):
            operands[k], subscripts[k] = _take_diagonals(operands[k], sub)
    return Einsum.apply(*operands, subscripts=subscripts, output=output)


def _take_diagonals(operand: Tensor | ArrayLike, sub: str) -> tuple[Tensor, str]:
    """An operand with a repeated index (``"ii"``) as its diagonal with the index once (``"i"``):
    a composite of ``diagonal``, so every order of gradient follows."""
    from ..op import make_tensor

    if not vjp.is_tensor(operand):
        operand = make_tensor(np.asarray(operand))
    while len(set(sub)) != len(sub):
        letter = next(c for c in sub if sub.count(c) > 1)
        first = sub.index(letter)
        second = sub.index(letter, first + 1)
        if operand.shape[first] != operand.shape[second]:
            raise RuntimeError(
                f"einsum(): subscript {letter} is repeated for operand but the sizes don't match, "
                f"{operand.shape[second]} != {operand.shape[first]}"
            )
        operand = operand.diagonal(0, first, second)  # the diagonal becomes the last dimension
        sub = "".join(c for i, c in enumerate(sub) if i not in (first, second)) + letter
    return operand, sub
