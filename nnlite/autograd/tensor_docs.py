"""Docstrings of Tensor's methods, attached at import (as PyTorch's ``torch/_tensor_docs.py``).

Most methods are one-line calls into ops, many of them made by small factories (``_unary``,
``_inplace_method``, ``_elementwise``), so their documentation lives here, one entry per method,
and ``tensor_methods.py`` stays a table of what a Tensor can do. A method that already has a
docstring in its class keeps it.
"""

import textwrap

from .tensor import Tensor


def _member(name):
    for klass in Tensor.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    raise AttributeError(f"Tensor has no method {name!r} to document")


def _doc(name, summary, args=(), returns="Tensor: the result.", example=""):
    """Attach a Google-style docstring to ``Tensor.<name>`` unless it has one."""
    text = textwrap.dedent(summary).strip()
    if args:
        text += "\n\nArgs:\n" + "\n".join("    " + a for a in args)
    if returns:
        text += "\n\nReturns:\n    " + returns
    text += "\n\nExamples:\n" + textwrap.indent(textwrap.dedent(example).strip("\n"), "    ")
    member = _member(name)
    target = member if isinstance(member, property) else getattr(member, "__func__", member)
    if not target.__doc__:
        target.__doc__ = text


def _inplace(name, args, example):
    """``name`` ends in ``_``: the in-place form of the method without it."""
    _doc(
        name,
        f"In-place ``{name[:-1]}``: writes the result into this tensor (not allowed on a leaf "
        "that requires grad).",
        args,
        "Tensor: this tensor.",
        example,
    )


OTHER = "other (Tensor or number): the second operand (broadcast)."
DIM = "dim (int): the dimension."
DIM_OPT = "dim (int, optional): the dimension to reduce; all elements when omitted."
KEEPDIM = "keepdim (bool): keep the reduced dimension with size 1. Default: False."
DTYPE_OPT = "dtype (nl.dtype, optional): compute and return in this type."
SAME = "*args, **kwargs: as for the out-of-place method."

# ------------------------------------------------------------------ arithmetic
_doc(
    "add",
    "``self + alpha * other``, elementwise with broadcasting.",
    [OTHER, "alpha (number): the multiplier of ``other``. Default: 1."],
    example="""
    >>> nl.tensor([1., 2.]).add(nl.tensor([10., 20.]), alpha=2)
    tensor([21., 42.])
    """,
)
_doc(
    "sub",
    "``self - alpha * other``, elementwise with broadcasting.",
    [OTHER, "alpha (number): the multiplier of ``other``. Default: 1."],
    example="""
    >>> nl.tensor([5., 6.]).sub(1)
    tensor([4., 5.])
    """,
)
_doc(
    "mul",
    "``self * other``, elementwise with broadcasting.",
    [OTHER],
    example="""
    >>> nl.tensor([1., 2.]).mul(nl.tensor([[1.], [3.]]))
    tensor([[1., 2.],
            [3., 6.]])
    """,
)
_doc(
    "div",
    """``self / other``, elementwise, with broadcasting; integer and bool operands give the
    default float dtype. With ``rounding_mode`` the quotient is rounded and keeps the operands'
    type (integer division by zero then raises).""",
    [
        OTHER,
        "rounding_mode (str, optional): None (true division), ``'trunc'`` (toward zero) or "
        "``'floor'`` (toward -inf). Default: None.",
    ],
    example="""
    >>> nl.tensor([1, 3]).div(2)
    tensor([0.5000, 1.5000])
    >>> nl.tensor([-7, 7]).div(2, rounding_mode="trunc")
    tensor([-3,  3])
    """,
)
for _name, _op_symbol, _result in (
    ("bitwise_and", "&", "tensor([1, 0])"),
    ("bitwise_or", "|", "tensor([3, 3])"),
    ("bitwise_xor", "^", "tensor([2, 3])"),
):
    _doc(
        _name,
        f"``self {_op_symbol} other``: bitwise on integer tensors, logical on bool tensors "
        "(float tensors are refused, as in PyTorch).",
        ["other (Tensor or int or bool): the second operand (broadcast)."],
        example=f"""
        >>> nl.tensor([1, 2]).{_name}(nl.tensor([3, 1]))
        {_result}
        """,
    )
