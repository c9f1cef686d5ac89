"""pytorch/examples' VAE idiom: Adam, a reparameterised sample, a summed loss and save_image of
reconstructions and samples."""

import argparse
import os

import nnlite as torch
import nnlite.utils.data
from nnlite import nn, optim
from nnlite.data import datasets, transforms
from nnlite.nn import functional as F
from nnlite.utils import save_image

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="../data")
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

torch.manual_seed(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_loader = torch.utils.data.DataLoader(
    datasets.MNIST(args.data, train=True, transform=transforms.ToTensor()),
    batch_size=64,
    shuffle=True,
)
test_loader = torch.utils.data.DataLoader(
    datasets.MNIST(args.data, train=False, transform=transforms.ToTensor()),
    batch_size=64,
    shuffle=False,
)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 64)
        self.fc21 = nn.Linear(64, 8)
        self.fc22 = nn.Linear(64, 8)
        self.fc3 = nn.Linear(8, 64)
        self.fc4 = nn.Linear(64, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def decode_logits(self, z):
        return self.fc4(F.relu(self.fc3(z)))

    def decode(self, z):
        return torch.sigmoid(self.decode_logits(z))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        return self.decode_logits(self.reparameterize(mu, logvar)), mu, logvar


model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_logits, x, mu, logvar):
    bce = F.binary_cross_entropy_with_logits(recon_logits, x.view(-1, 784), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def train(epoch):
    model.train()
    train_loss = 0
    for data, _ in train_loader:
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}")


def test(epoch):
    model.eval()
    with torch.no_grad():
        data, _ = next(iter(test_loader))
        recon, mu, logvar = model(data)
        n = min(data.size(0), 8)
        comparison = torch.cat([data[:n], torch.sigmoid(recon).view(-1, 1, 28, 28)[:n]])
        save_image(comparison.cpu(), f"results/reconstruction_{epoch}.png", nrow=n)


os.makedirs("results", exist_ok=True)
for epoch in range(1, args.epochs + 1):
    train(epoch)
    test(epoch)
    with torch.no_grad():
        sample = model.decode(torch.randn(16, 8).to(device)).cpu()
        save_image(sample.view(16, 1, 28, 28), f"results/sample_{epoch}.png")
