"""What programs reach for beyond tensors: ``nl.amp`` (autocast as a documented no-op, the
disabled GradScaler), ``nl.backends`` switches, ``nl.hub``'s cache layout and ``tqdm``, and
``nnlite.utils.tensorboard.SummaryWriter``."""

import warnings

import pytest

import nnlite as nl
from nnlite import nn


def test_autocast_is_a_no_op_context_and_decorator():
    from nnlite.amp import autocast_mode

    autocast_mode._warned.clear()  # the warning is given once per device type
    with pytest.warns(UserWarning, match="computes in float32"):
        region = nl.amp.autocast("cpu", dtype=None)
    with region:
        y = nl.ones(2, 2) @ nl.ones(2, 2)
    assert y.dtype == nl.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        @nl.amp.autocast(device_type="cpu")
        def double(x):
            return x * 2

    assert double(nl.ones(1, dtype=nl.float64)).dtype == nl.float64


def test_autocast_on_cuda_warns_as_pytorch_without_cuda():
    torch = pytest.importorskip("torch")
    messages = []
    for make in (lambda: nl.amp.autocast("cuda"), lambda: torch.autocast("cuda")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make()
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1]


def test_grad_scaler_behaves_as_pytorchs_disabled_scaler():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        ours, theirs = nl.amp.GradScaler(), torch.amp.GradScaler("cuda")
    assert ours.is_enabled() == theirs.is_enabled() is False
    assert ours.get_scale() == theirs.get_scale()
    assert ours.state_dict() == theirs.state_dict()
    model = nn.Linear(2, 1)
    optimizer = nl.optim.SGD(model.parameters(), lr=0.5)
    before = model.weight.detach().clone()
    loss = model(nl.ones(3, 2)).sum()
    assert ours.scale(loss) is loss
    ours.scale(loss).backward()
    ours.unscale_(optimizer)
    ours.step(optimizer)
    ours.update()
    assert not bool((model.weight.detach() == before).all())


def test_backend_switches_are_settable_and_report_the_cpu(monkeypatch):
    # set through monkeypatch: the switches are process-wide, and other tests read their defaults
    monkeypatch.setattr(nl.backends.cudnn, "benchmark", True)
    monkeypatch.setattr(nl.backends.cudnn, "deterministic", True)
    monkeypatch.setattr(nl.backends.mkldnn, "enabled", False)
    monkeypatch.setattr(nl.backends.cuda.matmul, "allow_tf32", True)
    assert nl.backends.cudnn.benchmark and nl.backends.cuda.matmul.allow_tf32
    assert not nl.backends.mps.is_available() and not nl.backends.cuda.is_built()
    assert not nl.backends.mkldnn.is_available() and nl.backends.openmp.is_available()
    assert nl.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    nl.backends.cuda.enable_flash_sdp(False)
    assert nl.backends.cuda.flash_sdp_enabled() is False
    nl.backends.cuda.enable_flash_sdp(True)


def test_hub_directory_follows_torch_home(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert nl.hub.get_dir() == str(tmp_path / "th" / "hub")
    torch = pytest.importorskip("torch")
    assert nl.hub.get_dir() == torch.hub.get_dir()


def test_load_state_dict_from_url_reads_the_hub_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    url = "https://download.example.org/models/tiny-0a1b.pth"
    with pytest.raises(FileNotFoundError) as missing:
        nl.hub.load_state_dict_from_url(url)
    expected = tmp_path / "hub" / "checkpoints" / "tiny-0a1b.pth"
    assert str(missing.value) == (
        f"{expected} not found: nnlite does not download; fetch {url} and save it there"
    )
    expected.parent.mkdir(parents=True)
    nl.save({"w": nl.ones(2)}, expected)
    assert nl.hub.load_state_dict_from_url(url)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="invalid hash value"):
        nl.hub.load_state_dict_from_url(url, check_hash=True)


def test_hub_tqdm_is_tqdm():
    from tqdm.auto import tqdm

    assert nl.hub.tqdm is tqdm


def test_summary_writer_writes_scalars_from_tensors(tmp_path):
    pytest.importorskip("tensorboardX", reason="SummaryWriter needs the tensorboardX package")
    from nnlite.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("loss", nl.tensor(0.25), 1)
        writer.add_histogram("weights", nl.randn(10), 1)
    assert any(p.name.startswith("events.out.tfevents") for p in tmp_path.iterdir())


def test_summary_writer_without_tensorboardx_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    from nnlite.utils.tensorboard import SummaryWriter

    with pytest.raises(ImportError, match=r"nnlite\[tensorboard\]"):
        SummaryWriter()
