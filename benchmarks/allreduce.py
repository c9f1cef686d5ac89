"""Cost of one MPI all-reduce of a model's gradients, for LeNet's and ResNet-18's sizes.

    python benchmarks/allreduce.py            # starts itself under mpirun -n 2
    python benchmarks/allreduce.py --ranks 4
    mpirun -n 2 python benchmarks/allreduce.py  # or launch it yourself (e.g. with a hostfile)

For each size it times (median over many repetitions, each rank's time, the slowest rank
reported):

* ``Allreduce``: one in-place ``MPI.SUM`` all-reduce of a float32 buffer of that many values;
* ``allreduce_gradients``: ``DistributedDataParallel.allreduce_gradients()`` on the real model,
  i.e. packing the ``.grad`` arrays into the fused buffer, the all-reduce, the division by the
  world size and the new ``.grad`` tensors.

Bandwidth is printed two ways: ``algbw`` = bytes of the buffer / time, and ``busbw`` =
algbw * 2 (n - 1) / n, the traffic each rank must move in a bandwidth-optimal all-reduce (the
convention of nccl-tests), comparable across rank counts.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# parameter counts, used when nnlite.models cannot be imported
FALLBACK_SIZES = {"LeNet": 62006, "ResNet-18": 11689512}


def _in_mpi_job():
    return any(
        v in os.environ
        for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")
    )


def launch(args, script=__file__):
    """Start ``script`` (this file by default) with the same arguments under mpirun -n args.ranks."""
    exe = shutil.which("mpirun") or shutil.which("mpiexec")
    if exe is None:
        sys.exit(
            "mpirun not found: install Open MPI (apt-get install openmpi-bin libopenmpi-dev) and "
            "pip install 'nnlite[mpi]'"
        )
    cmd = [exe, "-n", str(args.ranks)]
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version and (os.cpu_count() or 1) < args.ranks:
        cmd.append("--oversubscribe")
    cmd += [sys.executable, os.path.abspath(script)] + sys.argv[1:]
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env.setdefault(var, "1")
    print("$ " + " ".join(cmd), flush=True)
    sys.exit(subprocess.call(cmd, env=env))


def timed(comm, fn, repeats, warmup):
    """Per-repetition seconds of ``fn`` on this rank, each repetition started together."""
    for _ in range(warmup):
        fn()
    times = np.empty(repeats)
    for i in range(repeats):
        comm.Barrier()
        t0 = time.perf_counter()
        fn()
        times[i] = time.perf_counter() - t0
    return times


def worker(args):
    sys.path.insert(0, ROOT)
    import mpi4py
    from mpi4py import MPI

    import nnlite as nl
    from nnlite.nn.parallel.distributed import DistributedDataParallel

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    models = {}
    try:
        models = {"LeNet": nl.models.LeNet, "ResNet-18": nl.models.resnet18}
    except AttributeError:
        pass

    if rank == 0:
        print(
            f"{size} ranks on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
            "(other processes on the machine slow the numbers down)"
        )
        print(
            f"MPI: {MPI.Get_library_version().splitlines()[0].strip()}, mpi4py {mpi4py.__version__}"
        )
        print(
            f"{'model':<10} {'floats':>10} {'MB':>7} {'what':<20} {'median ms':>10} {'p10 ms':>8} "
            f"{'p90 ms':>8} {'algbw GB/s':>10} {'busbw GB/s':>10} {'reps':>5}"
        )

    def report(name, n, what, times):
        worst = np.empty(size)  # the slowest rank's median decides
        comm.Allgather(np.array([np.median(times)]), worst)
        if rank != 0:
            return
        med = worst.max()
        nbytes = 4 * n
        algbw = nbytes / med / 1e9
        busbw = algbw * 2 * (size - 1) / size
        print(
            f"{name:<10} {n:>10} {nbytes / 1e6:>7.2f} {what:<20} {med * 1e3:>10.3f} "
            f"{np.percentile(times, 10) * 1e3:>8.3f} {np.percentile(times, 90) * 1e3:>8.3f} "
            f"{algbw:>10.2f} {busbw:>10.2f} {len(times):>5}",
            flush=True,
        )

    for name in ("LeNet", "ResNet-18"):
        model = models[name]() if name in models else None
        n = (
            sum(p.numel() for p in model.parameters())
            if model is not None
            else FALLBACK_SIZES[name]
        )
        small = n < 1_000_000
        repeats = args.repeats or (1000 if small else 40)
        warmup = 20 if small else 3

        buf = np.full(n, float(rank + 1), dtype=np.float32)
        times = timed(
            comm, lambda buf=buf: comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM), repeats, warmup
        )
        report(name, n, "Allreduce", times)

        if model is not None:
            ddp = DistributedDataParallel(model)
            params = [p for p in model.parameters() if p.requires_grad]
            grads = [nl.Tensor(np.full(p.shape, 0.5, dtype=np.float32)) for p in params]

            def step(params=params, grads=grads, ddp=ddp):
                for p, g in zip(params, grads):
                    p.grad = g
                ddp.allreduce_gradients()

            times = timed(comm, step, repeats, warmup)
            report(name, n, "allreduce_gradients", times)
            assert all(float(p.grad._data.reshape(-1)[0]) == 0.5 for p in params)
    if rank == 0:
        print(f"load average at the end {os.getloadavg()[0]:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--ranks", type=int, default=2, help="processes to start when not already under mpirun"
    )
    parser.add_argument(
        "--repeats", type=int, default=0, help="repetitions per size (default 1000 small, 40 large)"
    )
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    if _in_mpi_job():
        worker(args)
    else:
        machine_facts.setup(args)
        launch(args)


if __name__ == "__main__":
    main()
