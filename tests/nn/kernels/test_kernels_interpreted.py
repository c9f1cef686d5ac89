"""The numba kernels run as plain Python (``NUMBA_DISABLE_JIT=1``), checked against references.

The other kernel tests run the compiled kernels, whose loops are machine code: a wrong index in a
path they do not reach stays hidden, and coverage cannot see inside them. Here one subprocess
imports ``nnlite.nn.kernels`` with numba's JIT disabled, runs every kernel path on tiny shapes
(``prange`` is ``range`` then) and saves what each returned; each test then checks one case
against a reference computed here: numpy loops over the kernel taps for convolution and batch
norm, PyTorch for pooling (its window rules are the contract).

The 512-bit vector intrinsics of ``_simd`` have no pure-Python form, so the subprocess replaces
them in ``_conv_lanes`` with numpy operations that do what their docstrings say; the compiled
intrinsics themselves are checked by ``test_conv_kernels.py``. Options of a case (``patch``) also
shrink buffer sizes and force thread splits, so chunk loops and parallel drivers run on tiny
shapes.

Run as a script (``python test_kernels_interpreted.py OUT.npz``) this file is that subprocess.
"""

import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]

# One worker runs the whole module, so the interpreted subprocess runs once.
pytestmark = pytest.mark.xdist_group("kernels_interpreted")

# ---------------------------------------------------------------------------------------------
# Cases: (name, spec). Convolution specs: N, C, Co, H, W, kernel, stride, padding, dilation,
# groups, dtype; "entry" is "conv" (the public kernels, which choose a kernel by shape), "gemm"
# (conv_gemm, im2col only) or "tap_sum" (conv_tap_sum); "patch" lists the options above.
# ---------------------------------------------------------------------------------------------


def _conv(
    N, C, Co, H, W, k, s=1, p=0, d=1, g=1, dtype="float64", entry="conv", patch=(), bias=True
):
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731  (local shorthand)
    return {
        "kind": "conv",
        "N": N,
        "C": C,
        "Co": Co,
        "H": H,
        "W": W,
        "kernel": pair(k),
        "stride": pair(s),
        "padding": pair(p),
        "dilation": pair(d),
        "groups": g,
        "dtype": dtype,
        "entry": entry,
        "patch": list(patch),
        "bias": bias,
    }


