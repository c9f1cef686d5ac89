"""The Tensor: a numpy array plus what autograd needs to know about it.

This file holds the state, properties, conversions and in-place plumbing; the math and shape
methods come from the ``TensorMethods`` mixin (``tensor_methods.py``), each a thin call into one
op of ``autograd/ops/``.
"""

import warnings

import numpy as np

from ..device import CPU as _CPU  # noqa: F401  (re-exported)
from ..device import check_device, device
from . import dtypes as _dtypes
from . import grad_mode
from . import op as _op
from . import ops as _ops
from ._formatting import tensor_repr
from .engine import (
    accumulate_into_inputs as _accumulate_into_inputs,
)
from .engine import (
    backward as _backward,
)
from .engine import (
    grad as _grad,
)
from .node import gradient_edge
from .ops.shape import assign as _assign
from .random import default_generator
from .sizes import Size
from .sizes import shape_arg as _shape_arg
from .sizes import wrap_dim as _wrap_dim
from .tensor_functions import TensorFunctions
from .tensor_methods import TensorMethods

_grad_state = grad_mode._state
_new = object.__new__

_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead."
)
_INT_REQUIRES_GRAD = "Only Tensors of floating point and complex dtype can require gradients"


class Tensor(TensorMethods, TensorFunctions):
    """A multi-dimensional array with autograd, as ``torch.Tensor``.

    Create tensors with ``nl.tensor``, ``nl.zeros``, ``nl.from_numpy`` and friends rather than
    with this constructor.
    """

    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad",
        "_grad_fn",
        "_output_nr",
        "_vc",
        "_grad_acc",
        "_retains_grad",
        "_hooks",
        "__weakref__",
    )
    __array_priority__ = 1000
    __array_ufunc__ = (
        None  # numpy defers to Tensor's reflected operators: np.float32(2) * t is a Tensor
    )
    __hash__ = object.__hash__

    def __init__(self, data=None, requires_grad=False):
        if data is None:
            data = np.empty((0,), dtype=np.float32)
        elif isinstance(data, Tensor):
            data = data._data
        elif not isinstance(data, np.ndarray):
            data = _as_array(data).astype(
                np.float32
            )  # like torch.Tensor(...): always the default dtype
        _init(self, data, None)
        if requires_grad:
            self.requires_grad_(True)

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape as an ``nnlite.Size``, or the length of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return _CPU

    is_cuda = False

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    def nelement(self):
        return self._data.size

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_contiguous(self):
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    @property
    def _version(self):
        return self._vc[0]

    def _bump_version(self):
        """Record an in-place change (autograd checks saved tensors against this counter)."""
        self._vc[0] += 1

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records operations on this tensor; returns the tensor itself."""
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want "
                    "to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(_INT_REQUIRES_GRAD)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: {value.shape} vs {self.shape}"
                )
        self._grad = value

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        self._grad_fn.retain_output_grad(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient for this tensor is computed (leaf tensors: before
        accumulation; the hook may return a replacement gradient)."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node, index = gradient_edge(self)
        if self._grad_fn is None:
            # keep the accumulator alive as long as the tensor: hooks live on it
            self._hooks = node
        return _RemovableHook(node, node.register_prehook(index, hook))

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after backward has accumulated this leaf tensor's ``.grad``.

        The hook receives the tensor itself (not the gradient), once per backward pass that reaches
        it, and runs under no-grad (unless ``create_graph=True``), so it may update the tensor or
        its ``.grad`` in place. Its return value is ignored. Only leaf tensors take this hook.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Example:
            >>> v = nl.tensor([0., 0., 0.], requires_grad=True)
            >>> h = v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad * -0.01))
            >>> v.backward(nl.tensor([1., 2., 3.]))
            >>> v
            tensor([-0.0100, -0.0200, -0.0300], requires_grad=True)
            >>> h.remove()
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        node = gradient_edge(self)[0]
        self._hooks = (
            node  # keep the accumulator, and with it the hooks, alive as long as the tensor
        )
        hooks = node._post_accumulate_hooks
        if hooks is None:
            hooks = node._post_accumulate_hooks = []
        hooks.append(hook)
        return _RemovableEntry(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor with respect to graph leaves into their ``.grad``.

        Args:
            gradient: the gradient of the final result with respect to this tensor; may be omitted
                for a tensor with one element.
            retain_graph: keep the saved tensors so that backward can run again (default:
                ``create_graph``).
            create_graph: record the backward pass, for higher-order gradients.

        Example:
            >>> w = nl.tensor([1., 2.], requires_grad=True)
            >>> (w * nl.tensor([10., 20.])).sum().backward()
            >>> w.grad
            tensor([10., 20.])
        """
        if inputs is not None:
            inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
            grads = _grad(self, inputs, gradient, retain_graph, create_graph, allow_unused=True)
            _accumulate_into_inputs(inputs, grads)
            return
        _backward(self, gradient, retain_graph, create_graph)

    def detach(self):
        """A tensor sharing this one's data, outside the graph."""
        t = _make(self._data)
        t._vc = self._vc
        return t

    def detach_(self):
        if self._grad_fn is not None and self._retains_grad:
            self._retains_grad = False
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        return _make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    # ------------------------------------------------------------------ conversion
    def numpy(self, force=False):
        """The data as a numpy array sharing memory with the tensor."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        # as PyTorch: a 0-d tensor formats its value (f"{loss:>7f}"), others only with an empty spec
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        # Tensors cross process boundaries (data-loader workers) as arrays.
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment."
            )
        t = type(self).__new__(type(self))
        _init(t, self._data.copy(), None)
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = _make(self._grad._data.copy())
        memo[id(self)] = t
        return t

    def to(self, *args, **kwargs):
        """Convert dtype (``t.to(nl.float64)``) or device (``t.to("cpu")``; the only device)."""
        dtype = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        copy = kwargs.pop("copy", False)
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (_dtypes.dtype, np.dtype, type)) and not isinstance(a, str):
                dtype = a
            else:
                dev = a
        check_device(dev)
        if dtype is None or _dtypes.to_numpy_dtype(dtype) == self._data.dtype:
            return self.clone() if copy else self
        return _ops.ToDtype.apply(self, dtype=_dtypes.to_numpy_dtype(dtype))

    def cpu(self, memory_format=None):
        return self

    def share_memory_(self):
        """Move the data to shared memory (no copy if it is there already); returns ``self``.

        Processes started afterwards (forked, or handed the tensor through ``nnlite.multiprocessing``)
        read and update the same memory, as with ``torch.Tensor.share_memory_``.
        """
        from .._runtime import shared_memory

        if not shared_memory.is_shared(self._data):
            self._data = shared_memory.to_shared(self._data)
        return self

    def is_shared(self):
        """Whether the data lies in shared memory (see ``share_memory_``)."""
        from .._runtime import shared_memory

        return shared_memory.is_shared(self._data)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        check_device("cuda")

    # pinned (page-locked) memory only matters for copies to an accelerator: a no-op here
    def pin_memory(self, device=None):
        return self

    def is_pinned(self, device=None):
        return False

    is_cpu = True
    # the other device kinds PyTorch scripts test for (``input.is_cuda or input.is_xpu``)
    is_xpu = is_mps = is_meta = False

    def get_device(self):
        return -1

    def type(self, dtype=None):
        if dtype is None:
            return f"nnlite.{self.dtype._tensor_type}"
        return self.to(dtype)

    def float(self):
        return self.to(_dtypes.float32)

    def double(self):
        return self.to(_dtypes.float64)

    def half(self):
        return self.to(_dtypes.float16)

    def long(self):
        return self.to(_dtypes.int64)

    def int(self):
        return self.to(_dtypes.int32)

    def bool(self):
        return self.to(_dtypes.bool)

    def byte(self):
        return self.to(_dtypes.uint8)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from .creation import tensor

        return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        from .creation import zeros

        return zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        from .creation import ones

        return ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        from .creation import full

        return full(
            size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad
        )

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        from .creation import empty

        return empty(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    # ------------------------------------------------------------------ in-place plumbing
    def _check_inplace(self):
        if self._requires_grad and self._grad_fn is None and _grad_state[0]:
            raise RuntimeError(_LEAF_INPLACE)

    def _inplace(self, fn, *args, **params):
        """Run op ``fn`` out of place, write the result into this tensor, and rebase its history."""
        self._check_inplace()
        result = fn.apply(self, *args, **params)
        out = result._data
        if out.shape != self._data.shape:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match "
                f"the broadcast shape [{', '.join(map(str, out.shape))}]"
            )
        if out.dtype != self._data.dtype and not np.can_cast(
            out.dtype, self._data.dtype, "same_kind"
        ):
            raise RuntimeError(
                f"result type {_dtypes.from_numpy_dtype(out.dtype).name.capitalize()} can't "
                f"be cast to the desired output type {self.dtype.name.capitalize()}"
            )
        np.copyto(self._data, out, casting="unsafe")
        self._vc[0] += 1
        if result._grad_fn is not None:
            self._grad_fn = result._grad_fn
            self._output_nr = 0
            self._requires_grad = True
        return self

    def _array_inplace(self, update):
        """In-place change of the data outside autograd (``zero_``, ``fill_``, ``uniform_``...)."""
        self._check_inplace()
        if self._grad_fn is not None and _grad_state[0]:
            raise RuntimeError(
                "in-place initialisation of a tensor that has a grad_fn is not supported; "
                "use it under nl.no_grad() or on a leaf"
            )
        update(self._data)
        self._vc[0] += 1
        return self

    def zero_(self):
        return self._array_inplace(lambda a: a.fill(0))

    def fill_(self, value):
        value = value.item() if isinstance(value, Tensor) else value
        return self._array_inplace(lambda a: a.fill(value))

    def copy_(self, src):
        src_data = src._data if isinstance(src, Tensor) else np.asarray(src)
        if isinstance(src, Tensor) and src._requires_grad and _grad_state[0]:
            return self._inplace(_ops.CopyFrom, src)
        return self._array_inplace(
            lambda a: np.copyto(a, np.broadcast_to(src_data, a.shape), casting="unsafe")
        )

    def uniform_(self, a=0.0, b=1.0):
        return self._array_inplace(
            lambda x: x.__setitem__(..., default_generator.uniform(a, b, x.shape))
        )

    def normal_(self, mean=0.0, std=1.0):
        return self._array_inplace(
            lambda x: x.__setitem__(..., default_generator.normal(mean, std, x.shape))
        )

    def bernoulli_(self, p=0.5):
        return self._array_inplace(
            lambda x: x.__setitem__(..., default_generator.random(x.shape) < p)
        )

    def t_(self):
        self._check_inplace()
        if self._data.ndim > 2:
            raise RuntimeError(
                f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
            )
        self._data = self._data.T
        self._vc[0] += 1
        return self

    def __setitem__(self, index, value):
        index = _index_arg(index)
        recording = _grad_state[0] and (
            self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
        )
        if not recording:
            self._check_inplace()
            _assign(self._data, index, value._data if isinstance(value, Tensor) else value)
            self._vc[0] += 1
            return
        if not isinstance(value, Tensor):
            value = _make(np.asarray(value, dtype=self._data.dtype))
        self._check_inplace()
        result = _ops.IndexPut.apply(self, value, index=index)
        self._vc[0] += 1
        self._grad_fn = result._grad_fn
        self._output_nr = 0
        self._requires_grad = True

    def __getitem__(self, index):
        index = _index_arg(index)
        out = _ops.GetItem.apply(self, index=index)
        if out._data.base is not None and _is_basic_index(index):
            out._vc = self._vc  # a view: in-place changes through it are changes to self
        return out

    def clone(self, memory_format=None):
        return _ops.Clone.apply(self)

    def contiguous(self, memory_format=None):
        if self._data.flags.c_contiguous:
            return self
        return _ops.Clone.apply(self)


def _is_basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)) for i in items)


def _index_arg(index):
    """Turn Tensors inside an index into arrays (bool masks and integer index arrays)."""
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    if isinstance(index, list):
        return np.asarray(index)
    return index


class _RemovableHook:
    def __init__(self, node, entry):
        self._node, self._entry = node, entry

    def remove(self):
        hooks = self._node._pre_hooks or []
        if self._entry in hooks:
            hooks.remove(self._entry)


class _RemovableEntry:
    """The handle of a hook kept in a plain list (post-accumulate-grad hooks)."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        for i, h in enumerate(self._hooks):
            if h is self._hook:
                del self._hooks[i]
                return


