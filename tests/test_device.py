"""Device idioms of PyTorch scripts on a CPU-only framework: nl.device, nl.cuda, nl.backends,
nl.accelerator, moving tensors and modules, device= on creation functions, out=, inference_mode,
the legacy constructors and Variable."""

import pickle
import warnings

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


# ---------------------------------------------------------------------- nl.device
@pytest.mark.parametrize(
    "args,text,string",
    [
        (("cpu",), "device(type='cpu')", "cpu"),
        (("cpu", 0), "device(type='cpu', index=0)", "cpu:0"),
        (("cpu:1",), "device(type='cpu', index=1)", "cpu:1"),
        (("cuda",), "device(type='cuda')", "cuda"),
        (("cuda:1",), "device(type='cuda', index=1)", "cuda:1"),
        (("mps",), "device(type='mps')", "mps"),
    ],
)
def test_device_repr_str_type_index(args, text, string):
    d = nl.device(*args)
    assert repr(d) == text and str(d) == string
    assert d.type == string.split(":")[0]
    assert d.index == (int(string.split(":")[1]) if ":" in string else None)
    assert nl.device(d) == d and hash(nl.device(d)) == hash(d)
    assert pickle.loads(pickle.dumps(d)) == d


def test_device_equality_is_by_type_and_index():
    assert nl.device("cpu") == nl.device("cpu")
    assert nl.device("cpu") != nl.device("cpu", 0)
    assert nl.device("cpu") != nl.device("cuda")
    assert nl.device("cpu") != "cpu"  # as torch.device: a device never equals a string
    assert len({nl.device("cpu"), nl.device("cpu"), nl.device("cpu", 0)}) == 2


@pytest.mark.parametrize(
    "args,error,message",
    [
        (
            ("foo",),
            RuntimeError,
            "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
            "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
            "device string: foo",
        ),
        (("cpu", -1), RuntimeError, "Device index must not be negative"),
        (("cuda", "x"), TypeError, "device(): argument 'index' (position 2) must be int, not str"),
        (("cuda:x",), RuntimeError, "Invalid device string: 'cuda:x'"),
        ((3,), RuntimeError, "Cannot access accelerator device when none is available."),
    ],
)
def test_device_errors_are_pytorchs(args, error, message):
    with pytest.raises(error) as info:
        nl.device(*args)
    assert str(info.value) == message


def test_device_errors_match_torch():
    torch = pytest.importorskip("torch")
    for args in [("foo",), ("cpu", -1), ("cuda:x",)]:
        with pytest.raises(RuntimeError) as ours:
            nl.device(*args)
        with pytest.raises(RuntimeError) as theirs:
            torch.device(*args)
        assert str(ours.value) == str(theirs.value)
    for args in [("cpu",), ("cpu", 0), ("cuda:2",), ("mps",)]:
        assert repr(nl.device(*args)) == repr(torch.device(*args))
        assert str(nl.device(*args)) == str(torch.device(*args))


def test_the_device_lines_of_pytorch_scripts_pick_the_cpu():
    device = nl.device("cuda" if nl.cuda.is_available() else "cpu")
    assert device == nl.device("cpu")
    use_accel = nl.accelerator.is_available()
    device = nl.accelerator.current_accelerator() if use_accel else nl.device("cpu")
    assert device.type == "cpu"
    device = "mps" if nl.backends.mps.is_available() else "cpu"
    assert device == "cpu"
    assert nl.accelerator.current_accelerator() is None and nl.accelerator.device_count() == 0
    nl.set_default_device("cpu")
    assert nl.get_default_device() == nl.device("cpu")
    with nl.device("cpu"):
        assert nl.zeros(1).device == nl.device("cpu")
    with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
        nl.set_default_device("cuda")
    with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
        with nl.device("cuda"):
            pass


# ---------------------------------------------------------------------- nl.cuda, nl.backends, nl.accelerator
def test_cuda_queries_and_seeding():
    assert (
        nl.cuda.is_available() is False
        and nl.cuda.device_count() == 0
        and not nl.cuda.is_initialized()
    )
    state = nl.get_rng_state()
    nl.cuda.manual_seed(1)
    nl.cuda.manual_seed_all(1)
    nl.cuda.empty_cache()
    assert nl.get_rng_state() == state  # nnlite's own generator is not touched


@pytest.mark.parametrize(
    "call",
    [
        lambda: nl.cuda.set_device(0),
        lambda: nl.cuda.set_device("cuda:1"),
        lambda: nl.cuda.current_device(),
        lambda: nl.cuda.synchronize(),
    ],
)
def test_cuda_calls_that_need_a_gpu_raise(call):
    with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
        call()


