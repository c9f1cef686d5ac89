"""ResNet-18 training step under DistributedDataParallel: gradient all-reduces overlapped with
backward versus one all-reduce after backward, and an estimate for more machines.

    python benchmarks/ddp_step.py                 # starts itself under mpirun -n 2, one thread per rank
    python benchmarks/ddp_step.py --steps 6 --batch 64
    mpirun -n 2 python benchmarks/ddp_step.py     # or launch it yourself

nnlite.models.resnet18 (10 classes) on CIFAR-shaped random input (batch ``--batch`` per rank).
Three kinds of step are timed, interleaved (one of each per round, so that drift on a shared
machine hits all three alike), medians over the rounds, the slowest rank reported:

* ``local``: forward + backward inside ``no_sync()`` + SGD step: no communication at all;
* ``after``: the same backward, then one ``allreduce_gradients()`` of all 11.2 M gradients
  (a single bucket): communication strictly after backward;
* ``overlap``: the default: buckets (25 MiB, first 1 MiB) all-reduced while backward runs.

"Communication hidden" = 1 - (exposed communication in ``overlap``) / (exposed communication in
``after``), where exposed communication is the time from the moment the last rank finishes its
backward computation to the moment the gradients are averaged on every rank (``time.monotonic``
is one clock for all processes of a machine, so waiting for a slower rank does not count).

The scaling table is a calculation, not a measurement: a ring all-reduce of the gradient bytes S
over n machines moves 2 (n - 1) / n * S through each machine's link, at 10 Gbit/s, plus the same
bytes through memory at the all-reduce bandwidth measured here, plus 2 (n - 1) latency steps of
50 us; each machine runs one rank with the compute time measured here (one thread). Without
overlap the step is compute + all-reduce; with overlap only the last bucket's all-reduce (the
gradients backward produces last) remains after backward, as long as the rest fits in backward.
"""

import argparse
import os
import sys
import time

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)
import numpy as np
from allreduce import _in_mpi_job, launch  # the mpirun launcher of the all-reduce benchmark

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK_BYTES_PER_S = 10e9 / 8  # 10 Gbit/s
LATENCY_S = 50e-6  # per ring step, TCP on a local network (assumption)
MACHINES = (2, 4, 8, 16)


def ring_seconds(n, nbytes, memory_bytes_per_s):
    traffic = 2 * (n - 1) / n * nbytes
    return traffic / LINK_BYTES_PER_S + traffic / memory_bytes_per_s + 2 * (n - 1) * LATENCY_S


def worker(args):
    sys.path.insert(0, ROOT)
    from mpi4py import MPI

    import nnlite as nl
    from nnlite.nn.parallel.distributed import DistributedDataParallel

    nl.set_num_threads(1)
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    nl.manual_seed(0)
    model = nl.models.resnet18(num_classes=10)
    overlap = DistributedDataParallel(model)  # default buckets
    after = DistributedDataParallel(model, bucket_cap_mb=10**6)  # one bucket, reduced explicitly
    opt = nl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nl.nn.CrossEntropyLoss()
    rng = np.random.default_rng(rank)
    x = nl.tensor(rng.standard_normal((args.batch, 3, 32, 32)).astype(np.float32))
    y = nl.tensor(rng.integers(0, 10, args.batch))
    n_params = sum(p.numel() for p in model.parameters())
    last_bucket_bytes = 4 * overlap.reducer.buckets[-1].numel

    stamps = []
    finalize = overlap.reducer._finalize

    def timed_finalize():  # the wait at the end of backward for the outstanding all-reduces
        t0 = time.monotonic()
        finalize()
        stamps.append((t0, time.monotonic()))

    overlap.reducer._finalize = timed_finalize

    def step(kind):
        comm.Barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        if kind == "overlap":
            loss = criterion(overlap(x), y)
            t1 = time.perf_counter()
            loss.backward()
        else:
            with after.no_sync():  # forward and backward: no_sync must cover the forward
                loss = criterion(after(x), y)
                t1 = time.perf_counter()
                loss.backward()
        t2 = time.perf_counter()
        c0 = time.monotonic()
        if kind == "after":
            after.allreduce_gradients()
        c1 = time.monotonic()
        t3 = time.perf_counter()
        opt.step()
        t4 = time.perf_counter()
        comm_stamps = stamps[-1] if kind == "overlap" else (c0, c1)
        # exposed communication: from the last rank's end of backward computation to the last rank's end
        starts_ends = comm.allgather(comm_stamps)
        exposed = max(e for _, e in starts_ends) - max(b for b, _ in starts_ends)
        return {
            "step": t4 - t0,
            "forward": t1 - t0,
            "backward": t2 - t1,
            "allreduce": t3 - t2,
            "exposed": exposed if kind != "local" else 0.0,
        }

    kinds = ("local", "after", "overlap")
    for kind in kinds:  # warm-up: numba kernels, first-touch memory
        step(kind)
    times = {k: [] for k in kinds}
    for _ in range(args.steps):
        for kind in kinds:
            times[kind].append(step(kind))

    def slowest(values):
        return max(comm.allgather(float(np.median(values))))

    ms = {
        k: {
            key: slowest([t[key] for t in times[k]]) * 1e3
            for key in ("step", "forward", "backward", "allreduce", "exposed")
        }
        for k in kinds
    }
    # the all-reduce of a buffer of the gradients' size alone, for its bandwidth
    buf = np.ones(n_params, dtype=np.float32)
    alone = []
    for _ in range(max(args.steps, 5)):
        comm.Barrier()
        t0 = time.perf_counter()
        comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
        alone.append(time.perf_counter() - t0)
    alone_s = slowest(alone)
    if rank == 0:
        report(args, size, n_params, len(overlap.reducer.buckets), last_bucket_bytes, ms, alone_s)


