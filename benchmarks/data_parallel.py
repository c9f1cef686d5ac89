"""DataParallel speed: the CIFAR-10 LeNet training step, plain and on 1 and 2 worker processes.

First the machine's real parallel capacity is measured: the same single-threaded numpy matmul
loop runs in one process alone, then in two processes at once; ``capacity = 2 * t_alone /
t_together`` is 2.0 on two free cores, about 1.0 when the two vCPUs share one physical core. That
capacity is the ideal speedup of two workers.

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

CONFIGS = {
    "plain-1": "plain, 1 thread",
    "plain-n": "plain, {n} threads",
    "dp-1": "DataParallel, 1 worker",
    "dp-2": "DataParallel, 2 workers",
}


# ---------------------------------------------------------------------------- parallel capacity


def _matmul_loop(seconds_hint, n=256, reps=None, ready=None, go=None, out=None):
    from threadpoolctl import threadpool_limits
    import numpy as np
    threadpool_limits(1)
    a = np.random.default_rng(0).random((n, n), dtype=np.float32)
    b = a.copy()
    a @ b
    if ready is not None:
        ready.set()
        go.wait()
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    elapsed = time.perf_counter() - t
    if out is not None:
        out.put(elapsed)
    return elapsed


def parallel_capacity(reps=400):
    """``2 * t_alone / t_together`` for a single-threaded matmul loop (2.0 = two free cores)."""
    import multiprocessing as mp
    ctx = mp.get_context("spawn")

    def run(k):
        q = ctx.Queue()
        ready = [ctx.Event() for _ in range(k)]
        go = ctx.Event()
        procs = [ctx.Process(target=_matmul_loop, args=(0,), kwargs=dict(reps=reps, ready=ready[i], go=go, out=q))
                 for i in range(k)]
        for p in procs:
            p.start()
        for r in ready:
            r.wait()
        t = time.perf_counter()
        go.set()
        for _ in procs:
            q.get()
        wall = time.perf_counter() - t
        for p in procs:
            p.join()
        return wall

    alone = min(run(1) for _ in range(3))
    together = min(run(2) for _ in range(3))
    return 2 * alone / together, alone, together


# ---------------------------------------------------------------------------- the training step


def child(config, batch):
    """Serve timing requests for one configuration: read a step count, answer with ms per step."""
    import numpy as np
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


def measure(batch, rounds, steps):
    procs = {}
    for config in CONFIGS:
        procs[config] = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", config, str(batch)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    times = {config: [] for config in CONFIGS}
    try:
        for config, p in procs.items():
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"{config} failed to start")
        order = list(CONFIGS)
        for r in range(rounds):
            for config in order[r % len(order):] + order[:r % len(order)]:
                p = procs[config]
                p.stdin.write(f"{steps}\n")
                p.stdin.flush()
                times[config] += json.loads(p.stdout.readline())
    finally:
        for p in procs.values():
            p.stdin.close()
        for p in procs.values():
            p.wait(60)
    import numpy as np
    return {config: float(np.median(t)) for config, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description="DataParallel speed on the CIFAR-10 LeNet training step")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return

    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"CPUs: {n}; load average before: {os.getloadavg()[0]:.2f}")
    capacity, alone, together = parallel_capacity()
    print(f"parallel capacity: one matmul loop alone {alone * 1000:.0f} ms, two at once {together * 1000:.0f} ms "
          f"-> ideal speedup of 2 workers = {capacity:.2f}x")
    print()
    print("| batch | configuration | ms/step | speedup vs plain 1 thread | % of ideal |")
    print("|---:|---|---:|---:|---:|")
    for batch in args.batches:
        ms = measure(batch, args.rounds, args.steps)
        base = ms["plain-1"]
        for config, label in CONFIGS.items():
            speedup = base / ms[config]
            ideal = capacity if config == "dp-2" else 1.0
            pct = f"{100 * speedup / ideal:.0f}%" if config.startswith("dp") else ""
            print(f"| {batch} | {label.format(n=n)} | {ms[config]:.1f} | {speedup:.2f}x | {pct} |")
    capacity_after, _, _ = parallel_capacity()
    print()
    print(f"parallel capacity measured again after the runs: {capacity_after:.2f}x; "
          f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
