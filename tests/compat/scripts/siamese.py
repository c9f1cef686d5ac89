"""pytorch/examples' siamese-network idiom: a Dataset subclass yielding image pairs, a shared
feature extractor, torch.cat of features, a sigmoid score with BCEWithLogitsLoss, StepLR, and
DataParallel's functional form."""

import argparse
import random

import numpy as np

import nnlite as torch
import nnlite.nn as nn
import nnlite.optim as optim
from nnlite.data import datasets
from nnlite.optim.lr_scheduler import StepLR
from nnlite.utils.data import DataLoader, Dataset


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 5, stride=2),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(4),
            nn.Flatten(),
        )
        self.fc = nn.Sequential(nn.Linear(8 * 16 * 2, 32), nn.ReLU(inplace=True), nn.Linear(32, 1))

    def forward_once(self, x):
        output = self.features(x)
        return output.view(output.size()[0], -1)

    def forward(self, input1, input2):
        output = torch.cat((self.forward_once(input1), self.forward_once(input2)), 1)
        return self.fc(output)


class PairDataset(Dataset):
    def __init__(self, root, train):
        super().__init__()
        mnist = datasets.MNIST(root, train=train)
        self.data = mnist.data.unsqueeze(1).clone().float() / 255
        targets = np.array(mnist.targets.clone(), dtype=None, copy=None)
        self.grouped = {i: np.where(targets == i)[0] for i in range(10) if (targets == i).any()}

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        first_class = random.choice(list(self.grouped))
        image_1 = self.data[random.choice(self.grouped[first_class])].clone()
        if index % 2 == 0:
            image_2 = self.data[random.choice(self.grouped[first_class])].clone()
            target = torch.tensor(1, dtype=torch.float)
        else:
            other = random.choice([c for c in self.grouped if c != first_class])
            image_2 = self.data[random.choice(self.grouped[other])].clone()
            target = torch.tensor(0, dtype=torch.float)
        return image_1, image_2, target


def train(model, device, loader, optimizer, epoch):
    model.train()
    criterion = nn.BCEWithLogitsLoss()
    total = 0.0
    for images_1, images_2, targets in loader:
        images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = nn.parallel.data_parallel(model, (images_1, images_2)).squeeze()
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(targets)
    print(f"Train Epoch: {epoch} Loss: {total / len(loader.dataset):.6f}")


def test(model, device, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for images_1, images_2, targets in loader:
            outputs = torch.sigmoid(model(images_1.to(device), images_2.to(device)).squeeze())
            pred = torch.where(outputs > 0.5, 1, 0)
            correct += pred.eq(targets.view_as(pred)).sum().item()
    print(f"Test accuracy: {correct}/{len(loader.dataset)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="../data")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    random.seed(0)
    torch.manual_seed(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = DataLoader(PairDataset(args.data, train=True), batch_size=32, shuffle=True)
    test_loader = DataLoader(PairDataset(args.data, train=False), batch_size=64)
    model = SiameseNetwork().to(device)
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, args.epochs + 1):
        train(model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()
    torch.save(model.state_dict(), "siamese_network.pth")
    restored = SiameseNetwork()
    missing, unexpected = restored.load_state_dict(
        torch.load("siamese_network.pth", weights_only=True)
    )
    print(f"Checkpoint keys: missing={list(missing)} unexpected={list(unexpected)}")


if __name__ == "__main__":
    main()
