"""nnlite against PyTorch on the edge cases scripts meet: type promotion, integer division,
in-place dtype rules, reductions' dtypes, creation dtypes, ``repr`` of special values, the named
tuples of ``max(dim)``/``sort``/``topk`` and error messages.

Each row is a function of the library (``T`` is ``torch`` or ``nnlite``), run on both. A result is
compared by its ``repr`` (which shows values and any non-default dtype), its dtype and, for tensors,
its values; an error by its type and first line of message. PyTorch's own name in a repr or
message (``torch.float64``, ``torch.return_types.max``) reads ``nnlite.`` in nnlite.
"""

import math
import pickle

import numpy as np
import pytest

import nnlite as nl

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")

DIVISION = [
    lambda T: T.tensor([1, 3]).div(2),
    lambda T: T.tensor([1, 3]) / 2,
    lambda T: T.tensor([1, 3]) / T.tensor([2, 2]),
    lambda T: T.tensor([1, 3]).true_divide(2),
    lambda T: T.tensor([1, 3]).divide(2),
    lambda T: T.div(T.tensor([1, 3]), 2),
    lambda T: T.div(T.tensor([1, 3]), 2, rounding_mode=None),
    lambda T: T.true_divide(T.tensor([1, 3]), 2),
    lambda T: T.tensor([1, 3]).div(2.5),
    lambda T: T.tensor([True, False]) / 2,
    lambda T: T.tensor([True, False]) / T.tensor([True, True]),
    lambda T: 2 / T.tensor([1, 4]),
    lambda T: T.tensor([1, 3], dtype=T.int8) / 2,
    lambda T: T.tensor([1, 3], dtype=T.float64) / 2,
    lambda T: T.tensor([1, 2]) / 0,
    lambda T: T.tensor([1.0, -1.0, 0.0]) / 0,
    lambda T: T.tensor([1, 3]).reciprocal(),
    lambda T: T.div(T.tensor([1, -3]), 2, rounding_mode="floor"),
    lambda T: T.div(T.tensor([1, -3]), 2, rounding_mode="trunc"),
    lambda T: T.div(T.tensor([-7, 7]), T.tensor([2, -2]), rounding_mode="trunc"),
    lambda T: T.div(T.tensor([1.0, -3.0]), 2, rounding_mode="floor"),
    lambda T: T.div(T.tensor([1.0, -3.0]), 2, rounding_mode="trunc"),
    lambda T: T.div(T.tensor([1, 2]), 2.5, rounding_mode="floor"),
    lambda T: T.div(T.tensor([1, 2]), 2, rounding_mode="round"),
    lambda T: T.div(T.tensor([1, 2]), 0, rounding_mode="floor"),
    lambda T: T.div(T.tensor([1, 2]), 0, rounding_mode="trunc"),
    lambda T: T.tensor([-7, 7]) // 2,
    lambda T: T.tensor([-7, 7]) // T.tensor([2, -2]),
    lambda T: T.floor_divide(T.tensor([-7, 7]), 2),
    lambda T: T.tensor([-7.0, 7.0]) // 2,
    lambda T: T.tensor([1, 2]) // 2.5,
    lambda T: 7 // T.tensor([2, 3]),
    lambda T: T.tensor([1, 2]) // 0,
    lambda T: T.tensor([1.0, -1.0]) // 0,
    lambda T: T.tensor([-7, 7]) % 3,
    lambda T: T.tensor([-7, 7]) % -3,
    lambda T: T.tensor([-7.0, 7.0]) % 3,
    lambda T: T.tensor([5, 2]) % 2.5,
    lambda T: 7 % T.tensor([2, 3]),
    lambda T: T.remainder(T.tensor([-7, 7]), 3),
    lambda T: T.tensor([-7, 7]).remainder(3),
    lambda T: T.tensor([1, 2]) % 0,
    lambda T: T.fmod(T.tensor([-7, 7]), 3),
    lambda T: T.fmod(T.tensor([-7.0, 7.0]), -3),
    lambda T: T.tensor([-7, 7]).fmod(3),
    lambda T: T.tensor([-7.5, 7.5]).fmod(T.tensor([2.0, -2.0])),
    lambda T: T.tensor([1, 2]).fmod(0),
]

