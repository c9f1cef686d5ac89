"""DistributedDataParallel's pieces that need no MPI: bucket assignment, the reducer's state
machine (with a one-rank stand-in for the communicator), PyTorch's error messages, the timeout
argument and the timed wait, and SyncBatchNorm's arithmetic (float64 gradcheck, BatchNorm parity).
The multi-rank behaviour is tested under mpirun in test_distributed.py."""

from datetime import timedelta

import numpy as np
import pytest

import nnlite as nl
from nnlite.distributed._mpi import DistBackendError, Group, timeout_seconds
from nnlite.nn.modules.sync_batchnorm import SyncBatchNorm, _SyncBatchNormFunction
from nnlite.nn.parallel._reducer import FIRST_BUCKET_BYTES, Reducer, assign_buckets


class _Done:
    def Test(self):
        return True


class _Never:
    def Test(self):
        return False


class OneRank:
    """The group interface of _mpi.Group for a single rank: collectives are identities."""

    rank, size, timeout = 0, 1, 5.0

    def __init__(self):
        self.started = []

    def start_allreduce(self, buf):
        self.started.append(buf.size)
        return _Done()

    def wait(self, request, what):
        assert request.Test()

    def allreduce(self, buf, what, op=None):
        pass

    def allgather(self, send, recv, what):
        recv[...] = send


def _params(*shapes, dtype=np.float32):
    return [
        nl.nn.Parameter(nl.zeros(*s).to(dtype) if dtype != np.float32 else nl.zeros(*s))
        for s in shapes
    ]


# ---------------------------------------------------------------------------------------------
# buckets


def test_buckets_follow_reverse_registration_order_and_caps():
    params = _params((1000,), (1000,), (1000,), (1000,), (1000,))  # 4000 bytes each
    assert assign_buckets(params, 9000, 9000) == [[4, 3, 2], [1, 0]]
    # a small first bucket (PyTorch: 1 MiB with the default capacity) closes after one tensor
    assert assign_buckets(params, 9000, 100) == [[4], [3, 2, 1], [0]]
    # a tensor larger than the cap gets a bucket of its own
    assert assign_buckets(_params((10,), (5000,), (10,)), 1000, 1000) == [[2, 1], [0]]


def test_buckets_never_mix_dtypes():
    params = _params((10,), (10,)) + _params((10,), dtype=np.float64) + _params((10,))
    buckets = assign_buckets(params, 10**6, 10**6)
    assert sorted(map(sorted, buckets)) == [[0, 1, 3], [2]]


def test_default_capacity_is_25_mib_with_a_1_mib_first_bucket():
    model = nl.nn.Sequential(
        nl.nn.Linear(1024, 1024), nl.nn.Linear(1024, 1024)
    )  # 4 MiB + 4 KiB each
    reducer = Reducer(model, OneRank())
    assert FIRST_BUCKET_BYTES == 1024 * 1024
    assert [b.members for b in reducer.buckets] == [[3, 2], [1, 0]]
    assert reducer.bucket_cap_bytes == 25 * 1024 * 1024
    explicit = Reducer(model, OneRank(), bucket_cap_mb=25)  # an explicit cap: no small first bucket
    assert [b.members for b in explicit.buckets] == [[3, 2, 1, 0]]
    with pytest.raises(ValueError, match="bucket_cap_mb must be a positive number"):
        Reducer(model, OneRank(), bucket_cap_mb=0)


# ---------------------------------------------------------------------------------------------
# the reducer's iteration (one rank: the average is the gradient itself)


def _model():
    nl.manual_seed(0)
    return nl.nn.Sequential(nl.nn.Linear(3, 4), nl.nn.ReLU(), nl.nn.Linear(4, 2))


def test_backward_reduces_every_bucket_once_and_in_order():
    model = _model()
    group = OneRank()
    reducer = Reducer(model, group, bucket_cap_mb=1e-6)  # 1 byte: one bucket per tensor
    assert len(reducer.buckets) == 4
    x = nl.randn(5, 3)
    out = model(x)
    reducer.prepare_for_backward(out)
    out.sum().backward()
    assert group.started == [2 + 1, 8 + 1, 4 + 1, 12 + 1]  # reverse order; each with its flag
    assert all(b.averaged(reducer.params) for b in reducer.buckets) and not reducer.require_finalize
    assert not reducer.expect_hooks
    # explicit form afterwards: nothing left to do
    reducer.allreduce_remaining()
    assert len(group.started) == 4
    # a backward the reducer did not prepare for (no_sync) leaves the buckets to the explicit form
    model(x).sum().backward()
    assert len(group.started) == 4 and not any(b.averaged(reducer.params) for b in reducer.buckets)
    reducer.allreduce_remaining()
    assert len(group.started) == 8
    # gradients set by assignment (no hook fires) are averaged by the explicit form too
    model[0].bias.grad = nl.ones(4)
    reducer.allreduce_remaining()
    assert group.started[8:] == [4 + 1]
    reducer.allreduce_remaining()
    assert len(group.started) == 9


