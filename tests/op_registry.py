"""Where the op tables are, and what each public name is owed: the completeness test's registry.

Every gradient table (rows checked by ``gradcheck`` and ``gradgradcheck`` in float64) is listed in
``GRADIENT_TABLES``, as a file and the name of its table. A row is a tuple whose first item is its
id, or an object with an ``id``; its id names the public function it checks (``softmax_dim1``
checks ``softmax``: the longest public name that the id is or starts with, followed by ``_``),
or a row says so itself with a ``covers`` attribute (a tuple of names) when its id cannot. The row's
callable (``fn``/``nl_fn``, or the tuple's third item) is run on its inputs, and the built-in ops in
its graph count as covered. Only rows that are gradgradchecked too stand for their name (a
``second_order`` False tuple row or a ``gradgrad=False`` case reaches its ops, and no more).

A new op costs a row in one of these tables; a new table costs a line in ``GRADIENT_TABLES``. What
has no row says so here, in one of the marks below, each with its reason; a mark left on a name
that has since gained its row is an error too, so the marks only ever shrink.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from functools import cache
from pathlib import Path

import nnlite as nl
import nnlite.nn.functional as F

TESTS = Path(__file__).resolve().parent

#: (file under tests/, table name, how to read a row, namespace) of every gradient table. The
#: readers: "tuple" rows are ``(id, arrays, fn(*tensors), ...)``, "lib" rows are
#: ``(id, fn(lib, *tensors), arrays, ...)`` (the same code runs on nnlite and torch), "special" rows
#: are ``(id, fn(special, tensor), array, differentiable)`` and "case" rows are ``nn_cases.Case``
#: objects. A table of another namespace (``linalg``, ``special``) has its ids prefixed with it
#: (``linalg.det``): its rows reach their ops but do not stand for the ``nnlite`` name of that id.
GRADIENT_TABLES = [
    ("autograd/test_ops.py", "OPS", "tuple", ""),
    ("autograd/test_inplace_views.py", "ROWS", "tuple", ""),
    ("autograd/test_ops_surface.py", "DIFFERENTIABLE", "lib", ""),
    ("autograd/test_ops_surface.py", "GRADCHECK_ONLY", "lib", ""),
    ("autograd/test_ops_rows_extra.py", "ROWS", "lib", ""),
    ("autograd/test_ops_rows_extra.py", "GRADCHECK_ONLY", "lib", ""),
    ("nn/nn_cases.py", "CASES", "case", ""),
    ("nn/nn_surface_cases.py", "SURFACE_CASES", "case", ""),
    ("nn/nn_more_cases.py", "MORE_CASES", "case", ""),
    ("test_linalg_decompositions.py", "CASES", "lib", "linalg."),
    ("test_special.py", "CASES", "special", "special."),
    ("test_nn_function_forms.py", "ROWS", "lib", ""),
    ("test_nn_function_forms.py", "GRADCHECK_ONLY", "lib", ""),
    ("autograd/test_strided_views.py", "ROWS", "lib", ""),
    ("autograd/test_indexed_reductions.py", "ROWS", "lib", ""),
    ("distributions/test_distribution_ops.py", "OPS", "tuple", "distributions."),
    ("test_linalg_factorizations.py", "CASES", "lib", "linalg."),
    ("test_linalg_factorizations.py", "TORCH_FORMS", "lib", ""),
    ("test_special_functions.py", "CASES", "special", "special."),
    ("test_special_functions.py", "TENSOR_FORMS", "lib", ""),
]


def _load(relative):
    path = TESTS / relative
    name = "op_table_" + relative.replace("/", "_").removesuffix(".py")
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(path.parent))  # the tables import their neighbours (nn_cases)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


class Row:
    """One gradient row: its id, the public names it covers, a way to run it once, and whether its
    table gradgradchecks it too (only such rows count as a name's gradient row)."""

    def __init__(self, table, id, covers, run, second_order=True):
        self.table, self.id, self.covers, self.run = table, id, covers, run
        self.second_order = second_order


def _leaf(array):
    return nl.tensor(array, requires_grad=array.dtype.kind == "f")


def _tuple_row(table, prefix, row):
    name, arrays, fn = row[0], row[1], row[2]
    second_order = row[3] if len(row) > 3 else True
    return Row(table, prefix + name, None, lambda: fn(*[_leaf(a) for a in arrays]), second_order)


def _lib_row(table, prefix, row):
    name, fn, arrays = row[0], row[1], row[2]
    return Row(table, prefix + name, None, lambda: fn(nl, *[_leaf(a) for a in arrays]))


def _special_row(table, prefix, row):
    name, fn, array, differentiable = row
    if not differentiable:  # a values-only row: no gradient checked
        return None
    return Row(table, prefix + name, None, lambda: fn(nl.special, _leaf(array)))


def _case_row(table, prefix, case):
    def run():
        return case.nl_fn(*case.nl_inputs())

    return Row(table, prefix + case.id, getattr(case, "covers", None), run, case.gradgrad)


_READERS = {"tuple": _tuple_row, "lib": _lib_row, "special": _special_row, "case": _case_row}


@cache
def gradient_rows():
    rows = []
    for relative, table_name, kind, prefix in GRADIENT_TABLES:
        table = getattr(_load(relative), table_name)
        made = (_READERS[kind](relative, prefix, row) for row in table)
        rows.extend(row for row in made if row is not None)
    return rows


# ------------------------------------------------------------------------------------ the surfaces
def _is_routine(obj):
    return inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj)