FLOAT_FUNCTIONS_OF_INTEGERS = [
    lambda T: T.tensor([1, 4]).sqrt(),
    lambda T: T.tensor([1, 4]).exp(),
    lambda T: T.tensor([1, 4]).log(),
    lambda T: T.tensor([1, 4]).sigmoid(),
    lambda T: T.tensor([1, 4]).tanh(),
    lambda T: T.tensor([1, 4]).sin(),
    lambda T: T.tensor([1, 4]).cos(),
    lambda T: T.tensor([1, 4]).rsqrt(),
    lambda T: T.tensor([1, 4]).erf(),
    lambda T: T.tensor([True, False]).abs(),
    lambda T: T.tensor([-1, 4], dtype=T.int8).abs(),
    lambda T: T.tensor([True, False]).exp(),
    lambda T: T.tensor([1, 4], dtype=T.int32).sqrt(),
    lambda T: T.tensor([1, 4], dtype=T.uint8).exp(),
    lambda T: T.tensor([1, 2]).logsumexp(0),
    lambda T: T.sqrt(T.tensor(4)),
    lambda T: T.tensor([1, 3]).mean(),
    lambda T: T.tensor([1, 3]).mean(0),
    lambda T: T.tensor([True]).mean(),
    lambda T: T.tensor([1.0, 2.0]).mean(dtype=T.int64),
    lambda T: T.tensor([1, 2], dtype=T.int8).mean(dtype=T.float32),
    lambda T: T.tensor([[1, 2], [3, 4]]).mean(0, dtype=T.float64),
    lambda T: T.tensor([1, 2]).var(),
    lambda T: T.tensor([1, 2]).std(),
    lambda T: T.tensor([1, 2]).norm(),
    lambda T: T.tensor([1, 2], dtype=T.int8).norm(),
    lambda T: T.tensor([[1, 2], [3, 4]]).softmax(0),
    lambda T: T.tensor([[1, 2], [3, 4]]).softmax(1),
    lambda T: T.tensor([[1, 2], [3, 4]]).log_softmax(0),
    lambda T: T.tensor([[1, 2], [3, 4]]).log_softmax(-1),
]

POWERS = [
    lambda T: T.tensor([2, 3]) ** -1,
    lambda T: T.tensor([2, 3]).pow(-2),
    lambda T: T.tensor([2, 3]) ** T.tensor([-1, 2]),
    lambda T: T.tensor([1, -1, 2, -1]) ** T.tensor([-1, -1, -2, -2]),
    lambda T: T.tensor([2, 3]) ** T.tensor(-1),
    lambda T: 2 ** T.tensor([-1, 2]),
    lambda T: T.tensor([2, 3]) ** 2,
    lambda T: T.tensor([2, 3]) ** 0.5,
    lambda T: T.tensor([2, 3]) ** 2.0,
    lambda T: 2 ** T.tensor([2, 3]),
    lambda T: 2.0 ** T.tensor([2, 3]),
    lambda T: T.tensor([2.0, 3.0]) ** -1,
]