def test_gradients_after_reduction_equal_the_local_ones_on_one_rank():
    model, ref = _model(), _model()
    reducer = Reducer(model, OneRank(), bucket_cap_mb=1e-5)
    x = nl.randn(5, 3)
    out = model(x)
    reducer.prepare_for_backward(out)
    out.pow(2).sum().backward()
    ref(x).pow(2).sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        np.testing.assert_array_equal(p.grad._data, q.grad._data)
        assert p.grad._data.base is None  # copies unless gradient_as_bucket_view


def test_gradient_as_bucket_view_gives_views_of_the_bucket():
    model = _model()
    reducer = Reducer(model, OneRank(), gradient_as_bucket_view=True)
    out = model(nl.randn(2, 3))
    reducer.prepare_for_backward(out)
    out.sum().backward()
    bucket = reducer.buckets[0]
    for p in model.parameters():
        assert np.shares_memory(p.grad._data, bucket.buffer)


def test_unused_parameter_error_is_pytorchs_at_the_next_forward():
    model = _model()
    reducer = Reducer(model, OneRank(), bucket_cap_mb=1e-5)
    out = model[0](nl.randn(2, 3)).sum()  # the last layer takes no part
    reducer.prepare_for_backward(out)
    out.backward()  # returns: nothing waits for the missing gradients
    with pytest.raises(RuntimeError) as info:
        reducer.prepare_for_backward(out)
    assert str(info.value) == (
        "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
        "that your module has parameters that were not used in producing loss. You can enable unused parameter "
        "detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate "
        "in calculating loss. \nIf you already have done the above, then the distributed data parallel module wasn't "
        "able to locate the output tensors in the return value of your module's `forward` function. Please include "
        "the loss function and the structure of the return value of `forward` of your module when reporting this "
        "issue (e.g. list, dict, iterable).\nParameters which did not receive grad for rank 0: 2.weight, 2.bias\n"
        "Parameter indices which did not receive grad for rank 0: 2 3"
    )
    # the explicit form finishes the reduction (the missing gradients count as zero)
    reducer.allreduce_remaining()
    reducer.prepare_for_backward(out)


def test_find_unused_parameters_marks_them_ready_and_keeps_none():
    model = _model()
    reducer = Reducer(model, OneRank(), bucket_cap_mb=1e-5, find_unused_parameters=True)
    for _ in range(2):
        out = model[0](nl.randn(2, 3)).sum()
        reducer.prepare_for_backward({"loss": [out]})  # outputs found inside containers
        assert reducer.unused == [2, 3]
        out.backward()
        assert (
            all(b.averaged(reducer.params) for b in reducer.buckets)
            and not reducer.require_finalize
        )
        assert model[2].weight.grad is None and model[0].weight.grad is not None


def test_parameter_used_outside_forward_with_find_unused_is_pytorchs_error():
    model = _model()
    reducer = Reducer(model, OneRank(), find_unused_parameters=True)
    out = model[0](nl.randn(2, 3)).sum()
    reducer.prepare_for_backward(out)
    with pytest.raises(RuntimeError) as info:
        (out + model[2].weight.sum()).backward()  # reaches a parameter the forward did not use
    text = str(info.value)
    assert text.startswith(
        "Expected to mark a variable ready only once. This error is caused by one of the "
        "following reasons: 1) Use of a module parameter outside the `forward` function."
    )
    assert (
        "\nParameter at index 2 with name 2.weight has been marked as ready twice. This means that multiple "
        "autograd engine  hooks have fired for this particular parameter during this iteration."
        in text
    )


def test_freezing_a_parameter_rebuilds_the_buckets():
    model = _model()
    reducer = Reducer(model, OneRank())
    assert len(reducer.params) == 4
    model[0].weight.requires_grad_(False)
    reducer.refresh()
    assert len(reducer.params) == 3 and sum(len(b.members) for b in reducer.buckets) == 3
    out = model(nl.randn(2, 3))
    reducer.prepare_for_backward(out)
    out.sum().backward()
    assert model[0].weight.grad is None and not reducer.require_finalize


def test_a_discarded_reducer_leaves_no_active_hooks():
    import gc

    model = _model()
    group = OneRank()
    reducer = Reducer(model, group)
    del reducer
    gc.collect()
    model(nl.randn(2, 3)).sum().backward()  # no hook left to call into a dead reducer
    assert group.started == []


# ---------------------------------------------------------------------------------------------
# timeouts


def test_timeout_argument_forms():
    assert timeout_seconds(None) == 1800.0
    assert timeout_seconds(timedelta(seconds=3)) == 3.0
    assert timeout_seconds(2) == 2.0 and timeout_seconds(0.5) == 0.5
    for bad in (0, -1, float("nan"), float("inf"), timedelta(0)):
        with pytest.raises(ValueError, match="timeout must be a positive, finite duration"):
            timeout_seconds(bad)
    for bad in ("3", True, [1]):
        with pytest.raises(
            TypeError, match="timeout must be a datetime.timedelta or a number of seconds"
        ):
            timeout_seconds(bad)


