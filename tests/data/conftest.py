"""Fixtures that write small dataset files in the real formats (CIFAR-10 python batches, IDX)."""

import gzip
import os
import pickle
import struct

import numpy as np
import pytest


def write_idx(path, array, gz=False):
    """Write ``array`` (uint8) as an IDX file: 2 zero bytes, type 0x08, ndim, big-endian dims, data."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    header = struct.pack(">HBB", 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    raw = header + array.tobytes()
    if gz:
        raw = gzip.compress(raw)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(raw)
    return path


def make_idx_dataset(folder, n_train=12, n_test=6, gz=True, seed=0):
    """The four MNIST-style files in ``folder``; returns the arrays written."""
    rng = np.random.default_rng(seed)
    out = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        suffix = ".gz" if gz else ""
        write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte{suffix}"), images, gz)
        write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte{suffix}"), labels, gz)
        out[prefix] = (images, labels)
    return out


def write_cifar_batch(path, data, labels, protocol=2):
    """A CIFAR-10 python batch as the real files are: a pickled dict with a uint8 ``data`` array
    of shape (N, 3072) and a ``labels`` list."""
    entry = {
        "batch_label": "testing batch",
        "labels": [int(x) for x in labels],
        "data": data,
        "filenames": [f"img_{i}.png" for i in range(len(labels))],
    }
    with open(path, "wb") as f:
        pickle.dump(entry, f, protocol=protocol)


def make_cifar_dataset(root, per_batch=4, n_test=5, seed=0, protocol=2):
    """``root/cifar-10-batches-py`` with 5 training batches, a test batch and ``batches.meta``;
    returns the HWC images and labels written, per split."""
    rng = np.random.default_rng(seed)
    folder = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(folder, exist_ok=True)
    train_imgs, train_labels = [], []
    for b in range(1, 6):
        data = rng.integers(0, 256, size=(per_batch, 3072), dtype=np.uint8)
        labels = rng.integers(0, 10, size=per_batch)
        write_cifar_batch(os.path.join(folder, f"data_batch_{b}"), data, labels, protocol)
        train_imgs.append(data)
        train_labels.append(labels)
    test = rng.integers(0, 256, size=(n_test, 3072), dtype=np.uint8)
    test_labels = rng.integers(0, 10, size=n_test)
    write_cifar_batch(os.path.join(folder, "test_batch"), test, test_labels, protocol)
    meta = {
        "num_cases_per_batch": per_batch,
        "label_names": ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"],
        "num_vis": 3072,
    }
    with open(os.path.join(folder, "batches.meta"), "wb") as f:
        pickle.dump(meta, f, protocol=protocol)

    def hwc(rows):
        return rows.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)

    return {
        "train": (hwc(np.concatenate(train_imgs)), np.concatenate(train_labels)),
        "test": (hwc(test), test_labels),
    }


@pytest.fixture
def idx_files():
    return make_idx_dataset


@pytest.fixture
def cifar_files():
    return make_cifar_dataset


@pytest.fixture
def idx_writer():
    return write_idx


@pytest.fixture
def cifar_batch_writer():
    return write_cifar_batch
