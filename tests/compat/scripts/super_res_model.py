"""The sub-pixel convolution network of super_res.py (its own module, as a pickled model names
its class by module)."""

import nnlite.nn as nn
import nnlite.nn.init as init


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, upscale_factor**2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight)

    def forward(self, x):
        return self.pixel_shuffle(self.conv2(self.relu(self.conv1(x))))
