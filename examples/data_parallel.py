"""DataParallel on CPU worker processes: the PyTorch tutorial's ``dp.py`` with nnlite.

Each replica prints the size of the chunk it received; the wrapper gathers the outputs into one
batch. With ``--workers 4`` a batch of 30 runs as 8, 8, 8 and 6 rows, and the last batch of 10 as
3, 3, 3 and 1, as on the tutorial's four GPUs.

    python examples/data_parallel.py              # 2 workers
    python examples/data_parallel.py --workers 4  # the tutorial's output
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import nnlite as nl  # noqa: E402
from nnlite import nn  # noqa: E402
from nnlite.data import DataLoader, Dataset  # noqa: E402

# Parameters and DataLoaders
input_size = 5
output_size = 2

batch_size = 30
data_size = 100


class RandomDataset(Dataset):
    def __init__(self, size, length):
        self.len = length
        self.data = nl.randn(length, size)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return self.len


class Model(nn.Module):
    # Our model

    def __init__(self, input_size, output_size):
        super().__init__()
        self.fc = nn.Linear(input_size, output_size)

    def forward(self, input):
        output = self.fc(input)
        print("\tIn Model: input size", input.size(), "output size", output.size())

        return output


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args()

    rand_loader = DataLoader(
        dataset=RandomDataset(input_size, data_size), batch_size=batch_size, shuffle=True
    )

    model = Model(input_size, output_size)
    if args.workers > 1:
        print("Let's use", args.workers, "worker processes!")
    # dim = 0 [30, xxx] -> [15, ...], [15, ...] on 2 workers
    model = nn.DataParallel(model, workers=args.workers)

    with model:  # the workers stop at the end of the block
        for data in rand_loader:
            input = data
            output = model(input)
            print("Outside: input size", input.size(), "output_size", output.size())


if __name__ == "__main__":
    main()