PROMOTION = [
    lambda T: T.tensor([1, 2]) + T.tensor([1.0, 2.0]),
    lambda T: T.tensor([1, 2], dtype=T.int32) * T.tensor([1.0, 2.0]),
    lambda T: T.tensor([1.0, 2.0]) + T.tensor(2.0, dtype=T.float64),
    lambda T: T.tensor([1, 2], dtype=T.int8) + T.tensor(2),
    lambda T: T.tensor([1, 2], dtype=T.int8) + T.tensor(2.0),
    lambda T: T.tensor([1, 2], dtype=T.int8) * T.tensor([3], dtype=T.int64),
    lambda T: T.tensor([1, 2], dtype=T.uint8) + T.tensor([1, 2], dtype=T.int8),
    lambda T: T.tensor([1.0, 2.0], dtype=T.float16) + 1.5,
    lambda T: T.tensor([1.0, 2.0], dtype=T.float16) + T.tensor([1, 2]),
    lambda T: T.tensor([1.0, 2.0], dtype=T.float64) * 2,
    lambda T: T.tensor([1.0, 2.0]) * T.tensor([1.0, 2.0], dtype=T.float64),
    lambda T: T.tensor([1.0, 2.0]) * np.float64(2.0),
    lambda T: T.tensor([1, 2]) * np.float64(2.5),
    lambda T: T.tensor(3) + 2.5,
    lambda T: T.tensor(3) * T.tensor(2.0),
    lambda T: T.tensor([True]) + 1,
    lambda T: T.tensor([True]) + 1.5,
    lambda T: T.tensor([True]) + T.tensor([True]),
    lambda T: T.tensor([True]) * T.tensor([True]),
    lambda T: T.tensor([True]) - T.tensor([True]),
    lambda T: T.tensor([1, 2]) - T.tensor([True, False]),
    lambda T: T.tensor([1, 2]) - True,
    lambda T: -T.tensor([True]),
    lambda T: T.tensor([1, 2]) & T.tensor([3, 1]),
    lambda T: T.tensor([1, 2]) | 1,
    lambda T: T.tensor([1, 2]) ^ T.tensor([3, 3]),
    lambda T: T.tensor([True, False]) & True,
    lambda T: T.tensor([True, False]) | T.tensor([False, False]),
    lambda T: T.tensor([1.5]) & T.tensor([1.5]),
    lambda T: ~T.tensor([1, 2]),
    lambda T: ~T.tensor([True, False]),
    lambda T: ~T.tensor([1.0, 2.0]),
    lambda T: T.where(T.tensor([True, False]), 1, 0),
    lambda T: T.where(T.tensor([True, False]), 1.0, 0),
    lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2]), 0.5),
    lambda T: T.where(T.tensor([True, False]), T.tensor([1.0, 2.0]), 5),
    lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2]), T.tensor([1.0, 2.0])),
    lambda T: T.where(
        T.tensor([True, False]), T.tensor([1, 2]), T.tensor([1.0, 2.0], dtype=T.float64)
    ),
    lambda T: T.tensor([1, 5, 9]).clamp(2, 4),
    lambda T: T.tensor([1, 5, 9]).clamp(2.5, 4),
    lambda T: T.tensor([1.0, 5.0, 9.0]).clamp(T.tensor([2.0, 2.0, 2.0]), T.tensor([4.0, 4, 4])),
    lambda T: T.tensor([1.0, 5.0, 9.0]).clamp(min=T.tensor([2.0, 6.0, 10.0])),
    lambda T: T.tensor([1, 5, 9]).clamp(max=T.tensor([2.0, 6.0, 10.0])),
    lambda T: T.tensor([1.0, 5.0]).clamp(),
    lambda T: T.tensor([1, 2]) == 1,
    lambda T: T.tensor([1, 2]) < 1.5,
    lambda T: T.tensor([1.0, NAN]) == T.tensor([1.0, NAN]),
    lambda T: T.tensor([1, 2]) == T.tensor([1.0, 2.0]),
    lambda T: T.tensor([1, 2]).maximum(T.tensor([1.5, 0.0])),
    lambda T: T.result_type(T.tensor([1, 2]), 2.5),
    lambda T: T.result_type(T.tensor([1, 2], dtype=T.int8), T.tensor(2)),
    lambda T: T.result_type(T.tensor([1.0]), T.tensor([1], dtype=T.int64)),
    lambda T: T.result_type(2, 2.5),
    lambda T: T.promote_types(T.int32, T.float16),
    lambda T: T.promote_types(T.uint8, T.int8),
    lambda T: T.promote_types(T.bool, T.int8),
    lambda T: T.promote_types(T.float32, T.float64),
]

