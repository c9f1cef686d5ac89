"""A DCGAN on Fashion-MNIST: a transposed-convolution generator against a convolutional discriminator.

Saves a grid of generated images as a PNG after every epoch (Pillow needed: pip install 'nnlite[vision]').

    python examples/dcgan.py --data /usr/share/datasets/fashion-mnist --epochs 5
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import nnlite as nl  # noqa: E402
from nnlite import nn  # noqa: E402
from nnlite.data import DataLoader, datasets, transforms  # noqa: E402
from nnlite.utils import save_image  # noqa: E402


class Generator(nn.Module):
    def __init__(self, nz=100, ngf=64):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 7, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),  # 7x7
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),  # 14
            nn.ConvTranspose2d(ngf * 2, 1, 4, 2, 1, bias=False),
            nn.Tanh(),
        )  # 28

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, ndf=64):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),  # 14
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 7, 1, 0, bias=False),
            nn.Sigmoid(),
        )  # 1

    def forward(self, x):
        return self.main(x).view(-1)


def weights_init(m):
    """DCGAN's initialisation: N(0, 0.02) convolutions, N(1, 0.02) batch-norm scales."""
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="./data", help="folder with the Fashion-MNIST IDX files")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--nz", type=int, default=100)
    parser.add_argument("--ngf", type=int, default=64)
    parser.add_argument("--ndf", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument(
        "--max-steps", type=int, default=0, help="stop each epoch after this many steps (0: all)"
    )
    parser.add_argument("--out", default="dcgan_samples", help="folder for the sample grids")
    parser.add_argument("--seed", type=int, default=999)
    args = parser.parse_args(argv)

    try:  # checked now, not after an epoch of training: save_image writes the grids with Pillow
        import PIL  # noqa: F401
    except ImportError:
        sys.exit(
            f"{parser.prog}: error: the sample grids need Pillow: pip install 'nnlite[vision]' "
            "(or pip install Pillow)"
        )
    nl.manual_seed(args.seed)
    try:
        data = datasets.FashionMNIST(
            args.data,
            train=True,
            transform=transforms.Compose(
                [transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))]
            ),
        )
    except (RuntimeError, OSError) as e:
        sys.exit(f"{parser.prog}: error: {' '.join(str(e).split())}")
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, drop_last=True)
    generator, discriminator = Generator(args.nz, args.ngf), Discriminator(args.ndf)
    generator.apply(weights_init)
    discriminator.apply(weights_init)
    criterion = nn.BCELoss()
    opt_d = nl.optim.Adam(discriminator.parameters(), lr=args.lr, betas=(0.5, 0.999))
    opt_g = nl.optim.Adam(generator.parameters(), lr=args.lr, betas=(0.5, 0.999))
    fixed_noise = nl.randn(64, args.nz, 1, 1)
    os.makedirs(args.out, exist_ok=True)

    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        for step, (real, _) in enumerate(loader, 1):
            batch = real.shape[0]
            ones, zeros = nl.ones(batch), nl.zeros(batch)
            # discriminator: real images up, generated ones down
            opt_d.zero_grad()
            fake = generator(nl.randn(batch, args.nz, 1, 1))
            loss_d = criterion(discriminator(real), ones) + criterion(
                discriminator(fake.detach()), zeros
            )
            loss_d.backward()
            opt_d.step()
            # generator: make the discriminator call its images real
            opt_g.zero_grad()
            loss_g = criterion(discriminator(fake), ones)
            loss_g.backward()
            opt_g.step()
            if step % 100 == 1:
                print(
                    f"[{epoch}/{args.epochs}][{step}/{len(loader)}] loss_D {loss_d.item():.4f} "
                    f"loss_G {loss_g.item():.4f} ({(time.perf_counter() - start) / step * 1000:.0f} ms/step)"
                )
            if args.max_steps and step >= args.max_steps:
                break
        with nl.no_grad():
            generator.eval()
            samples = generator(fixed_noise)
            generator.train()
        path = os.path.join(args.out, f"samples_epoch_{epoch:03d}.png")
        save_image(samples, path, nrow=8, normalize=True)
        print(f"epoch {epoch}: saved {path}")


if __name__ == "__main__":
    main()
