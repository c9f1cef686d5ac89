"""The Tensor: a numpy array plus what autograd needs to know about it.

This file holds the state, properties, conversions and in-place plumbing; the math and shape
methods come from the ``TensorMethods`` mixin (``tensor_methods.py``), each a thin call into one
op of ``autograd/ops/``.
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, cast, overload

import numpy as np

from ..device import CPU as _CPU  # noqa: F401  (re-exported)
from ..device import check_device, device
from . import dtypes as _dtypes
from . import grad_mode
from . import op as _op
from ._formatting import tensor_repr
from .creation_keywords import from_keyword
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
from .ops.pointwise import Clone as _Clone
from .ops.pointwise import CopyFrom as _CopyFrom
from .ops.pointwise import ToDtype as _ToDtype
from .ops.shape import GetItem as _GetItem
from .ops.shape import IndexPut as _IndexPut
from .ops.shape import assign as _assign
from .promotion import default_float, scalar_type_name
from .providers import implementation, provide
from .random import default_generator
from .sizes import Size, shape_arg
from .sizes import wrap_dim as _wrap_dim
from .tensor_extras import TensorExtras
from .tensor_functions import TensorFunctions
from .tensor_methods import TensorMethods
from .tensor_op_methods import TensorOpMethods
from .tensor_storage_methods import TensorStorageMethods
from .tensor_surface import TensorSurface, TensorSurfaceMore
from .view_inplace import Overwrite as _Overwrite
from .view_inplace import (
    check_view_inplace,
    keep_original,
    mark_view,
    rebase_history,
    refresh_views,
)

if TYPE_CHECKING:
    from .._typing import Device, DTypeLike, Number, _bool, _float, _int, _size
    from .dtypes import dtype
    from .node import AccumulateGrad, Node
    from .op import Op
    from .view_inplace import ViewInfo

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


class Tensor(
    TensorStorageMethods,
    TensorOpMethods,
    TensorExtras,
    TensorSurface,
    TensorSurfaceMore,
    TensorFunctions,
    TensorMethods,
):
    """A multi-dimensional array with autograd, as ``torch.Tensor``.

    Create tensors with ``nl.tensor``, ``nl.zeros``, ``nl.from_numpy`` and friends rather than
    with this constructor.

    Args:
        data (numpy.ndarray, optional): the data, held without a copy. Default: an empty float32
            array.
        requires_grad (bool): record operations on this tensor for autograd. Default: False.

    Examples:
        >>> x = nl.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        >>> y = (x @ x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([[ 7., 11.],
                [ 9., 13.]])
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
        "_view",
        "__weakref__",
    )
    _data: np.ndarray
    _requires_grad: _bool
    _grad: Tensor | None
    _grad_fn: Node | None
    _output_nr: _int
    _vc: list[_int]  # the version counter, shared by views
    _grad_acc: Any
    _retains_grad: _bool
    _hooks: Any
    _view: ViewInfo | None  # set on views: the base they share memory with (view_inplace.py)
    __array_priority__ = 1000
    __array_ufunc__ = (
        None  # numpy defers to Tensor's reflected operators: np.float32(2) * t is a Tensor
    )
    __hash__ = object.__hash__

    def __init__(self, data: Any = None, *sizes: Any, requires_grad: _bool = False) -> None:
        # PyTorch's legacy constructor: Tensor() empty, Tensor(2, 3) or Tensor(nl.Size([2, 3]))
        # uninitialised float32 of that size, Tensor(sequence) the data as float32
        if len(sizes) == 1 and isinstance(sizes[0], builtins.bool):
            requires_grad, sizes = sizes[0], ()
        if data is None:
            data = np.empty((0,), dtype=default_float())
        elif (
            isinstance(data, (builtins.int, np.integer)) and not isinstance(data, builtins.bool)
        ) or isinstance(data, Size):
            data = np.empty(shape_arg((data, *sizes)), dtype=default_float())
        elif sizes:
            raise TypeError(f"new(): data must be a sequence (got {builtins.type(data).__name__})")
        elif isinstance(data, Tensor):
            data = data._data
        elif not isinstance(data, np.ndarray):
            data = _as_array(data).astype(default_float())  # like torch.Tensor(...)
        _init(self, data, None)
        if requires_grad:
            self.requires_grad_(True)

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        """The size of each dimension, as an ``nnlite.Size``.

        Examples:
            >>> nl.zeros(2, 3).shape
            nnlite.Size([2, 3])
        """
        return Size(self._data.shape)

    @overload
    def size(self, dim: None = None) -> Size: ...
    @overload
    def size(self, dim: _int) -> _int: ...
    def size(self, dim: _int | None = None) -> Size | _int:
        """The shape as an ``nnlite.Size``, or the length of dimension ``dim``.

        Args:
            dim (int, optional): one dimension (negative counts from the end).

        Returns:
            nnlite.Size, or an int with ``dim``.

        Examples:
            >>> x = nl.zeros(2, 3)
            >>> x.size(), x.size(-1)
            (nnlite.Size([2, 3]), 3)
        """
        if dim is None:
            return Size(self._data.shape)
        length: _int = self._data.shape[_wrap_dim(dim, self._data.ndim)]
        return length

    @property
    def dtype(self) -> dtype:
        """The element type.

        Examples:
            >>> nl.zeros(2).dtype, nl.tensor([1, 2]).dtype
            (nnlite.float32, nnlite.int64)
        """
        return _dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> device:
        """Where the data lives: always the CPU.

        Examples:
            >>> nl.zeros(2).device
            device(type='cpu')
        """
        return _CPU

    is_cuda = False

    @property
    def ndim(self) -> _int:
        """The number of dimensions.

        Examples:
            >>> nl.zeros(2, 3).ndim
            2
        """
        return self._data.ndim

    def dim(self) -> _int:
        """The number of dimensions (as ``ndim``).

        Returns:
            int: the number of dimensions.

        Examples:
            >>> nl.zeros(2, 3).dim()
            2
        """
        return self._data.ndim

    def numel(self) -> _int:
        """The number of elements.

        Returns:
            int: the product of the sizes.

        Examples:
            >>> nl.zeros(2, 3).numel()
            6
        """
        return self._data.size

    def nelement(self) -> _int:
        """The number of elements (as ``numel``).

        Returns:
            int: the product of the sizes.

        Examples:
            >>> nl.zeros(2, 3).nelement()
            6
        """
        return self._data.size

    def element_size(self) -> _int:
        """The size of one element in bytes.

        Returns:
            int: bytes per element.

        Examples:
            >>> nl.zeros(1).element_size(), nl.zeros(1, dtype=nl.float64).element_size()
            (4, 8)
        """
        return self._data.itemsize

    def is_floating_point(self) -> _bool:
        """Whether the dtype is a floating-point type.

        Returns:
            bool: True for float16, float32 and float64.

        Examples:
            >>> nl.zeros(1).is_floating_point(), nl.tensor([1]).is_floating_point()
            (True, False)
        """
        return self._data.dtype.kind == "f"

    def is_contiguous(self, memory_format: Any = None) -> _bool:
        """Whether the elements lie in memory in row-major order without gaps.

        Args:
            memory_format: accepted for compatibility (the contiguous format).

        Returns:
            bool: True for a C-contiguous tensor.

        Examples:
            >>> x = nl.zeros(2, 3)
            >>> x.is_contiguous(), x.t().is_contiguous()
            (True, False)
        """
        return self._data.flags.c_contiguous

    @overload
    def stride(self, dim: None = None) -> tuple[_int, ...]: ...
    @overload
    def stride(self, dim: _int) -> _int: ...
    def stride(self, dim: _int | None = None) -> tuple[_int, ...] | _int:
        """The step in elements between neighbours along each dimension (or along ``dim``).

        Args:
            dim (int, optional): one dimension.

        Returns:
            tuple of ints, or an int with ``dim``.

        Examples:
            >>> nl.zeros(2, 3).stride()
            (3, 1)
        """
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> _int:
        """The address of the first element.

        Returns:
            int: the memory address.

        Examples:
            >>> x = nl.zeros(3)
            >>> x.data_ptr() == x.view(3).data_ptr()
            True
        """
        address: _int = self._data.__array_interface__["data"][0]
        return address

    @property
    def _version(self) -> _int:
        return self._vc[0]

    def _bump_version(self) -> None:
        """Record an in-place change (autograd checks saved tensors against this counter)."""
        self._vc[0] += 1

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> _bool:
        """Whether autograd records operations on this tensor; settable on leaf tensors.

        Examples:
            >>> x = nl.zeros(2)
            >>> x.requires_grad = True
            >>> (x * 2).requires_grad
            True
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: _bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: _bool = True) -> Tensor:
        """Set whether autograd records operations on this tensor; returns the tensor itself.

        Args:
            requires_grad (bool): record operations (floating-point tensors only). Default: True.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.zeros(2).requires_grad_()
            >>> x.requires_grad
            True
        """
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want "
                    "to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            # (PyTorch words this one differently from the ``requires_grad=True`` argument's)
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by ``backward`` (``None`` until then); settable.

        Examples:
            >>> a = nl.tensor([2.], requires_grad=True)
            >>> (a * 3).backward()
            >>> a.grad
            tensor([3.])
        """
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
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
    def grad_fn(self) -> Node | None:
        """The graph node that made this tensor (``None`` for a leaf).

        Examples:
            >>> a = nl.tensor([2.], requires_grad=True)
            >>> a.grad_fn is None, (a * 3).grad_fn
            (True, <MulBackward0 object at 0x...>)
        """
        return self._grad_fn

    @property
    def is_leaf(self) -> _bool:
        """Whether the tensor was made by the user rather than by a recorded operation.

        Examples:
            >>> a = nl.tensor([2.], requires_grad=True)
            >>> a.is_leaf, (a * 3).is_leaf
            (True, False)
        """
        return self._grad_fn is None

    @property
    def retains_grad(self) -> _bool:
        """Whether ``retain_grad()`` asked this non-leaf tensor to keep its gradient.

        Examples:
            >>> b = nl.tensor([2.], requires_grad=True) * 3
            >>> b.retain_grad()
            >>> b.retains_grad
            True
        """
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward.

        Examples:
            >>> x = nl.tensor([1., 2.], requires_grad=True)
            >>> y = x * 3
            >>> y.retain_grad()
            >>> y.sum().backward()
            >>> y.grad
            tensor([1., 1.])
        """
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        self._grad_fn.retain_output_grad(self)
        self._retains_grad = True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> _RemovableHook:
        """Call ``hook(grad)`` when the gradient for this tensor is computed.

        For a leaf tensor the hook runs before the gradient is accumulated into ``.grad``.

        Args:
            hook (callable): ``hook(grad) -> Tensor or None``; a returned tensor replaces the
                gradient.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Examples:
            >>> x = nl.tensor([1., 2.], requires_grad=True)
            >>> handle = x.register_hook(lambda grad: grad * 10)
            >>> (x * 2).sum().backward()
            >>> x.grad
            tensor([20., 20.])
            >>> handle.remove()
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node, index = gradient_edge(self)
        assert node is not None  # the tensor requires grad
        if self._grad_fn is None:
            # keep the accumulator alive as long as the tensor: hooks live on it
            self._hooks = node
        return _RemovableHook(node, node.register_prehook(index, hook))

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> _RemovableEntry:
        """Call ``hook(tensor)`` after backward has accumulated this leaf tensor's ``.grad``.

        The hook receives the tensor itself (not the gradient), once per backward pass that reaches
        it, and runs under no-grad (unless ``create_graph=True``), so it may update the tensor or
        its ``.grad`` in place. Its return value is ignored. Only leaf tensors take this hook.

        Args:
            hook (callable): ``hook(tensor)``, called after each accumulation.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Examples:
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
        node = cast("AccumulateGrad", gradient_edge(self)[0])  # a leaf that requires grad
        self._hooks = (
            node  # keep the accumulator, and with it the hooks, alive as long as the tensor
        )
        hooks: list[Callable[[Tensor], None]] | None = node._post_accumulate_hooks
        if hooks is None:
            hooks = node._post_accumulate_hooks = []
        hooks.append(hook)
        return _RemovableEntry(hooks, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: _bool | None = None,
        create_graph: _bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate the gradient of this tensor with respect to graph leaves into their ``.grad``.

        Args:
            gradient: the gradient of the final result with respect to this tensor; may be omitted
                for a tensor with one element.
            retain_graph: keep the saved tensors so that backward can run again (default:
                ``create_graph``).
            create_graph: record the backward pass, for higher-order gradients.

        Examples:
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

    def detach(self) -> Tensor:
        """A tensor sharing this one's data, outside the graph.

        Returns:
            Tensor: a leaf that does not require grad; in-place changes show in both.

        Examples:
            >>> x = nl.ones(2, requires_grad=True)
            >>> d = (x * 2).detach()
            >>> d, d.requires_grad
            (tensor([2., 2.]), False)
        """
        t = _make(self._data)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Take this tensor out of the graph, in place: it becomes a leaf without ``requires_grad``.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> y = nl.ones(2, requires_grad=True) * 2
            >>> y.detach_().requires_grad, y.is_leaf
            (False, True)
        """
        if self._grad_fn is not None and self._retains_grad:
            self._retains_grad = False
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The tensor's data as a new tensor outside the graph; assigning replaces the data.

        Examples:
            >>> w = nl.ones(2, requires_grad=True)
            >>> w.data.requires_grad
            False
            >>> w.data = nl.zeros(2)
            >>> w
            tensor([0., 0.], requires_grad=True)
        """
        return _make(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    # ------------------------------------------------------------------ conversion
    def numpy(self, force: _bool = False) -> np.ndarray:
        """The data as a numpy array sharing memory with the tensor.

        Args:
            force (bool): allow it on a tensor that requires grad (the array is outside the graph).
                Default: False.

        Returns:
            numpy.ndarray: the tensor's own array.

        Examples:
            >>> x = nl.zeros(2)
            >>> a = x.numpy()
            >>> a[0] = 5.
            >>> x
            tensor([5., 0.])
        """
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: _bool | None = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number.

        Returns:
            int, float or bool: the value.

        Examples:
            >>> nl.tensor([1.5]).item()
            1.5
        """
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        """The data as (nested) Python lists of numbers.

        Returns:
            list, or a number for a 0-D tensor.

        Examples:
            >>> nl.tensor([[1, 2], [3, 4]]).tolist()
            [[1, 2], [3, 4]]
        """
        return self._data.tolist()

    def _scalar(self) -> Any:
        """The single element, for ``float(t)``, ``int(t)`` (PyTorch's message otherwise)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> _float:
        return float(self._scalar())

    def __int__(self) -> _int:
        return int(self._scalar())

    def __index__(self) -> _int:
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> _bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'no values' if self._data.size == 0 else 'more than one value'} "
                "is ambiguous"
            )
        return bool(self._data.reshape(()))

    def __len__(self) -> _int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        length: _int = self._data.shape[0]
        return length

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        # as PyTorch: a 0-d tensor formats its value (f"{loss:>7f}"), others only with an empty spec
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        # Tensors cross process boundaries (data-loader workers) as arrays.
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict[_int, Any]) -> Tensor:
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

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert dtype (``t.to(nl.float64)``) or device (``t.to("cpu")``; the only device).

        Accepts PyTorch's forms: ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``
        and the keywords below.

        Args:
            *args: a dtype, a device, or a Tensor whose dtype to take.
            **kwargs: ``dtype``, ``device``, ``non_blocking`` (ignored) and ``copy`` (always copy).

        Returns:
            Tensor: this tensor when nothing changes (and ``copy`` is False), else a converted copy.

        Examples:
            >>> x = nl.tensor([1, 2])
            >>> x.to(nl.float64)
            tensor([1., 2.], dtype=nnlite.float64)
            >>> x.to("cpu") is x
            True
        """
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
        target = _dtypes.to_numpy_dtype(dtype)
        if target.kind not in "fc":  # integers and bools have no gradient: outside the graph
            return _make(self._data.astype(target))
        return _ToDtype.apply(self, dtype=target)

    def cpu(self, memory_format: Any = None) -> Tensor:
        """The tensor on the CPU: itself, nnlite runs on the CPU.

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: the result.

        Examples:
            >>> x = nl.zeros(2)
            >>> x.cpu() is x
            True
        """
        return self

    def share_memory_(self) -> Tensor:
        """Move the data to shared memory (no copy if it is there already); returns ``self``.

        Processes started afterwards (forked, or handed the tensor through ``nnlite.multiprocessing``)
        read and update the same memory, as with ``torch.Tensor.share_memory_``.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.zeros(3).share_memory_()
            >>> x.is_shared()
            True
        """
        from .._runtime import shared_memory

        if not shared_memory.is_shared(self._data):
            self._data = shared_memory.to_shared(self._data)
        return self

    def is_shared(self) -> _bool:
        """Whether the data lies in shared memory (see ``share_memory_``).

        Returns:
            bool: True after ``share_memory_()``.

        Examples:
            >>> nl.zeros(3).is_shared()
            False
        """
        from .._runtime import shared_memory

        return shared_memory.is_shared(self._data)

    def cuda(
        self, device: Device = None, non_blocking: _bool = False, memory_format: Any = None
    ) -> Tensor:
        """Raises: nnlite has no CUDA device.

        Args:
            device (int, optional): the GPU PyTorch would use.
            non_blocking (bool): accepted for compatibility.
            memory_format: accepted for compatibility.

        Returns:
            Never returns: the call raises a ``RuntimeError`` naming the missing device.

        Examples:
            >>> nl.zeros(2).cuda()
            Traceback (most recent call last):
                ...
            RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
        """
        check_device("cuda")  # raises: nnlite runs on the CPU
        return self

    # pinned (page-locked) memory only matters for copies to an accelerator: a no-op here
    def pin_memory(self, device: Device = None) -> Tensor:
        """The tensor itself: page-locked memory only matters for copies to an accelerator.

        Args:
            device: accepted for compatibility.

        Returns:
            Tensor: the result.

        Examples:
            >>> x = nl.zeros(2)
            >>> x.pin_memory() is x
            True
        """
        return self

    def is_pinned(self, device: Device = None) -> _bool:
        """Whether the memory is page-locked: always False.

        Args:
            device: accepted for compatibility.

        Returns:
            bool: False.

        Examples:
            >>> nl.zeros(2).is_pinned()
            False
        """
        return False

    is_cpu = True
    # the other device kinds PyTorch scripts test for (``input.is_cuda or input.is_xpu``)
    is_xpu = is_mps = is_meta = False

    def get_device(self) -> _int:
        """The device index: -1, the CPU.

        Returns:
            int: -1.

        Examples:
            >>> nl.zeros(1).get_device()
            -1
        """
        return -1

    @overload
    def type(self, dtype: None = None) -> str: ...
    @overload
    def type(self, dtype: DTypeLike) -> Tensor: ...
    def type(
        self, dtype: DTypeLike | None = None, non_blocking: _bool = False, **kwargs: Any
    ) -> str | Tensor:
        """The type name (``"nnlite.FloatTensor"``) without an argument, else a converted tensor.

        Args:
            dtype (nl.dtype, str or legacy class, optional): the type to convert to: a dtype, a
                name such as ``"torch.LongTensor"`` / ``"nnlite.LongTensor"``, or
                ``nl.LongTensor``.
            non_blocking (bool): ignored (there is only the CPU).

        Returns:
            str or Tensor: the type name, or this tensor when it has the type already, else a copy.

        Examples:
            >>> x = nl.tensor([1.5, 2.])
            >>> x.type()
            'nnlite.FloatTensor'
            >>> x.type("torch.LongTensor")
            tensor([1, 2])
        """
        if dtype is None:
            return f"nnlite.{self.dtype._tensor_type}"
        if isinstance(dtype, str):
            dtype = _dtypes.from_tensor_type_name(dtype)
        else:
            legacy = getattr(dtype, "_dtype", None)  # nl.LongTensor
            if isinstance(legacy, _dtypes.dtype):
                dtype = legacy
        return self.to(dtype)

    def float(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to float32 (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a float32 tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).float()
            tensor([ 1.5000, -2.0000])
        """
        return self.to(_dtypes.float32)

    def double(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to float64 (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a float64 tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).double()
            tensor([ 1.5000, -2.0000], dtype=nnlite.float64)
        """
        return self.to(_dtypes.float64)

    def half(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to float16 (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a float16 tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).half()
            tensor([ 1.5000, -2.0000], dtype=nnlite.float16)
        """
        return self.to(_dtypes.float16)

    def long(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to int64 (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a int64 tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).long()
            tensor([ 1, -2])
        """
        return self.to(_dtypes.int64)

    def int(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to int32 (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a int32 tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).int()
            tensor([ 1, -2], dtype=nnlite.int32)
        """
        return self.to(_dtypes.int32)

    def bool(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to bool (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a bool tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).bool()
            tensor([True, True])
        """
        return self.to(_dtypes.bool)

    def byte(self, memory_format: Any = None) -> Tensor:
        """This tensor converted to uint8 (itself when it already is).

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: a uint8 tensor.

        Examples:
            >>> nl.tensor([1.5, -2.]).byte()
            tensor([  1, 254], dtype=nnlite.uint8)
        """
        return self.to(_dtypes.uint8)

    def new_tensor(
        self,
        data: Any,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: _bool = False,
    ) -> Tensor:
        """A new tensor holding ``data``, with this tensor's dtype unless ``dtype`` is given.

        Args:
            data: a number, a (nested) list, a numpy array or a Tensor.
            dtype (nl.dtype, optional): the element type. Default: this tensor's.
            device (str or nl.device, optional): only ``"cpu"``.
            requires_grad (bool): record operations on the result. Default: False.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.zeros(1, dtype=nl.float64).new_tensor([1, 2])
            tensor([1., 2.], dtype=nnlite.float64)
        """
        made: Tensor = implementation("creation.tensor")(
            data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad
        )
        return made

    def new_zeros(
        self,
        *size: Any,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: _bool = False,
        layout: Any = None,
        pin_memory: _bool = False,
    ) -> Tensor:
        """A new tensor of zeros of shape ``size``, with this tensor's dtype by default.

        Args:
            *size (ints or a tuple of ints): the shape.
            dtype (nl.dtype, optional): the element type. Default: this tensor's.
            device (str or nl.device, optional): only ``"cpu"``.
            requires_grad (bool): record operations on the result. Default: False.
            layout: only the strided layout (None).
            pin_memory (bool): only False; nnlite has no pinned memory.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.zeros(1).new_zeros(2)
            tensor([0., 0.])
        """
        made: Tensor = implementation("creation.zeros")(
            *size,
            dtype=dtype or self.dtype,
            device=device,
            requires_grad=requires_grad,
            layout=layout,
            pin_memory=pin_memory,
        )
        return made

    def new_ones(
        self,
        *size: Any,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: _bool = False,
        layout: Any = None,
        pin_memory: _bool = False,
    ) -> Tensor:
        """A new tensor of ones of shape ``size``, with this tensor's dtype by default.

        Args:
            *size (ints or a tuple of ints): the shape.
            dtype (nl.dtype, optional): the element type. Default: this tensor's.
            device (str or nl.device, optional): only ``"cpu"``.
            requires_grad (bool): record operations on the result. Default: False.
            layout: only the strided layout (None).
            pin_memory (bool): only False; nnlite has no pinned memory.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.zeros(1).new_ones(2)
            tensor([1., 1.])
        """
        made: Tensor = implementation("creation.ones")(
            *size,
            dtype=dtype or self.dtype,
            device=device,
            requires_grad=requires_grad,
            layout=layout,
            pin_memory=pin_memory,
        )
        return made

    def new_full(
        self,
        size: _size,
        fill_value: Number,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: _bool = False,
        layout: Any = None,
        pin_memory: _bool = False,
    ) -> Tensor:
        """A new tensor of shape ``size`` filled with ``fill_value``, with this tensor's dtype.

        Args:
            size (tuple of ints): the shape.
            fill_value (number): the value.
            dtype (nl.dtype, optional): the element type. Default: this tensor's.
            device (str or nl.device, optional): only ``"cpu"``.
            requires_grad (bool): record operations on the result. Default: False.
            layout: only the strided layout (None).
            pin_memory (bool): only False; nnlite has no pinned memory.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.zeros(1).new_full((2,), 7.)
            tensor([7., 7.])
        """
        made: Tensor = implementation("creation.full")(
            size,
            fill_value,
            dtype=dtype or self.dtype,
            device=device,
            requires_grad=requires_grad,
            layout=layout,
            pin_memory=pin_memory,
        )
        return made

    def new_empty(
        self,
        *size: Any,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: _bool = False,
        layout: Any = None,
        pin_memory: _bool = False,
    ) -> Tensor:
        """A new tensor of uninitialised values of shape ``size``, with this tensor's dtype by
        default.

        Args:
            *size (ints or a tuple of ints): the shape.
            dtype (nl.dtype, optional): the element type. Default: this tensor's.
            device (str or nl.device, optional): only ``"cpu"``.
            requires_grad (bool): record operations on the result. Default: False.
            layout: only the strided layout (None).
            pin_memory (bool): only False; nnlite has no pinned memory.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.zeros(1).new_empty(2).shape
            nnlite.Size([2])
        """
        made: Tensor = implementation("creation.empty")(
            *size,
            dtype=dtype or self.dtype,
            device=device,
            requires_grad=requires_grad,
            layout=layout,
            pin_memory=pin_memory,
        )
        return made

    # ------------------------------------------------------------------ in-place plumbing
    def _check_inplace(self) -> None:
        if self._requires_grad and self._grad_fn is None and _grad_state[0]:
            raise RuntimeError(_LEAF_INPLACE)

    def _inplace(self, fn: builtins.type[Op], *args: Any, **params: Any) -> Tensor:
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
                f"result type {scalar_type_name(out.dtype)} can't be cast to the desired "
                f"output type {scalar_type_name(self._data.dtype)}"
            )
        # fn's own node (mypy knows it only as a Node)
        node: Op | None = result._grad_fn  # type: ignore[assignment]
        if node is not None:
            # the op (or the op that computed a value written here, as ``clamp_`` does) may have
            # saved this tensor for backward: it keeps the values from before the write (an op
            # saving its output reads the input only under create_graph: no copy for it, except
            # on a view, whose base's history must replay)
            if node._saved and (not node.saves_output or self._view is not None):
                keep_original(node, self)
            for a in args:
                if isinstance(a, Tensor) and a._grad_fn is not None and a._grad_fn._saved:
                    keep_original(a._grad_fn, self)
        info = self._view
        view = info is not None and _grad_state[0]
        if view and info is not None and (result._grad_fn is not None or info[0]._requires_grad):
            check_view_inplace(self)
        np.copyto(self._data, out, casting="unsafe")
        self._vc[0] += 1
        if result._grad_fn is not None:
            if view:
                rebase_history(self, result)
                return self
            self._grad_fn = result._grad_fn
            self._output_nr = 0
            self._requires_grad = True
            if len(self._vc) > 1:  # views of this tensor were taken: they read the new history
                refresh_views(self)
        return self

    def _array_inplace(
        self, update: Callable[[np.ndarray], object], node_name: str = "FillBackward0"
    ) -> Tensor:
        """In-place change of the data outside autograd (``zero_``, ``fill_``, ``uniform_``...)."""
        self._check_inplace()
        if _grad_state[0] and (
            self._grad_fn is not None or (self._view is not None and self._view[0]._requires_grad)
        ):
            # recorded: the old values get no gradient, the base's history is rewritten
            values = self._data.copy()
            update(values)
            return self._inplace(_Overwrite, values=values, node_name=node_name)
        update(self._data)
        self._vc[0] += 1
        return self

    def zero_(self) -> Tensor:
        """Set every element to zero.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.ones(3).zero_()
            tensor([0., 0., 0.])
        """
        return self._array_inplace(lambda a: a.fill(0), "ZeroBackward0")

    def fill_(self, value: Number | Tensor) -> Tensor:
        """Set every element to ``value``.

        Args:
            value (number or 0-D Tensor): the value.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.zeros(3).fill_(2)
            tensor([2., 2., 2.])
        """
        value = value.item() if isinstance(value, Tensor) else value
        return self._array_inplace(lambda a: a.fill(value), "FillBackward2")

    def copy_(self, src: Tensor | np.ndarray | Number, non_blocking: _bool = False) -> Tensor:
        """Copy ``src``'s values into this tensor (broadcast and converted to this dtype).

        Args:
            src (Tensor): the values.
            non_blocking (bool): accepted for compatibility; the copy is always synchronous.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.zeros(2)
            >>> x.copy_(nl.tensor([1, 2]))
            tensor([1., 2.])
        """
        src_data = src._data if isinstance(src, Tensor) else np.asarray(src)
        if isinstance(src, Tensor) and src._requires_grad and _grad_state[0]:
            return self._inplace(_CopyFrom, src)
        return self._array_inplace(
            lambda a: np.copyto(a, np.broadcast_to(src_data, a.shape), casting="unsafe"),
            "CopyBackwards",
        )

    def uniform_(
        self, from_: _float = 0.0, to: _float = 1.0, *, generator: Any = None, **keywords: Any
    ) -> Tensor:
        """Fill with samples from the uniform distribution on ``[from, to)``.

        Args:
            from_ (float): the lower bound, also given as PyTorch's ``from`` keyword. Default: 0.
            to (float): the upper bound. Default: 1.
            generator (nl.Generator, optional): the source of randomness. Default: nnlite's.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.empty(100).uniform_(-1, 1)
            >>> bool(((x >= -1) & (x < 1)).all())
            True
        """
        low = from_keyword("uniform_", from_, keywords)
        gen = generator or default_generator
        return self._array_inplace(
            lambda x: x.__setitem__(..., gen.uniform(low, to, x.shape)),
            "UniformBackward0",
        )

    def normal_(self, mean: _float = 0.0, std: _float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill with samples from the normal distribution.

        Args:
            mean (float): the mean. Default: 0.
            std (float): the standard deviation. Default: 1.
            generator (nl.Generator, optional): the source of randomness. Default: nnlite's.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.empty(2, 3).normal_(0., 0.02).shape
            nnlite.Size([2, 3])
        """
        return self._array_inplace(
            lambda x: x.__setitem__(
                ..., (generator or default_generator).normal(mean, std, x.shape)
            ),
            "NormalBackward0",
        )

    def bernoulli_(self, p: _float = 0.5, *, generator: Any = None) -> Tensor:
        """Fill with 1 with probability ``p`` and 0 otherwise.

        Args:
            p (float): the probability of a 1. Default: 0.5.
            generator (nl.Generator, optional): the source of randomness. Default: nnlite's.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x = nl.empty(5).bernoulli_(0.5)
            >>> sorted(set(x.tolist())) in ([0.0], [1.0], [0.0, 1.0])
            True
        """
        return self._array_inplace(
            lambda x: x.__setitem__(..., (generator or default_generator).random(x.shape) < p),
            "BernoulliBackward2",
        )

    def t_(self) -> Tensor:
        """Transpose this tensor of at most 2 dimensions in place.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.zeros(2, 3).t_().shape
            nnlite.Size([3, 2])
        """
        self._check_inplace()
        if self._data.ndim > 2:
            raise RuntimeError(
                f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
            )
        self._data = self._data.T
        self._vc[0] += 1
        return self

    def __setitem__(self, index: Any, value: Tensor | np.ndarray | Number) -> None:
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
        view = self._view is not None
        if view:
            check_view_inplace(self)
        result = _IndexPut.apply(self, value, index=index)
        self._vc[0] += 1
        if view:
            rebase_history(self, result)
            return
        self._grad_fn = result._grad_fn
        self._output_nr = 0
        self._requires_grad = True
        if len(self._vc) > 1:
            refresh_views(self)

    def __getitem__(self, index: Any) -> Tensor:
        index = _index_arg(index)
        if type(index) is builtins.int and self._data.ndim == 1:
            index = (index, ...)  # one element: numpy gives a 0-D view, not a copied scalar
        elif (
            type(index) is tuple
            and len(index) == self._data.ndim
            and all(type(i) is builtins.int for i in index)
        ):
            index = (*index, ...)
        out = _GetItem.apply(self, index=index)
        if out._data.base is not None and _is_basic_index(index):
            mark_view(self, out)  # a view: in-place changes through it are changes to self
        return out

    def clone(self, memory_format: Any = None) -> Tensor:
        """A copy of the tensor with its own memory; gradients flow back to this tensor.

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: the result.

        Examples:
            >>> x = nl.tensor([1., 2.])
            >>> y = x.clone()
            >>> _ = y.zero_()
            >>> x
            tensor([1., 2.])
        """
        return _Clone.apply(self)

    def contiguous(self, memory_format: Any = None) -> Tensor:
        """This tensor if it is contiguous, else a contiguous copy.

        Args:
            memory_format: accepted for compatibility.

        Returns:
            Tensor: the result.

        Examples:
            >>> x = nl.zeros(2, 3).t()
            >>> x.contiguous().is_contiguous()
            True
        """
        if self._data.flags.c_contiguous:
            return self
        return _Clone.apply(self)


def _is_basic_index(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)) for i in items)


def _index_arg(index: Any) -> Any:
    """Turn Tensors inside an index into arrays (bool masks and integer index arrays)."""
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    if isinstance(index, list):
        return np.asarray(index)
    return index


class _RemovableHook:
    def __init__(self, node: Node, entry: Any) -> None:
        self._node, self._entry = node, entry

    def remove(self) -> None:
        hooks: list[Any] = self._node._pre_hooks or []
        if self._entry in hooks:
            hooks.remove(self._entry)


class _RemovableEntry:
    """The handle of a hook kept in a plain list (post-accumulate-grad hooks)."""

    def __init__(self, hooks: list[Any], hook: Any) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        for i, h in enumerate(self._hooks):
            if h is self._hook:
                del self._hooks[i]
                return


def _init(t: Tensor, data: np.ndarray, grad_fn: Node | None) -> None:
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._grad = None
    t._output_nr = 0
    t._vc = [0]
    t._grad_acc = None
    t._retains_grad = False
    t._hooks = None
    t._view = None


def _make(data: Any, grad_fn: Node | None = None) -> Tensor:
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
    t._view = None
    return t


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = _make(data)
    if requires_grad:
        t._requires_grad = True
    return t


def _as_array(data: Any, target: np.dtype[Any] | None = None) -> np.ndarray:
    """Convert Python data to an array with PyTorch's default dtypes (floats -> float32).

    A caller converting to a ``target`` dtype gets Python floats in float64 (rounding through
    float32 would make float64's 0.7 0.699999988), except for float16, which PyTorch reaches
    through float32.
    """
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [x._data if isinstance(x, Tensor) else x for x in data]
    a = np.asarray(data)
    if a.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
        if target is None:
            a = a.astype(default_float())
        elif target.kind == "f" and target.itemsize < 4:
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
provide("tensor", {"Tensor": Tensor})
