"""Keywords and call forms as PyTorch's: each name is called with PyTorch's own parameter names,
read from PyTorch's signature (``inspect.signature``, or the signature line of the docstring for
built-in functions), positionally and by keyword, as ``nl.name`` and as a method, and the results
compared with PyTorch's."""

import inspect
import re

import numpy as np
import pytest

import nnlite as nl

torch = pytest.importorskip("torch", reason="PyTorch's signatures are the reference")

rng = np.random.default_rng(3)
X = rng.standard_normal((3, 4))
V = rng.standard_normal(4)
S = rng.standard_normal((3, 3)) + 3 * np.eye(3)
IDX = np.array([2, 0])
_LU, _PIVOTS = torch.linalg.lu_factor(torch.tensor(S))
_LD, _LDL_PIVOTS = torch.linalg.ldl_factor(torch.tensor(S + S.T))


class T:
    """A tensor argument, built for each library: ``T(array, dtype=None)``."""

    def __init__(self, array, dtype=None):
        self.array, self.dtype = np.asarray(array), dtype

    def build(self, lib):
        dtype = getattr(lib, self.dtype) if self.dtype else None
        return lib.tensor(self.array, dtype=dtype)


LU_ARGS = {"LU": T(_LU.numpy()), "pivots": T(_PIVOTS.numpy(), "int32")}
LDL_ARGS = {"LD": T(_LD.numpy()), "pivots": T(_LDL_PIVOTS.numpy(), "int32")}

