"""Explicit 512-bit vector operations for numba kernels.

LLVM's loop vectorizer prefers 256-bit registers on AVX-512 CPUs and only
vectorizes innermost loops, so it cannot keep a register tile of accumulators
alive across a reduction loop. These intrinsics expose one vector type,
``Vec(dtype)`` (16 float32 or 8 float64 lanes, 64 bytes), and the handful of
operations the convolution kernels need. The vector width is a property of the
IR: on CPUs without AVX-512, LLVM splits each operation into narrower ones.

Indices are element offsets into 1-D C-contiguous arrays and are not checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import models, register_model

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias

    from numba.core.base import BaseContext
    from numba.core.datamodel.manager import DataModelManager
    from numba.core.typing.context import BaseContext as TypingContext
    from numba.core.typing.templates import Signature
    from typing_extensions import TypeIs

    # What an intrinsic's typing function returns: the call's signature and the function
    # emitting its IR, or None when the argument types do not fit.
    _Codegen: TypeAlias = Callable[
        [BaseContext, ir.IRBuilder, Signature, Sequence[ir.Value]], ir.Value
    ]
    _Typing: TypeAlias = tuple[Signature, _Codegen] | None

    def intrinsic(func: Callable[..., _Typing], /) -> Callable[..., Any]:
        """``numba.extending.intrinsic``. numba's own stub keeps the typing context as the
        first parameter of the call, and the parameters' types are numba types where kernels
        pass arrays and ints, so calls are typed loosely (they only run inside kernels)."""
else:
    from numba.extending import intrinsic

__all__ = [
    "Vec",
    "lanes_of",
    "vload",
    "vstore",
    "vsplat",
    "vzero",
    "vfma",
    "vfmav",
    "vadd",
    "vtranspose",
    "sload",
]

VEC_BYTES = 64


def lanes_of(itemsize: int) -> int:
    """Lanes of one vector for elements of ``itemsize`` bytes."""
    return VEC_BYTES // itemsize


class Vec(types.Type):
    """A 64-byte vector of float32 or float64."""

    def __init__(self, dtype: types.Float) -> None:
        self.dtype = dtype
        self.lanes = lanes_of(dtype.bitwidth // 8)
        super().__init__(name=f"Vec({dtype}x{self.lanes})")


@register_model(Vec)
class _VecModel(models.PrimitiveModel):
    def __init__(self, dmm: DataModelManager, fe_type: Vec) -> None:
        elem = dmm.lookup(fe_type.dtype).get_value_type()
        # numba's models are unannotated; mypy does not apply untyped_calls_exclude to super().
        super().__init__(dmm, fe_type, ir.VectorType(elem, fe_type.lanes))  # type: ignore[no-untyped-call, unused-ignore]


_I64 = ir.IntType(64)


def _elem_ptr(
    context: BaseContext,
    builder: ir.IRBuilder,
    aryty: types.Array[types.Float],
    ary: ir.Value,
    idx: ir.Value,
) -> ir.Value:
    arr = context.make_array(aryty)(context, builder, ary)
    return builder.gep(arr.data, [idx])


def _vec_ptr(
    context: BaseContext,
    builder: ir.IRBuilder,
    aryty: types.Array[types.Float],
    ary: ir.Value,
    idx: ir.Value,
    vty: Vec,
) -> ir.Value:
    p = _elem_ptr(context, builder, aryty, ary, idx)
    return builder.bitcast(p, context.get_value_type(vty).as_pointer())


def _splat(builder: ir.IRBuilder, vt: ir.VectorType, s: ir.Value) -> ir.Value:
    v = builder.insert_element(ir.Constant(vt, ir.Undefined), s, ir.Constant(ir.IntType(32), 0))
    mask = ir.Constant(ir.VectorType(ir.IntType(32), vt.count), None)
    return builder.shuffle_vector(v, ir.Constant(vt, ir.Undefined), mask)


def _fma(builder: ir.IRBuilder, vt: ir.VectorType) -> ir.Function:
    bits = vt.element.intrinsic_name[1:]
    return cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{vt.count}f{bits}"
    )


def _is_float_array(arr: types.Type) -> TypeIs[types.Array[types.Float]]:
    return (
        isinstance(arr, types.Array)
        and arr.ndim == 1
        and arr.layout == "C"
        and arr.dtype in (types.float32, types.float64)
    )


@intrinsic
def vload(typingctx: TypingContext, arr: types.Type, idx: types.Type) -> _Typing:
    """The vector arr[idx:idx + lanes] (no alignment required)."""
    if not _is_float_array(arr):
        return None
    vty = Vec(arr.dtype)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        idx = context.cast(builder, args[1], sig.args[1], types.int64)
        p = _vec_ptr(context, builder, sig.args[0], args[0], idx, vty)
        return builder.load(p, align=arr.dtype.bitwidth // 8)

    return vty(arr, idx), codegen


@intrinsic
def sload(typingctx: TypingContext, arr: types.Type, idx: types.Type) -> _Typing:
    """arr[idx] without negative-index wraparound."""
    if not _is_float_array(arr):
        return None

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        idx = context.cast(builder, args[1], sig.args[1], types.int64)
        return builder.load(_elem_ptr(context, builder, sig.args[0], args[0], idx))

    return arr.dtype(arr, idx), codegen


@intrinsic
def vstore(typingctx: TypingContext, arr: types.Type, idx: types.Type, v: types.Type) -> _Typing:
    """arr[idx:idx + lanes] = v."""
    if not _is_float_array(arr) or not isinstance(v, Vec) or v.dtype != arr.dtype:
        return None

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        idx = context.cast(builder, args[1], sig.args[1], types.int64)
        p = _vec_ptr(context, builder, sig.args[0], args[0], idx, sig.args[2])
        builder.store(args[2], p, align=arr.dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.none(arr, idx, v), codegen


@intrinsic
def vzero(typingctx: TypingContext, arr: types.Type) -> _Typing:
    """A zero vector of arr's dtype."""
    if not _is_float_array(arr):
        return None
    vty = Vec(arr.dtype)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        return ir.Constant(context.get_value_type(vty), None)

    return vty(arr), codegen


