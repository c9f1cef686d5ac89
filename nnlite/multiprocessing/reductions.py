"""How tensors are pickled by multiprocessing: shared ones as a handle to the same memory.

Only multiprocessing's own pickler (process arguments under "spawn"/"forkserver", queues, pipes)
uses these reducers; ``pickle.dumps`` and ``copy.deepcopy`` still copy the data.
"""

import pickle
from multiprocessing.reduction import DupFd, ForkingPickler

from .._runtime import shared_memory


def _reduce_tensor(tensor):
    rebuild, args = tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    data, rest = args[0], args[1:]
    if not shared_memory.is_shared(data):
        return rebuild, args
    fd, nbytes, offset, shape, strides, dtype = shared_memory.describe(data)
    return _rebuild_shared, (rebuild, DupFd(fd), nbytes, offset, shape, strides, dtype, rest)


def _rebuild_shared(rebuild, handle, nbytes, offset, shape, strides, dtype, rest):
    data = shared_memory.rebuild(handle.detach(), nbytes, offset, shape, strides, dtype)
    return rebuild(data, *rest)


def _tensor_classes():
    from ..autograd.tensor import Tensor
    from ..nn import parameter  # noqa: F401  (defines Parameter and Buffer)

    found, todo = [], [Tensor]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def init_reductions():
    """Register the tensor reducers with multiprocessing's pickler (Tensor and its subclasses)."""
    for cls in _tensor_classes():
        ForkingPickler.register(cls, _reduce_tensor)
