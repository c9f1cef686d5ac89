"""Super-resolution as PyTorch users write it: a folder dataset of PIL images (the Y channel of
YCbCr) with CenterCrop/Resize/ToTensor on PIL images, a sub-pixel network trained with Adam,
PSNR on a test folder, the whole model saved with torch.save(model, path), loaded back with its
classes allowlisted, and one image super-resolved and saved."""

import argparse
from math import log10
from os import listdir
from os.path import join

import numpy as np
from PIL import Image
from super_res_model import Net

import nnlite as torch
import nnlite.nn as nn
import nnlite.optim as optim
import nnlite.utils.data as data
from nnlite.data.transforms import CenterCrop, Compose, Resize, ToTensor


def load_img(filepath):
    y, _, _ = Image.open(filepath).convert("YCbCr").split()
    return y


class DatasetFromFolder(data.Dataset):
    def __init__(self, image_dir, input_transform=None, target_transform=None):
        super().__init__()
        self.image_filenames = [join(image_dir, x) for x in sorted(listdir(image_dir))]
        self.input_transform = input_transform
        self.target_transform = target_transform

    def __getitem__(self, index):
        input = load_img(self.image_filenames[index])
        target = input.copy()
        if self.input_transform:
            input = self.input_transform(input)
        if self.target_transform:
            target = self.target_transform(target)
        return input, target

    def __len__(self):
        return len(self.image_filenames)


parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--nEpochs", type=int, default=2)
opt = parser.parse_args()
torch.manual_seed(123)
upscale, crop = 2, 32


def dataset(split):
    return DatasetFromFolder(
        join(opt.data, split),
        input_transform=Compose([CenterCrop(crop), Resize(crop // upscale), ToTensor()]),
        target_transform=Compose([CenterCrop(crop), ToTensor()]),
    )


training_data_loader = data.DataLoader(dataset=dataset("train"), batch_size=2, shuffle=True)
testing_data_loader = data.DataLoader(dataset=dataset("test"), batch_size=2)
model = Net(upscale_factor=upscale)
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
for epoch in range(1, opt.nEpochs + 1):
    epoch_loss = 0
    for batch in training_data_loader:
        input, target = batch[0], batch[1]
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
    print(f"===> Epoch {epoch} Complete: Avg. Loss: {epoch_loss / len(training_data_loader):.4f}")
    avg_psnr = 0
    with torch.no_grad():
        for input, target in testing_data_loader:
            avg_psnr += 10 * log10(1 / criterion(model(input), target).item())
    print(f"===> Avg. PSNR: {avg_psnr / len(testing_data_loader):.4f} dB")
    torch.save(model, f"model_epoch_{epoch}.pth")

with open(f"model_epoch_{opt.nEpochs}.pth", "rb") as f:
    safe_globals = [
        Net,
        torch.nn.modules.activation.ReLU,
        torch.nn.modules.conv.Conv2d,
        torch.nn.modules.pixelshuffle.PixelShuffle,
    ]
    with torch.serialization.safe_globals(safe_globals):
        model = torch.load(f)

y, cb, cr = (
    Image.open(join(opt.data, "test", sorted(listdir(join(opt.data, "test")))[0]))
    .convert("YCbCr")
    .split()
)
input = ToTensor()(y).view(1, -1, y.size[1], y.size[0])
out = model(input).cpu()
out_img_y = out[0].detach().numpy() * 255.0
out_img_y = Image.fromarray(np.uint8(out_img_y.clip(0, 255)[0]), mode="L")
out_img = Image.merge(
    "YCbCr",
    [out_img_y, cb.resize(out_img_y.size, Image.BICUBIC), cr.resize(out_img_y.size, Image.BICUBIC)],
).convert("RGB")
out_img.save("out.png")
print("output size:", out_img.size)