CONV_CASES = {
    # NCHW im2col ("planes"): grouped convolutions, full-width (stride 1) and strided layouts.
    "planes_full_padded": _conv(3, 4, 6, 6, 7, 3, p=1, g=2),
    "planes_full_unpadded": _conv(2, 4, 4, 6, 7, 3, g=2, bias=False),
    "planes_strided_rows": _conv(2, 4, 6, 7, 8, 3, s=(2, 1), p=(1, 2), d=(1, 2), g=2),
    "planes_strided": _conv(2, 4, 2, 9, 10, (3, 2), s=(2, 3), p=1, g=2),
    "planes_chunked": _conv(3, 4, 6, 6, 5, 3, p=1, g=2, patch=["conv_chunk"]),
    "planes_strided_chunked": _conv(3, 2, 4, 7, 7, 3, s=2, p=1, g=2, patch=["conv_chunk"]),
    "planes_float32": _conv(2, 3, 4, 5, 5, 2, s=2, g=1, dtype="float32"),
    "planes_empty_batch": _conv(0, 4, 4, 5, 5, 3, g=2),
    # The lanes kernel: images in vector lanes (8 float64 a vector; 9 images = a full block and
    # one image), tiles of 4, 2 and 1 output columns, kernels 4 and 1 taps wide in the weight
    # gradient, padded and not, one and two threads.
    "lanes_padded": _conv(9, 5, 5, 7, 7, (3, 5), p=(1, 2)),
    "lanes_unpadded": _conv(9, 2, 3, 6, 8, 2),
    "lanes_threads": _conv(17, 2, 3, 5, 6, (2, 3), p=(0, 1), patch=["threads"]),
    "lanes_dilated": _conv(8, 3, 2, 7, 7, 2, p=1, d=2, bias=False),
    # The stem kernel: strided, few channels, one group (its input gradient is the planes one).
    "stem": _conv(2, 3, 4, 7, 7, 3, s=2, p=1),
    "stem_blocks": _conv(3, 2, 3, 8, 6, (3, 2), s=(2, 3), p=(1, 0), patch=["stem_block"]),
    # Channels-last im2col, then one GEMM: wide layers.
    "gemm_tap_major": _conv(2, 16, 8, 5, 5, 3, p=1, entry="gemm"),
    "gemm_weight_order": _conv(1, 16, 8, 2, 2, 3, p=1, entry="gemm"),
    "gemm_dilated": _conv(2, 16, 4, 5, 6, 3, p=2, d=2, entry="gemm"),
    "gemm_per_image": _conv(1, 16, 4, 8, 8, 3, p=1, entry="gemm", bias=False),
    "gemm_strided": _conv(2, 16, 8, 7, 7, 3, s=2, p=1, entry="gemm"),
    "gemm_thin": _conv(2, 16, 4, 5, 5, 3, p=1, entry="gemm"),
    "gemm_chunked": _conv(3, 16, 8, 4, 4, 3, p=1, entry="gemm", patch=["gemm_chunk", "threads"]),
    "gemm_pointwise": _conv(2, 16, 8, 4, 4, 1, entry="gemm"),
    "gemm_pointwise_planar": _conv(2, 16, 8, 8, 8, 1, entry="gemm"),
    "gemm_pointwise_strided": _conv(2, 16, 8, 5, 5, 1, s=2, entry="gemm"),
    "channels_last_selected": _conv(2, 16, 4, 6, 6, 3, p=1),
    # The tap sum: one GEMM over every tap, then a shifted sum; strided inputs split in phases.
    "tap_sum": _conv(2, 16, 4, 5, 5, 3, p=1, entry="tap_sum"),
    "tap_sum_strided": _conv(2, 16, 4, 7, 8, 3, s=2, p=1, entry="tap_sum"),
    "tap_sum_dilated": _conv(1, 16, 2, 6, 6, (3, 2), s=(1, 2), p=(2, 0), d=2, entry="tap_sum"),
    "tap_sum_per_image": _conv(1, 16, 2, 8, 8, 3, p=1, entry="tap_sum"),
    "tap_sum_per_image_strided": _conv(1, 16, 2, 16, 16, 3, s=2, p=1, entry="tap_sum"),
    "tap_sum_skipped_phase": _conv(2, 16, 3, 5, 5, 1, s=2, entry="tap_sum"),
    "tap_sum_chunked": _conv(3, 16, 2, 4, 4, 3, p=1, entry="tap_sum", patch=["tap_chunk"]),
}

# (N, C, H, W, dtype, relu, batch_stats, need_input, with_weight)
BATCH_NORM_CASES = {
    "train_float64": (2, 3, 4, 5, "float64", False, True, True, True),
    "train_relu_float32": (3, 2, 3, 3, "float32", True, True, True, True),
    "eval_no_input_grad": (2, 4, 2, 3, "float64", False, False, False, True),
    "eval_no_weight": (2, 3, 3, 2, "float32", True, False, True, False),
    "threads": (2, 3, 4, 5, "float64", False, True, True, True, "threads"),
}

# (N, C, H, W, kernel, stride, padding, dilation, ceil_mode, dtype, patch); max pooling
POOL_MAX_CASES = {
    "2x2": (2, 3, 6, 7, 2, 2, 0, 1, False, "float32", ()),
    "overlapping_ceil": (2, 2, 7, 6, 3, 2, 1, 1, True, "float64", ()),
    "dilated": (1, 2, 9, 8, (3, 2), (2, 1), (1, 0), 2, False, "float64", ()),
    "threads": (2, 2, 6, 6, 2, 2, 0, 1, False, "float64", ("threads",)),
}

