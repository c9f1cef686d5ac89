"""What the MPI scripts and the single-process references in test_distributed.py share: a small
model built from Parameters and Tensor ops only, the data, and the sharding rule."""

import hashlib

import numpy as np

import nnlite as nl
from nnlite.nn.modules.module import Module
from nnlite.nn.parameter import Parameter

N_IN, N_HIDDEN, N_OUT = 6, 16, 3


class TinyNet(Module):
    """Two dense layers, plus the cases DDP must handle: a frozen parameter used in forward, a
    parameter never used (unless ``with_unused=False``; it needs ``find_unused_parameters=True``),
    and a running-mean buffer updated in training forwards."""

    def __init__(self, with_unused=True):
        super().__init__()
        self.w1 = Parameter(nl.randn(N_HIDDEN, N_IN) * 0.5)
        self.b1 = Parameter(nl.randn(N_HIDDEN) * 0.1)
        self.w2 = Parameter(nl.randn(N_OUT, N_HIDDEN) * 0.3)
        self.b2 = Parameter(nl.zeros(N_OUT))
        self.scale = Parameter(nl.rand(N_HIDDEN) + 0.5, requires_grad=False)
        if with_unused:
            self.unused = Parameter(nl.randn(4))
        self.register_buffer("running", nl.zeros(N_HIDDEN))

    def forward(self, x):
        h = (x @ self.w1.t() + self.b1).tanh() * self.scale
        if self.training:
            with nl.no_grad():
                self.running.mul_(0.9).add_(h.mean(0) * 0.1)
        return h @ self.w2.t() + self.b2


TRAINABLE = ("w1", "b1", "w2", "b2")


def loss_fn(out, target):
    return ((out - target) ** 2).mean()


def make_data(n, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, N_IN)).astype(np.float32)
    y = rng.standard_normal((n, N_OUT)).astype(np.float32)
    return x, y


def padded_indices(n, world_size):
    """0..n-1 padded by repeating its head to a multiple of world_size (DistributedSampler's rule
    with shuffle=False): rank r takes result[r::world_size]."""
    total = -(-n // world_size) * world_size
    idx = np.arange(n)
    return np.concatenate([idx, np.resize(idx, total - n)]) if total > n else idx


def shard(n, rank, world_size):
    return padded_indices(n, world_size)[rank::world_size]


def param_digest(module):
    h = hashlib.sha256()
    for p in module.parameters():
        h.update(np.ascontiguousarray(p._data).tobytes())
    return h.hexdigest()


SGD_STEPS = 10
SGD_BATCH = 10  # per step, over all ranks (3 ranks: padded to 12)
SGD_KW = dict(lr=0.1, momentum=0.9, weight_decay=1e-3)


def sgd_batches():
    """The global index batch of each step (before sharding), the same on every rank."""
    x, y = make_data(SGD_STEPS * SGD_BATCH, seed=2)
    return x, y, [np.arange(s * SGD_BATCH, (s + 1) * SGD_BATCH) for s in range(SGD_STEPS)]


LENET_STEPS = 3
LENET_BATCH = 8


def lenet_data():
    """CIFAR-shaped random images and labels, and the global index batch of each step."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((LENET_STEPS * LENET_BATCH, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, size=LENET_STEPS * LENET_BATCH).astype(np.int64)
    return x, y, [np.arange(s * LENET_BATCH, (s + 1) * LENET_BATCH) for s in range(LENET_STEPS)]


NO_SYNC_MICRO = 3  # micro-batches accumulated per step in the no_sync test
NO_SYNC_BATCH = 6  # samples per micro-batch over all ranks (divisible by 2 and 3)


def no_sync_batches():
    x, y = make_data(NO_SYNC_MICRO * NO_SYNC_BATCH, seed=3)
    return (
        x,
        y,
        [np.arange(s * NO_SYNC_BATCH, (s + 1) * NO_SYNC_BATCH) for s in range(NO_SYNC_MICRO)],
    )


BN_BATCH = 12  # divisible by 2 and 3: every rank gets the same number of samples
BN_STEPS = 2


class BNNet(Module):
    """Convolution, BatchNorm2d, ReLU, linear head: BatchNorm's backward feeds the conv's gradient."""

    def __init__(self):
        super().__init__()
        self.conv = nl.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nl.nn.BatchNorm2d(4)
        self.head = nl.nn.Linear(4 * 5 * 5, 3)

    def forward(self, x):
        return self.head(self.bn(self.conv(x)).relu().flatten(1))


def bn_data():
    rng = np.random.default_rng(6)
    # an offset and a scale per channel so that the statistics matter
    x = (rng.standard_normal((BN_STEPS * BN_BATCH, 3, 5, 5)) * 2 + 3).astype(np.float32)
    y = rng.standard_normal((BN_STEPS * BN_BATCH, 3)).astype(np.float32)
    return x, y, [np.arange(s * BN_BATCH, (s + 1) * BN_BATCH) for s in range(BN_STEPS)]
