"""Tensor's methods find the functions of higher modules through the providers table."""

import subprocess
import sys

import pytest

import nnlite as nl
from nnlite.autograd.providers import PROVIDERS, implementation, provide


def test_a_method_imports_its_provider_on_first_use():
    # nl.linalg loads on first use; Tensor.det must load it through the table, not fail
    code = (
        "import sys, nnlite as nl\n"
        "assert 'nnlite.linalg' not in sys.modules\n"
        "print(nl.tensor([[2., 0.], [0., 3.]]).det().item())\n"
        "assert 'nnlite.linalg' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "6.0"


def test_lookups_return_the_registered_functions():
    assert implementation("creation.zeros") is nl.zeros
    assert implementation("linalg.det") is nl.linalg.det
    assert implementation("nn.functional.conv2d") is nl.nn.functional.conv2d


def test_unknown_names_are_refused_with_the_providers():
    with pytest.raises(KeyError, match="no provider registers 'fft.fft'"):
        implementation("fft.fft")
    with pytest.raises(KeyError, match="nnlite.linalg registers no function 'linalg.nope'"):
        implementation("linalg.nope")
    with pytest.raises(ValueError, match="'fft' is not one of the providers"):
        provide("fft", {})
    assert "linalg" in PROVIDERS
