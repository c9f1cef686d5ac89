"""MobileNetV2 with torchvision's module names, shapes and initialisation, so its published weights load."""

from collections.abc import Callable, Sequence
from typing import Any

from .. import nn
from ..autograd.tensor import Tensor
from ._weights import load_weights
from .weights import MobileNet_V2_Weights, WeightsArg, resolve_weights

_NormLayer = Callable[[int], nn.Module]

__all__ = ["MobileNetV2", "InvertedResidual", "Conv2dNormActivation", "mobilenet_v2"]


def _make_divisible(value: float, divisor: int, min_value: int | None = None) -> int:
    """Round a channel count to a multiple of ``divisor``, never more than 10% below ``value``."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class Conv2dNormActivation(nn.Sequential):
    """Convolution, normalisation and activation as one ``Sequential`` (children ``0``, ``1``, ``2``)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int = 3,
        stride: int = 1,
        padding: int | None = None,
        groups: int = 1,
        norm_layer: _NormLayer | None = nn.BatchNorm2d,
        activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
        dilation: int = 1,
        inplace: bool = True,
        bias: bool | None = None,
    ) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers: list[nn.Module] = [
            nn.Conv2d(
                in_channels,
                out_channels,
                kernel_size,
                stride,
                padding,
                dilation=dilation,
                groups=groups,
                bias=bias,
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(inplace=inplace))
        super().__init__(*layers)
        self.out_channels = out_channels


class InvertedResidual(nn.Module):
    """Expand (1x1), depthwise 3x3, project (1x1, linear); a residual when shapes allow."""

    def __init__(
        self,
        inp: int,
        oup: int,
        stride: int,
        expand_ratio: float,
        norm_layer: _NormLayer | None = None,
    ) -> None:
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Module] = []
        if expand_ratio != 1:
            layers.append(
                Conv2dNormActivation(
                    inp, hidden_dim, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6
                )
            )
        layers += [
            Conv2dNormActivation(
                hidden_dim,
                hidden_dim,
                stride=stride,
                groups=hidden_dim,
                norm_layer=norm_layer,
                activation_layer=nn.ReLU6,
            ),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            norm_layer(oup),
        ]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup

    def forward(self, x: Tensor) -> Tensor:
        result: Tensor = x + self.conv(x) if self.use_res_connect else self.conv(x)
        return result


# expansion t, output channels c, repeats n, first stride s (the paper's Table 2)
_SETTING = [
    [1, 16, 1, 1],
    [6, 24, 2, 2],
    [6, 32, 3, 2],
    [6, 64, 4, 2],
    [6, 96, 3, 1],
    [6, 160, 3, 2],
    [6, 320, 1, 1],
]


class MobileNetV2(nn.Module):
    """MobileNetV2 (Sandler et al. 2018) as torchvision builds it.

    Args:
        num_classes (int): outputs of the classifier. Default: 1000.
        width_mult (float): channel multiplier. Default: 1.0.
        inverted_residual_setting (list): rows ``[t, c, n, s]``; default the paper's.
        round_nearest (int): channel counts are multiples of this. Default: 8.
        dropout (float): dropout before the classifier. Default: 0.2.

    Examples:
        >>> model = mobilenet_v2(num_classes=10)
        >>> model(nl.randn(2, 3, 32, 32)).shape
        nnlite.Size([2, 10])
    """

    def __init__(
        self,
        num_classes: int = 1000,
        width_mult: float = 1.0,
        inverted_residual_setting: Sequence[Sequence[int]] | None = None,
        round_nearest: int = 8,
        block: Callable[..., nn.Module] | None = None,
        norm_layer: _NormLayer | None = None,
        dropout: float = 0.2,
    ) -> None:
        super().__init__()
        block = InvertedResidual if block is None else block
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        setting = _SETTING if inverted_residual_setting is None else inverted_residual_setting
        if len(setting) == 0 or any(len(row) != 4 for row in setting):
            raise ValueError(
                f"inverted_residual_setting should be non-empty or a 4-element list, got {setting}"
            )
        input_channel = _make_divisible(32 * width_mult, round_nearest)
        self.last_channel = _make_divisible(1280 * max(1.0, width_mult), round_nearest)
        features: list[nn.Module] = [
            Conv2dNormActivation(
                3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6
            )
        ]
        for t, c, n, s in setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(
                    block(
                        input_channel,
                        output_channel,
                        s if i == 0 else 1,
                        expand_ratio=t,
                        norm_layer=norm_layer,
                    )
                )
                input_channel = output_channel
        features.append(
            Conv2dNormActivation(
                input_channel,
                self.last_channel,
                kernel_size=1,
                norm_layer=norm_layer,
                activation_layer=nn.ReLU6,
            )
        )
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes)
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d) and m.weight is not None:
                nn.init.ones_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1)).flatten(1)
        result: Tensor = self.classifier(x)
        return result


def mobilenet_v2(weights: WeightsArg = None, **kwargs: Any) -> MobileNetV2:
    """MobileNetV2. ``weights``: a ``.pth``/``.safetensors``/``.npz`` file of torchvision's layout, or None.

    Args:
        weights (str, optional): a torchvision-layout weights file; None initialises randomly.
        **kwargs: passed to :class:`MobileNetV2` (``num_classes``, ``width_mult``, ...).

    Returns:
        MobileNetV2: the model.

    Examples:
        >>> mobilenet_v2(num_classes=10, width_mult=0.5)(nl.randn(2, 3, 32, 32)).shape
        nnlite.Size([2, 10])
    """
    weights = resolve_weights(weights, MobileNet_V2_Weights)
    return load_weights(MobileNetV2(**kwargs), weights)
