"""Optimizer base behaviour: construction errors (PyTorch's messages), zero_grad, frozen
parameters, state_dict layout and load_state_dict validation, closures."""

import warnings

import numpy as np
import pytest

import nnlite as nl
from nnlite import optim

torch = pytest.importorskip("torch")


def leaf(*shape, seed=0):
    return nl.tensor(
        np.random.default_rng(seed).standard_normal(shape).astype(np.float32), requires_grad=True
    )


def torch_error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def same_error(nl_fn, torch_fn):
    """nnlite raises the exception type and message torch raises."""
    expected_type, expected_msg = torch_error(torch_fn)
    with pytest.raises(expected_type) as info:
        nl_fn()
    assert str(info.value) == expected_msg
    return expected_msg


# ------------------------------------------------------------------ construction errors

CONSTRUCTION_ERRORS = [
    ("SGD", dict(lr=-1)),
    ("SGD", dict(lr=0.1, momentum=-0.5)),
    ("SGD", dict(lr=0.1, weight_decay=-1e-4)),
    ("SGD", dict(lr=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam", dict(lr=-0.5)),
    ("Adam", dict(eps=-1.0)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(weight_decay=-1.0)),
    ("AdamW", dict(lr=-1e-3)),
    ("AdamW", dict(betas=(0.9, 1.5))),
    ("Adadelta", dict(lr=-1.0)),
    ("Adadelta", dict(rho=1.5)),
    ("Adadelta", dict(eps=-1e-6)),
    ("Adadelta", dict(weight_decay=-0.1)),
    ("RMSprop", dict(eps=-1.0)),
    ("RMSprop", dict(momentum=-0.1)),
    ("RMSprop", dict(weight_decay=-0.1)),
    ("RMSprop", dict(alpha=-0.5)),
    ("Adagrad", dict(lr_decay=-1.0)),
    ("Adagrad", dict(weight_decay=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)),
    ("Adagrad", dict(eps=-1.0)),
    ("LBFGS", dict(lr=-1.0)),
]


@pytest.mark.parametrize("name,kwargs", CONSTRUCTION_ERRORS)
def test_invalid_options_raise_torchs_error(name, kwargs):
    msg = same_error(
        lambda: getattr(optim, name)([leaf(2)], **kwargs),
        lambda: getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs),
    )
    assert msg.startswith("Invalid") or "Nesterov" in msg


def test_invalid_learning_rate_message():
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -1$"):
        optim.SGD([leaf(2)], lr=-1)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_non_leaf_tensor_raises(name):
    x = leaf(3)
    with pytest.raises(ValueError, match=r"^can't optimize a non-leaf Tensor$"):
        getattr(optim, name)([x * 2])


def test_non_leaf_that_retains_grad_is_accepted():
    y = leaf(3) * 2
    y.retain_grad()
    optim.SGD([y], lr=0.1)


def test_params_given_as_a_tensor():
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got"):
        optim.SGD(leaf(2), lr=0.1)


def test_empty_parameter_list():
    same_error(lambda: optim.SGD([], lr=0.1), lambda: torch.optim.SGD([], lr=0.1))


def test_non_tensor_parameter():
    same_error(
        lambda: optim.SGD([leaf(2), 3], lr=0.1),
        lambda: torch.optim.SGD([torch.zeros(2, requires_grad=True), 3], lr=0.1),
    )


def test_params_in_a_set():
    p = leaf(2)
    same_error(
        lambda: optim.SGD([{"params": {p}}], lr=0.1),
        lambda: torch.optim.SGD([{"params": {torch.zeros(2, requires_grad=True)}}], lr=0.1),
    )


def test_param_in_two_groups():
    p, q = leaf(2), leaf(3)
    tp, tq = torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)
    same_error(
        lambda: optim.SGD([{"params": [p]}, {"params": [q, p]}], lr=0.1),
        lambda: torch.optim.SGD([{"params": [tp]}, {"params": [tq, tp]}], lr=0.1),
    )
    opt = optim.Adam([p])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": p})


def test_param_twice_in_one_group_warns_like_torch():
    p = leaf(2)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p, p], lr=0.1)


def test_add_param_group_not_a_dict():
    opt = optim.SGD([leaf(2)], lr=0.1)
    topt = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
    same_error(
        lambda: opt.add_param_group([leaf(3)]),
        lambda: topt.add_param_group([torch.zeros(3, requires_grad=True)]),
    )


