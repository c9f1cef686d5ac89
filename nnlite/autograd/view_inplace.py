"""In-place changes through views, as PyTorch's autograd records them.

A view (``y[1:3]``, ``y.t()``, ``y.view(...)``, ...) shares its base's memory and version counter,
and remembers its base (always the tensor owning the memory, never another view) in ``_view``. An
in-place op on a view writes through to the base, so the base's history is rewritten: the base's
``grad_fn`` becomes a ``CopySlices`` node (the old base with the view's region replaced by the
op's result), and the view's ``grad_fn`` becomes an ``AsStridedBackward0`` node reading that region
from the new base. Chains of views, repeated in-place ops and ``create_graph=True`` work because
both nodes are ordinary ops whose backward formulas are linear maps through element positions.

The cases PyTorch forbids raise PyTorch's errors: a view of a leaf that requires grad, a view made
under ``no_grad`` modified with grad mode on, and an output of a function returning several views
(``unbind``, ``split``, ``chunk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from weakref import ref as _ref

import numpy as np

from . import grad_mode
from .op import Op
from .ops import vjp
from .storage_positions import StorageMap, _positions

if TYPE_CHECKING:
    from .._typing import Array, Gradient

_grad_state = grad_mode._state
_new = object.__new__

_VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)


# What a view knows of its origin, a plain tuple (made for every view, so kept cheap):
# (base, made under no_grad, (function, output number) for outputs of unbind/split/chunk or None)
ViewInfo = tuple[Any, bool, "tuple[str, int] | None"]
BASE = 0
_PRUNE_FROM = 16


def mark_view(base: Any, out: Any) -> Any:
    """Make ``out`` (whose array is a numpy view of ``base``'s) a view of ``base``: shared
    version counter, and its root base remembered. Returns ``out``."""
    counter = out._vc = base._vc
    info = base._view
    recording = _grad_state[0]
    if info is None:
        root = base
        out._view = (base, not recording, None)
    else:
        root = info[0]
        out._view = (root, info[1] or not recording, None)
    if recording and (root._grad_fn is not None or not root._requires_grad):
        # (a leaf that requires grad is never changed in place while recording: not listed)
        # a later in-place change of the memory rewrites the base's history, and this view
        # must then read the new base: the shared counter lists the views that may need it
        counter.append(_ref(out))
        n = len(counter)
        if n >= _PRUNE_FROM and not n & (n - 1):  # at powers of two: amortised constant cost
            counter[1:] = [r for r in counter[1:] if r() is not None]
    return out


def mark_multi_output(views: tuple[Any, ...], function: str) -> tuple[Any, ...]:
    """Mark the views returned together by ``unbind``/``split``/``chunk``: PyTorch forbids
    modifying them in place while recording."""
    for k, v in enumerate(views):
        info = v._view
        if info is not None:
            v._view = (info[0], info[1], (function, k))
    return views


def check_view_inplace(view: Any) -> None:
    """Raise PyTorch's error when an in-place op on ``view`` cannot be recorded."""
    base, no_grad, multi = view._view
    if no_grad:
        raise RuntimeError(_NO_GRAD_VIEW)
    if multi is not None:
        name, k = multi
        raise RuntimeError(
            f"Output {k} of {name} is a view and is being modified inplace. This view is the "
            "output of a function that returns multiple views. Such functions do not allow the "
            "output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(_VIEW_OF_LEAF)


def keep_original(node: Any, tensor: Any) -> None:
    """``node`` (an in-place op's, run on ``tensor`` before the write) saved ``tensor`` for its
    backward: keep a copy of the values it had, as PyTorch saves the original ``self``."""
    saved = node._saved
    for k, t in enumerate(saved):
        if t is tensor:
            original = _new(type(tensor))
            original._data = tensor._data.copy()
            original._grad_fn, original._output_nr = tensor._grad_fn, tensor._output_nr
            original._requires_grad = tensor._requires_grad
            original._grad, original._grad_acc, original._retains_grad = (
                None,
                tensor._grad_acc,
                False,
            )
            original._hooks, original._view, original._vc = None, None, [0]
            node._saved = (*saved[:k], original, *saved[k + 1 :])
            versions = node._saved_versions
            node._saved_versions = (*versions[:k], 0, *versions[k + 1 :])
            return


def rebase_history(view: Any, result: Any) -> None:
    """After ``result`` (a recorded out-of-place op on ``view``) was written into ``view``'s
    memory: make the base's history a ``CopySlices`` of that result, and the view a strided read
    of the new base."""
    base = view._view[0]
    index = _element_index(base._data, view._data)
    n = base._data.size
    every = np.arange(n, dtype=np.int64).reshape(base._data.shape)
    mask = np.ones(base._data.shape, dtype=base._data.dtype)
    mask.reshape(-1)[index.reshape(-1)] = 0
    new_base = CopySlices.apply(base, result, every=every, index=index, length=n, mask=mask)
    base._grad_fn = new_base._grad_fn
    base._output_nr = 0
    base._requires_grad = True
    _read_from(base, view, new_base, every, index)
    refresh_views(base, skip=view)


def refresh_views(base: Any, skip: Any = None) -> None:
    """After ``base``'s history was rewritten by an in-place change: the views of it taken
    earlier (listed in the shared version counter) read the new base, as PyTorch regenerates a
    view's ``grad_fn`` when its version moved."""
    counter = base._vc
    alive = [ref for ref in counter[1:] if ref() is not None]
    counter[1:] = alive
    every = np.arange(base._data.size, dtype=np.int64).reshape(base._data.shape)
    for ref in alive:
        view = ref()
        if view is not skip and view is not None:
            _read_from(base, view, base, every, _element_index(base._data, view._data))


def _read_from(base: Any, view: Any, new_base: Any, every: np.ndarray, index: np.ndarray) -> None:
    read = ReadRegion.apply(new_base, source=every, target=index, length=base._data.size)
    view._grad_fn = read._grad_fn
    view._output_nr = 0
    view._requires_grad = True


def _element_index(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """For each element of ``view``, the flat (row-major) index of the same memory in ``base``."""
    base_at = _positions(base.shape, base.strides, 0).reshape(-1)
    order = np.argsort(base_at, kind="stable")
    ordered = base_at[order]
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    view_at = _positions(view.shape, view.strides, start)
    k = np.searchsorted(ordered, view_at)
    if view_at.size and (k.max() >= ordered.size or not np.array_equal(ordered[k], view_at)):
        raise RuntimeError("in-place operation on a view reaching outside its base's memory")
    return order[k] if view_at.size else np.zeros(view.shape, dtype=np.int64)


class CopySlices(Op):
    """The base after an in-place op through one of its views: the old base with the view's
    elements (at flat positions ``index``) replaced by the op's result. The values were already
    written through the view, so the forward returns the base's memory as it is."""

    node_name = "CopySlices"

    def forward(self, base: Array, value: Array) -> Array:
        return base

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        return (
            grad * vjp.const(self.mask, grad) if needs[0] else None,
            vjp.call(StorageMap, grad, source=self.every, target=self.index, length=self.length)
            if needs[1]
            else None,
        )


class ReadRegion(StorageMap):
    """A view re-read from its rewritten base (PyTorch's ``AsStridedBackward0`` in this place)."""

    node_name = "AsStridedBackward0"


class Overwrite(Op):
    """An in-place change that discards the old values (``zero_``, ``fill_``, ``copy_`` of a
    constant, a random fill) while recording: the result is ``values``, and the old ones get a
    zero gradient. ``node_name`` is given per call (``ZeroBackward0``, ``FillBackward2``...)."""

    def forward(self, a: Array) -> Array:
        values: Array = self.values
        return values

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return grad * 0