def test_wait_names_the_stuck_operation_after_the_timeout():
    class Comm:
        def Get_rank(self):
            return 1

        def Get_size(self):
            return 2

    group = Group(None, Comm(), timeout=0.05)
    with pytest.raises(
        DistBackendError, match=r"^\[rank 1\] allreduce of gradient bucket 2 timed out after 0.05 s"
    ):
        group.wait(_Never(), "allreduce of gradient bucket 2")
    assert issubclass(DistBackendError, RuntimeError)
    group.wait(_Done(), "never waits")


# ---------------------------------------------------------------------------------------------
# SyncBatchNorm


def test_sync_batchnorm_repr_checks_and_single_process_fallback():
    layer = SyncBatchNorm(4)
    assert (
        repr(layer)
        == "SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    )
    assert nl.nn.SyncBatchNorm is SyncBatchNorm and "SyncBatchNorm" in nl.nn.__all__
    with pytest.raises(ValueError, match=r"^expected at least 2D input \(got 1D input\)$"):
        layer(nl.randn(4))
    with pytest.raises(
        ValueError, match="^SyncBatchNorm number of input channels should be non-zero$"
    ):
        SyncBatchNorm(0)(nl.randn(2, 0))
    # outside an MPI job it is BatchNorm: the same outputs and running statistics
    nl.manual_seed(1)
    x = nl.randn(6, 4, 3, 3)
    plain = nl.nn.BatchNorm2d(4)
    np.testing.assert_array_equal(layer(x)._data, plain(x)._data)
    np.testing.assert_array_equal(layer.running_var._data, plain.running_var._data)
    assert int(layer.num_batches_tracked._data) == 1


def test_convert_sync_batchnorm_shares_parameters_and_buffers():
    net = nl.nn.Sequential(
        nl.nn.Conv2d(3, 4, 3), nl.nn.BatchNorm2d(4), nl.nn.Sequential(nl.nn.BatchNorm1d(5))
    )
    old = net[1]
    net.eval()
    converted = SyncBatchNorm.convert_sync_batchnorm(net, process_group="group")
    assert converted is net
    assert type(net[1]) is SyncBatchNorm and type(net[2][0]) is SyncBatchNorm
    assert net[1].weight is old.weight and net[1].bias is old.bias
    assert (
        net[1].running_mean is old.running_mean
        and net[1].num_batches_tracked is old.num_batches_tracked
    )
    assert not net[1].training and net[1].process_group == "group"
    assert [k for k in net.state_dict()] == [k for k in _state_keys()]
    single = SyncBatchNorm.convert_sync_batchnorm(nl.nn.BatchNorm1d(3, affine=False))
    assert type(single) is SyncBatchNorm and single.weight is None


def _state_keys():
    return (
        nl.nn.Sequential(
            nl.nn.Conv2d(3, 4, 3), nl.nn.BatchNorm2d(4), nl.nn.Sequential(nl.nn.BatchNorm1d(5))
        )
        .state_dict()
        .keys()
    )


def _sync_bn(x, w, b, running=(None, None)):
    return _SyncBatchNormFunction.apply(
        x,
        w,
        b,
        has_weight=True,
        has_bias=True,
        running=running,
        momentum=0.1,
        eps=1e-5,
        group=OneRank(),
    )


def test_sync_batchnorm_function_gradcheck_float64():
    rng = np.random.default_rng(0)
    x = nl.tensor(rng.standard_normal((4, 3, 2, 2)) * 2 + 1, requires_grad=True)
    w = nl.tensor(rng.standard_normal(3), requires_grad=True)
    b = nl.tensor(rng.standard_normal(3), requires_grad=True)
    assert nl.autograd.gradcheck(lambda x, w, b: _sync_bn(x, w, b), (x, w, b))


def test_sync_batchnorm_function_matches_pytorch_batchnorm():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x0 = (rng.standard_normal((6, 3, 4)) * 3 + 5).astype(np.float32)
    w0, b0, g0 = (
        rng.standard_normal(3).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
        rng.standard_normal((6, 3, 4)).astype(np.float32),
    )
    x, w, b = (nl.tensor(a, requires_grad=True) for a in (x0, w0, b0))
    rm, rv = nl.zeros(3), nl.ones(3)
    out = _sync_bn(x, w, b, running=(rm, rv))
    (out * nl.tensor(g0)).sum().backward()
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x0, w0, b0))
    trm, trv = torch.zeros(3), torch.ones(3)
    tout = torch.nn.functional.batch_norm(
        tx, trm, trv, tw, tb, training=True, momentum=0.1, eps=1e-5
    )
    (tout * torch.tensor(g0)).sum().backward()
    tol = dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out._data, tout.detach().numpy(), **tol)
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(ours.grad._data, theirs.grad.numpy(), **tol)
    np.testing.assert_allclose(rm._data, trm.numpy(), **tol)
    np.testing.assert_allclose(rv._data, trv.numpy(), **tol)
