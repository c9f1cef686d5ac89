"""nl.accelerator.set_device_index: no accelerator index exists, and no device but the CPU."""

import pytest

import nnlite as nl


def test_set_device_index_raises_as_pytorch_without_accelerator():
    with pytest.raises(
        RuntimeError, match=r"^Cannot access accelerator device when none is available\.$"
    ):
        nl.accelerator.set_device_index(0)


def test_set_device_index_of_a_gpu_names_the_cpu_only_rule():
    with pytest.raises(RuntimeError, match=r"^nnlite runs on the CPU only; device 'cuda'"):
        nl.accelerator.set_device_index("cuda")
