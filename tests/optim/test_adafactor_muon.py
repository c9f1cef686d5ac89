"""Adafactor, Muon and swap_in_optimizer_params_and_state against torch.optim: the same
parameters and gradients for several steps give the same parameters and state dicts; bad options
raise PyTorch's errors."""

import copy

import numpy as np
import pytest

import nnlite as nl
from nnlite import optim

torch = pytest.importorskip("torch", reason="the parity tests compare with torch")

STEPS = 5
ADAFACTOR_SHAPES = [(4, 3), (5,), (2, 3, 2), ()]
MUON_SHAPES = [(4, 3), (3, 5), (6, 6)]

CONFIGS = [
    ("Adafactor", dict(), ADAFACTOR_SHAPES),
    (
        "Adafactor",
        dict(lr=0.05, beta2_decay=-0.5, eps=(1e-4, 1e-2), d=2.0, weight_decay=0.1),
        ADAFACTOR_SHAPES,
    ),
    ("Adafactor", dict(lr=0.02, maximize=True), ADAFACTOR_SHAPES),
    ("Muon", dict(), MUON_SHAPES),
    ("Muon", dict(lr=0.02, momentum=0.9, weight_decay=0.0), MUON_SHAPES),
    ("Muon", dict(lr=0.02, nesterov=False, adjust_lr_fn="match_rms_adamw"), MUON_SHAPES),
    ("Muon", dict(lr=0.05, adjust_lr_fn="original", ns_steps=3), MUON_SHAPES),
]
IDS = [
    f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for name, kw, _ in CONFIGS
]


def _pair(rng, shapes, dtype):
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return (
        [nl.tensor(a, requires_grad=True) for a in arrays],
        [torch.tensor(a, requires_grad=True) for a in arrays],
    )


def _set_grads(rng, ours, theirs):
    for p, q in zip(ours, theirs):
        g = rng.standard_normal(p.shape).astype(p._data.dtype)
        p.grad, q.grad = nl.tensor(g), torch.tensor(g)


def _assert_close(ours, theirs, atol):
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p._data, q.detach().numpy(), rtol=1e-5, atol=atol)


def _to_numpy(value):
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    if isinstance(value, nl.Tensor):
        return value._data
    return value


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs,shapes", CONFIGS, ids=IDS)
def test_steps_match_torch(name, kwargs, shapes, dtype):
    rng = np.random.default_rng(0)
    ours, theirs = _pair(rng, shapes, dtype)
    opt = getattr(optim, name)(ours, **kwargs)
    ref = getattr(torch.optim, name)(theirs, **kwargs)
    for _ in range(STEPS):
        _set_grads(rng, ours, theirs)
        opt.step()
        ref.step()
        # Muon's bfloat16 iterations: one bfloat16 rounding apart at most
        _assert_close(ours, theirs, atol=1e-6 if dtype is np.float32 else 1e-12)
    ours_sd, theirs_sd = opt.state_dict(), ref.state_dict()
    assert ours_sd["param_groups"] == theirs_sd["param_groups"]
    assert ours_sd["state"].keys() == theirs_sd["state"].keys()
    for index, state in theirs_sd["state"].items():
        assert list(ours_sd["state"][index]) == list(state)
        for key, value in state.items():
            mine = _to_numpy(ours_sd["state"][index][key])
            assert mine.shape == tuple(value.shape), key
            assert mine.dtype == _to_numpy(value).dtype, key
            np.testing.assert_allclose(mine, _to_numpy(value), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,kwargs,shapes", CONFIGS[:1] + CONFIGS[3:4], ids=IDS[:1] + IDS[3:4])
def test_state_dict_round_trip_continues_like_torch(name, kwargs, shapes, tmp_path):
    rng = np.random.default_rng(1)
    ours, theirs = _pair(rng, shapes, np.float32)
    opt = getattr(optim, name)(ours, **kwargs)
    ref = getattr(torch.optim, name)(theirs, **kwargs)
    _set_grads(rng, ours, theirs)
    opt.step()
    ref.step()
    nl.save(opt.state_dict(), tmp_path / "opt.npz")
    fresh = getattr(optim, name)(ours, **kwargs)
    fresh.load_state_dict(nl.load(tmp_path / "opt.npz"))
    _set_grads(rng, ours, theirs)
    fresh.step()
    ref.step()
    _assert_close(ours, theirs, atol=1e-6)


def _torch_error(make):
    with pytest.raises(Exception) as info:
        make()
    return type(info.value), str(info.value)


BAD_OPTIONS = [
    ("Adafactor", dict(lr=-1.0)),
    ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1e-3))),
    ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(weight_decay=-0.1)),
    ("Muon", dict(lr=-1.0)),
    ("Muon", dict(momentum=-0.5)),
    ("Muon", dict(weight_decay=-0.1)),
    ("Muon", dict(adjust_lr_fn="other")),
]


