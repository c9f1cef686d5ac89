"""DataParallel speed: the CIFAR-10 LeNet training step, plain and on 1 and 2 worker processes.

The machine's real parallel capacity is measured alongside: the same single-threaded numpy
matmul loop runs in one process alone, then in two processes at once; ``capacity = 2 * t_alone /
t_together`` is 2.0 on two free cores, about 1.0 when the two vCPUs share one physical core. That
capacity is the ideal speedup of two workers; it is measured once per round, between the
configurations, because load from other programs changes it.

Then one training step (forward, cross-entropy, backward, SGD with momentum; random 3x32x32
images, batch 64 and 256) is timed for

* ``plain, 1 thread``: the module itself with ``nl.set_num_threads(1)`` -- the baseline;
* ``plain, N threads``: the module itself with all cores' threads (for reference);
* ``DataParallel, 1 worker``: one worker process with one thread (the machinery's overhead);
* ``DataParallel, 2 workers``: two worker processes with one thread each.

Each configuration runs in its own process; the rounds of all configurations are interleaved so
that load from other programs affects them alike, and the median step time is reported.

    python benchmarks/data_parallel.py [--rounds 7] [--steps 10] [--batches 64 256]
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)

CONFIGS = {
    "plain-1": "plain, 1 thread",
    "plain-n": "plain, {n} threads",
    "dp-1": "DataParallel, 1 worker",
    "dp-2": "DataParallel, 2 workers",
}


# ---------------------------------------------------------------------------- parallel capacity


def _matmul_server(conn, n=256):
    """Run the single-threaded matmul loop whenever asked; answer with its duration."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    a = np.random.default_rng(0).random((n, n), dtype=np.float32)
    a @ a
    conn.send("ready")
    while True:
        reps = conn.recv()
        if reps is None:
            return
        t = time.perf_counter()
        for _ in range(reps):
            a @ a
        conn.send(time.perf_counter() - t)


class Capacity:
    """Two single-threaded matmul servers; ``round()`` returns ``2 * t_alone / t_together``
    (2.0 = two free cores, about 1.0 = one physical core)."""

    def __init__(self, reps=300):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.reps = reps
        pipes = [ctx.Pipe() for _ in range(2)]
        self.procs = [ctx.Process(target=_matmul_server, args=(child,)) for _, child in pipes]
        for p in self.procs:
            p.start()
        self.conns = [parent for parent, _ in pipes]
        for c in self.conns:
            c.recv()
        self.count = 0

    def round(self):
        first = self.conns[self.count % 2]
        self.count += 1
        first.send(self.reps)
        alone = first.recv()
        t = time.perf_counter()
        for c in self.conns:
            c.send(self.reps)
        for c in self.conns:
            c.recv()
        return 2 * alone / (time.perf_counter() - t)

    def close(self):
        for c in self.conns:
            c.send(None)
        for p in self.procs:
            p.join()


# ---------------------------------------------------------------------------- the training step


def child(config, batch):
    """Serve timing requests for one configuration: read a step count, answer with ms per step."""
    import nnlite as nl
    from nnlite import nn
    from nnlite.models import LeNet

    nl.manual_seed(0)
    model = LeNet()
    if config == "plain-1":
        nl.set_num_threads(1)
        net = model
    elif config == "plain-n":
        net = model
    else:
        net = nn.DataParallel(model, workers=int(config[-1]), threads=1)
    opt = nl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = nl.randn(batch, 3, 32, 32)
    y = nl.randint(0, 10, (batch,))

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    print("ready", flush=True)
    for line in sys.stdin:
        steps = int(line)
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            step()
            times.append(time.perf_counter() - t)
        print(json.dumps([1000 * t for t in times]), flush=True)
    if isinstance(net, nn.DataParallel):
        net.close()


def measure(batch, rounds, steps, capacity):
    """Median ms/step per configuration, and the median parallel capacity measured between them."""
    import numpy as np

    procs = {}
    for config in CONFIGS:
        procs[config] = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--child", config, str(batch)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
    times = {config: [] for config in CONFIGS}
    ratios = []
    try:
        for config, p in procs.items():
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"{config} failed to start")
        order = list(CONFIGS)
        for r in range(rounds):
            ratios.append(capacity.round())
            for config in order[r % len(order) :] + order[: r % len(order)]:
                p = procs[config]
                p.stdin.write(f"{steps}\n")
                p.stdin.flush()
                times[config] += json.loads(p.stdout.readline())
    finally:
        for p in procs.values():
            p.stdin.close()
        for p in procs.values():
            p.wait(60)
    return {config: float(np.median(t)) for config, t in times.items()}, float(np.median(ratios))


def main():
    parser = argparse.ArgumentParser(
        description="DataParallel speed on the CIFAR-10 LeNet training step"
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    machine_facts.setup(args)

    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"CPUs: {n}; load average before: {os.getloadavg()[0]:.2f}")
    capacity = Capacity()
    rows = []
    try:
        for batch in args.batches:
            ms, ideal = measure(batch, args.rounds, args.steps, capacity)
            rows.append((batch, ms, ideal))
    finally:
        capacity.close()
    print()
    print("| batch | configuration | ms/step | speedup vs plain 1 thread | % of ideal |")
    print("|---:|---|---:|---:|---:|")
    for batch, ms, ideal in rows:
        base = ms["plain-1"]
        for config, label in CONFIGS.items():
            speedup = base / ms[config]
            target = ideal if config == "dp-2" else 1.0
            pct = f"{100 * speedup / target:.0f}%" if config.startswith("dp") else ""
            print(f"| {batch} | {label.format(n=n)} | {ms[config]:.1f} | {speedup:.2f}x | {pct} |")
    print()
    for batch, _, ideal in rows:
        print(
            f"batch {batch}: measured parallel capacity (ideal speedup of 2 workers) {ideal:.2f}x"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
