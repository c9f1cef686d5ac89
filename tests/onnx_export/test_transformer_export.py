"""Exporting attention and transformers: onnxruntime computes what nnlite computes, for
``nn.MultiheadAttention`` (masks as constants and as graph inputs), ``F.multi_head_attention_forward``,
the encoder and decoder layers, ``LayerNorm`` and a small transformer language model (embedding,
positional encoding, a causal ``TransformerEncoder`` and a linear head)."""

import math

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import functional as F

onnx = pytest.importorskip("onnx", reason="exporting needs the onnx package")
ort = pytest.importorskip("onnxruntime", reason="running the export needs onnxruntime")


def _run(model, inputs, tmp_path, **kwargs):
    """nnlite's outputs and onnxruntime's on the exported file, as lists of arrays."""
    path = tmp_path / "model.onnx"
    model.eval()
    nl.onnx.export(model, tuple(inputs), path, **kwargs)
    with nl.no_grad():
        ours = model(*inputs)
    ours = [o.numpy() for o in (ours if isinstance(ours, tuple) else (ours,))]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feed = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
    return ours, session.run(None, feed)


def _close(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


class Attention(nn.Module):
    def __init__(self, batch_first, **call):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=batch_first)
        self.call = call

    def forward(self, q, kv, padding):
        out, weights = self.attn(q, kv, kv, key_padding_mask=padding, **self.call)
        return out if weights is None else (out, weights)


@pytest.mark.parametrize(
    "batch_first, call",
    [
        (False, {}),
        (True, {"average_attn_weights": False}),
        (False, {"need_weights": False, "attn_mask": nl.tensor([[False, True, True, False]] * 3)}),
    ],
)
def test_multihead_attention_module(tmp_path, batch_first, call):
    nl.manual_seed(0)
    model = Attention(batch_first, **call)
    shape = (lambda n: (2, n, 8)) if batch_first else (lambda n: (n, 2, 8))
    padding = nl.tensor([[False, False, False, True], [False, True, False, False]])
    _close(*_run(model, [nl.randn(*shape(3)), nl.randn(*shape(4)), padding], tmp_path))


class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.MultiheadAttention(8, 4)

    def forward(self, x):
        m = self.inner
        mask = nl.log(nl.tril(nl.ones(x.shape[0], x.shape[0])))  # causal, 0 / -inf
        out, weights = F.multi_head_attention_forward(
            x,
            x,
            x,
            8,
            4,
            m.in_proj_weight,
            m.in_proj_bias,
            None,
            None,
            False,
            0.0,
            m.out_proj.weight,
            m.out_proj.bias,
            training=False,
            attn_mask=mask,
        )
        return out, weights


def test_multi_head_attention_forward_function(tmp_path):
    nl.manual_seed(1)
    _close(*_run(Functional(), [nl.randn(5, 2, 8)], tmp_path))


@pytest.mark.parametrize(
    "kwargs", [{}, {"norm_first": True, "activation": "gelu", "batch_first": True}]
)
def test_encoder_and_decoder_layers(tmp_path, kwargs):
    nl.manual_seed(2)

    class Both(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.TransformerEncoder(
                nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, **kwargs), 2, nn.LayerNorm(8)
            )
            self.decoder = nn.TransformerDecoderLayer(8, 2, 16, **kwargs)

        def forward(self, src, tgt):
            memory = self.encoder(src)
            causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1 if kwargs else 0])
            return self.decoder(tgt, memory, tgt_mask=causal)

    shape = (lambda n: (2, n, 8)) if kwargs else (lambda n: (n, 2, 8))
    _close(*_run(Both(), [nl.randn(*shape(5)), nl.randn(*shape(3))], tmp_path))


class PositionalEncoding(nn.Module):
    """Sine and cosine positions added to (L, N, E) embeddings."""

    def __init__(self, width, length=64):
        super().__init__()
        position = np.arange(length)[:, None]
        rate = np.exp(np.arange(0, width, 2) * (-math.log(10000.0) / width))
        table = np.zeros((length, 1, width), dtype=np.float32)
        table[:, 0, 0::2], table[:, 0, 1::2] = np.sin(position * rate), np.cos(position * rate)
        self.register_buffer("pe", nl.tensor(table))
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0), :])


class LanguageModel(nn.Module):
    """A transformer language model: embedding, positions, causal encoder, linear head."""

    def __init__(self, vocabulary=11, width=8, heads=2, hidden=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocabulary, width)
        self.positions = PositionalEncoding(width)
        layer = nn.TransformerEncoderLayer(width, heads, hidden, dropout=0.2)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, vocabulary)
        self.width = width

    def forward(self, tokens):
        causal = nl.log(nl.tril(nl.ones(len(tokens), len(tokens))))
        x = self.positions(self.embed(tokens) * math.sqrt(self.width))
        return F.log_softmax(self.head(self.encoder(x, mask=causal)), dim=-1)


def test_transformer_language_model(tmp_path):
    nl.manual_seed(3)
    model = LanguageModel()
    tokens = nl.randint(0, 11, (6, 2))
    ours, theirs = _run(model, [tokens], tmp_path, input_names=["tokens"])
    _close(ours, theirs)
    assert np.isfinite(theirs[0]).all()
    # the mask is causal: changing the last token leaves the earlier positions' outputs alone
    changed = tokens.clone()
    changed[-1] = (changed[-1] + 1) % 11
    session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    again = session.run(None, {"tokens": changed.numpy()})[0]
    np.testing.assert_allclose(again[:-1], theirs[0][:-1], rtol=1e-5, atol=1e-6)
    assert not np.allclose(again[-1], theirs[0][-1])


def test_layer_norm_module_and_function(tmp_path):
    nl.manual_seed(4)

    class Norms(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm((3, 4), elementwise_affine=True)
            self.w = nn.Parameter(nl.rand(4) + 0.5)

        def forward(self, x):
            return F.layer_norm(self.norm(x), (4,), self.w, None, 1e-3)

    _close(*_run(Norms(), [nl.randn(2, 3, 4) * 3 + 1], tmp_path))
