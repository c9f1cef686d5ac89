"""Ready-made models and the registry the trainer builds them from.

Examples:
    >>> from nnlite.models import get_model
    >>> model = get_model("lenet", num_classes=10)
    >>> model = get_model("nnlite.models.lenet:MLP", in_features=4, hidden=[8], num_classes=2)
    >>> type(model).__name__  # a Module class named as "module:Class", here one of nnlite's
    'MLP'
"""

from ._weights import load_weights
from .lenet import MLP, LeNet, Net
from .mobilenet import MobileNetV2, mobilenet_v2
from .registry import MODELS, get_model, get_model_builder, list_models, register_model
from .resnet import BasicBlock, Bottleneck, ResNet, resnet18, resnet34, resnet50
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn
from .weights import (
    MobileNet_V2_Weights,
    ResNet18_Weights,
    ResNet34_Weights,
    ResNet50_Weights,
    VGG11_BN_Weights,
    VGG11_Weights,
    VGG13_BN_Weights,
    VGG13_Weights,
    VGG16_BN_Weights,
    VGG16_Weights,
    VGG19_BN_Weights,
    VGG19_Weights,
    Weights,
    WeightsEnum,
    get_model_weights,
    get_weight,
)

__all__ = [
    "Net",
    "LeNet",
    "MLP",
    "ResNet",
    "BasicBlock",
    "Bottleneck",
    "resnet18",
    "resnet34",
    "resnet50",
    "VGG",
    "vgg11",
    "vgg11_bn",
    "vgg13",
    "vgg13_bn",
    "vgg16",
    "vgg16_bn",
    "vgg19",
    "vgg19_bn",
    "MobileNetV2",
    "mobilenet_v2",
    "load_weights",
    "get_model",
    "get_model_builder",
    "register_model",
    "list_models",
    "MODELS",
    "Weights",
    "WeightsEnum",
    "get_model_weights",
    "get_weight",
    "MobileNet_V2_Weights",
    "ResNet18_Weights",
    "ResNet34_Weights",
    "ResNet50_Weights",
    "VGG11_BN_Weights",
    "VGG11_Weights",
    "VGG13_BN_Weights",
    "VGG13_Weights",
    "VGG16_BN_Weights",
    "VGG16_Weights",
    "VGG19_BN_Weights",
    "VGG19_Weights",
]
