"""``nnlite.nn``: ``Module``, ``Parameter``, layers, losses, ``functional`` and ``init``.

Examples:
    >>> import nnlite as nl
    >>> from nnlite import nn
    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    >>> loss = nn.CrossEntropyLoss()(model(nl.randn(2, 4)), nl.tensor([0, 2]))
    >>> loss.backward()
"""

from typing import TYPE_CHECKING, Any

from . import functional, init, utils
from .factory import factory_kwargs
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .modules.sync_batchnorm import SyncBatchNorm
from .parameter import Buffer, Parameter

if TYPE_CHECKING:
    # modules/__init__ computes its __all__, which type checkers cannot follow: name the files
    from .modules.activation import *  # noqa: F403
    from .modules.batchnorm import *  # noqa: F403
    from .modules.container import *  # noqa: F403
    from .modules.conv import *  # noqa: F403
    from .modules.dropout import *  # noqa: F403
    from .modules.flatten import *  # noqa: F403
    from .modules.linear import *  # noqa: F403
    from .modules.loss import *  # noqa: F403
    from .modules.module import Module as Module
    from .modules.normalization import *  # noqa: F403
    from .modules.padding import *  # noqa: F403
    from .modules.pixelshuffle import *  # noqa: F403
    from .modules.pooling import *  # noqa: F403
    from .modules.rnn import *  # noqa: F403
    from .modules.sparse import *  # noqa: F403
    from .modules.transformer import *  # noqa: F403
    from .modules.upsampling import *  # noqa: F403
    from .parallel import DataParallel as DataParallel

__all__ = (
    ["Parameter", "Buffer", "functional", "init"]
    + list(_modules_all)
    + ["SyncBatchNorm", "factory_kwargs"]
)


def __getattr__(name: str) -> Any:
    # DataParallel lives in nn/parallel and is loaded on first use
    if name == "DataParallel":
        from .parallel import DataParallel

        return DataParallel
    if name in ("parallel", "utils"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'nnlite.nn' has no attribute '{name}'")