@pytest.mark.parametrize("name,kwargs", BAD_OPTIONS)
def test_bad_options_raise_torchs_error(name, kwargs):
    expected_type, expected = _torch_error(
        lambda: getattr(torch.optim, name)([torch.zeros(2, 2, requires_grad=True)], **kwargs)
    )
    with pytest.raises(expected_type) as info:
        getattr(optim, name)([nl.zeros(2, 2, requires_grad=True)], **kwargs)
    assert str(info.value) == expected


def test_muon_refuses_a_vector_like_torch():
    expected_type, expected = _torch_error(
        lambda: torch.optim.Muon([torch.zeros(3, requires_grad=True)])
    )
    with pytest.raises(expected_type) as info:
        optim.Muon([nl.zeros(3, requires_grad=True)])
    # nnlite's Size prints as nnlite.Size
    assert str(info.value) == expected.replace("torch.Size", "nnlite.Size")


def test_muon_newton_schulz_checks_like_torch():
    from torch.optim._muon import _zeropower_via_newtonschulz as theirs

    from nnlite.optim.muon import zeropower_via_newtonschulz as ours

    g = np.ones((2, 2), np.float32)
    for args in [((1.0, 2.0, 3.0), 100), ((1.0, 2.0), 5)]:
        expected_type, expected = _torch_error(
            lambda args=args: theirs(torch.tensor(g), *args, 1e-7)
        )
        with pytest.raises(expected_type) as info:
            ours(g, *args, 1e-7)
        assert str(info.value) == expected


def test_defaults_and_repr_match_torch():
    for name in ("Adafactor", "Muon"):
        ours = getattr(optim, name)([nl.zeros(2, 2, requires_grad=True)])
        theirs = getattr(torch.optim, name)([torch.zeros(2, 2, requires_grad=True)])
        assert ours.defaults == theirs.defaults
        assert repr(ours) == repr(theirs)


# ------------------------------------------------------------------ swap_in_optimizer_params_and_state


def _stepped(rng, opt_cls):
    ours, theirs = _pair(rng, [(3, 2), (3,)], np.float32)
    opt, ref = opt_cls[0](ours, lr=0.1), opt_cls[1](theirs, lr=0.1)
    _set_grads(rng, ours, theirs)
    opt.step()
    ref.step()
    return ours, theirs, opt, ref