_doc(
    "true_divide",
    "``self / other``, elementwise true division (``div`` without ``rounding_mode``); "
    "``divide`` is the same method.",
    [OTHER],
    example="""
    >>> nl.tensor([1, 3]).true_divide(2)
    tensor([0.5000, 1.5000])
    """,
)
_doc(
    "floor_divide",
    "``self // other``: the quotient rounded toward -inf, in the operands' type (not "
    "differentiable, as in PyTorch).",
    [OTHER],
    example="""
    >>> nl.tensor([-7, 7]).floor_divide(2)
    tensor([-4,  3])
    """,
)
_doc(
    "remainder",
    "``self % other``: the remainder of the floor division, with the sign of ``other`` "
    "(Python's ``%``).",
    [OTHER],
    example="""
    >>> nl.tensor([-7, 7]).remainder(3)
    tensor([2, 1])
    """,
)
_doc(
    "fmod",
    "The remainder of the division rounded toward zero, with the sign of ``self`` (C's ``fmod``).",
    [OTHER],
    example="""
    >>> nl.tensor([-7, 7]).fmod(3)
    tensor([-1,  1])
    """,
)
_doc(
    "pow",
    "``self ** exponent``, elementwise.",
    ["exponent (Tensor or number): the power (broadcast)."],
    example="""
    >>> nl.tensor([2., 3.]).pow(2)
    tensor([4., 9.])
    """,
)
_doc(
    "matmul",
    "Matrix product with numpy's rules: 1-D operands are vectors, batch dimensions broadcast.",
    ["other (Tensor): the right operand."],
    example="""
    >>> nl.ones(2, 3).matmul(nl.ones(3, 4)).shape
    nnlite.Size([2, 4])
    """,
)
_doc(
    "mm",
    "The product of two matrices (``@``).",
    ["other (Tensor): the right matrix."],
    example="""
    >>> nl.tensor([[1., 2.]]).mm(nl.tensor([[3.], [4.]]))
    tensor([[11.]])
    """,
)
_doc(
    "neg",
    "``-self``.",
    example="""
    >>> nl.tensor([1., -2.]).neg()
    tensor([-1.,  2.])
    """,
)
_doc(
    "reciprocal",
    "``1 / self``, elementwise.",
    example="""
    >>> nl.tensor([2., 4.]).reciprocal()
    tensor([0.5000, 0.2500])
    """,
)
_doc(
    "square",
    "``self * self``, elementwise.",
    example="""
    >>> nl.tensor([2., -3.]).square()
    tensor([4., 9.])
    """,
)
_doc(
    "rsqrt",
    "``1 / sqrt(self)``, elementwise.",
    example="""
    >>> nl.tensor([4., 16.]).rsqrt()
    tensor([0.5000, 0.2500])
    """,
)

# ------------------------------------------------------------------ pointwise math
for _name, _summary, _example, _out in (
    ("exp", "``e ** self``", "[0., 1.]", "tensor([1.0000, 2.7183])"),
    ("log", "The natural logarithm", "[1., 0.5]", "tensor([ 0.0000, -0.6931])"),
    ("sqrt", "The square root", "[4., 9.]", "tensor([2., 3.])"),
    ("abs", "The absolute value", "[-1.5, 2.]", "tensor([1.5000, 2.0000])"),
    ("sign", "-1, 0 or 1 by the sign", "[-2., 0., 3.]", "tensor([-1.,  0.,  1.])"),
    ("relu", "``max(self, 0)``", "[-1., 2.]", "tensor([0., 2.])"),
    ("sigmoid", "``1 / (1 + exp(-self))``", "[0.]", "tensor([0.5000])"),
    ("tanh", "The hyperbolic tangent", "[0.]", "tensor([0.])"),
    ("sin", "The sine", "[0.]", "tensor([0.])"),
    ("cos", "The cosine", "[0.]", "tensor([1.])"),
    ("erf", "The error function", "[0.]", "tensor([0.])"),
):
    _doc(
        _name,
        f"{_summary} of each element.",
        example=f">>> nl.tensor({_example}).{_name}()\n{_out}",
    )

for _name, _summary, _example, _out in (
    ("isnan", "Whether each element is NaN", "[1., float('nan')]", "tensor([False,  True])"),
    (
        "isinf",
        "Whether each element is +inf or -inf",
        "[1., float('inf')]",
        "tensor([False,  True])",
    ),
    ("isfinite", "Whether each element is finite", "[1., float('inf')]", "tensor([ True, False])"),
    (
        "logical_not",
        "``not`` of each element (zero is False)",
        "[0., 2.]",
        "tensor([ True, False])",
    ),
):
    _doc(
        _name,
        f"{_summary}; outside autograd.",
        returns="Tensor: a bool tensor.",
        example=f">>> nl.tensor({_example}).{_name}()\n{_out}",
    )

for _name, _op, _out in (
    ("eq", "==", "[False,  True, False]"),
    ("ne", "!=", "[ True, False,  True]"),
    ("lt", "<", "[ True, False, False]"),
    ("le", "<=", "[ True,  True, False]"),
    ("gt", ">", "[False, False,  True]"),
    ("ge", ">=", "[False,  True,  True]"),
):
    _doc(
        _name,
        f"``self {_op} other``, elementwise with broadcasting; outside autograd.",
        [OTHER],
        "Tensor: a bool tensor.",
        f">>> nl.tensor([1., 2., 3.]).{_name}(2)\ntensor({_out})",
    )

_doc(
    "clamp",
    "Each element limited to ``[min, max]``.",
    [
        "min (number or Tensor, optional): the lower bound.",
        "max (number or Tensor, optional): the upper bound.",
    ],
    example="""
    >>> nl.tensor([-2., 0.5, 3.]).clamp(min=0., max=1.)
    tensor([0.0000, 0.5000, 1.0000])
    """,
)
_doc(
    "clip",
    "Alias of ``clamp``: each element limited to ``[min, max]``.",
    [
        "min (number or Tensor, optional): the lower bound.",
        "max (number or Tensor, optional): the upper bound.",
    ],
    example="""
    >>> nl.tensor([-2., 3.]).clip(-1., 1.)
    tensor([-1.,  1.])
    """,
)
_doc(
    "maximum",
    "The larger of ``self`` and ``other`` at each position (broadcast).",
    ["other (Tensor): the second operand."],
    example="""
    >>> nl.tensor([1., 5.]).maximum(nl.tensor([3., 2.]))
    tensor([3., 5.])
    """,
)
_doc(
    "minimum",
    "The smaller of ``self`` and ``other`` at each position (broadcast).",
    ["other (Tensor): the second operand."],
    example="""
    >>> nl.tensor([1., 5.]).minimum(nl.tensor([3., 2.]))
    tensor([1., 2.])
    """,
)
_doc(
    "equal",
    "Whether both tensors have the same shape and elements.",
    ["other (Tensor): the tensor to compare with."],
    "bool: True when shapes and all elements agree.",
    """
    >>> nl.tensor([1., 2.]).equal(nl.tensor([1., 2.]))
    True
    """,
)
_doc(
    "allclose",
    "Whether every element is close to ``other``'s: ``|self - other| <= atol + rtol * |other|``.",
    [
        OTHER,
        "rtol (float): the relative tolerance. Default: 1e-05.",
        "atol (float): the absolute tolerance. Default: 1e-08.",
    ],
    "bool: True when all elements are close.",
    """
    >>> nl.tensor([1., 2.]).allclose(nl.tensor([1., 2.000001]))
    True
    """,
)