# (N, C, H, W, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, dtype,
#  patch); average pooling
POOL_AVG_CASES = {
    "2x2": (2, 3, 6, 8, 2, 2, 0, False, True, None, "float32", ()),
    "2x2_odd_override": (2, 2, 7, 5, 2, 2, 0, False, True, 3, "float64", ()),
    "padded_include": (2, 2, 7, 6, 3, 2, 1, True, True, None, "float64", ()),
    "padded_exclude": (1, 3, 7, 6, (3, 2), (2, 1), 1, True, False, None, "float64", ()),
    "override": (1, 2, 5, 5, 3, 2, 1, False, False, 2, "float32", ()),
    "threads": (2, 2, 5, 6, 3, 1, 1, False, True, None, "float64", ("threads",)),
}


def _rng(name):
    return np.random.default_rng(sum(map(ord, name)))


# ---------------------------------------------------------------------------------------------
# The subprocess side: numba's JIT is off before anything imports numba.
# ---------------------------------------------------------------------------------------------


def _lane_ops(lanes_module):
    """numpy stand-ins for the vector intrinsics ``_conv_lanes`` uses (one vector: 64 bytes)."""

    def lanes(arr):
        return 64 // arr.itemsize

    def vload(arr, i):
        return arr[i : i + lanes(arr)].copy()

    def vstore(arr, i, v):
        arr[i : i + len(v)] = v

    def vtranspose(src, s0, ss, dst, d0, ds):
        n = lanes(src)
        for r in range(n):
            for k in range(n):
                dst[d0 + r * ds + k] = src[s0 + k * ss + r]

    ops = {
        "vload": vload,
        "sload": lambda arr, i: arr[i],
        "vstore": vstore,
        "vsplat": lambda arr, s: np.full(lanes(arr), s, arr.dtype),
        "vzero": lambda arr: np.zeros(lanes(arr), arr.dtype),
        "vfma": lambda acc, v, s: acc + v * s,
        "vfmav": lambda acc, a, b: acc + a * b,
        "vadd": lambda a, b: a + b,
        "vtranspose": vtranspose,
    }
    for name, fn in ops.items():
        setattr(lanes_module, name, fn)


class _Patched:
    """Module attributes set for one case and restored after it."""

    def __init__(self):
        self.saved = []

    def set(self, module, name, value):
        self.saved.append((module, name, getattr(module, name)))
        setattr(module, name, value)

    def restore(self):
        for module, name, value in reversed(self.saved):
            setattr(module, name, value)


def _apply(patches, p):
    from nnlite.nn import kernels
    from nnlite.nn.kernels import (
        _channels_last,
        _dispatch,
        batch_norm,
        conv,
        conv_gemm,
        conv_stem,
        conv_tap_sum,
    )

    for name in patches:
        if name == "threads":  # the parallel builds and drivers, on two threads
            p.set(_dispatch, "MIN_PARALLEL_ELEMENTS", 0)
            p.set(_dispatch, "get_num_threads", lambda: 2)
            p.set(_dispatch, "sync_numba_threads", lambda: 2)
            for module in (conv, _channels_last, batch_norm):
                p.set(module, "parallel_parts", lambda size: 2)
        elif name == "conv_chunk":  # one image per chunk of column buffer
            p.set(conv, "_CHUNK_BYTES", 1)
        elif name == "stem_block":
            p.set(conv_stem, "_BLOCK_BYTES", 1)
        elif name == "gemm_chunk":
            p.set(conv_gemm, "_CHUNK_BYTES", 1)
        elif name == "tap_chunk":
            p.set(conv_tap_sum, "_CHUNK_BYTES", 1)
        else:
            raise ValueError(f"unknown patch {name!r}")
    return kernels


