"""The Hogwild pattern of pytorch/examples' mnist_hogwild, in its idioms: a model in shared memory,
two "spawn" processes training it at once, then a test in the parent on MNIST-format files."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import nnlite as nl

REPO = os.path.dirname(os.path.dirname(os.path.abspath(nl.__file__)))


def write_idx(path, array):
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape
    )
    with open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def make_mnist(root, n_train=256, n_test=128, seed=0):
    """Learnable MNIST-format files: a bright bar whose row encodes the label, over noise."""
    rng = np.random.default_rng(seed)
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = rng.integers(0, 40, (n, 28, 28)).astype(np.uint8)
        for i, label in enumerate(labels):
            images[i, 2 + 2 * label : 4 + 2 * label, 4:24] = 255
        write_idx(os.path.join(raw, f"{prefix}-images-idx3-ubyte"), images)
        write_idx(os.path.join(raw, f"{prefix}-labels-idx1-ubyte"), labels)


SCRIPT = """
import argparse
import os
import sys

sys.path.insert(0, {repo!r})
import nnlite as torch
import nnlite.multiprocessing as mp
import nnlite.nn as nn
import nnlite.nn.functional as F
import nnlite.optim as optim
from nnlite.data import DataLoader, datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        return F.log_softmax(self.fc2(x), dim=1)


def train(rank, args, model, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed + rank)
    train_loader = DataLoader(dataset, **dataloader_kwargs)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    model.train()
    for epoch in range(1, args.epochs + 1):
        for batch_idx, (data, target) in enumerate(train_loader):
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            print("{{}}\\tTrain Epoch: {{}} [{{}}/{{}}]\\tLoss: {{:.6f}}".format(
                os.getpid(), epoch, batch_idx * len(data), len(train_loader.dataset), loss.item()), flush=True)


def test(model, dataset, dataloader_kwargs):
    model.eval()
    test_loss = correct = 0
    with torch.no_grad():
        for data, target in DataLoader(dataset, **dataloader_kwargs):
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += (output.argmax(1) == target).sum().item()
    print("Test set: Average loss: {{:.4f}}, Accuracy: {{}}/{{}}".format(
        test_loss / len(dataset), correct, len(dataset)), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-processes", type=int, default=2)
    args = parser.parse_args()
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    dataset1 = datasets.MNIST("data", train=True, transform=transform)
    dataset2 = datasets.MNIST("data", train=False, transform=transform)
    kwargs = {{"batch_size": 64, "shuffle": True}}

    torch.manual_seed(args.seed)
    mp.set_start_method("spawn", force=True)
    model = Net()
    model.share_memory()
    print("shared", all(p.is_shared() for p in model.parameters()), flush=True)
    before = [p.detach().clone() for p in model.parameters()]
    test(model, dataset2, kwargs)
    processes = []
    for rank in range(args.num_processes):
        p = mp.Process(target=train, args=(rank, args, model, dataset1, kwargs))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    print("exit codes", [p.exitcode for p in processes], flush=True)
    moved = max(float((p - b).abs().max()) for p, b in zip(model.parameters(), before))
    print("parent sees the workers' updates", moved > 0, flush=True)
    test(model, dataset2, kwargs)
"""


def test_hogwild_two_spawned_processes_train_one_shared_model(tmp_path):
    make_mnist(tmp_path / "data")
    (tmp_path / "main.py").write_text(textwrap.dedent(SCRIPT.format(repo=REPO)))
    proc = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "shared True" in lines and "exit codes [0, 0]" in lines, proc.stdout
    assert "parent sees the workers' updates True" in lines, proc.stdout
    steps = [line for line in lines if "Train Epoch" in line]
    assert len({line.split("\t")[0] for line in steps}) == 2  # two training processes
    assert len(steps) == 2 * 2 * 4  # 2 processes x 2 epochs x 4 batches
    tests = [
        float(line.split("Average loss: ")[1].split(",")[0])
        for line in lines
        if line.startswith("Test set")
    ]
    assert len(tests) == 2 and tests[1] < 0.8 * tests[0], proc.stdout  # the shared model learned
