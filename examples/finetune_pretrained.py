"""Finetune a pretrained ResNet-18: load torchvision-format weights, freeze the backbone, train a new head.

The weights are the file torchvision publishes, read without PyTorch: download
https://download.pytorch.org/models/resnet18-f37072fd.pth (44.7 MB) and put it in the current folder
or give its path with ``--weights``; torchvision's own copy, ``~/.cache/torch/hub/checkpoints/``, is
found too. Any ``.pth``/``.safetensors``/``.npz`` state dict of that layout works as well. Images
(Fashion-MNIST's, the gray channel repeated, or CIFAR-10's) are normalised with the ImageNet
statistics the weights were trained with.

    python examples/finetune_pretrained.py --data /usr/share/datasets/fashion-mnist --max-steps 50
    python examples/finetune_pretrained.py --weights resnet18.safetensors --dataset cifar10 --data ./data
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import nnlite as nl  # noqa: E402
from nnlite import nn  # noqa: E402
from nnlite.data import DataLoader, datasets, transforms  # noqa: E402

IMAGENET_MEAN, IMAGENET_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
WEIGHTS_URL = "https://download.pytorch.org/models/resnet18-f37072fd.pth"
WEIGHTS_FILE = os.path.basename(WEIGHTS_URL)


def find_weights(path):
    """``path`` if it exists; for torchvision's file name, also torchvision's download cache."""
    if os.path.exists(path) or os.path.basename(path) != WEIGHTS_FILE:
        return path
    torch_home = os.environ.get(
        "TORCH_HOME",
        os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch"),
    )
    cached = os.path.join(torch_home, "hub", "checkpoints", WEIGHTS_FILE)
    return cached if os.path.exists(cached) else path


def build_data(name, root, train):
    steps = [transforms.ToTensor()]
    if name == "fashion_mnist":  # grayscale: the backbone expects three channels
        steps.append(
            transforms.Lambda(
                lambda img: img.expand(3, -1, -1) if img.ndim == 3 else img.expand(-1, 3, -1, -1)
            )
        )
    steps.append(transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD))
    dataset_class = {"cifar10": datasets.CIFAR10, "fashion_mnist": datasets.FashionMNIST}[name]
    return dataset_class(root, train=train, download=True, transform=transforms.Compose(steps))


def build_model(weights, num_classes):
    model = nl.models.resnet18(weights=weights)  # the published 1000-class network
    model.requires_grad_(False)  # freeze the backbone ...
    model.fc = nn.Linear(model.fc.in_features, num_classes)  # ... and give it a new, trainable head
    return model


def evaluate(model, loader, max_batches):
    model.eval()
    correct = total = 0
    with nl.no_grad():
        for i, (images, labels) in enumerate(loader):
            if max_batches and i >= max_batches:
                break
            correct += (model(images).argmax(1) == labels).sum().item()
            total += labels.shape[0]
    return correct / max(total, 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--weights",
        default=WEIGHTS_FILE,
        help=f"torchvision-layout ResNet-18 weights (.pth, .safetensors, .npz); default: {WEIGHTS_FILE}, from {WEIGHTS_URL}",
    )
    parser.add_argument("--dataset", choices=["fashion_mnist", "cifar10"], default="fashion_mnist")
    parser.add_argument(
        "--data",
        default="./data",
        help="dataset folder (Fashion-MNIST IDX files or CIFAR-10 python batches; downloaded there if missing)",
    )
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument(
        "--max-steps", type=int, default=0, help="stop each epoch after this many steps (0: all)"
    )
    parser.add_argument(
        "--out", default="finetuned_resnet18.pth", help="where to save the finetuned state dict"
    )
    args = parser.parse_args(argv)

    nl.manual_seed(0)
    weights = find_weights(args.weights)
    if not os.path.exists(weights):
        sys.exit(
            f"{parser.prog}: error: {weights}: no such file; download torchvision's ResNet-18 weights from {WEIGHTS_URL} "
            "(on any machine with internet) into the current folder, or give its path with --weights"
        )
    try:  # before the data and the training: a wrong or unreadable file stops the run now
        model = build_model(weights, num_classes=10)
    except (OSError, ValueError, RuntimeError, ImportError) as e:
        sys.exit(f"{parser.prog}: error: {' '.join(str(e).split())}")
    try:
        train_set = build_data(args.dataset, args.data, train=True)
        test_set = build_data(args.dataset, args.data, train=False)
    except (OSError, RuntimeError) as e:
        sys.exit(f"{parser.prog}: error: {' '.join(str(e).split())}")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=args.batch_size)
    trainable = [p for p in model.parameters() if p.requires_grad]
    print(
        f"trainable parameters: {sum(p.numel() for p in trainable)} of {sum(p.numel() for p in model.parameters())}"
    )
    optimizer = nl.optim.SGD(trainable, lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(1, args.epochs + 1):
        model.eval()  # the frozen backbone keeps its batch-norm statistics
        model.fc.train()
        start, seen = time.perf_counter(), 0
        for step, (images, labels) in enumerate(train_loader, 1):
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            seen += labels.shape[0]
            if step % 10 == 1:
                print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")
            if args.max_steps and step >= args.max_steps:
                break
        rate = seen / (time.perf_counter() - start)
        accuracy = evaluate(model, test_loader, args.max_steps)
        print(f"epoch {epoch}: test accuracy {100 * accuracy:.2f}% ({rate:.0f} images/s)")

    nl.save(model.state_dict(), args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