# (name, arguments by PyTorch's parameter names, with_method)
CASES = [
    ("sum", {"input": T(X), "dim": 1, "keepdim": True}, True),
    ("mean", {"input": T(X), "dim": (0, 1), "keepdim": False}, True),
    ("cumsum", {"input": T(X), "dim": 1}, True),
    ("cumprod", {"input": T(X), "dim": 0}, True),
    ("logcumsumexp", {"input": T(X), "dim": 1}, True),
    ("cummax", {"input": T(X), "dim": 1}, True),
    ("prod", {"input": T(X), "dim": 1, "keepdim": True}, True),
    ("kthvalue", {"input": T(X), "k": 2, "dim": 0, "keepdim": True}, True),
    ("median", {"input": T(X), "dim": 1, "keepdim": False}, True),
    ("mode", {"input": T(X), "dim": 0}, True),
    ("nansum", {"input": T(X), "dim": 1}, True),
    ("nanmean", {"input": T(X), "dim": 0, "keepdim": True}, True),
    ("diff", {"input": T(X), "n": 1, "dim": 0}, True),
    ("diagonal", {"input": T(X), "offset": 1, "dim1": 1, "dim2": 0}, True),
    ("diag_embed", {"input": T(V), "offset": 1}, True),
    ("diag", {"input": T(V), "diagonal": -1}, True),
    ("tril", {"input": T(X), "diagonal": 1}, True),
    ("triu", {"input": T(X), "diagonal": -1}, True),
    ("flip", {"input": T(X), "dims": (0, 1)}, True),
    ("roll", {"input": T(X), "shifts": (1, 2), "dims": (0, 1)}, True),
    ("rot90", {"input": T(X), "k": 2, "dims": (0, 1)}, True),
    ("movedim", {"input": T(X), "source": 0, "destination": 1}, True),
    ("swapaxes", {"input": T(X), "axis0": 0, "axis1": 1}, True),
    ("swapdims", {"input": T(X), "dim0": 0, "dim1": 1}, True),
    ("moveaxis", {"input": T(X), "source": (0,), "destination": (1,)}, True),
    ("transpose", {"input": T(X), "dim0": 0, "dim1": 1}, True),
    ("repeat_interleave", {"input": T(V), "repeats": 2, "dim": 0}, True),
    ("tile", {"input": T(V), "dims": (2,)}, True),
    ("narrow", {"input": T(X), "dim": 1, "start": 1, "length": 2}, True),
    ("chunk", {"input": T(X), "chunks": 2, "dim": 1}, True),
    ("split", {"tensor": T(X), "split_size_or_sections": 2, "dim": 1}, False),
    ("tensor_split", {"input": T(X), "sections": 3, "dim": 1}, True),
    ("tensor_split_indices", {"input": T(X), "indices": (1, 3), "dim": 1}, True),
    ("unbind", {"input": T(X), "dim": 1}, True),
    ("flatten", {"input": T(X), "start_dim": 0, "end_dim": -1}, True),
    ("unflatten", {"input": T(V), "dim": 0, "sizes": (2, 2)}, True),
    ("squeeze", {"input": T(X[:1]), "dim": 0}, True),
    ("unsqueeze", {"input": T(V), "dim": 1}, True),
    ("gather", {"input": T(X), "dim": 1, "index": T([[0, 1]] * 3)}, True),
    ("index_select", {"input": T(X), "dim": 1, "index": T(IDX)}, True),
    (
        "index_add",
        {"input": T(X), "dim": 1, "index": T(IDX), "source": T(X[:, :2]), "alpha": 2},
        True,
    ),
    ("index_fill", {"input": T(X), "dim": 1, "index": T(IDX), "value": 5.0}, True),
    ("take", {"input": T(X), "index": T(IDX)}, True),
    ("take_along_dim", {"input": T(X), "indices": T([[0], [1], [2]]), "dim": 1}, True),
    ("masked_fill", {"input": T(X), "mask": T(X > 0), "value": 0.0}, True),
    ("where", {"condition": T(X > 0), "input": T(X), "other": 0.5}, False),
    ("clamp", {"input": T(X), "min": -0.5, "max": 0.5}, True),
    ("clamp_min", {"input": T(X), "min": 0.0}, True),
    ("lerp", {"input": T(V), "end": T(V * 2), "weight": 0.3}, True),
    ("atan2", {"input": T(V), "other": T(V + 3)}, True),
    ("hypot", {"input": T(V), "other": T(V)}, True),
    ("logaddexp", {"input": T(V), "other": T(V)}, True),
    ("xlogy", {"input": T(V), "other": T(np.abs(V))}, True),
    ("round", {"input": T(X), "decimals": 2}, True),
    ("logit", {"input": T(np.abs(V) / 5), "eps": 1e-6}, True),
    ("polygamma", {"n": 1, "input": T(np.abs(V) + 1)}, False),
    ("float_power", {"input": T(V), "exponent": 2}, True),
    ("topk", {"input": T(X), "k": 2, "dim": 1, "largest": False, "sorted": True}, True),
    ("sort", {"input": T(X), "dim": 0, "descending": True}, True),
    ("sort_stable", {"input": T(X), "stable": True, "dim": 0, "descending": True}, True),
    ("argsort", {"input": T(X), "dim": 1, "descending": True}, True),
    ("std_mean", {"input": T(X), "dim": 1, "correction": 0, "keepdim": True}, False),
    ("var_mean", {"input": T(X), "dim": 0}, False),
    (
        "quantile",
        {"input": T(X), "q": 0.3, "dim": 1, "keepdim": True, "interpolation": "lower"},
        True,
    ),
    ("searchsorted", {"sorted_sequence": T(np.sort(V)), "input": T(V), "right": True}, False),
    ("bucketize", {"input": T(V), "boundaries": T(np.sort(V)), "right": False}, False),
    (
        "unique",
        {"input": T([3, 1, 3]), "sorted": True, "return_inverse": True, "return_counts": True},
        True,
    ),
    ("unique_consecutive", {"input": T([1, 1, 2]), "return_counts": True}, True),
    ("bincount", {"input": T([0, 2, 2]), "minlength": 4}, True),
    ("histc", {"input": T(V), "bins": 3, "min": -1, "max": 1}, True),
    ("count_nonzero", {"input": T(X > 0), "dim": 1}, True),
    ("nonzero", {"input": T(X > 0), "as_tuple": True}, True),
    (
        "isclose",
        {"input": T(V), "other": T(V + 1e-9), "rtol": 1e-5, "atol": 1e-8, "equal_nan": True},
        True,
    ),
    ("nan_to_num", {"input": T([np.nan, np.inf]), "nan": 1.0, "posinf": 2.0, "neginf": -2.0}, True),
    ("outer", {"input": T(V), "vec2": T(V)}, True),
    ("dot", {"input": T(V), "tensor": T(V)}, True),
    ("mv", {"input": T(X), "vec": T(V)}, True),
    ("addmm", {"input": T(S), "mat1": T(S), "mat2": T(S), "beta": 0.5, "alpha": 2}, True),
    ("addcmul", {"input": T(V), "tensor1": T(V), "tensor2": T(V), "value": 2}, True),
    ("tensordot", {"a": T(X), "b": T(X.T), "dims": 1}, False),
    ("kron", {"input": T(S), "other": T(S)}, True),
    ("cross", {"input": T(X[:, :3]), "other": T(X[:, 1:]), "dim": 1}, True),
    ("cdist", {"x1": T(X), "x2": T(X), "p": 1.0}, False),
    ("trace", {"input": T(S)}, True),
    ("logsumexp", {"input": T(X), "dim": 1, "keepdim": True}, True),
    ("softmax", {"input": T(X), "dim": 1}, True),
    ("norm", {"input": T(X), "p": 1, "dim": 1, "keepdim": True}, True),
    ("einsum", {"equation": "ii->i", "operands": None}, False),
    ("meshgrid", {"tensors": None, "indexing": "xy"}, False),
    ("linalg.solve", {"A": T(S), "B": T(V[:3]), "left": True}, False),
    ("linalg.vector_norm", {"x": T(X), "ord": 3, "dim": 1, "keepdim": True}, False),
    ("linalg.matrix_norm", {"A": T(S), "ord": "nuc", "dim": (-2, -1)}, False),
    ("linalg.cholesky", {"A": T(S @ S.T), "upper": True}, False),
    ("linalg.eigvalsh", {"A": T(S @ S.T), "UPLO": "U"}, False),
    ("special.xlog1py", {"input": T(V), "other": T(np.abs(V))}, False),
    ("special.logsumexp", {"input": T(X), "dim": 0, "keepdim": True}, False),
    ("fft.fftshift", {"input": T(X), "dim": 1}, False),
    (
        "ctc_loss",
        {
            "log_probs": T(np.log(np.full((4, 2, 3), 1 / 3))),
            "targets": T([[1, 2], [2, 2]]),
            "input_lengths": T([4, 4]),
            "target_lengths": T([2, 1]),
            "blank": 0,
            "reduction": 1,
            "zero_infinity": False,
        },
        False,
    ),
    # strided views, indexed reductions, finite differences
    ("as_strided", {"input": T(V), "size": (2, 2), "stride": (1, 1), "storage_offset": 1}, True),
    ("nonzero_static", {"input": T([[0, 1], [2, 0]]), "size": 3, "fill_value": 7}, True),
    ("gradient", {"input": T(X), "spacing": 2.0, "dim": 1, "edge_order": 2}, False),
    ("histogramdd", {"input": T(X[:, :2]), "bins": [2, 3], "density": True}, False),
    ("split_with_sizes", {"input": T(X), "split_sizes": [1, 3], "dim": 1}, True),
    ("hardshrink", {"input": T(V), "lambd": 0.3}, True),
    ("hash_tensor", {"input": T([[1, 2], [3, 4]]), "dim": 1, "keepdim": True}, True),
    # factorizations, the older linear-algebra forms, special functions, stft
    ("linalg.lu_factor", {"A": T(S)}, False),
    ("linalg.lu_factor_ex", {"A": T(S), "check_errors": True}, False),
    ("linalg.lu", {"A": T(X)}, False),
    ("linalg.lu_solve", {**LU_ARGS, "B": T(X[:, :3].T), "left": True, "adjoint": True}, False),
    ("linalg.householder_product", {"A": T(X.T), "tau": T(V[:3])}, False),
    ("linalg.ldl_factor", {"A": T(S + S.T), "hermitian": False}, False),
    ("linalg.ldl_solve", {**LDL_ARGS, "B": T(X[:, :3].T), "hermitian": False}, False),
    (
        "lu_unpack",
        {"LU_data": LU_ARGS["LU"], "LU_pivots": LU_ARGS["pivots"], "unpack_data": True},
        False,
    ),
    (
        "lu_solve",
        {"b": T(X[:, :3].T), "LU_data": LU_ARGS["LU"], "LU_pivots": LU_ARGS["pivots"]},
        True,
    ),
    ("geqrf", {"input": T(X.T)}, True),
    ("triangular_solve", {"b": T(X[:, :3].T), "A": T(S), "upper": False, "transpose": True}, False),
    ("igamma", {"input": T(np.abs(V)), "other": T(np.abs(V[::-1]))}, True),
    ("igammac", {"input": T(np.abs(V)), "other": T(np.abs(V[::-1]))}, True),
    ("special.gammainc", {"input": T(np.abs(V)), "other": T(np.abs(V[::-1]))}, False),
    ("special.zeta", {"input": T(np.abs(V) + 1), "other": T(np.abs(V[::-1]))}, False),
    ("special.bessel_j0", {"input": T(V)}, False),
    ("special.scaled_modified_bessel_k1", {"input": T(np.abs(V))}, False),
    (
        "stft",
        {
            "input": T(X[0]),
            "n_fft": 2,
            "hop_length": 1,
            "window": T(np.ones(2)),
            "return_complex": False,
        },
        True,
    ),
]


