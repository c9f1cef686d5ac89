"""A small GPT trained on the characters of a text file, then sampled.

Token and position embeddings, blocks of LayerNorm, causal self-attention and a GELU MLP, AdamW with
weight decay on the matrices only, gradient clipping, and sampling with top-k and multinomial.
Without a file it learns a generated English-like text (``generated_text.py``).

    python examples/char_gpt.py --steps 2000            # the generated text
    python examples/char_gpt.py input.txt --steps 2000  # any UTF-8 text file of your own
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
from generated_text import paragraphs  # noqa: E402

import nnlite as nl  # noqa: E402
from nnlite import nn  # noqa: E402
from nnlite.nn import functional as F  # noqa: E402


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head, self.dropout = n_head, dropout

    def forward(self, x):
        batch, length, channels = x.shape
        q, k, v = self.c_attn(x).split(channels, dim=2)

        def heads(t):
            return t.view(batch, length, self.n_head, channels // self.n_head).transpose(1, 2)

        y = F.scaled_dot_product_attention(
            heads(q),
            heads(k),
            heads(v),
            is_causal=True,
            dropout_p=self.dropout if self.training else 0.0,
        )
        y = y.transpose(1, 2).contiguous().view(batch, length, channels)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.GELU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=4, n_head=4, n_embd=128, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(n_embd, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        for name, p in self.named_parameters():
            if p.ndim == 2:
                nn.init.normal_(
                    p,
                    0.0,
                    0.02 / (math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 1.0),
                )
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx, targets=None):
        positions = nl.arange(idx.shape[1])
        x = self.drop(self.wte(idx) + self.wpe(positions))
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = (
            None
            if targets is None
            else F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        )
        return logits, loss

    def optimizer(self, lr, weight_decay):
        """AdamW with weight decay on the matrices of Linear layers only (not biases, norms, embeddings)."""
        decay = [
            p
            for name, p in self.named_parameters()
            if p.ndim >= 2 and not name.startswith(("wte", "wpe"))
        ]
        decay_ids = {id(p) for p in decay}
        no_decay = [p for p in self.parameters() if id(p) not in decay_ids]
        groups = [
            {"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        return nl.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))

    @nl.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size :])
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                threshold = logits.topk(min(top_k, logits.shape[-1])).values[:, -1:]
                logits = logits.masked_fill(logits < threshold, float("-inf"))
            next_id = F.softmax(logits, dim=-1).multinomial(1)
            idx = nl.cat([idx, next_id], dim=1)
        return idx


def read_text(parser, path):
    """The text to learn: the file's, or the generated one when no file is given."""
    if path is None:
        print("no text file given: learning a generated text (give a file of your own for more)")
        return paragraphs(3000)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        parser.error(f"{path}: {e.strerror if isinstance(e, OSError) else e}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "text", nargs="?", help="a UTF-8 text file to learn from (default: a generated text)"
    )
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--block-size", type=int, default=64)
    parser.add_argument("--n-layer", type=int, default=4)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-embd", type=int, default=128)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--sample-every", type=int, default=500)
    parser.add_argument("--sample-length", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1337)
    args = parser.parse_args(argv)

    text = read_text(parser, args.text)
    chars = sorted(set(text))
    if len(text) <= args.block_size + 1:
        parser.error(
            f"{args.text}: the text has {len(text)} characters; it needs more than --block-size "
            f"({args.block_size}) + 1"
        )
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    nl.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = GPT(len(chars), args.block_size, args.n_layer, args.n_head, args.n_embd, args.dropout)
    optimizer = model.optimizer(args.lr, args.weight_decay)
    print(
        f"{len(text)} characters, vocabulary {len(chars)}, {sum(p.numel() for p in model.parameters())} parameters"
    )

    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        offsets = rng.integers(0, len(data) - args.block_size - 1, args.batch_size)
        x = nl.tensor(np.stack([data[o : o + args.block_size] for o in offsets]))
        y = nl.tensor(np.stack([data[o + 1 : o + 1 + args.block_size] for o in offsets]))
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % args.log_every == 0 or step == 1:
            print(
                f"step {step}: loss {loss.item():.4f} ({(time.perf_counter() - start) / step * 1000:.0f} ms/step)"
            )
        if step % args.sample_every == 0 or step == args.steps:
            model.eval()
            prompt = nl.tensor([[int(data[0])]])
            sample = model.generate(prompt, args.sample_length, top_k=10)[0].tolist()
            print("--- sample ---\n" + "".join(chars[i] for i in sample) + "\n--------------")
            model.train()


if __name__ == "__main__":
    main()
