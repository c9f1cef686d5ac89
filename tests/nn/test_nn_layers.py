"""Every layer and loss against its PyTorch twin: the same weights (copied through ``state_dict``),
the same float32 inputs; outputs, input gradients, parameter gradients, buffers and ``repr`` agree
(within float32 rounding)."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn

torch = pytest.importorskip("torch")
tnn = torch.nn

RTOL, ATOL = 2e-4, 2e-5


def copy_weights(src, dst):
    """Load ``src``'s (nnlite) state into ``dst`` (PyTorch)."""
    dst.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in src.state_dict().items()}
    )


def make(shape, kind="randn", seed=0, classes=None):
    rng = np.random.default_rng(seed)
    if kind == "randn":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "index":
        return rng.integers(0, classes, shape).astype(np.int64)
    if kind == "probs":
        p = rng.uniform(0.1, 1, shape)
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
    if kind == "unit":
        return rng.uniform(0, 1, shape).astype(np.float32)
    raise ValueError(kind)


def close(a, b, what):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy()
    assert a.shape == b.shape, f"{what}: shape {a.shape} vs {b.shape}"
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=what)


LAYERS = [
    ("linear", lambda m: m.Linear(4, 3), (2, 4)),
    ("linear_nobias_3d", lambda m: m.Linear(4, 3, bias=False), (2, 5, 4)),
    ("conv2d", lambda m: m.Conv2d(3, 4, 3), (2, 3, 6, 6)),
    (
        "conv2d_strided_groups",
        lambda m: m.Conv2d(2, 4, 3, stride=2, padding=1, groups=2, bias=False),
        (2, 2, 7, 6),
    ),
    ("conv2d_same", lambda m: m.Conv2d(2, 3, (2, 3), padding="same"), (1, 2, 5, 5)),
    ("conv2d_valid_1x1", lambda m: m.Conv2d(3, 2, 1, padding="valid"), (2, 3, 4, 4)),
    ("conv2d_dilated", lambda m: m.Conv2d(2, 4, 3, dilation=2, padding=2), (1, 2, 7, 7)),
    (
        "conv2d_tuple_args",
        lambda m: m.Conv2d(2, 2, (3, 1), stride=(2, 1), padding=(1, 0)),
        (1, 2, 6, 5),
    ),
    ("conv2d_unbatched", lambda m: m.Conv2d(2, 3, 3), (2, 5, 5)),
    ("maxpool", lambda m: m.MaxPool2d(2), (2, 3, 6, 6)),
    ("maxpool_k3s2p1", lambda m: m.MaxPool2d(3, 2, 1), (1, 2, 7, 7)),
    ("maxpool_ceil", lambda m: m.MaxPool2d(2, ceil_mode=True), (1, 2, 5, 5)),
    ("maxpool_unbatched", lambda m: m.MaxPool2d(2), (2, 4, 4)),
    ("avgpool", lambda m: m.AvgPool2d(2), (2, 3, 6, 6)),
    ("avgpool_pad_exclude", lambda m: m.AvgPool2d(3, 2, 1, count_include_pad=False), (1, 2, 7, 7)),
    ("adaptive_avgpool_1", lambda m: m.AdaptiveAvgPool2d((1, 1)), (2, 3, 5, 5)),
    ("adaptive_avgpool_3", lambda m: m.AdaptiveAvgPool2d(3), (2, 3, 7, 5)),
    ("batchnorm1d", lambda m: m.BatchNorm1d(3), (4, 3)),
    ("batchnorm1d_3d", lambda m: m.BatchNorm1d(3), (4, 3, 5)),
    ("batchnorm2d", lambda m: m.BatchNorm2d(3), (4, 3, 2, 2)),
    ("batchnorm2d_cumulative", lambda m: m.BatchNorm2d(3, momentum=None), (4, 3, 2, 2)),
    ("batchnorm2d_noaffine", lambda m: m.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
    ("batchnorm2d_untracked", lambda m: m.BatchNorm2d(3, track_running_stats=False), (4, 3, 2, 2)),
    ("batchnorm2d_eps_momentum", lambda m: m.BatchNorm2d(2, eps=1e-3, momentum=0.3), (3, 2, 3, 3)),
    ("dropout_p0", lambda m: m.Dropout(0.0), (3, 4)),
    ("relu", lambda m: m.ReLU(), (3, 4)),
    ("relu_inplace", lambda m: m.ReLU(inplace=True), (3, 4)),
    ("leaky_relu", lambda m: m.LeakyReLU(), (3, 4)),
    ("leaky_relu_inplace", lambda m: m.LeakyReLU(0.2, inplace=True), (3, 4)),
    ("gelu", lambda m: m.GELU(), (3, 4)),
    ("gelu_tanh", lambda m: m.GELU(approximate="tanh"), (3, 4)),
    ("silu_inplace", lambda m: m.SiLU(inplace=True), (3, 4)),
    ("elu", lambda m: m.ELU(alpha=0.5), (3, 4)),
    ("softplus", lambda m: m.Softplus(beta=2.0, threshold=1.0), (3, 4)),
    ("hardtanh", lambda m: m.Hardtanh(-0.5, 0.5), (3, 4)),
    ("relu6_inplace", lambda m: m.ReLU6(inplace=True), (3, 4)),
    ("mish", lambda m: m.Mish(), (3, 4)),
    ("hardswish", lambda m: m.Hardswish(), (3, 4)),
    ("hardsigmoid", lambda m: m.Hardsigmoid(), (3, 4)),
    ("prelu", lambda m: m.PReLU(), (3, 4)),
    ("prelu_channels", lambda m: m.PReLU(3, init=0.1), (2, 3, 4)),
    ("layernorm", lambda m: m.LayerNorm(4), (2, 3, 4)),
    ("layernorm_2d_nobias", lambda m: m.LayerNorm((3, 4), bias=False), (2, 3, 4)),
    ("layernorm_plain", lambda m: m.LayerNorm(4, elementwise_affine=False), (3, 4)),
    ("groupnorm", lambda m: m.GroupNorm(2, 4), (2, 4, 3, 3)),
    ("groupnorm_noaffine", lambda m: m.GroupNorm(4, 4, affine=False), (2, 4, 5)),
    ("instancenorm2d", lambda m: m.InstanceNorm2d(3), (2, 3, 4, 4)),
    (
        "instancenorm2d_affine_tracked",
        lambda m: m.InstanceNorm2d(3, affine=True, track_running_stats=True),
        (2, 3, 4, 4),
    ),
    ("instancenorm1d_unbatched", lambda m: m.InstanceNorm1d(3, affine=True), (3, 6)),
    ("dropout2d_p0", lambda m: m.Dropout2d(0.0), (2, 3, 4, 4)),
    ("dropout1d_p0", lambda m: m.Dropout1d(0.0), (2, 3, 4)),
    ("pixel_shuffle", lambda m: m.PixelShuffle(2), (2, 8, 3, 3)),
    ("pixel_unshuffle", lambda m: m.PixelUnshuffle(2), (2, 2, 4, 4)),
    ("unflatten", lambda m: m.Unflatten(1, (2, 3)), (4, 6)),
    ("zeropad2d", lambda m: m.ZeroPad2d((1, 0, 2, 1)), (2, 2, 3, 3)),
    ("constantpad2d", lambda m: m.ConstantPad2d(1, 2.5), (2, 2, 3, 3)),
    ("reflectionpad2d", lambda m: m.ReflectionPad2d(2), (2, 2, 3, 4)),
    ("replicationpad1d", lambda m: m.ReplicationPad1d((3, 1)), (2, 2, 3)),
    (
        "conv2d_reflect",
        lambda m: m.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"),
        (2, 2, 5, 5),
    ),
    (
        "conv2d_circular_same",
        lambda m: m.Conv2d(2, 3, (2, 3), padding="same", padding_mode="circular"),
        (1, 2, 4, 5),
    ),
    (
        "conv2d_replicate",
        lambda m: m.Conv2d(2, 2, 3, stride=2, padding=(2, 1), padding_mode="replicate"),
        (1, 2, 6, 5),
    ),
    ("upsample_nearest", lambda m: m.Upsample(scale_factor=2), (2, 2, 3, 3)),
    (
        "upsample_bilinear",
        lambda m: m.Upsample(size=(5, 4), mode="bilinear", align_corners=False),
        (1, 2, 3, 3),
    ),
    ("upsample_bilinear_2d", lambda m: m.UpsamplingBilinear2d(scale_factor=2), (1, 2, 3, 3)),
    ("adaptive_maxpool", lambda m: m.AdaptiveMaxPool2d((3, 2)), (2, 2, 7, 5)),
    ("conv1d", lambda m: m.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 9)),
    (
        "conv1d_same_reflect",
        lambda m: m.Conv1d(2, 2, 4, padding="same", padding_mode="reflect", bias=False),
        (2, 2, 6),
    ),
    ("conv1d_groups_dilated_unbatched", lambda m: m.Conv1d(4, 2, 2, dilation=2, groups=2), (4, 7)),
    ("conv_transpose2d", lambda m: m.ConvTranspose2d(3, 2, 3), (2, 3, 4, 4)),
    (
        "conv_transpose2d_dcgan",
        lambda m: m.ConvTranspose2d(4, 2, 4, stride=2, padding=1, bias=False),
        (2, 4, 3, 3),
    ),
    (
        "conv_transpose2d_outpad_groups",
        lambda m: m.ConvTranspose2d(
            4, 6, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2
        ),
        (1, 4, 3, 4),
    ),
    (
        "conv_transpose2d_dilated_unbatched",
        lambda m: m.ConvTranspose2d(2, 3, 3, dilation=2),
        (2, 3, 3),
    ),
    ("sigmoid", lambda m: m.Sigmoid(), (3, 4)),
    ("tanh", lambda m: m.Tanh(), (3, 4)),
    ("softmax", lambda m: m.Softmax(dim=1), (3, 4)),
    ("logsoftmax", lambda m: m.LogSoftmax(dim=-1), (2, 3, 4)),
    ("flatten", lambda m: m.Flatten(), (2, 3, 2, 2)),
    ("flatten_0_1", lambda m: m.Flatten(0, 1), (2, 3, 2)),
    ("identity", lambda m: m.Identity(), (2, 3)),
    (
        "sequential",
        lambda m: m.Sequential(
            m.Conv2d(2, 3, 3, padding=1),
            m.BatchNorm2d(3),
            m.ReLU(),
            m.MaxPool2d(2),
            m.Flatten(),
            m.Linear(12, 5),
            m.Tanh(),
            m.Linear(5, 2),
        ),
        (3, 2, 4, 4),
    ),
]