# ------------------------------------------------------------------ reductions
_doc(
    "sum",
    "The sum of the elements, over ``dim`` or over all of them.",
    [
        "dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.",
        KEEPDIM,
        DTYPE_OPT,
    ],
    example="""
    >>> x = nl.tensor([[1., 2.], [3., 4.]])
    >>> x.sum(), x.sum(dim=0)
    (tensor(10.), tensor([4., 6.]))
    """,
)
_doc(
    "mean",
    "The mean of the elements, over ``dim`` or over all of them.",
    [
        "dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.",
        KEEPDIM,
        DTYPE_OPT,
    ],
    example="""
    >>> nl.tensor([[1., 2.], [3., 4.]]).mean(dim=1, keepdim=True)
    tensor([[1.5000],
            [3.5000]])
    """,
)
_VAR_ARGS = [
    "dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.",
    "unbiased (bool, optional): divide by ``n - 1`` (True, the default) or ``n``.",
    KEEPDIM,
    "correction (int, optional): divide by ``n - correction``; overrides ``unbiased``.",
]
_doc(
    "var",
    "The variance of the elements (Bessel-corrected by default).",
    _VAR_ARGS,
    example="""
    >>> nl.tensor([1., 2., 3., 4.]).var()
    tensor(1.6667)
    """,
)
_doc(
    "std",
    "The standard deviation of the elements (Bessel-corrected by default).",
    _VAR_ARGS,
    example="""
    >>> nl.tensor([1., 2., 3., 4.]).std()
    tensor(1.2910)
    """,
)
_doc(
    "logsumexp",
    "``log(sum(exp(self)))`` over ``dim``, computed without overflow.",
    ["dim (int or tuple of ints): the dimensions to reduce.", KEEPDIM],
    example="""
    >>> nl.tensor([1., 2.]).logsumexp(0)
    tensor(2.3133)
    """,
)
_EXTREME = """
The {which} element, or with ``dim`` the {which} along it and where it is.
"""
_doc(
    "max",
    _EXTREME.format(which="largest"),
    [DIM_OPT, KEEPDIM],
    "Tensor, or with ``dim`` a named tuple ``(values, indices)``.",
    """
    >>> x = nl.tensor([[1., 4.], [3., 2.]])
    >>> x.max()
    tensor(4.)
    >>> x.max(dim=1).indices
    tensor([1, 0])
    """,
)
_doc(
    "min",
    _EXTREME.format(which="smallest"),
    [DIM_OPT, KEEPDIM],
    "Tensor, or with ``dim`` a named tuple ``(values, indices)``.",
    """
    >>> x = nl.tensor([[1., 4.], [3., 2.]])
    >>> x.min()
    tensor(1.)
    >>> x.min(dim=0).values
    tensor([1., 2.])
    """,
)
_doc(
    "amax",
    "The largest elements over ``dim`` (all elements when omitted), without indices.",
    [DIM_OPT, KEEPDIM],
    example="""
    >>> nl.tensor([[1., 4.], [3., 2.]]).amax(dim=0)
    tensor([3., 4.])
    """,
)
_doc(
    "amin",
    "The smallest elements over ``dim`` (all elements when omitted), without indices.",
    [DIM_OPT, KEEPDIM],
    example="""
    >>> nl.tensor([[1., 4.], [3., 2.]]).amin(dim=0)
    tensor([1., 2.])
    """,
)
_doc(
    "argmax",
    "The index of the largest element (of the flattened tensor, or along ``dim``).",
    [DIM_OPT, KEEPDIM],
    "Tensor: int64 indices.",
    """
    >>> nl.tensor([[1., 4.], [3., 2.]]).argmax(dim=1)
    tensor([1, 0])
    """,
)
_doc(
    "argmin",
    "The index of the smallest element (of the flattened tensor, or along ``dim``).",
    [DIM_OPT, KEEPDIM],
    "Tensor: int64 indices.",
    """
    >>> nl.tensor([[1., 4.], [3., 2.]]).argmin()
    tensor(0)
    """,
)
_doc(
    "all",
    "Whether every element is true (non-zero), over ``dim`` or all elements.",
    [DIM_OPT, KEEPDIM],
    "Tensor: a bool tensor.",
    """
    >>> nl.tensor([[1., 0.], [1., 1.]]).all(dim=1)
    tensor([False,  True])
    """,
)
_doc(
    "any",
    "Whether some element is true (non-zero), over ``dim`` or all elements.",
    [DIM_OPT, KEEPDIM],
    "Tensor: a bool tensor.",
    """
    >>> nl.tensor([[1., 0.], [0., 0.]]).any(dim=1)
    tensor([ True, False])
    """,
)
_doc(
    "softmax",
    "``exp(self)`` normalised to sum to 1 along ``dim``.",
    [DIM],
    example="""
    >>> nl.tensor([[1., 2.], [3., 4.]]).softmax(dim=1)
    tensor([[0.2689, 0.7311],
            [0.2689, 0.7311]])
    """,
)
_doc(
    "log_softmax",
    "The logarithm of ``softmax`` along ``dim``, computed stably.",
    [DIM],
    example="""
    >>> nl.tensor([0., 0.]).log_softmax(dim=0)
    tensor([-0.6931, -0.6931])
    """,
)

