"""The convolutional nets of PyTorch's 60-minute blitz, and a plain MLP."""

from collections.abc import Sequence

from .. import nn
from ..autograd.tensor import Tensor
from ..nn import functional as F

__all__ = ["Net", "LeNet", "MLP"]


class Net(nn.Module):
    """The neural-networks tutorial's net: 1x32x32 input, two 3x3 convolutions, three linear layers.

    Examples:
        >>> print(Net())
        Net(
          (conv1): Conv2d(1, 6, kernel_size=(3, 3), stride=(1, 1))
          (conv2): Conv2d(6, 16, kernel_size=(3, 3), stride=(1, 1))
          (fc1): Linear(in_features=576, out_features=120, bias=True)
          (fc2): Linear(in_features=120, out_features=84, bias=True)
          (fc3): Linear(in_features=84, out_features=10, bias=True)
        )
    """

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 6 * 6, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x: Tensor) -> Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        result: Tensor = self.fc3(x)
        return result

    @staticmethod
    def num_flat_features(x: Tensor) -> int:
        """The number of features per sample: the product of the sizes after the first.

        Args:
            x (Tensor): a batch.

        Returns:
            int: the features per sample.

        Examples:
            >>> Net.num_flat_features(nl.zeros(2, 3, 4, 5))
            60
        """
        n = 1
        for s in x.size()[1:]:
            n *= s
        return n


def _conv_pool_size(size: int) -> int:
    """Spatial size after conv 5x5 (valid) then 2x2 max pooling."""
    return (size - 4) // 2


class LeNet(nn.Module):
    """The CIFAR-10 tutorial's LeNet: conv 6@5x5, pool, conv 16@5x5, pool, 120-84-classes.

    ``in_channels`` and ``input_size`` adapt it to other images (1x28x28 gives fc1 256-120).

    Args:
        in_channels (int): the image channels. Default: 3.
        num_classes (int): the outputs. Default: 10.
        input_size (int): the image side. Default: 32.

    Examples:
        >>> LeNet()(nl.randn(4, 3, 32, 32)).shape
        nnlite.Size([4, 10])
    """

    def __init__(self, in_channels: int = 3, num_classes: int = 10, input_size: int = 32) -> None:
        super().__init__()
        side = _conv_pool_size(_conv_pool_size(input_size))
        if side < 1:
            raise ValueError(f"LeNet: input_size={input_size} is too small (at least 16 is needed)")
        self.conv1 = nn.Conv2d(in_channels, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * side * side, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = F.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        result: Tensor = self.fc3(x)
        return result


class MLP(nn.Module):
    """Flatten, then linear layers with ReLU between them.

    ``hidden`` is an int or a sequence of ints (one hidden layer each).

    Args:
        in_features (int): the flattened input size.
        hidden (int or sequence of ints): the hidden layers' widths. Default: (128,).
        num_classes (int): the outputs. Default: 10.

    Examples:
        >>> MLP(784, [256, 128], 10)(nl.randn(2, 1, 28, 28)).shape
        nnlite.Size([2, 10])
    """

    def __init__(
        self, in_features: int, hidden: int | Sequence[int] = (128,), num_classes: int = 10
    ) -> None:
        super().__init__()
        if isinstance(hidden, int):
            hidden = (hidden,)
        sizes = [in_features] + list(hidden)
        layers: list[nn.Module] = [nn.Flatten()]
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        layers.append(nn.Linear(sizes[-1], num_classes))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        result: Tensor = self.layers(x)
        return result
