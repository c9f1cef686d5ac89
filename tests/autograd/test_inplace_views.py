"""In-place ops on views rewrite the base's history as PyTorch's autograd does (CopySlices).

Each case is a program written once against the shared tensor API and run on nnlite and on
PyTorch; gradients are compared with PyTorch's and checked by finite differences in float64.
"""

import numpy as np
import pytest

import nnlite as nl


def _slice_mul(x):
    y = x * 2
    y[1:3].mul_(3)
    return y


def _view_then_mul(x):
    y = x * 2
    v = y[1:3]
    v.mul_(3)
    return y * v.sum()  # the base and the view, both after the change


def _view_of_view(x):
    y = x * 1.5
    v = y[1:]
    w = v[:, 1:3]
    w.mul_(3).add_(x[0, 1:3])
    return y + w.sum()


def _repeated(x):
    y = x + 0
    v = y.t()
    v.mul_(2)
    v.sub_(x.t() ** 2)
    v[0].div_(3)
    return y


def _unary_and_clamp(x):
    y = x * 1
    y.select(1, 0).clamp_(-0.5, 0.5)
    y.narrow(0, 1, 2).sin_()
    y[:, 3].exp_()  # saves its result: the last change to this memory (else backward raises)
    return y


def _shape_views(x):
    y = x * 1
    y.view(16)[2:6].mul_(4)
    y.reshape(2, 8)[1].add_(1)
    y.permute(1, 0)[0].mul_(x[1])
    y.transpose(0, 1)[1:, 2].neg_()
    y.unsqueeze(0).squeeze(0)[3].mul_(x[0])
    y.flatten()[::5].abs_()
    return y


def _overwrite(x):
    y = x * 3
    y[0].zero_()
    y[1].fill_(2.0)
    y[2].copy_(x[3] * 5)
    y[3, 1].mul_(x[0, 0])  # one element is a view too
    y[3].relu_()
    return y * y


def _masked_and_index(x):
    y = x * 2
    v = y[1:3]
    v.masked_fill_(v > 1.0, 0.5)
    y[:, 1:3].index_fill_(1, nl_or_torch_index(x), -1.0)
    y[2:].index_add_(0, nl_or_torch_index(x), x[:1] * 2)
    return y * x


def _as_strided(x):
    y = x * 2
    y.as_strided((2, 2), (1, 4), 1).mul_(x[0, :2])
    return y


def _base_then_view(x):
    y = x * 2
    v = y[1:3]
    y.mul_(3)  # change the base: the view was taken earlier
    return y.sum() + (v * v).sum()


def _other_view_after_change(x):
    y = x * 2
    a, b = y[:2], y[1:]
    b.mul_(x[0])  # rewrites y's history: a, taken before, reads the new y
    return (a * y[0]).sum() + b.sum() * y


def _setitem_on_view(x):
    y = x * 2
    v = y[1:3]
    v[0] = x[0] * 7
    v[:, 1] *= 3
    return y


def nl_or_torch_index(x):
    lib = nl if isinstance(x, nl.Tensor) else pytest.importorskip("torch")
    return lib.tensor([1])


CASES = [
    _slice_mul,
    _view_then_mul,
    _view_of_view,
    _repeated,
    _unary_and_clamp,
    _shape_views,
    _overwrite,
    _masked_and_index,
    _as_strided,
    _base_then_view,
    _other_view_after_change,
    _setitem_on_view,
]
IDS = [f.__name__.strip("_") for f in CASES]

_DATA = np.random.default_rng(0).uniform(0.2, 1.5, (4, 4))
#: the completeness test's gradient rows (tests/op_registry.py): each is gradchecked and
#: gradgradchecked there, and reaches the nodes an in-place change through a view records
ROWS = [
    ("mul__through_a_slice", [_DATA], _slice_mul),
    ("zero__and_fills_through_views", [_DATA], _overwrite),
    ("mul__base_then_view", [_DATA], _base_then_view),
]


def _input(lib):
    data = np.random.default_rng(0).uniform(0.2, 1.5, (4, 4))
    return lib.tensor(data, dtype=lib.float64, requires_grad=True)


def _grad_and_value(lib, program):
    x = _input(lib)
    out = program(x)
    weights = lib.tensor(
        np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)), dtype=lib.float64
    )
    (out * weights).sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("program", CASES, ids=IDS)