# ------------------------------------------------------------------ shape
_doc(
    "view",
    "The same data seen with another shape (one size may be -1); the data must allow it.",
    ["*shape (ints or a tuple of ints): the new shape, of the same number of elements."],
    "Tensor: a view sharing this tensor's data.",
    """
    >>> nl.arange(6).view(2, -1)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """,
)
_doc(
    "reshape",
    "The elements with another shape (one size may be -1): a view when possible, else a copy.",
    ["*shape (ints or a tuple of ints): the new shape, of the same number of elements."],
    example="""
    >>> nl.arange(6).reshape(3, 2).shape
    nnlite.Size([3, 2])
    """,
)
_doc(
    "view_as",
    "``self.view(other.shape)``.",
    ["other (Tensor): gives the shape."],
    "Tensor: a view sharing this tensor's data.",
    """
    >>> nl.arange(4).view_as(nl.zeros(2, 2)).shape
    nnlite.Size([2, 2])
    """,
)
_doc(
    "reshape_as",
    "``self.reshape(other.shape)``.",
    ["other (Tensor): gives the shape."],
    example="""
    >>> nl.arange(4).reshape_as(nl.zeros(2, 2)).shape
    nnlite.Size([2, 2])
    """,
)
_doc(
    "flatten",
    "Dimensions ``start_dim`` to ``end_dim`` merged into one.",
    [
        "start_dim (int): the first dimension to merge. Default: 0.",
        "end_dim (int): the last dimension to merge. Default: -1.",
    ],
    example="""
    >>> nl.zeros(2, 3, 4).flatten(1).shape
    nnlite.Size([2, 12])
    """,
)
_doc(
    "unflatten",
    "Dimension ``dim`` split into ``sizes`` (one of them may be -1).",
    [DIM, "sizes (tuple of ints): the new sizes, whose product is the size of ``dim``."],
    example="""
    >>> nl.zeros(2, 12).unflatten(1, (3, 4)).shape
    nnlite.Size([2, 3, 4])
    """,
)
_doc(
    "squeeze",
    "Dimensions of size 1 removed (only ``dim`` when given).",
    ["dim (int or tuple of ints, optional): the dimension(s) to remove if of size 1."],
    example="""
    >>> nl.zeros(2, 1, 3, 1).squeeze().shape
    nnlite.Size([2, 3])
    """,
)
_doc(
    "unsqueeze",
    "A dimension of size 1 inserted at ``dim``.",
    ["dim (int): where the new dimension goes (negative counts from the end)."],
    example="""
    >>> nl.zeros(2, 3).unsqueeze(1).shape
    nnlite.Size([2, 1, 3])
    """,
)
_doc(
    "permute",
    "The dimensions reordered: dimension ``i`` of the result is ``dims[i]`` of this one.",
    ["*dims (ints or a tuple of ints): a permutation of the dimensions."],
    "Tensor: a view with the dimensions reordered.",
    """
    >>> nl.zeros(2, 3, 4).permute(2, 0, 1).shape
    nnlite.Size([4, 2, 3])
    """,
)
_doc(
    "transpose",
    "Dimensions ``dim0`` and ``dim1`` swapped.",
    ["dim0 (int): a dimension.", "dim1 (int): the dimension to swap it with."],
    "Tensor: a view with the two dimensions swapped.",
    """
    >>> nl.zeros(2, 3, 4).transpose(0, 2).shape
    nnlite.Size([4, 3, 2])
    """,
)
_doc(
    "t",
    "The transpose of a tensor of at most 2 dimensions.",
    returns="Tensor: a view with the two dimensions swapped (1-D and 0-D are returned as is).",
    example="""
    >>> nl.tensor([[1, 2, 3]]).t()
    tensor([[1],
            [2],
            [3]])
    """,
)
_doc(
    "T",
    "All dimensions reversed (the transpose of a matrix).",
    returns="",
    example="""
    >>> nl.zeros(2, 3).T.shape
    nnlite.Size([3, 2])
    """,
)
_doc(
    "mT",
    "The last two dimensions swapped (a batch of transposed matrices).",
    returns="",
    example="""
    >>> nl.zeros(5, 2, 3).mT.shape
    nnlite.Size([5, 3, 2])
    """,
)
_doc(
    "expand",
    "A view with size-1 dimensions repeated to ``sizes`` (-1 keeps a size), without a copy.",
    ["*sizes (ints or a tuple of ints): the new shape; new leading dimensions are allowed."],
    "Tensor: a broadcast view of this tensor.",
    """
    >>> nl.tensor([[1], [2]]).expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """,
)
_doc(
    "expand_as",
    "``self.expand(other.shape)``.",
    ["other (Tensor): gives the shape."],
    "Tensor: a broadcast view of this tensor.",
    """
    >>> nl.tensor([1, 2]).expand_as(nl.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]])
    """,
)
_doc(
    "sum_to_size",
    "Summed over broadcast dimensions down to ``size`` (the inverse of ``expand``).",
    ["*size (ints or a tuple of ints): a shape this tensor's shape broadcasts from."],
    example="""
    >>> nl.arange(6).reshape(2, 3).sum_to_size(1, 3)
    tensor([[3, 5, 7]])
    """,
)
_doc(
    "narrow",
    "Elements ``start`` to ``start + length`` of dimension ``dim``.",
    [DIM, "start (int): the first index.", "length (int): how many indices."],
    "Tensor: a view of the slice.",
    """
    >>> nl.arange(6).narrow(0, 2, 3)
    tensor([2, 3, 4])
    """,
)
_doc(
    "select",
    "The slice at ``index`` of dimension ``dim``, that dimension removed.",
    [DIM, "index (int): the position along it."],
    "Tensor: a view with one dimension fewer.",
    """
    >>> nl.arange(6).reshape(2, 3).select(1, 0)
    tensor([0, 3])
    """,
)
_doc(
    "chunk",
    "Split into ``chunks`` pieces of equal size along ``dim`` (the last may be smaller).",
    ["chunks (int): the number of pieces.", "dim (int): the dimension to split. Default: 0."],
    "tuple of Tensors: views of the pieces.",
    """
    >>> nl.arange(5).chunk(2)
    (tensor([0, 1, 2]), tensor([3, 4]))
    """,
)
_doc(
    "split",
    "Split along ``dim`` into pieces of a size, or of the sizes listed.",
    [
        "split_size_or_sections (int or list of ints): a piece size, or every piece's size.",
        "dim (int): the dimension to split. Default: 0.",
    ],
    "tuple of Tensors: views of the pieces.",
    """
    >>> nl.arange(5).split(2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> nl.arange(5).split([1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """,
)
_doc(
    "gather",
    "Values picked along ``dim`` at ``index``: ``out[i][j] = self[i][index[i][j]]`` for dim 1.",
    [DIM, "index (Tensor): int64 indices, of this tensor's number of dimensions."],
    "Tensor: a tensor of ``index``'s shape.",
    """
    >>> nl.tensor([[1., 2.], [3., 4.]]).gather(1, nl.tensor([[1], [0]]))
    tensor([[2.],
            [3.]])
    """,
)
_doc(
    "repeat",
    "The tensor tiled ``sizes[i]`` times along dimension ``i`` (a copy).",
    ["*sizes (ints or a tuple of ints): the repeat count of each dimension."],
    example="""
    >>> nl.arange(3).repeat(2)
    tensor([0, 1, 2, 0, 1, 2])
    """,
)
_doc(
    "type_as",
    "This tensor converted to ``other``'s dtype.",
    ["other (Tensor): gives the dtype."],
    example="""
    >>> nl.tensor([1, 2]).type_as(nl.zeros(1))
    tensor([1., 2.])
    """,
)
_doc(
    "masked_fill",
    "A copy with ``value`` where ``mask`` is True (the mask broadcasts).",
    ["mask (Tensor of bool): where to write.", "value (number or Tensor): what to write."],
    example="""
    >>> nl.tensor([1., 2., 3.]).masked_fill(nl.tensor([True, False, True]), 0.)
    tensor([0., 2., 0.])
    """,
)