def test_named_parameters():
    p, q = leaf(2), leaf(3)
    opt = optim.SGD([("a", p), ("b", q)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.param_groups[0]["params"] == [p, q]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.SGD([("a", p), q], lr=0.1)


def test_generator_of_parameters():
    ps = [leaf(2), leaf(3)]
    opt = optim.SGD((p for p in ps), lr=0.1)
    assert opt.param_groups[0]["params"] == ps


def test_differentiable_is_refused():
    with pytest.raises(ValueError, match="differentiable"):
        optim.SGD([leaf(2)], lr=0.1, differentiable=True)


def test_defaults_match_torch():
    p = [leaf(2)]
    tp = [torch.zeros(2, requires_grad=True)]
    for name in ("SGD", "Adam", "AdamW", "Adadelta", "RMSprop", "Adagrad", "LBFGS"):
        assert getattr(optim, name)(p).defaults == getattr(torch.optim, name)(tp).defaults


# ------------------------------------------------------------------ zero_grad, skipped params


def test_zero_grad_sets_to_none_by_default():
    p = leaf(3)
    p.grad = nl.ones(3)
    opt = optim.SGD([p], lr=0.1)
    opt.zero_grad()
    assert p.grad is None


def test_zero_grad_in_place():
    p = leaf(3)
    g = nl.ones(3)
    p.grad = g
    version = g._version
    optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad is g
    np.testing.assert_array_equal(g._data, np.zeros(3, np.float32))
    assert g._version > version


def test_zero_grad_in_place_detaches_a_graph_gradient():
    p = leaf(3)
    w = leaf(3, seed=1)
    (p * w).sum().backward(create_graph=True)
    assert p.grad.requires_grad
    optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert not p.grad.requires_grad and p.grad.grad_fn is None
    np.testing.assert_array_equal(p.grad._data, np.zeros(3, np.float32))


def test_zero_grad_leaves_missing_grads_missing():
    p = leaf(3)
    optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad is None


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
        ("Adam", dict(weight_decay=0.1)),
        ("AdamW", dict()),
        ("Adadelta", dict()),
        ("RMSprop", dict(momentum=0.9, centered=True)),
    ],
)
def test_frozen_params_are_skipped(name, kwargs):
    frozen, trained = leaf(4, seed=1), leaf(4, seed=2)
    before = frozen._data.copy()
    opt = getattr(optim, name)([frozen, trained], **kwargs)
    for _ in range(3):
        trained.grad = nl.ones(4)
        opt.step()
    np.testing.assert_array_equal(frozen._data, before)
    assert frozen not in opt.state
    assert list(opt.state_dict()["state"]) == [1]
    assert not np.array_equal(trained._data, leaf(4, seed=2)._data)


def test_step_bumps_the_version_counter():
    p = leaf(3)
    p.grad = nl.ones(3)
    version = p._version
    optim.SGD([p], lr=0.1).step()
    assert p._version > version


def test_step_does_not_modify_the_gradient():
    for name, kwargs in [
        ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1, maximize=True)),
        ("Adam", dict(weight_decay=0.1, maximize=True)),
    ]:
        p = leaf(3)
        g = nl.tensor([1.0, -2.0, 3.0])
        p.grad = g
        opt = getattr(optim, name)([p], **kwargs)
        opt.step()
        opt.step()
        np.testing.assert_array_equal(g._data, np.array([1.0, -2.0, 3.0], np.float32))


def test_momentum_buffer_does_not_alias_the_gradient():
    p = leaf(3)
    p.grad = nl.ones(3)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    assert not np.shares_memory(buf._data, p.grad._data)
    p.grad._data[...] = 5
    np.testing.assert_array_equal(buf._data, np.ones(3, np.float32))


def test_state_keys_like_torch():
    p = leaf(3)
    p.grad = nl.ones(3)
    opt = optim.Adam([p], amsgrad=True)
    opt.step()
    assert list(opt.state[p]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert opt.state[p]["step"]._data.dtype == np.float32
    assert float(opt.state[p]["step"]._data) == 1.0
    sgd = optim.SGD([p], lr=0.1)
    sgd.step()
    assert len(sgd.state) == 0  # no momentum: no state


def test_closure_is_evaluated_with_grad_enabled():
    p = leaf(3)
    opt = optim.SGD([p], lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        calls.append(nl.is_grad_enabled())
        loss = (p * p).sum()
        loss.backward()
        return loss

    with nl.no_grad():
        loss = opt.step(closure)
    assert calls == [True]
    assert isinstance(loss, nl.Tensor)


# ------------------------------------------------------------------ state dicts


def test_state_dict_layout():
    a, b, c = leaf(2), leaf(3), leaf(4)
    opt = optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, c):
        p.grad = nl.ones(p.shape)
    opt.step()
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert list(sd["state"]) == [0, 2]
    assert list(sd["state"][0]) == ["momentum_buffer"]
    assert sd["param_groups"][0]["params"] == [0, 1]
    assert sd["param_groups"][1]["params"] == [2]
    assert sd["param_groups"][1]["lr"] == 0.5
    assert sd["param_groups"][0]["lr"] == 0.1
    assert "params" in opt.param_groups[0] and opt.param_groups[0]["params"][0] is a


def test_load_state_dict_group_count_mismatch():
    a, b = leaf(2), leaf(3)
    ta, tb = torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)
    sd = optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).state_dict()
    tsd = torch.optim.SGD([{"params": [ta]}, {"params": [tb]}], lr=0.1).state_dict()
    same_error(
        lambda: optim.SGD([a, b], lr=0.1).load_state_dict(sd),
        lambda: torch.optim.SGD([ta, tb], lr=0.1).load_state_dict(tsd),
    )