# PyTorch documents these nowhere in a signature line: their signatures from its reference pages
OVERRIDES = {
    "unique_consecutive": "unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)",
    "clamp_min": "clamp_min(input, min)",
    # documented as ``values``; PyTorch's parser takes ``input``
    "searchsorted": "searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, out=None, sorter=None)",
    # no docstring; the parser's signature (its TypeError lists it)
    "ctc_loss": "ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False)",
    # no docstring in PyTorch: its native schema
    "split_with_sizes": "split_with_sizes(input, split_sizes, dim=0)",
}


# PyTorch itself refuses its documented name of the first parameter (``A=``) for these: pass it
# positionally in the keyword form
FIRST_POSITIONAL = {
    "linalg.matrix_norm",
    "linalg.cholesky",
    "linalg.eigvalsh",
    "linalg.householder_product",
    "linalg.ldl_factor",
    "lu_solve",
    "triangular_solve",
    "special.scaled_modified_bessel_k1",
}
# PyTorch's overload with ``stable`` takes ``dim`` and ``descending`` by keyword only
KEYWORD_ONLY = {"sort_stable"}
# test ids that call another name with other arguments
VARIANTS = {"tensor_split_indices": "tensor_split", "sort_stable": "sort"}


def _resolve(lib, dotted):
    obj = lib
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def torch_parameters(name, wanted):
    """PyTorch's parameters of ``name``: (positional names, keyword-only names) of the first
    overload that has every name in ``wanted``."""
    fn = _resolve(torch, name)
    try:
        sig = inspect.signature(fn)
        overloads = [
            (
                [
                    p.name
                    for p in sig.parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                ],
                [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY],
            )
        ]
    except (TypeError, ValueError):
        overloads = []
    short = name.rpartition(".")[2]
    lines = [(line, False) for line in (fn.__doc__ or "").splitlines()]
    method = getattr(torch.Tensor, short, None) if "." not in name else None
    lines += [(line, True) for line in (getattr(method, "__doc__", None) or "").splitlines()]
    if name in OVERRIDES:
        lines = [(OVERRIDES[name], False)]
    for line, is_method in lines:
        match = re.match(
            rf"^(?:\.\. function:: )?(?:\w+\.)*{short}\((.*)\)\s*(->.*)?$", line.strip()
        )
        if not match:
            continue
        positional, keyword = (["input"] if is_method else []), []
        target = positional
        for part in match.group(1).split(","):
            part = part.strip()
            if part == "*":
                target = keyword
            elif part:
                target.append(part.split("=")[0].split(":")[0].strip().lstrip("*"))
        overloads.append((positional, keyword))
    for positional, keyword in overloads:
        if set(wanted) <= set(positional) | set(keyword):
            return positional, keyword
    raise AssertionError(f"no PyTorch signature of {name} takes {sorted(wanted)}: {overloads}")


