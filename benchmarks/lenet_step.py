"""One training step of the CIFAR-10 tutorial's LeNet, nnlite and PyTorch side by side.

A step is ``zero_grad``, forward, ``CrossEntropyLoss``, backward and an SGD step (lr 0.01,
momentum 0.9) on pre-made data, for batch sizes 4, 64 and 256, with 1 and 2 threads. Both
frameworks start from the same weights. Prints ms/step (median of several timed blocks) and the
ratio PyTorch/nnlite (above 1: nnlite is faster).

Usage:
    python benchmarks/lenet_step.py [--batches 4 64 256] [--threads 1 2] [--seconds 1.0] [--profile]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import nnlite as nl  # noqa: E402
from nnlite import nn, optim  # noqa: E402
from nnlite.models import LeNet  # noqa: E402


def make_data(batch, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    return x, y


def nnlite_step_fn(batch):
    nl.manual_seed(0)
    model = LeNet()
    x, y = make_data(batch)
    x, y = nl.from_numpy(x), nl.from_numpy(y)
    criterion = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step, model


def torch_step_fn(batch, nl_model):
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
    model.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in nl_model.state_dict().items()})
    x, y = make_data(batch)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    criterion = tnn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def time_step(step, seconds, blocks=7):
    """Median ms/step over ``blocks`` timed blocks, each about ``seconds / blocks`` long."""
    for _ in range(5):
        step()
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < 0.2 or n < 3:
        step()
        n += 1
    per_step = (time.perf_counter() - t0) / n
    reps = max(3, int(seconds / blocks / per_step))
    times = []
    for _ in range(blocks):
        t0 = time.perf_counter()
        for _ in range(reps):
            step()
        times.append((time.perf_counter() - t0) / reps)
    return 1000 * float(np.median(times))


def set_threads(n, torch):
    nl.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[4, 64, 256])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=1.5, help="timing budget per measurement")
    parser.add_argument("--profile", action="store_true", help="cProfile nnlite's step at the first batch size")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: timing nnlite only")

    if args.profile:
        import cProfile
        import pstats
        set_threads(args.threads[0], torch)
        step, _ = nnlite_step_fn(args.batches[0])
        for _ in range(50):
            step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(500):
            step()
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
            step, model = nnlite_step_fn(batch)
            ours = time_step(step, args.seconds)
            if torch is not None:
                theirs = time_step(torch_step_fn(batch, model), args.seconds)
                print(f"{threads:>7} {batch:>6} {ours:>10.3f} {theirs:>9.3f} {theirs / ours:>11.2f}x", flush=True)
            else:
                print(f"{threads:>7} {batch:>6} {ours:>10.3f} {'-':>9} {'-':>12}", flush=True)


if __name__ == "__main__":
    main()
