"""``nl.bfloat16``, ``nl.BFloat16Tensor`` and ``Tensor.bfloat16`` (``nnlite/autograd/bfloat16.py``):
named as PyTorch's, refused on use with a message saying what to use instead."""

import pickle
import warnings

import pytest

import nnlite as nl


@pytest.mark.parametrize(
    "use",
    [
        lambda: nl.zeros(2, dtype=nl.bfloat16),
        lambda: nl.tensor([1.0], dtype=nl.bfloat16),
        lambda: nl.ones(2).to(nl.bfloat16),
        lambda: nl.ones(2).bfloat16(),
        lambda: nl.BFloat16Tensor(2, 3),
    ],
)
def test_every_use_is_refused_clearly(use):
    with pytest.raises(TypeError, match="nnlite has no bfloat16: .* Use nl.float16"):
        use()


def test_the_names_behave_as_names():
    assert repr(nl.bfloat16) == "nnlite.bfloat16"
    assert nl.bfloat16.is_floating_point and nl.bfloat16.itemsize == 2
    assert nl.bfloat16 != nl.float16 and nl.float32 != nl.bfloat16 and nl.bfloat16 == nl.bfloat16
    assert pickle.loads(pickle.dumps(nl.bfloat16)) is nl.bfloat16
    assert not isinstance(nl.zeros(1), nl.BFloat16Tensor)


def test_autocast_reports_pytorch_default_dtypes():
    torch = pytest.importorskip("torch", reason="PyTorch's defaults are the reference")
    assert (
        repr(nl.get_autocast_dtype("cpu")).split(".")[-1]
        == repr(torch.get_autocast_dtype("cpu")).split(".")[-1]
    )
    assert (
        repr(nl.get_autocast_dtype("cuda")).split(".")[-1]
        == repr(torch.get_autocast_dtype("cuda")).split(".")[-1]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nl.autocast("cpu", dtype=nl.bfloat16):
            assert nl.ones(2).dtype is nl.float32  # the region casts nothing