# ------------------------------------------------------------------ in place
for _name, _args, _example, _out in (
    (
        "add_",
        [OTHER, "alpha (number): the multiplier of ``other``. Default: 1."],
        "add_(1)",
        "[2., 3.]",
    ),
    (
        "sub_",
        [OTHER, "alpha (number): the multiplier of ``other``. Default: 1."],
        "sub_(1)",
        "[0., 1.]",
    ),
    ("mul_", [OTHER], "mul_(3)", "[3., 6.]"),
    ("div_", [OTHER], "div_(2)", "[0.5000, 1.0000]"),
    ("remainder_", [OTHER], "remainder_(2)", "[1., 0.]"),
    ("fmod_", [OTHER], "fmod_(2)", "[1., 0.]"),
    ("pow_", ["exponent (Tensor or number): the power."], "pow_(2)", "[1., 4.]"),
    ("neg_", [SAME], "neg_()", "[-1., -2.]"),
    ("exp_", [SAME], "exp_()", "[2.7183, 7.3891]"),
    ("log_", [SAME], "log_()", "[0.0000, 0.6931]"),
    ("sqrt_", [SAME], "sqrt_()", "[1.0000, 1.4142]"),
    ("abs_", [SAME], "abs_()", "[1., 2.]"),
    ("relu_", [SAME], "relu_()", "[1., 2.]"),
    ("sigmoid_", [SAME], "sigmoid_()", "[0.7311, 0.8808]"),
    ("tanh_", [SAME], "tanh_()", "[0.7616, 0.9640]"),
    (
        "clamp_",
        [
            "min (number or Tensor, optional): the lower bound.",
            "max (number or Tensor, optional): the upper bound.",
        ],
        "clamp_(max=1.5)",
        "[1.0000, 1.5000]",
    ),
    (
        "masked_fill_",
        ["mask (Tensor of bool): where to write.", "value (number or Tensor): what to write."],
        "masked_fill_(nl.tensor([True, False]), 0.)",
        "[0., 2.]",
    ),
):
    _inplace(
        _name, _args, f">>> x = nl.tensor([1., 2.])\n>>> _ = x.{_example}\n>>> x\ntensor({_out})"
    )