def _run_layer(factory, shape, train=True, steps=2):
    nl.manual_seed(0)
    ours = factory(nn)
    theirs = factory(tnn)
    copy_weights(ours, theirs)
    ours.train(train)
    theirs.train(train)
    assert repr(ours) == repr(theirs)
    for step in range(steps):
        x = make(shape, seed=step)
        # the input goes through one op first, so that in-place layers act on a non-leaf
        xa = nl.tensor(x, requires_grad=True)
        xb = torch.tensor(x, requires_grad=True)
        ya, yb = ours(xa * 1.0), theirs(xb * 1.0)
        close(ya, yb, f"output (step {step})")
        g = make(tuple(yb.shape), seed=100 + step)
        ya.backward(nl.tensor(g))
        yb.backward(torch.from_numpy(g))
        close(xa.grad, xb.grad, f"input gradient (step {step})")
        for (name, pa), (_, pb) in zip(ours.named_parameters(), theirs.named_parameters()):
            close(pa.grad, pb.grad, f"gradient of {name} (step {step})")
        ours.zero_grad()
        theirs.zero_grad()
    state_a, state_b = ours.state_dict(), theirs.state_dict()
    assert list(state_a) == list(state_b)
    for k in state_a:
        close(state_a[k], state_b[k], f"state {k}")