def test_backends_flags_are_settable_and_report_not_available():
    cudnn = nl.backends.cudnn
    assert (
        cudnn.benchmark is False and cudnn.deterministic is False and cudnn.is_available() is False
    )
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert nl.backends.cudnn.benchmark is True and nl.backends.cudnn.deterministic is True
    finally:
        cudnn.benchmark = False
        cudnn.deterministic = False
    assert nl.backends.mps.is_available() is False and nl.backends.mps.is_built() is False


def test_accelerator_index_calls_raise_as_pytorch_without_accelerator():
    for call in (nl.accelerator.current_device_index, nl.accelerator.synchronize):
        with pytest.raises(
            RuntimeError, match="Cannot access accelerator device when none is available."
        ):
            call()


# ---------------------------------------------------------------------- tensors and modules
@pytest.mark.parametrize("target", ["cuda", "cuda:0", nl.device("cuda"), nl.device("mps"), "meta"])
def test_moving_a_tensor_off_the_cpu_raises(target):
    with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
        nl.ones(2).to(target)


def test_tensor_device_methods():
    t = nl.ones(2)
    assert t.device == nl.device("cpu") and not t.is_cuda and t.is_cpu and t.get_device() == -1
    assert not (t.is_xpu or t.is_mps or t.is_meta)
    assert t.cpu() is t and t.pin_memory() is t and not t.is_pinned()
    assert t.to(nl.device("cpu")) is t and t.to("cpu:0") is t
    assert t.to("cpu", non_blocking=True) is t
    converted = t.to(nl.device("cpu"), nl.float64, non_blocking=True)
    assert converted.dtype == nl.float64 and converted.tolist() == [1.0, 1.0]
    with pytest.raises(
        RuntimeError, match="nnlite runs on the CPU only; device 'cuda' is not available"
    ):
        t.cuda()


def test_module_device_methods():
    model = nn.Linear(2, 3)
    assert model.to(nl.device("cpu")) is model and model.cpu() is model
    assert model.to("cpu", non_blocking=True) is model
    for move in (
        lambda: model.cuda(),
        lambda: model.to("cuda"),
        lambda: model.to(nl.device("mps")),
    ):
        with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
            move()


CREATION = [
    lambda d: nl.tensor([1.0], device=d),
    lambda d: nl.as_tensor([1.0], device=d),
    lambda d: nl.zeros(2, device=d),
    lambda d: nl.ones(2, device=d),
    lambda d: nl.empty(2, device=d),
    lambda d: nl.full((2,), 1.0, device=d),
    lambda d: nl.rand(2, device=d),
    lambda d: nl.randn(2, device=d),
    lambda d: nl.randint(0, 3, (2,), device=d),
    lambda d: nl.randperm(3, device=d),
    lambda d: nl.arange(3, device=d),
    lambda d: nl.linspace(0, 1, 3, device=d),
    lambda d: nl.eye(2, device=d),
    lambda d: nl.zeros_like(nl.ones(2), device=d),
    lambda d: nl.ones_like(nl.ones(2), device=d),
    lambda d: nl.empty_like(nl.ones(2), device=d),
    lambda d: nl.rand_like(nl.ones(2), device=d),
    lambda d: nl.randn_like(nl.ones(2), device=d),
    lambda d: nl.full_like(nl.ones(2), 3.0, device=d),
    lambda d: nl.ones(2).new_tensor([1.0], device=d),
    lambda d: nl.ones(2).new_zeros(2, device=d),
    lambda d: nl.ones(2).new_ones(2, device=d),
    lambda d: nl.ones(2).new_full((2,), 3.0, device=d),
    lambda d: nl.ones(2).new_empty(2, device=d),
    lambda d: nn.Linear(2, 2, device=d),
    lambda d: nn.Conv2d(1, 1, 1, device=d),
    lambda d: nn.BatchNorm2d(2, device=d),
]


@pytest.mark.parametrize("make", CREATION)
def test_creation_functions_take_device(make):
    make("cpu")
    make(nl.device("cpu"))
    with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
        make("cuda")