# ------------------------------------------------------------------ state and conversion
_doc(
    "shape",
    "The size of each dimension, as an ``nnlite.Size``.",
    returns="",
    example="""
    >>> nl.zeros(2, 3).shape
    nnlite.Size([2, 3])
    """,
)
_doc(
    "dtype",
    "The element type.",
    returns="",
    example="""
    >>> nl.zeros(2).dtype, nl.tensor([1, 2]).dtype
    (nnlite.float32, nnlite.int64)
    """,
)
_doc(
    "device",
    "Where the data lives: always the CPU.",
    returns="",
    example="""
    >>> nl.zeros(2).device
    device(type='cpu')
    """,
)
_doc(
    "ndim",
    "The number of dimensions.",
    returns="",
    example="""
    >>> nl.zeros(2, 3).ndim
    2
    """,
)
_doc(
    "data",
    "The tensor's data as a new tensor outside the graph; assigning replaces the data.",
    returns="",
    example="""
    >>> w = nl.ones(2, requires_grad=True)
    >>> w.data.requires_grad
    False
    >>> w.data = nl.zeros(2)
    >>> w
    tensor([0., 0.], requires_grad=True)
    """,
)
_doc(
    "requires_grad",
    "Whether autograd records operations on this tensor; settable on leaf tensors.",
    returns="",
    example="""
    >>> x = nl.zeros(2)
    >>> x.requires_grad = True
    >>> (x * 2).requires_grad
    True
    """,
)
_doc(
    "grad",
    "The gradient accumulated by ``backward`` (``None`` until then); settable.",
    returns="",
    example="""
    >>> a = nl.tensor([2.], requires_grad=True)
    >>> (a * 3).backward()
    >>> a.grad
    tensor([3.])
    """,
)
_doc(
    "grad_fn",
    "The graph node that made this tensor (``None`` for a leaf).",
    returns="",
    example="""
    >>> a = nl.tensor([2.], requires_grad=True)
    >>> a.grad_fn is None, (a * 3).grad_fn
    (True, <MulBackward0 object at 0x...>)
    """,
)
_doc(
    "is_leaf",
    "Whether the tensor was made by the user rather than by a recorded operation.",
    returns="",
    example="""
    >>> a = nl.tensor([2.], requires_grad=True)
    >>> a.is_leaf, (a * 3).is_leaf
    (True, False)
    """,
)
_doc(
    "retains_grad",
    "Whether ``retain_grad()`` asked this non-leaf tensor to keep its gradient.",
    returns="",
    example="""
    >>> b = nl.tensor([2.], requires_grad=True) * 3
    >>> b.retain_grad()
    >>> b.retains_grad
    True
    """,
)
_doc(
    "dim",
    "The number of dimensions (as ``ndim``).",
    returns="int: the number of dimensions.",
    example="""
    >>> nl.zeros(2, 3).dim()
    2
    """,
)
_doc(
    "numel",
    "The number of elements.",
    returns="int: the product of the sizes.",
    example="""
    >>> nl.zeros(2, 3).numel()
    6
    """,
)
_doc(
    "nelement",
    "The number of elements (as ``numel``).",
    returns="int: the product of the sizes.",
    example="""
    >>> nl.zeros(2, 3).nelement()
    6
    """,
)
_doc(
    "element_size",
    "The size of one element in bytes.",
    returns="int: bytes per element.",
    example="""
    >>> nl.zeros(1).element_size(), nl.zeros(1, dtype=nl.float64).element_size()
    (4, 8)
    """,
)
_doc(
    "is_floating_point",
    "Whether the dtype is a floating-point type.",
    returns="bool: True for float16, float32 and float64.",
    example="""
    >>> nl.zeros(1).is_floating_point(), nl.tensor([1]).is_floating_point()
    (True, False)
    """,
)
_doc(
    "is_contiguous",
    "Whether the elements lie in memory in row-major order without gaps.",
    returns="bool: True for a C-contiguous tensor.",
    example="""
    >>> x = nl.zeros(2, 3)
    >>> x.is_contiguous(), x.t().is_contiguous()
    (True, False)
    """,
)
_doc(
    "stride",
    "The step in elements between neighbours along each dimension (or along ``dim``).",
    ["dim (int, optional): one dimension."],
    "tuple of ints, or an int with ``dim``.",
    """
    >>> nl.zeros(2, 3).stride()
    (3, 1)
    """,
)
_doc(
    "data_ptr",
    "The address of the first element.",
    returns="int: the memory address.",
    example="""
    >>> x = nl.zeros(3)
    >>> x.data_ptr() == x.view(3).data_ptr()
    True
    """,
)
_doc(
    "get_device",
    "The device index: -1, the CPU.",
    returns="int: -1.",
    example="""
    >>> nl.zeros(1).get_device()
    -1
    """,
)
_doc(
    "item",
    "The value of a one-element tensor as a Python number.",
    returns="int, float or bool: the value.",
    example="""
    >>> nl.tensor([1.5]).item()
    1.5
    """,
)
_doc(
    "tolist",
    "The data as (nested) Python lists of numbers.",
    returns="list, or a number for a 0-D tensor.",
    example="""
    >>> nl.tensor([[1, 2], [3, 4]]).tolist()
    [[1, 2], [3, 4]]
    """,
)
_doc(
    "type",
    "Without ``dtype``, the legacy type name; with it, the tensor converted to that dtype.",
    ["dtype (nl.dtype, optional): the type to convert to."],
    "str without ``dtype``, else Tensor.",
    """
    >>> x = nl.tensor([1.5, -2.])
    >>> x.type()
    'nnlite.FloatTensor'
    >>> x.type(nl.int64)
    tensor([ 1, -2])
    """,
)
for _name, _dtype, _out in (
    ("float", "float32", "tensor([ 1.5000, -2.0000])"),
    ("double", "float64", "tensor([ 1.5000, -2.0000], dtype=nnlite.float64)"),
    ("half", "float16", "tensor([ 1.5000, -2.0000], dtype=nnlite.float16)"),
    ("int", "int32", "tensor([ 1, -2], dtype=nnlite.int32)"),
    ("long", "int64", "tensor([ 1, -2])"),
    ("byte", "uint8", "tensor([  1, 254], dtype=nnlite.uint8)"),
    ("bool", "bool", "tensor([True, True])"),
):
    _doc(
        _name,
        f"This tensor converted to {_dtype} (itself when it already is).",
        returns=f"Tensor: a {_dtype} tensor.",
        example=f">>> nl.tensor([1.5, -2.]).{_name}()\n{_out}",
    )
