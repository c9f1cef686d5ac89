"""One training step of three model families, nnlite and PyTorch side by side, on one thread.

* 2-layer LSTM, GRU and RNN_TANH language models (vocabulary 10,000, embedding and hidden 200,
  sequence 35, batch 20: pytorch/examples' word_language_model defaults), SGD;
* a 4-layer GPT (n_embd 128, 4 heads, block 64, batch 16, vocabulary 65), AdamW;
* a DCGAN generator + discriminator step at 28x28, batch 64, Adam.

The models are written once against the shared API and built with each framework's ``nn``. The two
frameworks' steps alternate, so that both see the same machine load; prints each one's median ms/step
and the median of the per-step ratios nnlite/PyTorch (below 1: nnlite is faster).

Usage:
    python benchmarks/sequence_models.py [--seconds 2.0] [--only lstm gru rnn gpt dcgan] [--clock cpu]
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)

import nnlite as nl  # noqa: E402


# ------------------------------------------------------------------------------- models (either framework)
def recurrent_lm(layer):
    """pytorch/examples' word language model with ``layer`` ("LSTM", "GRU", "RNN_TANH")."""

    def build(lib):
        nn = lib.nn

        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Embedding(10000, 200)
                if layer == "RNN_TANH":
                    self.rnn = nn.RNN(200, 200, 2, nonlinearity="tanh", dropout=0.2)
                else:
                    self.rnn = getattr(nn, layer)(200, 200, 2, dropout=0.2)
                self.decoder = nn.Linear(200, 10000)
                self.drop = nn.Dropout(0.2)

            def forward(self, x):
                out, _ = self.rnn(self.drop(self.encoder(x)))
                return self.decoder(self.drop(out))

        model = LM()
        opt = lib.optim.SGD(model.parameters(), lr=20.0)
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.integers(0, 10000, (35, 20)))
        y = lib.tensor(rng.integers(0, 10000, (35 * 20,)))

        def step():
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x).reshape(-1, 10000), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            opt.step()

        return step

    return build


def gpt(lib):
    nn, F = lib.nn, lib.nn.functional
    n_embd, n_head, block, vocab = 128, 4, 64, 65

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
            self.mlp = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd)
            )

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
            heads = [z.view(b, t, n_head, c // n_head).transpose(1, 2) for z in (q, k, v)]
            y = (
                F.scaled_dot_product_attention(*heads, is_causal=True)
                .transpose(1, 2)
                .contiguous()
                .view(b, t, c)
            )
            x = x + self.c_proj(y)
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(4)])
            self.ln_f, self.head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            return self.head(self.ln_f(self.blocks(x)))

    model = GPT()
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.integers(0, vocab, (16, block)))
    y = lib.tensor(rng.integers(0, vocab, (16 * block,)))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).view(-1, vocab), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    return step


def dcgan(lib):
    nn = lib.nn
    g = nn.Sequential(
        nn.ConvTranspose2d(100, 256, 7, 1, 0, bias=False),
        nn.BatchNorm2d(256),
        nn.ReLU(True),
        nn.ConvTranspose2d(256, 128, 4, 2, 1, bias=False),
        nn.BatchNorm2d(128),
        nn.ReLU(True),
        nn.ConvTranspose2d(128, 1, 4, 2, 1, bias=False),
        nn.Tanh(),
    )
    d = nn.Sequential(
        nn.Conv2d(1, 64, 4, 2, 1, bias=False),
        nn.LeakyReLU(0.2, True),
        nn.Conv2d(64, 128, 4, 2, 1, bias=False),
        nn.BatchNorm2d(128),
        nn.LeakyReLU(0.2, True),
        nn.Conv2d(128, 1, 7, 1, 0, bias=False),
        nn.Sigmoid(),
        nn.Flatten(0),
    )
    opt_g = lib.optim.Adam(g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = lib.optim.Adam(d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = nn.BCELoss()
    rng = np.random.default_rng(0)
    real = lib.tensor(rng.uniform(-1, 1, (64, 1, 28, 28)).astype(np.float32))
    noise = lib.tensor(rng.standard_normal((64, 100, 1, 1)).astype(np.float32))
    ones, zeros = lib.ones(64), lib.zeros(64)

    def step():
        opt_d.zero_grad()
        fake = g(noise)
        loss_d = criterion(d(real), ones) + criterion(d(fake.detach()), zeros)
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        criterion(d(fake), ones).backward()
        opt_g.step()

    return step


MODELS = {
    "lstm": ("LSTM language model, seq 35 x batch 20", recurrent_lm("LSTM")),
    "gru": ("GRU language model, seq 35 x batch 20", recurrent_lm("GRU")),
    "rnn": ("RNN_TANH language model, seq 35 x batch 20", recurrent_lm("RNN_TANH")),
    "gpt": ("GPT 4x128, block 64 x batch 16", gpt),
    "dcgan": ("DCGAN G+D, 28x28 x batch 64", dcgan),
}


def time_paired(steps, seconds, clock=time.perf_counter):
    """Time the steps in turn (A B A B ...), so that both see the same machine load: returns each
    one's median ms/step and the median of the per-round ratios to the last step."""
    for step in steps:
        step()  # warm-up (numba compilation, allocations)
    rounds = []
    deadline = time.perf_counter() + seconds * len(steps)
    while time.perf_counter() < deadline or len(rounds) < 3:
        times = []
        for step in steps:
            start = clock()
            step()
            times.append(clock() - start)
        rounds.append(times)
    medians = [statistics.median(r[k] for r in rounds) * 1000 for k in range(len(steps))]
    ratio = statistics.median(r[0] / r[-1] for r in rounds) if len(steps) > 1 else None
    return medians, ratio


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="timed seconds per model and framework"
    )
    parser.add_argument("--only", nargs="*", choices=list(MODELS), default=list(MODELS))
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall time, or this process's CPU time (steadier on a shared machine: one thread)",
    )
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    machine_facts.setup(args)
    nl.set_num_threads(1)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print(f"{'model':42s} {'nnlite ms':>10s} {'PyTorch ms':>11s} {'nnlite/PyTorch':>15s}")
    for key in args.only:
        label, build = MODELS[key]
        nl.manual_seed(0)
        steps = [build(nl)]
        if torch is not None:
            torch.manual_seed(0)
            steps.append(build(torch))
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        medians, ratio = time_paired(steps, args.seconds, clock)
        theirs = f"{medians[1]:11.1f}" if torch is not None else f"{'-':>11s}"
        shown = f"{ratio:15.2f}" if ratio is not None else f"{'-':>15s}"
        print(f"{label:42s} {medians[0]:10.1f} {theirs} {shown}")


if __name__ == "__main__":
    main()