@cache
def functional_names():
    return sorted(n for n in F.__all__ if _is_routine(getattr(F, n)))


@cache
def nnlite_names():
    """The functions of the ``nnlite`` namespace (classes, dtypes and modules aside)."""
    return sorted(n for n in dir(nl) if not n.startswith("_") and _is_routine(getattr(nl, n, None)))


@cache
def tensor_names():
    """The public methods of ``Tensor`` (properties aside)."""
    names = []
    for n in dir(nl.Tensor):
        if n.startswith("_"):
            continue
        attr = inspect.getattr_static(nl.Tensor, n)
        if isinstance(attr, property) or not callable(getattr(nl.Tensor, n)):
            continue
        names.append(n)
    return sorted(names)


def covered_by_id(row_id, names):
    """The public name a row id checks: the longest of ``names`` it is or starts with (+ ``_``)."""
    best = None
    for n in names:
        if (row_id == n or row_id.startswith(n + "_")) and (best is None or len(n) > len(best)):
            best = n
    return best


@cache
def gradient_coverage():
    """Public name -> ids of the rows that check its gradient."""
    every = set(functional_names()) | set(nnlite_names()) | set(tensor_names())
    covered = {}
    for row in (r for r in gradient_rows() if r.second_order):
        alias = covered_by_id(row.id, ID_ALIASES)
        names = row.covers or ((ID_ALIASES[alias],) if alias else (covered_by_id(row.id, every),))
        for n in names:
            if n is not None:
                covered.setdefault(n, []).append(row.id)
    return covered


def has_gradient_row(name):
    """In-place variants (``relu_``) share their op, and so their row, with the plain name."""
    coverage = gradient_coverage()
    return name in coverage or (name.endswith("_") and name[:-1] in coverage)


# ------------------------------------------------------------------------------------ the marks
def _names(text):
    return frozenset(text.split())


# Row ids that do not start with the public name they check.
ID_ALIASES = {
    "sdpa": "scaled_dot_product_attention",
    "bce_with_logits": "binary_cross_entropy_with_logits",
    "nll_of_log_softmax": "nll_loss",
    "linalg_norm": "norm",
    "narrow_chunk": "narrow",
    "softmax_via_exp": "softmax",
    "squeeze_unsqueeze": "squeeze",
}