_doc(
    "clone",
    "A copy of the tensor with its own memory; gradients flow back to this tensor.",
    ["memory_format: accepted for compatibility."],
    example="""
    >>> x = nl.tensor([1., 2.])
    >>> y = x.clone()
    >>> _ = y.zero_()
    >>> x
    tensor([1., 2.])
    """,
)
_doc(
    "contiguous",
    "This tensor if it is contiguous, else a contiguous copy.",
    ["memory_format: accepted for compatibility."],
    example="""
    >>> x = nl.zeros(2, 3).t()
    >>> x.contiguous().is_contiguous()
    True
    """,
)
_doc(
    "cpu",
    "The tensor on the CPU: itself, nnlite runs on the CPU.",
    ["memory_format: accepted for compatibility."],
    example="""
    >>> x = nl.zeros(2)
    >>> x.cpu() is x
    True
    """,
)
_doc(
    "cuda",
    "Raises: nnlite has no CUDA device.",
    [
        "device (int, optional): the GPU PyTorch would use.",
        "non_blocking (bool): accepted for compatibility.",
        "memory_format: accepted for compatibility.",
    ],
    "Never returns: the call raises a ``RuntimeError`` naming the missing device.",
    """
    >>> nl.zeros(2).cuda()
    Traceback (most recent call last):
        ...
    RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
    """,
)
_doc(
    "pin_memory",
    "The tensor itself: page-locked memory only matters for copies to an accelerator.",
    ["device: accepted for compatibility."],
    example="""
    >>> x = nl.zeros(2)
    >>> x.pin_memory() is x
    True
    """,
)
_doc(
    "is_pinned",
    "Whether the memory is page-locked: always False.",
    ["device: accepted for compatibility."],
    "bool: False.",
    """
    >>> nl.zeros(2).is_pinned()
    False
    """,
)
_doc(
    "new_tensor",
    "A new tensor holding ``data``, with this tensor's dtype unless ``dtype`` is given.",
    [
        "data: a number, a (nested) list, a numpy array or a Tensor.",
        "dtype (nl.dtype, optional): the element type. Default: this tensor's.",
        'device (str or nl.device, optional): only ``"cpu"``.',
        "requires_grad (bool): record operations on the result. Default: False.",
    ],
    example="""
    >>> nl.zeros(1, dtype=nl.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=nnlite.float64)
    """,
)
_NEW_ARGS = [
    "dtype (nl.dtype, optional): the element type. Default: this tensor's.",
    'device (str or nl.device, optional): only ``"cpu"``.',
    "requires_grad (bool): record operations on the result. Default: False.",
]
for _name, _what, _call, _out in (
    ("new_zeros", "zeros", "new_zeros(2)", "tensor([0., 0.])"),
    ("new_ones", "ones", "new_ones(2)", "tensor([1., 1.])"),
    ("new_empty", "uninitialised values", "new_empty(2).shape", "nnlite.Size([2])"),
):
    _doc(
        _name,
        f"A new tensor of {_what} of shape ``size``, with this tensor's dtype by default.",
        ["*size (ints or a tuple of ints): the shape.", *_NEW_ARGS],
        example=f">>> nl.zeros(1).{_call}\n{_out}",
    )