IN_PLACE = [
    lambda T: T.tensor([1, 2]).add_(1.5),
    lambda T: T.tensor([1, 2]).mul_(T.tensor([1.5, 2.0])),
    lambda T: T.tensor([1, 2]).div_(2),
    lambda T: T.tensor([1, 2]).pow_(0.5),
    lambda T: T.tensor([1, 2]).sqrt_(),
    lambda T: T.tensor([1, 2]).exp_(),
    lambda T: T.tensor([True, False]).add_(1),
    lambda T: T.tensor([1.0, 2.0]).add_(T.tensor([1, 2])),
    lambda T: T.tensor([1.0, 2.0]).mul_(T.tensor([2.0, 2.0], dtype=T.float64)),
    lambda T: T.tensor([1, 2], dtype=T.int8).add_(T.tensor([1, 2])),
    lambda T: T.tensor([1, 2]).sub_(T.tensor([True, True])),
    lambda T: T.tensor([-7, 7]).remainder_(3),
    lambda T: T.tensor([-7.0, 7.0]).fmod_(3),
]

REDUCTIONS = [
    lambda T: T.tensor([1, 2]).sum(),
    lambda T: T.tensor([1, 2], dtype=T.int8).sum(),
    lambda T: T.tensor([True, True]).sum(),
    lambda T: T.tensor([1, 2], dtype=T.int32).sum(0),
    lambda T: T.tensor([1.0, 2.0]).sum(dtype=T.float64),
    lambda T: T.tensor([1, 2], dtype=T.int8).cumsum(0),
    lambda T: T.tensor([True, True]).cumsum(0),
    lambda T: T.tensor([1, 2], dtype=T.int32).max(),
    lambda T: T.tensor([1, 2]).argmax(),
    lambda T: T.tensor([1.0, 2.0], dtype=T.float16).sum(),
]

CREATION = [
    lambda T: T.arange(5),
    lambda T: T.arange(5.0),
    lambda T: T.arange(0, 1, 0.25),
    lambda T: T.arange(1, 4, dtype=T.float64),
    lambda T: T.arange(10, 0, -3),
    lambda T: T.linspace(0, 1, 5),
    lambda T: T.linspace(0, 10, 5, dtype=T.int64),
    lambda T: T.full((2,), 3),
    lambda T: T.full((2,), 3.0),
    lambda T: T.full((2,), True),
    lambda T: T.full((2,), 3, dtype=T.float32),
    lambda T: T.zeros(2, dtype=T.int64),
    lambda T: T.ones(2, 2).dtype,
    lambda T: T.eye(2, dtype=T.int32),
    lambda T: T.tensor([1, 2]).requires_grad_(),
    lambda T: T.tensor([1, 2], requires_grad=True),
]

CONVERSIONS = [
    lambda T: T.tensor([1, 2]).item(),
    lambda T: T.tensor([1.5]).item(),
    lambda T: T.tensor([True]).item(),
    lambda T: T.tensor([[1]], dtype=T.int8).item(),
    lambda T: T.tensor(2.5, dtype=T.float16).item(),
    lambda T: T.tensor([1, 2]).tolist(),
    lambda T: T.tensor([1.5, 2]).tolist(),
    lambda T: T.tensor(1.5).tolist(),
    lambda T: T.tensor([True, False]).tolist(),
    lambda T: float(T.tensor([1.5])),
    lambda T: int(T.tensor([2.7])),
    lambda T: int(T.tensor([1.0, 2.0])),
    lambda T: float(T.tensor([])),
    lambda T: bool(T.tensor([1.0, 2.0])),
    lambda T: bool(T.tensor([])),
    lambda T: format(T.tensor(2.5), ".2f"),
    lambda T: T.tensor([1.0, 2.0]).view(T.int32),
    lambda T: T.tensor([1.5, 2]).type(),
    lambda T: T.tensor([1, 2]).type(),
    lambda T: T.tensor([True]).type(),
    lambda T: T.zeros(2, dtype=T.float64).type(),
    lambda T: T.tensor([1.5, 2]).type("torch.LongTensor"),
    lambda T: T.tensor([1.5, 2]).type("torch.DoubleTensor"),
    lambda T: T.tensor([1, 2]).type("torch.FloatTensor"),
    lambda T: T.tensor([1, 2]).type("torch.BoolTensor"),
    lambda T: T.tensor([1.5, 2]).type(T.int32),
    lambda T: T.tensor([1.5, 2]).type(T.LongTensor),
    lambda T: T.tensor([1.5, 2]).type("torch.FooTensor"),
    lambda T: T.tensor([1.5, 2]).type("LongTensor"),
    lambda T: str(T.int64),
    lambda T: T.float32,
]

