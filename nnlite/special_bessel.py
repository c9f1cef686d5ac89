"""Bessel and Airy functions on numpy arrays, to float64 precision, from their mathematics.

- ``J0``, ``J1``: the power series near 0; up to ``|x| = 25`` Bessel's integral
  ``J_n(x) = (1/2pi) int_0^2pi exp(i(n t - x sin t)) dt`` by the trapezoidal rule, which for this
  periodic integrand is exact up to aliasing terms ``J_{n+N}``; beyond, Hankel's asymptotic
  expansion (Abramowitz & Stegun 9.2.5-9.2.10).
- ``Y0``, ``Y1``: Neumann's series in the ``J_{2k}`` (A&S 9.1.88 and its derivative; one FFT of the
  same rule gives every order at once) up to 25, Hankel's expansion beyond.
- ``K0``, ``K1`` (and ``exp(x) K``): the series A&S 9.6.13 and 9.6.11 up to ``x = 2``; beyond,
  ``K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt`` (A&S 9.6.24) by the trapezoidal rule, which
  converges geometrically for this integrand, analytic in a strip and decaying doubly exponentially.
- ``Ai``: for ``x >= 1``, ``Ai(x) = sqrt(x / 3) K_{1/3}(2/3 x^{3/2}) / pi`` (A&S 10.4.14) through the
  same integral; on ``[-9, 1)`` the Taylor series of ``Ai'' = x Ai`` around nodes 0.5 apart (their
  values found by stepping the same series from ``Ai(0)``, ``Ai'(0)``); below ``-9`` the asymptotic
  expansion A&S 10.4.60.

Every function takes and returns float64 arrays; the callers in ``special.py`` handle dtypes.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

_EULER = 0.57721566490153286061
_FFT_POINTS = 128  # aliasing error J_{128 - n}(25) for the orders n < 64 used: below 1e-19
_FFT_ORDERS = 64  # J_n(25) for n > 64 is below 1e-19
_HANKEL_FROM = 25.0
_HANKEL_TERMS = 30


def _series_j(order: int, x: np.ndarray) -> np.ndarray:
    """``sum_k (-1)^k (x/2)^(2k+n) / (k! (k+n)!)`` for ``|x| <= 2`` (25 terms: below 1e-40)."""
    half = x / 2
    quarter = -(half * half)
    term = half**order / math.factorial(order)
    total = term.copy()
    for k in range(1, 25):
        term = term * quarter / (k * (k + order))
        total = total + term
    series_j: np.ndarray = total
    return series_j


def _all_orders_j(x: np.ndarray) -> np.ndarray:
    """``J_0 .. J_{63}`` at each ``x`` (shape ``x.shape + (64,)``), for ``|x| <= 25``."""
    t = 2 * np.pi * np.arange(_FFT_POINTS) / _FFT_POINTS
    out = np.empty(x.shape + (_FFT_ORDERS,))
    flat, result = x.reshape(-1), out.reshape(-1, _FFT_ORDERS)
    for start in range(0, flat.size, 4096):  # bounded memory for big inputs
        chunk = flat[start : start + 4096, None]
        phase = chunk * np.sin(t)
        values = np.fft.ifft(np.cos(phase) - 1j * np.sin(phase), axis=-1)
        result[start : start + 4096] = values.real[:, :_FFT_ORDERS]
    return out


@cache
def _hankel_coefficients(order: int) -> np.ndarray:
    """``a_k(nu) = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k)`` of A&S 9.2.9."""
    mu = 4.0 * order * order
    a = [1.0]
    for k in range(1, _HANKEL_TERMS):
        a.append(a[-1] * (mu - (2 * k - 1) ** 2) / (k * 8.0))
    return np.array(a)


def _hankel(order: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(J_n(x), Y_n(x))`` for large positive ``x`` from ``P`` and ``Q`` (A&S 9.2.5-9.2.6)."""
    a = _hankel_coefficients(order)
    inverse = 1.0 / x
    p, q, power = np.zeros_like(x), np.zeros_like(x), np.ones_like(x)
    for k in range(_HANKEL_TERMS):
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2 == 0:
            p = p + sign * a[k] * power
        else:
            q = q + sign * a[k] * power
        power = power * inverse
    s, c = np.sin(x), np.cos(x)
    # chi = x - pi/4 - n pi/2, expanded so that sin and cos see x itself (exact range reduction)
    if order == 0:
        cos_chi, sin_chi = (c + s) / math.sqrt(2), (s - c) / math.sqrt(2)
    else:
        cos_chi, sin_chi = (s - c) / math.sqrt(2), -(c + s) / math.sqrt(2)
    scale = np.sqrt(2.0 / (np.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks of the finite ``|x|`` in the series, integral and asymptotic ranges."""
    ax = np.abs(x)
    small = ax <= 2
    large = np.isfinite(ax) & (ax > _HANKEL_FROM)
    middle = ~small & ~large & np.isfinite(ax)
    return small, middle, large


def _trapezoid_j(order: int, x: np.ndarray) -> np.ndarray:
    """``J_0`` or ``J_1`` for ``|x| <= 25`` by the 64-point rule on Bessel's integral, in real
    arithmetic: ``mean(cos(x sin t))`` and ``mean(sin(x sin t) sin t)`` (aliasing ``J_64(25)``:
    below 1e-18)."""
    t = 2 * np.pi * np.arange(64) / 64
    sine = np.sin(t)
    out = np.empty(x.shape)
    flat, result = x.reshape(-1), out.reshape(-1)
    for start in range(0, flat.size, 8192):
        phase = flat[start : start + 8192, None] * sine
        values = np.cos(phase) if order == 0 else np.sin(phase) * sine
        result[start : start + 8192] = values.mean(-1)
    return out


def bessel_j(order: int, x: np.ndarray) -> np.ndarray:
    """``J_0`` or ``J_1`` (``J_1`` is odd, ``J_0`` even; ``nan`` at infinities, as PyTorch)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    small, middle, large = _split(x)
    out[small] = _series_j(order, x[small])
    out[middle] = _trapezoid_j(order, np.abs(x[middle])) * np.sign(x[middle]) ** order
    out[large] = _hankel(order, np.abs(x[large]))[0] * np.sign(x[large]) ** order
    return out


def bessel_y(order: int, x: np.ndarray) -> np.ndarray:
    """``Y_0`` or ``Y_1``: ``-inf`` at 0, ``nan`` below 0 and at infinities (PyTorch's values)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    positive = np.isfinite(x) & (x > 0)
    near = positive & (x <= _HANKEL_FROM)
    far = positive & (x > _HANKEL_FROM)
    out[x == 0] = -np.inf
    out[far] = _hankel(order, x[far])[1]
    v = x[near]
    j = _all_orders_j(v)
    small = v <= 2
    j[small, 0] = _series_j(0, v[small])
    j[small, 1] = _series_j(1, v[small])
    log_term = np.log(v) - math.log(2) + _EULER  # v / 2 would underflow for subnormal v
    k = np.arange(1, _FFT_ORDERS // 2)
    signs = (-1.0) ** k
    if order == 0:
        neumann = (signs * j[..., 2 * k] / k).sum(-1)
        out[near] = (2 / np.pi) * log_term * j[..., 0] - (4 / np.pi) * neumann
    else:
        # -d/dx of the Y0 series, with J_{2k}' = (J_{2k-1} - J_{2k+1}) / 2
        neumann = (signs * (j[..., 2 * k - 1] - j[..., 2 * k + 1]) / k).sum(-1)
        with np.errstate(over="ignore"):
            leading = j[..., 0] / v  # inf for subnormal v: Y1 is -inf there
        out[near] = np.where(
            np.isinf(leading),
            -np.inf,
            -(2 / np.pi) * (leading - log_term * j[..., 1]) + (2 / np.pi) * neumann,
        )
    return out


def _series_k(order: int, x: np.ndarray) -> np.ndarray:
    """``K_0`` (A&S 9.6.13) or ``K_1`` (A&S 9.6.11) for ``0 < x <= 2`` (30 terms)."""
    quarter = x * x / 4
    log_term = np.log(x) - math.log(2)
    term = np.ones_like(x)
    harmonic = 0.0  # H_k
    if order == 0:
        i0 = np.ones_like(x)
        rest = np.zeros_like(x)
        for k in range(1, 30):
            term = term * quarter / (k * k)
            harmonic += 1.0 / k
            i0 = i0 + term
            rest = rest + term * harmonic
        series_k: np.ndarray = -(log_term + _EULER) * i0 + rest
        return series_k
    # K1 = 1/x + ln(x/2) I1 - (x/4) sum [psi(k+1) + psi(k+2)] (x^2/4)^k / (k! (k+1)!)
    i1 = np.zeros_like(x)
    rest = np.zeros_like(x)
    for k in range(30):
        if k:
            term = term * quarter / (k * (k + 1))
            harmonic += 1.0 / k
        psi_sum = 2 * (harmonic - _EULER) + 1.0 / (k + 1)
        i1 = i1 + term
        rest = rest + term * psi_sum
    with np.errstate(over="ignore"):
        leading = 1 / x  # inf for subnormal x, where K1 is inf
    return np.where(np.isinf(leading), np.inf, leading + log_term * (x / 2) * i1 - (x / 4) * rest)


def _scaled_k_integral(nu: float, x: np.ndarray) -> np.ndarray:
    """``exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt`` for ``x >= 1/2``.

    The step shrinks as ``1/sqrt(x)``, the width of the integrand, so that 64 points always reach
    where it is below 1e-20 and the discretisation error stays below ``exp(-79)``.
    """
    out = np.empty(x.shape)
    flat, result = x.reshape(-1), out.reshape(-1)
    for start in range(0, flat.size, 8192):  # bounded memory for big inputs
        chunk = flat[start : start + 8192, None]
        step = np.minimum(0.1, 0.5 / np.sqrt(chunk))
        t = np.arange(64) * step
        values = np.exp(-chunk * 2 * np.sinh(t / 2) ** 2) * np.cosh(nu * t)
        result[start : start + 8192] = step[:, 0] * (values.sum(-1) - values[:, 0] / 2)
    return out


def modified_bessel_k(order: int, x: np.ndarray, scaled: bool) -> np.ndarray:
    """``K_0`` / ``K_1``, or ``exp(x) K`` when ``scaled``: ``inf`` at 0, ``nan`` below 0 and at
    ``nan``/``-inf``, 0 at ``+inf`` (PyTorch's values)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    out[x == 0] = np.inf
    out[x == np.inf] = 0.0
    small = (x > 0) & (x <= 2)
    big = (x > 2) & np.isfinite(x)
    v = x[small]
    out[small] = _series_k(order, v) * (np.exp(v) if scaled else 1.0)
    w = x[big]
    integral = _scaled_k_integral(float(order), w)
    out[big] = integral if scaled else integral * np.exp(-w)
    return out


# ----------------------------------------------------------------------------------------- Airy
_AIRY_STEP = 0.5
_AIRY_LOW = -9.0
_AIRY_HIGH = 1.0
_AIRY_UNDERFLOW = 110.0  # Ai(110) = 1e-336: below the smallest float64
_TAYLOR_TERMS = 40


def _airy_taylor(
    x0: np.ndarray, y0: np.ndarray, d0: np.ndarray, s: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(y(x0 + s), y'(x0 + s))`` for ``y'' = x y``: the Taylor series whose coefficients follow
    ``(k + 2)(k + 1) c_{k+2} = x0 c_k + c_{k-1}``."""
    c_prev, c, c_next = np.zeros_like(x0), y0, d0  # c_{k-1}, c_k, c_{k+1} for k = 0
    value = y0 + d0 * s
    slope = d0.copy()
    power = s.copy()  # s^(k+1)
    for k in range(_TAYLOR_TERMS):
        c_new = (x0 * c + c_prev) / ((k + 2) * (k + 1))  # c_{k+2}
        slope = slope + (k + 2) * c_new * power
        power = power * s
        value = value + c_new * power
        c_prev, c, c_next = c, c_next, c_new
    return value, slope


@cache
def _airy_nodes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Ai`` and ``Ai'`` at ``-9, -8.5, ..., 1``, stepped out from 0."""
    ai0 = 1 / (3 ** (2 / 3) * math.gamma(2 / 3))
    slope0 = -1 / (3 ** (1 / 3) * math.gamma(1 / 3))
    nodes = np.arange(_AIRY_LOW, _AIRY_HIGH + _AIRY_STEP / 2, _AIRY_STEP)
    values, slopes = np.zeros_like(nodes), np.zeros_like(nodes)
    zero = int(np.argmin(np.abs(nodes)))
    values[zero], slopes[zero] = ai0, slope0
    for direction in (1, -1):
        i = zero
        while 0 <= i + direction < nodes.size:
            step = np.array([direction * _AIRY_STEP])
            v, d = _airy_taylor(nodes[i : i + 1], values[i : i + 1], slopes[i : i + 1], step)
            values[i + direction], slopes[i + direction] = v[0], d[0]
            i += direction
    return nodes, values, slopes


def _airy_negative_asymptotic(z: np.ndarray) -> np.ndarray:
    """``Ai(-z)`` for ``z >= 9`` (A&S 10.4.60 with the ``u_k`` of 10.4.58)."""
    zeta = 2.0 / 3.0 * z * np.sqrt(z)
    u = [1.0]
    for k in range(1, 24):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    even, odd = np.zeros_like(z), np.zeros_like(z)
    inverse = 1 / zeta
    power = np.ones_like(z)
    for k, uk in enumerate(u):
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2 == 0:
            even = even + sign * uk * power
        else:
            odd = odd + sign * uk * power
        power = power * inverse
    phase = zeta + np.pi / 4
    airy_negative_asymptotic: np.ndarray = (np.sin(phase) * even - np.cos(phase) * odd) / (
        np.sqrt(np.pi) * z**0.25
    )
    return airy_negative_asymptotic


def airy_ai(x: np.ndarray) -> np.ndarray:
    """``Ai(x)``; ``nan`` at the infinities and ``nan``, as PyTorch."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, np.nan)
    finite = np.isfinite(x)
    far_left = finite & (x < _AIRY_LOW)
    right = finite & (x >= _AIRY_HIGH) & (x < _AIRY_UNDERFLOW)
    middle = finite & ~far_left & ~right & (x < _AIRY_HIGH)
    out[finite & (x >= _AIRY_UNDERFLOW)] = 0.0
    out[far_left] = _airy_negative_asymptotic(-x[far_left])
    v = x[right]
    zeta = 2.0 / 3.0 * v * np.sqrt(v)
    with np.errstate(under="ignore"):
        out[right] = np.sqrt(v / 3) / np.pi * _scaled_k_integral(1 / 3, zeta) * np.exp(-zeta)
    nodes, values, slopes = _airy_nodes()
    m = x[middle]
    index = np.clip(np.rint((m - _AIRY_LOW) / _AIRY_STEP).astype(np.int64), 0, nodes.size - 1)
    out[middle] = _airy_taylor(nodes[index], values[index], slopes[index], m - nodes[index])[0]
    return out
