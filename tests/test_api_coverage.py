"""``tools/api_coverage.py``: the coverage page counts PyTorch's names and is current."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "tools" / "api_coverage.py"


def load_script():
    spec = importlib.util.spec_from_file_location("api_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("api_coverage", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_scope_rules_give_reasons():
    coverage = load_script()
    assert coverage.scope_reason("torch", "cuda") == "CUDA"
    assert coverage.scope_reason("torch", "sparse_coo_tensor") == "sparse tensors"
    assert coverage.scope_reason("torch", "quantize_per_tensor") == "quantized tensors"
    assert coverage.scope_reason("torch", "view_as_complex") == "complex numbers"
    assert coverage.scope_reason("torch.Tensor", "refine_names") == "named tensors"
    assert coverage.scope_reason("torch", "compile") == "compilers and function transforms"
    assert coverage.scope_reason("torch.fft", "rfft") == "complex numbers"
    # ordinary dense ops stay in scope
    for name in ("log1p", "cumprod", "unique", "trace", "diagonal", "qr", "take"):
        assert coverage.scope_reason("torch", name) is None, name


def test_page_is_current():
    torch = pytest.importorskip("torch", reason="the coverage page counts torch's names")
    page = (REPO / "docs" / "api-coverage.md").read_text(encoding="utf-8")
    recorded = re.search(r"against PyTorch (\S+?);", page)
    assert recorded, "the page names the PyTorch version it was generated with"
    if recorded.group(1) != torch.__version__.split("+")[0]:
        pytest.skip(f"page generated with torch {recorded.group(1)}, {torch.__version__} installed")
    _, expected = load_script().generate()
    assert page == expected, "docs/api-coverage.md is stale: python tools/api_coverage.py --write"


def test_counts_add_up():
    pytest.importorskip("torch", reason="the coverage page counts torch's names")
    results, _ = load_script().generate()
    assert [ns.torch_name for ns in results][:2] == ["torch", "torch.Tensor"]
    for ns in results:
        assert ns.total == len(ns.implemented) + len(ns.missing) + ns.excluded
        assert not set(ns.implemented) & set(ns.missing)
        assert 0 <= ns.percent <= 100


def test_optimizer_scope_and_standard_library_imports():
    pytest.importorskip("torch", reason="the coverage page counts torch's names")
    coverage = load_script()
    assert coverage.scope_reason("torch.optim", "SparseAdam").startswith("sparse tensors")
    assert coverage.scope_reason("torch", "SparseAdam") is None
    import torch.optim.lr_scheduler

    names = coverage.public_names(torch.optim.lr_scheduler)
    # functools.partial, functools.wraps, bisect.bisect_right and weakref.ref are imports
    assert not {"partial", "wraps", "bisect_right", "ref"} & set(names)
    assert {"StepLR", "LambdaLR", "LRScheduler"} <= set(names)