REPRS = [
    lambda T: T.tensor([NAN, 1.0]),
    lambda T: T.tensor([NAN, 1.5]),
    lambda T: T.tensor([INF, 1.5, -2.0]),
    lambda T: T.tensor([0.0, INF]),
    lambda T: T.tensor([0.0, 0.0]),
    lambda T: T.tensor([-0.0, 0.0]),
    lambda T: T.tensor([-1.0, 0.0]),
    lambda T: T.tensor(-0.0),
    lambda T: T.tensor([NAN, INF, -INF]),
    lambda T: T.tensor([1e10, 1.0]),
    lambda T: T.tensor([1e-10, 1.0]),
    lambda T: T.tensor([1e-5, 1.0]),
    lambda T: T.tensor([123456789.0, 1.0]),
    lambda T: T.tensor([1e8]),
    lambda T: T.tensor([1e9]),
    lambda T: T.tensor([1e-4]),
    lambda T: T.tensor([0.0001, 0.5]),
    lambda T: T.tensor([1000.0, 1.0]),
    lambda T: T.tensor([1001.0, 1.0]),
    lambda T: T.tensor([1001.5, 1.0]),
    lambda T: T.tensor([1e20, NAN]),
    lambda T: T.tensor([1e-20, 0.0]),
    lambda T: T.tensor([0.1, 0.25]),
    lambda T: T.tensor([1 / 3]),
    lambda T: T.tensor([100000.5]),
    lambda T: T.tensor([-1e-3, 5.0]),
    lambda T: T.tensor([3.14159], dtype=T.float64),
    lambda T: T.tensor([1.5, NAN, INF], dtype=T.float64),
    lambda T: T.tensor([2**63 - 1, -(2**63)]),
    lambda T: T.tensor([-(2**63)]),
    lambda T: T.tensor([]),
    lambda T: T.tensor([], dtype=T.int64),
    lambda T: T.tensor([], dtype=T.bool),
    lambda T: T.zeros(0, 3),
    lambda T: T.zeros(2, 0, dtype=T.int64),
    lambda T: T.zeros(0, dtype=T.float64),
    lambda T: T.tensor(3),
    lambda T: T.tensor(3.5),
    lambda T: T.tensor(True),
    lambda T: T.tensor(3.5, requires_grad=True),
    lambda T: T.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda T: (T.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
    lambda T: T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True),
    lambda T: T.tensor([1.0, 2.0], dtype=T.float16),
    lambda T: T.tensor([1, 2], dtype=T.uint8),
    lambda T: T.tensor([[1.5, 2.0], [3.0, 4.0]]),
    lambda T: T.tensor([[-1, 2], [3, -40]]),
    lambda T: T.tensor([True, False]),
    lambda T: T.arange(2000.0),
    lambda T: T.arange(30.0).reshape(5, 6) / 7,
    lambda T: T.arange(12).reshape(2, 2, 3),
]