def _run_conv(spec, rng):
    from nnlite.nn.kernels import conv, conv_gemm, conv_tap_sum

    dt = np.dtype(spec["dtype"])
    N, C, Co, H, W, G = (spec[k] for k in ("N", "C", "Co", "H", "W", "groups"))
    kh, kw = spec["kernel"]
    geometry = (spec["stride"], spec["padding"], spec["dilation"])
    x = rng.standard_normal((N, C, H, W)).astype(dt)
    w = rng.standard_normal((Co, C // G, kh, kw)).astype(dt)
    b = rng.standard_normal(Co).astype(dt) if spec["bias"] else None
    Ho, Wo = conv.conv2d_output_hw((H, W), (kh, kw), *geometry)
    gy = rng.standard_normal((N, Co, Ho, Wo)).astype(dt)
    if spec["entry"] == "conv":
        y = conv.conv2d_forward(x, w, b, *geometry, G)
        gx = conv.conv2d_backward_input(gy, w, (H, W), *geometry, G)
        gw = conv.conv2d_backward_weight(gy, x, (kh, kw), *geometry, G)
    else:
        module = conv_gemm if spec["entry"] == "gemm" else conv_tap_sum
        saved = conv_gemm._tap_sum
        conv_gemm._tap_sum = lambda s, op: False  # im2col, whatever the cost model prefers
        try:
            y = module.forward(x, w, b, *geometry)
            gx = module.backward_input(gy, w, (H, W), *geometry)
            gw = module.backward_weight(gy, x, (kh, kw), *geometry)
        finally:
            conv_gemm._tap_sum = saved
    out = {"x": x, "w": w, "gy": gy, "y": y, "gx": gx, "gw": gw}
    if b is not None:
        out["b"] = b
    return out


def _run_batch_norm(spec, rng):
    from nnlite.nn.kernels import batch_norm

    N, C, H, W, dtype, relu, batch_stats, need_input, with_weight = spec[:9]
    dt = np.dtype(dtype)
    x = (rng.standard_normal((N, C, H, W)) * 2 + 1).astype(dt)
    g = rng.standard_normal((N, C, H, W)).astype(dt)
    scale = rng.standard_normal(C).astype(dt)
    shift = rng.standard_normal(C).astype(dt)
    w = rng.standard_normal(C).astype(dt) if with_weight else None
    mean, var = batch_norm.channel_stats(x)
    if not batch_stats:  # running statistics: anything but the batch's
        mean, var = mean + 0.5, var * 2
    invstd = 1 / np.sqrt(var + 1e-5)
    y = batch_norm.normalize(x, scale, shift, relu)
    gx, gw, gb = batch_norm.backward(g, x, mean, invstd, w, batch_stats, need_input)
    out = {"x": x, "g": g, "scale": scale, "shift": shift, "mean": mean, "invstd": invstd}
    out.update({"y": y, "gw": gw, "gb": gb})
    if w is not None:
        out["w"] = w
    if gx is not None:
        out["gx"] = gx
    return out


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _run_max_pool(spec, rng):
    from nnlite.nn.kernels import pool

    N, C, H, W, k, s, p, d, ceil, dtype = spec[:10]
    x = rng.standard_normal((N, C, H, W)).astype(dtype)
    x[0, 0, 0, :2] = 7.0  # a tie: the first maximum wins
    if np.dtype(dtype) == np.float64:
        x[-1, -1, 1, 1] = np.nan  # NaN wins and propagates
    y, idx = pool.max_pool2d_forward(x, _pair(k), _pair(s), _pair(p), _pair(d), ceil)
    gy = rng.standard_normal(y.shape).astype(dtype)
    gx = pool.max_pool2d_backward(gy, idx, (H, W))
    return {"x": x, "y": y, "idx": idx, "gy": gy, "gx": gx}


def _run_avg_pool(spec, rng):
    from nnlite.nn.kernels import pool

    N, C, H, W, k, s, p, ceil, include_pad, override, dtype = spec[:11]
    x = rng.standard_normal((N, C, H, W)).astype(dtype)
    geometry = (_pair(k), _pair(s), _pair(p), ceil, include_pad, override)
    y = pool.avg_pool2d_forward(x, *geometry)
    gy = rng.standard_normal(y.shape).astype(dtype)
    gx = pool.avg_pool2d_backward(gy, (H, W), *geometry)
    return {"x": x, "y": y, "gy": gy, "gx": gx}


def _all_cases():
    """(group, name, spec, patches, runner) of every case."""
    for name, spec in CONV_CASES.items():
        yield "conv", name, spec, spec["patch"], _run_conv
    for name, spec in BATCH_NORM_CASES.items():
        yield "batch_norm", name, spec, spec[9:], _run_batch_norm
    for name, spec in POOL_MAX_CASES.items():
        yield "max_pool", name, spec, spec[10], _run_max_pool
    for name, spec in POOL_AVG_CASES.items():
        yield "avg_pool", name, spec, spec[11], _run_avg_pool


def run_interpreted(out_path):
    """Run every case with the JIT off; save its arrays as ``group/name/array`` in one npz, and
    each case's error (if it raised) in ``errors.json`` beside it."""
    from nnlite.nn.kernels import _conv_lanes

    _lane_ops(_conv_lanes)
    arrays, errors = {}, {}
    for group, name, spec, patches, runner in _all_cases():
        patched = _Patched()
        try:
            _apply(patches, patched)
            for key, value in runner(spec, _rng(name)).items():
                arrays[f"{group}/{name}/{key}"] = value
        except Exception:
            errors[f"{group}/{name}"] = traceback.format_exc()
        finally:
            patched.restore()
    np.savez(out_path, **arrays)
    Path(out_path).with_name("errors.json").write_text(json.dumps(errors))


# ---------------------------------------------------------------------------------------------
# The test side
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def interpreted(tmp_path_factory):
    """{group/name: {array: value}} from one interpreted run of every case (errors re-raised)."""
    out = tmp_path_factory.mktemp("interpreted") / "kernels.npz"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, __file__, str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    errors = json.loads(out.with_name("errors.json").read_text())
    cases = {}
    with np.load(out) as data:
        for key in data.files:
            group, name, array = key.split("/")
            cases.setdefault(f"{group}/{name}", {})[array] = data[key]
    return cases, errors


def _case(interpreted, key):
    cases, errors = interpreted
    if key in errors:
        pytest.fail(f"{key} raised under NUMBA_DISABLE_JIT=1:\n{errors[key]}")
    return cases[key]


def test_the_jit_was_off_in_the_subprocess(tmp_path):
    """The premise: with NUMBA_DISABLE_JIT=1 the kernels are the plain Python functions."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    code = (
        "import types\nfrom nnlite.nn.kernels import conv, pool\n"
        "print(isinstance(conv._im2col_full, types.FunctionType), "
        "isinstance(pool._max_fwd.serial, types.FunctionType))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]


# --- references ------------------------------------------------------------------------------


def _windows(xp, i, j, spec, Ho, Wo):
    """The (N, C, Ho, Wo) input values tap (i, j) reads, from the padded input xp."""
    (sh, sw), (dh, dw) = spec["stride"], spec["dilation"]
    return xp[
        :, :, i * dh : i * dh + sh * (Ho - 1) + 1 : sh, j * dw : j * dw + sw * (Wo - 1) + 1 : sw
    ]


def _reference_conv(case, spec):
    """y, gx, gw of a grouped 2-D convolution, tap by tap with einsum (float64)."""
    x, w, gy = (case[k].astype(np.float64) for k in ("x", "w", "gy"))
    G, (ph, pw) = spec["groups"], spec["padding"]
    N, C, H, W = x.shape
    Co, Cg, kh, kw = w.shape
    Og = Co // G
    Ho, Wo = gy.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    y = np.zeros((N, Co, Ho, Wo))
    gxp = np.zeros_like(xp)
    gw = np.zeros_like(w)
    for g in range(G):
        o, c = slice(g * Og, (g + 1) * Og), slice(g * Cg, (g + 1) * Cg)
        for i in range(kh):
            for j in range(kw):
                win = _windows(xp[:, c], i, j, spec, Ho, Wo)
                y[:, o] += np.einsum("nchw,oc->nohw", win, w[o, :, i, j])
                gw[o, :, i, j] = np.einsum("nohw,nchw->oc", gy[:, o], win)
                _windows(gxp[:, c], i, j, spec, Ho, Wo)[...] += np.einsum(
                    "nohw,oc->nchw", gy[:, o], w[o, :, i, j]
                )
    if "b" in case:
        y += case["b"][None, :, None, None]
    return y, gxp[:, :, ph : ph + H, pw : pw + W], gw


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv_kernels_interpreted(interpreted, name):
    spec = CONV_CASES[name]
    case = _case(interpreted, f"conv/{name}")
    y, gx, gw = _reference_conv(case, spec)
    tol = {"float32": 1e-4, "float64": 1e-10}[spec["dtype"]]
    for key, expected in (("y", y), ("gx", gx), ("gw", gw)):
        assert case[key].dtype == np.dtype(spec["dtype"]), key
        assert case[key].shape == expected.shape, key
        np.testing.assert_allclose(case[key], expected, rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize("name", list(BATCH_NORM_CASES))
def test_batch_norm_kernels_interpreted(interpreted, name):
    relu, batch_stats, need_input = BATCH_NORM_CASES[name][5:8]
    case = _case(interpreted, f"batch_norm/{name}")
    x, g = case["x"].astype(np.float64), case["g"].astype(np.float64)
    tol = 1e-4 if case["x"].dtype == np.float32 else 1e-10
    axes = (0, 2, 3)
    if batch_stats:  # channel_stats gave these: check them against numpy
        np.testing.assert_allclose(case["mean"], x.mean(axis=axes), rtol=tol, atol=tol)
        var = x.var(axis=axes)
        np.testing.assert_allclose(1 / case["invstd"] ** 2 - 1e-5, var, rtol=tol, atol=tol)
    per_channel = lambda v: v.astype(np.float64)[None, :, None, None]  # noqa: E731
    y = x * per_channel(case["scale"]) + per_channel(case["shift"])
    np.testing.assert_allclose(case["y"], np.maximum(y, 0) if relu else y, rtol=tol, atol=tol)
    xhat = (x - per_channel(case["mean"])) * per_channel(case["invstd"])
    np.testing.assert_allclose(case["gw"], (g * xhat).sum(axis=axes), rtol=tol, atol=tol)
    np.testing.assert_allclose(case["gb"], g.sum(axis=axes), rtol=tol, atol=tol)
    if not need_input:
        assert "gx" not in case
        return
    w = per_channel(case["w"]) if "w" in case else 1.0
    if batch_stats:  # the mean and variance depend on x too
        gx = g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True)
    else:
        gx = g
    np.testing.assert_allclose(case["gx"], w * per_channel(case["invstd"]) * gx, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", list(POOL_MAX_CASES))
def test_max_pool_kernels_interpreted(interpreted, name):
    torch = pytest.importorskip("torch")
    _, _, H, W, k, s, p, d, ceil = POOL_MAX_CASES[name][:9]
    case = _case(interpreted, f"max_pool/{name}")
    x = torch.tensor(case["x"], requires_grad=True)
    y, idx = torch.nn.functional.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    y.backward(torch.tensor(case["gy"]))
    np.testing.assert_array_equal(case["y"], y.detach().numpy())
    np.testing.assert_array_equal(case["idx"], idx.numpy())
    np.testing.assert_allclose(case["gx"], x.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", list(POOL_AVG_CASES))
def test_avg_pool_kernels_interpreted(interpreted, name):
    torch = pytest.importorskip("torch")
    _, _, H, W, k, s, p, ceil, include_pad, override = POOL_AVG_CASES[name][:10]
    case = _case(interpreted, f"avg_pool/{name}")
    x = torch.tensor(case["x"], requires_grad=True)
    y = torch.nn.functional.avg_pool2d(x, k, s, p, ceil, include_pad, override)
    y.backward(torch.tensor(case["gy"]))
    tol = 1e-5 if case["x"].dtype == np.float32 else 1e-12
    np.testing.assert_allclose(case["y"], y.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(case["gx"], x.grad.numpy(), rtol=tol, atol=tol)


if __name__ == "__main__":
    assert os.environ.get("NUMBA_DISABLE_JIT") == "1", "run with NUMBA_DISABLE_JIT=1"
    run_interpreted(sys.argv[1])
