"""torchvision's ResNet-18 rebuilt with ``torch.nn`` (torchvision is not installed): the same
module names, registration order and shapes as ``torchvision.models.resnet18``."""


def torch_resnet18(num_classes=1000):
    import torch.nn as tnn

    class BasicBlock(tnn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = tnn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn1 = tnn.BatchNorm2d(planes)
            self.relu = tnn.ReLU(inplace=True)
            self.conv2 = tnn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
            self.bn2 = tnn.BatchNorm2d(planes)
            self.downsample = downsample
            self.stride = stride

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = tnn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = tnn.BatchNorm2d(64)
            self.relu = tnn.ReLU(inplace=True)
            self.maxpool = tnn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(64, 2)
            self.layer2 = self._make_layer(128, 2, stride=2)
            self.layer3 = self._make_layer(256, 2, stride=2)
            self.layer4 = self._make_layer(512, 2, stride=2)
            self.avgpool = tnn.AdaptiveAvgPool2d((1, 1))
            self.fc = tnn.Linear(512, num_classes)

        def _make_layer(self, planes, blocks, stride=1):
            downsample = None
            if stride != 1 or self.inplanes != planes:
                downsample = tnn.Sequential(
                    tnn.Conv2d(self.inplanes, planes, 1, stride=stride, bias=False),
                    tnn.BatchNorm2d(planes),
                )
            layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes
            layers += [BasicBlock(planes, planes) for _ in range(1, blocks)]
            return tnn.Sequential(*layers)

        def forward(self, x):
            import torch

            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return ResNet()


def torch_vgg11(num_classes=1000):
    """torchvision's ``vgg11`` layout: ``features.N``, ``avgpool``, ``classifier.N``."""
    import torch
    import torch.nn as tnn

    class VGG(tnn.Module):
        def __init__(self):
            super().__init__()
            layers, channels = [], 3
            for width in (64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"):
                if width == "M":
                    layers.append(tnn.MaxPool2d(2, 2))
                else:
                    layers += [tnn.Conv2d(channels, width, 3, padding=1), tnn.ReLU(inplace=True)]
                    channels = width
            self.features = tnn.Sequential(*layers)
            self.avgpool = tnn.AdaptiveAvgPool2d((7, 7))
            self.classifier = tnn.Sequential(
                tnn.Linear(512 * 49, 4096),
                tnn.ReLU(True),
                tnn.Dropout(),
                tnn.Linear(4096, 4096),
                tnn.ReLU(True),
                tnn.Dropout(),
                tnn.Linear(4096, num_classes),
            )

        def forward(self, x):
            return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))

    return VGG()


def torch_mobilenet_v2(num_classes=1000):
    """torchvision's ``mobilenet_v2`` layout: ``features.N.conv.M``, ``classifier.1``."""
    import torch
    import torch.nn as tnn

    def conv_bn_relu6(inp, oup, kernel=3, stride=1, groups=1):
        return tnn.Sequential(
            tnn.Conv2d(inp, oup, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
            tnn.BatchNorm2d(oup),
            tnn.ReLU6(inplace=True),
        )

    class InvertedResidual(tnn.Module):
        def __init__(self, inp, oup, stride, expand):
            super().__init__()
            hidden = int(round(inp * expand))
            self.use_res = stride == 1 and inp == oup
            layers = [conv_bn_relu6(inp, hidden, 1)] if expand != 1 else []
            layers += [
                conv_bn_relu6(hidden, hidden, 3, stride, hidden),
                tnn.Conv2d(hidden, oup, 1, bias=False),
                tnn.BatchNorm2d(oup),
            ]
            self.conv = tnn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_res else self.conv(x)

    class MobileNetV2(tnn.Module):
        def __init__(self):
            super().__init__()
            features, channels = [conv_bn_relu6(3, 32, 3, 2)], 32
            for t, c, n, s in (
                (1, 16, 1, 1),
                (6, 24, 2, 2),
                (6, 32, 3, 2),
                (6, 64, 4, 2),
                (6, 96, 3, 1),
                (6, 160, 3, 2),
                (6, 320, 1, 1),
            ):
                for i in range(n):
                    features.append(InvertedResidual(channels, c, s if i == 0 else 1, t))
                    channels = c
            features.append(conv_bn_relu6(channels, 1280, 1))
            self.features = tnn.Sequential(*features)
            self.classifier = tnn.Sequential(tnn.Dropout(0.2), tnn.Linear(1280, num_classes))

        def forward(self, x):
            x = tnn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))
            return self.classifier(torch.flatten(x, 1))

    return MobileNetV2()
