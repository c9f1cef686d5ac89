"""Where a ResNet-18 training step spends its time, per kernel family, on 1 and on N threads.

For each family (conv forward, conv input gradient, conv weight gradient, batch norm, pooling,
the optimizer's update, and the rest: autograd, elementwise numpy, small products) prints the
ms per step on 1 thread and on ``--threads`` threads, the parallel efficiency ``t1 / (N * tN)``, and an
Amdahl ESTIMATE of the speedup on 8 and 16 cores: the rest stays serial, each family keeps the
efficiency measured here. Times are summed from cProfile's cumulative time of the kernels' entry
points over ``--steps`` steps (a profile slows the Python parts a little, so the serial share is
overstated, never understated). Each thread count runs in a fresh process.

Usage:
    python benchmarks/thread_scaling.py [--batch 128] [--threads 2] [--steps 4] [--load 0]
"""

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import machine_facts  # noqa: E402

# family: (file name ending, function names) of the kernels' entry points
FAMILIES = {
    "conv forward": ("kernels/conv.py", ("conv2d_forward",)),
    "conv input grad": ("kernels/conv.py", ("conv2d_backward_input",)),
    "conv weight grad": ("kernels/conv.py", ("conv2d_backward_weight",)),
    "batch norm": ("kernels/batch_norm.py", ("channel_stats", "normalize", "backward")),
    "pooling": (
        "kernels/pool.py",
        ("max_pool2d_forward", "max_pool2d_backward", "avg_pool2d_forward", "avg_pool2d_backward"),
    ),
    "optimizer update": ("optim/sgd.py", ("sgd",)),
}
ESTIMATE_CORES = (8, 16)


def child(batch, threads, steps):
    from resnet_step import nnlite_runner

    import nnlite as nl

    nl.set_num_threads(threads)
    runner, _ = nnlite_runner(batch, "train")
    for _ in range(3):
        runner.step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        runner.step()
    prof.disable()
    stats = pstats.Stats(prof).stats
    total = sum(v[2] for v in stats.values())  # all own time: the whole profiled span
    out = {"total": total / steps}
    for family, (path, names) in FAMILIES.items():
        out[family] = (
            sum(v[3] for k, v in stats.items() if k[0].endswith(path) and k[2] in names) / steps
        )
    print(json.dumps(out))


def measure(batch, threads, steps):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", str(threads)]
    cmd += ["--batch", str(batch), "--steps", str(steps)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def amdahl(serial, parts, cores):
    """Speedup on ``cores`` when ``serial`` seconds stay serial and each (t1, efficiency) part
    runs ``cores`` times faster at that efficiency."""
    t1 = serial + sum(t for t, _ in parts)
    return t1 / (serial + sum(t / (cores * max(e, 1e-9)) for t, e in parts))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    machine_facts.add_load_option(parser)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.batch, args.child, args.steps)
    machine_facts.setup(args)
    n = args.threads
    one, many = measure(args.batch, 1, args.steps), measure(args.batch, n, args.steps)
    rest_one = one["total"] - sum(one[f] for f in FAMILIES)
    rest_many = many["total"] - sum(many[f] for f in FAMILIES)
    print(f"ResNet-18 training step, batch {args.batch}: ms per step (profiled)")
    print(f"{'family':>18} {'1 thread':>9} {f'{n} threads':>10} {'share':>6} {'efficiency':>10}")
    parts = []
    for family in FAMILIES:
        t1, tn = one[family], many[family]
        eff = t1 / (n * tn) if tn else 0.0
        parts.append((t1, eff))
        print(
            f"{family:>18} {1000 * t1:9.1f} {1000 * tn:10.1f} {t1 / one['total']:6.0%} {eff:10.2f}"
        )
    eff_rest = rest_one / (n * rest_many) if rest_many else 0.0
    print(
        f"{'rest (serial)':>18} {1000 * rest_one:9.1f} {1000 * rest_many:10.1f} "
        f"{rest_one / one['total']:6.0%} {eff_rest:10.2f}"
    )
    print(
        f"{'whole step':>18} {1000 * one['total']:9.1f} {1000 * many['total']:10.1f} "
        f"{'':>6} {one['total'] / (n * many['total']):10.2f}"
    )
    print(f"measured speedup on {n} threads: {one['total'] / many['total']:.2f}x")
    for cores in ESTIMATE_CORES:
        print(
            f"ESTIMATE (Amdahl, efficiencies as measured on {n}): "
            f"{amdahl(rest_one, parts, cores):.1f}x on {cores} cores"
        )
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
