"""``nl.backends.cpu``: what PyTorch reports about the CPU's vector instructions."""


def get_cpu_capability() -> str:
    """The widest vector instruction set numba compiles nnlite's kernels for: ``"AVX512"``,
    ``"AVX2"`` or ``"DEFAULT"`` (PyTorch's names).

    Returns:
        str: the capability.

    Examples:
        >>> nl.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
        True
    """
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
    except Exception:  # noqa: BLE001 - an unknown host is reported as the default
        return "DEFAULT"
    if features.get("avx512f"):
        return "AVX512"
    if features.get("avx2"):
        return "AVX2"
    return "DEFAULT"
