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


@pytest.fixture
def word_corpus(tmp_path_factory):
    """train.txt and valid.txt in word_language_model's layout: sentences over a small
    vocabulary with a fixed word order, so that a few steps lower the validation loss."""
    root = tmp_path_factory.mktemp("corpus")
    rng = np.random.default_rng(0)
    words = "the cat sat on a mat and the dog ran to the big red house".split()
    for name, lines in (("train.txt", 120), ("valid.txt", 20)):
        with open(root / name, "w") as f:
            for _ in range(lines):
                start = int(rng.integers(0, 6))
                f.write(" " + " ".join(words[start : start + 8]) + " . \n")
    return root


def test_word_language_model_saves_and_loads_the_whole_model(word_corpus, run_script, tmp_path):
    lines = run_script("word_lm", "--data", word_corpus, "--epochs", 3)
    valid = losses(lines, "valid loss ")
    # lr 20 on a tiny corpus: the loss falls over the run, not necessarily every epoch
    assert len(valid) == 4 and valid[2] < valid[0]
    assert valid[3] == min(valid[:3])  # the best model was saved and loaded back
    assert "tied after load: True" in lines
    assert len(lines[-1].split()) == 11 and lines[-1].startswith("generated:")
    assert (tmp_path / "model.pt").exists()


def test_sine_sequence_with_lbfgs(run_script, tmp_path):
    lines = run_script("sine_lbfgs", "--steps", 2)
    train = losses(lines, "loss: ")
    test = losses(lines, "test loss: ")
    assert len(test) == 2 and train[-1] < train[0]
    assert lines[-1] == "prediction shape: (3, 39)"


def test_super_resolution_on_pil_images(run_script, tmp_path_factory, tmp_path):
    Image = pytest.importorskip("PIL.Image")
    root = tmp_path_factory.mktemp("bsds")
    rng = np.random.default_rng(0)
    for split, count in (("train", 4), ("test", 2)):
        (root / split).mkdir()
        for i in range(count):
            yy, xx = np.mgrid[0:40, 0:48]
            rgb = np.stack(
                [np.sin(xx / (3 + i)) * 120 + 128, np.cos(yy / 4) * 100 + 128, xx * 5], -1
            )
            rgb = rgb + rng.normal(0, 5, rgb.shape)
            Image.fromarray(rgb.clip(0, 255).astype(np.uint8)).save(root / split / f"{i}.jpg")
    lines = run_script("super_res", "--data", root, "--nEpochs", 2)
    epoch_losses = losses(lines, "Avg. Loss: ")
    assert len(epoch_losses) == 2 and epoch_losses[1] < epoch_losses[0]
    assert lines[-1] == "output size: (96, 80)"
    with Image.open(tmp_path / "out.png") as img:
        assert img.size == (96, 80) and img.mode == "RGB"


def test_dcgan_on_fake_data(run_script, tmp_path):
    Image = pytest.importorskip("PIL.Image")
    lines = run_script("dcgan_fake", "--niter", 2, "--accel")
    assert len(losses(lines, "Loss_D: ")) == 8 and len(losses(lines, "Loss_G: ")) == 8
    with Image.open(tmp_path / "fake_samples_epoch_001.png") as img:
        assert img.size == (8 * (16 + 2) + 2, 16 + 2 + 2)  # make_grid: 8 a row, padding 2
    torch = pytest.importorskip("torch")
    theirs = torch.load(tmp_path / "netG_epoch_1.pth", weights_only=True)
    assert list(theirs)[:3] == ["main.0.weight", "main.1.weight", "main.1.bias"]
    # a second run continues from the generator checkpoint
    lines = run_script("dcgan_fake", "--niter", 1, "--netG", tmp_path / "netG_epoch_1.pth")
    assert len(losses(lines, "Loss_G: ")) == 4
