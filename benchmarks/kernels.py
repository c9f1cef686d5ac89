"""Time nnlite's conv / pool kernels against PyTorch: LeNet's shapes, or a sweep over conv shapes.

    python benchmarks/kernels.py [--threads 1] [--batches 4 64 256] [--dtype float32]
    python benchmarks/kernels.py --sweep [--shapes 48] [--threads 1] [--worst 8]
    python benchmarks/kernels.py --sweep --only 16,256,14,8,3,1 32,512,14,3,7,2  (N,C,H,Co,k,stride)

``--sweep`` times forward, input gradient and weight gradient of convolutions sampled from
channels 3-512, planes 1-64, kernels 1/3/5/7, strides 1/2 and batches 1-256 (plus every conv
shape of a ResNet-18 step on 32x32 images at batch 128 and of LeNet at 16 and 256), prints each
shape with the kernel nnlite chose for each operation (``planes``, ``lanes``, ``channels_last``
(im2col) or ``tap_sum``), and ends with the worst ratios. ``--only`` times the listed shapes instead
(padding k // 2), to iterate on the worst cases. Shapes above a work limit are
skipped so that the sweep runs in minutes.

Shapes: conv1 3x32x32 -> 6@5x5, pool1 6x28x28 /2, conv2 6x14x14 -> 16@5x5, pool2 16x10x10 /2.
Each figure is the best of several timing rounds (ms per call); "ratio" is nnlite / torch,
so below 1 means nnlite is faster. "lenet step" sums what one LeNet training step runs:
both forwards, both weight gradients, conv2's input gradient (conv1's input needs none),
and max pooling forward and backward for both pools.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)

from nnlite.nn import kernels as K  # noqa: E402
from nnlite.nn.kernels.conv_live_taps import live_taps, worth_cropping  # noqa: E402
from nnlite.nn.kernels.conv_select import (  # noqa: E402
    CHANNELS_LAST,
    OPS,
    channels_last_variant,
    conv_kernel,
)

LENET_STEP = {
    "conv1 fwd",
    "conv1 bwd_weight",
    "conv2 fwd",
    "conv2 bwd_input",
    "conv2 bwd_weight",
    "pool1 max fwd",
    "pool1 max bwd",
    "pool2 max fwd",
    "pool2 max bwd",
}


CLOCK = time.perf_counter


def best_ms(fn, rounds=15, min_time=0.02):
    """Best over `rounds` of the mean time of `fn` over at least `min_time` seconds."""
    fn()
    best = float("inf")
    for _ in range(rounds):
        n = 0
        t0 = CLOCK()
        while True:
            fn()
            n += 1
            elapsed = CLOCK() - t0
            if elapsed >= min_time:
                break
        best = min(best, elapsed / n)
    return best * 1e3


def conv_cases(N, dt, rng):
    """(name, nnlite fn, torch fn or None) for both LeNet convolutions."""
    one = (1, 1)
    zero = (0, 0)
    cases = []
    for tag, (C, H, Co) in (("conv1", (3, 32, 6)), ("conv2", (6, 14, 16))):
        x = rng.standard_normal((N, C, H, H)).astype(dt)
        w = rng.standard_normal((Co, C, 5, 5)).astype(dt)
        b = rng.standard_normal(Co).astype(dt)
        y = K.conv2d_forward(x, w, b, one, zero, one, 1)
        gy = rng.standard_normal(y.shape).astype(dt)
        ours = {
            "fwd": lambda x=x, w=w, b=b: K.conv2d_forward(x, w, b, one, zero, one, 1),
            "bwd_input": lambda gy=gy, w=w, hw=(H, H): K.conv2d_backward_input(
                gy, w, hw, one, zero, one, 1
            ),
            "bwd_weight": lambda gy=gy, x=x: K.conv2d_backward_weight(
                gy, x, (5, 5), one, zero, one, 1
            ),
        }
        theirs = torch_conv(x, w, b, gy)
        for op in ("fwd", "bwd_input", "bwd_weight"):
            cases.append((f"{tag} {op}", ours[op], theirs.get(op)))
    return cases


def pool_cases(N, dt, rng):
    cases = []
    k, s, p, d = (2, 2), (2, 2), (0, 0), (1, 1)
    for tag, (C, H) in (("pool1", (6, 28)), ("pool2", (16, 10))):
        x = rng.standard_normal((N, C, H, H)).astype(dt)
        y, idx = K.max_pool2d_forward(x, k, s, p, d, False)
        gy = rng.standard_normal(y.shape).astype(dt)
        ours = {
            "max fwd": lambda x=x: K.max_pool2d_forward(x, k, s, p, d, False),
            "max bwd": lambda gy=gy, idx=idx, hw=(H, H): K.max_pool2d_backward(gy, idx, hw),
            "avg fwd": lambda x=x: K.avg_pool2d_forward(x, k, s, p, False, True),
            "avg bwd": lambda gy=gy, hw=(H, H): K.avg_pool2d_backward(gy, hw, k, s, p, False, True),
        }
        theirs = torch_pool(x, gy)
        for op in ours:
            cases.append((f"{tag} {op}", ours[op], theirs.get(op)))
    return cases


def torch_conv(x, w, b, gy, stride=1, padding=0):
    if torch is None:
        return {}
    xt, wt, gyt = (torch.from_numpy(a) for a in (x, w, gy))
    bt = None if b is None else torch.from_numpy(b)
    return {
        "fwd": lambda: torch.nn.functional.conv2d(xt, wt, bt, stride, padding),
        "bwd_input": lambda: torch.nn.grad.conv2d_input(xt.shape, wt, gyt, stride, padding),
        "bwd_weight": lambda: torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, stride, padding),
    }


# (N, C, H, Co, k, stride, padding) of every convolution in a ResNet-18 step on 3x32x32 at batch
# 128, and LeNet's two at batches 16 and 256.
RESNET18_128 = [
    (128, 3, 32, 64, 7, 2, 3),
    (128, 64, 8, 64, 3, 1, 1),
    (128, 64, 8, 128, 3, 2, 1),
    (128, 64, 8, 128, 1, 2, 0),
    (128, 128, 4, 128, 3, 1, 1),
    (128, 128, 4, 256, 3, 2, 1),
    (128, 128, 4, 256, 1, 2, 0),
    (128, 256, 2, 256, 3, 1, 1),
    (128, 256, 2, 512, 3, 2, 1),
    (128, 256, 2, 512, 1, 2, 0),
    (128, 512, 1, 512, 3, 1, 1),
]
LENET = [(N, C, H, Co, 5, 1, 0) for N in (16, 256) for C, H, Co in ((3, 32, 6), (6, 14, 16))]

# Largest multiply-adds of a sampled shape's forward: bigger shapes take seconds each.
SWEEP_MAX_MACS = 2e8


def sample_shapes(count, rng):
    """``count`` conv shapes drawn from the sweep's grid, each cheap enough to time quickly."""
    channels = [3, 8, 16, 32, 64, 128, 256, 512]
    shapes = []
    while len(shapes) < count:
        N = int(rng.choice([1, 2, 8, 16, 32, 64, 128, 256]))
        C, Co = (int(c) for c in rng.choice(channels, 2))
        H = int(rng.choice([1, 2, 4, 7, 8, 14, 16, 28, 32, 56, 64]))
        k = int(rng.choice([1, 3, 5, 7]))
        stride = int(rng.choice([1, 2]))
        padding = k // 2
        Ho = (H + 2 * padding - k) // stride + 1
        if Ho < 1 or N * Co * C * k * k * Ho * Ho > SWEEP_MAX_MACS:
            continue
        shapes.append((N, C, H, Co, k, stride, padding))
    return shapes