# ---------------------------------------------------------------------- out=
def test_out_argument_of_the_tensor_tutorial():
    tensor = nl.tensor([[1.0, 2.0], [3.0, 4.0]])
    y3 = nl.empty(2, 2)
    assert nl.matmul(tensor, tensor.T, out=y3) is y3
    assert y3.tolist() == (tensor @ tensor.T).tolist()
    z3 = nl.empty(2, 2)
    nl.mul(tensor, tensor, out=z3)
    assert z3.tolist() == [[1.0, 4.0], [9.0, 16.0]]
    result = nl.empty(2, 2)
    nl.add(tensor, tensor, out=result)
    assert result.tolist() == [[2.0, 4.0], [6.0, 8.0]]
    nl.sub(tensor, 1, out=result)
    assert result.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    zeros = nl.ones(3)
    nl.zeros(3, out=zeros)
    assert zeros.tolist() == [0.0, 0.0, 0.0]
    joined = nl.empty(4, 2)
    nl.cat([tensor, tensor], out=joined)
    assert joined.tolist() == [[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]


def test_out_argument_shares_memory_and_bumps_the_version():
    backing = np.zeros(2, np.float32)
    out = nl.from_numpy(backing)
    before = out._version
    nl.add(nl.ones(2), 2, out=out)
    assert backing.tolist() == [3.0, 3.0] and out._version > before


def test_out_argument_errors_and_resizing_as_pytorch():
    torch = pytest.importorskip("torch")
    x = nl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as ours:
        nl.add(x, 1, out=nl.empty(2))
    with pytest.raises(RuntimeError) as theirs:
        torch.add(torch.ones(2, requires_grad=True), 1, out=torch.empty(2))
    assert str(ours.value) == str(theirs.value)
    with nl.no_grad():
        assert nl.add(x, 1, out=nl.empty(2)).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError) as ours:
        nl.add(nl.ones(2), 1, out=nl.empty(2, dtype=nl.int64))
    with pytest.raises(RuntimeError) as theirs:
        torch.add(torch.ones(2), 1, out=torch.empty(2, dtype=torch.int64))
    assert str(ours.value) == str(theirs.value)
    out = nl.empty(3)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        nl.add(nl.ones(2), 1, out=out)
    assert out.shape == (2,) and out.tolist() == [2.0, 2.0]
    empty = nl.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nl.mul(nl.ones(2, 2), 3, out=empty)  # resizing an empty out is silent
    assert empty.tolist() == [[3.0, 3.0], [3.0, 3.0]]


# ---------------------------------------------------------------------- inference_mode
def test_inference_mode_as_context_and_decorator():
    x = nl.ones(2, requires_grad=True)
    with nl.inference_mode():
        assert nl.is_inference_mode_enabled() and not nl.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and nl.is_grad_enabled() and not nl.is_inference_mode_enabled()
    with nl.inference_mode(False):
        assert (x * 2).requires_grad

    @nl.inference_mode()
    def evaluate(t):
        return t * 3

    assert not evaluate(x).requires_grad and nl.is_grad_enabled()


# ---------------------------------------------------------------------- legacy spellings
def test_legacy_typed_constructors():
    assert nl.FloatTensor(2, 3).shape == (2, 3) and nl.FloatTensor(2, 3).dtype == nl.float32
    assert nl.FloatTensor(nl.Size([4])).shape == (4,)
    assert nl.FloatTensor().shape == (0,)
    long = nl.LongTensor([1.7, 2])
    assert long.dtype == nl.int64 and long.tolist() == [1, 2]
    assert nl.DoubleTensor([1, 2]).dtype == nl.float64 and nl.ByteTensor([1]).dtype == nl.uint8
    assert nl.BoolTensor([1, 0]).tolist() == [True, False] and nl.IntTensor([3]).dtype == nl.int32
    source = nl.ones(2)
    alias = nl.FloatTensor(source)
    alias.add_(1)
    assert source.tolist() == [2.0, 2.0]  # the same data, as PyTorch
    assert isinstance(nl.zeros(2), nl.FloatTensor) and not isinstance(nl.zeros(2), nl.LongTensor)
    assert isinstance(nl.arange(3), nl.LongTensor)
    with pytest.raises(TypeError, match="data must be a sequence"):
        nl.FloatTensor(2.5)
    with pytest.raises(TypeError, match="expected"):
        nl.FloatTensor(nl.ones(2, dtype=nl.float64))
    with pytest.raises(
        RuntimeError, match="legacy constructor expects device type: cpu but device type: cuda"
    ):
        nl.FloatTensor([1.0], device="cuda")


def test_legacy_constructors_match_torch():
    torch = pytest.importorskip("torch")
    for name in (
        "FloatTensor",
        "LongTensor",
        "DoubleTensor",
        "IntTensor",
        "ByteTensor",
        "BoolTensor",
    ):
        ours = getattr(nl, name)([1, 0, 2])
        theirs = getattr(torch, name)([1, 0, 2])
        assert ours.tolist() == theirs.tolist() and str(ours.dtype)[7:] == str(theirs.dtype)[6:]


def test_variable_is_a_tensor():
    data = nl.ones(2)
    v = nl.autograd.Variable(data, requires_grad=True)
    assert isinstance(v, nl.Tensor) and v.requires_grad and not data.requires_grad
    assert isinstance(data, nl.autograd.Variable)
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
    assert not nl.autograd.Variable(data).requires_grad
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        nl.autograd.Variable([1.0])