# Names whose result carries no gradient (integer, boolean or index results, shapes and sizes,
# conversions out of the graph, random draws and fills, settings, hooks and graph plumbing).
NO_GRADIENT = _names(
    """
    all any allclose argmax argmin argsort eq equal ge gt isclose isfinite isinf isnan le lt ne
    bitwise_and bitwise_or bitwise_xor logical_not one_hot
    arange empty empty_like eye full full_like linspace ones ones_like zeros zeros_like tensor
    as_tensor from_numpy rand rand_like randint randn randn_like randperm multinomial
    bernoulli_ normal_ uniform_ fill_ zero_ new_empty new_full new_ones new_tensor new_zeros
    get_default_device set_default_device get_default_dtype set_default_dtype promote_types
    result_type get_num_threads set_num_threads get_rng_state set_rng_state initial_seed
    manual_seed is_grad_enabled is_inference_mode_enabled is_tensor numel nelement size stride
    dim element_size data_ptr get_device is_contiguous is_floating_point is_pinned is_shared
    item tolist numpy pin_memory share_memory_ cpu cuda bool byte int long type
    backward detach detach_ requires_grad_ retain_grad register_hook
    register_post_accumulate_grad_hook floor_divide sign
    floor_divide_ sign_ eq_ ge_ gt_ le_ lt_ ne_ greater greater_ greater_equal greater_equal_ less
    less_ less_equal less_equal_ not_equal not_equal_ isin isneginf isposinf signbit heaviside
    heaviside_ nextafter nextafter_ frexp logical_and logical_and_ logical_or logical_or_
    logical_xor logical_xor_ bitwise_not bitwise_not_ bitwise_left_shift bitwise_left_shift_
    bitwise_right_shift bitwise_right_shift_ gcd gcd_ lcm lcm_
    argwhere nonzero bincount bucketize searchsorted count_nonzero histc histogram unique
    unique_consecutive unravel_index tril_indices triu_indices broadcast_shapes can_cast
    is_inference is_nonzero is_same_size is_signed ndimension char short
    asarray scalar_tensor fill fill_diagonal_ range logspace bartlett_window blackman_window
    hamming_window hann_window kaiser_window
    bernoulli normal poisson randint_like random_ cauchy_ exponential_ geometric_ log_normal_ seed
    are_deterministic_algorithms_enabled use_deterministic_algorithms get_deterministic_debug_mode
    set_deterministic_debug_mode is_deterministic_algorithms_warn_only_enabled
    get_float32_matmul_precision set_float32_matmul_precision get_num_interop_threads
    set_num_interop_threads set_flush_denormal is_warn_always_enabled set_warn_always
    is_anomaly_enabled is_anomaly_check_nan_enabled set_anomaly_enabled
    assert_int_or_pair boolean_dispatch has_torch_function has_torch_function_unary
    has_torch_function_variadic handle_torch_function
    embedding_renorm_ get_autocast_cpu_dtype get_autocast_dtype is_autocast_cache_enabled
    is_autocast_cpu_enabled is_autocast_enabled set_autocast_cache_enabled set_autocast_cpu_dtype
    set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled set_printoptions
    init_num_threads is_distributed set_default_tensor_type empty_strided empty_permuted
    binomial bitwise_and_ bitwise_or_ bitwise_xor_ const_data_ptr dense_dim dim_order histogramdd
    is_set_to logical_not_ module_load new new_empty_strided nonzero_static reinforce resize_
    resize_as_ set_ bfloat16 hash_tensor
    geqrf istft solve symeig eig lstsq matrix_rank
    """
)
# geqrf: PyTorch's backward raises ("the derivative for 'geqrf' is not implemented"), as nnlite's.
# istft, solve, symeig, eig, lstsq, matrix_rank: they only raise PyTorch's error (istft takes
# complex input only; the others were removed from PyTorch 2).

