"""``nl.backends.cuda``: PyTorch's CUDA switches, settable, without effect (nnlite runs on the
CPU): ``matmul.allow_tf32``, ``matmul.allow_fp16_reduced_precision_reduction``, the SDP kernel
switches; ``is_built()`` is ``False``."""

from collections.abc import Callable


class _MatmulFlags:
    """``nl.backends.cuda.matmul``: the matrix-product precision switches (no effect)."""

    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def is_built() -> bool:
    """Whether nnlite was built with CUDA: ``False``.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.backends.cuda.is_built()
        False
    """
    return False


def _switch(name: str) -> tuple[Callable[[bool], None], Callable[[], bool]]:
    def enable(enabled: bool) -> None:
        _sdp[name] = bool(enabled)

    def query() -> bool:
        return _sdp[name]

    enable.__name__, query.__name__ = f"enable_{name}_sdp", f"{name}_sdp_enabled"
    enable.__doc__ = f"Set PyTorch's {name} attention switch (no effect on the CPU)."
    query.__doc__ = f"PyTorch's {name} attention switch (no effect on the CPU)."
    return enable, query


enable_flash_sdp, flash_sdp_enabled = _switch("flash")
enable_mem_efficient_sdp, mem_efficient_sdp_enabled = _switch("mem_efficient")
enable_math_sdp, math_sdp_enabled = _switch("math")
enable_cudnn_sdp, cudnn_sdp_enabled = _switch("cudnn")
