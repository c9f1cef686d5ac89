"""DistributedDataParallel on MPI: the scripts in mpi_scripts/ run under ``mpirun -n 2`` and
``-n 3`` (an uneven split: the batch is padded as DistributedSampler pads it) and save what they
computed; the tests compare that with a single process computing the same thing here.

Skipped, with the reason, when mpirun or mpi4py is missing or cannot start two ranks.
"""

import importlib.util
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import nnlite as nl

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = Path(__file__).resolve().parent / "mpi_scripts"


def _load_common():
    spec = importlib.util.spec_from_file_location("ddp_mpi_common", SCRIPTS / "_common.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


common = _load_common()


# ---------------------------------------------------------------------------------------------
# launching


def mpi_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    # Open MPI refuses to run as root without these; harmless otherwise
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    # one thread per rank: the ranks share the machine's cores
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env[var] = "1"
    return env


def run_group(cmd, timeout, cwd=None, env=None):
    """Run ``cmd`` in its own process group (``env``: extra variables); on timeout kill the whole
    group (mpirun and its ranks) and fail. Returns (returncode, stdout, stderr, seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=dict(mpi_env(), **(env or {})),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(
            f"{' '.join(map(str, cmd))} did not finish within {timeout} s (hung)\n"
            f"stdout:\n{out}\nstderr:\n{err}"
        )
    return proc.returncode, out, err, time.perf_counter() - t0


@cache
def _launcher():
    """(mpirun command prefix, None) or (None, reason to skip)."""
    exe = shutil.which("mpirun") or shutil.which("mpiexec")
    if exe is None:
        return None, (
            "mpirun not found: install Open MPI from the system's packages "
            "(apt-get install openmpi-bin libopenmpi-dev)"
        )
    if importlib.util.find_spec("mpi4py") is None:
        return None, "mpi4py is not installed: pip install 'nnlite[mpi]'"
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as ex:
        return None, f"{exe} --version failed: {ex}"
    prefix = [exe]
    if (
        "Open MPI" in version.stdout + version.stderr
        or "OpenRTE" in version.stdout + version.stderr
    ):
        prefix.append("--oversubscribe")  # more ranks than cores (3 ranks on 2 cores)
    probe = prefix + [
        "-n",
        "2",
        sys.executable,
        "-c",
        "from mpi4py import MPI; assert MPI.COMM_WORLD.Get_size() == 2",
    ]
    try:
        done = subprocess.run(probe, env=mpi_env(), capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "mpirun -n 2 with mpi4py did not start within 60 s"
    if done.returncode != 0:
        return (
            None,
            f"mpirun -n 2 with mpi4py fails here: {(done.stderr or done.stdout).strip()[-500:]}",
        )
    return prefix, None


def require_mpi():
    """The mpirun command prefix; skips the test (with the reason) when MPI cannot run here."""
    prefix, reason = _launcher()
    if prefix is None:
        pytest.skip(reason)
    return prefix


# "tcp": only the TCP transport between ranks (--mca btl self,tcp), the path separate machines use
TRANSPORTS = {"shm": [], "tcp": ["--mca", "btl", "self,tcp"]}


def mpirun(n, script, *args, timeout=90, check=True, transport="shm"):
    prefix = require_mpi()
    cmd = (
        prefix
        + TRANSPORTS[transport]
        + ["-n", str(n), sys.executable, str(SCRIPTS / script)]
        + [str(a) for a in args]
    )
    code, out, err, seconds = run_group(cmd, timeout)
    if check and code != 0:
        raise AssertionError(
            f"{script} under mpirun -n {n} exited with {code}\nstdout:\n{out}\nstderr:\n{err}"
        )
    return code, out, err, seconds


def load_ranks(folder, n):
    ranks = []
    for r in range(n):
        with np.load(Path(folder) / f"rank{r}.npz") as f:
            ranks.append({k: f[k] for k in f.files})
    return ranks


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Each (script, ranks) runs once per module; tests read its saved arrays."""
    cache = {}

    def get(script, n, *args, transport="shm"):
        key = (script, n, transport) + args
        if key not in cache:
            out = tmp_path_factory.mktemp(f"{Path(script).stem}_{n}_{transport}")
            mpirun(n, script, out, *args, transport=transport)
            cache[key] = out
        return cache[key]

    return get


# ---------------------------------------------------------------------------------------------
# single-process references


def reference_model(seed, with_unused=True):
    nl.manual_seed(seed)
    return common.TinyNet(with_unused)


def reference_gradients(n_samples, world_size):
    model = reference_model(100)
    x, y = common.make_data(n_samples)
    idx = common.padded_indices(n_samples, world_size)
    common.loss_fn(model(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
    return model, {name: p.grad._data for name, p in model.named_parameters() if p.grad is not None}


def reference_sgd(world_size):
    model = reference_model(100, with_unused=False)
    opt = nl.optim.SGD(model.parameters(), **common.SGD_KW)
    x, y, batches = common.sgd_batches()
    for batch in batches:
        idx = batch[common.padded_indices(len(batch), world_size)]
        opt.zero_grad()
        common.loss_fn(model(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
        opt.step()
    return {name: p._data for name, p in model.named_parameters()}


# float32 rounding: the ranks sum shard means, one process takes the mean of the whole batch
GRAD_TOL = dict(rtol=1e-5, atol=1e-6)
# after several steps the rounding differences carry over (measured here: up to 1.2e-7)
STEP_TOL = dict(rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# without MPI (always run)


def test_import_never_loads_mpi_and_missing_mpi4py_is_a_clear_error():
    code = r"""
import sys
import nnlite, nnlite.nn, nnlite.optim, nnlite.data
import nnlite.nn.parallel.distributed as dist
assert "mpi4py" not in sys.modules, "importing nnlite loaded mpi4py"
sys.modules["mpi4py"] = None          # as if mpi4py were not installed
from nnlite.nn.modules.module import Module
for call in (lambda: dist.DistributedDataParallel(Module()), dist.abort_on_exception):
    try:
        call()
    except ImportError as ex:
        text = str(ex)
        assert "pip install 'nnlite[mpi]'" in text and "apt-get install openmpi-bin libopenmpi-dev" in text, text
        assert "mpirun" in text
    else:
        raise AssertionError("no ImportError without mpi4py")
print("clear error")
"""
    done = subprocess.run(
        [sys.executable, "-c", code], env=mpi_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "clear error" in done.stdout


def test_module_exports():
    import nnlite.nn.parallel.distributed as dist

    assert dist.__all__ == ["DistributedDataParallel", "abort_on_exception"]
    assert issubclass(dist.DistributedDataParallel, nl.nn.Module)


# ---------------------------------------------------------------------------------------------
# gradients of one step


# every launch runs under 2 and 3 ranks (3: an uneven split, padded as DistributedSampler pads),
# over the default transports and over TCP only
RANKS_AND_TRANSPORTS = [(2, "shm"), (3, "shm"), (2, "tcp"), (3, "tcp")]


@pytest.mark.parametrize("n,transport", RANKS_AND_TRANSPORTS)
def test_backward_averages_gradients_to_the_single_process_gradient(results, n, transport):
    n_samples = 10  # 3 ranks: padded to 12, 4 per rank
    ranks = load_ranks(results("grad_step.py", n, n_samples, transport=transport), n)
    model, expected = reference_gradients(n_samples, n)

    # the shards cover the padded batch
    assert sorted(np.concatenate([r["shard"] for r in ranks]).tolist()) == sorted(
        common.padded_indices(n_samples, n).tolist()
    )

    for name, ref in expected.items():
        for rank, r in enumerate(ranks):
            np.testing.assert_allclose(
                r["grad_net." + name], ref, **GRAD_TOL, err_msg=f"gradient of {name} on rank {rank}"
            )
            # the same bits on every rank
            assert r["grad_net." + name].tobytes() == ranks[0]["grad_net." + name].tobytes(), name
        # no_sync() kept the local gradients local: they differ between ranks and are not the average
        assert not np.array_equal(ranks[0]["local_net." + name], ranks[1]["local_net." + name])
        assert not np.allclose(ranks[0]["local_net." + name], ref, **GRAD_TOL)
        # and the average is their mean
        np.testing.assert_allclose(
            np.mean([r["local_net." + name] for r in ranks], axis=0), ref, **GRAD_TOL
        )


@pytest.mark.parametrize("n", [2, 3])
def test_broadcast_at_construction_gives_rank0_state(results, n):
    ranks = load_ranks(results("grad_step.py", n, 10), n)
    model = reference_model(100)  # rank 0 was seeded with 100, the others differently
    for name, p in model.named_parameters():
        for r in ranks:
            assert r["init_net." + name].tobytes() == p._data.tobytes(), name
    for r in ranks:
        assert (r["init_running"] == 1.0).all()  # rank 0's buffer value


@pytest.mark.parametrize("n", [2, 3])
def test_missing_and_frozen_gradients(results, n):
    ranks = load_ranks(results("grad_step.py", n, 10), n)
    for rank, r in enumerate(ranks):
        # frozen and unused parameters: no gradient anywhere, before or after
        for name in ("net.scale", "net.unused"):
            assert "local_" + name not in r and "grad_" + name not in r
        # used on rank 0 only (find_unused_parameters=True): the others count as zero, the
        # average is rank 0's gradient / n
        assert ("local_rank0_only" in r) == (rank == 0)
        np.testing.assert_array_equal(r["grad_rank0_only"], np.arange(1, 6, dtype=np.float32) / n)


# ---------------------------------------------------------------------------------------------
# training steps


@pytest.mark.parametrize("n,transport", RANKS_AND_TRANSPORTS)
def test_sgd_steps_keep_ranks_identical_and_match_single_process(results, n, transport):
    ranks = load_ranks(results("sgd_steps.py", n, transport=transport), n)
    # bit-identical after every step (the script also compared them through MPI)
    for r in ranks:
        assert r["digests"].tolist() == ranks[0]["digests"].tolist()
        assert len(r["digests"]) == common.SGD_STEPS
    for name in common.TRAINABLE + ("scale",):
        for r in ranks:
            assert r[name].tobytes() == ranks[0][name].tobytes(), name
    expected = reference_sgd(n)
    for name, ref in expected.items():
        np.testing.assert_allclose(ranks[0][name], ref, **STEP_TOL, err_msg=name)
    # the frozen parameter did not move, the others did
    start = reference_model(100)
    assert ranks[0]["scale"].tobytes() == start.scale._data.tobytes()
    assert not np.allclose(ranks[0]["w1"], start.w1._data)


@pytest.mark.parametrize("n", [2, 3])
def test_explicit_allreduce_gradients_after_backward_never_averages_twice(results, n):
    plain = load_ranks(results("sgd_steps.py", n), n)
    explicit = load_ranks(results("sgd_steps.py", n, "explicit"), n)
    assert explicit[0]["digests"].tolist() == plain[0]["digests"].tolist()


@pytest.mark.parametrize("n", [2, 3])
def test_lenet_gradients_and_steps_match_single_process(results, n):
    require_mpi()
    x, y, batches = common.lenet_data()
    nl.manual_seed(200)
    model = nl.models.LeNet()
    opt = nl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nl.nn.CrossEntropyLoss()
    grads = None
    for batch in batches:  # first here: the ranks then find numba's kernels compiled and cached
        idx = batch[common.padded_indices(len(batch), n)]
        opt.zero_grad()
        criterion(model(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
        if grads is None:
            grads = {name: p.grad._data.copy() for name, p in model.named_parameters()}
        opt.step()
    ranks = load_ranks(results("lenet_steps.py", n), n)
    for name, p in model.named_parameters():
        for r in ranks:
            assert r["param_" + name].tobytes() == ranks[0]["param_" + name].tobytes(), name
        np.testing.assert_allclose(ranks[0]["grad_" + name], grads[name], **GRAD_TOL, err_msg=name)
        np.testing.assert_allclose(ranks[0]["param_" + name], p._data, **STEP_TOL, err_msg=name)


# ---------------------------------------------------------------------------------------------
# no_sync, SyncBatchNorm, unused parameters


@pytest.mark.parametrize("n,transport", RANKS_AND_TRANSPORTS)
def test_no_sync_accumulation_equals_the_large_batch_gradient(results, n, transport):
    ranks = load_ranks(results("accumulate.py", n, transport=transport), n)
    x, y, batches = common.no_sync_batches()
    model = reference_model(100, with_unused=False)
    for batch in batches:  # one process: the gradients of the micro-batches' mean losses, summed
        common.loss_fn(model(nl.tensor(x[batch])), nl.tensor(y[batch])).backward()
    local = reference_model(100, with_unused=False)
    for batch in batches[:-1]:  # rank 0 inside no_sync: its own shards only
        idx = batch[common.shard(len(batch), 0, n)]
        common.loss_fn(local(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
    for name, p in model.named_parameters():
        if p.grad is None:
            continue
        np.testing.assert_allclose(
            ranks[0]["local_" + name],
            local.get_parameter(name).grad._data,
            **GRAD_TOL,
            err_msg=f"{name}: no_sync must not average",
        )
        for r in ranks:
            np.testing.assert_allclose(r["grad_" + name], p.grad._data, **GRAD_TOL, err_msg=name)
            assert r["grad_" + name].tobytes() == ranks[0]["grad_" + name].tobytes(), name


def reference_batchnorm_run(n):
    """BNNet with plain BatchNorm2d on the whole batch of each step, in one process."""
    nl.manual_seed(300)
    model = common.BNNet()
    opt = nl.optim.SGD(model.parameters(), lr=0.1)
    x, y, batches = common.bn_data()
    outs, grads = [], None
    for batch in batches:
        opt.zero_grad()
        out = model(nl.tensor(x[batch]))
        outs.append(out._data.copy())
        common.loss_fn(out, nl.tensor(y[batch])).backward()
        if grads is None:
            grads = {name: p.grad._data.copy() for name, p in model.named_parameters()}
        opt.step()
    model.eval()
    with nl.no_grad():
        eval_out = model(nl.tensor(x[:4]))._data
    return model, outs, grads, eval_out


@pytest.mark.parametrize("n,transport", RANKS_AND_TRANSPORTS)
def test_sync_batchnorm_equals_batchnorm_on_the_global_batch(results, n, transport):
    ranks = load_ranks(results("sync_bn.py", n, transport=transport), n)
    model, outs, grads, eval_out = reference_batchnorm_run(n)
    tol = dict(rtol=2e-5, atol=2e-6)
    for step, out in enumerate(outs):  # forward: each rank's rows of the global batch's output
        for r in ranks:
            rows = r[f"idx{step}"] - step * common.BN_BATCH
            np.testing.assert_allclose(
                r[f"out{step}"], out[rows], **tol, err_msg=f"output of step {step}"
            )
    for name, ref in grads.items():  # backward through the synchronised statistics
        for r in ranks:
            np.testing.assert_allclose(r["grad_" + name], ref, **tol, err_msg=f"gradient of {name}")
            assert r["grad_" + name].tobytes() == ranks[0]["grad_" + name].tobytes(), name
    for name, p in model.named_parameters():
        np.testing.assert_allclose(ranks[0]["param_" + name], p._data, **tol, err_msg=name)
    for name, b in model.named_buffers():  # running statistics of the global batch
        for r in ranks:
            np.testing.assert_allclose(r["buffer_" + name], b._data, **tol, err_msg=name)
    for r in ranks:
        np.testing.assert_allclose(r["eval_out"], eval_out, **tol)


@pytest.mark.parametrize("n,transport", [(2, "shm"), (3, "shm"), (2, "tcp")])
def test_unused_parameter_without_find_unused_parameters_is_pytorchs_error(n, transport):
    code, out, err, seconds = mpirun(n, "unused.py", "error", transport=transport, timeout=90)
    assert sorted(re.findall(r"unused error ok (\d+)", out)) == [str(r) for r in range(n)], (
        out + err
    )


@pytest.mark.parametrize("n", [2, 3])
def test_unused_parameter_with_find_unused_parameters_trains(n):
    code, out, err, seconds = mpirun(n, "unused.py", "find", timeout=90)
    assert sorted(re.findall(r"unused find ok (\d+)", out)) == [str(r) for r in range(n)], out + err


@pytest.mark.parametrize("n,transport", [(2, "shm"), (3, "shm"), (2, "tcp")])
def test_a_rank_sleeping_past_the_timeout_ends_the_job(n, transport):
    code, out, err, seconds = mpirun(
        n, "timeout.py", 2, transport=transport, timeout=120, check=False
    )
    assert code != 0
    assert "allreduce of gradient bucket 0 timed out after 2.0 s" in err, err
    assert "uncaught exception; aborting the MPI job" in err
    assert "passed the backward" not in out
    assert seconds < 45, f"the job took {seconds:.1f} s to end (the sleeping rank sleeps 60 s)"


# ---------------------------------------------------------------------------------------------
# the sampler under MPI


def _torch_shards(n, world, kwargs, epoch):
    """PyTorch's shards, or None without PyTorch (the oracle is optional)."""
    try:
        from torch.utils.data import DistributedSampler as TorchSampler
    except ImportError:
        return None
    out = []
    for rank in range(world):
        s = TorchSampler(range(n), num_replicas=world, rank=rank, **kwargs)
        s.set_epoch(epoch)
        out.append(list(s))
    return out


@pytest.mark.parametrize("n", [2, 3])
def test_distributed_sampler_shards_disjointly_and_covers(results, n):
    from nnlite.data import DistributedSampler

    data = json.loads((results("sampler_shards.py", n) / "shards.json").read_text())
    assert data["world_size"] == n
    for name, (length, kwargs, epoch) in data["settings"].items():
        shards = data["shards"][name]
        assert len(shards) == n
        lengths = {len(s) for s in shards}
        assert len(lengths) == 1, f"{name}: ranks got different numbers of samples {lengths}"
        per_rank = lengths.pop()
        everything = [i for s in shards for i in s]
        if kwargs.get("drop_last"):
            assert per_rank == length // n, name
            assert len(set(everything)) == len(everything), f"{name}: shards overlap"
        else:
            total = math.ceil(length / n) * n
            assert per_rank == total // n, name
            assert set(everything) == set(range(length)), f"{name}: not every sample is seen"
            # interleave back: the padding repeats the head of the (shuffled) order, as PyTorch
            order = [shards[i % n][i // n] for i in range(total)]
            assert sorted(order[:length]) == list(range(length)), (
                f"{name}: a sample is seen twice before padding"
            )
            assert order[length:] == (order[:length] * n)[: total - length], f"{name}: padding"
        # the defaults from MPI give what explicit num_replicas/rank give
        for rank in range(n):
            s = DistributedSampler(range(length), num_replicas=n, rank=rank, **kwargs)
            s.set_epoch(epoch)
            assert list(s) == shards[rank], f"{name}, rank {rank}"
        if not kwargs.get("shuffle", True):
            torch_shards = _torch_shards(length, n, kwargs, epoch)
            assert torch_shards is None or shards == torch_shards, f"{name}: differs from PyTorch"
    # a new epoch, a new order
    assert data["shards"]["shuffle_100_e0"] != data["shards"]["shuffle_100_e5"]


# ---------------------------------------------------------------------------------------------
# failures end the job


@pytest.mark.parametrize("mode,failing", [("ddp", 1), ("ddp", 0), ("helper", 1)])
def test_failing_rank_ends_the_job(mode, failing):
    code, out, err, seconds = mpirun(2, "raise_on_rank.py", mode, failing, timeout=60, check=False)
    assert code != 0
    assert seconds < 20, f"the job took {seconds:.1f} s to end"
    assert f"ValueError: deliberate failure on rank {failing}" in err
    assert f"[rank {failing}] uncaught exception; aborting the MPI job" in err
    assert "passed the collective" not in out


# ---------------------------------------------------------------------------------------------
# the rest of the API


@pytest.mark.parametrize("n", [1, 2, 3])
def test_api_under_mpi(n):
    code, out, err, _ = mpirun(n, "api.py")
    # the ranks' output lines may interleave
    assert sorted(re.findall(r"api ok (\d+)", out)) == [str(r) for r in range(n)], out + err
