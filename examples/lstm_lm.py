"""A word-level LSTM language model with perplexity (the shape of pytorch/examples' word_language_model).

The corpus is a folder with ``train.txt``, ``valid.txt`` and ``test.txt`` (one sentence per line, as
in Wikitext-2 or Penn Treebank); without one, a generated English-like corpus
(``generated_text.py``). Truncated back-propagation through time over ``--bptt`` steps.

    python examples/lstm_lm.py --epochs 6                   # the generated corpus
    python examples/lstm_lm.py data/wikitext-2 --epochs 6   # a corpus folder of your own
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
from generated_text import sentences  # noqa: E402

import nnlite as nl  # noqa: E402
from nnlite import nn  # noqa: E402

# Sentences of the generated corpus (train, valid, test) and the seeds that draw them.
GENERATED = {"train": (10000, 1), "valid": (1000, 2), "test": (1000, 3)}


class Corpus:
    """Words to ids (``<eos>`` ends each line), built from the training text's vocabulary and extended
    by the others. ``folder`` holds the three files; None generates the texts."""

    def __init__(self, folder=None):
        self.word_to_id = {}
        self.train, self.valid, self.test = (
            self._tokenize(self._lines(folder, name)) for name in ("train", "valid", "test")
        )

    @staticmethod
    def _lines(folder, name):
        if folder is None:
            return sentences(*GENERATED[name])
        path = os.path.join(folder, f"{name}.txt")
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"corpus file '{path}' does not exist (the folder needs train.txt, valid.txt, test.txt)"
            )
        with open(path, encoding="utf-8") as f:
            return f.readlines()

    def _tokenize(self, lines):
        ids = [
            self.word_to_id.setdefault(word, len(self.word_to_id))
            for line in lines
            for word in line.split() + ["<eos>"]
        ]
        return np.array(ids, dtype=np.int64)


def batchify(ids, batch_size):
    """(steps, batch) columns of consecutive text, dropping the remainder."""
    steps = len(ids) // batch_size
    return ids[: steps * batch_size].reshape(batch_size, steps).T.copy()


class RNNModel(nn.Module):
    def __init__(self, vocab, emsize=200, nhid=200, nlayers=2, dropout=0.2, tie_weights=False):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(vocab, emsize)
        self.rnn = nn.LSTM(emsize, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, vocab)
        if tie_weights:
            if nhid != emsize:
                raise ValueError("when using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, batch):
        return (nl.zeros(self.nlayers, batch, self.nhid), nl.zeros(self.nlayers, batch, self.nhid))


def evaluate(model, data, bptt, criterion, batch):
    model.eval()
    total, hidden = 0.0, model.init_hidden(batch)
    with nl.no_grad():
        for i in range(0, data.shape[0] - 1, bptt):
            n = min(bptt, data.shape[0] - 1 - i)
            x, y = nl.tensor(data[i : i + n]), nl.tensor(data[i + 1 : i + 1 + n])
            output, hidden = model(x, hidden)
            total += n * criterion(output.view(-1, output.shape[-1]), y.reshape(-1)).item()
    return total / max(data.shape[0] - 1, 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data",
        nargs="?",
        help="folder with train.txt, valid.txt, test.txt (default: a generated corpus)",
    )
    parser.add_argument("--emsize", type=int, default=200)
    parser.add_argument("--nhid", type=int, default=200)
    parser.add_argument("--nlayers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=20.0)
    parser.add_argument("--clip", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=20)
    parser.add_argument("--bptt", type=int, default=35)
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--tied", action="store_true")
    parser.add_argument(
        "--max-steps", type=int, default=0, help="stop each epoch after this many steps (0: all)"
    )
    parser.add_argument("--log-interval", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1111)
    args = parser.parse_args(argv)

    nl.manual_seed(args.seed)
    if args.data is None:
        print(
            "no corpus folder given: learning a generated corpus (give a folder of your own for more)"
        )
    try:
        corpus = Corpus(args.data)
    except (OSError, UnicodeDecodeError) as e:
        parser.error(str(e))
    train, valid = batchify(corpus.train, args.batch_size), batchify(corpus.valid, 10)
    model = RNNModel(
        len(corpus.word_to_id), args.emsize, args.nhid, args.nlayers, args.dropout, args.tied
    )
    criterion = nn.CrossEntropyLoss()
    lr, best = args.lr, None
    for epoch in range(1, args.epochs + 1):
        model.train()
        hidden, start, total = model.init_hidden(args.batch_size), time.perf_counter(), 0.0
        for step, i in enumerate(range(0, train.shape[0] - 1, args.bptt), 1):
            n = min(args.bptt, train.shape[0] - 1 - i)
            x, y = nl.tensor(train[i : i + n]), nl.tensor(train[i + 1 : i + 1 + n])
            hidden = tuple(h.detach() for h in hidden)  # truncate the graph at the batch boundary
            model.zero_grad()
            output, hidden = model(x, hidden)
            loss = criterion(output.view(-1, output.shape[-1]), y.reshape(-1))
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with nl.no_grad():
                for p in model.parameters():
                    p.add_(p.grad, alpha=-lr)
            total += loss.item()
            if step % args.log_interval == 0 or step == 1:
                elapsed = (time.perf_counter() - start) * 1000 / step
                print(
                    f"| epoch {epoch:3d} | step {step:5d} | lr {lr:5.2f} | ms/batch {elapsed:6.1f} | "
                    f"loss {loss.item():5.2f} | ppl {math.exp(loss.item()):8.2f}"
                )
            if args.max_steps and step >= args.max_steps:
                break
        val_loss = evaluate(model, valid, args.bptt, criterion, 10)
        print(
            f"| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}"
        )
        if best is None or val_loss < best:
            best = val_loss
        else:
            lr /= 4.0  # anneal when validation stops improving


if __name__ == "__main__":
    main()
