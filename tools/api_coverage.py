"""Count PyTorch's public API and nnlite's share of it.

For each namespace (``torch``, ``torch.Tensor``, ``torch.nn``, ...) every public name of PyTorch gets
one status: *implemented* (the same name exists in the matching nnlite namespace), *out of scope*
(with the reason, from the rules below) or *missing*. The result is the docs page
``docs/api-coverage.md``.

Usage (needs torch installed; run from the repository root)::

    python tools/api_coverage.py            # print the summary table
    python tools/api_coverage.py --write    # regenerate docs/api-coverage.md
    python tools/api_coverage.py --check    # exit 1 when the committed page is not current
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
import types
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "api-coverage.md"

#: (PyTorch namespace, nnlite namespace); ``torch.Tensor`` means the class's attributes
NAMESPACES = [
    ("torch", "nnlite"),
    ("torch.Tensor", "nnlite.Tensor"),
    ("torch.nn", "nnlite.nn"),
    ("torch.nn.functional", "nnlite.nn.functional"),
    ("torch.nn.init", "nnlite.nn.init"),
    ("torch.linalg", "nnlite.linalg"),
    ("torch.fft", "nnlite.fft"),
    ("torch.special", "nnlite.special"),
    ("torch.distributions", "nnlite.distributions"),
    ("torch.optim", "nnlite.optim"),
    ("torch.optim.lr_scheduler", "nnlite.optim.lr_scheduler"),
    ("torch.autograd", "nnlite.autograd"),
    ("torch.utils.data", "nnlite.utils.data"),
    ("torch.amp", "nnlite.amp"),
]

# Out of scope by name, in every namespace: (pattern searched in the name, reason). The first match
# wins. nnlite runs dense real tensors on the CPU, without a compiler (DESIGN.md, clarification 15).
RULES = [
    (r"cuda|cudnn|nccl|cudagraph|gpu", "CUDA"),
    (r"(^|_)(mps|xpu|ipu|hpu|mtia|xla|vulkan|metal|npu|privateuse1)($|_)", "other devices"),
    (
        r"mkldnn|miopen|fbgemm|^is_vulkan|^has_(lapack|mkl|openmp|spectral)",
        "vendor kernel libraries",
    ),
    (
        r"sparse|(^|_)(coo|csr|csc|bsr|bsc)($|_)|indices_copy|^indices$|^values$|_nnz|coalesce"
        r"|^(smm|dsmm|hsmm|spmm|sspaddmm|hspmm|saddmm)$|^to_dense$|^crow_|^ccol_|^col_indices|"
        r"^row_indices",
        "sparse tensors",
    ),
    (
        r"quantiz|^q_|qscheme|^q?u?int\d+x\d|^qu?int\d+$|fake_quant|int_repr|^per_(channel|tensor)"
        r"|qparams|obs_fake",
        "quantized tensors",
    ),
    (
        r"complex|^ComplexType$|conj|^real$|^imag$|^angle|^polar$|view_as_real|^is_neg$|resolve_neg|^chalf$"
        r"|^cfloat$|^cdouble$|^isreal$|^sgn_?$",
        "complex numbers",
    ),
    (r"^(names|refine_names|align_to|align_as|rename_?|has_names)$", "named tensors"),
    (r"nested|^jagged$|^to_padded_tensor$", "nested tensors"),
    (
        r"^compile|compiler|^jit$|^fx$|dynamo|inductor|^export$|^sym_|^Sym|^fork$|^wait$"
        r"|^while_loop$|^vmap$|^func$|functional_call|_ir_|^parse_(ir|schema|type_comment)$"
        r"|^merge_type|^unify_type|^classproperty$",
        "compilers and function transforms",
    ),
    (r"_copy$|_scatter$", "view-copy variants for compilers"),
    (r"storage|Storage", "storage objects"),
    (r"^float8|^float4|^bits|^bit$|^u?int[1-7]$", "low-precision dtypes"),
    (r"^native_|_backward_|^batch_norm_(elemt|gather|stats|update)|^unsafe_", "internal kernels"),
    (r"dlpack|^from_file$|^frombuffer$", "foreign memory"),
    (r"[Pp]rofiler|kineto|^DeviceType$", "the profiler"),
    (
        r"DataPipe|datapipe|^DataChunk$|runtime_validation|^argument_validation$|^non_deterministic$",
        "DataPipes (deprecated by PyTorch)",
    ),
]

# Out of scope by name in one namespace (reason given), beyond the rules.
NAMED = {
    "torch": {
        **dict.fromkeys(
            "AggregationType AliasDb AnyType Argument ArgumentSpec AwaitType BenchmarkConfig "
            "BenchmarkExecutionStats Block BoolType BufferDict CallStack Capsule ClassType Code "
            "CompilationUnit CompleteArgumentSpec ConcreteModuleType ConcreteModuleTypeBuilder "
            "DeepCopyMemoTable DeviceObjType DictType DisableTorchFunction "
            "DisableTorchFunctionSubclass DispatchKey DispatchKeySet EnumType ErrorReport "
            "ExcludeDispatchKeyGuard ExecutionPlan FatalError FileCheck FloatType FunctionSchema "
            "Future FutureType Gradient Graph GraphExecutorState IODescriptor InferredType "
            "IntType InterfaceType JITException ListType LiteScriptModule LockingLogger LoggerBase "
            "ModuleDict Node NoneType NoopLogger NumberType OperatorInfo OptionalType PRIVATE_OPS "
            "ParameterDict PyObjectType PyTorchFileReader PyTorchFileWriter RRefType ScriptClass "
            "ScriptClassFunction ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction "
            "ScriptList ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer "
            "ScriptObject ScriptObjectProperty StaticModule StreamObjType StringType Tag "
            "TensorType ThroughputBenchmark TracingState TupleType Type UnionType Use Value "
            "AVG SUM import_ir_module import_ir_module_from_buffer typename "
            "prepare_multiprocessing_environment thread_safe_generator "
            "TYPE_CHECKING USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH "
            "compiled_with_cxx11_abi get_file_path".split(),
            "TorchScript and C++ internals",
        ),
        "cond": "compilers and function transforms",
        **dict.fromkeys(
            "Event Stream get_device_module AcceleratorError OutOfMemoryError".split(),
            "accelerator streams and events",
        ),
        **dict.fromkeys(
            "autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache "
            "get_autocast_ipu_dtype get_autocast_xla_dtype is_autocast_ipu_enabled "
            "is_autocast_xla_enabled set_autocast_ipu_dtype set_autocast_ipu_enabled "
            "set_autocast_xla_dtype set_autocast_xla_enabled".split(),
            "autocast internals of other devices",
        ),
        **dict.fromkeys(
            "channels_last channels_last_3d contiguous_format preserve_format "
            "legacy_contiguous_format memory_format layout strided".split(),
            "memory formats and layouts (nnlite has one: strided, contiguous)",
        ),
    },
    "torch.Tensor": {
        **dict.fromkeys(
            "is_cuda is_mps is_xpu is_ipu is_meta is_mkldnn is_maia is_mtia is_quantized "
            "is_sparse is_sparse_csr is_nested is_vulkan is_ort".split(),
            "device and layout flags of other backends",
        ),
        **dict.fromkeys(
            "map_ map2_ apply_".split(), "Python callbacks per element (CPU-only legacy)"
        ),
        "record_stream": "CUDA",
        "layout": "memory formats and layouts (nnlite has one: strided, contiguous)",
        "index": "compilers and function transforms",
    },
    "torch.fft": {
        **dict.fromkeys(
            "fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft "
            "hfft2 ihfft2 hfftn ihfftn".split(),
            "complex numbers",
        ),
    },
    "torch.nn.functional": {
        **dict.fromkeys(
            "scaled_mm scaled_grouped_mm ScalingType SwizzleType".split(),
            "low-precision dtypes (scaled float8/float4 products)",
        ),
    },
    "torch.linalg": {
        **dict.fromkeys("eig eigvals".split(), "complex numbers (complex eigenvalues)"),
    },
    "torch.optim": {
        "SparseAdam": "sparse tensors (SparseAdam's step refuses dense gradients)",
    },
}

# Names that are imports into a namespace, not its API (typing helpers, the Tensor class itself,
# standard-library helpers such as ``functools.partial`` and ``bisect.bisect_right`` that
# ``torch.optim.lr_scheduler`` imports for its own use).
_FOREIGN_MODULES = (
    "typing",
    "typing_extensions",
    "collections",
    "builtins",
    "warnings",
    "math",
    "functools",
    "bisect",
    "_bisect",
    "weakref",
)


@dataclass
class Namespace:
    torch_name: str
    nnlite_name: str
    implemented: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    out_of_scope: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    @property
    def total(self) -> int:
        return len(self.implemented) + len(self.missing) + self.excluded

    @property
    def excluded(self) -> int:
        return sum(len(v) for v in self.out_of_scope.values())

    @property
    def in_scope(self) -> int:
        return len(self.implemented) + len(self.missing)

    @property
    def percent(self) -> float:
        return 100.0 * len(self.implemented) / self.in_scope if self.in_scope else 100.0


def _resolve(path: str) -> object | None:
    """The module or class at dotted ``path``, or None when it does not exist."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def public_names(namespace: object) -> list[str]:
    """The public names of a module (its ``__all__`` plus its other public attributes, minus
    submodules and imported helpers) or of a class."""
    if inspect.isclass(namespace):
        return sorted(n for n in dir(namespace) if not n.startswith("_"))
    names = set(getattr(namespace, "__all__", ())) | {
        n for n in dir(namespace) if not n.startswith("_")
    }
    keep = []
    for name in names:
        if name.startswith("_"):
            continue
        obj = getattr(namespace, name, None)
        if isinstance(obj, types.ModuleType):
            continue
        if not _is_api(namespace, name, obj):
            continue
        keep.append(name)
    return sorted(keep)


