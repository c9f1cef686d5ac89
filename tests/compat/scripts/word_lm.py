"""A word-level LSTM language model as PyTorch users write it: corpus to ids, batchify, truncated
backpropagation through time with repackaged hidden states, a manual SGD step after gradient
clipping, the whole model saved with torch.save(model, f) and loaded back with its classes
allowlisted, then a few sampled words."""

import argparse
import math
import os

from word_lm_model import RNNModel

import nnlite as torch
import nnlite.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--lr", type=float, default=20)
parser.add_argument("--clip", type=float, default=0.25)
parser.add_argument("--bptt", type=int, default=8)
parser.add_argument("--save", default="model.pt")
args = parser.parse_args()
torch.manual_seed(1111)
device = torch.device("cpu")


def tokenize(path, word2idx):
    ids = []
    with open(path, encoding="utf8") as f:
        for line in f:
            for word in line.split() + ["<eos>"]:
                ids.append(word2idx.setdefault(word, len(word2idx)))
    return torch.tensor(ids, dtype=torch.int64)


word2idx = {}
train_ids, valid_ids = (
    tokenize(os.path.join(args.data, n), word2idx) for n in ("train.txt", "valid.txt")
)
ntokens = len(word2idx)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous().to(device)


train_data, val_data = batchify(train_ids, 8), batchify(valid_ids, 4)
model = RNNModel(ntokens, 16, 16, 2, tie_weights=True).to(device)
criterion = nn.NLLLoss()


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i):
    seq_len = min(args.bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].view(-1)


def evaluate(net, data_source):
    net.eval()
    total = 0.0
    hidden = net.init_hidden(data_source.size(1))
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = net(data, hidden)
            hidden = repackage_hidden(hidden)
            total += len(data) * criterion(output, targets).item()
    return total / (len(data_source) - 1)


best_val_loss = None
for epoch in range(1, args.epochs + 1):
    model.train()
    hidden = model.init_hidden(8)
    for i in range(0, train_data.size(0) - 1, args.bptt):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-args.lr)
    val_loss = evaluate(model, val_data)
    print(
        f"| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}"
    )
    if not best_val_loss or val_loss < best_val_loss:
        with open(args.save, "wb") as f:
            torch.save(model, f)
        best_val_loss = val_loss

with open(args.save, "rb") as f:
    safe_globals = [
        RNNModel,
        torch.nn.modules.dropout.Dropout,
        torch.nn.modules.linear.Linear,
        torch.nn.modules.rnn.LSTM,
        torch.nn.modules.sparse.Embedding,
    ]
    with torch.serialization.safe_globals(safe_globals):
        model = torch.load(f)
    model.rnn.flatten_parameters()

print(f"| End of training | valid loss {evaluate(model, val_data):5.2f}")
print("tied after load:", model.decoder.weight is model.encoder.weight)

idx2word = {i: w for w, i in word2idx.items()}
hidden = model.init_hidden(1)
input = torch.randint(ntokens, (1, 1), dtype=torch.long).to(device)
words = []
with torch.no_grad():
    for _ in range(10):
        output, hidden = model(input, hidden)
        word_weights = output.squeeze().div(1.0).exp().cpu()
        word_idx = torch.multinomial(word_weights, 1)[0]
        input.fill_(word_idx)
        words.append(idx2word[word_idx.item()])
print("generated:", " ".join(words))
