"""``NestedIOFunction``: legacy custom functions with nested inputs and outputs, checked by finite
differences (PyTorch 2.13 keeps the class but cannot call it)."""

import numpy as np
import pytest

import nnlite as nl


class MulAddPair(nl.autograd.NestedIOFunction):
    """(x * a + b, [x * b]) from x and the pair (a, b)."""

    def forward_extended(self, x, pair):
        a, b = pair
        self.save_for_backward(x, [a, b])
        return x * a + b, [x * b]

    def backward_extended(self, grad_sum, grad_list):
        x, (a, b) = self.saved_tensors
        (grad_prod,) = grad_list
        return grad_sum * a + grad_prod * b, (grad_sum * x, grad_sum + grad_prod * x)


def _outputs(x, a, b):
    first, (second,) = MulAddPair()(x, (a, b))
    return first, second


def _inputs():
    rng = np.random.default_rng(0)
    return tuple(nl.tensor(rng.standard_normal(3), requires_grad=True) for _ in range(3))


def test_outputs_keep_their_nesting_and_values():
    x, a, b = _inputs()
    first, rest = MulAddPair()(x, (a, b))
    assert isinstance(rest, list) and len(rest) == 1
    np.testing.assert_allclose(first.detach().numpy(), (x * a + b).detach().numpy())
    assert first.grad_fn.name() == "MulAddPairBackward"


def test_gradients_match_finite_differences():
    assert nl.autograd.gradcheck(_outputs, _inputs())
    assert nl.autograd.gradgradcheck(_outputs, _inputs())


def test_single_output_and_non_differentiable_output():
    class Scale(nl.autograd.NestedIOFunction):
        def forward_extended(self, x):
            mask = x > 0
            self.mark_non_differentiable(mask)
            return x * 3, mask

        def backward_extended(self, grad, grad_mask):
            return grad * 3

    x = nl.tensor([1.0, -2.0], requires_grad=True)
    y, mask = Scale()(x)
    assert not mask.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_torch_keeps_the_class_but_cannot_call_it():
    torch = pytest.importorskip("torch", reason="checks torch's own behaviour")

    class Twice(torch.autograd.NestedIOFunction):
        def forward_extended(self, x):
            return x * 2

    with pytest.warns(DeprecationWarning), pytest.raises(AttributeError):
        Twice()(torch.ones(2, requires_grad=True))
