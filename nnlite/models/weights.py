"""torchvision's weight enums for nnlite's models (``ResNet18_Weights.DEFAULT``,
``weights="IMAGENET1K_V1"``), resolved to the file in PyTorch's hub cache
(``~/.cache/torch/hub/checkpoints/<name>``) where torchvision would have downloaded it.

nnlite downloads nothing: a missing file raises ``FileNotFoundError`` saying in one line which
address to fetch and where to save it.
"""

from __future__ import annotations

import os
import typing
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "Weights",
    "WeightsEnum",
    "get_model_weights",
    "get_weight",
    "resolve_weights",
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

_BASE = "https://download.pytorch.org/models/"
_FILE_EXTENSIONS = (".pth", ".pt", ".safetensors", ".npz", ".bin", ".ckpt")


@dataclass(frozen=True)
class Weights:
    """One published weight file: its ``url`` and facts about it (``meta``).

    Args:
        url (str): the address torchvision downloads the file from.
        meta (dict): facts about the weights (parameters, categories).

    Examples:
        >>> nl.models.Weights("https://example.org/m-0.pth").url
        'https://example.org/m-0.pth'
    """

    url: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


class WeightsEnum(Enum):
    """The published weights of one architecture; members have ``url``, ``meta`` and ``path``
    (the file in the hub cache).

    Examples:
        >>> nl.models.ResNet18_Weights.IMAGENET1K_V1.meta["num_classes"]
        1000
    """

    @property
    def url(self) -> str:
        """The address torchvision downloads the file from.

        Examples:
            >>> nl.models.ResNet18_Weights.DEFAULT.url
            'https://download.pytorch.org/models/resnet18-f37072fd.pth'
        """
        return str(self.value.url)

    @property
    def meta(self) -> dict[str, Any]:
        """Facts about the weights (the number of parameters, the dataset's categories count).

        Examples:
            >>> nl.models.ResNet18_Weights.DEFAULT.meta["num_params"]
            11689512
        """
        return dict(self.value.meta)

    @property
    def path(self) -> str:
        """The file in PyTorch's hub cache: ``<hub dir>/checkpoints/<file name of url>``.

        Examples:
            >>> nl.models.ResNet18_Weights.DEFAULT.path.endswith("checkpoints/resnet18-f37072fd.pth")
            True
        """
        from ..hub import checkpoint_path

        return checkpoint_path(self.url)

    def get_state_dict(self, progress: bool = True, check_hash: bool = False) -> Any:
        """The state dict, read from the hub cache.

        Args:
            progress (bool): accepted for torchvision's signature.
            check_hash (bool): check the file against the hash in its name. Default: False.

        Returns:
            dict: the state dict.

        Examples:
            >>> nl.models.ResNet18_Weights.DEFAULT.get_state_dict()  # doctest: +SKIP
        """
        from ..hub import load_state_dict_from_url

        return load_state_dict_from_url(self.url, check_hash=check_hash)

    @classmethod
    def verify(cls, obj: Any) -> Any:
        """``obj`` as a member of this enum: a member, its name (``"IMAGENET1K_V1"``,
        ``"DEFAULT"``) or ``"<Enum>.<name>"``; None stays None.

        Args:
            obj: a member, a name, or None.

        Returns:
            WeightsEnum or None: the member.

        Examples:
            >>> nl.models.ResNet50_Weights.verify("DEFAULT")
            ResNet50_Weights.IMAGENET1K_V2
        """
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str):
            name = obj.replace(cls.__name__ + ".", "")
            try:
                return cls[name]
            except KeyError:
                raise ValueError(
                    f"Failed to find Weights {obj} in {cls.__name__}. Try one of "
                    f"{[m.name for m in cls] + ['DEFAULT']}"
                ) from None
        raise TypeError(
            f"Invalid Weight class provided; expected {cls.__name__} but received "
            f"{type(obj).__name__}."
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return repr(self)


def _imagenet(file: str, parameters: int) -> Weights:
    return Weights(_BASE + file, {"num_params": parameters, "num_classes": 1000})


class ResNet18_Weights(WeightsEnum):
    """torchvision's ResNet-18 weights.

    Examples:
        >>> nl.models.ResNet18_Weights.DEFAULT
        ResNet18_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("resnet18-f37072fd.pth", 11689512)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    """torchvision's ResNet-34 weights.

    Examples:
        >>> nl.models.ResNet34_Weights.DEFAULT
        ResNet34_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("resnet34-b627a593.pth", 21797672)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    """torchvision's ResNet-50 weights (``DEFAULT`` is the V2 recipe).

    Examples:
        >>> nl.models.ResNet50_Weights.DEFAULT
        ResNet50_Weights.IMAGENET1K_V2
    """

    IMAGENET1K_V1 = _imagenet("resnet50-0676ba61.pth", 25557032)
    IMAGENET1K_V2 = _imagenet("resnet50-11ad3fa6.pth", 25557032)
    DEFAULT = IMAGENET1K_V2


class VGG11_Weights(WeightsEnum):
    """torchvision's VGG-11 weights.

    Examples:
        >>> nl.models.VGG11_Weights.DEFAULT
        VGG11_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg11-8a719046.pth", 132863336)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    """torchvision's VGG-11 (batch norm) weights.

    Examples:
        >>> nl.models.VGG11_BN_Weights.DEFAULT
        VGG11_BN_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg11_bn-6002323d.pth", 132868840)
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    """torchvision's VGG-13 weights.

    Examples:
        >>> nl.models.VGG13_Weights.DEFAULT
        VGG13_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg13-19584684.pth", 133047848)
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    """torchvision's VGG-13 (batch norm) weights.

    Examples:
        >>> nl.models.VGG13_BN_Weights.DEFAULT
        VGG13_BN_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg13_bn-abd245e5.pth", 133053736)
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    """torchvision's VGG-16 weights.

    Examples:
        >>> nl.models.VGG16_Weights.DEFAULT
        VGG16_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg16-397923af.pth", 138357544)
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    """torchvision's VGG-16 (batch norm) weights.

    Examples:
        >>> nl.models.VGG16_BN_Weights.DEFAULT
        VGG16_BN_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg16_bn-6c64b313.pth", 138365992)
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    """torchvision's VGG-19 weights.

    Examples:
        >>> nl.models.VGG19_Weights.DEFAULT
        VGG19_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg19-dcbb9e9d.pth", 143667240)
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    """torchvision's VGG-19 (batch norm) weights.

    Examples:
        >>> nl.models.VGG19_BN_Weights.DEFAULT
        VGG19_BN_Weights.IMAGENET1K_V1
    """

    IMAGENET1K_V1 = _imagenet("vgg19_bn-c79401a0.pth", 143678248)
    DEFAULT = IMAGENET1K_V1


class MobileNet_V2_Weights(WeightsEnum):
    """torchvision's MobileNetV2 weights (``DEFAULT`` is the V2 recipe).

    Examples:
        >>> nl.models.MobileNet_V2_Weights.DEFAULT
        MobileNet_V2_Weights.IMAGENET1K_V2
    """

    IMAGENET1K_V1 = _imagenet("mobilenet_v2-b0353104.pth", 3504872)
    IMAGENET1K_V2 = _imagenet("mobilenet_v2-7ebf99e0.pth", 3504872)
    DEFAULT = IMAGENET1K_V2


_BY_MODEL: dict[str, type[WeightsEnum]] = {
    "resnet18": ResNet18_Weights,
    "resnet34": ResNet34_Weights,
    "resnet50": ResNet50_Weights,
    "vgg11": VGG11_Weights,
    "vgg11_bn": VGG11_BN_Weights,
    "vgg13": VGG13_Weights,
    "vgg13_bn": VGG13_BN_Weights,
    "vgg16": VGG16_Weights,
    "vgg16_bn": VGG16_BN_Weights,
    "vgg19": VGG19_Weights,
    "vgg19_bn": VGG19_BN_Weights,
    "mobilenet_v2": MobileNet_V2_Weights,
}


def get_model_weights(name: str) -> type[WeightsEnum]:
    """The weights enum of a model builder's name.

    Args:
        name (str): e.g. ``"resnet18"``.

    Returns:
        type: the enum, e.g. ``ResNet18_Weights``.

    Examples:
        >>> from nnlite.models import get_model_weights
        >>> get_model_weights("resnet18").DEFAULT
        ResNet18_Weights.IMAGENET1K_V1
    """
    try:
        return _BY_MODEL[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}: weights exist for {sorted(_BY_MODEL)}") from None


def get_weight(name: str) -> WeightsEnum:
    """The weights member named ``"<Enum>.<member>"``.

    Args:
        name (str): e.g. ``"ResNet50_Weights.IMAGENET1K_V2"``.

    Returns:
        WeightsEnum: the member.

    Examples:
        >>> from nnlite.models import get_weight
        >>> get_weight("ResNet18_Weights.DEFAULT").url
        'https://download.pytorch.org/models/resnet18-f37072fd.pth'
    """
    enum_name, _, member = name.partition(".")
    for enum in _BY_MODEL.values():
        if enum.__name__ == enum_name:
            return typing.cast(WeightsEnum, enum.verify(member))
    raise ValueError(f"Invalid weight name provided: '{name}'.")


#: what a builder's ``weights=`` takes: a weights enum member (or its name), a file, or None
WeightsArg = WeightsEnum | str | os.PathLike[str] | None


def resolve_weights(weights: Any, enum: type[WeightsEnum]) -> Any:
    """What a builder's ``weights=`` names, as a file path: an enum member or its name (checked
    against ``enum``) becomes the hub cache file (which must exist); paths pass through.

    Args:
        weights: None, a path, a member of ``enum`` or its name.
        enum (type): the builder's weights enum.

    Returns:
        str or None: the weights file.

    Raises:
        FileNotFoundError: a named weights file is not in the hub cache.
    """
    if weights is None or isinstance(weights, os.PathLike):
        return weights
    if isinstance(weights, str) and (
        os.sep in weights
        or os.path.isfile(weights)
        or os.path.splitext(weights)[1].lower() in _FILE_EXTENSIONS
    ):
        return weights  # a file name or path
    try:
        member = enum.verify(weights)
    except TypeError:
        raise TypeError(
            f"weights= takes a {enum.__name__} member, its name or a path to a weight file, "
            f"not {type(weights).__name__}"
        ) from None
    if not os.path.isfile(member.path):
        raise FileNotFoundError(
            f"{member.path} not found: nnlite does not download; fetch {member.url} and save it "
            "there"
        )
    return member.path
