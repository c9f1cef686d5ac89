"""The three ways of starting ranks, each with 2 and 3 ranks, running the same checks
(scripts/_body.py): every collective against what the ranks sent, DistributedDataParallel's
gradients against the full batch's in one process, a few SGD steps with identical weights on all
ranks and a falling loss. Then a rank that raises, ranks that hang, and the launcher's arguments
and exit status.

Skipped, with the reason, when mpirun or mpi4py is missing or cannot start two ranks.
"""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import nnlite as nl

pytestmark = pytest.mark.serial  # MPI jobs of 2-3 ranks: they need the machine to themselves

HERE = Path(__file__).resolve().parent
SCRIPTS = HERE / "scripts"
ROOT = HERE.parents[1]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# launching helpers shared with DistributedDataParallel's MPI tests (skip reasons, process groups)
jobs = _load("ddp_mpi_jobs", ROOT / "tests" / "nn" / "parallel" / "test_distributed.py")
body = _load("distributed_body", SCRIPTS / "_body.py")

LAUNCH_SECONDS = 120
MPIRUN_BACKENDS = {2: "mpi", 3: "gloo"}


def launcher(n, script, *args, launcher_args=()):
    """``python -m nnlite.distributed.run --nproc-per-node=n script args``: (code, out, err, s)."""
    jobs.require_mpi()
    cmd = [sys.executable, "-m", "nnlite.distributed.run", f"--nproc-per-node={n}"]
    cmd += list(launcher_args) + [str(SCRIPTS / script)] + [str(a) for a in args]
    return jobs.run_group(cmd, LAUNCH_SECONDS, cwd=str(SCRIPTS))


def mpirun(n, script, *args):
    prefix = jobs.require_mpi()
    cmd = prefix + ["-n", str(n), sys.executable, str(SCRIPTS / script)] + [str(a) for a in args]
    return jobs.run_group(cmd, LAUNCH_SECONDS, cwd=str(SCRIPTS))


def spawn(*args):
    jobs.require_mpi()
    cmd = [sys.executable, str(SCRIPTS / "spawn_style.py")] + [str(a) for a in args]
    return jobs.run_group(cmd, LAUNCH_SECONDS, cwd=str(SCRIPTS))


def started(code, out, err, expected=0):
    assert code == expected, (
        f"exit status {code}, expected {expected}\nstdout:\n{out}\nstderr:\n{err}"
    )


@pytest.fixture(scope="module")
def launches(tmp_path_factory):
    """Each (path, ranks) runs once per module; tests read what its ranks saved."""
    cache = {}

    def get(path, n):
        if (path, n) not in cache:
            out = tmp_path_factory.mktemp(f"{path}_{n}")
            if path == "launcher":
                # the script's arguments and its exit status pass through the launcher
                started(
                    *launcher(
                        n, "torchrun_style.py", out, 3, launcher_args=["--master_port=29517"]
                    )[:3],
                    expected=3,
                )
            elif path == "mpirun":  # both backend names: they mean the same MPI engine
                started(*mpirun(n, "mpirun_style.py", out, MPIRUN_BACKENDS[n])[:3])
            else:
                started(*spawn(out, n)[:3])
            ranks = []
            for r in range(n):
                with np.load(out / f"rank{r}.npz") as f:
                    arrays = {k: f[k] for k in f.files}
                ranks.append((arrays, json.loads((out / f"rank{r}.json").read_text())))
            cache[(path, n)] = ranks
        return cache[(path, n)]

    return get


PATHS = [(p, n) for p in ("launcher", "spawn", "mpirun") for n in (2, 3)]


@pytest.mark.parametrize("path,n", PATHS)
def test_every_collective_gives_what_the_ranks_sent(launches, path, n):
    ranks = launches(path, n)
    total = n * (n + 1) / 2  # sum of rank + 1
    for r, (a, o) in enumerate(ranks):
        assert (o["rank"], o["world_size"]) == (r, n)
        np.testing.assert_array_equal(a["all_reduce_sum"], [total, 2 * total])
        np.testing.assert_allclose(a["all_reduce_AVG"], [np.mean(np.arange(n) + 2.0)])
        np.testing.assert_array_equal(a["all_reduce_MAX"], [n + 1.0])
        np.testing.assert_array_equal(a["all_reduce_MIN"], [2.0])
        np.testing.assert_array_equal(a["all_reduce_PRODUCT"], [np.prod(np.arange(n) + 2.0)])
        assert a["all_reduce_int"].dtype == np.int64
        np.testing.assert_array_equal(
            a["all_reduce_int"], [n * (n - 1) // 2, 10 * n * (n - 1) // 2]
        )
        np.testing.assert_array_equal(a["all_reduce_bool"], [True, False])  # SUM of bools: any
        if r == n - 1:
            np.testing.assert_array_equal(a["reduce"], [n * (n - 1) / 2])
        np.testing.assert_array_equal(a["broadcast"], [1.0, 1.0, 1.0])  # rank 1's
        expected_rows = np.repeat(np.arange(n, dtype=np.float32)[:, None], 2, axis=1)
        np.testing.assert_array_equal(a["all_gather"], expected_rows)
        np.testing.assert_array_equal(a["all_gather_into_tensor"], expected_rows.reshape(-1))
        np.testing.assert_array_equal(a["all_gather_into_tensor_stacked"], expected_rows)
        if r == 0:
            np.testing.assert_array_equal(a["gather"], np.arange(n) * 3.0)
        np.testing.assert_array_equal(a["scatter"], [10.0 * r, 10.0 * r + 1])
        # rank r receives the sum over ranks q of (10 q + r)
        np.testing.assert_array_equal(a["reduce_scatter"], [10 * n * (n - 1) / 2 + n * r] * 2)
        left = (r - 1) % n
        np.testing.assert_array_equal(a["recv"], [100.0 * left])
        assert o["recv_from"] == left
        np.testing.assert_array_equal(a["irecv"], [7.0 + left])
        assert o["async_wait"] is True and o["async_completed"] is True
        np.testing.assert_array_equal(a["async"], [n, n])
        in_pair = r in (0, n - 1)
        assert (o["pair_rank"], o["pair_size"]) == (
            (0 if r == 0 else 1, 2) if in_pair else (-1, -1)
        )
        if in_pair:
            np.testing.assert_array_equal(a["pair_all_reduce"], [1.0 + n])
        else:  # outside the group the collective does nothing
            np.testing.assert_array_equal(a["pair_all_reduce"], [r + 1.0])
        assert o["all_gather_object"] == [{"rank": q, "name": f"r{q}"} for q in range(n)]
        assert o["broadcast_object_list"] == [{"lr": 0.5}, "from-zero", [1, 2]]
        assert o["second_init"] == "trying to initialize the default process group twice!"
        assert o["sampler"] == [n, r]  # DistributedSampler took the initialized group


def full_batch_reference():
    """One process, the whole batch: rank 0's initial model (DDP broadcasts it)."""
    x, y = body.make_data()
    model = body.make_model(seed=0)
    loss_fn = nl.nn.MSELoss()
    loss_fn(model(nl.tensor(x)), nl.tensor(y)).backward()
    grads = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}
    optimizer = nl.optim.SGD(model.parameters(), lr=body.LR)
    losses = []
    for _ in range(body.SGD_STEPS):
        optimizer.zero_grad()
        loss = loss_fn(model(nl.tensor(x)), nl.tensor(y))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    weights = {name: p.detach().numpy().copy() for name, p in model.named_parameters()}
    return grads, weights, losses


