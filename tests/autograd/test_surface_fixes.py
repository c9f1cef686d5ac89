"""In-place division on non-leaf tensors, ``repeat``'s copy, the legacy ``Tensor(*sizes)``
constructor, ``@inference_mode`` without parentheses, gradcheck's PyTorch keywords and
``once_differentiable``."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd.function import once_differentiable


@pytest.mark.parametrize(
    "divide",
    [
        lambda y: y.__itruediv__(3.0),
        lambda y: y.div_(3.0),
        lambda y: y.div_(nl.tensor(3.0)),
    ],
)
def test_inplace_division_of_a_non_leaf_keeps_backward(divide):
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    divide(y)
    (y * y).sum().backward()
    # d/dx (2x/3)^2 = 8x/9
    np.testing.assert_allclose(x.grad.numpy(), [8 / 9, 16 / 9], rtol=1e-6)


def test_division_by_a_tensor_that_requires_grad_still_saves_the_numerator():
    x = nl.tensor([1.0, 2.0], dtype=nl.float64, requires_grad=True)
    c = nl.tensor([3.0], dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda a, b: a / b, (x, c))
    assert nl.autograd.gradgradcheck(lambda a, b: a / b, (x, c))


@pytest.mark.parametrize("sizes", [(2,), (1,), (2, 1), (3, 1, 1)])
def test_repeat_returns_a_writable_copy(sizes):
    x = nl.arange(3.0)
    r = x.repeat(*sizes)
    r[(0,) * r.ndim] = 7.0  # must neither raise nor reach x
    assert x.tolist() == [0.0, 1.0, 2.0]


def test_legacy_constructor_forms():
    torch = pytest.importorskip("torch", reason="compares with torch.Tensor's legacy constructor")
    for args in [(16,), (2, 3), ([1, 2],), (), ((2.5, 1),)]:
        ours, theirs = nl.Tensor(*args), torch.Tensor(*args)
        assert tuple(ours.shape) == tuple(theirs.shape), args
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1], args
    assert nl.Tensor(nl.Size([2, 4])).shape == (2, 4)
    assert nl.Tensor([1, 2]).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="must be a sequence"):
        nl.Tensor(2.5, 3)


def test_parameter_of_a_legacy_tensor_has_its_size():
    p = nl.nn.Parameter(nl.Tensor(16))
    assert p.shape == (16,) and p.requires_grad


def test_inference_mode_decorates_without_parentheses():
    @nl.inference_mode
    def double(t):
        return t * 2

    x = nl.ones(2, requires_grad=True)
    assert not double(x).requires_grad
    assert double.__name__ == "double"
    assert (x * 2).requires_grad


def test_gradcheck_accepts_pytorch_keywords():
    x = nl.randn(3, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: t.exp(), (x,), fast_mode=True, check_undefined_grad=True)
    assert nl.autograd.gradgradcheck(lambda t: t.exp(), (x,), fast_mode=True)
    with pytest.raises(NotImplementedError, match="forward-mode"):
        nl.autograd.gradcheck(lambda t: t.exp(), (x,), check_forward_ad=True)


class Cube(nl.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


def test_once_differentiable_backward_runs_once_and_refuses_twice():
    x = nl.tensor([2.0], requires_grad=True)
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [12.0]
    y = Cube.apply(x)
    (g,) = nl.autograd.grad(y, x, grad_outputs=x * 1, create_graph=True)
    assert g.tolist() == [24.0]
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_max_and_min_are_defined_in_the_class():
    # editors and type checkers read the class body: the methods must be real definitions
    from nnlite.autograd.tensor_methods import TensorMethods

    assert "max" in vars(TensorMethods) and "min" in vars(TensorMethods)
    assert nl.tensor([[1.0, 5.0], [4.0, 2.0]]).max(1).indices.tolist() == [1, 0]


def test_detect_anomaly_names_the_node_like_pytorch():
    torch = pytest.importorskip("torch", reason="compares the message with PyTorch's")
    messages = []
    for lib in (nl, torch):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with (
            lib.autograd.detect_anomaly(),
            pytest.warns(UserWarning) if lib is torch else _nothing(),
        ):
            with pytest.raises(RuntimeError) as error:
                (x.sqrt() * 0).sum().backward()
        messages.append(str(error.value).splitlines()[0])
    assert messages[0] == messages[1]
    assert not nl.is_anomaly_enabled()
    x = nl.tensor([0.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()  # off: no check, the NaN gradient comes through
    assert np.isnan(x.grad.item())


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_autograd_namespace_extras():
    assert nl.autograd.is_tensor_like(nl.zeros(1)) and not nl.autograd.is_tensor_like([1.0])
    assert nl.autograd.variable([1.0], requires_grad=True).requires_grad
    with nl.autograd.set_detect_anomaly(True, check_nan=False):
        assert nl.is_anomaly_enabled() and not nl.is_anomaly_check_nan_enabled()
    assert nl.is_anomaly_check_nan_enabled()
    with nl.autograd.inference_mode():
        assert not nl.is_grad_enabled()