def test_grad_matches_pytorch(program):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for these gradients")
    value, grad = _grad_and_value(nl, program)
    want_value, want_grad = _grad_and_value(torch, program)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)


@pytest.mark.parametrize("program", CASES, ids=IDS)
def test_gradcheck_and_gradgradcheck(program):
    x = _input(nl)
    assert nl.autograd.gradcheck(program, (x,))
    assert nl.autograd.gradgradcheck(program, (x,))


def test_graph_nodes_are_pytorchs():
    x = nl.ones(4, requires_grad=True)
    y = x * 2
    v = y[1:3]
    v.mul_(3)
    assert y.grad_fn.name() == "CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 6.0, 6.0, 2.0]


@pytest.mark.parametrize(
    ("change", "name"),
    [
        (lambda y: y.zero_(), "ZeroBackward0"),
        (lambda y: y.fill_(2.0), "FillBackward2"),
        (lambda y: y.copy_(nl.zeros(3)), "CopyBackwards"),
        (lambda y: y.normal_(), "NormalBackward0"),
    ],
)
def test_overwriting_a_recorded_tensor_gives_zero_gradient(change, name):
    x = nl.ones(3, requires_grad=True)
    y = x * 2
    change(y)
    assert y.grad_fn.name() == name
    (y * 3).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_saved_base_detects_change_through_view():
    x = nl.ones(4, requires_grad=True)
    y = x * 2
    z = y * y  # saves y
    y[1:3].mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_view_taken_before_the_base_gets_a_history():
    x = nl.ones(4, requires_grad=True, dtype=nl.float64)
    y = nl.zeros(4, dtype=nl.float64)
    v = y[1:3]
    y.copy_(x * 3)
    (v * 2).sum().backward()
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert x.grad.tolist() == [0.0, 6.0, 6.0, 0.0]


def test_inplace_on_view_of_non_grad_base_records_value():
    x = nl.ones(2, requires_grad=True, dtype=nl.float64)
    y = nl.zeros(4, dtype=nl.float64)
    y[1:3].copy_(x * 4)
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


_MULTI = (
    "Output {k} of {name} is a view and is being modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be "
    "modified inplace. You should replace the inplace operation by an out-of-place one."
)


def _view_of_leaf(lib):
    x = lib.ones(4, requires_grad=True)
    x[1:3].mul_(2)


def _no_grad_view(lib):
    x = lib.ones(4, requires_grad=True)
    y = x * 2
    with lib.no_grad():
        v = y[1:3]
    v.mul_(2)


def _unbind_output(lib):
    (lib.ones(2, 3, requires_grad=True) * 2).unbind()[0].mul_(2)


def _split_output(lib):
    (lib.ones(4, requires_grad=True) * 2).split(2)[1].mul_(2)


def _chunk_output(lib):
    (lib.ones(4, requires_grad=True) * 2).chunk(2)[0].add_(1)


ERRORS = [
    (
        _view_of_leaf,
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    (
        _no_grad_view,
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
        "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
        "your code by moving both the view and the inplace either both inside the no_grad block "
        "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
        "to be tracked).",
    ),
    (_unbind_output, _MULTI.format(k=0, name="Unbind")),
    (_split_output, _MULTI.format(k=1, name="Split")),
    (_chunk_output, _MULTI.format(k=0, name="Split")),
]


@pytest.mark.parametrize(("program", "message"), ERRORS, ids=[f.__name__ for f, _ in ERRORS])
def test_errors_are_pytorchs(program, message):
    with pytest.raises(RuntimeError) as got:
        program(nl)
    assert str(got.value) == message


@pytest.mark.parametrize(("program", "message"), ERRORS, ids=[f.__name__ for f, _ in ERRORS])
def test_error_messages_match_pytorch(program, message):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for these messages")
    with pytest.raises(RuntimeError) as got:
        program(torch)
    assert str(got.value) == message


def test_views_unchanged_without_grad():
    x = nl.ones(4)
    with nl.no_grad():
        v = x[1:3]
    v.mul_(2)  # nothing records: no error, the memory changes
    assert x.tolist() == [1.0, 2.0, 2.0, 1.0]
