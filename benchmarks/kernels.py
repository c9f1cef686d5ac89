"""Time nnlite's conv / pool kernels at the CIFAR-10 LeNet shapes, against PyTorch if installed.

    python benchmarks/kernels.py [--threads 1] [--batches 4 64 256] [--dtype float32]

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

from nnlite.nn import kernels as K  # noqa: E402


LENET_STEP = {"conv1 fwd", "conv1 bwd_weight", "conv2 fwd", "conv2 bwd_input", "conv2 bwd_weight",
              "pool1 max fwd", "pool1 max bwd", "pool2 max fwd", "pool2 max bwd"}


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
    for tag, (C, H, O) in (("conv1", (3, 32, 6)), ("conv2", (6, 14, 16))):
        x = rng.standard_normal((N, C, H, H)).astype(dt)
        w = rng.standard_normal((O, C, 5, 5)).astype(dt)
        b = rng.standard_normal(O).astype(dt)
        y = K.conv2d_forward(x, w, b, one, zero, one, 1)
        gy = rng.standard_normal(y.shape).astype(dt)
        ours = {
            "fwd": lambda x=x, w=w, b=b: K.conv2d_forward(x, w, b, one, zero, one, 1),
            "bwd_input": lambda gy=gy, w=w, hw=(H, H): K.conv2d_backward_input(gy, w, hw, one, zero, one, 1),
            "bwd_weight": lambda gy=gy, x=x: K.conv2d_backward_weight(gy, x, (5, 5), one, zero, one, 1),
        }
        theirs = torch_conv(x, w, b, gy)
        for op in ("fwd", "bwd_input", "bwd_weight"):
            cases.append((f"{tag} {op}", ours[op], theirs.get(op)))
    return cases


def pool_cases(N, dt, rng):
    cases = []
    for tag, (C, H) in (("pool1", (6, 28)), ("pool2", (16, 10))):
        x = rng.standard_normal((N, C, H, H)).astype(dt)
        k, s, p, d = (2, 2), (2, 2), (0, 0), (1, 1)
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


def torch_conv(x, w, b, gy):
    if torch is None:
        return {}
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    return {
        "fwd": lambda: torch.nn.functional.conv2d(xt, wt, bt),
        "bwd_input": lambda: torch.nn.grad.conv2d_input(xt.shape, wt, gyt),
        "bwd_weight": lambda: torch.nn.grad.conv2d_weight(xt, wt.shape, gyt),
    }


def torch_pool(x, gy):
    if torch is None:
        return {}
    F = torch.nn.functional
    xt, gyt = torch.from_numpy(x), torch.from_numpy(gy)
    _, it = F.max_pool2d(xt, 2, return_indices=True)
    aten = torch.ops.aten
    return {
        "max fwd": lambda: F.max_pool2d(xt, 2, return_indices=True),
        "max bwd": lambda: aten.max_pool2d_with_indices_backward(gyt, xt, [2, 2], [2, 2], [0, 0],
                                                                 [1, 1], False, it),
        "avg fwd": lambda: F.avg_pool2d(xt, 2),
        "avg bwd": lambda: aten.avg_pool2d_backward(gyt, xt, [2, 2], [2, 2], [0, 0], False, True, None),
    }


def main():
    global torch
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batches", type=int, nargs="+", default=[4, 64, 256])
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--no-torch", action="store_true", help="time nnlite only")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: process CPU time, steadier on a busy machine (with --threads 1)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter

    import numba
    from threadpoolctl import threadpool_limits
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    threadpool_limits(args.threads)
    torch = None
    if not args.no_torch:
        try:
            import torch
            torch.set_num_threads(args.threads)
        except ImportError:
            torch = None

    dt = np.dtype(args.dtype)
    print(f"threads={args.threads} dtype={dt} clock={args.clock} "
          f"torch={torch.__version__ if torch else 'absent'}")
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
        print(f"{N:>5}  {'lenet step':<18} {step[0]:>10.3f} {step[1]:>10.3f} {step[0] / step[1]:>7.2f}")
        print()


torch = None

if __name__ == "__main__":
    main()
