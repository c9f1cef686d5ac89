"""The layers of the rest of ``torch.nn`` against their PyTorch twins, through the checks of
``test_nn_layers.py`` (same weights, outputs, gradients, buffers and ``repr``), plus the layers
that take two or three inputs and the parameter containers."""

import numpy as np
import pytest
from test_nn_layers import _run_layer, close, copy_weights, make

import nnlite as nl
from nnlite import nn

torch = pytest.importorskip("torch")
tnn = torch.nn

LAYERS = [
    ("celu", lambda m: m.CELU(0.5), (3, 4)),
    ("selu", lambda m: m.SELU(), (3, 4)),
    ("glu", lambda m: m.GLU(), (3, 4)),
    ("hardshrink", lambda m: m.Hardshrink(0.3), (3, 4)),
    ("softshrink", lambda m: m.Softshrink(), (3, 4)),
    ("logsigmoid", lambda m: m.LogSigmoid(), (3, 4)),
    ("softsign", lambda m: m.Softsign(), (3, 4)),
    ("tanhshrink", lambda m: m.Tanhshrink(), (3, 4)),
    ("threshold", lambda m: m.Threshold(0.1, 20.0), (3, 4)),
    ("softmin", lambda m: m.Softmin(dim=1), (3, 4)),
    ("softmax2d", lambda m: m.Softmax2d(), (2, 3, 2, 2)),
    ("dropout3d_p0", lambda m: m.Dropout3d(0.0), (2, 3, 2, 2, 2)),
    ("feature_alpha_dropout_p0", lambda m: m.FeatureAlphaDropout(0.0), (2, 3, 4)),
    ("maxpool1d", lambda m: m.MaxPool1d(3, 2, 1), (2, 3, 9)),
    ("maxpool3d", lambda m: m.MaxPool3d(2), (1, 2, 4, 4, 4)),
    ("avgpool1d", lambda m: m.AvgPool1d(3), (2, 3, 9)),
    ("avgpool3d", lambda m: m.AvgPool3d(2, stride=1, padding=1), (1, 2, 3, 4, 3)),
    ("adaptive_avgpool1d", lambda m: m.AdaptiveAvgPool1d(4), (2, 3, 9)),
    ("adaptive_avgpool3d", lambda m: m.AdaptiveAvgPool3d((2, None, 3)), (1, 2, 3, 4, 5)),
    ("adaptive_maxpool1d", lambda m: m.AdaptiveMaxPool1d(3), (2, 3, 9)),
    ("adaptive_maxpool3d", lambda m: m.AdaptiveMaxPool3d(1), (1, 2, 3, 4, 5)),
    ("lppool1d", lambda m: m.LPPool1d(2, 3), (2, 3, 9)),
    ("lppool2d", lambda m: m.LPPool2d(2, 2), (2, 3, 4, 4)),
    ("lppool3d", lambda m: m.LPPool3d(2, 2), (1, 2, 4, 4, 4)),
    ("unfold", lambda m: m.Unfold(2, padding=1), (2, 3, 4, 4)),
    ("fold", lambda m: m.Fold((4, 5), 2), (2, 8, 12)),
    ("channel_shuffle", lambda m: m.ChannelShuffle(2), (2, 4, 3, 3)),
    ("local_response_norm", lambda m: m.LocalResponseNorm(2), (2, 5, 3, 3)),
    ("rms_norm", lambda m: m.RMSNorm(4, eps=1e-5), (2, 3, 4)),
    ("rms_norm_no_affine", lambda m: m.RMSNorm([3, 4], elementwise_affine=False), (2, 3, 4)),
    ("zeropad1d", lambda m: m.ZeroPad1d(2), (2, 3, 4)),
    ("zeropad3d", lambda m: m.ZeroPad3d(1), (1, 2, 2, 3, 2)),
    ("constantpad1d", lambda m: m.ConstantPad1d(2, 3.5), (2, 3, 4)),
    ("constantpad3d", lambda m: m.ConstantPad3d((1, 0, 2, 1, 0, 1), 0.5), (1, 2, 2, 3, 2)),
    ("reflectionpad3d", lambda m: m.ReflectionPad3d(1), (1, 2, 3, 3, 3)),
    ("replicationpad3d", lambda m: m.ReplicationPad3d(1), (1, 2, 3, 3, 3)),
    ("circularpad1d", lambda m: m.CircularPad1d(1), (2, 3, 4)),
    ("circularpad3d", lambda m: m.CircularPad3d(1), (1, 2, 3, 3, 3)),
    ("conv3d", lambda m: m.Conv3d(2, 4, 3, padding=1), (1, 2, 4, 4, 3)),
    (
        "conv3d_strided_groups",
        lambda m: m.Conv3d(4, 2, (2, 3, 1), stride=(2, 1, 1), groups=2, bias=False),
        (1, 4, 5, 4, 3),
    ),
    (
        "conv3d_same_circular",
        lambda m: m.Conv3d(2, 2, 2, padding="same", padding_mode="circular"),
        (1, 2, 3, 3, 3),
    ),
    ("conv_transpose1d", lambda m: m.ConvTranspose1d(2, 4, 3, stride=2), (2, 2, 5)),
    (
        "conv_transpose3d",
        lambda m: m.ConvTranspose3d(2, 4, 3, stride=2, padding=1),
        (1, 2, 2, 3, 2),
    ),
    ("batchnorm3d", lambda m: m.BatchNorm3d(3), (2, 3, 2, 2, 2)),
    ("instancenorm3d_affine", lambda m: m.InstanceNorm3d(3, affine=True), (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("name,factory,shape", LAYERS, ids=[entry[0] for entry in LAYERS])
def test_layer_matches_torch_train(name, factory, shape):
    _run_layer(factory, shape, train=True)


# random in training: compared in evaluation mode only
EVAL_ONLY = [
    ("rrelu", lambda m: m.RReLU(), (3, 4)),
    ("alpha_dropout", lambda m: m.AlphaDropout(0.2), (3, 4)),
]


@pytest.mark.parametrize(
    "name,factory,shape", LAYERS + EVAL_ONLY, ids=[entry[0] for entry in LAYERS + EVAL_ONLY]
)
def test_layer_matches_torch_eval(name, factory, shape):
    _run_layer(factory, shape, train=False, steps=1)


def _index_target(shape, classes):
    return make(shape, "index", seed=7, classes=classes)


def _signs(shape):
    return np.where(make(shape, seed=7) > 0, 1.0, -1.0).astype(np.float32)


# (name, factory, input arrays); losses differentiate their first input only (PyTorch refuses
# gradients for some targets)
MULTI_INPUT = [
    ("bilinear", lambda m: m.Bilinear(3, 4, 2), [make((5, 3)), make((5, 4), seed=1)]),
    ("cosine_similarity", lambda m: m.CosineSimilarity(), [make((5, 3)), make((5, 3), seed=1)]),
    (
        "pairwise_distance",
        lambda m: m.PairwiseDistance(p=1.5, keepdim=True),
        [make((5, 3)), make((5, 3), seed=1)],
    ),
    ("soft_margin_loss", lambda m: m.SoftMarginLoss(), [make((3, 4)), _signs((3, 4))]),
    (
        "hinge_embedding_loss",
        lambda m: m.HingeEmbeddingLoss(margin=0.5, reduction="sum"),
        [make((3, 4)), _signs((3, 4))],
    ),
    ("multi_margin_loss", lambda m: m.MultiMarginLoss(p=2), [make((3, 4)), _index_target((3,), 4)]),
    (
        "multilabel_margin_loss",
        lambda m: m.MultiLabelMarginLoss(),
        [make((2, 4)), np.array([[3, 0, -1, 1], [1, -1, 2, 2]])],
    ),
    (
        "multilabel_soft_margin_loss",
        lambda m: m.MultiLabelSoftMarginLoss(reduction="none"),
        [make((3, 4)), (_signs((3, 4)) > 0).astype(np.float32)],
    ),
    ("poisson_nll_loss", lambda m: m.PoissonNLLLoss(), [make((3, 4)), make((3, 4), "unit")]),
    (
        "gaussian_nll_loss",
        lambda m: m.GaussianNLLLoss(full=True),
        [make((3, 4)), make((3, 4), seed=1), make((3, 4), "unit") + 0.1],
    ),
    (
        "triplet_margin_with_distance_loss",
        lambda m: m.TripletMarginWithDistanceLoss(swap=True),
        [make((3, 4)), make((3, 4), seed=1), make((3, 4), seed=2)],
    ),
]


@pytest.mark.parametrize("name,factory,arrays", MULTI_INPUT, ids=[e[0] for e in MULTI_INPUT])
def test_multi_input_layer_matches_torch(name, factory, arrays):
    nl.manual_seed(0)
    ours, theirs = factory(nn), factory(tnn)
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    grads = [k == 0 or not name.endswith("_loss") for k in range(len(arrays))]
    ours_in = [nl.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    theirs_in = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    ya, yb = ours(*ours_in), theirs(*theirs_in)
    close(ya, yb, "output")
    g = make(tuple(yb.shape), seed=3)
    ya.backward(nl.tensor(g))
    yb.backward(torch.from_numpy(g))
    for k, (a, b) in enumerate(zip(ours_in, theirs_in)):
        if b.grad is not None:
            close(a.grad, b.grad, f"gradient of input {k}")
    for (key, pa), (_, pb) in zip(ours.named_parameters(), theirs.named_parameters()):
        close(pa.grad, pb.grad, f"gradient of {key}")


def test_embedding_bag_matches_torch():
    nl.manual_seed(0)
    ours = nn.EmbeddingBag(6, 3, mode="sum", padding_idx=0)
    theirs = tnn.EmbeddingBag(6, 3, mode="sum", padding_idx=0)
    assert repr(ours) == repr(theirs)
    assert float(ours.weight.detach()[0].abs().sum()) == 0.0  # the padding row starts at zero
    copy_weights(ours, theirs)
    indices, offsets = np.array([1, 0, 4, 2, 2, 5]), np.array([0, 2, 2])
    weights = make((6,), seed=4)
    ya = ours(nl.tensor(indices), nl.tensor(offsets), per_sample_weights=nl.tensor(weights))
    yb = theirs(
        torch.tensor(indices), torch.tensor(offsets), per_sample_weights=torch.tensor(weights)
    )
    close(ya, yb, "output")
    ya.sum().backward()
    yb.sum().backward()
    close(ours.weight.grad, theirs.weight.grad, "weight gradient")


def test_max_unpool_layers_invert_pooling_as_torch():
    x = make((1, 2, 4, 6), seed=5)
    pooled, indices = tnn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    ours, theirs = nn.MaxUnpool2d(2), tnn.MaxUnpool2d(2)
    assert repr(ours) == repr(theirs)
    ya = ours(nl.tensor(pooled.numpy()), nl.tensor(indices.numpy()), output_size=(4, 7))
    close(ya, theirs(pooled, indices, output_size=(4, 7)), "unpooled")
    for ours_cls, theirs_cls in (
        (nn.MaxUnpool1d, tnn.MaxUnpool1d),
        (nn.MaxUnpool3d, tnn.MaxUnpool3d),
    ):
        assert repr(ours_cls(3, 2, 1)) == repr(theirs_cls(3, 2, 1))


@pytest.mark.parametrize(
    "factory",
    [
        lambda m, t: m.ParameterList([m.Parameter(t.ones(2)), m.Parameter(t.zeros(2, 3))]),
        lambda m, t: m.ParameterList([m.Parameter(t.ones(2))]),
        lambda m, t: m.ParameterDict({"scale": m.Parameter(t.ones(2, 3))}),
        lambda m, t: m.ParameterDict([("a", m.Parameter(t.ones(1))), ("b", t.zeros(2))]),
    ],
)
def test_parameter_containers_register_and_print_as_torch(factory):
    ours, theirs = factory(nn, nl), factory(tnn, torch)
    assert repr(ours) == repr(theirs).replace("torch.", "nnlite.")
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_parameter_list_and_dict_behave_as_containers():
    params = nn.ParameterList()
    params.append(nl.zeros(2))
    params += [nl.ones(3)]
    assert isinstance(params[1], nn.Parameter) and params[-1].shape == (3,)
    assert len(params[:1]) == 1 and len(params) == 2
    optimizer = nl.optim.SGD(params.parameters(), lr=1.0)
    (params[0].sum() + params[1].sum()).backward()
    optimizer.step()
    assert params[0].tolist() == [-1.0, -1.0]
    table = nn.ParameterDict({"w": nl.ones(2)})
    table["b"] = nl.zeros(1)
    assert list(table) == ["w", "b"] and "b" in table
    assert table.pop("w").shape == (2,) and list(table.keys()) == ["b"]
    with pytest.raises(RuntimeError, match="ParameterDict should not be called"):
        table()


def test_nllloss2d_warns_as_torch():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        assert repr(nn.NLLLoss2d()) == "NLLLoss2d()"


@pytest.mark.parametrize(
    "factory,shape",
    [
        (lambda m: m.LazyLinear(3), (2, 5)),
        (lambda m: m.LazyConv1d(4, 3), (2, 2, 6)),
        (lambda m: m.LazyConv2d(4, 3, padding=1, bias=False), (1, 2, 5, 5)),
        (lambda m: m.LazyConv3d(2, 2), (1, 3, 3, 3, 3)),
        (lambda m: m.LazyBatchNorm1d(momentum=0.2), (4, 3)),
        (lambda m: m.LazyBatchNorm2d(), (2, 3, 4, 4)),
        (lambda m: m.LazyBatchNorm3d(affine=False), (2, 3, 2, 2, 2)),
    ],
)
def test_lazy_layers_take_their_size_from_the_first_input(factory, shape):
    ours, theirs = factory(nn), factory(tnn)
    assert repr(ours) == repr(theirs)
    parameters = list(ours.parameters())
    # built before the shapes are known (a layer without affine parameters has none)
    optimizer = nl.optim.SGD(parameters, lr=0.1) if parameters else None
    x = make(shape)
    ya = ours(nl.tensor(x))
    theirs(torch.tensor(x))
    assert repr(ours) == repr(theirs) and type(ours).__name__ == type(theirs).__name__
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert tuple(a.shape) == tuple(b.shape), name
    copy_weights(ours, theirs)
    close(ours(nl.tensor(x)), theirs(torch.tensor(x)), "output after materialising")
    if optimizer is not None:
        ya.sum().backward()
        optimizer.step()  # it holds the very parameters that were given their shapes
    assert all(p is q for p, q in zip(parameters, ours.parameters()))


@pytest.mark.parametrize(
    "name", ["Conv1d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
)
@pytest.mark.parametrize("channels", [(4, 6, 0), (3, 6, 2), (4, 3, 2)])
def test_conv_layers_refuse_groups_as_pytorch(name, channels):
    in_channels, out_channels, groups = channels
    with pytest.raises(ValueError) as theirs:
        getattr(tnn, name)(in_channels, out_channels, 3, groups=groups)
    with pytest.raises(ValueError, match=f"^{theirs.value}$"):
        getattr(nn, name)(in_channels, out_channels, 3, groups=groups)


@pytest.mark.parametrize("name", ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"])
def test_conv_transpose_output_size_as_pytorch(name):
    dims = int(name[-2])
    mine = getattr(nn, name)(2, 3, 3, stride=2, padding=1)
    theirs = getattr(tnn, name)(2, 3, 3, stride=2, padding=1)
    copy_weights(mine, theirs)
    x = make((1, 2) + (4,) * dims)
    size = (8,) * dims  # 7 without output padding: asks for one more
    expected = theirs(torch.from_numpy(x), output_size=size)
    close(mine(nl.from_numpy(x), output_size=size), expected, name)
    with pytest.raises(ValueError, match="requested an output size of"):
        mine(nl.from_numpy(x), output_size=(10,) * dims)