_doc(
    "new_full",
    "A new tensor of shape ``size`` filled with ``fill_value``, with this tensor's dtype.",
    ["size (tuple of ints): the shape.", "fill_value (number): the value.", *_NEW_ARGS],
    example="""
    >>> nl.zeros(1).new_full((2,), 7.)
    tensor([7., 7.])
    """,
)
_doc(
    "detach_",
    "Take this tensor out of the graph, in place: it becomes a leaf without ``requires_grad``.",
    returns="Tensor: this tensor.",
    example="""
    >>> y = nl.ones(2, requires_grad=True) * 2
    >>> y.detach_().requires_grad, y.is_leaf
    (False, True)
    """,
)
_doc(
    "copy_",
    "Copy ``src``'s values into this tensor (broadcast and converted to this dtype).",
    ["src (Tensor): the values."],
    "Tensor: this tensor.",
    """
    >>> x = nl.zeros(2)
    >>> x.copy_(nl.tensor([1, 2]))
    tensor([1., 2.])
    """,
)
_doc(
    "fill_",
    "Set every element to ``value``.",
    ["value (number or 0-D Tensor): the value."],
    "Tensor: this tensor.",
    """
    >>> nl.zeros(3).fill_(2)
    tensor([2., 2., 2.])
    """,
)
_doc(
    "zero_",
    "Set every element to zero.",
    returns="Tensor: this tensor.",
    example="""
    >>> nl.ones(3).zero_()
    tensor([0., 0., 0.])
    """,
)
_doc(
    "t_",
    "Transpose this tensor of at most 2 dimensions in place.",
    returns="Tensor: this tensor.",
    example="""
    >>> nl.zeros(2, 3).t_().shape
    nnlite.Size([3, 2])
    """,
)
_doc(
    "uniform_",
    "Fill with samples from the uniform distribution on ``[a, b)``, from nnlite's generator.",
    ["a (float): the lower bound. Default: 0.", "b (float): the upper bound. Default: 1."],
    "Tensor: this tensor.",
    """
    >>> x = nl.empty(100).uniform_(-1, 1)
    >>> bool(((x >= -1) & (x < 1)).all())
    True
    """,
)
_doc(
    "normal_",
    "Fill with samples from the normal distribution, from nnlite's generator.",
    ["mean (float): the mean. Default: 0.", "std (float): the standard deviation. Default: 1."],
    "Tensor: this tensor.",
    """
    >>> nl.empty(2, 3).normal_(0., 0.02).shape
    nnlite.Size([2, 3])
    """,
)
_doc(
    "bernoulli_",
    "Fill with 1 with probability ``p`` and 0 otherwise, from nnlite's generator.",
    ["p (float): the probability of a 1. Default: 0.5."],
    "Tensor: this tensor.",
    """
    >>> x = nl.empty(5).bernoulli_(0.5)
    >>> sorted(set(x.tolist())) in ([0.0], [1.0], [0.0, 1.0])
    True
    """,
)
_doc(
    "argsort",
    "The indices that sort the tensor along ``dim``.",
    [
        "dim (int): the dimension to sort. Default: -1.",
        "descending (bool): largest first. Default: False.",
        "stable (bool): keep the order of equal elements (the sort always does). Default: False.",
    ],
    "Tensor: int64 indices.",
    """
    >>> nl.tensor([3., 1., 2.]).argsort()
    tensor([1, 2, 0])
    """,
)
_doc(
    "flip",
    "The elements in reverse order along each of ``dims`` (a copy).",
    ["*dims (ints or a tuple of ints): the dimensions to reverse."],
    example="""
    >>> nl.arange(4).flip(0)
    tensor([3, 2, 1, 0])
    """,
)
_doc(
    "roll",
    "The elements shifted cyclically by ``shifts`` along ``dims`` (the flattened tensor by default).",
    [
        "shifts (int or tuple of ints): how far to shift each dimension.",
        "dims (int or tuple of ints, optional): the dimensions to shift.",
    ],
    example="""
    >>> nl.arange(4).roll(1)
    tensor([3, 0, 1, 2])
    """,
)
_doc(
    "index_select",
    "The slices at the positions ``index`` along ``dim``.",
    [DIM, "index (Tensor): 1-D int64 positions."],
    example="""
    >>> nl.arange(6).reshape(2, 3).index_select(1, nl.tensor([0, 2]))
    tensor([[0, 2],
            [3, 5]])
    """,
)
_doc(
    "masked_select",
    "The elements where ``mask`` is True (both broadcast), as a 1-D tensor.",
    ["mask (Tensor of bool): which elements to keep."],
    example="""
    >>> nl.tensor([1., 2., 3.]).masked_select(nl.tensor([True, False, True]))
    tensor([1., 3.])
    """,
)
_doc(
    "isclose",
    "Whether each element is close to ``other``'s: ``|self - other| <= atol + rtol * |other|``.",
    [
        OTHER,
        "rtol (float): the relative tolerance. Default: 1e-05.",
        "atol (float): the absolute tolerance. Default: 1e-08.",
        "equal_nan (bool): count two NaNs as close. Default: False.",
    ],
    "Tensor: a bool tensor.",
    """
    >>> nl.tensor([1., 2.]).isclose(nl.tensor([1., 2.1]))
    tensor([ True, False])
    """,
)
_doc(
    "scatter_",
    "In-place ``scatter``: write ``src`` (or ``value``) into this tensor at ``index`` along ``dim``.",
    [
        DIM,
        "index (Tensor): int64 positions along ``dim``.",
        "src (Tensor, optional): the values to write.",
        "value (number, optional): one value to write instead of ``src``.",
        'reduce (str, optional): ``"add"`` adds instead of writing.',
    ],
    "Tensor: this tensor.",
    """
    >>> nl.zeros(3).scatter_(0, nl.tensor([2, 0]), nl.tensor([5., 6.]))
    tensor([6., 0., 5.])
    """,
)
_doc(
    "scatter_add_",
    "In-place ``scatter_add``: add ``src`` into this tensor at ``index`` along ``dim``.",
    [DIM, "index (Tensor): int64 positions along ``dim``.", "src (Tensor): the values to add."],
    "Tensor: this tensor.",
    """
    >>> nl.zeros(3).scatter_add_(0, nl.tensor([0, 0]), nl.tensor([5., 6.]))
    tensor([11.,  0.,  0.])
    """,
)