def _init(t, data, grad_fn):
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._grad = None
    t._output_nr = 0
    t._vc = [0]
    t._grad_acc = None
    t._retains_grad = False
    t._hooks = None


def _make(data, grad_fn=None):
    """Wrap an array in a new Tensor (no copy): the fast constructor used by every op."""
    if type(data) is not np.ndarray:
        data = np.asarray(data)
    t = _new(Tensor)
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._grad = None
    t._output_nr = 0
    t._vc = [0]
    t._grad_acc = None
    t._retains_grad = False
    t._hooks = None
    return t


def _rebuild(data, requires_grad):
    t = _make(data)
    if requires_grad:
        t._requires_grad = True
    return t


def _as_array(data):
    """Convert Python data to an array with PyTorch's default dtypes (floats -> float32)."""
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [x._data if isinstance(x, Tensor) else x for x in data]
    a = np.asarray(data)
    if a.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
        a = a.astype(np.float32)
    elif a.dtype.kind in "iu" and not isinstance(data, (np.ndarray, np.generic)):
        a = a.astype(np.int64)
    elif a.dtype == object:
        raise TypeError(
            f"could not convert {type(data).__name__} to a tensor: ragged or non-numeric data"
        )
    return a


# ops return Tensors of this class (they sit below it and cannot import it)
_op.register_tensor_type(Tensor, _make)
