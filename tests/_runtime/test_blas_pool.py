"""Products split into blocks on numba's pool (one-thread BLAS calls) equal numpy's, for every
operand layout BLAS takes directly; other layouts are left to the caller."""

import numpy as np
import pytest

from nnlite._runtime import blas_pool, threads_matmul


def _layouts(array):
    """The array as C order, as the transpose of an F-order copy, and as a strided view."""
    wide = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    wide[..., ::2] = array
    return {
        "c": np.ascontiguousarray(array),
        "f": array.swapaxes(-1, -2).copy().swapaxes(-1, -2),
        "strided": wide[..., ::2],
    }


@pytest.fixture
def three_blocks(monkeypatch):
    monkeypatch.setattr(threads_matmul, "MIN_MACS_PER_PART", 1)
    monkeypatch.setattr(threads_matmul, "get_num_threads", lambda: 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout_a", ["c", "f", "strided"])
@pytest.mark.parametrize("layout_b", ["c", "f", "strided"])
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((40, 7), (7, 9)),
        ((9, 7), (7, 40)),
        ((6, 5, 7), (6, 7, 3)),
        ((5, 7), (6, 7, 3)),
        ((2, 30, 7), (7, 3)),
    ],
)
def test_blocks_on_the_pool_equal_numpy(three_blocks, dtype, layout_a, layout_b, a_shape, b_shape):
    rng = np.random.default_rng(0)
    a = _layouts(rng.standard_normal(a_shape).astype(dtype))[layout_a]
    b = _layouts(rng.standard_normal(b_shape).astype(dtype))[layout_b]
    expected = np.matmul(a, b)
    out = np.full_like(expected, np.nan)
    if not blas_pool.pool_spins_briefly():
        pytest.skip(
            "numba's pool is not OpenMP loaded by nnlite (another layer, or the user's spin)"
        )
    blas_pool._searched[0] or blas_pool._find_kernels()
    if not blas_pool._kernels:
        pytest.skip("numpy's BLAS is not OpenBLAS with CBLAS entry points")
    parts = threads_matmul.matmul_parts(
        max(a.shape[0] if a.ndim == 3 else 1, b.shape[0] if b.ndim == 3 else 1),
        *expected.shape[-2:],
        a.shape[-1],
        3,
    )
    blocks = threads_matmul._blocks(a, b, out, parts)
    done = blas_pool.blocks_on_pool(a, b, out, blocks)
    assert done == ("strided" not in (layout_a, layout_b))
    if done:
        tolerance = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(out, expected, rtol=tolerance, atol=tolerance)
    else:
        assert np.isnan(out).all()  # nothing written: the caller takes over
    # through threads_matmul.matmul, whichever path it takes
    np.testing.assert_allclose(
        threads_matmul.matmul(a, b), expected, rtol=1e-5 if dtype == np.float32 else 1e-12
    )


def test_mixed_dtypes_are_left_to_the_caller(three_blocks):
    a, b = np.ones((8, 4), np.float32), np.ones((4, 8), np.float64)
    out = np.zeros((8, 8), np.float64)
    assert not blas_pool.blocks_on_pool(a, b, out, threads_matmul._blocks(a, b, out, 2))
