"""RNN, LSTM, GRU and their cells against PyTorch on shared weights (outputs, final states, input and
parameter gradients, over several sequence lengths), packed sequences, and finite differences."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.autograd import gradcheck, gradgradcheck
from nnlite.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn


def twins(name, *args, **kwargs):
    ours = getattr(nn, name)(*args, **kwargs)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    return ours, theirs


def close(a, b, what, tol=2e-5):
    np.testing.assert_allclose(
        a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol, err_msg=what
    )


def flat(outputs):
    if isinstance(outputs, (tuple, list)):
        return [t for o in outputs for t in flat(o)]
    return [outputs]


CONFIGS = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"batch_first": True, "bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bidirectional": True, "bias": False}),
    ("GRU", {"bias": False}),
    ("GRU", {"num_layers": 2, "batch_first": True}),
    ("RNN", {}),
    ("RNN", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
]


@pytest.mark.parametrize("length", [1, 4, 9])
@pytest.mark.parametrize(
    "name,kwargs",
    CONFIGS,
    ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CONFIGS],
)
def test_layer_matches_pytorch(name, kwargs, length):
    nl.manual_seed(0)
    ours, theirs = twins(name, 3, 5, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    shape = (2, length, 3) if kwargs.get("batch_first") else (length, 2, 3)
    x = np.random.default_rng(length).standard_normal(shape).astype(np.float32)
    xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    directions = 2 if kwargs.get("bidirectional") else 1
    h0 = (
        np.random.default_rng(1)
        .standard_normal((kwargs.get("num_layers", 1) * directions, 2, 5))
        .astype(np.float32)
    )
    hx_a = (nl.tensor(h0), nl.tensor(h0 * 0.5)) if name == "LSTM" else nl.tensor(h0)
    hx_b = (torch.tensor(h0), torch.tensor(h0 * 0.5)) if name == "LSTM" else torch.tensor(h0)
    out_a, out_b = flat(ours(xa, hx_a)), flat(theirs(xb, hx_b))
    loss_a = sum((o * (i + 1)).sum() for i, o in enumerate(out_a))
    loss_b = sum((o * (i + 1)).sum() for i, o in enumerate(out_b))
    for i, (a, b) in enumerate(zip(out_a, out_b)):
        close(a, b, f"output {i}")
    loss_a.backward()
    loss_b.backward()
    close(xa.grad, xb.grad, "input gradient", 1e-4)
    for (pname, pa), pb in zip(ours.named_parameters(), theirs.parameters()):
        close(pa.grad, pb.grad, f"gradient of {pname}", 1e-4)


def test_unbatched_and_default_state():
    ours, theirs = twins("GRU", 3, 4)
    x = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    for a, b in zip(flat(ours(nl.tensor(x))), flat(theirs(torch.tensor(x)))):
        close(a, b, "unbatched")


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_pytorch(name):
    ours, theirs = twins(name, 3, 4)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_a, out_b = flat(ours(xa)), flat(theirs(xb))
    sum(o.sum() * (i + 1) for i, o in enumerate(out_a)).backward()
    sum(o.sum() * (i + 1) for i, o in enumerate(out_b)).backward()
    for a, b in zip(out_a, out_b):
        close(a, b, "cell output")
    close(xa.grad, xb.grad, "cell input gradient")
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == repr(
        torch.nn.RNNCell(3, 4, nonlinearity="relu")
    )


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_packed_sequences_match_pytorch(name):
    ours, theirs = twins(name, 3, 4, bidirectional=True, num_layers=2)
    lengths = [2, 5, 3]
    x = np.random.default_rng(0).standard_normal((5, 3, 3)).astype(np.float32)
    xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    packed_a = pack_padded_sequence(xa, lengths, enforce_sorted=False)
    packed_b = trnn.pack_padded_sequence(xb, lengths, enforce_sorted=False)
    close(packed_a.data, packed_b.data, "packed data")
    assert packed_a.batch_sizes.tolist() == packed_b.batch_sizes.tolist()
    out_a, hidden_a = ours(packed_a)
    out_b, hidden_b = theirs(packed_b)
    padded_a, len_a = pad_packed_sequence(out_a, batch_first=True)
    padded_b, len_b = trnn.pad_packed_sequence(out_b, batch_first=True)
    close(padded_a, padded_b, "unpacked output")
    assert len_a.tolist() == len_b.tolist() == lengths
    for a, b in zip(flat(hidden_a), flat(hidden_b)):
        close(a, b, "final state")
    (padded_a.sum() + sum(h.sum() for h in flat(hidden_a))).backward()
    (padded_b.sum() + sum(h.sum() for h in flat(hidden_b))).backward()
    close(xa.grad, xb.grad, "input gradient through packing", 1e-4)


def _initial_states(name, shape, rng):
    h0 = rng.standard_normal(shape).astype(np.float32)
    return (h0, h0 * 0.5) if name == "LSTM" else (h0,)


def _as(lib, states):
    tensors = tuple(lib.tensor(s, requires_grad=True) for s in states)
    return tensors, (tensors if len(tensors) == 2 else tensors[0])


RECURRENT = [
    ("LSTM", {}),
    ("GRU", {}),
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu"}),
]


@pytest.mark.parametrize("enforce_sorted", [False, True])
@pytest.mark.parametrize(
    "name,kwargs", RECURRENT, ids=[f"{n}-{kw.get('nonlinearity', '')}" for n, kw in RECURRENT]
)
def test_packed_sequences_with_initial_states_match_pytorch(name, kwargs, enforce_sorted):
    # every sequence op holds the state of finished sequences: outputs, h_n, input, initial
    # states and all parameter gradients as PyTorch's, both directions, two layers
    nl.manual_seed(1)
    ours, theirs = twins(name, 3, 4, bidirectional=True, num_layers=2, **kwargs)
    lengths = [6, 4, 4, 1] if enforce_sorted else [3, 6, 1, 4]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4, 3)).astype(np.float32)
    states = _initial_states(name, (4, 4, 4), rng)
    xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (states_a, hx_a), (states_b, hx_b) = _as(nl, states), _as(torch, states)
    packed_a = pack_padded_sequence(xa, lengths, enforce_sorted=enforce_sorted)
    packed_b = trnn.pack_padded_sequence(xb, lengths, enforce_sorted=enforce_sorted)
    out_a, hidden_a = ours(packed_a, hx_a)
    out_b, hidden_b = theirs(packed_b, hx_b)
    close(out_a.data, out_b.data, "packed output")
    for a, b in zip(flat(hidden_a), flat(hidden_b)):
        close(a, b, "final state")
    weights = np.random.default_rng(4).standard_normal(tuple(out_a.data.shape))
    loss_a = (out_a.data * nl.tensor(weights)).sum() + sum(h.sum() * 2 for h in flat(hidden_a))
    loss_b = (out_b.data * torch.tensor(weights)).sum() + sum(h.sum() * 2 for h in flat(hidden_b))
    loss_a.backward()
    loss_b.backward()
    close(xa.grad, xb.grad, "input gradient", 1e-4)
    for i, (a, b) in enumerate(zip(states_a, states_b)):
        close(a.grad, b.grad, f"initial state {i} gradient", 1e-4)
    for (pname, pa), pb in zip(ours.named_parameters(), theirs.parameters()):
        close(pa.grad, pb.grad, f"gradient of {pname}", 1e-4)


@pytest.mark.parametrize(
    "name,kwargs", RECURRENT, ids=[f"{n}-{kw.get('nonlinearity', '')}" for n, kw in RECURRENT]
)
def test_dropout_between_layers_matches_pytorch(name, kwargs):
    # dropout=1 drops every input of the second layer in both frameworks: a deterministic check
    # that dropout sits between the layers and nowhere else, and is off in eval mode
    ours, theirs = twins(name, 3, 4, num_layers=2, dropout=1.0, **kwargs)
    x = np.random.default_rng(5).standard_normal((5, 2, 3)).astype(np.float32)
    for train in (True, False):
        ours.train(train)
        theirs.train(train)
        xa, xb = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out_a, out_b = flat(ours(xa)), flat(theirs(xb))
        for a, b in zip(out_a, out_b):
            close(a, b, f"output, training={train}")
        sum(o.sum() for o in out_a).backward()
        sum(o.sum() for o in out_b).backward()
        close(xa.grad, xb.grad, f"input gradient, training={train}", 1e-4)


@pytest.mark.parametrize(
    "name,kwargs", RECURRENT, ids=[f"{n}-{kw.get('nonlinearity', '')}" for n, kw in RECURRENT]
)
def test_layer_gradients_of_every_input_first_and_second_order(name, kwargs):
    # float64 finite differences through a bidirectional layer, packed and not: input, initial
    # states and weights of both directions (first order over two layers, second order over one)
    rng = np.random.default_rng(6)
    x = nl.tensor(rng.standard_normal((3, 3, 2)), requires_grad=True)
    count = 2 if name == "LSTM" else 1

    def check(layers, packed, order):
        layer = getattr(nn, name)(2, 2, num_layers=layers, bidirectional=True, **kwargs).double()
        shape = (2 * layers, 3, 2)
        states = [nl.tensor(rng.standard_normal(shape), requires_grad=True) for _ in range(count)]

        def run(inp, *rest):
            hx = tuple(rest[:count]) if count == 2 else rest[0]
            if packed:
                out, hidden = layer(pack_padded_sequence(inp, [3, 1, 2], enforce_sorted=False), hx)
                out = out.data
            else:
                out, hidden = layer(inp, hx)
            return nl.cat([out.reshape(-1, 4).sum(0)] + [h.sum((0, 1)) for h in flat(hidden)])

        weights = (layer.weight_ih_l0_reverse, layer.weight_hh_l0, layer.bias_hh_l0_reverse)
        if layers > 1:
            weights += (layer.weight_hh_l1_reverse,)
        return order(run, (x, *states, *weights))

    for packed in (False, True):
        assert check(2, packed, gradcheck)
    assert check(1, True, gradgradcheck)


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_second_order(name):
    cell = getattr(nn, name)(2, 3).double()
    rng = np.random.default_rng(7)
    x = nl.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    h = nl.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    hx = (h, h * 0.5) if name == "LSTMCell" else h

    def run(inp, weight):
        return sum(o * (i + 1) for i, o in enumerate(flat(cell(inp, hx))))

    assert gradcheck(run, (x, cell.weight_hh))
    assert gradgradcheck(run, (x, cell.weight_hh))


def test_pad_sequence():
    seqs = [np.ones((2, 3)), np.full((4, 3), 2.0), np.zeros((1, 3))]
    for batch_first in (False, True):
        ours = pad_sequence(
            [nl.tensor(s) for s in seqs], batch_first=batch_first, padding_value=-1.0
        )
        theirs = trnn.pad_sequence(
            [torch.tensor(s) for s in seqs], batch_first=batch_first, padding_value=-1.0
        )
        close(ours, theirs, "pad_sequence")


def test_lstm_and_gru_gradcheck_float64():
    for name in ("LSTM", "GRU"):
        layer = getattr(nn, name)(2, 3, num_layers=2, bidirectional=True).double()
        x = nl.tensor(np.random.default_rng(0).standard_normal((3, 2, 2)), requires_grad=True)
        weight = layer.weight_hh_l1_reverse
        assert gradcheck(lambda inp, w, layer=layer: layer(inp)[0], (x, weight))
    cell = nn.GRUCell(2, 3).double()
    x = nl.tensor(np.random.default_rng(1).standard_normal((2, 2)), requires_grad=True)
    assert gradgradcheck(lambda inp: cell(inp), (x,))


def test_lstm_sequence_gradients_of_every_input_first_and_second_order():
    # the fused sequence op: input, both initial states and both weight matrices, both directions
    layer = nn.LSTM(2, 3, bidirectional=True).double()
    rng = np.random.default_rng(2)
    x = nl.tensor(rng.standard_normal((4, 2, 2)), requires_grad=True)
    h0 = nl.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    c0 = nl.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)

    def run(inp, h, c, w_ih, w_hh):
        out, (h_n, c_n) = layer(inp, (h, c))
        return out * 1.5 + h_n.sum() - c_n.sum() * 0.5

    inputs = (x, h0, c0, layer.weight_ih_l0_reverse, layer.weight_hh_l0)
    assert gradcheck(run, inputs)
    assert gradgradcheck(run, inputs)


def test_errors():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(
        RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"
    ):
        lstm(nl.randn(5, 2, 2))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        lstm(nl.randn(5, 2, 3), (nl.zeros(1, 3, 4), nl.zeros(1, 3, 4)))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)


def test_flatten_parameters_and_pytorch_import_paths():
    # scripts call flatten_parameters() after loading and name classes by PyTorch's module paths
    layer = nn.LSTM(3, 4)
    x = nl.randn(2, 1, 3)
    before = layer(x)[0].detach().numpy().copy()
    assert layer.flatten_parameters() is None
    np.testing.assert_array_equal(layer(x)[0].detach().numpy(), before)
    assert nn.modules.rnn.GRU is nn.GRU and nn.modules.sparse.Embedding is nn.Embedding
    assert nn.modules.activation.MultiheadAttention is nn.MultiheadAttention