# Differentiable names without a gradcheck row yet: known gaps, each to be closed by a row.
# float and half round to float32/float16, below what float64 finite differences resolve.
# ctc_loss: first order only, as PyTorch's (its backward has no derivative, "derivative for
# aten::_ctc_loss_backward is not implemented"); its row is gradchecked, and a test checks the error.
GRADIENT_GAPS = _names(
    """
    float half
    ctc_loss
    """
)


# Built-in ops that no row's graph (nor its gradient's graph) reaches. ToDtype changes the float
# type: a float64 row never calls it, and float32 is below what finite differences resolve (the
# float and half gaps above). _DifferentiatedTwice marks
# a once_differentiable backward's result: its own backward raises by design (tested in
# tests/autograd/test_surface_fixes.py), so no gradgradcheck row can pass through it.
# CrossMapLRN (nn.CrossMapLRN2d) has PyTorch's legacy gradient, which is not the derivative of its
# forward (PyTorch's own gradcheck of the layer fails): tests/nn/test_cross_map_lrn.py compares
# its values and gradients with PyTorch's instead; _CrossMapLRNGradient is that gradient.
# StandardGamma draws gamma samples: finite differences of random draws are not its implicit
# reparameterisation derivative, which tests/distributions/test_families.py checks against
# PyTorch's gammainc instead; StandardGammaGrad is that derivative inside a recorded backward,
# not differentiable again (as PyTorch's).
OPS_WITHOUT_ROWS = _names(
    """
    ToDtype
    _DifferentiatedTwice
    CrossMapLRN _CrossMapLRNGradient
    StandardGamma
    StandardGammaGrad
    Geqrf
    _NoDerivative
    """
)
# Geqrf and _NoDerivative (the LDL factorization and solve) are the results of functions PyTorch
# has no derivative for: their backward raises PyTorch's error, so no gradient row can reach them
# (tests/test_linalg_factorizations.py checks the refusals).


# nn.functional names for which PyTorch has a module and nnlite has none yet.
MODULE_GAPS = _names("")

# Differentiable nn.functional names without an ONNX converter of their own: exporting a model
# that calls them does not use a dedicated converter (the layer's module converter may cover it).
NOT_EXPORTED = _names(
    """
    adaptive_max_pool2d binary_cross_entropy binary_cross_entropy_with_logits conv1d
    conv_transpose2d cosine_embedding_loss cosine_similarity cross_entropy dropout1d dropout2d elu
    gelu group_norm hardsigmoid hardswish hardtanh huber_loss instance_norm interpolate kl_div
    l1_loss leaky_relu leaky_relu_ margin_ranking_loss mish mse_loss nll_loss normalize
    pad pairwise_distance pixel_shuffle pixel_unshuffle prelu relu_ scaled_dot_product_attention
    silu smooth_l1_loss softplus triplet_margin_loss upsample adaptive_avg_pool1d
    adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool1d_with_indices
    adaptive_max_pool2d_with_indices adaptive_max_pool3d adaptive_max_pool3d_with_indices
    affine_grid alpha_dropout avg_pool1d avg_pool3d bilinear celu_ channel_shuffle conv3d conv_tbc
    conv_transpose1d conv_transpose3d dropout3d elu_ embedding_bag feature_alpha_dropout fold
    gaussian_nll_loss glu grid_sample gumbel_softmax hardtanh_ hinge_embedding_loss
    linear_cross_entropy local_response_norm lp_pool1d lp_pool2d lp_pool3d max_pool1d
    max_pool1d_with_indices max_pool2d_with_indices max_pool3d max_pool3d_with_indices max_unpool1d
    max_unpool2d max_unpool3d multi_margin_loss multilabel_margin_loss multilabel_soft_margin_loss
    native_channel_shuffle pdist poisson_nll_loss rms_norm rrelu rrelu_ selu_ soft_margin_loss
    threshold threshold_ triplet_margin_with_distance_loss unfold upsample_bilinear
    upsample_nearest
    fractional_max_pool2d fractional_max_pool2d_with_indices fractional_max_pool3d
    fractional_max_pool3d_with_indices ctc_loss grouped_mm
    """
)
