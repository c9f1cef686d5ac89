"""Module and container edges: the errors of registration, lookup and loading (PyTorch's words,
checked against PyTorch itself), hook handles as context managers, deletion of members, and the
container operations (slices, insert, +, +=, update from pairs)."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import Parameter
from nnlite.nn.modules.module import typename
from tests.nn.parity import same_error


def _uninitialised(lib, register):
    class Early(lib.nn.Module):
        def __init__(self):  # registers before Module.__init__ ran
            register(self, lib)

    return Early()


def _seq(lib):
    return lib.nn.Sequential(lib.nn.Linear(1, 1))


MEMBER_ERRORS = {
    "empty_parameter_name": lambda lib: lib.nn.Module().register_parameter("", None),
    "nonstring_buffer_name": lambda lib: lib.nn.Module().register_buffer(3, None),
    "class_as_module": lambda lib: lib.nn.Module().add_module("x", lib.nn.Linear),
    "nonstring_module_name": lambda lib: lib.nn.Module().add_module(3, None),
    "module_over_attribute": lambda lib: lib.nn.Linear(1, 1).add_module("weight", None),
    "empty_module_name": lambda lib: lib.nn.Module().add_module("", None),
    "parameter_attr_before_init": lambda lib: _uninitialised(
        lib, lambda m, lib: setattr(m, "p", lib.nn.Parameter(lib.ones(1)))
    ),
    "buffer_attr_before_init": lambda lib: _uninitialised(
        lib, lambda m, lib: setattr(m, "b", lib.nn.Buffer(lib.ones(1)))
    ),
    "register_parameter_before_init": lambda lib: _uninitialised(
        lib, lambda m, lib: m.register_parameter("p", None)
    ),
    "register_buffer_before_init": lambda lib: _uninitialised(
        lib, lambda m, lib: m.register_buffer("b", None)
    ),
    "submodule_is_a_parameter": lambda lib: _seq(lib).get_submodule("0.weight"),
    "no_such_submodule": lambda lib: _seq(lib).get_submodule("0.foo"),
    "no_such_parameter": lambda lib: _seq(lib).get_parameter("0.foo"),
    "attribute_not_a_parameter": lambda lib: _seq(lib).get_parameter("0.training"),
    "parameter_not_a_buffer": lambda lib: _seq(lib).get_buffer("0.weight"),
    "load_a_non_tensor": lambda lib: _seq(lib).load_state_dict(
        {"0.weight": 3, "0.bias": lib.zeros(1)}
    ),
    "pre_hook_returns_junk": lambda lib: _hooked_with_kwargs(lib)(lib.ones(1, 1)),
    "sequential_plus_list": lambda lib: lib.nn.Sequential() + lib.nn.ModuleList(),
    "insert_a_non_module": lambda lib: lib.nn.Sequential().insert(0, 3),
    "insert_out_of_range": lambda lib: lib.nn.Sequential(lib.nn.ReLU()).insert(5, lib.nn.Tanh()),
    "update_with_a_single": lambda lib: lib.nn.ModuleDict().update([("c",)]),
}


def _hooked_with_kwargs(lib):
    m = lib.nn.Linear(1, 1)
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    return m


@pytest.mark.parametrize("name", list(MEMBER_ERRORS))
def test_member_errors_match_torch(name):
    same_error(MEMBER_ERRORS[name])


def test_typename_names_classes_functions_and_instances():
    assert typename(nn.Linear) == "nnlite.nn.modules.linear.Linear"
    assert typename(np) == "numpy"  # a module object: a __name__ but no __qualname__
    assert typename(3) == "int"
    assert typename(nl.ones(1)) == "nnlite.FloatTensor"


def test_hook_handle_as_context_manager_removes_the_hook():
    m = nn.Linear(2, 2)
    calls = []
    with m.register_forward_hook(lambda mod, args, out: calls.append(out.shape)) as handle:
        m(nl.ones(1, 2))
        assert handle.id in m._forward_hooks
    m(nl.ones(1, 2))
    assert calls == [(1, 2)] and not m._forward_hooks


def test_module_init_rejects_arguments():
    with pytest.raises(TypeError, match=r"Module.__init__\(\) got unexpected arguments: 3, a=1"):
        nn.Module(3, a=1)


def test_delattr_removes_parameters_buffers_and_plain_attributes():
    m = nn.Linear(2, 2)
    m.register_buffer("tmp", nl.ones(1), persistent=False)
    m.note = "x"
    del m.bias, m.tmp, m.note
    assert list(m._parameters) == ["weight"]
    assert "tmp" not in m._buffers and "tmp" not in m._non_persistent_buffers_set
    assert "note" not in m.__dict__
    assert list(m.state_dict()) == ["weight"]
    with pytest.raises(AttributeError):
        del m.nothing


def test_buffer_assigned_over_plain_attribute_becomes_a_buffer():
    m = nn.Module()
    m.stats = 3
    m.stats = nn.Buffer(nl.ones(2), persistent=False)
    assert "stats" not in m.__dict__ and m._buffers["stats"].tolist() == [1.0, 1.0]
    assert "stats" in m._non_persistent_buffers_set and list(m.state_dict()) == []


def test_named_modules_skips_empty_slots():
    m = nn.Module()
    m.add_module("gone", None)
    m.fc = nn.Linear(1, 1)
    assert [name for name, _ in m.named_modules()] == ["", "fc"]


def test_state_dict_positional_form_fills_the_destination():
    m = nn.Linear(1, 2)
    dest = {}
    out = m.state_dict(dest, "head.")
    assert out is dest and list(dest) == ["head.weight", "head.bias"]
    assert dest["head.weight"] is not m.weight  # detached copies of the values, not the parameters
    assert np.array_equal(dest["head.bias"].numpy(), m.bias.detach().numpy())
    kept = m.state_dict(None, "", True)
    assert kept["weight"] is m.weight  # keep_vars


def test_load_state_dict_assign_takes_the_given_tensors():
    m = nn.Linear(1, 1)
    w, b = nl.full((1, 1), 2.0), nl.zeros(1)
    m.register_buffer("steps", nl.zeros(1))
    steps = nl.full((1,), 7.0)
    m.load_state_dict({"weight": w, "bias": b, "steps": steps}, assign=True)
    assert isinstance(m.weight, Parameter) and m.weight.requires_grad
    assert m.weight.tolist() == [[2.0]] and m.steps is steps
    m.weight.data.fill_(5.0)
    assert w.tolist() == [[5.0]]  # assigned, not copied: the storage is shared


def test_load_state_dict_numpy_values_and_a_failing_copy():
    m = nn.Linear(2, 1)
    m.load_state_dict({"weight": np.full((1, 2), 3.0, np.float32), "bias": np.zeros(1, np.float32)})
    assert m.weight.tolist() == [[3.0, 3.0]]
    with pytest.raises(RuntimeError, match='While copying the parameter named "bias"') as err:
        m.load_state_dict({"weight": nl.ones(1, 2), "bias": np.array(["a"])})
    assert "Error(s) in loading state_dict for Linear" in str(err.value)
    assert "could not convert string to float" in str(err.value)
    assert m.bias.tolist() == [0.0]  # the good entries were copied, the failing one left as it was


def test_to_rejects_unknown_keywords_and_skips_bools():
    m = nn.Linear(1, 1)
    with pytest.raises(TypeError, match=r"to\(\) received an invalid combination of arguments"):
        m.to(foo=1)
    assert m.to(nl.float64, non_blocking=True).weight.dtype == nl.float64
    assert m.to(nl.zeros(1), True).weight.dtype == nl.float32  # a tensor's dtype; a bool skipped


def test_cuda_is_refused_as_torch_without_cuda_refuses_it():
    with pytest.raises(RuntimeError, match="cuda"):
        nn.Linear(1, 1).cuda()


def test_dir_lists_members():
    m = nn.Linear(1, 1)
    m.register_buffer("steps", nl.zeros(1))
    names = dir(m)
    assert {"weight", "bias", "steps", "forward"} <= set(names)


# --- containers -------------------------------------------------------------------------------


def _names(container):
    return [type(m).__name__ for m in container]


def test_sequential_slice_delete_add_and_insert_like_torch():
    s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.ELU())
    del s[1:3]
    assert _names(s) == ["ReLU", "ELU"] and list(s._modules) == ["0", "1"]
    joined = s + nn.Sequential(nn.Tanh())
    assert _names(joined) == ["ReLU", "ELU", "Tanh"] and _names(s) == ["ReLU", "ELU"]
    s.insert(-1, nn.Tanh())
    assert _names(s) == ["ReLU", "Tanh", "ELU"]
    assert repr(s) == "Sequential(\n  (0): ReLU()\n  (1): Tanh()\n  (2): ELU(alpha=1.0)\n)"


def test_module_list_set_slice_delete_iadd_and_add():
    lst = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
    lst[0] = nn.ELU()
    assert _names(lst) == ["ELU", "Tanh", "Sigmoid"]
    del lst[0:2]
    assert _names(lst) == ["Sigmoid"] and list(lst._modules) == ["0"]
    same = lst
    lst += [nn.ReLU()]
    assert lst is same and _names(lst) == ["Sigmoid", "ReLU"]
    both = lst + nn.ModuleList([nn.Tanh()])
    assert isinstance(both, nn.ModuleList) and _names(both) == ["Sigmoid", "ReLU", "Tanh"]
    assert len(lst) == 2


def test_module_dict_iterates_keys_and_updates_from_pairs():
    d = nn.ModuleDict({"a": nn.ReLU()})
    d.update([("b", nn.Tanh()), ["c", nn.ELU()]])
    assert list(iter(d)) == ["a", "b", "c"] and isinstance(d["c"], nn.ELU)
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        d.update([("x", nn.ReLU(), 1)])
    with pytest.raises(ValueError, match=r"element #1 has length \?; 2 is required"):
        d.update([("x", nn.ReLU()), 3])
