"""make_grid and save_image, checked against torchvision's documented layout."""

import sys

import numpy as np
import pytest

import nnlite as nl
from nnlite.utils import make_grid, save_image


def test_grid_shape_and_placement():
    images = nl.arange(6 * 2 * 2, dtype=nl.float32).reshape(6, 1, 2, 2)
    grid = make_grid(images, nrow=4, padding=1, pad_value=-1.0)
    # 4 columns, 2 rows of 2x2 cells with 1-pixel padding around every cell: 3 channels (gray expanded)
    assert grid.shape == (3, 2 * 3 + 1, 4 * 3 + 1)
    g = grid.numpy()
    for k in range(6):
        row, col = divmod(k, 4)
        top, left = 1 + 3 * row, 1 + 3 * col
        for c in range(3):
            assert g[c, top : top + 2, left : left + 2].tolist() == images[k, 0].tolist()
    # padding lines and the two unused cells of the last row hold pad_value
    assert (g[:, 0, :] == -1).all() and (g[:, :, 0] == -1).all() and (g[:, 4:6, 7:] == -1).all()


def test_default_arguments_as_torchvision():
    assert make_grid(nl.rand(10, 1, 28, 28), nrow=5).shape == (3, 62, 152)
    assert make_grid(nl.rand(64, 3, 8, 8)).shape == (3, 8 * 10 + 2, 8 * 10 + 2)
    assert make_grid([nl.rand(3, 4, 4), nl.rand(3, 4, 4)]).shape == (3, 8, 14)


def test_single_image_is_returned_without_padding():
    image = nl.rand(1, 5, 6)
    grid = make_grid(image)
    assert grid.shape == (3, 5, 6) and all(grid[c].tolist() == image[0].tolist() for c in range(3))
    assert make_grid(nl.rand(5, 6)).shape == (3, 5, 6)


def test_normalize_by_range_and_each_image():
    images = nl.tensor([[[[0.0, 2.0]]], [[[4.0, 8.0]]]])
    whole = make_grid(images, padding=0, normalize=True).numpy()
    assert whole[0].tolist() == [[0.0, 0.25, 0.5, 1.0]]
    each = make_grid(images, padding=0, normalize=True, scale_each=True).numpy()
    assert each[0].tolist() == [[0.0, 1.0, 0.0, 1.0]]
    clipped = make_grid(images, padding=0, normalize=True, value_range=(2.0, 4.0)).numpy()
    assert clipped[0].tolist() == [[0.0, 0.0, 1.0, 1.0]]
    assert images[1, 0, 0].tolist() == [4.0, 8.0]  # the input is not modified
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        make_grid(images, normalize=True, value_range=[0, 1])


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="expected images of shape"):
        make_grid(nl.rand(1, 1, 1, 2, 2))
    with pytest.raises(TypeError, match="Tensor or a list of Tensors"):
        make_grid(np.zeros((2, 1, 3, 3)))


def test_save_image_writes_a_png_with_torchvisions_rounding(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    values = nl.tensor([[[[0.0, 0.5, 1.0], [0.2, 1.7, -0.3]]]])  # 1 image, 1 channel, 2x3
    path = tmp_path / "out.png"
    save_image(values, str(path))
    with Image.open(path) as img:
        assert img.format == "PNG" and img.mode == "RGB" and img.size == (3, 2)
        pixels = np.asarray(img)
    # x * 255 + 0.5, clamped to [0, 255], truncated to uint8: 0.5 -> 128, 0.2 -> 51
    expected = [[0, 128, 255], [51, 255, 0]]
    for c in range(3):
        assert pixels[:, :, c].tolist() == expected


def test_save_image_tiles_a_batch(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    path = tmp_path / "grid.png"
    save_image(nl.ones(8, 1, 4, 4), path, nrow=4, padding=1)
    with Image.open(path) as img:
        assert img.size == (4 * 5 + 1, 2 * 5 + 1)
        pixels = np.asarray(img)
    assert pixels[1:5, 1:5].min() == 255 and pixels[0].max() == 0


def test_save_image_without_pillow_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=r"pip install 'nnlite\[vision\]'"):
        save_image(nl.rand(1, 2, 2), tmp_path / "x.png")
