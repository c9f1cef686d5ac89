"""Pillow, imported on first use: it is the optional extra ``vision`` (image files, PIL images)."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image
    from typing_extensions import TypeIs

    from ._typing import Array


def import_pillow(purpose: str) -> ModuleType:
    """Pillow's ``Image`` module, or an ImportError saying what needs it and how to install it."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            f"{purpose} needs Pillow, which is not installed: pip install 'nnlite[vision]' "
            f"(or pip install Pillow)"
        ) from None
    image_module: ModuleType = Image
    return image_module


def is_pil_image(obj: object) -> TypeIs[Image]:
    """True for a PIL image (without importing Pillow when it is not loaded already)."""
    import sys

    image = sys.modules.get("PIL.Image")
    return image is not None and isinstance(obj, image.Image)


def image_from_array(arr: Array, mode: str | None, purpose: str) -> Image:
    """A PIL image of ``arr`` (``HW`` or ``HWC``) in ``mode`` (None: Pillow's choice from the
    dtype and channels), or the ImportError of :func:`import_pillow`."""
    import_pillow(purpose)
    from PIL import Image as image_module

    return image_module.fromarray(arr, mode=mode)
