"""nnlite._runtime.shared_memory: arrays in unnamed shared memory files."""

import os

import numpy as np

from nnlite._runtime import shared_memory as sm


def test_to_shared_copies_into_shared_memory():
    source = np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::2]  # not contiguous
    shared = sm.to_shared(source)
    np.testing.assert_array_equal(shared, source)
    assert shared.flags.c_contiguous and shared.dtype == source.dtype
    assert sm.is_shared(shared) and sm.is_shared(shared[1:]) and sm.is_shared(shared.T)
    assert not sm.is_shared(source) and not sm.is_shared(shared.copy())
    assert sm.is_shared(sm.to_shared(np.zeros((0, 3))))  # empty arrays too


def test_describe_and_rebuild_map_the_same_memory():
    shared = sm.to_shared(np.zeros((4, 5), dtype=np.float32))
    view = shared[1:3, 1:]
    fd, nbytes, offset, shape, strides, dtype = sm.describe(view)
    other = sm.rebuild(os.dup(fd), nbytes, offset, shape, strides, dtype)
    other[0, 0] = 7.0
    assert shared[1, 1] == 7.0 and other.shape == (2, 4)


def test_forked_child_writes_are_seen():
    shared = sm.to_shared(np.zeros(3))
    pid = os.fork()
    if pid == 0:
        shared += 5
        os._exit(0)
    os.waitpid(pid, 0)
    assert shared.tolist() == [5.0, 5.0, 5.0]


def test_nothing_named_in_dev_shm():
    before = set(os.listdir("/dev/shm"))
    arrays = [sm.to_shared(np.ones(1000)) for _ in range(3)]
    assert set(os.listdir("/dev/shm")) - before == set() and len(arrays) == 3