@pytest.mark.parametrize("path,n", PATHS)
def test_ddp_gradients_equal_the_full_batch_and_training_stays_in_step(launches, path, n):
    ranks = launches(path, n)
    grads, weights, losses = full_batch_reference()
    for a, o in ranks:
        for name, g in grads.items():
            # float32: the ranks average shard means, one process takes the mean of the batch
            np.testing.assert_allclose(a[f"grad.{name}"], g, rtol=1e-5, atol=1e-6)
        for name, w in weights.items():
            np.testing.assert_allclose(a[f"weight.{name}"], w, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(a[f"weight.{name}"], ranks[0][0][f"weight.{name}"])
        assert all(later < earlier for earlier, later in zip(o["losses"], o["losses"][1:]))
    for r, (a, _) in enumerate(ranks):  # averaged over ranks 0 and n - 1 only: ((1) + (n)) / 2
        if r in (0, n - 1):
            np.testing.assert_array_equal(a["pair_ddp_grad"], [[(1 + n) / 2] * 2])
        else:
            assert "pair_ddp_grad" not in a
    # equal shards: the mean of the ranks' shard losses is the full batch's loss
    np.testing.assert_allclose(np.mean([o["losses"] for _, o in ranks], axis=0), losses, rtol=1e-5)


@pytest.mark.parametrize("n", [2, 3])
def test_launcher_sets_torchruns_variables_and_passes_arguments(launches, n):
    for r, (_, o) in enumerate(launches("launcher", n)):
        assert o["env"] == {
            "RANK": str(r),
            "LOCAL_RANK": str(r),
            "WORLD_SIZE": str(n),
            "LOCAL_WORLD_SIZE": str(n),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": "29517",
        }
        assert o["argv"][1:] == ["3"] and o["backend"] == "gloo"


@pytest.mark.parametrize(
    "path,n,backend",
    [("launcher", 2, "gloo"), ("spawn", 3, "gloo"), ("mpirun", 2, "mpi"), ("mpirun", 3, "gloo")],
)
def test_backend_is_what_the_script_asked_for(launches, path, n, backend):
    assert {o["backend"] for _, o in launches(path, n)} == {backend}


def test_a_rank_and_world_size_that_differ_from_the_jobs_are_an_error():
    code, out, err, _ = launcher(2, "faulty.py", "wrong-rank")
    assert code != 0
    assert "init_process_group: rank is 0 but MPI started this process as rank 1 of 2" in err


def test_a_rank_that_raises_ends_the_job_with_its_traceback():
    code, out, err, seconds = launcher(2, "faulty.py", "raise")
    assert code != 0
    assert "ValueError: rank 1 cannot go on" in err and "Traceback" in err
    assert "[rank 1]" in err
    assert seconds < 60  # rank 0 waits in an all_reduce with the default 30-minute timeout


def test_a_rank_that_raises_under_spawn_is_raised_in_the_parent(tmp_path):
    code, out, err, seconds = spawn(tmp_path, 2, 1)
    assert code != 0
    assert "ProcessRaisedException" in err
    assert "-- Process 1 terminated with the following error:" in err
    assert "RuntimeError: rank 1 fails on purpose" in err
    assert seconds < 60


@pytest.mark.parametrize(
    "mode,message",
    [
        ("hang-before-init", "[rank 0] init_process_group timed out after 2 s"),
        ("hang-in-collective", "all_reduce timed out after 2.0 s"),
    ],
)
def test_a_rank_that_hangs_makes_the_others_time_out(mode, message):
    code, out, err, seconds = launcher(2, "faulty.py", mode)
    assert code != 0
    assert message in err, err
    assert seconds < 60  # the sleeping rank would take 120 s
