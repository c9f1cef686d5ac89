"""Pillow, imported on first use: it is the optional extra ``vision`` (image files, PIL images)."""

from types import ModuleType


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


def is_pil_image(obj: object) -> bool:
    """True for a PIL image (without importing Pillow when it is not loaded already)."""
    import sys

    image = sys.modules.get("PIL.Image")
    return image is not None and isinstance(obj, image.Image)
