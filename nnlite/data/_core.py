"""Access to nnlite's Tensor core, imported on first use.

``nnlite.data`` sits above ``nnlite.autograd`` but must stay importable on its own (worker
processes and dataset readers do not need the core until a tensor is built), so the core is
looked up lazily and cached here.
"""

import numpy as np

_Tensor = None
_wrap = None


def _load():
    global _Tensor, _wrap
    from ..autograd.tensor import Tensor

    wrap = None
    try:  # the core's no-copy constructor, when it has one
        from ..autograd.tensor import _make as wrap
    except ImportError:
        pass
    if wrap is None:
        from ..autograd.creation import from_numpy as wrap
    _Tensor, _wrap = Tensor, wrap


def tensor_type():
    """The ``nnlite.Tensor`` class."""
    if _Tensor is None:
        _load()
    return _Tensor


def is_tensor(x):
    if _Tensor is None:
        _load()
    return isinstance(x, _Tensor)


def from_numpy(a):
    """Wrap a numpy array in a Tensor without copying."""
    if _wrap is None:
        _load()
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    return _wrap(a)


def array_of(t):
    """The numpy array behind a Tensor (no copy, no autograd check)."""
    return t._data


def stack_with_grad(tensors):
    """Stack tensors along a new first dimension through the autograd core (keeps the graph)."""
    from ..autograd.creation import stack

    return stack(list(tensors))


def draw_seed():
    """A fresh seed from nnlite's default generator (the one ``nl.manual_seed`` seeds), as PyTorch
    draws from its default generator when no generator is given."""
    try:
        from ..autograd.random import default_generator
    except ImportError:  # core without its own generator: numpy's global one
        # numpy's global generator, so that np.random.seed still makes it reproducible
        return int(np.random.randint(0, 2**62, dtype=np.int64))  # noqa: NPY002
    return int(default_generator.integers(0, 2**62))
