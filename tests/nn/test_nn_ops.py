"""Every nn functional op, from one table (``nn_cases.CASES``): finite-difference gradients (first and
second order, float64), PyTorch parity of forward and gradients, dtype preservation, and the
hygiene checks (inputs untouched, gradients not aliasing inputs)."""

import numpy as np
import pytest
from nn_cases import CASE_IDS, CASES

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck


def _differentiable(inputs):
    return [t for t in inputs if t.requires_grad]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_gradcheck(case):
    inputs = case.nl_inputs()
    assert gradcheck(case.nl_fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.gradgrad], ids=[c.id for c in CASES if c.gradgrad]
)
def test_gradgradcheck(case):
    inputs = case.nl_inputs()
    assert gradgradcheck(case.nl_fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.torch_compare], ids=[c.id for c in CASES if c.torch_compare]
)
def test_matches_torch(case):
    torch = pytest.importorskip("torch")
    nl_in = case.nl_inputs()
    t_in = case.torch_inputs(torch)
    out = case.nl_fn(*nl_in)
    t_out = case.torch_fn(*t_in)
    assert tuple(out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    v = np.random.default_rng(1).standard_normal(tuple(out.shape))
    (out * nl.tensor(v)).sum().backward()
    (t_out * torch.from_numpy(v)).sum().backward()
    for i, (a, b) in enumerate(zip(nl_in, t_in)):
        if not a.requires_grad:
            continue
        assert (a.grad is None) == (b.grad is None), f"input {i}"
        if a.grad is not None:
            np.testing.assert_allclose(
                a.grad.numpy(),
                b.grad.numpy(),
                rtol=1e-9,
                atol=1e-11,
                err_msg=f"gradient of input {i}",
            )


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_float32_stays_float32(case):
    inputs = case.nl_inputs(dtype=np.float32)
    out = case.nl_fn(*inputs)
    assert out.dtype == nl.float32
    out.sum().backward()
    for t in _differentiable(inputs):
        if t.grad is not None:
            assert t.grad.dtype == nl.float32


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_inputs_untouched_and_grads_fresh(case):
    inputs = case.nl_inputs()
    before = [t.detach().numpy().copy() for t in inputs]
    out = case.nl_fn(*inputs)
    out.sum().backward()
    for t, b in zip(inputs, before):
        np.testing.assert_array_equal(t.detach().numpy(), b)
        if t.requires_grad and t.grad is not None:
            assert not np.shares_memory(t.grad.numpy(), t.detach().numpy())
            assert t.grad.shape == t.shape


def test_instance_norm_without_running_stats_in_eval_mode_is_pytorchs_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.instance_norm(torch.ones(2, 3, 4), use_input_stats=False)
    with pytest.raises(RuntimeError) as ours:
        nl.nn.functional.instance_norm(nl.ones(2, 3, 4), use_input_stats=False)
    assert str(ours.value) == str(theirs.value)