@pytest.mark.parametrize("name,factory,shape", LAYERS, ids=[entry[0] for entry in LAYERS])
def test_layer_matches_torch_train(name, factory, shape):
    _run_layer(factory, shape, train=True)


@pytest.mark.parametrize("name,factory,shape", LAYERS, ids=[entry[0] for entry in LAYERS])
def test_layer_matches_torch_eval(name, factory, shape):
    _run_layer(factory, shape, train=False, steps=1)


def test_batchnorm_running_stats_after_training_then_eval():
    ours, theirs = nn.BatchNorm2d(3, momentum=0.2), tnn.BatchNorm2d(3, momentum=0.2)
    copy_weights(ours, theirs)
    for seed in range(5):
        x = make((4, 3, 3, 3), seed=seed) * (seed + 1) + seed
        close(ours(nl.tensor(x)), theirs(torch.tensor(x)), "train output")
    assert int(ours.num_batches_tracked.item()) == 5
    close(ours.running_mean, theirs.running_mean, "running_mean")
    close(ours.running_var, theirs.running_var, "running_var")
    ours.eval()
    theirs.eval()
    x = make((2, 3, 3, 3), seed=9)
    close(ours(nl.tensor(x)), theirs(torch.tensor(x)), "eval output")


# ------------------------------------------------------------------------------------------ losses