RETURN_TYPES = [
    lambda T: T.tensor([1.0, 2.0]).max(dim=0),
    lambda T: T.tensor([[1.0, 2.0], [3.0, 0.0]]).max(dim=1),
    lambda T: T.tensor([[1, 2], [3, 0]]).min(1, keepdim=True),
    lambda T: T.max(T.tensor([[1.0, 2.0], [3.0, 0.0]]), 0),
    lambda T: T.tensor([3.0, 1.0, 2.0]).sort(),
    lambda T: T.tensor([3.0, 1.0, 2.0]).sort(descending=True),
    lambda T: T.tensor([3.0, 1.0, 2.0]).topk(2),
    lambda T: T.tensor(3.0).max(0),
    lambda T: T.tensor([[1.0, 2.0], [3.0, 0.0]]).max(dim=1)[0],
    lambda T: T.tensor([[1.0, 2.0], [3.0, 0.0]]).max(dim=1)[-1],
    lambda T: T.tensor([[1.0, 2.0], [3.0, 0.0]]).max(dim=1).indices,
    lambda T: T.tensor([3.0, 1.0, 2.0]).sort().values,
    lambda T: len(T.tensor([[1.0, 2.0], [3.0, 0.0]]).max(dim=1)),
    lambda T: type(T.tensor([1.0, 2.0]).max(dim=0)).__name__,
    lambda T: type(T.tensor([1.0, 2.0]).topk(1)).__name__,
    lambda T: isinstance(T.tensor([1.0, 2.0]).max(dim=0), tuple),
    lambda T: T.tensor([1.0, 2.0]).max(dim=0) + (1,),
    lambda T: str(T.tensor([1.0, 2.0]).min(dim=0)),
]

GROUPS = {
    "division": DIVISION,
    "float_functions_of_integers": FLOAT_FUNCTIONS_OF_INTEGERS,
    "powers": POWERS,
    "promotion": PROMOTION,
    "in_place": IN_PLACE,
    "reductions": REDUCTIONS,
    "creation": CREATION,
    "conversions": CONVERSIONS,
    "reprs": REPRS,
    "return_types": RETURN_TYPES,
}
CASES = [
    pytest.param(case, id=f"{group}-{i}")
    for group, cases in GROUPS.items()
    for i, case in enumerate(cases)
]


def _name(text):
    """PyTorch's package name in a repr or message, as nnlite spells it."""
    return text.replace("torch.", "nnlite.")


def describe(value):
    """What must agree: the repr, the type and, for tensors, dtype, shape and values."""
    if isinstance(value, (torch.Tensor, nl.Tensor)):
        values = value.detach().numpy() if isinstance(value, torch.Tensor) else value._data
        return ("tensor", _name(repr(value)), _name(str(value.dtype)), tuple(value.shape), values)
    if isinstance(value, tuple):
        return (_name(repr(value)), tuple(describe(v) for v in value))
    if isinstance(value, list):
        return ("list", _name(repr(value)), [type(v).__name__ for v in value])
    return (type(value).__name__, _name(repr(value)))


def outcome(case, lib):
    try:
        return ("value", describe(case(lib)))
    except Exception as error:  # the error itself is the result to compare
        return ("error", type(error).__name__, _name(str(error).split("\n")[0]))


def _same(expected, got):
    if isinstance(expected, np.ndarray):
        return (
            isinstance(got, np.ndarray)
            and expected.dtype == got.dtype
            and expected.shape == got.shape
            and (
                np.allclose(expected, got, rtol=1e-6, atol=0, equal_nan=True)
                if expected.dtype.kind == "f"  # libm and numpy may differ in the last bit
                else np.array_equal(expected, got)
            )
        )
    if isinstance(expected, (tuple, list)):
        return (
            isinstance(got, type(expected))
            and len(expected) == len(got)
            and all(_same(e, g) for e, g in zip(expected, got))
        )
    return expected == got


@pytest.mark.parametrize("case", CASES)
def test_same_result_as_pytorch(case):
    expected, got = outcome(case, torch), outcome(case, nl)
    assert _same(expected, got), f"\nPyTorch: {expected}\nnnlite:  {got}"