def build(lib, name, case):
    name = VARIANTS.get(name, name)
    args = {k: (v.build(lib) if isinstance(v, T) else v) for k, v in case.items()}
    if name == "einsum":
        args["operands"] = [lib.tensor(S)]
    if name == "meshgrid":
        args["tensors"] = [lib.tensor(V), lib.tensor(V[:2])]
    return args


def call_forms(lib, name, case, with_method):
    """The results of calling ``name`` every way PyTorch allows for these arguments."""
    variant, name = name, VARIANTS.get(name, name)
    positional, keyword = torch_parameters(name, case)
    fn = _resolve(lib, name)
    args = build(lib, name, case)
    results = {}
    pos = [args[p] for p in positional if p in args]
    # positional arguments must form a prefix of PyTorch's positional parameters
    prefix = positional[: len(pos)]
    if (
        set(prefix) <= set(args)
        and name not in ("einsum", "meshgrid")
        and variant not in KEYWORD_ONLY
    ):
        kw = {k: v for k, v in args.items() if k not in prefix}
        results["positional"] = fn(*[args[p] for p in prefix], **kw)
    if name == "einsum":
        results["positional"] = fn(args["equation"], *args["operands"])
    elif name == "meshgrid":
        results["positional"] = fn(*args["tensors"], indexing=args["indexing"])
    elif name in FIRST_POSITIONAL:
        first = positional[0]
        results["keyword"] = fn(args[first], **{k: v for k, v in args.items() if k != first})
    else:
        results["keyword"] = fn(**args)
    if with_method:
        first = positional[0]
        self_ = args[first]
        rest = {k: v for k, v in args.items() if k != first}
        results["method_keyword"] = getattr(self_, name)(**rest)
        pos_rest = [rest[p] for p in positional[1:] if p in rest]
        prefix_rest = positional[1 : 1 + len(pos_rest)]
        if set(prefix_rest) <= set(rest) and variant not in KEYWORD_ONLY:
            results["method_positional"] = getattr(self_, name)(
                *[rest[p] for p in prefix_rest],
                **{k: v for k, v in rest.items() if k not in prefix_rest},
            )
    return results


def as_lists(x):
    if isinstance(x, (tuple, list)):
        return [as_lists(v) for v in x]
    if hasattr(x, "detach"):
        return np.asarray(x.detach().numpy(), dtype=np.float64).round(6).tolist()
    return x


@pytest.mark.parametrize("name,case,with_method", CASES, ids=[c[0] for c in CASES])
def test_call_forms_match_pytorch(name, case, with_method):
    ours = call_forms(nl, name, case, with_method)
    theirs = call_forms(torch, name, case, with_method)
    assert ours.keys() == theirs.keys()
    for form in ours:
        np.testing.assert_equal(as_lists(ours[form]), as_lists(theirs[form]), err_msg=form)


def test_out_argument_where_pytorch_has_it():
    x = nl.tensor(X)
    out = nl.empty(0)
    nl.cumprod(x, 1, out=out)
    np.testing.assert_allclose(out.numpy(), np.cumprod(X, 1).astype(np.float32), rtol=1e-6)
    out = nl.empty(3, 4)
    result = nl.floor(x, out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), np.floor(X).astype(np.float32))