LOSSES = [
    ("mse", lambda m: m.MSELoss(), (3, 4), "randn"),
    ("mse_sum", lambda m: m.MSELoss(reduction="sum"), (3, 4), "randn"),
    ("mse_none", lambda m: m.MSELoss(reduction="none"), (3, 4), "randn"),
    ("l1", lambda m: m.L1Loss(), (3, 4), "randn"),
    ("l1_sum", lambda m: m.L1Loss(reduction="sum"), (3, 4), "randn"),
    ("nll", lambda m: m.NLLLoss(), (5, 4), "index"),
    (
        "nll_weight_ignore",
        lambda m: m.NLLLoss(weight=_weight(m, 4), ignore_index=2),
        (6, 4),
        "index",
    ),
    ("nll_none", lambda m: m.NLLLoss(reduction="none"), (5, 4), "index"),
    ("ce", lambda m: m.CrossEntropyLoss(), (5, 4), "index"),
    ("ce_sum", lambda m: m.CrossEntropyLoss(reduction="sum"), (5, 4), "index"),
    ("ce_none", lambda m: m.CrossEntropyLoss(reduction="none"), (5, 4), "index"),
    ("ce_weight", lambda m: m.CrossEntropyLoss(weight=_weight(m, 4)), (6, 4), "index"),
    ("ce_ignore", lambda m: m.CrossEntropyLoss(ignore_index=1), (8, 4), "index"),
    ("ce_smoothing", lambda m: m.CrossEntropyLoss(label_smoothing=0.1), (5, 4), "index"),
    (
        "ce_all_options",
        lambda m: m.CrossEntropyLoss(weight=_weight(m, 4), ignore_index=0, label_smoothing=0.25),
        (8, 4),
        "index",
    ),
    (
        "ce_all_options_sum",
        lambda m: m.CrossEntropyLoss(
            weight=_weight(m, 4), ignore_index=3, label_smoothing=0.25, reduction="sum"
        ),
        (8, 4),
        "index",
    ),
    (
        "ce_all_options_none",
        lambda m: m.CrossEntropyLoss(
            weight=_weight(m, 4), ignore_index=3, label_smoothing=0.25, reduction="none"
        ),
        (8, 4),
        "index",
    ),
    ("ce_spatial", lambda m: m.CrossEntropyLoss(label_smoothing=0.1), (2, 4, 3, 3), "index"),
    ("ce_probs", lambda m: m.CrossEntropyLoss(), (5, 4), "probs"),
    (
        "ce_probs_options",
        lambda m: m.CrossEntropyLoss(weight=_weight(m, 4), label_smoothing=0.2),
        (5, 4),
        "probs",
    ),
    ("ce_probs_none", lambda m: m.CrossEntropyLoss(reduction="none"), (5, 4), "probs"),
    ("bce_logits", lambda m: m.BCEWithLogitsLoss(), (3, 4), "unit"),
    (
        "bce_logits_pos_weight",
        lambda m: m.BCEWithLogitsLoss(pos_weight=_weight(m, 4)),
        (3, 4),
        "unit",
    ),
    (
        "bce_logits_weight_none",
        lambda m: m.BCEWithLogitsLoss(weight=_weight(m, 4), reduction="none"),
        (3, 4),
        "unit",
    ),
    ("bce_logits_sum", lambda m: m.BCEWithLogitsLoss(reduction="sum"), (3, 4), "unit"),
]