def report(args, size, n_params, buckets, last_bucket_bytes, ms, alone_s):
    grad_bytes = 4 * n_params
    print(
        f"ResNet-18, {n_params:,} parameters ({grad_bytes / 1e6:.1f} MB of float32 gradients, {buckets} buckets), "
        f"batch {args.batch} per rank, {size} ranks x 1 thread, median of {args.steps} rounds, slowest rank"
    )
    print(
        f"{'step':10s} {'total ms':>9s} {'forward':>9s} {'backward':>9s} {'all-reduce after':>17s} "
        f"{'exposed comm':>13s}"
    )
    for kind in ("local", "after", "overlap"):
        m = ms[kind]
        extra = f"{m['allreduce']:17.0f}" if kind == "after" else f"{'-':>17s}"
        print(
            f"{kind:10s} {m['step']:9.0f} {m['forward']:9.0f} {m['backward']:9.0f} {extra} {m['exposed']:13.0f}"
        )
    total_comm, exposed = ms["after"]["exposed"], ms["overlap"]["exposed"]
    hidden = 1 - exposed / total_comm if total_comm > 0 else float("nan")
    print(
        f"exposed communication: {exposed:.0f} ms with overlap vs {total_comm:.0f} ms with one all-reduce after "
        f"backward: {100 * hidden:.0f}% of the communication hidden"
    )
    print(
        f"step time: overlap {ms['overlap']['step']:.0f} ms vs one all-reduce after backward "
        f"{ms['after']['step']:.0f} ms vs no communication {ms['local']['step']:.0f} ms"
    )
    memory_bw = 2 * (size - 1) / size * grad_bytes / alone_s
    print(
        f"Allreduce of {grad_bytes / 1e6:.1f} MB alone: {alone_s * 1e3:.1f} ms (bus bandwidth "
        f"{memory_bw / 1e9:.2f} GB/s on this machine)"
    )
    compute = ms["local"]["step"] / 1e3
    backward = ms["local"]["backward"] / 1e3
    print()
    print(
        "CALCULATED, not measured: ring all-reduce on 10 Gbit/s, one rank per machine with the compute time above"
    )
    print(
        f"{'machines':>8s} {'all-reduce ms':>14s} {'step, after ms':>15s} {'step, overlap ms':>17s} "
        f"{'images/s (overlap)':>19s}"
    )
    for n in MACHINES:
        comm_s = ring_seconds(n, grad_bytes, memory_bw)
        last_s = ring_seconds(n, last_bucket_bytes, memory_bw)
        exposed = max(last_s, comm_s - backward)
        print(
            f"{n:8d} {comm_s * 1e3:14.0f} {(compute + comm_s) * 1e3:15.0f} {(compute + exposed) * 1e3:17.0f} "
            f"{n * args.batch / (compute + exposed):19.0f}"
        )


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--ranks", type=int, default=2, help="ranks to start when not under mpirun (default 2)"
    )
    parser.add_argument("--steps", type=int, default=4, help="timed rounds (default 4)")
    parser.add_argument("--batch", type=int, default=64, help="samples per rank (default 64)")
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    if not _in_mpi_job():
        machine_facts.setup(args)
        launch(args, __file__)
    worker(args)


if __name__ == "__main__":
    main()
