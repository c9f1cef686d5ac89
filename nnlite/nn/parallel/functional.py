"""``data_parallel(module, inputs)``: PyTorch's one-call form of ``DataParallel``.

PyTorch scatters ``inputs`` over the GPUs in ``device_ids``, runs a replica on each and gathers
the outputs; with a single device it simply calls the module. nnlite's one device is the CPU, so
this evaluates ``module`` in the calling process: the outputs (and, through autograd, the
gradients) are those of PyTorch's gathered result. To spread a batch over worker processes, keep
an ``nn.DataParallel(module, workers=N)`` instead: its workers live across calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...device import check_device, device

__all__ = ["data_parallel"]


def data_parallel(
    module: Callable[..., Any],
    inputs: object,
    device_ids: Sequence[int | str | device] | None = None,
    output_device: int | str | device | None = None,
    dim: int = 0,
    module_kwargs: Mapping[str, Any] | None = None,
) -> Any:
    """Evaluate ``module(*inputs, **module_kwargs)`` as PyTorch's ``nn.parallel.data_parallel``.

    Args:
        module: the module to evaluate.
        inputs: one input, or a tuple of inputs.
        device_ids: ``None``, or CPU devices / integer ordinals (nnlite has only the CPU).
        output_device: ``None`` or the CPU.
        dim: the batch dimension (the whole batch is evaluated at once).
        module_kwargs: keyword arguments for the module.

    Returns:
        the module's output.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> out = nn.parallel.data_parallel(model, nl.randn(8, 4))
        >>> out.shape
        nnlite.Size([8, 2])
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    for d in list(device_ids or []) + ([] if output_device is None else [output_device]):
        if not (isinstance(d, int) and not isinstance(d, bool)):
            check_device(d)
    return module(*inputs, **(module_kwargs or {}))
