"""nn.Container, nn.factory_kwargs and the helpers nn.functional exports (assert_int_or_pair,
boolean_dispatch, the __torch_function__ helpers): behaviour and messages as PyTorch's."""

import warnings

import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


def test_container_as_pytorch():
    torch = _torch()
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated") as ours:
        c = nn.Container(fc=nn.Linear(2, 3), act=nn.ReLU())
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        t = torch.nn.Container(fc=torch.nn.Linear(2, 3), act=torch.nn.ReLU())
    assert str(ours[0].message) == str(theirs[0].message)
    assert repr(c) == repr(t)
    assert list(c.state_dict()) == list(t.state_dict())


@pytest.mark.parametrize(
    "kwargs",
    [
        None,
        {"dtype": "D"},
        {"device": "cpu", "factory_kwargs": {"dtype": "D"}},
        {"dtype": "D", "factory_kwargs": {"dtype": "D"}},
        {"bias": True},
    ],
)
def test_factory_kwargs_as_pytorch(kwargs):
    torch = _torch()

    def run(nn_module, dtype):
        given = None
        if kwargs is not None:
            given = {k: dtype if v == "D" else v for k, v in kwargs.items()}
            if "factory_kwargs" in given:
                given["factory_kwargs"] = {"dtype": dtype}
        try:
            return {k: str(v) for k, v in nn_module.factory_kwargs(given).items()}
        except TypeError as e:
            return ("TypeError", str(e))

    ours, theirs = run(nn, nl.float64), run(torch.nn, torch.float64)
    assert str(ours).replace("nnlite", "torch") == str(theirs)


def test_assert_int_or_pair_as_pytorch():
    torch = _torch()
    for arg in (3, (1, 2), [4, 5]):
        assert F.assert_int_or_pair(arg, "k", "{} bad") is None
        torch.nn.functional.assert_int_or_pair(arg, "k", "{} bad")
    for module in (F, torch.nn.functional):
        with pytest.raises(AssertionError, match="^stride must be an int or pair$"):
            module.assert_int_or_pair((1, 2, 3), "stride", "{} must be an int or pair")


def test_boolean_dispatch_as_pytorch():
    torch = _torch()
    for module in (F, torch.nn.functional):

        def with_flag(x, flag=True):
            return ("true", x)

        def without(x, flag=False):
            """Doc of the false branch."""
            return ("false", x)

        fn = module.boolean_dispatch("flag", 1, False, with_flag, without, "mine", "pick")
        assert (fn(1), fn(1, True), fn(1, flag=True), fn(1, flag=False)) == (
            ("false", 1),
            ("true", 1),
            ("true", 1),
            ("false", 1),
        )
        assert fn.__doc__ == "Doc of the false branch." and fn.__name__ == "pick"
        assert fn.__module__ == "mine"

        def documented(x):
            """Another doc."""

        with pytest.raises(RuntimeError, match="only one function can have a docstring"):
            module.boolean_dispatch("flag", 1, False, documented, without, None, None)


class _Override:
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func.__name__, [t.__name__ for t in types]))
        return "handled"


class _Child(_Override):
    pass


class _Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_autograd_exports_the_same_helpers_as_pytorch():
    torch = _torch()
    assert nl.autograd.has_torch_function is F.has_torch_function
    assert nl.autograd.handle_torch_function is F.handle_torch_function
    assert torch.autograd.has_torch_function is torch.nn.functional.has_torch_function
    for lib, tensor in ((nl, nl.ones(2)), (torch, torch.ones(2))):
        assert lib.autograd.is_tensor_like(tensor) and lib.autograd.is_tensor_like(_Override())
        assert not lib.autograd.is_tensor_like([1.0])


def test_torch_function_helpers_as_pytorch():
    torch = _torch()
    tf = torch.nn.functional

    def api(*args):
        return "plain"

    for module, tensor in ((F, nl.ones(2)), (tf, torch.ones(2))):
        assert module.has_torch_function((tensor, 1.0)) is False
        assert module.has_torch_function((tensor, _Override())) is True
        assert module.has_torch_function_unary(tensor) is False
        assert module.has_torch_function_variadic(tensor, tensor) is False
        assert module.has_torch_function((tensor, _Override())) is True
        assert module.has_torch_function_unary(_Child()) is True
        assert module.has_torch_function_variadic(tensor, _Declines()) is True
        _Override.calls.clear()
        parent, child = _Override(), _Child()
        assert module.handle_torch_function(api, (parent, child), parent, child) == "handled"
        # the subclass goes first, and both types are listed
        assert _Override.calls == [("api", ["_Child", "_Override"])]
    messages = []
    for module in (F, tf):
        with pytest.raises(TypeError) as caught:
            module.handle_torch_function(api, (_Declines(),), 1)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "no implementation found for" in messages[0]