def test_swap_in_steps_the_given_params_and_state_like_torch():
    rng = np.random.default_rng(2)
    ours, theirs, opt, ref = _stepped(rng, (optim.Adam, torch.optim.Adam))
    twin_ours = {f"p{i}": p.detach().clone().requires_grad_() for i, p in enumerate(ours)}
    twin_theirs = {f"p{i}": p.detach().clone().requires_grad_() for i, p in enumerate(theirs)}
    _set_grads(rng, list(twin_ours.values()), list(twin_theirs.values()))
    sd_ours, sd_theirs = copy.deepcopy(opt.state_dict()), copy.deepcopy(ref.state_dict())
    sd_ours["param_groups"][0]["lr"] = sd_theirs["param_groups"][0]["lr"] = 0.5
    live_before = [p._data.copy() for p in ours]
    with optim.swap_in_optimizer_params_and_state(opt, twin_ours, sd_ours):
        assert opt.param_groups[0]["lr"] == 0.5
        opt.step()
    with torch.optim.swap_in_optimizer_params_and_state(ref, twin_theirs, sd_theirs):
        ref.step()
    _assert_close(twin_ours.values(), twin_theirs.values(), atol=1e-6)
    # the swapped-in state was updated in place, the live optimizer left as it was
    assert float(sd_ours["state"][0]["step"]) == float(sd_theirs["state"][0]["step"]) == 2.0
    assert float(opt.state[ours[0]]["step"]) == 1.0
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["params"][0] is ours[0]
    for p, before in zip(ours, live_before):
        np.testing.assert_array_equal(p._data, before)


def _swap_errors(mod, opt, params):
    good = opt.state_dict()
    cases = [
        dict(state=[], param_groups=good["param_groups"]),
        dict(state=good["state"], param_groups=[]),
        dict(state=good["state"], param_groups=good["param_groups"] * 2),
        dict(state={**good["state"], 7: {}}, param_groups=good["param_groups"]),
        dict(
            state=good["state"],
            param_groups=[{**good["param_groups"][0], "extra": 1}],
        ),
        dict(state=good["state"], param_groups=[{**good["param_groups"][0], "params": [0]}]),
        dict(state={0: 3}, param_groups=good["param_groups"]),
    ]
    messages = []
    for sd in cases:
        with pytest.raises(RuntimeError) as info:
            with mod.swap_in_optimizer_params_and_state(opt, params, sd):
                pass
        messages.append(str(info.value))
    with pytest.raises(RuntimeError) as info:
        with mod.swap_in_optimizer_params_and_state(opt, dict(list(params.items())[:1]), good):
            pass
    return messages + [str(info.value)]


def test_swap_in_errors_match_torch():
    rng = np.random.default_rng(3)
    ours, theirs, opt, ref = _stepped(rng, (optim.Adam, torch.optim.Adam))
    ours_msgs = _swap_errors(optim, opt, {f"p{i}": p for i, p in enumerate(ours)})
    theirs_msgs = _swap_errors(torch.optim, ref, {f"p{i}": p for i, p in enumerate(theirs)})
    assert ours_msgs == theirs_msgs


def test_swap_in_needs_initialized_state():
    opt = optim.SGD([nl.zeros(2, requires_grad=True)], lr=0.1)
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with optim.swap_in_optimizer_params_and_state(opt, {}, opt.state_dict()):
            pass


@pytest.mark.parametrize("name", ["Adafactor", "Muon", "swap_in_optimizer_params_and_state"])
def test_signatures_match_torch(name):
    import inspect

    ours = inspect.signature(getattr(optim, name)).parameters
    theirs = inspect.signature(getattr(torch.optim, name)).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == [
        (p.name, p.kind, p.default) for p in theirs.values()
    ]


def test_keyword_and_positional_forms_agree():
    weights = [nl.ones(2, 2, requires_grad=True) for _ in range(2)]
    by_position = optim.Adafactor([weights[0]], 0.05, -0.5, (None, 1e-2), 2.0, 0.1)
    by_keyword = optim.Adafactor(
        [weights[1]], lr=0.05, beta2_decay=-0.5, eps=(None, 1e-2), d=2.0, weight_decay=0.1
    )
    assert by_position.param_groups[0].keys() == by_keyword.param_groups[0].keys()
    assert [v for k, v in by_position.param_groups[0].items() if k != "params"] == [
        v for k, v in by_keyword.param_groups[0].items() if k != "params"
    ]