def test_load_state_dict_group_size_mismatch():
    a, b = leaf(2), leaf(3)
    ta, tb = torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)
    sd = optim.SGD([a], lr=0.1).state_dict()
    tsd = torch.optim.SGD([ta], lr=0.1).state_dict()
    same_error(
        lambda: optim.SGD([a, b], lr=0.1).load_state_dict(sd),
        lambda: torch.optim.SGD([ta, tb], lr=0.1).load_state_dict(tsd),
    )


def test_load_state_dict_shape_mismatch_is_clear():
    a = leaf(2)
    a.grad = nl.ones(2)
    opt = optim.Adam([a])
    opt.step()
    with pytest.raises(
        ValueError,
        match=r"state 'exp_avg' of shape \(2,\) for parameter 0 of "
        r"shape \(3,\)",
    ):
        optim.Adam([leaf(3)]).load_state_dict(opt.state_dict())


def test_load_state_dict_copies_state():
    a, b = leaf(3), leaf(3)
    a.grad = nl.ones(3)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.step()
    sd = opt.state_dict()
    opt2 = optim.SGD([b], lr=0.1, momentum=0.9)
    opt2.load_state_dict(sd)
    b.grad = nl.ones(3)
    opt2.step()
    # the first optimizer's buffer is untouched by the second one's step
    np.testing.assert_array_equal(opt.state[a]["momentum_buffer"]._data, np.ones(3, np.float32))
    assert opt2.param_groups[0]["params"][0] is b
    # loaded param groups do not alias the state dict's
    sd["param_groups"][0]["lr"] = 99.0
    assert opt2.param_groups[0]["lr"] == 0.1


def test_load_state_dict_casts_state_to_param_dtype():
    a = leaf(3)
    a.grad = nl.ones(3)
    opt = optim.Adam([a])
    opt.step()
    b = nl.tensor(np.zeros(3), requires_grad=True)  # float64
    opt2 = optim.Adam([b])
    opt2.load_state_dict(opt.state_dict())
    assert opt2.state[b]["exp_avg"]._data.dtype == np.float64
    assert opt2.state[b]["step"]._data.dtype == np.float32


def test_load_state_dict_accepts_old_style_step_and_missing_options():
    a = leaf(3)
    a.grad = nl.ones(3)
    opt = optim.Adam([a])
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["step"] = 1  # a plain number, as older PyTorch versions stored it
    del sd["param_groups"][0]["amsgrad"]
    opt2 = optim.Adam([leaf(3)])
    opt2.load_state_dict(sd)
    group = opt2.param_groups[0]
    assert group["amsgrad"] is False
    p = group["params"][0]
    assert isinstance(opt2.state[p]["step"], nl.Tensor)
    p.grad = nl.ones(3)
    opt2.step()
    assert float(opt2.state[p]["step"]._data) == 2.0


def test_state_dict_survives_save_and_load(tmp_path):
    a, b = leaf(2, 2), leaf(3)
    opt = optim.Adam([{"params": [a]}, {"params": [b], "betas": (0.5, 0.75)}], amsgrad=True)
    a.grad, b.grad = nl.ones(2, 2), nl.ones(3)
    opt.step()
    nl.save(opt.state_dict(), tmp_path / "opt.npz")
    sd = nl.load(tmp_path / "opt.npz")
    assert list(sd["state"]) == [0, 1]
    assert sd["param_groups"][1]["betas"] == (0.5, 0.75)
    assert sd["param_groups"] == opt.state_dict()["param_groups"]
    opt2 = optim.Adam([{"params": [leaf(2, 2)]}, {"params": [leaf(3)]}])
    opt2.load_state_dict(sd)
    assert repr(opt2) == repr(opt)


def test_deepcopy_and_pickle_of_an_optimizer():
    import copy
    import pickle

    a = leaf(3)
    a.grad = nl.ones(3)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.step()
    clone = copy.deepcopy(opt)
    assert repr(clone) == repr(opt)
    restored = pickle.loads(pickle.dumps(opt))
    restored.param_groups[0]["params"][0].grad = nl.ones(3)
    restored.step()


# ------------------------------------------------------------------ warnings hygiene


def test_step_emits_no_warnings():
    p = leaf(3)
    p.grad = nl.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("SGD", "Adam", "AdamW"):
            getattr(optim, name)([p]).step()


def test_optimizes_nn_parameters():
    nn = pytest.importorskip("nnlite.nn")
    if not hasattr(nn, "Parameter"):
        pytest.skip("nnlite.nn.Parameter is not available")
    w = nn.Parameter(nl.tensor(np.ones(3, np.float32)))
    w.grad = nl.ones(3)
    opt = optim.SGD([w], lr=0.5, momentum=0.9)
    opt.step()
    assert type(w) is nn.Parameter
    np.testing.assert_array_equal(w._data, np.full(3, 0.5, np.float32))
    assert isinstance(opt.state[w]["momentum_buffer"], nl.Tensor)


def test_subclass_without_update_or_step_raises_not_implemented():
    class Bare(nl.optim.Optimizer):
        pass

    w = nl.nn.Parameter(nl.ones(2))
    w.grad = nl.ones(2)
    with pytest.raises(NotImplementedError, match="Bare does not implement step"):
        Bare([w], {"lr": 0.1}).step()
