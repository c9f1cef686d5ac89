"""DataParallel: splitting, gathering, gradients, optimizer steps and checkpoints match the plain module.

Faults and clean-up are in ``test_data_parallel_faults.py``.
"""

import copy
import os

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import functional as F
from nnlite.nn.parallel.data_parallel import chunk_sizes

# float32 rounding: sums over different chunkings differ in the last bits
RTOL, ATOL = 1e-5, 1e-6


def segments(pid=None):
    pid = os.getpid() if pid is None else pid
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(f"nldp_{pid}_"))


class MLP(nn.Module):
    def __init__(self, d_in=5, hidden=16, d_out=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class SeedModel(nn.Module):
    """dp.py's model: prints what each replica sees."""

    def __init__(self, input_size, output_size):
        super().__init__()
        self.fc = nn.Linear(input_size, output_size)

    def forward(self, input):
        output = self.fc(input)
        print("\tIn Model: input size", input.size(), "output size", output.size())
        return output


class TwoHeads(nn.Module):
    """Several outputs in a nested structure, keyword and non-tensor arguments, an unused parameter."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 6)
        self.head_a = nn.Linear(6, 2)
        self.head_b = nn.Linear(6, 3)
        self.unused = nn.Linear(3, 3)

    def forward(self, x, extra=None, *, scale=1.0, mode="sum", pair=(None, None)):
        h = F.relu(self.body(x)) * scale
        a = self.head_a(h)
        b = self.head_b(h)
        if extra is not None:
            b = b + extra
        if mode == "sum":
            b = b * 2
        weight, _ = pair
        if weight is not None:
            a = a * weight
        return a, {"b": b, "none": None, "label": mode}


class ModeProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)
        self.inner = nn.Linear(1, 1)

    def forward(self, x):
        flag = nl.full((x.shape[0], 2), float(self.training) + 2 * float(self.inner.training))
        return self.fc(x) * 0 + flag


class BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        return self.out(F.relu(self.bn(self.fc(x))))


def _grads(model):
    return {
        n: None if p.grad is None else p.grad.numpy().copy() for n, p in model.named_parameters()
    }


def _assert_grads_equal(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if a[k] is None or b[k] is None:
            assert a[k] is None and b[k] is None, k
        else:
            np.testing.assert_allclose(a[k], b[k], rtol=RTOL, atol=ATOL, err_msg=k)


@pytest.fixture
def no_leftovers():
    before = segments()
    yield
    import multiprocessing

    assert multiprocessing.active_children() == []
    assert segments() == before


# ---------------------------------------------------------------------------- splitting


def test_chunk_sizes_follow_chunk():
    assert chunk_sizes(30, 4) == [8, 8, 8, 6]
    assert chunk_sizes(10, 4) == [3, 3, 3, 1]
    assert chunk_sizes(5, 4) == [2, 2, 1]
    assert chunk_sizes(3, 4) == [1, 1, 1]
    assert chunk_sizes(1, 2) == [1]
    assert chunk_sizes(64, 2) == [32, 32]
    for n in range(1, 40):
        for k in range(1, 6):
            sizes = chunk_sizes(n, k)
            assert sum(sizes) == n and len(sizes) <= k
            assert sizes == [
                len(c) for c in np.array_split(np.arange(n), range(-(-n // k), n, -(-n // k)))
            ]


def test_seed_dp_script_output(capsys, no_leftovers):
    nl.manual_seed(0)
    model = SeedModel(5, 2)
    data = nl.randn(100, 5)
    with nn.DataParallel(model, workers=4) as dp:
        for start in range(0, 100, 30):
            input = data[start : start + 30]
            output = dp(input)
            print("Outside: input size", input.size(), "output_size", output.size())
    lines = capsys.readouterr().out.splitlines()
    replica = "\tIn Model: input size nnlite.Size([{0}, 5]) output size nnlite.Size([{0}, 2])"
    outside = "Outside: input size nnlite.Size([{0}, 5]) output_size nnlite.Size([{0}, 2])"
    expected = []
    for sizes, total in (([8, 8, 8, 6], 30),) * 3 + (([3, 3, 3, 1], 10),):
        expected += [replica.format(s) for s in sizes] + [outside.format(total)]
    assert lines == expected


def test_small_batch_uses_fewer_workers(capsys):
    with nn.DataParallel(SeedModel(5, 2), workers=4) as dp:
        out = dp(nl.randn(2, 5))
        assert out.shape == (2, 2)
        assert len(dp.pids) == 4
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines == ["\tIn Model: input size nnlite.Size([1, 5]) output size nnlite.Size([1, 2])"] * 2
    )


# ---------------------------------------------------------------------------- equivalence


@pytest.mark.parametrize("workers", [2, 3])
def test_outputs_loss_and_gradients_match_plain_module(workers, no_leftovers):
    nl.manual_seed(1)
    plain = MLP()
    wrapped = copy.deepcopy(plain)
    x, y = nl.randn(30, 5), nl.randint(0, 3, (30,))
    loss_fn = nn.CrossEntropyLoss()

    ref_out = plain(x)
    ref_loss = loss_fn(ref_out, y)
    ref_loss.backward()

    with nn.DataParallel(wrapped, workers=workers) as dp:
        out = dp(x)
        assert out.grad_fn.name() == "GatherBackward"
        loss = loss_fn(out, y)
        loss.backward()
        np.testing.assert_allclose(
            out.detach().numpy(), ref_out.detach().numpy(), rtol=RTOL, atol=ATOL
        )
        np.testing.assert_allclose(loss.item(), ref_loss.item(), rtol=RTOL)
        _assert_grads_equal(_grads(wrapped), _grads(plain))
        # gradients accumulate across backward calls, as for the plain module
        loss_fn(dp(x), y).backward()
        loss_fn(plain(x), y).backward()
        _assert_grads_equal(_grads(wrapped), _grads(plain))


def test_twenty_sgd_steps_stay_together(no_leftovers):
    nl.manual_seed(2)
    plain = MLP(8, 32, 4)
    wrapped = copy.deepcopy(plain)
    opt_plain = nl.optim.SGD(plain.parameters(), lr=0.1, momentum=0.9)
    dp = nn.DataParallel(wrapped, workers=2)
    opt_dp = nl.optim.SGD(dp.parameters(), lr=0.1, momentum=0.9)  # the wrapped module's parameters
    loss_fn = nn.CrossEntropyLoss()
    try:
        for _ in range(20):
            x, y = nl.randn(25, 8), nl.randint(0, 4, (25,))
            for model, opt in ((plain, opt_plain), (dp, opt_dp)):
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
        for (name, p), q in zip(plain.named_parameters(), wrapped.parameters()):
            np.testing.assert_allclose(
                q.detach().numpy(), p.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=name
            )
        with nl.no_grad():
            np.testing.assert_allclose(dp(x).numpy(), plain(x).numpy(), rtol=1e-4, atol=1e-5)
    finally:
        dp.close()


def test_several_outputs_kwargs_and_non_tensor_arguments():
    nl.manual_seed(3)
    plain = TwoHeads()
    wrapped = copy.deepcopy(plain)
    x, extra, w = nl.randn(9, 4), nl.randn(9, 3), nl.randn(9, 2)

    def run(model):
        a, d = model(x, extra, scale=0.5, mode="sum", pair=(w, None))
        (a.sum() + (d["b"] ** 2).mean()).backward()
        return a, d

    a_ref, d_ref = run(plain)
    with nn.DataParallel(wrapped, workers=2) as dp:
        a, d = run(dp)
    assert set(d) == {"b", "none", "label"}
    assert d["none"] is None
    assert d["label"] == ["sum", "sum"]  # a non-tensor output: one value per replica
    np.testing.assert_allclose(a.detach().numpy(), a_ref.detach().numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(
        d["b"].detach().numpy(), d_ref["b"].detach().numpy(), rtol=RTOL, atol=ATOL
    )
    grads = _grads(wrapped)
    assert grads["unused.weight"] is None and grads["unused.bias"] is None
    _assert_grads_equal(grads, _grads(plain))


def test_input_gradient_and_frozen_parameters():
    nl.manual_seed(4)
    plain = MLP()
    plain.fc1.requires_grad_(False)
    wrapped = copy.deepcopy(plain)
    x0 = nl.randn(11, 5)
    x_ref, x_dp = x0.clone().requires_grad_(), x0.clone().requires_grad_()
    (plain(x_ref) ** 2).sum().backward()
    with nn.DataParallel(wrapped, workers=3) as dp:
        (dp(x_dp) ** 2).sum().backward()
        grads = _grads(wrapped)
        assert grads["fc1.weight"] is None and grads["fc1.bias"] is None
        _assert_grads_equal(grads, _grads(plain))
        np.testing.assert_allclose(x_dp.grad.numpy(), x_ref.grad.numpy(), rtol=RTOL, atol=ATOL)
        # unfreezing after the workers started reaches them
        wrapped.fc1.requires_grad_(True)
        plain.fc1.requires_grad_(True)
        plain.zero_grad()
        wrapped.zero_grad()
        (plain(x0) ** 2).sum().backward()
        (dp(x0) ** 2).sum().backward()
        _assert_grads_equal(_grads(wrapped), _grads(plain))


class FeaturesFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):  # x: (features, batch)
        return self.fc(x.t()).t()


def test_dim_one_split_and_gather():
    plain = FeaturesFirst()
    x = nl.randn(3, 10)
    with nn.DataParallel(copy.deepcopy(plain), dim=1, workers=2) as dp:
        out = dp(x)
    assert out.shape == (3, 10)
    np.testing.assert_allclose(
        out.detach().numpy(), plain(x).detach().numpy(), rtol=RTOL, atol=ATOL
    )


def test_no_grad_forward_builds_no_graph():
    plain = MLP()
    x = nl.randn(7, 5)
    with nn.DataParallel(copy.deepcopy(plain), workers=2) as dp:
        with nl.no_grad():
            out = dp(x)
        assert out.grad_fn is None and not out.requires_grad
        np.testing.assert_allclose(out.numpy(), plain(x).detach().numpy(), rtol=RTOL, atol=ATOL)


def test_retain_graph_and_second_backward():
    plain = MLP()
    wrapped = copy.deepcopy(plain)
    x = nl.randn(6, 5)
    with nn.DataParallel(wrapped, workers=2) as dp:
        out = dp(x).sum()
        out.backward(retain_graph=True)
        out.backward()
        ref = plain(x).sum()
        ref.backward(retain_graph=True)
        ref.backward()
        _assert_grads_equal(_grads(wrapped), _grads(plain))
        with pytest.raises(
            RuntimeError, match="Trying to backward through the graph a second time"
        ):
            out.backward()


def test_pending_graphs_backward_in_any_order():
    plain = MLP()
    wrapped = copy.deepcopy(plain)
    x1, x2 = nl.randn(6, 5), nl.randn(8, 5)
    with nn.DataParallel(wrapped, workers=2) as dp:
        o1, o2 = dp(x1), dp(x2)
        (o2.sum() * 3).backward()
        (o1**2).sum().backward()
    (plain(x2).sum() * 3).backward()
    (plain(x1) ** 2).sum().backward()
    _assert_grads_equal(_grads(wrapped), _grads(plain))


def test_parameter_changed_between_forward_and_backward_raises():
    model = MLP()
    with nn.DataParallel(model, workers=2) as dp:
        loss = dp(nl.randn(4, 5)).sum()
        with nl.no_grad():
            model.fc1.weight.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


def test_optimizer_updates_reach_workers_without_copy():
    model = MLP()
    with nn.DataParallel(model, workers=2) as dp:
        dp(nl.randn(4, 5))
        pool = dp._runtime.pool
        views = [id(v) for v in pool.param_views]
        assert [
            id(p._data) for p in model.parameters()
        ] == views  # parameters live in shared memory
        opt = nl.optim.SGD(model.parameters(), lr=1.0)
        dp(nl.randn(4, 5)).sum().backward()
        opt.step()
        assert [id(p._data) for p in model.parameters()] == views
        x = nl.randn(6, 5)
        with nl.no_grad():
            np.testing.assert_allclose(dp(x).numpy(), model(x).numpy(), rtol=RTOL, atol=ATOL)
        # a parameter given a new array is copied back into shared memory at the next call
        model.fc2.weight.data = nl.zeros(3, 16)
        with nl.no_grad():
            np.testing.assert_allclose(dp(x).numpy(), model(x).numpy(), rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------- modes, buffers, checkpoints


def test_train_and_eval_reach_the_workers():
    with nn.DataParallel(ModeProbe(), workers=2) as dp:
        x = nl.randn(4, 2)
        assert dp(x).detach().numpy().max() == 3.0
        dp.eval()
        assert dp(x).detach().numpy().max() == 0.0
        dp.train()
        dp.module.inner.eval()
        assert dp(x).detach().numpy().max() == 1.0


def test_batchnorm_uses_per_replica_statistics_and_keeps_replica_zero_buffers():
    nl.manual_seed(5)
    model = BNNet()
    reference = copy.deepcopy(model)
    x = nl.randn(12, 4)
    with nn.DataParallel(model, workers=2) as dp:
        out = dp(x)
        out.sum().backward()
        assert out.shape == (12, 2)
        assert all(p.grad is not None for p in model.parameters())
        # outputs use each replica's batch statistics: the halves normalised separately
        expected = nl.cat([reference(x[:6]), reference_copy_forward(reference, x[6:])])
        np.testing.assert_allclose(
            out.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5
        )
        # running statistics: replica 0's update (from the first chunk) is kept
        np.testing.assert_allclose(
            model.bn.running_mean.numpy(), reference.bn.running_mean.numpy(), rtol=1e-5
        )
        np.testing.assert_allclose(
            model.bn.running_var.numpy(), reference.bn.running_var.numpy(), rtol=1e-5
        )
        assert int(model.bn.num_batches_tracked.item()) == 1
        dp(x)
        assert int(model.bn.num_batches_tracked.item()) == 2
        # eval mode uses the running statistics: outputs equal the plain module's
        dp.eval()
        with nl.no_grad():
            np.testing.assert_allclose(dp(x).numpy(), model(x).numpy(), rtol=RTOL, atol=ATOL)
        # buffers changed in the parent reach the workers
        model.bn.reset_running_stats()
        with nl.no_grad():
            np.testing.assert_allclose(dp(x).numpy(), model(x).numpy(), rtol=RTOL, atol=ATOL)


def reference_copy_forward(model, x):
    """A forward that does not touch ``model``'s running statistics."""
    return copy.deepcopy(model)(x)


def test_state_dict_has_module_prefix_and_checkpoints_round_trip(tmp_path):
    nl.manual_seed(6)
    model = BNNet()
    dp = nn.DataParallel(model, workers=2)
    assert dp.module is model
    plain_keys = list(model.state_dict())
    assert list(dp.state_dict()) == ["module." + k for k in plain_keys]
    with dp:
        opt = nl.optim.SGD(dp.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            dp(nl.randn(10, 4)).pow(2).mean().backward()
            opt.step()
        path = tmp_path / "ckpt.npz"
        nl.save(dp.state_dict(), path)
    # parallel checkpoint -> plain model
    state = nl.load(path)
    plain = BNNet()
    plain.load_state_dict({k[len("module.") :]: v for k, v in state.items()})
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(plain.state_dict()[k].numpy(), v.numpy())
    # plain checkpoint -> parallel model, loaded while its workers run
    fresh = nn.DataParallel(BNNet(), workers=2)
    with fresh:
        fresh(nl.randn(4, 4))
        fresh.load_state_dict({"module." + k: v for k, v in plain.state_dict().items()})
        fresh.eval()
        plain.eval()
        x = nl.randn(5, 4)
        with nl.no_grad():
            np.testing.assert_allclose(fresh(x).numpy(), plain(x).numpy(), rtol=RTOL, atol=ATOL)
    with pytest.raises(RuntimeError, match="Missing key"):
        fresh.load_state_dict(plain.state_dict())


def test_module_replaced_after_start_restarts_workers():
    model = MLP()
    with nn.DataParallel(model, workers=2) as dp:
        dp(nl.randn(4, 5))
        first = dp.pids
        model.fc2 = nn.Linear(16, 7)  # finetuning: a new head
        out = dp(nl.randn(4, 5))
        assert out.shape == (4, 7)
        assert dp.pids and dp.pids != first
        with nl.no_grad():
            x = nl.randn(3, 5)
            np.testing.assert_allclose(dp(x).numpy(), model(x).numpy(), rtol=RTOL, atol=ATOL)


def test_repr_and_arguments():
    dp = nn.DataParallel(MLP(), workers=2)
    assert repr(dp) == (
        "DataParallel(\n  (module): MLP(\n"
        "    (fc1): Linear(in_features=5, out_features=16, bias=True)\n"
        "    (fc2): Linear(in_features=16, out_features=3, bias=True)\n  )\n)"
    )
    assert nn.DataParallel(MLP(), device_ids=[0, 1, 2]).workers == 3
    with pytest.raises(RuntimeError, match="CPU only"):
        nn.DataParallel(MLP(), device_ids=["cuda:0"])
    with pytest.raises(TypeError):
        nn.DataParallel(lambda x: x)
    with pytest.raises(ValueError, match="0-dimensional"):
        dp(nl.tensor(1.0))
    direct = nn.DataParallel(MLP(), workers=0)  # no processes: the module itself runs
    assert direct(nl.randn(2, 5)).shape == (2, 3) and direct.pids == []


def test_lenet_matches_plain_module_over_sgd_steps(no_leftovers):
    from nnlite.models import LeNet

    nl.manual_seed(7)
    plain = LeNet()
    wrapped = copy.deepcopy(plain)
    loss_fn = nn.CrossEntropyLoss()
    batches = [(nl.randn(16, 3, 32, 32), nl.randint(0, 10, (16,))) for _ in range(20)]
    dp = nn.DataParallel(wrapped, workers=2)
    opt_dp = nl.optim.SGD(dp.parameters(), lr=0.05, momentum=0.9)
    first = None
    try:
        for i, (x, y) in enumerate(batches):
            opt_dp.zero_grad()
            loss = loss_fn(dp(x), y)
            loss.backward()
            if i == 0:
                first = loss.item(), _grads(wrapped)
            opt_dp.step()
        with nl.no_grad():
            final_dp = dp(batches[0][0]).numpy()
    finally:
        dp.close()
    # the plain run comes second: it starts numba's thread pool in this process
    opt = nl.optim.SGD(plain.parameters(), lr=0.05, momentum=0.9)
    for i, (x, y) in enumerate(batches):
        opt.zero_grad()
        loss = loss_fn(plain(x), y)
        loss.backward()
        if i == 0:
            np.testing.assert_allclose(first[0], loss.item(), rtol=RTOL)
            _assert_grads_equal(first[1], _grads(plain))
        opt.step()
    for (name, p), q in zip(plain.named_parameters(), wrapped.parameters()):
        np.testing.assert_allclose(
            q.detach().numpy(), p.detach().numpy(), rtol=1e-3, atol=1e-5, err_msg=name
        )
    with nl.no_grad():
        np.testing.assert_allclose(final_dp, plain(batches[0][0]).numpy(), rtol=1e-3, atol=1e-4)


class ScalarLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x).pow(2).mean()


def test_scalar_outputs_are_gathered_into_a_vector():
    model = ScalarLoss()
    x = nl.randn(8, 3)
    with nn.DataParallel(copy.deepcopy(model), workers=2) as dp:
        with pytest.warns(UserWarning, match="all input tensors were scalars"):
            out = dp(x)
        assert out.shape == (2,)
        out.sum().backward()
        expected = [model(x[:4]), model(x[4:])]
        np.testing.assert_allclose(out.detach().numpy(), [e.item() for e in expected], rtol=RTOL)
        (expected[0] + expected[1]).backward()
        _assert_grads_equal(_grads(dp.module), _grads(model))


def test_dtype_change_after_start():
    model = MLP()
    with nn.DataParallel(model, workers=2) as dp:
        dp(nl.randn(3, 5))
        dp.double()
        x = nl.randn(3, 5, dtype=nl.float64)
        out = dp(x)
        assert out.dtype == nl.float64
        np.testing.assert_allclose(out.detach().numpy(), model(x).detach().numpy(), rtol=1e-12)


def test_example_script_reproduces_the_seed():
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(nl.__file__)))
    result = subprocess.run(
        [sys.executable, os.path.join(root, "examples", "data_parallel.py"), "--workers", "4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Let's use 4 worker processes!"
    replica = "\tIn Model: input size nnlite.Size([{0}, 5]) output size nnlite.Size([{0}, 2])"
    outside = "Outside: input size nnlite.Size([{0}, 5]) output_size nnlite.Size([{0}, 2])"
    expected = []
    for sizes, total in (([8, 8, 8, 6], 30),) * 3 + (([3, 3, 3, 1], 10),):
        expected += [replica.format(s) for s in sizes] + [outside.format(total)]
    assert lines[1:] == expected


def test_many_pending_graphs_and_views_that_outlive_close():
    plain = nn.Sequential(nn.Linear(100, 10))
    wrapped = copy.deepcopy(plain)
    x = [nl.randn(1000, 100) for _ in range(5)]
    dp = nn.DataParallel(wrapped, workers=2)
    outs = [dp(xi) for xi in x]  # the workers keep five graphs; their input memory grows meanwhile
    sum(((o * (i + 1)) ** 2).mean() for i, o in enumerate(outs)).backward()
    sum(((plain(xi) * (i + 1)) ** 2).mean() for i, xi in enumerate(x)).backward()
    _assert_grads_equal(_grads(wrapped), _grads(plain))
    state = dp.state_dict()  # tensors sharing the parameters' memory
    alias = wrapped[0].weight.detach()
    dp.close()
    np.testing.assert_array_equal(
        state["module.0.weight"].numpy(), plain[0].weight.detach().numpy()
    )
    np.testing.assert_array_equal(alias.numpy(), plain[0].weight.detach().numpy())


class ThreadProbe(nn.Module):
    """Reports the thread counts its process uses (BLAS, numba) and its pid."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)

    def forward(self, x):
        import numba
        from threadpoolctl import threadpool_info

        blas = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
        row = [max(blas) if blas else -1, numba.get_num_threads(), os.getpid()]
        return self.fc(x) * 0 + nl.tensor([row] * x.shape[0], dtype=nl.float64)


def test_workers_pin_their_thread_pools():
    cpus = len(os.sched_getaffinity(0))
    with nn.DataParallel(ThreadProbe(), workers=2) as dp:
        rows = dp(nl.zeros(4, 1)).detach().numpy()
        threads = max(1, cpus // 2)
        assert dp.threads == threads
        assert set(rows[:, 0]) <= {threads, -1.0} and set(rows[:, 1]) == {threads}
        assert set(rows[:, 2].astype(int)) == set(dp.pids)
    with nn.DataParallel(ThreadProbe(), workers=2, threads=1) as dp:
        rows = dp(nl.zeros(4, 1)).detach().numpy()
        assert set(rows[:, 1]) == {1}
