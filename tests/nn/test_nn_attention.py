"""MultiheadAttention and the Transformer layers against PyTorch on shared weights (outputs, weights,
input and parameter gradients), with masks, over several sequence lengths."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn

torch = pytest.importorskip("torch")


def twins(name, *args, **kwargs):
    nl.manual_seed(0)
    ours = getattr(nn, name)(*args, **kwargs)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    state = {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state)
    return ours, theirs


def close(a, b, what, tol=2e-5):
    np.testing.assert_allclose(
        a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol, err_msg=what
    )


def data(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def check_gradients(ours, theirs, out_a, out_b, inputs):
    g = data(*out_b.shape, seed=9)
    out_a.backward(nl.tensor(g))
    out_b.backward(torch.tensor(g))
    for i, (a, b) in enumerate(inputs):
        close(a.grad, b.grad, f"gradient of input {i}", 1e-4)
    for (name, pa), pb in zip(ours.named_parameters(), theirs.parameters()):
        close(pa.grad, pb.grad, f"gradient of {name}", 1e-4)


@pytest.mark.parametrize("length,source", [(1, 1), (4, 6), (7, 3)])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"batch_first": True},
        {"kdim": 3, "vdim": 5},
        {"bias": False},
    ],
    ids=["default", "batch_first", "kdim_vdim", "no_bias"],
)
def test_multihead_attention(options, length, source):
    ours, theirs = twins("MultiheadAttention", 8, 2, **options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    kdim, vdim = options.get("kdim", 8), options.get("vdim", 8)
    first = options.get("batch_first", False)
    shape = (lambda n, e: (3, n, e)) if first else (lambda n, e: (n, 3, e))
    arrays = [
        data(*shape(length, 8), seed=1),
        data(*shape(source, kdim), seed=2),
        data(*shape(source, vdim), seed=3),
    ]
    inputs = [
        (nl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)) for a in arrays
    ]
    padding = np.zeros((3, source), dtype=bool)
    padding[1, -1] = source > 1
    attn_mask = np.triu(np.ones((length, source), dtype=bool), 1) if length == source else None
    for average in (True, False):
        out_a, w_a = ours(
            *[a for a, _ in inputs],
            key_padding_mask=nl.tensor(padding),
            average_attn_weights=average,
            attn_mask=None if attn_mask is None else nl.tensor(attn_mask),
        )
        out_b, w_b = theirs(
            *[b for _, b in inputs],
            key_padding_mask=torch.tensor(padding),
            average_attn_weights=average,
            attn_mask=None if attn_mask is None else torch.tensor(attn_mask),
        )
        close(out_a, out_b, "attention output")
        close(w_a, w_b, "attention weights")
    check_gradients(ours, theirs, out_a, out_b, inputs)


def test_multihead_attention_float_mask_unbatched_no_weights():
    ours, theirs = twins("MultiheadAttention", 6, 3)
    x = data(4, 6)
    mask = data(4, 4, seed=5)
    out_a, w_a = ours(
        nl.tensor(x), nl.tensor(x), nl.tensor(x), attn_mask=nl.tensor(mask), need_weights=False
    )
    out_b, w_b = theirs(
        torch.tensor(x),
        torch.tensor(x),
        torch.tensor(x),
        attn_mask=torch.tensor(mask),
        need_weights=False,
    )
    close(out_a, out_b, "unbatched output")
    assert w_a is None and w_b is None


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"norm_first": True, "activation": "gelu"},
        {"batch_first": True, "bias": False},
    ],
    ids=["post_norm", "pre_norm_gelu", "batch_first_no_bias"],
)
def test_encoder_and_decoder_layers(options):
    for name in ("TransformerEncoderLayer", "TransformerDecoderLayer"):
        ours, theirs = twins(name, 8, 2, dim_feedforward=16, dropout=0.0, **options)
        assert repr(ours) == repr(theirs)
        first = options.get("batch_first", False)
        src = data(*((2, 5, 8) if first else (5, 2, 8)))
        memory = data(*((2, 3, 8) if first else (3, 2, 8)), seed=4)
        causal = np.triu(np.ones((5, 5), dtype=bool), 1)
        xa, xb = nl.tensor(src, requires_grad=True), torch.tensor(src, requires_grad=True)
        if name == "TransformerEncoderLayer":
            out_a = ours(xa, src_mask=nl.tensor(causal))
            out_b = theirs(xb, src_mask=torch.tensor(causal))
        else:
            out_a = ours(xa, nl.tensor(memory), tgt_mask=nl.tensor(causal))
            out_b = theirs(xb, torch.tensor(memory), tgt_mask=torch.tensor(causal))
        close(out_a, out_b, f"{name} output", 1e-4)
        check_gradients(ours, theirs, out_a, out_b, [(xa, xb)])


def test_encoder_stack_in_eval_mode():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    ours = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
    theirs = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
        2,
        norm=torch.nn.LayerNorm(8),
        enable_nested_tensor=False,
    )
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    # the copies are independent modules
    assert ours.layers[0].linear1.weight is not ours.layers[1].linear1.weight
    ours.eval()
    theirs.eval()
    x = data(5, 2, 8)
    padding = np.zeros((2, 5), dtype=bool)
    padding[0, 3:] = True
    close(
        ours(nl.tensor(x), src_key_padding_mask=nl.tensor(padding))[:, 1],
        theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(padding))[:, 1],
        "encoder stack",
        1e-4,
    )


def test_transformer_encoder_decoder_matches_pytorch():
    ours, theirs = twins(
        "Transformer",
        8,
        2,
        num_encoder_layers=2,
        num_decoder_layers=1,
        dim_feedforward=16,
        dropout=0.0,
    )
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    mask_a = nn.Transformer.generate_square_subsequent_mask(3)
    mask_b = torch.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask_a.numpy(), mask_b.numpy())
    src, tgt = data(5, 2, 8), data(3, 2, 8, seed=5)
    sa, sb = nl.tensor(src, requires_grad=True), torch.tensor(src, requires_grad=True)
    ta, tb = nl.tensor(tgt, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    out_a, out_b = ours(sa, ta, tgt_mask=mask_a), theirs(sb, tb, tgt_mask=mask_b)
    close(out_a, out_b, "Transformer output", 1e-4)
    check_gradients(ours, theirs, out_a, out_b, [(sa, sb), (ta, tb)])
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        ours(nl.tensor(src), nl.tensor(data(3, 1, 8)))


def test_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(RuntimeError, match="should not be set when is_causal=True"):
        nl.nn.functional.scaled_dot_product_attention(
            nl.randn(1, 2, 2),
            nl.randn(1, 2, 2),
            nl.randn(1, 2, 2),
            attn_mask=nl.ones(2, 2, dtype=nl.bool),
            is_causal=True,
        )


def test_module_paths_a_pickled_transformer_names():
    # word_language_model allowlists these by PyTorch's paths before loading a saved model
    for path in (
        "activation.MultiheadAttention",
        "linear.NonDynamicallyQuantizableLinear",
        "normalization.LayerNorm",
        "transformer.TransformerEncoder",
        "transformer.TransformerEncoderLayer",
        "sparse.Embedding",
        "dropout.Dropout",
    ):
        module, name = path.split(".")
        ours = getattr(getattr(nl.nn.modules, module), name)
        theirs = getattr(getattr(torch.nn.modules, module), name)
        assert ours.__name__ == theirs.__name__
    out_proj = nn.MultiheadAttention(4, 2).out_proj
    assert type(out_proj) is nl.nn.modules.linear.NonDynamicallyQuantizableLinear
    assert isinstance(out_proj, nn.Linear)