def _weight(m, n):
    w = np.linspace(0.5, 2.0, n).astype(np.float32)
    return torch.from_numpy(w) if m is tnn else nl.tensor(w)


def _target(shape, kind):
    if kind == "index":
        return make((shape[0],) + shape[2:], "index", seed=7, classes=shape[1])
    return make(shape, kind, seed=7)


@pytest.mark.parametrize("name,factory,shape,kind", LOSSES, ids=[entry[0] for entry in LOSSES])
def test_loss_matches_torch(name, factory, shape, kind):
    ours, theirs = factory(nn), factory(tnn)
    assert repr(ours) == repr(theirs)
    x = make(shape, seed=1) * 2
    t = _target(shape, kind)
    xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    la, lb = ours(xa, nl.tensor(t)), theirs(xb, torch.from_numpy(t))
    close(la, lb, "loss")
    g = make(tuple(lb.shape), seed=3)
    la.backward(nl.tensor(g))
    lb.backward(torch.from_numpy(g))
    close(xa.grad, xb.grad, "input gradient")
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("name", ["mse", "l1", "bce_logits", "ce_probs"])
def test_loss_gradient_with_respect_to_target(name):
    factory, shape, kind = next((f, s, k) for n, f, s, k in LOSSES if n == name)
    ours, theirs = factory(nn), factory(tnn)
    x, t = make(shape, seed=1), _target(shape, kind)
    ta, tb = nl.tensor(t, requires_grad=True), torch.tensor(t, requires_grad=True)
    ours(nl.tensor(x), ta).backward()
    theirs(torch.tensor(x), tb).backward()
    close(ta.grad, tb.grad, "target gradient")


def test_cross_entropy_is_stable_for_huge_logits():
    x = np.array([[1e4, -1e4, 0.0], [-3e4, 3e4, 1.0]], dtype=np.float32)
    t = np.array([0, 0])
    la = nn.CrossEntropyLoss()(nl.tensor(x, requires_grad=True), nl.tensor(t))
    lb = tnn.CrossEntropyLoss()(torch.tensor(x), torch.from_numpy(t))
    assert np.isfinite(la.item())
    close(la, lb, "loss")
    xa = nl.tensor(x, requires_grad=True)
    nn.functional.log_softmax(xa, 1).sum().backward()
    assert np.isfinite(xa.grad.numpy()).all()
    big = nl.tensor([[-1e4, 1e4]], requires_grad=True)
    loss = nn.BCEWithLogitsLoss()(big, nl.tensor([[1.0, 0.0]]))
    assert np.isfinite(loss.item())
    close(
        loss,
        tnn.BCEWithLogitsLoss()(torch.tensor([[-1e4, 1e4]]), torch.tensor([[1.0, 0.0]])),
        "bce",
    )


def test_gradient_penalty_double_backward_matches_torch():
    """A gradient penalty (grad of a grad norm) through conv, batch norm, pooling and linear layers."""

    def build(m):
        return m.Sequential(
            m.Conv2d(2, 3, 3, padding=1),
            m.BatchNorm2d(3),
            m.Tanh(),
            m.MaxPool2d(2),
            m.Conv2d(3, 2, 2),
            m.Sigmoid(),
            m.AvgPool2d(1),
            m.Flatten(),
            m.Linear(8, 3),
        )

    nl.manual_seed(0)
    ours, theirs = build(nn), build(tnn)
    copy_weights(ours, theirs)
    ours.double()
    theirs.double()
    x = np.random.default_rng(0).standard_normal((3, 2, 6, 6))
    t = np.array([0, 2, 1])
    xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    la = nn.functional.cross_entropy(ours(xa), nl.tensor(t))
    lb = torch.nn.functional.cross_entropy(theirs(xb), torch.from_numpy(t))
    ga = nl.autograd.grad(la, [xa] + list(ours.parameters()), create_graph=True)
    gb = torch.autograd.grad(lb, [xb] + list(theirs.parameters()), create_graph=True)
    pa = sum((g * g).sum() for g in ga)
    pb = sum((g * g).sum() for g in gb)
    np.testing.assert_allclose(pa.item(), pb.item(), rtol=1e-9)
    pa.backward()
    pb.backward()
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-7, atol=1e-12)
    for (name, a), b in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-12, err_msg=name
        )
