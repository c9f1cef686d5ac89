"""nnlite on its default thread count against one thread, each in its own process, in turn.

What a user who sets nothing gets: the default is ``OMP_NUM_THREADS`` or all usable CPUs. Each
round starts a fresh process per setting, which times ``--steps`` training steps after a
warm-up; the rounds alternate the settings, so all see the same machine. Settings: ``default``
(nothing set), a number (``nl.set_num_threads(n)``), ``numba-first`` (the program starts numba's
pool with ``numba.set_num_threads`` before importing nnlite). Prints per setting the median
ms/step and CPU ms/step, and each setting's ratio to the last one (below 1: faster).
``--load N`` runs N busy loops meanwhile (a busy machine).

Workloads:

- ``mlp``: Linear 784-256, ReLU, Linear 256-10, Adam lr 1e-3, on 1x28x28 inputs (an MLP on
  Fashion-MNIST, data in memory);
- ``lenet``: the CIFAR-10 tutorial's LeNet, SGD with momentum;
- ``resnet18``: torchvision-layout ResNet-18 on 3x32x32, SGD with momentum.

Usage:
    python benchmarks/threads_default.py [--workload mlp|lenet|resnet18] [--batch 64]
                                         [--rounds 5] [--steps 50] [--load 0]
                                         [--settings default 1]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import machine_facts  # noqa: E402


def mlp_runner(batch):
    from lenet_step import N_BATCHES, Runner

    import nnlite as nl
    from nnlite import nn, optim

    nl.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    rng = np.random.default_rng(0)
    batches = [
        (
            nl.from_numpy(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)),
            nl.from_numpy(rng.integers(0, 10, batch).astype(np.int64)),
        )
        for _ in range(N_BATCHES)
    ]
    return Runner(
        model,
        initial,
        lambda: optim.Adam(model.parameters(), lr=1e-3),
        nn.CrossEntropyLoss(),
        batches,
    )


def make_runner(workload, batch):
    if workload == "mlp":
        return mlp_runner(batch)
    if workload == "lenet":
        from lenet_step import nnlite_runner

        return nnlite_runner(batch)[0]
    from resnet_step import nnlite_runner

    return nnlite_runner(batch, "train")[0]


def child(args):
    """Time ``args.steps`` steps in this process; print one JSON line."""
    if args.child == "numba-first":
        import numba

        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # starts numba's pool
    import nnlite as nl

    if args.child.isdigit():
        nl.set_num_threads(int(args.child))
    runner = make_runner(args.workload, args.batch)
    for _ in range(max(3, args.steps // 5)):
        runner.step()
    times = []
    cpu0 = time.process_time()
    for _ in range(args.steps):
        t0 = time.perf_counter()
        runner.step()
        times.append(time.perf_counter() - t0)
    cpu = (time.process_time() - cpu0) / args.steps
    print(
        json.dumps(
            {
                "ms": 1000 * float(np.median(times)),
                "cpu_ms": 1000 * cpu,
                "threads": nl.get_num_threads(),
            }
        )
    )


def run_child(args, setting):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", setting]
    cmd += ["--workload", args.workload, "--batch", str(args.batch), "--steps", str(args.steps)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=["mlp", "lenet", "resnet18"], default="mlp")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--settings", nargs="+", default=["default", "1"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    machine_facts.add_load_option(parser)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    machine_facts.setup(args)
    results = {s: [] for s in args.settings}
    for _ in range(args.rounds):
        for setting in args.settings:
            results[setting].append(run_child(args, setting))
    print(f"{args.workload}, batch {args.batch}: ms/step, median of {args.rounds} processes")
    for setting in args.settings:
        rows = results[setting]
        print(
            f"  {setting:>7} ({rows[0]['threads']} threads): "
            f"{np.median([r['ms'] for r in rows]):8.2f} ms, "
            f"CPU {np.median([r['cpu_ms'] for r in rows]):8.2f} ms/step"
        )
    last = args.settings[-1]
    for setting in args.settings[:-1]:
        ratios = [a["ms"] / b["ms"] for a, b in zip(results[setting], results[last])]
        print(
            f"  {setting} / {last}: median {np.median(ratios):.2f}x "
            f"(rounds {' '.join(f'{r:.2f}' for r in ratios)})"
        )
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
