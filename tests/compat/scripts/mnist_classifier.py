"""A PyTorch MNIST training script (pytorch/examples style) after `import torch` became
`import nnlite as torch`: device line, loaders from torch.utils.data, train/test functions,
StepLR, gradient clipping, and a .pth checkpoint reloaded with weights_only=True."""

import argparse

import nnlite as torch
import nnlite.nn as nn
import nnlite.nn.functional as F
import nnlite.optim as optim
from nnlite.data import datasets, transforms
from nnlite.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 12 * 12, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.dropout1(x), 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device, non_blocking=True), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}]\tLoss: {loss.item():.6f}"
            )


def test(model, device, test_loader):
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print(
        f"Test set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(test_loader.dataset)}"
    )
    return test_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="../data")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--log-interval", type=int, default=2)
    args = parser.parse_args()

    use_accel = torch.accelerator.is_available()
    torch.manual_seed(1)
    torch.backends.cudnn.benchmark = True
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    kwargs = {"batch_size": 32, "shuffle": True}
    if torch.cuda.is_available():
        kwargs.update({"num_workers": 1, "pin_memory": True})

    transform = transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]
    )
    train_set = datasets.MNIST(args.data, train=True, download=False, transform=transform)
    test_set = datasets.MNIST(args.data, train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(train_set, **kwargs)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=64)

    model = Net().to(device)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()

    torch.save(model.state_dict(), "model.pth")
    restored = Net().to(device)
    restored.load_state_dict(torch.load("model.pth", weights_only=True))
    restored.eval()
    model.eval()
    with torch.inference_mode():
        images, _ = next(iter(test_loader))
        same = torch.equal(restored(images), model(images))
    print(f"Checkpoint round trip: {same}")


if __name__ == "__main__":
    main()
