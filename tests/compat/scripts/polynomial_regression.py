"""pytorch/examples' regression idiom: raw tensors, a Linear layer and manual updates through
param.data, with the legacy spellings (Variable, FloatTensor) older scripts use."""

from itertools import count

import nnlite as torch
import nnlite.nn.functional as F
from nnlite.autograd import Variable

POLY_DEGREE = 3
torch.manual_seed(0)
W_target = torch.randn(POLY_DEGREE, 1) * 2
b_target = torch.randn(1) * 2


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x**i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def get_batch(batch_size=32):
    random = torch.FloatTensor(batch_size).uniform_(-1, 1)
    x = make_features(random)
    return Variable(x), Variable(f(x))


fc = torch.nn.Linear(W_target.size(0), 1)
for batch_idx in count(1):
    batch_x, batch_y = get_batch()
    fc.zero_grad()
    output = F.mse_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)
    if batch_idx % 50 == 0:
        print(f"batch {batch_idx} loss {loss:.6f}")
    if loss < 1e-3 or batch_idx >= 400:
        break
print(f"Loss: {loss:.6f} after {batch_idx} batches")
print("==> Learned: " + " ".join(f"{w:+.2f}" for w in fc.weight.view(-1)))
print("==> Actual:  " + " ".join(f"{w:+.2f}" for w in W_target.view(-1)))
