"""``nl.onnx.export`` of ``nn.Embedding``, ``nn.RNN``, ``nn.LSTM`` and ``nn.GRU``: onnxruntime computes
nnlite's outputs (and PyTorch's for the same weights) on sequence lengths and batch sizes other than
the traced ones."""

import itertools

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import functional as F

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

LAYERS = {
    "LSTM": lambda **kw: nn.LSTM(**kw),
    "GRU": lambda **kw: nn.GRU(**kw),
    "RNN_TANH": lambda **kw: nn.RNN(**kw),
    "RNN_RELU": lambda **kw: nn.RNN(nonlinearity="relu", **kw),
}
INPUT, HIDDEN = 3, 5


class Recurrent(nn.Module):
    """The layer alone, with the initial state(s) as a second (nested for LSTM) argument."""

    def __init__(self, layer):
        super().__init__()
        self.rnn = layer

    def forward(self, x, hx=None):
        return self.rnn(x, hx)


def flat(value):
    """The tensors of a nested tuple, in order (as export numbers the graph's inputs and outputs)."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flat(v)]
    return [value]


def run_onnx(path, tensors):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    assert len(names) == len(tensors)
    return session.run(None, {n: t.numpy() for n, t in zip(names, tensors)})


def assert_close(ours, theirs):
    ours = ours.detach().numpy() if isinstance(ours, nl.Tensor) else np.asarray(ours)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(theirs, ours, rtol=1e-4, atol=1e-5)


def initial_states(mode, rows, batch):
    if mode == "LSTM":
        return (nl.randn(rows, batch, HIDDEN), nl.randn(rows, batch, HIDDEN))
    return nl.randn(rows, batch, HIDDEN)


def sequence_args(mode, layer, length, batch, with_states):
    shape = (batch, length, INPUT) if layer.batch_first else (length, batch, INPUT)
    x = nl.randn(*shape)
    if not with_states:
        return (x,)
    rows = layer.num_layers * (2 if layer.bidirectional else 1)
    return (x, initial_states(mode, rows, batch))


def dynamic_axes(layer, count):
    """Sequence and batch free in the graph for the input, state inputs and outputs."""
    sequence = {0: "batch", 1: "sequence"} if layer.batch_first else {0: "sequence", 1: "batch"}
    names = ["input"] + [f"h{i}" for i in range(count - 1)]
    axes = {"input": sequence, "output": sequence}
    axes.update({n: {1: "batch"} for n in names[1:]})
    return names, axes


@pytest.mark.parametrize(
    "mode, num_layers, bidirectional, batch_first, with_states",
    list(itertools.product(LAYERS, [1, 2], [False, True], [False, True], [False, True])),
)
def test_layer_matches_nnlite_on_other_lengths_and_batches(
    tmp_path, mode, num_layers, bidirectional, batch_first, with_states
):
    nl.manual_seed(0)
    layer = LAYERS[mode](
        input_size=INPUT,
        hidden_size=HIDDEN,
        num_layers=num_layers,
        bidirectional=bidirectional,
        batch_first=batch_first,
        dropout=0.5 if num_layers > 1 else 0.0,  # between layers: off at export (eval mode)
    )
    model = Recurrent(layer)
    traced = sequence_args(mode, layer, length=4, batch=2, with_states=with_states)
    input_names, axes = dynamic_axes(layer, len(flat(traced)))
    path = tmp_path / f"{mode}.onnx"
    nl.onnx.export(model, traced, path, input_names=input_names, dynamic_axes=axes)
    onnx.checker.check_model(str(path))
    op_types = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert {"LSTM": "LSTM", "GRU": "GRU"}.get(mode, "RNN") in op_types
    model.eval()
    for length, batch in [(4, 2), (7, 3), (1, 1)]:
        args = sequence_args(mode, layer, length, batch, with_states)
        results = run_onnx(path, flat(args))
        ours = flat(model(*args))
        assert len(results) == len(ours) == (3 if mode == "LSTM" else 2)
        for mine, theirs in zip(ours, results):
            assert_close(mine, theirs)


@pytest.mark.parametrize("mode", list(LAYERS))
@pytest.mark.parametrize("opset", [13, 17])
def test_layer_matches_pytorch_with_the_same_weights(tmp_path, mode, opset):
    torch = pytest.importorskip("torch")
    nl.manual_seed(1)
    kwargs = dict(input_size=INPUT, hidden_size=HIDDEN, num_layers=2, bidirectional=True)
    layer = LAYERS[mode](**kwargs)
    theirs = {
        "LSTM": torch.nn.LSTM,
        "GRU": torch.nn.GRU,
        "RNN_TANH": torch.nn.RNN,
        "RNN_RELU": lambda **kw: torch.nn.RNN(nonlinearity="relu", **kw),
    }[mode](**kwargs)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in layer.state_dict().items()}
    )
    args = sequence_args(mode, layer, length=6, batch=3, with_states=True)
    path = tmp_path / f"{mode}.onnx"
    nl.onnx.export(Recurrent(layer), args, path, opset_version=opset)
    results = run_onnx(path, flat(args))
    with torch.no_grad():
        expected = flat(theirs(*[_to_torch(torch, a) for a in args]))
    for result, want in zip(results, expected):
        assert_close(want.numpy(), result)


def _to_torch(torch, value):
    if isinstance(value, tuple):
        return tuple(_to_torch(torch, v) for v in value)
    return torch.from_numpy(value.numpy().copy())


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_unbatched_input_and_state_by_keyword(tmp_path, mode):
    nl.manual_seed(2)
    layer = LAYERS[mode](input_size=INPUT, hidden_size=HIDDEN, bidirectional=True)

    class ByKeyword(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = layer

        def forward(self, x, hx):
            return self.rnn(x, hx=hx)

    x = nl.randn(5, INPUT)
    hx = (
        tuple(s[:, 0] for s in initial_states("LSTM", 2, 1))
        if mode == "LSTM"
        else nl.randn(2, HIDDEN)
    )
    path = tmp_path / "unbatched.onnx"
    nl.onnx.export(ByKeyword(), (x, hx), path)
    results = run_onnx(path, flat((x, hx)))
    ours = flat(ByKeyword().eval()(x, hx))
    assert [r.shape for r in results] == [tuple(o.shape) for o in ours]
    for mine, theirs in zip(ours, results):
        assert_close(mine, theirs)


def test_bias_free_layer(tmp_path):
    nl.manual_seed(3)
    layer = nn.GRU(INPUT, HIDDEN, num_layers=2, bias=False)
    x = nl.randn(4, 2, INPUT)
    path = tmp_path / "gru.onnx"
    nl.onnx.export(Recurrent(layer), (x,), path)
    output, hidden = run_onnx(path, [x])
    ours = layer(x)
    assert_close(ours[0], output)
    assert_close(ours[1], hidden)


class Lookup(nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self.embedding = nn.Embedding(10, 4, **kwargs)
        self.weight = nn.Parameter(nl.randn(10, 4))

    def forward(self, tokens):
        return self.embedding(tokens), F.embedding(tokens, self.weight)


@pytest.mark.parametrize(
    "kwargs", [{}, {"padding_idx": 0}, {"max_norm": 1.0}, {"max_norm": 2.0, "norm_type": 1.0}]
)
def test_embedding_module_and_function(tmp_path, kwargs):
    nl.manual_seed(4)
    model = Lookup(**kwargs)
    path = tmp_path / "lookup.onnx"
    nl.onnx.export(
        model,
        nl.tensor([[1, 2], [0, 9]]),
        path,
        output_names=["module", "function"],
        dynamic_axes={"input": [0, 1], "module": [0, 1], "function": [0, 1]},
    )
    graph = onnx.load(str(path)).graph
    assert [n.op_type for n in graph.node].count("Gather") == 2
    tokens = nl.tensor([[3, 0, 7], [9, 9, 1], [-1, 4, 2]])
    expected = model.weight.detach().numpy()[tokens.numpy()]
    module_rows, function_rows = run_onnx(path, [tokens])
    assert_close(expected, function_rows)
    assert_close(model.eval()(tokens)[0], module_rows)
    if "max_norm" in kwargs:
        norms = np.linalg.norm(module_rows, ord=kwargs.get("norm_type", 2.0), axis=-1)
        assert norms.max() <= kwargs["max_norm"] + 1e-5


class RNNModel(nn.Module):
    """word_language_model's model: Embedding encoder -> dropout -> recurrent layers -> dropout ->
    Linear decoder, flattened to (L * N, ntoken) log-probabilities, and the final hidden state."""

    def __init__(self, rnn_type, ntoken=20, ninp=6, nhid=8, nlayers=2, dropout=0.5):
        super().__init__()
        self.ntoken, self.rnn_type, self.nhid, self.nlayers = ntoken, rnn_type, nhid, nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ("LSTM", "GRU"):
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (
                weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid),
            )
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_word_language_model_export(tmp_path, rnn_type):
    """As its ``--onnx-export``: zero tokens of shape (bptt, 1) and ``init_hidden(1)`` traced."""
    nl.manual_seed(5)
    model = RNNModel(rnn_type)
    model.eval()
    dummy_input = nl.LongTensor(8 * 1).zero_().view(-1, 1)
    path = tmp_path / "model.onnx"
    nl.onnx.export(model, (dummy_input, model.init_hidden(1)), path)
    model.train()
    onnx.checker.check_model(str(path))
    tokens = nl.randint(0, 20, (8, 1))
    hidden = tuple(nl.randn(2, 1, 8) for _ in range(2)) if rnn_type == "LSTM" else nl.randn(2, 1, 8)
    results = run_onnx(path, flat((tokens, hidden)))
    ours = flat(model.eval()(tokens, hidden))
    assert len(results) == (3 if rnn_type == "LSTM" else 2)
    assert results[0].shape == (8, 20)
    for mine, theirs in zip(ours, results):
        assert_close(mine, theirs)


def test_packed_sequences_are_refused_naming_the_module(tmp_path):
    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(INPUT, HIDDEN)

        def forward(self, x):
            packed = nn.utils.rnn.pack_padded_sequence(x, [3, 2])
            return nn.utils.rnn.pad_packed_sequence(self.lstm(packed)[0])[0]

    with pytest.raises(nl.onnx.ExportError, match=r"nn\.LSTM 'lstm'.*PackedSequence"):
        nl.onnx.export(Packed(), nl.randn(3, 2, INPUT), tmp_path / "packed.onnx")
    assert not (tmp_path / "packed.onnx").exists()


def test_projection_is_refused_naming_the_module(tmp_path):
    # nnlite refuses proj_size when the layer is built; a layer that has one anyway is not exported
    layer = nn.LSTM(INPUT, HIDDEN)
    layer.proj_size = 2
    with pytest.raises(nl.onnx.ExportError, match=r"nn\.LSTM 'rnn' with proj_size"):
        nl.onnx.export(Recurrent(layer), nl.randn(3, 2, INPUT), tmp_path / "proj.onnx")