def _is_api(namespace: object, name: str, obj: object) -> bool:
    """Whether ``obj`` is part of the namespace's API rather than a helper it imported."""
    if getattr(namespace, "__name__", "") == "torch":
        return True  # the root namespace's constants (pi, inf, dtypes) are API
    if not callable(obj) or getattr(obj, "__name__", "") == "Tensor":
        return False  # docstring fragments, flags and the Tensor class imported for annotations
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] not in _FOREIGN_MODULES


def scope_reason(torch_name: str, name: str) -> str | None:
    """Why ``name`` of ``torch_name`` is out of scope, or None when it is in scope."""
    reason = NAMED.get(torch_name, {}).get(name)
    if reason:
        return reason
    for pattern, why in RULES:
        if re.search(pattern, name):
            return why
    return None


def count(torch_name: str, nnlite_name: str) -> Namespace:
    ns = Namespace(torch_name, nnlite_name)
    theirs = _resolve(torch_name)
    ours = _resolve(nnlite_name)
    for name in public_names(theirs):
        if ours is not None and hasattr(ours, name):
            ns.implemented.append(name)
            continue
        reason = scope_reason(torch_name, name)
        if reason:
            ns.out_of_scope[reason].append(name)
        else:
            ns.missing.append(name)
    return ns


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def render(results: list[Namespace], torch_version: str) -> str:
    lines = [
        "# API coverage",
        "",
        "Every public name of PyTorch's namespaces, with nnlite's status: **implemented** (the",
        "name exists in the matching nnlite namespace), **out of scope** (with the reason: nnlite",
        "runs dense real tensors on the CPU, without a compiler) or **missing**. The percentage is",
        "implemented names over in-scope names. This page is generated by",
        "`python tools/api_coverage.py --write` against PyTorch "
        f"{torch_version}; a test checks that it is current.",
        "",
        "| PyTorch namespace | nnlite | public names | out of scope | in scope | implemented "
        "| missing | % of in scope |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for ns in results:
        lines.append(
            f"| `{ns.torch_name}` | `{ns.nnlite_name}` | {ns.total} | {ns.excluded} "
            f"| {ns.in_scope} | {len(ns.implemented)} | {len(ns.missing)} | {ns.percent:.0f}% |"
        )
    implemented = sum(len(ns.implemented) for ns in results)
    in_scope = sum(ns.in_scope for ns in results)
    lines.append(
        f"| **all** | | {sum(ns.total for ns in results)} | "
        f"{sum(ns.excluded for ns in results)} | {in_scope} | {implemented} | "
        f"{in_scope - implemented} | {100.0 * implemented / in_scope:.0f}% |"
    )
    for ns in results:
        lines += ["", f"## `{ns.torch_name}`", ""]
        lines += [
            f"{len(ns.implemented)} of {ns.in_scope} in-scope names implemented "
            f"({ns.percent:.0f}%).",
            "",
            f"**Missing ({len(ns.missing)}):** {_names(ns.missing)}",
            "",
            f"**Implemented ({len(ns.implemented)}):** {_names(ns.implemented)}",
            "",
        ]
        if ns.out_of_scope:
            lines += ["| out of scope | names |", "|---|---|"]
            for reason in sorted(ns.out_of_scope):
                lines.append(f"| {reason} | {_names(sorted(ns.out_of_scope[reason]))} |")
    return "\n".join(lines) + "\n"


def generate() -> tuple[list[Namespace], str]:
    import torch

    results = [count(t, n) for t, n in NAMESPACES]
    return results, render(results, torch.__version__.split("+")[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {PAGE.name}")
    parser.add_argument("--check", action="store_true", help=f"fail if {PAGE.name} is stale")
    args = parser.parse_args(argv)
    results, page = generate()
    if args.write:
        PAGE.write_text(page, encoding="utf-8")
        print(f"wrote {PAGE}")
    elif args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != page:
            print(f"{PAGE} is not current: run python tools/api_coverage.py --write")
            return 1
    for ns in results:
        print(
            f"{ns.torch_name:28} {len(ns.implemented):4d} / {ns.in_scope:4d} in scope "
            f"({ns.percent:3.0f}%), {ns.excluded} out of scope"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
