"""SyncBatchNorm's autograd function in one process, with a stand-in for a group of one rank."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.nn.modules.sync_batchnorm import _SyncBatchNormFunction


class OneRank:
    """A process group of one: the gather copies, the reduction keeps."""

    size = 1

    def allgather(self, local, gathered, what):
        gathered[0] = local

    def allreduce(self, array, what):
        pass


def _normalized(x, w):
    return _SyncBatchNormFunction.apply(
        x,
        w,
        has_weight=True,
        has_bias=False,
        running=(None, None),
        momentum=0.1,
        eps=1e-5,
        group=OneRank(),
    )


def _inputs():
    rng = np.random.default_rng(0)
    x = nl.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
    w = nl.tensor(rng.standard_normal(3), requires_grad=True)
    return x, w


def test_first_order_gradient_equals_batch_norm():
    x, w = _inputs()
    (_normalized(x, w) ** 3).sum().backward()
    expected_x, expected_w = x.detach().requires_grad_(), w.detach().requires_grad_()
    out = nl.nn.functional.batch_norm(expected_x, None, None, expected_w, training=True)
    (out**3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected_x.grad.numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(w.grad.numpy(), expected_w.grad.numpy(), rtol=1e-6, atol=1e-9)


def test_create_graph_is_refused():
    x, w = _inputs()
    loss = (_normalized(x, w) ** 3).sum()
    with pytest.raises(RuntimeError, match="first order only: it does not support create_graph"):
        nl.autograd.grad(loss, (x, w), create_graph=True)
