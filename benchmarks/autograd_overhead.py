"""Per-op overhead of the autograd engine: nnlite vs PyTorch (when installed).

Workloads, each timed forward-only and forward+backward, reported per recorded op:
  * a chain of 50 small elementwise ops on an 8-element tensor (pure dispatch overhead);
  * a 2-layer MLP (32x64 -> 128 -> 10) with an MSE loss written with raw tensor ops;
  * the same MLP as a training step with the nn API (nn.Linear, nn.MSELoss, optim.SGD).

Run: python benchmarks/autograd_overhead.py
"""

import time

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)
import numpy as np


def chain_program(lib, x):
    y = x
    for i in range(50):
        y = (y * 1.0001 + 0.001).tanh() if i % 3 == 0 else y * 0.999 + 0.0001
    return y.sum()


CHAIN_OPS = 17 * 3 + 33 * 2 + 1  # ops recorded by chain_program


def mlp_program(lib, params, x, y):
    w1, b1, w2, b2 = params
    h = (x @ w1.T + b1).relu()
    return ((h @ w2.T + b2 - y) ** 2).mean()


MLP_OPS = 9


def best_time(fn, repeats=7, number=200):
    for _ in range(20):
        fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def measure(lib, make):
    x = make(np.random.default_rng(0).standard_normal(8).astype(np.float32), True)
    rng = np.random.default_rng(1)
    params = [
        make(rng.standard_normal(s).astype(np.float32) * 0.1, True)
        for s in [(128, 64), (128,), (10, 128), (10,)]
    ]
    xb = make(rng.standard_normal((32, 64)).astype(np.float32), False)
    yb = make(rng.standard_normal((32, 10)).astype(np.float32), False)

    def chain_backward():
        chain_program(lib, x).backward()

    def mlp_backward():
        for p in params:
            p.grad = None
        mlp_program(lib, params, xb, yb).backward()

    nn_step = make_nn_step(lib, params, xb, yb)
    return {
        "chain forward": best_time(lambda: chain_program(lib, x)) / CHAIN_OPS,
        "chain forward+backward": best_time(chain_backward) / CHAIN_OPS,
        "mlp forward": best_time(lambda: mlp_program(lib, params, xb, yb)) / MLP_OPS,
        "mlp forward+backward": best_time(mlp_backward) / MLP_OPS,
        "mlp nn step (per step)": best_time(nn_step) / NN_STEP_OPS,
    }


NN_STEP_OPS = 1  # reported per whole step


def make_nn_step(lib, params, xb, yb):
    """zero_grad, forward through two nn.Linear layers and ReLU, MSELoss, backward, SGD step."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    with lib.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(value)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()

    def step():
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()

    return step


def main():
    machine_facts.print_machine()
    import nnlite as nl

    nl.set_num_threads(1)
    ours = measure(nl, lambda a, rg: nl.tensor(a, requires_grad=rg))
    try:
        import torch

        torch.set_num_threads(1)
        theirs = measure(torch, lambda a, rg: torch.tensor(a, requires_grad=rg))
    except ImportError:
        theirs = None
    print(
        f"{'workload (µs per op)':28s} {'nnlite':>9s}"
        + (f" {'PyTorch':>9s} {'ratio':>7s}" if theirs else "")
    )
    for key, value in ours.items():
        line = f"{key:28s} {value * 1e6:9.2f}"
        if theirs:
            line += f" {theirs[key] * 1e6:9.2f} {theirs[key] / value:6.2f}x"
        print(line)
    if theirs:
        print("ratio > 1 means nnlite is faster")


if __name__ == "__main__":
    main()