def test_the_comparison_catches_a_dtype_difference():
    # the harness itself: a float64 result where PyTorch gives float32 is a difference
    assert not _same(
        outcome(lambda T: T.tensor([0.5]), torch),
        outcome(lambda T: T.tensor([0.5], dtype=T.float64), nl),
    )


# ---------------------------------------------------------------------- the default dtype
@pytest.fixture
def float64_default():
    torch.set_default_dtype(torch.float64)
    nl.set_default_dtype(nl.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)
        nl.set_default_dtype(nl.float32)


DEFAULT_DTYPE_CASES = [
    lambda T: T.tensor([1, 3]) / 2,
    lambda T: T.tensor([1, 4]).sqrt(),
    lambda T: T.tensor([1, 4]).sigmoid(),
    lambda T: T.tensor([1.5, 2.0]),
    lambda T: T.tensor([1.5, 2.0], dtype=T.float32),
    lambda T: T.tensor([], dtype=T.float32),
    lambda T: T.tensor([]),
    lambda T: T.tensor([1, 2]) * 0.5,
    lambda T: T.tensor([1.0, 2.0], dtype=T.float32) * 0.5,
    lambda T: T.zeros(2),
    lambda T: T.rand(2).dtype,
    lambda T: T.arange(0.0, 1.0, 0.5),
    lambda T: T.full((1,), 2.0),
    lambda T: T.linspace(0, 1, 3),
    lambda T: T.get_default_dtype(),
]


@pytest.mark.parametrize("case", DEFAULT_DTYPE_CASES)
def test_set_default_dtype_as_pytorch(float64_default, case):
    expected, got = outcome(case, torch), outcome(case, nl)
    assert _same(expected, got), f"\nPyTorch: {expected}\nnnlite:  {got}"


def test_set_default_dtype_takes_floating_types_only():
    for lib in (torch, nl):
        with pytest.raises(TypeError, match="only floating-point types are supported"):
            lib.set_default_dtype(lib.int64)
    assert nl.get_default_dtype() == nl.float32


# ---------------------------------------------------------------------- named tuples
def test_return_types_unpack_and_pickle():
    x = nl.tensor([[1.0, 5.0], [7.0, 2.0]])
    result = x.max(dim=1)
    values, indices = result
    assert values is result.values and indices is result.indices
    assert type(result) is nl.return_types.max
    assert (result.n_fields, result.n_sequence_fields) == (2, 2)
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is nl.return_types.max
    assert again.indices.tolist() == [1, 0]
    with pytest.raises(TypeError, match="takes a 2-sequence"):
        nl.return_types.sort((values,))


# ---------------------------------------------------------------------- gradients of the new ops
def test_rounded_division_gradients_are_zero_as_pytorch():
    for lib in (torch, nl):
        a = lib.tensor([1.5, -2.5], requires_grad=True)
        b = lib.tensor([0.7, 0.7], requires_grad=True)
        out = lib.div(a, b, rounding_mode="floor")
        assert out.grad_fn.name() == "DivBackward2"
        out.sum().backward()
        assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0, 0.0]


def test_remainder_gradient_matches_pytorch():
    grads = []
    for lib in (torch, nl):
        a = lib.tensor([5.5, -5.5, 3.25], requires_grad=True)
        b = lib.tensor([2.0, 2.0, -1.5], requires_grad=True)
        (a % b * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        (a.fmod(b) * 2).sum().backward()
        grads.append((a.grad.tolist(), b.grad.tolist()))
    assert grads[0] == grads[1]


def test_integer_division_by_zero_in_place_raises():
    x = nl.tensor([4, 6])
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        x.remainder_(0)
    assert x.tolist() == [4, 6]


def test_view_as_dtype_shares_memory():
    x = nl.tensor([1.0, 2.0])
    bits = x.view(nl.int32)
    bits[0] = 0
    assert x.tolist() == [0.0, 2.0]
    assert math.isclose(bits.view(nl.float32)[1].item(), 2.0)
