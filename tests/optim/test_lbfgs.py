"""LBFGS against torch.optim.LBFGS: the same function (a smooth function of two parameters),
20 steps in float64, with and without the strong-Wolfe line search; state dict round trip."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import optim

torch = pytest.importorskip("torch")

STEPS = 20
CONFIGS = [
    dict(),
    dict(lr=0.5, max_iter=3),
    dict(max_iter=4, history_size=3),
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", max_iter=3, history_size=2),
    dict(lr=0.2, max_iter=5, max_eval=6, line_search_fn="strong_wolfe"),
]
IDS = ["-".join(f"{k}={v}" for k, v in kw.items()) or "defaults" for kw in CONFIGS]


def objective(lib, x, y):
    """A smooth, well-conditioned non-quadratic function coupling the two parameters (a badly
    conditioned one, like Rosenbrock's valley, amplifies last-bit differences of the gradients
    until the two runs part ways)."""
    return (
        ((x - 1) ** 2) * 2 + 0.25 * x**4 + (y + 0.5) ** 2 + 0.3 * x * y + 0.1 * (x * y) ** 2
    ).sum()


def make(lib, start):
    return [lib.tensor(a.copy(), requires_grad=True) for a in start]


def closure_for(lib, opt, params):
    def closure():
        opt.zero_grad()
        loss = objective(lib, *params)
        loss.backward()
        return loss

    return closure


def start_points():
    rng = np.random.default_rng(0)
    return [rng.uniform(-3, 3, size=(3,)), rng.uniform(-3, 3, size=(4, 3))]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=IDS)
def test_twenty_steps_match_torch_in_float64(kwargs):
    start = start_points()
    nl_params, torch_params = make(nl, start), make(torch, start)
    nl_opt, torch_opt = optim.LBFGS(nl_params, **kwargs), torch.optim.LBFGS(torch_params, **kwargs)
    nl_closure, torch_closure = (
        closure_for(nl, nl_opt, nl_params),
        closure_for(torch, torch_opt, torch_params),
    )
    for _ in range(STEPS):
        nl_loss = nl_opt.step(nl_closure)
        torch_loss = torch_opt.step(torch_closure)
        assert nl_loss.item() == pytest.approx(torch_loss.item(), rel=1e-9, abs=1e-12)
        for p, q in zip(nl_params, torch_params):
            np.testing.assert_allclose(
                p.detach().numpy(), q.detach().numpy(), rtol=1e-9, atol=1e-11
            )
    nstate = nl_opt.state[nl_params[0]]
    tstate = torch_opt.state[torch_params[0]]
    assert nstate["func_evals"] == tstate["func_evals"] and nstate["n_iter"] == tstate["n_iter"]
    assert len(nstate["old_dirs"]) == len(tstate["old_dirs"])
    assert float(nstate["t"]) == pytest.approx(float(tstate["t"]), rel=1e-9)


def test_defaults_and_repr_match_torch():
    start = start_points()
    nl_opt, torch_opt = optim.LBFGS(make(nl, start)), torch.optim.LBFGS(make(torch, start))
    assert nl_opt.defaults == torch_opt.defaults
    assert repr(nl_opt) == repr(torch_opt)


def test_state_dict_round_trip_continues_exactly(tmp_path):
    start = start_points()
    kwargs = dict(max_iter=3, history_size=4, line_search_fn="strong_wolfe")
    straight = make(nl, start)
    opt = optim.LBFGS(straight, **kwargs)
    for _ in range(10):
        opt.step(closure_for(nl, opt, straight))

    first = make(nl, start)
    opt1 = optim.LBFGS(first, **kwargs)
    for _ in range(5):
        opt1.step(closure_for(nl, opt1, first))
    nl.save(
        {"params": [p.detach() for p in first], "optim": opt1.state_dict()}, tmp_path / "ckpt.npz"
    )
    ckpt = nl.load(tmp_path / "ckpt.npz")
    second = [nl.tensor(p.numpy(), requires_grad=True) for p in ckpt["params"]]
    opt2 = optim.LBFGS(second, lr=123.0)
    opt2.load_state_dict(ckpt["optim"])
    for _ in range(5):
        opt2.step(closure_for(nl, opt2, second))
    for a, b in zip(straight, second):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_errors_like_torch():
    p = nl.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [nl.zeros(1, requires_grad=True)]}])
    opt = optim.LBFGS([p], line_search_fn="wolfe")

    def closure():
        opt.zero_grad()
        loss = (p * p).sum() + p.sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