@intrinsic
def vsplat(typingctx: TypingContext, arr: types.Type, s: types.Type) -> _Typing:
    """A vector of arr's dtype with every lane equal to s."""
    if not _is_float_array(arr):
        return None
    vty = Vec(arr.dtype)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        s = context.cast(builder, args[1], sig.args[1], arr.dtype)
        return _splat(builder, context.get_value_type(vty), s)

    return vty(arr, s), codegen


@intrinsic
def vfma(typingctx: TypingContext, acc: types.Type, v: types.Type, s: types.Type) -> _Typing:
    """acc + v * s for a scalar s, with a single rounding."""
    if not isinstance(acc, Vec) or acc != v:
        return None

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        vt = context.get_value_type(sig.args[0])
        s = context.cast(builder, args[2], sig.args[2], acc.dtype)
        return builder.call(_fma(builder, vt), [args[1], _splat(builder, vt, s), args[0]])

    return acc(acc, v, s), codegen


@intrinsic
def vfmav(typingctx: TypingContext, acc: types.Type, a: types.Type, b: types.Type) -> _Typing:
    """acc + a * b lane by lane, with a single rounding."""
    if not isinstance(acc, Vec) or acc != a or acc != b:
        return None

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        vt = context.get_value_type(sig.args[0])
        return builder.call(_fma(builder, vt), [args[1], args[2], args[0]])

    return acc(acc, a, b), codegen


@intrinsic
def vadd(typingctx: TypingContext, a: types.Type, b: types.Type) -> _Typing:
    if not isinstance(a, Vec) or a != b:
        return None

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        return builder.fadd(args[0], args[1])

    return a(a, b), codegen


@intrinsic
def vtranspose(
    typingctx: TypingContext,
    src: types.Type,
    s0: types.Type,
    ss: types.Type,
    dst: types.Type,
    d0: types.Type,
    ds: types.Type,
) -> _Typing:
    """One lanes x lanes block: dst[d0 + r * ds + k] = src[s0 + k * ss + r]."""
    if not _is_float_array(src) or not _is_float_array(dst) or src.dtype != dst.dtype:
        return None
    vty = Vec(src.dtype)
    n = vty.lanes
    align = src.dtype.bitwidth // 8

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, sig: Signature, args: Sequence[ir.Value]
    ) -> ir.Value:
        sa, s0v, ssv, da, d0v, dsv = args
        rows = []
        for k in range(n):
            off = builder.add(s0v, builder.mul(ssv, ir.Constant(_I64, k)))
            rows.append(
                builder.load(_vec_ptr(context, builder, sig.args[0], sa, off, vty), align=align)
            )
        # log2(n) rounds of interleaving row i with row i + n/2 transpose the block.
        h = n // 2
        i32v = ir.VectorType(ir.IntType(32), n)
        lo = ir.Constant(i32v, [v for i in range(h) for v in (i, i + n)])
        hi = ir.Constant(i32v, [v for i in range(h, n) for v in (i, i + n)])
        for _ in range(n.bit_length() - 1):
            out = []
            for i in range(h):
                out.append(builder.shuffle_vector(rows[i], rows[i + h], lo))
                out.append(builder.shuffle_vector(rows[i], rows[i + h], hi))
            rows = out
        for r in range(n):
            off = builder.add(d0v, builder.mul(dsv, ir.Constant(_I64, r)))
            builder.store(
                rows[r], _vec_ptr(context, builder, sig.args[3], da, off, vty), align=align
            )
        return context.get_dummy_value()

    return types.none(src, types.int64, types.int64, dst, types.int64, types.int64), codegen
