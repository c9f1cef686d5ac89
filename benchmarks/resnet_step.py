"""One training step of a torchvision-layout ResNet-18 on 3x32x32 images, nnlite and PyTorch side by side.

Two workloads, each for batch sizes 8, 16 and 128 on 1 and 2 threads:

- ``train``: every parameter trained (``zero_grad``, forward, ``CrossEntropyLoss``, backward, SGD
  with momentum 0.9, lr 0.01);
- ``finetune``: the autograd tutorial's frozen backbone: every parameter of the model has
  ``requires_grad=False``, ``fc`` is replaced by a new ``Linear(512, 10)`` and only it is optimized.

Both frameworks start from the same weights (PyTorch's model is built here with torchvision's
module names, so nnlite's state dict loads into it) and see the same data. Prints ms/step (median
of interleaved timed blocks), the ratio nnlite/PyTorch (below 1: nnlite is faster) and, per
framework and batch, the speedup of 2 threads over 1.

``--run nnlite`` (or ``torch``) ``--steps N`` instead runs N steps of one framework at the first
batch, mode and thread count and exits: for whole-process measurements such as peak memory
(``/usr/bin/time -v python benchmarks/resnet_step.py --run nnlite --batches 128 --modes train``).

Usage:
    python benchmarks/resnet_step.py [--batches 8 16 128] [--threads 1 2] [--modes train finetune]
                                     [--seconds 3] [--profile] [--run nnlite|torch --steps 5]
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)
from lenet_step import Runner, set_threads, time_runners  # noqa: E402

import nnlite as nl  # noqa: E402
from nnlite import nn, optim  # noqa: E402
from nnlite.models import resnet18  # noqa: E402

N_BATCHES = 8  # lenet_step.Runner cycles through 8 batches


def make_data(batch, seed=0):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((batch, 3, 32, 32)).astype(np.float32) for _ in range(N_BATCHES)]
    ys = [rng.integers(0, 10, batch).astype(np.int64) for _ in range(N_BATCHES)]
    return xs, ys


def nnlite_runner(batch, mode):
    nl.manual_seed(0)
    model = resnet18(num_classes=10)
    if mode == "finetune":
        for p in model.parameters():
            p.requires_grad = False
        model.fc = nn.Linear(512, 10)
    trained = model.fc if mode == "finetune" else model
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    xs, ys = make_data(batch)
    batches = [(nl.from_numpy(x), nl.from_numpy(y)) for x, y in zip(xs, ys)]
    runner = Runner(
        model,
        initial,
        lambda: optim.SGD(trained.parameters(), lr=0.01, momentum=0.9),
        nn.CrossEntropyLoss(),
        batches,
    )
    return runner, model


def torch_resnet18(torch):
    """ResNet-18 with torchvision's module names and layout (torchvision itself is not required)."""
    tnn = torch.nn

    class Block(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = tnn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = tnn.BatchNorm2d(cout)
            self.relu = tnn.ReLU(inplace=True)
            self.conv2 = tnn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = tnn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = tnn.Sequential(
                    tnn.Conv2d(cin, cout, 1, stride, bias=False), tnn.BatchNorm2d(cout)
                )

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            identity = x if self.downsample is None else self.downsample(x)
            return self.relu(out + identity)

    class ResNet18(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = tnn.BatchNorm2d(64)
            self.relu = tnn.ReLU(inplace=True)
            self.maxpool = tnn.MaxPool2d(3, 2, 1)
            widths = [(64, 64, 1), (64, 128, 2), (128, 256, 2), (256, 512, 2)]
            for i, (cin, cout, stride) in enumerate(widths, 1):
                setattr(
                    self,
                    f"layer{i}",
                    tnn.Sequential(Block(cin, cout, stride), Block(cout, cout, 1)),
                )
            self.avgpool = tnn.AdaptiveAvgPool2d((1, 1))
            self.fc = tnn.Linear(512, 10)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return ResNet18()


def torch_runner(batch, mode, nl_model):
    import torch

    model = torch_resnet18(torch)
    if mode == "finetune":
        for p in model.parameters():
            p.requires_grad = False
        model.fc = torch.nn.Linear(512, 10)
    trained = model.fc if mode == "finetune" else model
    initial = {k: torch.from_numpy(v.numpy().copy()) for k, v in nl_model.state_dict().items()}
    xs, ys = make_data(batch)
    batches = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in zip(xs, ys)]
    return Runner(
        model,
        initial,
        lambda: torch.optim.SGD(trained.parameters(), lr=0.01, momentum=0.9),
        torch.nn.CrossEntropyLoss(),
        batches,
    )


def profile(batch, mode, threads, torch):
    import cProfile
    import pstats

    set_threads(threads, torch)
    runner, _ = nnlite_runner(batch, mode)
    for _ in range(3):
        runner.step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(5):
        runner.step()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def run_steps(framework, batch, mode, threads, steps, torch):
    set_threads(threads, torch)
    runner, model = nnlite_runner(batch, mode)
    if framework == "torch":
        runner = torch_runner(batch, mode, model)
        del model
    for _ in range(steps):
        runner.step()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[8, 16, 128])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--modes", nargs="+", choices=["train", "finetune"], default=["train", "finetune"]
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="timing budget per framework and row"
    )
    parser.add_argument("--blocks", type=int, default=5, help="interleaved timed blocks per row")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="cProfile nnlite's step at the first batch, mode, threads",
    )
    parser.add_argument(
        "--run", choices=["nnlite", "torch"], help="only run --steps steps of one framework"
    )
    parser.add_argument("--steps", type=int, default=5)
    machine_facts.add_load_option(parser)
    args = parser.parse_args(argv)
    machine_facts.setup(args)
    torch = None
    if args.run != "nnlite":  # nnlite alone: keep PyTorch's libraries out of its memory figures
        try:
            import torch
        except ImportError:
            print("PyTorch is not installed: timing nnlite only")
    if args.run:
        return run_steps(
            args.run, args.batches[0], args.modes[0], args.threads[0], args.steps, torch
        )
    if args.profile:
        return profile(args.batches[0], args.modes[0], args.threads[0], torch)

    print(f"ResNet-18 training step (3x32x32, 10 classes, SGD momentum), {os.cpu_count()} CPUs")
    header = f"{'mode':>8} {'threads':>7} {'batch':>6} {'nnlite ms':>10} {'torch ms':>9} {'nnlite/torch':>12}"
    print(header)
    print("-" * len(header))
    results = {}
    for mode in args.modes:
        for threads in args.threads:
            set_threads(threads, torch)
            for batch in args.batches:
                runner, model = nnlite_runner(batch, mode)
                runners = [runner] if torch is None else [runner, torch_runner(batch, mode, model)]
                times = time_runners(
                    runners, args.seconds * len(runners), blocks=args.blocks, max_steps=20
                )
                results[mode, threads, batch] = times
                theirs = (
                    f"{times[1]:>9.1f} {times[0] / times[1]:>11.2f}x"
                    if torch
                    else f"{'-':>9} {'-':>12}"
                )
                print(f"{mode:>8} {threads:>7} {batch:>6} {times[0]:>10.1f} {theirs}", flush=True)
    if 1 in args.threads and 2 in args.threads:
        print("\nspeedup of 2 threads over 1 (time on 1 / time on 2)")
        for (mode, threads, batch), times in results.items():
            if threads == 2 and (mode, 1, batch) in results:
                one = results[mode, 1, batch]
                line = f"{mode:>8} batch {batch:>4}: nnlite {one[0] / times[0]:.2f}x"
                if torch is not None:
                    line += f", torch {one[1] / times[1]:.2f}x"
                print(line)


if __name__ == "__main__":
    main()
