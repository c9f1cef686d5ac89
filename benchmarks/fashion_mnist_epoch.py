"""Fashion-MNIST, LeNet, 2 epochs: nnlite's trainer vs PyTorch's bare training loop.

nnlite: ``python train.py configs/lenet_fashion_mnist.yaml --set data.root=ROOT`` (data loading,
transforms and evaluation included; epoch time and accuracy read from the run's metrics.jsonl).
PyTorch (when installed): the same recipe (LeNet 1x28x28, batch 64, SGD lr 0.01 momentum 0.9,
the same normalisation) as a bare loop over batches sliced from in-memory tensors, 2 threads.

Usage: python benchmarks/fashion_mnist_epoch.py [--root /usr/share/datasets/fashion-mnist] [--threads 2]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))


def run_nnlite(root, threads):
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        cmd = [
            sys.executable,
            os.path.join(HERE, "..", "train.py"),
            os.path.join(HERE, "..", "configs", "lenet_fashion_mnist.yaml"),
            "--set",
            f"data.root={root}",
            "--set",
            f"output_dir={out}",
            "--set",
            "data.download=false",
        ]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        run = next(os.path.join(out, d) for d in os.listdir(out) if not d.endswith("-latest"))
        with open(os.path.join(run, "metrics.jsonl")) as f:
            return [json.loads(line) for line in f]


def run_torch(root, threads):
    import torch
    from torch import nn

    import nnlite as nl

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    train = nl.data.datasets.FashionMNIST(root, train=True)
    test = nl.data.datasets.FashionMNIST(root, train=False)

    def tensors(ds):
        x = torch.tensor(ds.data.reshape(-1, 1, 28, 28), dtype=torch.float32) / 255.0
        return (x - 0.2860) / 0.3530, torch.tensor(np.asarray(ds.targets), dtype=torch.int64)

    (xtr, ytr), (xte, yte) = tensors(train), tensors(test)
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(256, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    results = []
    for epoch in range(2):
        perm = torch.randperm(len(xtr))
        start = time.perf_counter()
        for i in range(0, len(xtr), 64):
            idx = perm[i : i + 64]
            opt.zero_grad()
            loss_fn(model(xtr[idx]), ytr[idx]).backward()
            opt.step()
        seconds = time.perf_counter() - start
        with torch.no_grad():
            accuracy = (model(xte).argmax(1) == yte).float().mean().item()
        results.append({"epoch": epoch + 1, "epoch_seconds": seconds, "test_accuracy": accuracy})
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--threads", type=int, default=2)
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    machine_facts.setup(args)
    ours = run_nnlite(args.root, args.threads)
    for m in ours:
        print(
            f"nnlite train.py   epoch {m['epoch']}: {m['epoch_seconds']:.2f} s, test accuracy {m['test_accuracy']:.4f}"
        )
    try:
        theirs = run_torch(args.root, args.threads)
    except ImportError:
        return
    for m in theirs:
        print(
            f"PyTorch bare loop epoch {m['epoch']}: {m['epoch_seconds']:.2f} s, test accuracy {m['test_accuracy']:.4f}"
        )
    print(
        f"epoch time PyTorch / nnlite (best epochs): "
        f"{min(m['epoch_seconds'] for m in theirs) / min(m['epoch_seconds'] for m in ours):.2f}x"
    )


if __name__ == "__main__":
    main()