def nnlite_conv(x, w, gy, stride, padding):
    """The three kernels of one convolution (one group, no bias), as calls without arguments."""
    sp = (stride, stride), (padding, padding), (1, 1)
    return {
        "fwd": lambda: K.conv2d_forward(x, w, None, *sp, 1),
        "bwd_input": lambda: K.conv2d_backward_input(gy, w, x.shape[2:], *sp, 1),
        "bwd_weight": lambda: K.conv2d_backward_weight(gy, x, w.shape[2:], *sp, 1),
    }


def op_kernels(N, C, H, Co, k, stride, padding, itemsize):
    """The kernel nnlite runs for the forward, input gradient and weight gradient of a shape;
    ``/1x1`` (say) when taps that only read padding are dropped first, leaving a 1x1 kernel."""
    kernel_hw, pad, suffix = (k, k), (padding, padding), ""
    Ho = (H + 2 * padding - k) // stride + 1
    live = live_taps((H, H), kernel_hw, (stride, stride), pad, (1, 1), (Ho, Ho))
    if live is not None and worth_cropping(N, (Ho, Ho), kernel_hw, live[0]):
        (rows, cols), pad = live
        kernel_hw = (rows.stop - rows.start, cols.stop - cols.start)
        suffix = f"/{kernel_hw[0]}x{kernel_hw[1]}"
    kernels = [conv_kernel(N, C, Co, kernel_hw, (stride, stride), 1, itemsize, op) for op in OPS]
    geometry = (N, C, H, H, Co, kernel_hw, (stride, stride), pad, (1, 1))
    return [
        (channels_last_variant(op, *geometry) if kernel == CHANNELS_LAST else kernel) + suffix
        for op, kernel in zip(OPS, kernels)
    ]


