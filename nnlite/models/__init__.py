"""Ready-made models and the registry the trainer builds them from.

Example:
    >>> from nnlite.models import get_model
    >>> model = get_model("lenet", num_classes=10)
    >>> model = get_model("mypkg.nets:TinyNet", width=32)   # a user's own Module class
"""
from .lenet import Net, LeNet, MLP
from .resnet import ResNet, BasicBlock, Bottleneck, resnet18, resnet34, resnet50
from .registry import get_model, get_model_builder, register_model, list_models, MODELS

__all__ = ["Net", "LeNet", "MLP", "ResNet", "BasicBlock", "Bottleneck", "resnet18", "resnet34", "resnet50",
           "get_model", "get_model_builder", "register_model", "list_models", "MODELS"]
