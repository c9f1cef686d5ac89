"""The op contract and the engine's side of it: one backward formula run on arrays for a first-order
backward and on Tensors under ``create_graph``, told which inputs need a gradient; the engine's
messages; ``Tensor.__format__``; the autograd package standing on its own."""

import subprocess
import sys

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd.op import Op
from nnlite.autograd.tensor_methods import TensorMethods


class ScaledProduct(Op):
    """``a * b * scale``, recording what its backward is handed."""

    saved_inputs = (0, 1)
    scale = 1.0
    calls = []

    def forward(self, a, b):
        return a * b * self.scale

    def backward(self, grad, needs):
        a, b = self.inputs()
        ScaledProduct.calls.append((type(grad), type(a), needs))
        return (
            grad * b * self.scale if needs[0] else None,
            grad * a * self.scale if needs[1] else None,
        )


def test_first_order_backward_runs_the_formula_on_arrays():
    ScaledProduct.calls.clear()
    a = nl.tensor([1.0, 2.0], requires_grad=True)
    b = nl.tensor([3.0, 4.0])
    out = ScaledProduct.apply(a, b, scale=2.0)
    assert out.grad_fn.name() == "ScaledProductBackward0"
    assert out.grad_fn.scale == 2.0  # parameters are plain attributes
    out.sum().backward()
    assert ScaledProduct.calls == [(np.ndarray, np.ndarray, (True, False))]
    assert a.grad.tolist() == [6.0, 8.0]


def test_create_graph_runs_the_same_formula_on_tensors():
    ScaledProduct.calls.clear()
    a = nl.tensor([1.0, 2.0], dtype=nl.float64, requires_grad=True)
    b = nl.tensor([3.0, 4.0], dtype=nl.float64, requires_grad=True)
    (ga, gb) = nl.autograd.grad(
        ScaledProduct.apply(a, b, scale=3.0).sum(), (a, b), create_graph=True
    )
    assert ScaledProduct.calls == [(nl.Tensor, nl.Tensor, (True, True))]
    assert ga.grad_fn is not None
    (gga,) = nl.autograd.grad(gb.sum(), a)  # d/da of sum(3 * a)
    assert gga.tolist() == [3.0, 3.0]
    assert nl.autograd.gradcheck(lambda x, y: ScaledProduct.apply(x, y, scale=3.0), (a, b))
    assert nl.autograd.gradgradcheck(lambda x, y: ScaledProduct.apply(x, y, scale=3.0), (a, b))


def test_nothing_recorded_without_grad():
    out = ScaledProduct.apply(nl.ones(2), nl.ones(2))
    assert out.grad_fn is None and not out.requires_grad


def test_user_function_is_a_separate_base():
    assert not issubclass(nl.autograd.Function, Op)
    # apply is the one written on the class: no metaclass puts another in its place
    assert "apply" in vars(nl.autograd.Function)
    assert "apply" in vars(Op)


def test_tensor_methods_are_defined_on_a_class():
    for name in ("__add__", "exp", "sum", "reshape", "relu_", "softmax", "T"):
        assert name in vars(TensorMethods), name
    assert issubclass(nl.Tensor, TensorMethods)


def test_matmul_of_two_vectors_backward():
    x = nl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = nl.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (x @ y).backward()
    assert x.grad.tolist() == [4.0, 5.0, 6.0] and y.grad.tolist() == [1.0, 2.0, 3.0]


def test_matmul_of_a_batch_and_a_vector_backward():
    x = nl.ones(2, 3, 4, requires_grad=True)
    y = nl.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    (x @ y).sum().backward()
    assert x.grad.tolist() == [[[1.0, 2.0, 3.0, 4.0]] * 3] * 2
    assert y.grad.tolist() == [6.0] * 4


# ------------------------------------------------------------------------------------ engine messages


def test_no_grad_fn_message_names_the_element():
    x = nl.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="^element 1 of tensors does not require grad and does not have a grad_fn$",
    ):
        nl.autograd.backward([x.sum(), nl.ones(2).sum()])


def test_shape_mismatch_message_names_the_index():
    x = nl.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"^Mismatch in shape: grad_output\[1\] has a shape of nnlite.Size\(\[3\]\) "
        r"and output\[1\] has a shape of nnlite.Size\(\[2\]\).$",
    ):
        nl.autograd.backward([x.sum(), x * 2], [nl.tensor(1.0), nl.ones(3)])


def test_count_mismatch_message():
    x = nl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):
        nl.autograd.grad([x.sum(), (x * 2).sum()], [x], [nl.tensor(1.0)])


def test_messages_name_nnlite():
    with pytest.raises(
        RuntimeError, match="^nnlite.clamp: At least one of 'min' or 'max' must not be None$"
    ):
        nl.ones(2).clamp()
    with pytest.raises(
        RuntimeError, match=r"^nnlite.cat\(\): expected a non-empty list of Tensors$"
    ):
        nl.cat([])


# ------------------------------------------------------------------------------------ format


def test_format_of_a_zero_dim_tensor_formats_its_value():
    loss = nl.tensor(2.5)
    assert f"{loss}" == "2.5"
    assert format(loss, ".3f") == "2.500"
    assert f"{loss:>7f}" == "2.500000"
    assert f"{nl.tensor(3)}" == "3" and f"{nl.tensor(3):>4}" == "   3"
    assert f"{(nl.tensor(2.5, requires_grad=True) * 1)}" == "2.5"


def test_format_of_other_tensors():
    t = nl.tensor([2.5])
    assert f"{t}" == repr(t)
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(t, ".3f")


def test_format_matches_pytorch():
    torch = pytest.importorskip("torch")
    for value, spec in [(2.5, ""), (2.5, ".3f"), (1 / 3, ">7f"), (7, "d"), (-0.25, "e")]:
        assert format(nl.tensor(value), spec) == format(torch.tensor(value), spec)


