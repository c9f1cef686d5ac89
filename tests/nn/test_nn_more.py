"""The rows of ``nn_more_cases.MORE_CASES`` (multi-head attention, CTC loss, fractional max
pooling) through the op-table checks of ``test_nn_ops.py``: gradcheck and gradgradcheck in
float64, PyTorch parity of values and gradients, float32 kept, inputs untouched."""

import pytest
from nn_more_cases import MORE_CASES, MORE_IDS
from test_nn_ops import test_float32_stays_float32 as _float32_kept
from test_nn_ops import test_gradcheck as _gradcheck
from test_nn_ops import test_gradgradcheck as _gradgradcheck
from test_nn_ops import test_inputs_untouched_and_grads_fresh as _inputs_untouched
from test_nn_ops import test_matches_torch as _matches_torch

_SECOND_ORDER = [c for c in MORE_CASES if c.gradgrad]
_COMPARED = [c for c in MORE_CASES if c.torch_compare]


@pytest.mark.parametrize("case", MORE_CASES, ids=MORE_IDS)
def test_gradcheck(case):
    _gradcheck(case)


@pytest.mark.parametrize("case", _SECOND_ORDER, ids=[c.id for c in _SECOND_ORDER])
def test_gradgradcheck(case):
    _gradgradcheck(case)


@pytest.mark.parametrize("case", _COMPARED, ids=[c.id for c in _COMPARED])
def test_matches_torch(case):
    _matches_torch(case)


@pytest.mark.parametrize("case", MORE_CASES, ids=MORE_IDS)
def test_float32_stays_float32(case):
    _float32_kept(case)


@pytest.mark.parametrize("case", MORE_CASES, ids=MORE_IDS)
def test_inputs_untouched_and_grads_fresh(case):
    _inputs_untouched(case)
