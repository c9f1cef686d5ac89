"""One training step of the CIFAR-10 tutorial's LeNet, nnlite and PyTorch side by side.

A step is ``zero_grad``, forward, ``CrossEntropyLoss``, backward and an SGD step (lr 0.01,
momentum 0.9) on pre-made data (8 random batches, cycled), for batch sizes 4, 64 and 256, with 1
and 2 threads. Both frameworks start from the same weights. Prints ms/step (median of several
timed blocks) and the ratio PyTorch/nnlite (above 1: nnlite is faster).

Every timed block starts again from the initial weights and a fresh optimizer: hundreds of steps
on the same few batches drive many gradients and momentum buffers towards zero, into float32
subnormals, whose arithmetic is many times slower on x86 (in both frameworks) and would make the
figures depend on how long the benchmark ran.

Usage:
    python benchmarks/lenet_step.py [--batches 4 64 256] [--threads 1 2] [--seconds 1.0] [--profile]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)

import nnlite as nl  # noqa: E402
from nnlite import nn, optim  # noqa: E402
from nnlite.models import LeNet  # noqa: E402

N_BATCHES = 8


def make_data(batch, seed=0):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((batch, 3, 32, 32)).astype(np.float32) for _ in range(N_BATCHES)]
    ys = [rng.integers(0, 10, batch).astype(np.int64) for _ in range(N_BATCHES)]
    return xs, ys


class Runner:
    """``step()`` runs one training step; ``reset()`` restores the initial weights and optimizer."""

    def __init__(self, model, initial_state, make_optimizer, criterion, batches):
        self.model, self.initial_state, self.make_optimizer = model, initial_state, make_optimizer
        self.criterion, self.batches = criterion, batches
        self.reset()

    def reset(self):
        self.model.load_state_dict(self.initial_state)
        self.opt = self.make_optimizer()
        self.i = 0

    def step(self):
        x, y = self.batches[self.i % N_BATCHES]
        self.i += 1
        self.opt.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.opt.step()
        return loss


def nnlite_runner(batch):
    nl.manual_seed(0)
    model = LeNet()
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    xs, ys = make_data(batch)
    batches = [(nl.from_numpy(x), nl.from_numpy(y)) for x, y in zip(xs, ys)]
    return Runner(
        model,
        initial,
        lambda: optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
        nn.CrossEntropyLoss(),
        batches,
    ), model


def torch_runner(batch, nl_model):
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF

    class TorchLeNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(3, 6, 5)
            self.pool = tnn.MaxPool2d(2, 2)
            self.conv2 = tnn.Conv2d(6, 16, 5)
            self.fc1 = tnn.Linear(16 * 5 * 5, 120)
            self.fc2 = tnn.Linear(120, 84)
            self.fc3 = tnn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(TF.relu(self.conv1(x)))
            x = self.pool(TF.relu(self.conv2(x)))
            x = torch.flatten(x, 1)
            x = TF.relu(self.fc1(x))
            x = TF.relu(self.fc2(x))
            return self.fc3(x)

    model = TorchLeNet()
    initial = {k: torch.from_numpy(v.numpy().copy()) for k, v in nl_model.state_dict().items()}
    xs, ys = make_data(batch)
    batches = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in zip(xs, ys)]
    return Runner(
        model,
        initial,
        lambda: torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
        tnn.CrossEntropyLoss(),
        batches,
    )


def _block_size(runner, seconds, blocks, max_steps):
    for _ in range(10):  # warm-up: kernels compiled or loaded, buffers allocated
        runner.step()
    runner.reset()
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < 0.2 or n < 3:
        runner.step()
        n += 1
    per_step = (time.perf_counter() - t0) / n
    return int(min(max_steps, max(3, seconds / blocks / per_step)))


def _time_block(runner, reps):
    runner.reset()
    runner.step()  # the first step after a reset creates the momentum buffers
    t0 = time.perf_counter()
    for _ in range(reps):
        runner.step()
    return (time.perf_counter() - t0) / reps


def time_runners(runners, seconds, blocks=9, max_steps=60):
    """Median ms/step of each runner over ``blocks`` timed blocks of up to ``max_steps`` steps from
    fresh weights. The runners' blocks alternate, so that both see the same machine load."""
    reps = [_block_size(r, seconds, blocks, max_steps) for r in runners]
    times = [[] for _ in runners]
    for _ in range(blocks):
        for i, r in enumerate(runners):
            times[i].append(_time_block(r, reps[i]))
    return [1000 * float(np.median(t)) for t in times]


def set_threads(n, torch):
    nl.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[4, 64, 256])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=1.5, help="timing budget per measurement")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile nnlite's step at the first batch size"
    )
    machine_facts.add_load_option(parser)
    args = parser.parse_args(argv)
    machine_facts.setup(args)
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: timing nnlite only")

    if args.profile:
        import cProfile
        import pstats

        set_threads(args.threads[0], torch)
        runner, _ = nnlite_runner(args.batches[0])
        for _ in range(20):
            runner.step()
        prof = cProfile.Profile()
        for _ in range(20):
            runner.reset()
            prof.enable()
            for _ in range(50):
                runner.step()
            prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return

    print(f"LeNet training step (CIFAR-10 32x32, SGD momentum), {os.cpu_count()} CPUs")
    header = f"{'threads':>7} {'batch':>6} {'nnlite ms':>10} {'torch ms':>9} {'torch/nnlite':>12}"
    print(header)
    print("-" * len(header))
    for threads in args.threads:
        set_threads(threads, torch)
        for batch in args.batches:
            runner, model = nnlite_runner(batch)
            if torch is not None:
                ours, theirs = time_runners([runner, torch_runner(batch, model)], 2 * args.seconds)
                print(
                    f"{threads:>7} {batch:>6} {ours:>10.3f} {theirs:>9.3f} {theirs / ours:>11.2f}x",
                    flush=True,
                )
            else:
                (ours,) = time_runners([runner], args.seconds)
                print(f"{threads:>7} {batch:>6} {ours:>10.3f} {'-':>9} {'-':>12}", flush=True)


if __name__ == "__main__":
    main()