# ------------------------------------------------------------------------------------ layering


def test_autograd_imports_nothing_above_it():
    code = (
        "import sys, nnlite.autograd; print(sorted(m for m in sys.modules if m.split('.')[:2] in "
        "(['nnlite', 'nn'], ['nnlite', 'optim'], ['nnlite', 'data'], ['nnlite', 'train'], ['nnlite', 'models'])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------------------------ fast paths
def _all_op_classes():
    import nnlite.nn  # noqa: F401  (defines the layer ops)

    found, stack = [], [Op]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def _rng_array(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def _gelu(rng, dtype, approximate):
    x = nl.tensor(_rng_array(rng, (3, 5), dtype), requires_grad=True)
    return nl.nn.functional.gelu(x, approximate=approximate)


def _batch_norm(rng, dtype, training):
    x = nl.tensor(_rng_array(rng, (4, 3, 2, 2), dtype), requires_grad=True)
    w = nl.tensor(_rng_array(rng, (3,), dtype), requires_grad=True)
    b = nl.tensor(_rng_array(rng, (3,), dtype), requires_grad=True)
    mean, var = nl.zeros(3, dtype=x.dtype), nl.ones(3, dtype=x.dtype)
    return nl.nn.functional.batch_norm(x, mean, var, w, b, training=training)


def _embedding(rng, dtype):
    w = nl.tensor(_rng_array(rng, (5, 3), dtype), requires_grad=True)
    return nl.nn.functional.embedding(nl.tensor([[0, 4, 0], [2, 2, 1]]), w)


def _cross_entropy(rng, dtype, **options):
    x = nl.tensor(_rng_array(rng, (4, 3), dtype), requires_grad=True)
    return nl.nn.functional.cross_entropy(x, nl.tensor([0, 2, 1, 2]), **options)


def _recurrent(rng, dtype, layer, **options):
    module = getattr(nl.nn, layer)(3, 4, **options).to(dtype)
    x = nl.tensor(_rng_array(rng, (5, 2, 3), dtype), requires_grad=True)
    out, _ = module(x)
    node = out.grad_fn
    while not type(node).__name__.endswith("Sequence"):  # down to the sequence op
        node = node.next_functions[0][0]
    return node


def _packed(rng, dtype, layer):
    from nnlite.nn.utils.rnn import pack_padded_sequence

    module = getattr(nl.nn, layer)(3, 4).to(dtype)
    x = nl.tensor(_rng_array(rng, (5, 3, 3), dtype), requires_grad=True)
    out, _ = module(pack_padded_sequence(x, [5, 3, 2]))
    node = out.data.grad_fn
    while not type(node).__name__.endswith("Sequence"):
        node = node.next_functions[0][0]
    return node


FAST_PATHS = {
    "Gelu": [
        lambda rng, dt: _gelu(rng, dt, "none"),
        lambda rng, dt: _gelu(rng, dt, "tanh"),
    ],
    "BatchNorm": [
        lambda rng, dt: _batch_norm(rng, dt, True),
        lambda rng, dt: _batch_norm(rng, dt, False),
    ],
    "Embedding": [_embedding],
    "CrossEntropy": [
        lambda rng, dt: _cross_entropy(rng, dt),
        lambda rng, dt: _cross_entropy(rng, dt, reduction="none", weight=nl.rand(3, dtype=dt)),
        lambda rng, dt: _cross_entropy(rng, dt, reduction="sum", ignore_index=2),
        lambda rng, dt: _cross_entropy(rng, dt, label_smoothing=0.1),
    ],
    "RNNSequence": [
        lambda rng, dt: _recurrent(rng, dt, "RNN"),
        lambda rng, dt: _recurrent(rng, dt, "RNN", nonlinearity="relu", bidirectional=True),
        lambda rng, dt: _packed(rng, dt, "RNN"),
    ],
    "GRUSequence": [
        lambda rng, dt: _recurrent(rng, dt, "GRU"),
        lambda rng, dt: _recurrent(rng, dt, "GRU", bias=False),
        lambda rng, dt: _packed(rng, dt, "GRU"),
    ],
    "LSTMSequence": [
        lambda rng, dt: _recurrent(rng, dt, "LSTM", bidirectional=True),
        lambda rng, dt: _packed(rng, dt, "LSTM"),
    ],
}


def test_every_fast_path_has_a_case():
    with_fast_path = {c.__name__ for c in _all_op_classes() if "backward_arrays" in vars(c)}
    assert with_fast_path == set(FAST_PATHS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name, index",
    [(name, i) for name, makers in FAST_PATHS.items() for i in range(len(makers))],
)
def test_fast_path_equals_the_reference_formula(name, index, dtype):
    rng = np.random.default_rng(index)
    made = FAST_PATHS[name][index](rng, dtype)
    node = made.grad_fn if isinstance(made, nl.Tensor) else made
    assert type(node).__name__ == name
    out_shape = made.shape if isinstance(made, nl.Tensor) else node.hidden.shape
    grad = _rng_array(rng, tuple(out_shape), dtype)
    with nl.no_grad():  # a first-order backward: the accessors give arrays
        fast = node.backward_arrays(grad, node._needs)
        reference = node.backward(grad, node._needs)
    fast = fast if isinstance(fast, tuple) else (fast,)
    reference = reference if isinstance(reference, tuple) else (reference,)
    assert len(fast) == len(reference)
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    for k, (f, r) in enumerate(zip(fast, reference)):
        assert (f is None) == (r is None), k
        if f is not None:
            assert type(f) is np.ndarray and type(r) is np.ndarray, k
            np.testing.assert_allclose(f, r, rtol=tolerance, atol=tolerance, err_msg=str(k))