def sweep(args, dt):
    rng = np.random.default_rng(args.seed)
    if args.only:
        shapes = [tuple(int(v) for v in s.split(",")) for s in args.only]
        shapes = [(N, C, H, Co, k, s, k // 2) for N, C, H, Co, k, s in shapes]
    else:
        shapes = RESNET18_128 + LENET + sample_shapes(args.shapes, rng)
    header = f"{'N':>4} {'C':>4} {'H':>3} {'Co':>4} {'k':>2} {'s':>2} " + " ".join(
        f"{op + ' ms':>14} {'ratio':>6} {'kernel':<17}" for op in ("fwd", "bwd_input", "bwd_weight")
    )
    print("ms: nnlite / torch; ratio: nnlite / torch (below 1: nnlite is faster)")
    print(header)
    print("-" * len(header))
    rows = []
    for N, C, H, Co, k, stride, padding in shapes:
        x = rng.standard_normal((N, C, H, H)).astype(dt)
        w = rng.standard_normal((Co, C, k, k)).astype(dt)
        y = K.conv2d_forward(x, w, None, (stride, stride), (padding, padding), (1, 1), 1)
        gy = rng.standard_normal(y.shape).astype(dt)
        ours = nnlite_conv(x, w, gy, stride, padding)
        theirs = torch_conv(x, w, None, gy, stride, padding)
        kernels = op_kernels(N, C, H, Co, k, stride, padding, dt.itemsize)
        cells = []
        for op, kernel in zip(ours, kernels):
            a = best_ms(ours[op], rounds=args.rounds, min_time=0.01)
            t = best_ms(theirs[op], rounds=args.rounds, min_time=0.01) if theirs else float("nan")
            cells.append(f"{a:>6.2f}/{t:>7.2f} {a / t:>6.2f} {kernel:<17}")
            rows.append((a / t, op, (N, C, H, Co, k, stride), kernel, a, t))
        print(f"{N:>4} {C:>4} {H:>3} {Co:>4} {k:>2} {stride:>2} " + " ".join(cells), flush=True)
    if torch is not None:
        rows.sort(key=lambda r: -r[0])
        above = sum(r[0] > 1.5 for r in rows)
        print(f"\n{above} of {len(rows)} figures above 1.5x PyTorch")
        print(f"worst {args.worst} of {len(rows)} (N, C, H, Co, k, stride):")
        for ratio, op, shape, kernel, a, t in rows[: args.worst]:
            print(
                f"  {ratio:5.2f}x  {op:<10} {shape}  {kernel:<17} nnlite {a:.2f} ms, torch {t:.2f} ms"
            )


def torch_pool(x, gy):
    if torch is None:
        return {}
    F = torch.nn.functional
    xt, gyt = torch.from_numpy(x), torch.from_numpy(gy)
    _, it = F.max_pool2d(xt, 2, return_indices=True)
    aten = torch.ops.aten
    return {
        "max fwd": lambda: F.max_pool2d(xt, 2, return_indices=True),
        "max bwd": lambda: aten.max_pool2d_with_indices_backward(
            gyt, xt, [2, 2], [2, 2], [0, 0], [1, 1], False, it
        ),
        "avg fwd": lambda: F.avg_pool2d(xt, 2),
        "avg bwd": lambda: aten.avg_pool2d_backward(
            gyt, xt, [2, 2], [2, 2], [0, 0], False, True, None
        ),
    }


def main():
    global torch
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batches", type=int, nargs="+", default=[4, 64, 256])
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--no-torch", action="store_true", help="time nnlite only")
    ap.add_argument(
        "--sweep", action="store_true", help="sweep over conv shapes instead of LeNet's"
    )
    ap.add_argument("--shapes", type=int, default=48, help="sampled shapes in the sweep")
    ap.add_argument(
        "--only", nargs="+", metavar="N,C,H,Co,k,s", help="sweep these shapes only (padding k // 2)"
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the sweep's sample")
    ap.add_argument("--rounds", type=int, default=5, help="timing rounds per figure in the sweep")
    ap.add_argument("--worst", type=int, default=8, help="worst cases listed after the sweep")
    ap.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="cpu: process CPU time, steadier on a busy machine (with --threads 1)",
    )
    machine_facts.add_load_option(ap)
    args = ap.parse_args()
    machine_facts.setup(args)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter

    import nnlite as nl

    nl.set_num_threads(args.threads)  # numba's kernels and numpy's BLAS
    torch = None
    if not args.no_torch:
        try:
            import torch

            torch.set_num_threads(args.threads)
        except ImportError:
            torch = None

    dt = np.dtype(args.dtype)
    print(
        f"threads={args.threads} dtype={dt} clock={args.clock} "
        f"torch={torch.__version__ if torch else 'absent'}"
    )
    if args.sweep:
        return sweep(args, dt)
    header = f"{'batch':>5}  {'op':<18} {'nnlite ms':>10} {'torch ms':>10} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for N in args.batches:
        rng = np.random.default_rng(0)
        step = [0.0, 0.0]
        for name, ours, theirs in conv_cases(N, dt, rng) + pool_cases(N, dt, rng):
            a = best_ms(ours)
            t = best_ms(theirs) if theirs is not None else float("nan")
            print(f"{N:>5}  {name:<18} {a:>10.3f} {t:>10.3f} {a / t:>7.2f}")
            if name in LENET_STEP:
                step[0] += a
                step[1] += t
        print(
            f"{N:>5}  {'lenet step':<18} {step[0]:>10.3f} {step[1]:>10.3f} {step[0] / step[1]:>7.2f}"
        )
        print()


torch = None

if __name__ == "__main__":
    main()
