"""ResNet with torchvision's module names, shapes and initialisation (``state_dict()`` keys match)."""

from collections.abc import Callable, Sequence
from typing import Any

from .. import nn
from ..autograd.tensor import Tensor
from ._weights import load_weights
from .weights import (
    ResNet18_Weights,
    ResNet34_Weights,
    ResNet50_Weights,
    WeightsArg,
    resolve_weights,
)

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "resnet18", "resnet34", "resnet50"]


def conv3x3(
    in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1
) -> nn.Conv2d:
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a residual connection (ResNet-18/34).

    Args:
        inplanes (int): input channels.
        planes (int): output channels.
        stride (int): the first convolution's stride. Default: 1.
        downsample (Module, optional): maps the input to the residual's shape.
        groups, base_width: must be 1 and 64 (as torchvision's).
        dilation (int): must be 1.
        norm_layer (callable, optional): the normalisation. Default: ``nn.BatchNorm2d``.

    Examples:
        >>> BasicBlock(16, 16)(nl.randn(2, 16, 8, 8)).shape
        nnlite.Size([2, 16, 8, 8])
    """

    expansion = 1

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: nn.Module | None = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Callable[[int], nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity  # in place, as torchvision: bn's output is not saved for backward
        result: Tensor = self.relu(out)
        return result


class Bottleneck(nn.Module):
    """1x1 - 3x3 - 1x1 convolutions with a residual connection (ResNet-50 and deeper).

    Args:
        inplanes (int): input channels.
        planes (int): the bottleneck's channels (the output has ``4 * planes``).
        stride (int): the 3x3 convolution's stride. Default: 1.
        downsample (Module, optional): maps the input to the residual's shape.
        groups (int): groups of the 3x3 convolution. Default: 1.
        base_width (int): the width per group. Default: 64.
        dilation (int): the 3x3 convolution's dilation. Default: 1.
        norm_layer (callable, optional): the normalisation. Default: ``nn.BatchNorm2d``.

    Examples:
        >>> Bottleneck(64, 16)(nl.randn(1, 64, 8, 8)).shape
        nnlite.Size([1, 64, 8, 8])
    """

    expansion = 4

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: nn.Module | None = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Callable[[int], nn.Module] | None = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity  # in place, as torchvision: bn's output is not saved for backward
        result: Tensor = self.relu(out)
        return result


class ResNet(nn.Module):
    """ResNet for 3-channel images (224x224 in the paper; any size from 32 up works).

    Args:
        block (type): ``BasicBlock`` or ``Bottleneck``.
        layers (list of 4 ints): blocks per stage.
        num_classes (int): outputs of ``fc``. Default: 1000.
        zero_init_residual (bool): zero each block's last BatchNorm scale. Default: False.
        groups (int): groups of the 3x3 convolutions. Default: 1.
        width_per_group (int): Default: 64.
        replace_stride_with_dilation (list of 3 bools, optional): dilate instead of striding.
        norm_layer (callable, optional): the normalisation. Default: ``nn.BatchNorm2d``.
        in_channels (int): the image channels (nnlite's addition). Default: 3.

    Examples:
        >>> model = resnet18(num_classes=10)
        >>> model(nl.randn(2, 3, 64, 64)).shape
        nnlite.Size([2, 10])
    """

    def __init__(
        self,
        block: type[BasicBlock | Bottleneck],
        layers: Sequence[int],
        num_classes: int = 1000,
        zero_init_residual: bool = False,
        groups: int = 1,
        width_per_group: int = 64,
        replace_stride_with_dilation: Sequence[bool] | None = None,
        norm_layer: Callable[[int], nn.Module] | None = None,
        in_channels: int = 3,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError(
                "replace_stride_with_dilation should be None or a 3-element tuple, got "
                f"{replace_stride_with_dilation}"
            )
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(
            in_channels, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False
        )
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(
            block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0]
        )
        self.layer3 = self._make_layer(
            block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1]
        )
        self.layer4 = self._make_layer(
            block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2]
        )
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)) and m.weight is not None:
                nn.init.constant_(m.weight, 1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                last_bn = m.bn3 if isinstance(m, Bottleneck) else getattr(m, "bn2", None)
                weight = (
                    getattr(last_bn, "weight", None)
                    if isinstance(m, (Bottleneck, BasicBlock))
                    else None
                )
                if isinstance(weight, Tensor):
                    nn.init.constant_(weight, 0)

    def _make_layer(
        self,
        block: type[BasicBlock | Bottleneck],
        planes: int,
        blocks: int,
        stride: int = 1,
        dilate: bool = False,
    ) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers: list[nn.Module] = [
            block(
                self.inplanes,
                planes,
                stride,
                downsample,
                self.groups,
                self.base_width,
                previous_dilation,
                norm_layer,
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    dilation=self.dilation,
                    norm_layer=norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x).flatten(1)
        result: Tensor = self.fc(x)
        return result


def resnet18(weights: WeightsArg = None, num_classes: int = 1000, **kwargs: Any) -> ResNet:
    """ResNet-18 (torchvision's architecture and names).

    Args:
        weights (str or None): a ``.pth`` (``torch.save``), ``.safetensors`` or nnlite ``.npz`` file of
            torchvision's layout, e.g. ``resnet18-f37072fd.pth``; ``None`` initialises randomly.
        num_classes (int): outputs of ``fc``; must match the file's when ``weights`` is given.

    Returns:
        ResNet: the model.

    Examples:
        >>> model = resnet18()  # weights="resnet18-f37072fd.pth" loads torchvision's file
        >>> model.fc = nn.Linear(512, 10)        # a new head for finetuning
        >>> model(nl.randn(2, 3, 32, 32)).shape
        nnlite.Size([2, 10])
    """
    weights = resolve_weights(weights, ResNet18_Weights)
    return load_weights(
        ResNet(BasicBlock, [2, 2, 2, 2], num_classes=num_classes, **kwargs), weights
    )


def resnet34(weights: WeightsArg = None, num_classes: int = 1000, **kwargs: Any) -> ResNet:
    """ResNet-34; arguments as ``resnet18``.

    Args:
        weights (str, optional): a torchvision-layout weights file; None initialises randomly.
        num_classes (int): outputs of ``fc``. Default: 1000.
        **kwargs: passed to :class:`ResNet`.

    Returns:
        ResNet: the model.

    Examples:
        >>> model = resnet34(num_classes=10)  # 21.8M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(2, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([2, 10])
    """
    weights = resolve_weights(weights, ResNet34_Weights)
    return load_weights(
        ResNet(BasicBlock, [3, 4, 6, 3], num_classes=num_classes, **kwargs), weights
    )


def resnet50(weights: WeightsArg = None, num_classes: int = 1000, **kwargs: Any) -> ResNet:
    """ResNet-50 (bottleneck blocks); arguments as ``resnet18``.

    Args:
        weights (str, optional): a torchvision-layout weights file; None initialises randomly.
        num_classes (int): outputs of ``fc``. Default: 1000.
        **kwargs: passed to :class:`ResNet`.

    Returns:
        ResNet: the model.

    Examples:
        >>> model = resnet50(num_classes=10)  # 25.6M parameters: slow to build  # doctest: +SKIP
        >>> model(nl.randn(2, 3, 32, 32)).shape  # doctest: +SKIP
        nnlite.Size([2, 10])
    """
    weights = resolve_weights(weights, ResNet50_Weights)
    return load_weights(
        ResNet(Bottleneck, [3, 4, 6, 3], num_classes=num_classes, **kwargs), weights
    )
