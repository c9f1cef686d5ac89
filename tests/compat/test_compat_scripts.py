"""Training scripts written as PyTorch users write them, with `import torch` changed to
`import nnlite as torch`, each run for a few steps on generated MNIST-format files."""

import numpy as np
import pytest
from compat_output import losses


def test_mnist_classifier(mnist_root, run_script, tmp_path):
    lines = run_script("mnist_classifier", "--data", mnist_root, "--epochs", 2, "--log-interval", 2)
    train = losses(lines, "Loss: ")
    test = losses(lines, "Average loss: ")
    assert len(train) == 8 and len(test) == 2
    assert train[-1] < train[0] and test[1] < test[0] < 2.3
    assert lines[-1] == "Checkpoint round trip: True"
    assert (tmp_path / "model.pth").exists()


def test_polynomial_regression(run_script):
    lines = run_script("polynomial_regression")
    batch_losses = losses(lines, " loss ")
    final = float(lines[-3].split()[1])
    assert batch_losses[-1] < batch_losses[0] and final < 1e-2
    learned = [float(v) for v in lines[-2].split(":")[1].split()]
    actual = [float(v) for v in lines[-1].split(":")[1].split()]
    np.testing.assert_allclose(learned, actual, atol=0.3)


def test_vae_with_save_image(mnist_root, run_script, tmp_path):
    Image = pytest.importorskip("PIL.Image")
    lines = run_script("vae", "--data", mnist_root, "--epochs", 2)
    epoch_losses = losses(lines, "Average loss: ")
    assert len(epoch_losses) == 2 and epoch_losses[1] < epoch_losses[0]
    with Image.open(tmp_path / "results" / "reconstruction_2.png") as img:
        assert img.size == (8 * 30 + 2, 2 * 30 + 2) and img.mode == "RGB"
    with Image.open(tmp_path / "results" / "sample_1.png") as img:
        assert img.size == (8 * 30 + 2, 2 * 30 + 2)


def test_siamese_pairs(mnist_root, run_script):
    lines = run_script("siamese", "--data", mnist_root, "--epochs", 3)
    epoch_losses = losses(lines, "Loss: ")
    assert len(epoch_losses) == 3 and epoch_losses[-1] < epoch_losses[0]
    assert lines[-1] == "Checkpoint keys: missing=[] unexpected=[]"
