"""``nn.utils`` messages and helpers beyond the basics, compared with PyTorch's."""

import pytest

import nnlite as nl


@pytest.mark.parametrize("value", [[1.0, 2.0], (1,), "x"])
def test_vector_to_parameters_names_the_wrong_type_as_pytorch_does(value):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as ours:
        nl.nn.utils.vector_to_parameters(value, nl.nn.Linear(2, 1).parameters())
    with pytest.raises(TypeError) as theirs:
        torch.nn.utils.vector_to_parameters(value, torch.nn.Linear(2, 1).parameters())
    assert str(ours.value) == str(theirs.value).replace("torch.Tensor", "nnlite.Tensor")


def test_vector_to_parameters_names_a_numpy_array():
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match=r"^expected nnlite.Tensor, but got: numpy.ndarray$"):
        nl.nn.utils.vector_to_parameters(np.ones(3), nl.nn.Linear(2, 1).parameters())
