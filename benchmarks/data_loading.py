"""Images per second of iterating Fashion-MNIST-shaped data through a DataLoader.

60000 x 28 x 28 uint8 images in memory, ``ToTensor`` + ``Normalize``, batch 64; the per-sample
path (``__getitem__`` + transform per image + ``default_collate``) against the batched path
(``__getitems__``: one fancy index and one batched transform per batch), each with
``num_workers`` 0 and 2. Run: ``python benchmarks/data_loading.py [--images N] [--repeat R]``.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)

from nnlite.data import DataLoader, Dataset, transforms  # noqa: E402
from nnlite.data.datasets import ImageClassificationDataset  # noqa: E402


class InMemoryImages(ImageClassificationDataset):
    """Fashion-MNIST-shaped data held in memory (the built-in datasets' base class: batched path)."""

    def __init__(self, data, targets, transform):
        super().__init__(".", train=True, transform=transform)
        self.data = data
        self.targets = targets


class PerSample(Dataset):
    """The same dataset without ``__getitems__``: the loader goes image by image."""

    def __init__(self, inner):
        self.inner = inner

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        return self.inner[i]


def images_per_second(dataset, num_workers, batch_size, repeat):
    loader = DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        seed=0,
        num_workers=num_workers,
        persistent_workers=num_workers > 0,
    )
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        n = 0
        for images, _labels in loader:
            n += images.shape[0]
        best = max(best, n / (time.perf_counter() - start))
    del loader
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=60000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--repeat", type=int, default=2, help="epochs per setting; the best one is reported"
    )
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    machine_facts.setup(args)

    rng = np.random.default_rng(0)
    data = rng.integers(0, 256, size=(args.images, 28, 28), dtype=np.uint8)
    targets = rng.integers(0, 10, size=args.images).astype(np.int64)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])
    batched = InMemoryImages(data, targets, tf)
    per_sample = PerSample(batched)

    print(
        f"{args.images} images 28x28, ToTensor+Normalize, batch {args.batch_size}, shuffle, "
        f"{os.cpu_count()} CPUs, best of {args.repeat} epochs"
    )
    print(f"{'path':<12} {'workers':>7} {'images/s':>12} {'epoch (s)':>10}")
    for name, ds in (("per-sample", per_sample), ("batched", batched)):
        for nw in (0, 2):
            ips = images_per_second(ds, nw, args.batch_size, args.repeat)
            print(f"{name:<12} {nw:>7} {ips:>12,.0f} {args.images / ips:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
