"""The sequence and generative examples run a few steps on generated data: ``char_gpt.py`` (its loss
falls), ``lstm_lm.py`` (perplexity reported) and ``dcgan.py`` (a PNG grid of samples written)."""

import gzip
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_example(name, *args, cwd):
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def repetitive_text(rng, sentences, count):
    return " ".join(sentences[i] for i in rng.integers(0, len(sentences), count))


def test_char_gpt_loss_falls(tmp_path):
    text = repetitive_text(
        np.random.default_rng(0), ["the cat sat on the mat.", "a dog ran in the park."], 300
    )
    (tmp_path / "input.txt").write_text(text)
    out = run_example(
        "char_gpt.py",
        "input.txt",
        "--steps",
        40,
        "--log-every",
        10,
        "--sample-every",
        40,
        "--sample-length",
        20,
        "--n-layer",
        2,
        "--n-embd",
        32,
        "--n-head",
        2,
        "--block-size",
        16,
        "--batch-size",
        8,
        cwd=tmp_path,
    )
    losses = [float(v) for v in re.findall(r"step \d+: loss ([0-9.]+)", out)]
    assert len(losses) == 5 and losses[-1] < losses[0] - 0.5, out
    assert "--- sample ---" in out


def test_char_gpt_names_a_text_too_short(tmp_path):
    (tmp_path / "tiny.txt").write_text("abc")
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "char_gpt.py"), "tiny.txt"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "tiny.txt: the text has 3 characters" in result.stderr


def test_lstm_language_model_reports_perplexity(tmp_path):
    rng = np.random.default_rng(1)
    lines = ["the cat sat on the mat", "a dog ran in the park", "the bird sang a song"]
    for name, count in (("train", 200), ("valid", 40), ("test", 40)):
        (tmp_path / f"{name}.txt").write_text(
            "\n".join(lines[i] for i in rng.integers(0, 3, count)) + "\n"
        )
    out = run_example(
        "lstm_lm.py",
        tmp_path,
        "--epochs",
        5,
        "--emsize",
        16,
        "--nhid",
        16,
        "--batch-size",
        4,
        "--bptt",
        8,
        "--log-interval",
        10,
        "--lr",
        5.0,
        "--clip",
        1.0,
        "--dropout",
        0.0,
        cwd=tmp_path,
    )
    valid = [float(v) for v in re.findall(r"valid ppl +([0-9.]+)", out)]
    # 14 words with <eos>: word frequencies alone score about 12; the sentences' order takes it far below
    assert len(valid) == 5 and valid[-1] < 6, out


def _write_idx(path, array):
    array = np.ascontiguousarray(array, dtype=np.uint8)
    header = struct.pack(">HBB", 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    path.write_bytes(gzip.compress(header + array.tobytes()))


def test_dcgan_writes_a_sample_grid(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.default_rng(2)
    for prefix, n in (("train", 16), ("t10k", 4)):
        _write_idx(tmp_path / f"{prefix}-images-idx3-ubyte.gz", rng.integers(0, 256, (n, 28, 28)))
        _write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", rng.integers(0, 10, n))
    out = run_example(
        "dcgan.py",
        "--data",
        tmp_path,
        "--epochs",
        1,
        "--batch-size",
        8,
        "--ngf",
        8,
        "--ndf",
        8,
        "--max-steps",
        2,
        "--out",
        tmp_path / "samples",
        cwd=tmp_path,
    )
    png = tmp_path / "samples" / "samples_epoch_001.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", out
    from PIL import Image

    assert Image.open(png).size == (8 * 28 + 9 * 2, 8 * 28 + 9 * 2)  # make_grid's 2-pixel padding
