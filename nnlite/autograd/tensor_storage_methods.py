"""Tensor methods about memory and layout, as PyTorch's: strided views (``as_strided``,
``slice_inverse``), resizing (``resize_``, ``resize_as_``, and the deprecated out-of-place
``resize``/``resize_as``), sharing (``set_``, ``is_set_to``), the legacy constructor ``new``,
``new_empty_strided``, ``as_subclass``, ``dim_order``, ``const_data_ptr`` and ``dense_dim``."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from . import strided_views
from .providers import implementation

if TYPE_CHECKING:
    from .tensor import Tensor


def _sizes(sizes: tuple[Any, ...]) -> list[int]:
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        return [int(n) for n in sizes[0]]
    return [int(n) for n in sizes]


def _owner(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class TensorStorageMethods:
    """Memory and layout methods of ``Tensor``."""

    __slots__ = ()

    def as_strided(self: Any, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
        """A view of this tensor's memory with the given sizes and strides (``nl.as_strided``).

        Args:
            size (tuple of ints): the view's shape.
            stride (tuple of ints): the view's strides, in elements.
            storage_offset (int, optional): the first element's position in the memory.

        Returns:
            Tensor: the view.

        Examples:
            >>> nl.arange(4.).as_strided((2, 2), (1, 1))
            tensor([[0., 1.],
                    [1., 2.]])
        """
        result: Tensor = strided_views.as_strided(self, size, stride, storage_offset)
        return result

    def as_strided_(self: Any, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
        """In-place ``as_strided``: this tensor becomes the view.

        Args:
            size (tuple of ints): the new shape.
            stride (tuple of ints): the new strides.
            storage_offset (int, optional): the first element's position in the memory.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.arange(4.).as_strided_((2,), (2,))
            tensor([0., 2.])
        """
        result: Tensor = strided_views.as_strided_(self, size, stride, storage_offset)
        return result

    def slice_inverse(
        self: Any, src: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
    ) -> Tensor:
        """``nl.slice_inverse(self, src, ...)``: a view of this tensor's memory with ``src``'s geometry.

        Args:
            src (Tensor): the tensor whose sizes, strides and offset are used.
            dim (int): the sliced dimension. Default: 0.
            start (int, optional): the slice's start.
            end (int, optional): the slice's end.
            step (int): the slice's step. Default: 1.

        Returns:
            Tensor: the view.

        Examples:
            >>> nl.arange(6.).slice_inverse(nl.zeros(2), 0, 0, 2)
            tensor([0., 1.])
        """
        result: Tensor = strided_views.slice_inverse(self, src, dim, start, end, step)
        return result

    def resize_(self: Any, *sizes: Any, memory_format: Any = None) -> Tensor:
        """Give this tensor the shape ``sizes`` in place, reusing its memory from the start (grown,
        old values first, when too small; new elements are uninitialised in PyTorch, zeros here).

        Args:
            *sizes (ints or a sequence): the new shape.
            memory_format: accepted for PyTorch's signature (contiguous only).

        Returns:
            Tensor: this tensor.

        Raises:
            RuntimeError: for a tensor that requires grad, as PyTorch.

        Examples:
            >>> nl.arange(6.).resize_(2, 2)
            tensor([[0., 1.],
                    [2., 3.]])
        """
        result: Tensor = strided_views.resize_(self, _sizes(sizes))
        return result

    def resize_as_(self: Any, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
        """``resize_`` to ``the_template``'s shape.

        Args:
            the_template (Tensor): the tensor whose shape is taken.
            memory_format: accepted for PyTorch's signature.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.zeros(3).resize_as_(nl.zeros(2, 2)).shape
            nnlite.Size([2, 2])
        """
        result: Tensor = strided_views.resize_(self, list(the_template.shape))
        return result

    def _resize(self: Any, sizes: list[int], name: str) -> Tensor:
        warnings.warn(f"non-inplace {name} is deprecated", UserWarning, stacklevel=3)
        count = int(np.prod(sizes, dtype=np.int64))
        if count != self.numel():
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), but "
                f"the given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} "
                "elements). autograd's resize can only change the shape of a given tensor, while "
                "preserving the number of elements. "
            )
        result: Tensor = self.reshape(sizes)
        return result

    def resize(self: Any, *sizes: Any) -> Tensor:
        """The deprecated out-of-place ``resize`` (warns): this tensor with the shape ``sizes``,
        which must hold as many elements; differentiable.

        Args:
            *sizes (ints or a sequence): the new shape.

        Returns:
            Tensor: the reshaped tensor.

        Examples:
            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     nl.arange(4.).resize(2, 2).shape
            nnlite.Size([2, 2])
        """
        result: Tensor = self._resize(_sizes(sizes), "resize")
        return result

    def resize_as(self: Any, tensor: Tensor) -> Tensor:
        """The deprecated out-of-place ``resize_as`` (warns): ``resize(tensor.shape)``.

        Args:
            tensor (Tensor): the tensor whose shape is taken.

        Returns:
            Tensor: the reshaped tensor.

        Examples:
            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     nl.arange(4.).resize_as(nl.zeros(2, 2)).shape
            nnlite.Size([2, 2])
        """
        result: Tensor = self._resize(list(tensor.shape), "resize_as")
        return result

    def set_(
        self: Any,
        source: Tensor | None = None,
        storage_offset: int | None = None,
        size: Any = None,
        stride: Any = None,
    ) -> Tensor:
        """Make this tensor use ``source``'s memory: the same view (``set_(source)``), a view of it
        with the given geometry (``set_(source, storage_offset, size, stride)``), or no memory at
        all (``set_()``: an empty tensor). PyTorch's ``Storage`` sources are not supported.

        Args:
            source (Tensor, optional): the tensor whose memory is used.
            storage_offset (int, optional): the first element's position in that memory.
            size (tuple of ints, optional): the shape.
            stride (tuple of ints, optional): the strides. Default: contiguous.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> x, y = nl.zeros(2), nl.arange(3.)
            >>> x.set_(y).is_set_to(y)
            True
        """
        tensor_class: Any = implementation("tensor.Tensor")

        self._check_inplace()
        if source is None:
            self._data = np.empty((0,), dtype=self._data.dtype)
        elif not isinstance(source, tensor_class):
            raise TypeError(
                f"set_(): nnlite has no storage objects; source must be a Tensor, not "
                f"{type(source).__name__}"
            )
        elif source.dtype != self.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}"
            )
        elif storage_offset is None and size is None:
            self._data = source._data
        else:
            size = list(source.shape if size is None else size)
            if not stride:
                stride, step = [0] * len(size), 1
                for d in range(len(size) - 1, -1, -1):
                    stride[d] = step
                    step *= max(size[d], 1)
            offset = storage_offset
            self._data = strided_views.as_strided(source.detach(), size, stride, offset)._data
        self._bump_version()
        result: Tensor = self
        return result

    def is_set_to(self: Any, tensor: Tensor) -> bool:
        """Whether both tensors view the same memory with the same offset, sizes and strides.

        Args:
            tensor (Tensor): the other tensor.

        Returns:
            bool: the answer.

        Examples:
            >>> x = nl.zeros(2, 3)
            >>> x.is_set_to(x), x.is_set_to(x.clone()), x.is_set_to(x.view(6))
            (True, False, False)
        """
        a, b = self._data, tensor._data
        if a.shape != b.shape or a.strides != b.strides or a.dtype != b.dtype:
            return False
        return bool(_owner(a) is _owner(b) and self.data_ptr() == tensor.data_ptr())

    def new(self: Any, *args: Any, **kwargs: Any) -> Tensor:
        """PyTorch's legacy constructor in this tensor's dtype: ``new()`` empty, ``new(2, 3)``
        uninitialised of that shape, ``new(sequence)`` the data, ``new(tensor)`` the same tensor.

        Args:
            *args: nothing, sizes, an ``nl.Size``, a sequence or a tensor of this dtype.
            **kwargs: ``device`` (the CPU only).

        Returns:
            Tensor: the new tensor.

        Examples:
            >>> nl.zeros(1, dtype=nl.int64).new([1, 2])
            tensor([1, 2])
        """
        from ..device import check_device

        empty, tensor = implementation("creation.empty"), implementation("creation.tensor")
        from .sizes import Size

        tensor_class: Any = implementation("tensor.Tensor")

        check_device(kwargs.pop("device", None))
        if kwargs:
            raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
        result: Tensor
        if not args:
            result = empty(0, dtype=self.dtype)
            return result
        first = args[0]
        if len(args) == 1 and isinstance(first, tensor_class):
            if first.dtype != self.dtype:
                raise TypeError(f"expected {self.dtype} (got {first.dtype})")
            result = first
            return result
        if isinstance(first, (int, np.integer, Size)) and not isinstance(first, bool):
            result = empty(*args, dtype=self.dtype)
            return result
        if len(args) > 1:
            raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
        result = tensor(first, dtype=self.dtype)
        return result

    def new_empty_strided(
        self: Any,
        size: Any,
        stride: Any,
        *,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
    ) -> Tensor:
        """``nl.empty_strided`` in this tensor's dtype unless ``dtype`` is given.

        Args:
            size (tuple of ints): the shape.
            stride (tuple of ints): the strides, in elements.
            dtype (nl.dtype, optional): the dtype. Default: this tensor's.
            layout: accepted for PyTorch's signature.
            device (str or nl.device, optional): the CPU only.
            pin_memory (bool): accepted. Default: False.
            requires_grad (bool): record operations on it. Default: False.

        Returns:
            Tensor: the tensor.

        Examples:
            >>> nl.zeros(1).new_empty_strided((2, 2), (1, 2)).stride()
            (1, 2)
        """
        result: Tensor = strided_views.empty_strided(
            size, stride, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad
        )
        return result

    def as_subclass(self: Any, cls: type) -> Any:
        """This tensor as an instance of ``cls`` (a subclass of ``nl.Tensor``), sharing its memory
        and staying in the autograd graph.

        Args:
            cls (type): a subclass of ``nl.Tensor``.

        Returns:
            Tensor: the ``cls`` instance.

        Examples:
            >>> class Tagged(nl.Tensor):
            ...     pass
            >>> type(nl.zeros(2).as_subclass(Tagged)).__name__
            'Tagged'
        """
        Tensor: Any = implementation("tensor.Tensor")

        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                f"as_subclass(): argument 'cls' must be a subclass of Tensor, not {cls!r}"
            )
        alias = self.view_as(self) if self._requires_grad else self.detach()
        out: Any = object.__new__(cls)
        for slot in Tensor.__slots__:
            if slot != "__weakref__":
                setattr(out, slot, getattr(alias, slot))
        return out

    def dim_order(self: Any, *, ambiguity_check: bool = False) -> tuple[int, ...]:
        """The dimensions from outermost to innermost in memory (by decreasing stride).

        Args:
            ambiguity_check (bool): raise when the order is not unique (equal strides, or
                dimensions of size one). Default: False.

        Returns:
            tuple of ints: the order.

        Examples:
            >>> nl.zeros(2, 3).t().dim_order()
            (1, 0)
        """
        strides = self.stride()
        order = tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))
        if ambiguity_check:
            if not isinstance(ambiguity_check, bool):
                raise TypeError(
                    "The ambiguity_check argument must be a bool or a list of memory formats."
                )
            if len(set(strides)) != len(strides) or 1 in self.shape:
                raise RuntimeError(
                    "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
                )
        return order

    def const_data_ptr(self: Any) -> int:
        """The address of the first element, for reading (``data_ptr``).

        Returns:
            int: the address.

        Examples:
            >>> x = nl.zeros(2)
            >>> x.const_data_ptr() == x.data_ptr()
            True
        """
        value: int = self.data_ptr()
        return value

    def dense_dim(self: Any) -> int:
        """The number of dense dimensions: all of them (nnlite's tensors are dense).

        Returns:
            int: ``self.ndim``.

        Examples:
            >>> nl.zeros(2, 3).dense_dim()
            2
        """
        value: int = self.ndim
        return value
