"""VGG with torchvision's module names, shapes and initialisation, so its published weights load."""

from collections.abc import Sequence
from typing import Any

from .. import nn
from ..autograd.tensor import Tensor
from ._weights import load_weights
from .weights import WeightsArg, get_model_weights, resolve_weights

__all__ = [
    "VGG",
    "vgg11",
    "vgg11_bn",
    "vgg13",
    "vgg13_bn",
    "vgg16",
    "vgg16_bn",
    "vgg19",
    "vgg19_bn",
]

# Output channels of each 3x3 convolution; "M" is a 2x2 max pool (the paper's configurations A, B, D, E).
_CONFIGS: dict[int, list[int | str]] = {
    11: [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    13: [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    16: [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    19: [
        64,
        64,
        "M",
        128,
        128,
        "M",
        256,
        256,
        256,
        256,
        "M",
        512,
        512,
        512,
        512,
        "M",
        512,
        512,
        512,
        512,
        "M",
    ],
}


def _make_features(
    config: Sequence[int | str], batch_norm: bool, in_channels: int = 3
) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in config:
        if isinstance(width, str):  # "M"
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(in_channels, width, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(width))
        layers.append(nn.ReLU(inplace=True))
        in_channels = width
    return nn.Sequential(*layers)


class VGG(nn.Module):
    """VGG: stacked 3x3 convolutions, a 7x7 adaptive pool and three fully connected layers.

    Args:
        features (nn.Sequential): the convolutional part (see ``vgg11`` ... ``vgg19_bn``).
        num_classes (int): outputs of the last layer. Default: 1000.
        init_weights (bool): apply torchvision's initialisation. Default: True.
        dropout (float): dropout probability in the classifier. Default: 0.5.

    Examples:
        >>> model = vgg11(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """

    def __init__(
        self,
        features: nn.Module,
        num_classes: int = 1000,
        init_weights: bool = True,
        dropout: float = 0.5,
    ) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d) and m.weight is not None:
                    nn.init.constant_(m.weight, 1)
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x)).flatten(1)
        result: Tensor = self.classifier(x)
        return result


def _vgg(depth: int, batch_norm: bool, weights: WeightsArg, kwargs: dict[str, Any]) -> "VGG":
    weights = resolve_weights(
        weights, get_model_weights(f"vgg{depth}{'_bn' if batch_norm else ''}")
    )
    model = VGG(_make_features(_CONFIGS[depth], batch_norm), **kwargs)
    return load_weights(model, weights)


def vgg11(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-11 (configuration A). ``weights``: a ``.pth``/``.safetensors``/``.npz`` file, or None.

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg11(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(11, False, weights, kwargs)


def vgg11_bn(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-11 with batch normalisation.

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg11_bn(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(11, True, weights, kwargs)


def vgg13(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-13 (configuration B).

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg13(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(13, False, weights, kwargs)


def vgg13_bn(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-13 with batch normalisation.

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg13_bn(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(13, True, weights, kwargs)


def vgg16(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-16 (configuration D).

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg16(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(16, False, weights, kwargs)


def vgg16_bn(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-16 with batch normalisation.

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg16_bn(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(16, True, weights, kwargs)


def vgg19(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-19 (configuration E).

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg19(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(19, False, weights, kwargs)


def vgg19_bn(weights: WeightsArg = None, **kwargs: Any) -> VGG:
    """VGG-19 with batch normalisation.

    Args:
        weights (str, optional): a ``.pth``, ``.safetensors`` or ``.npz`` file of torchvision's layout; None initialises randomly.
        **kwargs: passed to :class:`VGG` (``num_classes``, ``dropout``, ...).

    Returns:
        VGG: the model.

    Examples:
        >>> model = vgg19_bn(num_classes=10)  # 129M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(1, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([1, 10])
    """
    return _vgg(19, True, weights, kwargs)
