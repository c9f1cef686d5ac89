"""Pillow as an optional extra: found lazily, and a clear error naming the extra when missing."""

import sys

import numpy as np
import pytest

from nnlite._pillow import import_pillow, is_pil_image


def test_import_pillow_without_pillow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    with pytest.raises(ImportError, match=r"^ImageFolder needs Pillow, which is not installed: "):
        import_pillow("ImageFolder")
    with pytest.raises(ImportError, match=r"pip install 'nnlite\[vision\]'"):
        import_pillow("ImageFolder")


def test_is_pil_image_tells_images_from_arrays():
    image_module = pytest.importorskip("PIL.Image")
    assert import_pillow("test") is image_module
    image = image_module.new("RGB", (4, 3))
    assert is_pil_image(image)
    assert not is_pil_image(np.zeros((3, 4, 3), np.uint8))
    assert not is_pil_image("image.png")


def test_is_pil_image_does_not_import_pillow(monkeypatch):
    monkeypatch.delitem(sys.modules, "PIL.Image", raising=False)
    assert not is_pil_image(np.zeros((2, 2), np.uint8))
    assert "PIL.Image" not in sys.modules
